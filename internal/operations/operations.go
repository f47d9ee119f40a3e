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

	"github.com/understudy-dev/understudy/internal/store"
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
type Finisher func(tx *store.Tx, op store.Operation) error

// Engine runs operations.
type Engine struct {
	cfg       Config
	db        *store.DB
	t         *store.Operations
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
	return &Engine{cfg: cfg, db: db, t: store.NewOperations(db), finishers: map[string]Finisher{}, stopped: make(chan struct{})}
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
	Failure                      *store.OperationFailure
	// Done makes the operation DONE at once whatever the mode, as the real service does for
	// label changes (applied at accept).
	Done bool
	// Settled says the caller stored the target, in this transaction, as its finisher would
	// leave it (see FinishesAtAccept): an operation DONE at accept skips the finisher, which
	// would only read the target back to find nothing to change.
	Settled bool
	// Identity, if made by Prepare for Scope, is the operation's; else Begin makes one.
	Identity Identity
}

// Identity is an operation's key, name and id, and the time it is accepted (which the
// name carries), made before its transaction.
type Identity struct {
	scope, key, name, id string
	at                   time.Time
}

// Prepare makes the identity of an operation to be accepted now in scope, and adds to ts
// (see store.Touches) the lookups Begin will make for it and Existing for requestID: a new
// operation's key and id are random, so each lookup is a place of a large index seldom in
// the cache, and read together they wait for memory once.
func (e *Engine) Prepare(ts *store.Touches, scope, requestID string) Identity {
	var buf [128]byte
	if requestID != "" {
		store.TouchUnique(ts, e.t.ByRequestID, store.AppendRequestIDKey(buf[:0], scope, requestID))
	}
	id := e.identity(scope)
	store.TouchKey(ts, e.t.Ops, id.key)
	store.TouchUnique(ts, e.t.ByID, store.AppendIDKey(buf[:0], scope, id.id))
	return id
}

func (e *Engine) identity(scope string) Identity {
	now := e.cfg.Now()
	// One read of randomness for the name and the id: the same bytes, in the same order, as
	// two reads (16 then 8), with one buffer and one call instead of two.
	var rnd [24]byte
	e.read(rnd[:])
	key, name, id := newKey(scope, now, rnd[:])
	return Identity{scope: scope, key: key, name: name, id: id, at: now}
}

// Existing returns the operation a requestId already started in the scope (a project's
// global operations, or its operations in a region).
func (e *Engine) Existing(tx *store.Tx, scope, requestID string) (store.Operation, bool) {
	if requestID == "" {
		return store.Operation{}, false
	}
	// The key is built on the stack: a requestId is looked up on every mutation that has one.
	var buf [128]byte
	_, op, ok := e.t.ByRequestID.GetBytes(tx, store.AppendRequestIDKey(buf[:0], scope, requestID))
	if !ok {
		return op, false
	}
	return e.view(op, e.cfg.Now()), true
}

// Begin accepts an operation inside the caller's transaction, the one that also reserves
// or changes the resource. An operation DONE at once is finished in the same transaction.
func (e *Engine) Begin(tx *store.Tx, s Start) (store.Operation, error) {
	ident := s.Identity
	if ident.key == "" || ident.scope != s.Scope {
		ident = e.identity(s.Scope)
	}
	key, name, id, now := ident.key, ident.name, ident.id, ident.at
	op := store.Operation{
		Scope: s.Scope, Project: s.Project, Name: name, ID: id, Seq: e.seq.Add(1),
		Kind: s.Kind, OperationType: s.OperationType, TargetLink: s.TargetLink, TargetID: s.TargetID, Target: s.Target,
		User: s.User, ClientOperationID: s.RequestID, Description: s.Description, Failure: s.Failure,
		Status: Pending, InsertTime: now, DueTime: now.Add(e.cfg.Mode.Delay), Manual: e.cfg.Mode.Manual && !s.Done,
	}
	if s.Done || e.FinishesAtAccept() {
		return e.finish(tx, key, op, now, s.Settled)
	}
	if err := e.t.Ops.Put(tx, key, op); err != nil {
		return op, fmt.Errorf("operation %s: %w", op.Name, err)
	}
	if !op.Manual {
		e.lowerNextEvent(op.DueTime)
	}
	return op, nil
}

// finish turns op, stored (or to be stored) under pk, DONE at time at: its finisher runs
// unless a failure was decided or the target is settled already (Start.Settled).
func (e *Engine) finish(tx *store.Tx, pk string, op store.Operation, at time.Time, settled bool) (store.Operation, error) {
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
		var due, expired []store.Operation
		e.t.Due.Scan(tx, "", 0, store.UnixNanos(now)+1, func(op store.Operation) bool {
			due = append(due, op)
			return true
		})
		e.t.Finished.Scan(tx, "", 0, store.UnixNanos(now.Add(-e.cfg.Retention))+1, func(op store.Operation) bool {
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
	e.t.Due.Scan(tx, "", 0, math.MaxUint64, func(op store.Operation) bool {
		next = op.DueTime.UnixNano()
		return false
	})
	e.t.Finished.Scan(tx, "", 0, math.MaxUint64, func(op store.Operation) bool {
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
func (e *Engine) view(op store.Operation, now time.Time) store.Operation {
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
func runningFrom(op store.Operation) time.Time {
	return op.InsertTime.Add(op.DueTime.Sub(op.InsertTime) / 4)
}

// newKey makes an operation's primary key (Operation.Key) with a new name,
// operation-<epoch millis>-<13 hex>-<8 hex>-<8 hex> (the real shape) from b's first 16
// random bytes, and its id from the next 8. The name is the key's tail, and the key and the
// id are pieces of one string: the stored operation keeps one string for the three, not
// three, and the garbage collector finds one object where it found three. The string is
// built in a buffer on the stack: fmt.Sprintf cost four allocations (its result and each
// boxed number), this costs one.
func newKey(scope string, now time.Time, b []byte) (key, name, id string) {
	var out [192]byte
	n := appendName(append(append(out[:0], scope...), '|'), now, b[:16])
	k := len(n)
	all := string(appendID(n, b[16:24]))
	return all[:k], all[len(scope)+1 : k], all[k:]
}

func appendName(n []byte, now time.Time, b []byte) []byte {
	n = append(n, "operation-"...)
	n = strconv.AppendInt(n, now.UnixMilli(), 10)
	n = appendHex(append(n, '-'), binary.BigEndian.Uint64(b[:8])&(1<<52-1), 13)
	n = appendHex(append(n, '-'), uint64(binary.BigEndian.Uint32(b[8:12])), 8)
	return appendHex(append(n, '-'), uint64(binary.BigEndian.Uint32(b[12:16])), 8)
}

// appendHex appends v in lower-case hex, zero-padded to width digits (as %0<width>x).
func appendHex(b []byte, v uint64, width int) []byte {
	var d [16]byte
	i := len(d)
	for v != 0 || i > len(d)-width {
		i--
		d[i] = "0123456789abcdef"[v&15]
		v >>= 4
	}
	return append(b, d[i:]...)
}

// appendID appends a positive id made from 8 random bytes, in decimal.
func appendID(b, r []byte) []byte {
	id := binary.BigEndian.Uint64(r) >> 1
	if id == 0 {
		id = 1
	}
	return strconv.AppendUint(b, id, 10)
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
	e.t.Ops.Each(tx, func(_ string, op store.Operation) bool {
		high = max(high, op.Seq)
		return true
	})
	e.seq.Store(high)
	e.nextEvent.Store(0)
}
