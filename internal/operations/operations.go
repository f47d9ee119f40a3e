// Package operations runs long-running operations, compute style, independently of any
// resource: an operation is accepted PENDING, runs, and turns DONE with progress 100, never
// going back; its effect (a finisher registered for its kind) is applied when it turns DONE,
// in the same transaction, unless a failure decided at accept makes it end with errors and
// change nothing.
//
// Every mutation is decided when it is accepted, in the caller's transaction (Begin), so
// racing requests are serialised there. How fast operations finish is the Mode: immediate
// (returned DONE), a delay (PENDING for the first quarter, then RUNNING with growing
// progress), or manual (one step per read, for tests that want to see every state).
//
// Time comes from the injected clock. Advance, called before every read, finishes what is
// due and forgets operations finished longer ago than the retention period (their requestIds
// with them); it costs nothing while nothing is due.
package operations

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/understudy-dev/understudy/internal/store/compat"
)

// Statuses.
const (
	Pending = "PENDING"
	Running = "RUNNING"
	Done    = "DONE"
)

// Mode says how fast operations finish.
type Mode struct {
	// Manual operations advance one step per read (PENDING, RUNNING, DONE).
	Manual bool
	// Delay is how long a timed operation takes; 0 means immediate.
	Delay time.Duration
}

// MaxDelay and MaxRetention bound how long an operation runs and how long it is kept once
// finished: with clock.Latest, they keep every time the engine orders operations by
// (clock.Latest + MaxDelay + MaxRetention) within what nanoseconds since 1970 in an int64
// can hold.
const (
	MaxDelay     = 24 * time.Hour
	MaxRetention = 30 * 24 * time.Hour
)

// ParseMode reads "immediate", "manual" or a duration such as "300ms" (at most MaxDelay).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "immediate", "0", "0s":
		return Mode{}, nil
	case "manual":
		return Mode{Manual: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return Mode{}, fmt.Errorf("operation mode %q: want immediate, manual or a duration such as 300ms", s)
	}
	if d > MaxDelay {
		return Mode{}, fmt.Errorf("operation mode %q: an operation may take at most %v", s, MaxDelay)
	}
	return Mode{Delay: d}, nil
}

func (m Mode) String() string {
	switch {
	case m.Manual:
		return "manual"
	case m.Delay == 0:
		return "immediate"
	}
	return m.Delay.String()
}

// Config tunes the engine.
type Config struct {
	Mode Mode
	// Retention is how long finished operations (and their requestIds) are kept, at most
	// MaxRetention (as Mode.Delay is at most MaxDelay).
	Retention time.Duration
	// WaitTimeout is the longest a wait call waits.
	WaitTimeout time.Duration
	// Now is the clock (nil: time.Now); compute gives it the server's.
	Now    func() time.Time
	Random io.Reader
}

// DefaultConfig is what the engine uses when told nothing.
func DefaultConfig() Config {
	return Config{Mode: Mode{Delay: 300 * time.Millisecond}, Retention: time.Hour, WaitTimeout: 2 * time.Minute}
}

// Finisher applies an operation's effect when it turns DONE without a failure.
type Finisher func(tx *store.Tx, op Operation) error

// Engine runs operations.
type Engine struct {
	cfg       Config
	db        *store.DB
	t         *tables
	finishers map[string]Finisher
	seq       atomic.Uint64
	// nextEvent is the earliest time (unix nanos) at which Advance has anything to do.
	nextEvent atomic.Int64
	// stopped is closed by StopWaits: waits return at once from then on.
	stopped  chan struct{}
	stopOnce sync.Once
}

// ErrNotFound: no such operation.
var ErrNotFound = errors.New("operation not found")

// New returns an engine keeping its operations in db.
func New(cfg Config, db *store.DB) *Engine {
	def := DefaultConfig()
	if cfg.Retention <= 0 {
		cfg.Retention = def.Retention
	}
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = def.WaitTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	// Past these the times the engine orders operations by leave int64 nanoseconds; the
	// binary refuses such flags, a caller building the engine itself gets the limits.
	cfg.Retention = min(cfg.Retention, MaxRetention)
	cfg.Mode.Delay = min(cfg.Mode.Delay, MaxDelay)
	if cfg.Random == nil {
		cfg.Random = rand.Reader
	}
	return &Engine{cfg: cfg, db: db, t: newTables(db), finishers: map[string]Finisher{}, stopped: make(chan struct{})}
}

// StopWaits makes every wait, parked or to come, return the operation as it is now, which
// a wait may do: a server shutting down drains its requests, and a wait parked for minutes
// would otherwise hold the shutdown until its timeout.
func (e *Engine) StopWaits() { e.stopOnce.Do(func() { close(e.stopped) }) }

// Handle registers the finisher of an operation kind (e.g. "forwardingRules.insert").
func (e *Engine) Handle(kind string, f Finisher) { e.finishers[kind] = f }

// Mode is the engine's mode.
func (e *Engine) Mode() Mode { return e.cfg.Mode }

// FinishesAtAccept says whether every operation Begin accepts is DONE before Begin returns
// (immediate mode). A handler can then store its resource finished already, and its
// finisher has nothing left to change (Start.Settled skips it).
func (e *Engine) FinishesAtAccept() bool { return !e.cfg.Mode.Manual && e.cfg.Mode.Delay == 0 }

// Start describes an operation to accept.
type Start struct {
	Project, Scope               string
	Kind, OperationType          string
	TargetLink, TargetID, Target string
	User, RequestID, Description string
	Failure                      *Failure
	// Done makes the operation DONE at once whatever the mode, as the real service does for
	// label changes (applied at accept).
	Done bool
	// Settled says the caller stored the target, in this transaction, as its finisher would
	// leave it (see FinishesAtAccept): an operation DONE at accept skips the finisher, which
	// would only read the target back to find nothing to change.
	Settled bool
}

// Existing returns the operation a requestId already started in the scope (a project's
// global operations, or its operations in a region).
func (e *Engine) Existing(tx *store.Tx, scope, requestID string) (Operation, bool) {
	if requestID == "" {
		return Operation{}, false
	}
	_, op, ok := e.t.ByRequestID.Get(tx, scopedKey(scope, requestID))
	if !ok {
		return op, false
	}
	return e.view(op, e.cfg.Now()), true
}

// Begin accepts an operation inside the caller's transaction, the one that also reserves
// or changes the resource. An operation DONE at once is finished in the same transaction.
func (e *Engine) Begin(tx *store.Tx, s Start) (Operation, error) {
	now := e.cfg.Now()
	name, id := e.newName(now), e.newID()
	op := Operation{
		Scope: s.Scope, Project: s.Project, Name: name, ID: id, Seq: e.seq.Add(1),
		Kind: s.Kind, OperationType: s.OperationType, TargetLink: s.TargetLink, TargetID: s.TargetID, Target: s.Target,
		User: s.User, ClientOperationID: s.RequestID, Description: s.Description, Failure: s.Failure,
		Status: Pending, InsertTime: now, DueTime: now.Add(e.cfg.Mode.Delay), Manual: e.cfg.Mode.Manual && !s.Done,
	}
	if s.Done || e.FinishesAtAccept() {
		return e.finish(tx, op.Key(), op, now, s.Settled)
	}
	if err := e.t.Ops.Put(tx, op.Key(), op); err != nil {
		return op, fmt.Errorf("operation %s: %w", op.Name, err)
	}
	if !op.Manual {
		e.lowerNextEvent(op.DueTime)
	}
	return op, nil
}

// finish turns op, stored (or to be stored) under pk, DONE at time at: its finisher runs
// unless a failure was decided or the target is settled already (Start.Settled).
func (e *Engine) finish(tx *store.Tx, pk string, op Operation, at time.Time, settled bool) (Operation, error) {
	op.Status, op.Progress, op.EndTime = Done, 100, at
	if op.StartTime.IsZero() {
		// As view showed it while it ran: a timed operation started a quarter of the way
		// through its delay (unless it finished before that).
		op.StartTime = at
		if start := runningFrom(op); !op.Manual && op.DueTime.After(op.InsertTime) && start.Before(at) {
			op.StartTime = start
		}
	}
	if op.Failure == nil && !settled {
		if f := e.finishers[op.Kind]; f != nil {
			if err := f(tx, op); err != nil {
				return op, fmt.Errorf("operation %s (%s): %w", op.Name, op.Kind, err)
			}
		}
	}
	if err := e.t.Ops.Put(tx, pk, op); err != nil {
		return op, fmt.Errorf("operation %s: %w", op.Name, err)
	}
	e.lowerNextEvent(at.Add(e.cfg.Retention))
	return op, nil
}

