package server

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
	"github.com/understudy-dev/understudy/server/control"
)

// TestSharedControlsStaleness: a replica reads the shared controls at most once per
// control.Staleness, and a change through another replica answers only after that long,
// so the change applies to the next request to every replica. The clock's offset is
// written to the store directly (as a change through another replica is, before it
// answers) to see that a replica keeps its copy for that long and no longer.
func TestSharedControlsStaleness(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	replica := func() *Server {
		s, err := New(Config{Store: url, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, b := replica(), replica()
	setOffset := func(d time.Duration) {
		t.Helper()
		err := a.db.Update(ctx, func(tx *store.Tx) error {
			return a.settings.Put(tx, clockSetting, setting{Name: clockSetting, Value: strconv.FormatInt(int64(d), 10)})
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	read := time.Now()
	b.refreshShared(ctx)
	setOffset(10 * time.Minute)
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
