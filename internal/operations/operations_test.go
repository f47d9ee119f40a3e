package operations

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	serverclock "github.com/understudy-dev/understudy/internal/clock"
	"github.com/understudy-dev/understudy/internal/store"
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

var ctx = context.Background()

// fixture is an engine with a "things.insert" finisher that records what it finished: the
// last segment of the target's path.
type fixture struct {
	e        *Engine
	db       *store.DB
	clk      *clock
	mu       sync.Mutex
	finished []string
}

func newFixture(t *testing.T, mode Mode) *fixture {
	t.Helper()
	f := &fixture{db: store.New(store.NewMemory()), clk: &clock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}}
	f.e = f.engine(mode)
	return f
}

// engine is the fixture's engine in mode, with a "things.insert" finisher.
func (f *fixture) engine(mode Mode) *Engine {
	e := New(Config{Mode: mode, Retention: time.Hour, WaitTimeout: 200 * time.Millisecond, Now: f.clk.Now}, f.db)
	e.Handle("things.insert", func(tx *store.Tx, op Record) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		target := deref(op.Op.TargetLink)
		f.finished = append(f.finished, target[strings.LastIndexByte(target, '/')+1:])
		return nil
	})
	return e
}

// thing is the target path of a things.insert operation on the thing named name.
func thing(name string) string { return "projects/p/global/things/" + name }

