// Package clock is the server's adjustable clock: a base clock (the real one, or a test's)
// plus an offset that only grows. Every API reads time from it, so advancing it expires
// links, completes operations and ages retention and idempotency windows together.
package clock

import (
	"sync/atomic"
	"time"
)

// Clock is safe for concurrent use.
type Clock struct {
	base   func() time.Time
	offset atomic.Int64 // nanoseconds
}

// New returns a clock over base (time.Now when nil).
func New(base func() time.Time) *Clock {
	if base == nil {
		base = time.Now
	}
	return &Clock{base: base}
}

// Now is the base time plus the offset.
func (c *Clock) Now() time.Time { return c.base().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d (a negative d is ignored) and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	if d > 0 {
		c.offset.Add(int64(d))
	}
	return c.Now()
}

// Offset is how far the clock is ahead of its base.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }
