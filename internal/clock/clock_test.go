package clock

import (
	"testing"
	"time"
)

func TestAdvanceOnlyForward(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
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