func (f *fixture) begin(t *testing.T, s Start) Record {
	t.Helper()
	if s.Scope == "" {
		s.Scope = "projects/p/global"
	}
	if s.OperationType == "" {
		s.OperationType = "insert"
	}
	var op Record
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		op, err = f.e.Begin(tx, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func (f *fixture) get(t *testing.T, name string) Record {
	t.Helper()
	op, err := f.e.Get(ctx, "projects/p/global", name)
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
	op := f.begin(t, Start{TargetLink: thing("a")})
	if op.status() != Done || *op.Op.Progress != 100 || *op.Op.EndTime != *op.Op.InsertTime || f.finishedTargets() != "[a]" {
		t.Fatalf("immediate: %+v, finished %s", op, f.finishedTargets())
	}
}

// A settled target has nothing left for its finisher when the operation is DONE at accept;
// an operation that finishes later runs the finisher all the same.
func TestSettledSkipsTheFinisherOnlyAtAccept(t *testing.T) {
	f := newFixture(t, Mode{})
	f.begin(t, Start{TargetLink: thing("a"), Settled: true})
	f.begin(t, Start{TargetLink: thing("b")})
	if f.finishedTargets() != "[b]" {
		t.Errorf("immediate: finished %s, want [b]", f.finishedTargets())
	}
	f = newFixture(t, Mode{Manual: true})
	op := f.begin(t, Start{TargetLink: thing("c"), Settled: true})
	f.get(t, op.Name())
	if got := f.get(t, op.Name()); got.status() != Done || f.finishedTargets() != "[c]" {
		t.Errorf("manual: %s, finished %s, want [c]", got.status(), f.finishedTargets())
	}
}

func TestDelayMovesForwardOnly(t *testing.T) {
	f := newFixture(t, Mode{Delay: 400 * time.Millisecond})
	op := f.begin(t, Start{TargetLink: thing("a"), RequestID: "r1"})
	if op.status() != Pending || *op.Op.Progress != 0 || f.finishedTargets() != "[]" {
		t.Fatalf("accepted: %+v", op)
	}
	lastProgress, seen := -1, map[gen.OperationStatus]bool{}
	for i := 0; i < 50; i++ {
		got := f.get(t, op.Name())
		if int(*got.Op.Progress) < lastProgress {
			t.Fatalf("progress went back: %d -> %d", lastProgress, int(*got.Op.Progress))
		}
		if seen[Done] && got.status() != Done {
			t.Fatalf("status went back from DONE to %s", got.status())
		}
		lastProgress = int(*got.Op.Progress)
		seen[got.status()] = true
		if got.status() == Done && (int(*got.Op.Progress) != 100 || got.Op.EndTime == nil || got.Op.StartTime == nil) {
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
	op := f.begin(t, Start{TargetLink: thing("a")})
	var states []string
	for i := 0; i < 4; i++ {
		got := f.get(t, op.Name())
		states = append(states, fmt.Sprintf("%s/%d", got.status(), int(*got.Op.Progress)))
	}
	if fmt.Sprint(states) != "[RUNNING/50 DONE/100 DONE/100 DONE/100]" || op.status() != Pending {
		t.Errorf("accepted %s, then reads %v", op.status(), states)
	}
	if f.finishedTargets() != "[a]" {
		t.Errorf("finished %s", f.finishedTargets())
	}
	// Lists do not advance manual operations.
	op2 := f.begin(t, Start{TargetLink: thing("b")})
	ops, _ := f.e.List(ctx, "projects/p/global/operations/")
	if len(ops) != 2 || ops[1].Name() != op2.Name() || ops[1].status() != Pending {
		t.Errorf("list = %+v", ops)
	}
}

func TestDoneAtOnceAndFailure(t *testing.T) {
	f := newFixture(t, Mode{Manual: true})
	op := f.begin(t, Start{TargetLink: thing("a"), Done: true})
	if op.status() != Done || f.finishedTargets() != "[a]" {
		t.Fatalf("done at once: %+v", op)
	}
	failure := &Failure{HTTPStatus: 404, HTTPMessage: "NOT FOUND", Errors: []gen.OperationErrorItem{{Code: "RESOURCE_NOT_FOUND", Message: ptr("gone")}}}
	failed := f.begin(t, Start{TargetLink: thing("b"), Failure: failure})
	f.get(t, failed.Name())
	got := f.get(t, failed.Name())
	if got.status() != Done || got.Op.Error == nil || got.Op.Error.Errors[0].Code != "RESOURCE_NOT_FOUND" || f.finishedTargets() != "[a]" {
		t.Errorf("failed operation %+v; finished %s (b must not be finished)", got, f.finishedTargets())
	}
}

func TestRequestIDAndRetention(t *testing.T) {
	f := newFixture(t, Mode{})
	op := f.begin(t, Start{TargetLink: thing("a"), RequestID: "r1"})
	lookup := func(scope, id string) (Record, bool) {
		var got Record
		var ok bool
		_ = f.db.View(ctx, func(tx *store.Tx) error { got, ok = f.e.Existing(tx, scope, id); return nil })
		return got, ok
	}
	if got, ok := lookup("projects/p/global", "r1"); !ok || got.Name() != op.Name() {
		t.Fatalf("requestId lookup: %v %v", got.Name(), ok)
	}
	for _, other := range []string{"projects/other/global", "projects/p/regions/us-east4"} {
		if _, ok := lookup(other, "r1"); ok {
			t.Fatalf("requestIds leaked into %s", other)
		}
	}
	// A project's global and regional operations keep their requestIds apart: a global
	// method never answers with a regional operation.
	regional := Start{Scope: "projects/p/regions/r", OperationType: "insert", TargetLink: "projects/p/regions/r/things/x", RequestID: "r1"}
	var rop Record
	if err := f.db.Update(ctx, func(tx *store.Tx) error { var err error; rop, err = f.e.Begin(tx, regional); return err }); err != nil {
		t.Fatalf("a regional operation with a global operation's requestId: %v", err)
	}
	if got, ok := lookup("projects/p/regions/r", "r1"); !ok || got.Name() != rop.Name() {
		t.Errorf("regional lookup: %v %v", got.Name(), ok)
	}
	if got, _ := lookup("projects/p/global", "r1"); got.Name() != op.Name() {
		t.Errorf("global lookup after the regional operation: %v", got.Name())
	}
	again := regional
	again.TargetLink = thing("b")
	if err := f.db.Update(ctx, func(tx *store.Tx) error { _, err := f.e.Begin(tx, again); return err }); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second operation with a used requestId in its scope: %v, want a conflict", err)
	}

	f.clk.Advance(59 * time.Minute)
	if f.e.Advance(ctx); f.e.Count(ctx) != 2 {
		t.Fatal("forgotten before the retention period")
	}
	f.clk.Advance(2 * time.Minute)
	if f.e.Advance(ctx); f.e.Count(ctx) != 0 {
		t.Fatal("kept after the retention period")
	}
	if _, ok := lookup("projects/p/global", "r1"); ok {
		t.Error("the requestId outlived its operation")
	}
	if _, err := f.e.Get(ctx, "projects/p/global", op.Name()); !errors.Is(err, ErrNotFound) {
		t.Errorf("get after retention: %v", err)
	}
}

func TestGetByIDListAndDelete(t *testing.T) {
	f := newFixture(t, Mode{})
	a := f.begin(t, Start{TargetLink: thing("a")})
	b := f.begin(t, Start{TargetLink: thing("b")})
	if got := f.get(t, a.ID()); got.Name() != a.Name() {
		t.Errorf("get by id: %s", got.Name())
	}
	ops, _ := f.e.List(ctx, "projects/p/global/operations/")
	if len(ops) != 2 || ops[0].Name() != a.Name() || ops[1].Name() != b.Name() {
		t.Errorf("list order: %v", ops)
	}
	if err := f.e.Delete(ctx, "projects/p/global", a.Name()); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Delete(ctx, "projects/p/global", a.Name()); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := f.e.Get(ctx, "projects/other/global", b.Name()); !errors.Is(err, ErrNotFound) {
		t.Errorf("another scope sees the operation: %v", err)
	}
}

func TestWait(t *testing.T) {
	t.Run("returns when DONE", func(t *testing.T) {
		db := store.New(store.NewMemory())
		e := New(Config{Mode: Mode{Delay: 50 * time.Millisecond}, WaitTimeout: 5 * time.Second}, db) // the real clock
		var op Record
		_ = db.Update(ctx, func(tx *store.Tx) error {
			op, _ = e.Begin(tx, Start{Scope: "projects/p/global", OperationType: "insert"})
			return nil
		})
		start := time.Now()
		got, err := e.Wait(ctx, "projects/p/global", op.Name())
		if err != nil || got.status() != Done || time.Since(start) > 2*time.Second {
			t.Fatalf("wait: %+v %v after %v", got.status(), err, time.Since(start))
		}
	})
	t.Run("gives up at the timeout", func(t *testing.T) {
		f := newFixture(t, Mode{Delay: time.Hour}) // the fake clock never moves
		op := f.begin(t, Start{TargetLink: thing("a")})
		got, err := f.e.Wait(context.Background(), "projects/p/global", op.Name())
		if err != nil || got.Done() {
			t.Fatalf("wait past the timeout: %+v %v, want a not-DONE operation", got.status(), err)
		}
	})
}

// TestAnotherEngineFinishesWhatIsDue: what is due is found in the store, so an engine on
// the same database (another server process) finishes an operation the first one accepted,
// and sees the requestId it used.
func TestAnotherEngineFinishesWhatIsDue(t *testing.T) {
	f := newFixture(t, Mode{Delay: time.Minute})
	// Another process's engine: the same tables (one database), nothing else shared.
	other := &Engine{cfg: f.e.cfg, db: f.db, t: f.e.t, finishers: f.e.finishers, stopped: make(chan struct{})}
	op := f.begin(t, Start{TargetLink: thing("a"), RequestID: "r1"})
	if err := other.Advance(ctx); err != nil || f.finishedTargets() != "[]" {
		t.Fatalf("advanced before the operation was due: %v, finished %s", err, f.finishedTargets())
	}
	f.clk.Advance(time.Minute)
	got, err := other.Get(ctx, "projects/p/global", op.Name())
	if err != nil || !got.Done() || f.finishedTargets() != "[a]" {
		t.Fatalf("the other engine's get: %v %v, finished %s", got.status(), err, f.finishedTargets())
	}
	var prior Record
	_ = f.db.View(ctx, func(tx *store.Tx) error { prior, _ = other.Existing(tx, "projects/p/global", "r1"); return nil })
	if prior.Name() != op.Name() {
		t.Errorf("the other engine's requestId lookup: %q, want %q", prior.Name(), op.Name())
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
	if op.Name() != wantName || op.ID() != wantID {
		t.Fatalf("name %q id %q, want %q %q", op.Name(), op.ID(), wantName, wantID)
	}
}

// TestNewKeepsTheLimits: an engine built with a retention or a delay past the limits (the
// binary refuses such flags) gets the limits, so its times stay in range.
func TestNewKeepsTheLimits(t *testing.T) {
	e := New(Config{Retention: 100 * 365 * 24 * time.Hour, Mode: Mode{Delay: 1000 * time.Hour}}, store.New(store.NewMemory()))
	if e.cfg.Retention != MaxRetention || e.cfg.Mode.Delay != MaxDelay {
		t.Errorf("retention %v, delay %v; want %v and %v", e.cfg.Retention, e.cfg.Mode.Delay, MaxRetention, MaxDelay)
	}
}