// Advance finishes the operations that are due and forgets those finished longer ago than
// the retention period. It is cheap when nothing is due.
func (e *Engine) Advance() error {
	now := e.cfg.Now()
	if now.UnixNano() < e.nextEvent.Load() {
		return nil
	}
	return e.db.Update(func(tx *store.Tx) error {
		var due, expired []Operation
		e.t.Due.Scan(tx, "", 0, unixNanos(now)+1, func(op Operation) bool {
			due = append(due, op)
			return true
		})
		e.t.Finished.Scan(tx, "", 0, unixNanos(now.Add(-e.cfg.Retention))+1, func(op Operation) bool {
			expired = append(expired, op)
			return true
		})
		for _, op := range due {
			if _, err := e.finish(tx, op.Key(), op, op.DueTime, false); err != nil {
				return err
			}
		}
		for _, op := range expired {
			if _, _, err := e.t.Ops.Delete(tx, op.Key()); err != nil {
				return err
			}
		}
		e.resetNextEvent(tx)
		return nil
	})
}

// resetNextEvent recomputes when Advance next has work: the earliest due operation or the
// earliest retention expiry.
func (e *Engine) resetNextEvent(tx *store.Tx) {
	next := int64(1<<63 - 1)
	e.t.Due.Scan(tx, "", 0, math.MaxUint64, func(op Operation) bool {
		next = op.DueTime.UnixNano()
		return false
	})
	e.t.Finished.Scan(tx, "", 0, math.MaxUint64, func(op Operation) bool {
		if t := op.EndTime.Add(e.cfg.Retention).UnixNano(); t < next {
			next = t
		}
		return false
	})
	e.nextEvent.Store(next)
}

func (e *Engine) lowerNextEvent(t time.Time) {
	n := t.UnixNano()
	for {
		cur := e.nextEvent.Load()
		if cur != 0 && cur <= n {
			return
		}
		if e.nextEvent.CompareAndSwap(cur, n) {
			return
		}
	}
}

// view is the operation as a client sees it now: a timed operation is PENDING for the first
// quarter of its delay, then RUNNING with progress growing from 10 to 90.
func (e *Engine) view(op Operation, now time.Time) Operation {
	if op.Done() || op.Manual || e.cfg.Mode.Delay <= 0 {
		return op
	}
	d := op.DueTime.Sub(op.InsertTime)
	elapsed := now.Sub(op.InsertTime)
	if d <= 0 || elapsed < d/4 {
		return op
	}
	op.Status = Running
	op.StartTime = runningFrom(op)
	p := 10 + int(80*float64(elapsed-d/4)/float64(d-d/4))
	op.Progress = min(max(p, 10), 90)
	return op
}

// runningFrom is when a timed operation shows as started: a quarter of the way through
// its delay.
func runningFrom(op Operation) time.Time {
	return op.InsertTime.Add(op.DueTime.Sub(op.InsertTime) / 4)
}

// newName makes a new operation's name: operation-<epoch millis>-<13 hex>-<8 hex>-<8 hex>,
// the real service's shape.
func (e *Engine) newName(now time.Time) string {
	var b [16]byte
	e.read(b[:])
	return fmt.Sprintf("operation-%d-%013x-%08x-%08x", now.UnixMilli(), binary.BigEndian.Uint64(b[:8])&(1<<52-1),
		binary.BigEndian.Uint32(b[8:12]), binary.BigEndian.Uint32(b[12:16]))
}

// newID makes a new operation's id: a positive random number, in decimal.
func (e *Engine) newID() string {
	var b [8]byte
	e.read(b[:])
	return strconv.FormatUint(max(binary.BigEndian.Uint64(b[:])>>1, 1), 10)
}

func (e *Engine) read(b []byte) {
	if _, err := io.ReadFull(e.cfg.Random, b); err != nil {
		panic("operations: no randomness: " + err.Error())
	}
}

// Restore picks up after a restart from a durable store: numbering continues after the
// highest stored operation, and the next Advance looks at everything (operations that fell
// due while the process was down finish then; their retention continues from their end).
func (e *Engine) Restore(tx *store.Tx) {
	var high uint64
	e.t.Ops.Each(tx, func(_ string, op Operation) bool {
		high = max(high, op.Seq)
		return true
	})
	e.seq.Store(high)
	e.nextEvent.Store(0)
}
