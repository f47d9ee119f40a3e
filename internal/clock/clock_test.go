package clock

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestAdvanceOnlyForward(t *testing.T) {
	base := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC) // far enough back for the offset to reach its limit before Latest
	c := New(func() time.Time { return base })
	if !c.Now().Equal(base) {
		t.Fatal("a new clock is not its base")
	}
	c.Advance(time.Minute)
	c.Advance(-time.Hour)
	if got := c.Now(); !got.Equal(base.Add(time.Minute)) || c.Offset() != time.Minute {
		t.Errorf("now %v offset %v, want one minute ahead", got, c.Offset())
	}
}

func TestAdvanceRefusesToWrapAround(t *testing.T) {
	base := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC) // far enough back for the offset to reach its limit before Latest
	c := New(func() time.Time { return base })
	year := 366 * 24 * time.Hour
	n := 0
	for ; ; n++ {
		before := c.Offset()
		now, err := c.Advance(year)
		if err != nil {
			if !errors.Is(err, ErrOffsetLimit) || c.Offset() != before || !now.Equal(base.Add(before)) {
				t.Fatalf("advance %d: %v, offset %v (was %v), now %v", n+1, err, c.Offset(), before, now)
			}
			break
		}
		if c.Offset() <= before || !now.After(base) {
			t.Fatalf("advance %d went back: offset %v -> %v, now %v", n+1, before, c.Offset(), now)
		}
	}
	if want := int(MaxOffset / year); n != want {
		t.Errorf("%d advances of a year, want %d", n, want)
	}
	// What is left still fits.
	rest := MaxOffset - c.Offset()
	if _, err := c.Advance(rest); err != nil || c.Offset() != MaxOffset {
		t.Errorf("advance by the rest: %v, offset %v", err, c.Offset())
	}
	if _, err := c.Advance(1); !errors.Is(err, ErrOffsetLimit) || c.Offset() != MaxOffset {
		t.Errorf("one more nanosecond: %v, offset %v", err, c.Offset())
	}
}

func TestAdvanceRefusesToPassLatest(t *testing.T) {
	base := time.Date(2261, 12, 31, 0, 0, 0, 0, time.UTC)
	c := New(func() time.Time { return base })
	if _, err := c.Advance(48 * time.Hour); !errors.Is(err, ErrTimeLimit) || c.Offset() != 0 {
		t.Errorf("past the latest time: %v, offset %v", err, c.Offset())
	}
	if now, err := c.Advance(Latest.Sub(base)); err != nil || !now.Equal(Latest) {
		t.Errorf("up to the latest time: %v %v", now, err)
	}
	if _, err := c.Advance(1); !errors.Is(err, ErrTimeLimit) || !c.Now().Equal(Latest) {
		t.Errorf("one nanosecond past the latest time: %v, now %v", err, c.Now())
	}
}

// TestConcurrentAdvancesNeverWrap: advances racing each other are each checked against the
// offset they add to, so together they stop at the limit instead of wrapping past it.
func TestConcurrentAdvancesNeverWrap(t *testing.T) {
	base := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC) // far enough back for the offset to reach its limit before Latest
	c := New(func() time.Time { return base })
	step := MaxOffset/10 + 1 // nine fit, not ten
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Advance(step); err == nil {
				ok.Add(1)
			} else if !errors.Is(err, ErrOffsetLimit) {
				t.Error(err)
			}
			if c.Offset() < 0 {
				t.Error("the offset wrapped around")
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 9 || c.Offset() != 9*step {
		t.Errorf("%d advances took, offset %v; want 9 and %v", ok.Load(), c.Offset(), 9*step)
	}
}

// TestNowStopsAtLatest: advanced right up to Latest, the clock stays there while its base
// (real time) goes on; it once went past it a few seconds later.
func TestNowStopsAtLatest(t *testing.T) {
	base := Latest.Add(-time.Hour)
	c := New(func() time.Time { return base })
	if _, err := c.Advance(time.Hour); err != nil {
		t.Fatal(err)
	}
	base = base.Add(5 * time.Second)
	if now := c.Now(); !now.Equal(Latest) {
		t.Errorf("5 s after reaching the limit: %v, want %v", now, Latest)
	}
}
