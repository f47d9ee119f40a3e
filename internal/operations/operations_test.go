package operations

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	serverclock "github.com/understudy-dev/understudy/internal/clock"
	"github.com/understudy-dev/understudy/internal/store/compat"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is an engine with a "things.insert" finisher that records what it finished.
type fixture struct {
	e        *Engine
	db       *store.DB
	clk      *clock
	mu       sync.Mutex
	finished []string
}

func newFixture(t *testing.T, mode Mode) *fixture {
	t.Helper()
	f := &fixture{db: store.New(), clk: &clock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}}
	f.e = New(Config{Mode: mode, Retention: time.Hour, WaitTimeout: 200 * time.Millisecond, Now: f.clk.Now}, f.db)
	f.e.Handle("things.insert", func(tx *store.Tx, op Operation) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.finished = append(f.finished, op.Target)
		return nil
	})
	return f
}

func (f *fixture) begin(t *testing.T, s Start) Operation {
	t.Helper()
	if s.Scope == "" {
		s.Scope, s.Project, s.Kind = "projects/p/global", "p", "things.insert"
	}
	var op Operation
	err := f.db.Update(func(tx *store.Tx) error {
		var err error
		op, err = f.e.Begin(tx, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func (f *fixture) get(t *testing.T, name string) Operation {
	t.Helper()
	op, err := f.e.Get("projects/p/global", name)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func (f *fixture) finishedTargets() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprint(f.finished)
}

func TestImmediate(t *testing.T) {
	f := newFixture(t, Mode{})
	op := f.begin(t, Start{Target: "a"})
	if op.Status != Done || op.Progress != 100 || !op.EndTime.Equal(op.InsertTime) || f.finishedTargets() != "[a]" {
		t.Fatalf("immediate: %+v, finished %s", op, f.finishedTargets())
	}
}

// A settled target has nothing left for its finisher when the operation is DONE at accept;
// an operation that finishes later runs the finisher all the same.
func TestSettledSkipsTheFinisherOnlyAtAccept(t *testing.T) {
	f := newFixture(t, Mode{})
	f.begin(t, Start{Target: "a", Settled: true})
	f.begin(t, Start{Target: "b"})
	if f.finishedTargets() != "[b]" {
		t.Errorf("immediate: finished %s, want [b]", f.finishedTargets())
	}
	f = newFixture(t, Mode{Manual: true})
	op := f.begin(t, Start{Target: "c", Settled: true})
	f.get(t, op.Name)
	if got := f.get(t, op.Name); got.Status != Done || f.finishedTargets() != "[c]" {
		t.Errorf("manual: %s, finished %s, want [c]", got.Status, f.finishedTargets())
	}
}

func TestDelayMovesForwardOnly(t *testing.T) {
	f := newFixture(t, Mode{Delay: 400 * time.Millisecond})
	op := f.begin(t, Start{Target: "a", RequestID: "r1"})
	if op.Status != Pending || op.Progress != 0 || f.finishedTargets() != "[]" {
		t.Fatalf("accepted: %+v", op)
	}
	lastProgress, seen := -1, map[string]bool{}
	for i := 0; i < 50; i++ {
		got := f.get(t, op.Name)
		if got.Progress < lastProgress {
			t.Fatalf("progress went back: %d -> %d", lastProgress, got.Progress)
		}
		if seen[Done] && got.Status != Done {
			t.Fatalf("status went back from DONE to %s", got.Status)
		}
		lastProgress = got.Progress
		seen[got.Status] = true
		if got.Status == Done && (got.Progress != 100 || got.EndTime.IsZero() || got.StartTime.IsZero()) {
			t.Fatalf("done: %+v", got)
		}
		f.clk.Advance(10 * time.Millisecond)
	}
	if !seen[Pending] || !seen[Running] || !seen[Done] {
		t.Errorf("states seen %v, want all three", seen)
	}
	if f.finishedTargets() != "[a]" {
		t.Errorf("finished %s, want [a] once", f.finishedTargets())
	}
}

func TestManualAdvancesOneStepPerRead(t *testing.T) {
	f := newFixture(t, Mode{Manual: true})
	op := f.begin(t, Start{Target: "a"})
	var states []string
	for i := 0; i < 4; i++ {
		got := f.get(t, op.Name)
		states = append(states, fmt.Sprintf("%s/%d", got.Status, got.Progress))
	}
	if fmt.Sprint(states) != "[RUNNING/50 DONE/100 DONE/100 DONE/100]" || op.Status != Pending {
		t.Errorf("accepted %s, then reads %v", op.Status, states)
	}
	if f.finishedTargets() != "[a]" {
		t.Errorf("finished %s", f.finishedTargets())
	}
	// Lists do not advance manual operations.
	op2 := f.begin(t, Start{Target: "b"})
	ops, _ := f.e.List("projects/p/global")
	if len(ops) != 2 || ops[1].Name != op2.Name || ops[1].Status != Pending {
		t.Errorf("list = %+v", ops)
	}
}

func TestDoneAtOnceAndFailure(t *testing.T) {
	f := newFixture(t, Mode{Manual: true})
	op := f.begin(t, Start{Target: "a", Done: true})
	if op.Status != Done || f.finishedTargets() != "[a]" {
		t.Fatalf("done at once: %+v", op)
	}
	failure := &Failure{HTTPStatus: 404, HTTPMessage: "NOT FOUND", Errors: []ErrorItem{{Code: "RESOURCE_NOT_FOUND", Message: "gone"}}}
	failed := f.begin(t, Start{Target: "b", Failure: failure})
	f.get(t, failed.Name)
	got := f.get(t, failed.Name)
	if got.Status != Done || got.Failure == nil || got.Failure.Errors[0].Code != "RESOURCE_NOT_FOUND" || f.finishedTargets() != "[a]" {
		t.Errorf("failed operation %+v; finished %s (b must not be finished)", got, f.finishedTargets())
	}
}

func TestRequestIDAndRetention(t *testing.T) {
	f := newFixture(t, Mode{})
	op := f.begin(t, Start{Target: "a", RequestID: "r1"})
	lookup := func(scope, id string) (Operation, bool) {
		var got Operation
		var ok bool
		_ = f.db.View(func(tx *store.Tx) error { got, ok = f.e.Existing(tx, scope, id); return nil })
		return got, ok
	}
	if got, ok := lookup("projects/p/global", "r1"); !ok || got.Name != op.Name {
		t.Fatalf("requestId lookup: %v %v", got.Name, ok)
	}
	for _, other := range []string{"projects/other/global", "projects/p/regions/us-east4"} {
		if _, ok := lookup(other, "r1"); ok {
			t.Fatalf("requestIds leaked into %s", other)
		}
	}
	// A project's global and regional operations keep their requestIds apart: a global
	// method never answers with a regional operation.
	regional := Start{Scope: "projects/p/regions/r", Project: "p", Kind: "things.insert", RequestID: "r1"}
	var rop Operation
	if err := f.db.Update(func(tx *store.Tx) error { var err error; rop, err = f.e.Begin(tx, regional); return err }); err != nil {
		t.Fatalf("a regional operation with a global operation's requestId: %v", err)
	}
	if got, ok := lookup("projects/p/regions/r", "r1"); !ok || got.Name != rop.Name {
		t.Errorf("regional lookup: %v %v", got.Name, ok)
	}
	if got, _ := lookup("projects/p/global", "r1"); got.Name != op.Name {
		t.Errorf("global lookup after the regional operation: %v", got.Name)
	}
	again := regional
	again.Target = "b"
	if err := f.db.Update(func(tx *store.Tx) error { _, err := f.e.Begin(tx, again); return err }); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second operation with a used requestId in its scope: %v, want a conflict", err)
	}

	f.clk.Advance(59 * time.Minute)
	if f.e.Advance(); f.e.Count() != 2 {
		t.Fatal("forgotten before the retention period")
	}
	f.clk.Advance(2 * time.Minute)
	if f.e.Advance(); f.e.Count() != 0 {
		t.Fatal("kept after the retention period")
	}
	if _, ok := lookup("projects/p/global", "r1"); ok {
		t.Error("the requestId outlived its operation")
	}
	if _, err := f.e.Get("projects/p/global", op.Name); !errors.Is(err, ErrNotFound) {
		t.Errorf("get after retention: %v", err)
	}
}

func TestGetByIDListAndDelete(t *testing.T) {
	f := newFixture(t, Mode{})
	a := f.begin(t, Start{Target: "a"})
	b := f.begin(t, Start{Target: "b"})
	if got := f.get(t, a.ID); got.Name != a.Name {
		t.Errorf("get by id: %s", got.Name)
	}
	ops, _ := f.e.List("projects/p/global")
	if len(ops) != 2 || ops[0].Name != a.Name || ops[1].Name != b.Name {
		t.Errorf("list order: %v", ops)
	}
	if err := f.e.Delete("projects/p/global", a.Name); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Delete("projects/p/global", a.Name); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := f.e.Get("projects/other/global", b.Name); !errors.Is(err, ErrNotFound) {
		t.Errorf("another scope sees the operation: %v", err)
	}
}

func TestWait(t *testing.T) {
	t.Run("returns when DONE", func(t *testing.T) {
		db := store.New()
		e := New(Config{Mode: Mode{Delay: 50 * time.Millisecond}, WaitTimeout: 5 * time.Second}, db) // the real clock
		var op Operation
		_ = db.Update(func(tx *store.Tx) error {
			op, _ = e.Begin(tx, Start{Scope: "s", Project: "p"})
			return nil
		})
		start := time.Now()
		got, err := e.Wait(context.Background(), "s", op.Name)
		if err != nil || got.Status != Done || time.Since(start) > 2*time.Second {
			t.Fatalf("wait: %+v %v after %v", got.Status, err, time.Since(start))
		}
	})
	t.Run("gives up at the timeout", func(t *testing.T) {
		f := newFixture(t, Mode{Delay: time.Hour}) // the fake clock never moves
		op := f.begin(t, Start{Target: "a"})
		got, err := f.e.Wait(context.Background(), "projects/p/global", op.Name)
		if err != nil || got.Done() {
			t.Fatalf("wait past the timeout: %+v %v, want a not-DONE operation", got.Status, err)
		}
	})
}

func TestAdvanceIsFreeWhenNothingIsDue(t *testing.T) {
	f := newFixture(t, Mode{Delay: time.Minute})
	f.begin(t, Start{Target: "a"})
	f.e.Advance()
	allocs := testing.AllocsPerRun(100, func() { _ = f.e.Advance() })
	if allocs != 0 {
		t.Errorf("Advance allocates %.0f times when nothing is due", allocs)
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]string{"immediate": "immediate", "manual": "manual", "250ms": "250ms", "0s": "immediate"} {
		m, err := ParseMode(in)
		if err != nil || m.String() != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %s", in, m, err, want)
		}
	}
	for _, bad := range []string{"soon", "-1s", "24h0m1s", "2500000h"} {
		if _, err := ParseMode(bad); err == nil {
			t.Errorf("ParseMode accepted %s", bad)
		}
	}
}

// TestLimitsKeepTimesInNanoseconds: the engine orders operations by their due and end times
// in nanoseconds since 1970 (an int64); the latest the clock shows plus the longest delay
// and retention must stay within it, or the order wraps around and operations vanish.
func TestLimitsKeepTimesInNanoseconds(t *testing.T) {
	last := serverclock.Latest.Add(MaxDelay).Add(MaxRetention)
	if last.UnixNano() < serverclock.Latest.UnixNano() || last.After(time.Unix(0, math.MaxInt64)) {
		t.Errorf("%s + %v + %v = %s, past what nanoseconds since 1970 hold (%s)", serverclock.Latest, MaxDelay, MaxRetention, last, time.Unix(0, math.MaxInt64).UTC())
	}
}

// TestNamesAndIDsFromRandomness: the name and id come from the random stream as they did
// when each read its own bytes (16 for the name, then 8 for the id), so a seeded stream
// gives the same operations as before.
func TestNamesAndIDsFromRandomness(t *testing.T) {
	stream := make([]byte, 24)
	for i := range stream {
		stream[i] = byte(i*37 + 11)
	}
	f := newFixture(t, Mode{})
	f.e.cfg.Random = bytes.NewReader(stream)
	op := f.begin(t, Start{})
	now := f.clk.Now()
	wantName := fmt.Sprintf("operation-%d-%013x-%08x-%08x", now.UnixMilli(),
		binary.BigEndian.Uint64(stream[:8])&(1<<52-1), binary.BigEndian.Uint32(stream[8:12]), binary.BigEndian.Uint32(stream[12:16]))
	wantID := fmt.Sprint(binary.BigEndian.Uint64(stream[16:24]) >> 1)
	if op.Name != wantName || op.ID != wantID {
		t.Fatalf("name %q id %q, want %q %q", op.Name, op.ID, wantName, wantID)
	}
}

// TestNewKeepsTheLimits: an engine built with a retention or a delay past the limits (the
// binary refuses such flags) gets the limits, so its times stay in range.
func TestNewKeepsTheLimits(t *testing.T) {
	e := New(Config{Retention: 100 * 365 * 24 * time.Hour, Mode: Mode{Delay: 1000 * time.Hour}}, store.New())
	if e.cfg.Retention != MaxRetention || e.cfg.Mode.Delay != MaxDelay {
		t.Errorf("retention %v, delay %v; want %v and %v", e.cfg.Retention, e.cfg.Mode.Delay, MaxRetention, MaxDelay)
	}
}
