package server

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
	"github.com/understudy-dev/understudy/server/control"
)

// sharedReplica is a server on the store url names, closed when t ends.
func sharedReplica(t *testing.T, url string) *Server {
	t.Helper()
	s, err := New(Config{Store: url, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// setClockOffset writes the shared clock's offset through s's store, as an advance does
// before it waits.
func setClockOffset(t *testing.T, s *Server, d time.Duration) {
	t.Helper()
	err := s.db.Update(context.Background(), func(tx *store.Tx) error {
		return s.settings.Put(tx, clockSetting, setting{Name: clockSetting, Value: strconv.FormatInt(int64(d), 10)})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSharedControlsStaleness: a replica reads the shared controls at most once per
// control.Staleness, and a change through another replica answers only after that long,
// so the change applies to the next request to every replica. The clock's offset is
// written to the store directly (as a change through another replica is, before it
// answers) to see that a replica keeps its copy for that long and no longer.
func TestSharedControlsStaleness(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	a, b := sharedReplica(t, url), sharedReplica(t, url)

	read := time.Now()
	b.refreshShared(ctx)
	setClockOffset(t, a, 10*time.Minute)
	b.refreshShared(ctx)
	if since := time.Since(read); since < control.Staleness/2 {
		if got := b.clock.Offset(); got != 0 {
			t.Errorf("%v after b read the controls: b's clock offset %v, want its copy's 0", since, got)
		}
	} else {
		t.Logf("the machine took %v between two reads: the copy may be read again", since)
	}
	time.Sleep(control.Staleness)
	b.refreshShared(ctx)
	if got := b.clock.Offset(); got != 10*time.Minute {
		t.Errorf("%v after the change: b's clock offset %v, want 10m", control.Staleness, got)
	}

	// Through the admin API's advance: it answers once b's next request sees it.
	start := time.Now()
	if err := a.advanceSharedClock(time.Minute); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < control.Staleness {
		t.Errorf("the advance answered after %v, before control.Staleness (%v)", took, control.Staleness)
	}
	b.refreshShared(ctx)
	if got := b.clock.Offset(); got != 11*time.Minute {
		t.Errorf("after a's advance answered: b's clock offset %v, want 11m", got)
	}

	// A fault rule added through a: the same.
	if _, err := a.faults.Add(control.Rule{API: "compute", Status: 503, Code: "backendError"}); err != nil {
		t.Fatal(err)
	}
	b.refreshShared(ctx)
	if !b.faults.Any() {
		t.Error("after a's rule was added: b sees no rule in force")
	}
}

// TestSharedControlsRacingRequests: requests on two replicas read the shared controls all
// along while rules are added through one and cleared: after each addition answers, the
// next request to either replica sees a rule in force.
func TestSharedControlsRacingRequests(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	a, b := sharedReplica(t, url), sharedReplica(t, url)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range []*Server{a, a, b, b} {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
					s.refreshShared(ctx)
				}
			}
		})
	}
	for round := range 5 {
		if _, err := a.faults.Add(control.Rule{API: "compute", Status: 503, Code: "backendError"}); err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]*Server{"a": a, "b": b} {
			s.refreshShared(ctx)
			if !s.faults.Any() {
				t.Errorf("round %d: %s sees no rule in force after the addition answered", round, name)
			}
		}
		if err := a.faults.Clear(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(control.Staleness / 2) // for the racing reads to find no rule
	}
	close(stop)
	wg.Wait()
}

// TestSharedControlsStoreAway: a read of the shared controls that the store cannot answer
// leaves the copy as it was and stale: the first request once the store is back reads it.
func TestSharedControlsStoreAway(t *testing.T) {
	p, url, direct := pgtest.ProxiedURL(t)
	ctx := context.Background()
	a, other := sharedReplica(t, url), sharedReplica(t, direct)
	a.refreshShared(ctx)

	p.Down()
	setClockOffset(t, other, 5*time.Minute)
	time.Sleep(control.Staleness)
	a.refreshShared(ctx) // fails: the request meets the store's absence itself
	if got := a.clock.Offset(); got != 0 {
		t.Fatalf("with the store away: a's clock offset %v", got)
	}
	p.Up()
	a.refreshShared(ctx)
	if got := a.clock.Offset(); got != 5*time.Minute {
		t.Errorf("once the store is back: a's clock offset %v, want 5m", got)
	}
}

// TestSharedControlsIdleReplica: a replica that no request reaches still reads the shared
// controls, about every second, for its background work's clock.
func TestSharedControlsIdleReplica(t *testing.T) {
	url := pgtest.URL(t)
	a, b := sharedReplica(t, url), sharedReplica(t, url)
	if err := a.advanceSharedClock(time.Hour); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * sharedIdleRefresh)
	for b.clock.Offset() != time.Hour {
		if time.Now().After(deadline) {
			t.Fatalf("the idle replica's clock offset is %v %v after an advance by 1h", b.clock.Offset(), 3*sharedIdleRefresh)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
