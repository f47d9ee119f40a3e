package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestLeases: one holder at a time; the holder keeps it while it renews; another takes it
// once the holder's term has ended (it stopped) or it released it.
func TestLeases(t *testing.T) {
	ctx := context.Background()
	db := New(NewMemory())
	ls := NewLeases(db)
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ls.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	a, b := ls.Lease("sweep", "a", 10*time.Second), ls.Lease("sweep", "b", 10*time.Second)
	if !a.Held(ctx) || b.Held(ctx) {
		t.Fatal("a should hold the free lease, b not")
	}
	for range 5 { // a renews every few seconds: b never gets it
		advance(4 * time.Second)
		if !a.Held(ctx) || b.Held(ctx) {
			t.Fatal("a renewing should keep the lease")
		}
	}
	advance(11 * time.Second) // a stopped renewing
	if !b.Held(ctx) {
		t.Fatal("b should take over an expired lease")
	}
	if a.Held(ctx) {
		t.Fatal("a holds the lease b took")
	}
	b.Release(ctx)
	advance(3 * time.Second) // past a's next try
	if !a.Held(ctx) {
		t.Fatal("a should take a released lease")
	}
}
