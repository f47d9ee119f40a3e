// Package clock is the server's adjustable clock: a base clock (the real one, or a test's)
// plus an offset that only grows. Every API reads time from it, so advancing it expires
// links, completes operations and ages retention and idempotency windows together.
package clock

import (
	"errors"
	"math"
	"sync/atomic"
	"time"
)

// Latest is the latest time the clock may show: the last instant of 2261. Operations are
// ordered by their times in nanoseconds since 1970, which an int64 holds up to 2262-04-11;
// the clock stops short of that by more than the longest operation delay and retention
// (see operations.MaxDelay and operations.MaxRetention). Past it, the operations' order
// would wrap around and every operation would vanish at once.
var Latest = time.Date(2261, 12, 31, 23, 59, 59, 999999999, time.UTC)

// MaxOffset is the furthest the clock can be ahead of its base: the offset is an int64 of
// nanoseconds (about 292 years).
const MaxOffset = time.Duration(math.MaxInt64)

var (
	// ErrOffsetLimit: the advance would put the clock more than MaxOffset ahead of its base.
	ErrOffsetLimit = errors.New("clock: the offset would exceed its limit")
	// ErrTimeLimit: the advance would put the clock past Latest.
	ErrTimeLimit = errors.New("clock: the time would be past the latest it can show")
)

// Clock is safe for concurrent use.
type Clock struct {
	base   func() time.Time
	offset atomic.Int64 // nanoseconds, never negative, only grows
}

// New returns a clock over base (time.Now when nil).
func New(base func() time.Time) *Clock {
	if base == nil {
		base = time.Now
	}
	return &Clock{base: base}
}

// Now is the base time plus the offset, but never past Latest: an advance stops short of
// it, and the base (real time) goes on, so a clock advanced to the limit stays there.
func (c *Clock) Now() time.Time {
	t := c.base().Add(time.Duration(c.offset.Load()))
	if t.After(Latest) {
		return Latest
	}
	return t
}

// Advance moves the clock forward by d (a negative or zero d leaves it where it is) and
// returns the new time. An advance that would take the offset past MaxOffset (where it
// would wrap around and run the clock backwards) or the time past Latest is refused with
// ErrOffsetLimit or ErrTimeLimit, and the clock is left unchanged. Concurrent advances
// are applied one after the other, each checked against the offset it adds to.
func (c *Clock) Advance(d time.Duration) (time.Time, error) {
	if d <= 0 {
		return c.Now(), nil
	}
	for {
		old := c.offset.Load()
		next, err := c.Plus(time.Duration(old), d)
		if err != nil {
			return c.Now(), err
		}
		if c.offset.CompareAndSwap(old, int64(next)) {
			return c.base().Add(next), nil
		}
	}
}

// Plus is the offset an advance by d (positive) takes offset to, or ErrOffsetLimit or
// ErrTimeLimit as Advance refuses it. It changes nothing: replicas sharing one clock
// decide the next offset in a transaction of the store with it.
func (c *Clock) Plus(offset, d time.Duration) (time.Duration, error) {
	if d > MaxOffset-offset {
		return offset, ErrOffsetLimit
	}
	next := offset + d
	if c.base().Add(next).After(Latest) {
		return offset, ErrTimeLimit
	}
	return next, nil
}

// CatchUp moves the clock forward to offset if it is behind it (the offset only grows):
// another replica advanced the shared clock.
func (c *Clock) CatchUp(offset time.Duration) {
	for {
		old := c.offset.Load()
		if int64(offset) <= old || c.offset.CompareAndSwap(old, int64(offset)) {
			return
		}
	}
}

// Offset is how far the clock is ahead of its base.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }
