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
// An operation is stored as compute's Operation resource (Record), in the store that keeps
// the resources, and everything the engine knows is there: several server processes on one
// database share the operations, their names, ids, requestIds and order. Time comes from
// the injected clock. Advance, called before every read, finishes what is due and forgets
// operations finished longer ago than the retention period (their requestIds with them): it
// looks at the store's indexes of due and finished operations, up to now, and writes only
// when something is due.
package operations

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// Statuses.
const (
	Pending = gen.OperationStatusPENDING
	Running = gen.OperationStatusRUNNING
	Done    = gen.OperationStatusDONE
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

// Finisher applies an operation's effect when it turns DONE without a failure: op's
// targetLink is the path of the resource it acts on.
type Finisher func(tx *store.Tx, op Record) error

// Engine runs operations.
type Engine struct {
	cfg Config
	db  *store.DB
	t   *tables
	// finishers are registered at start, by kind (see Handle).
	finishers map[string]Finisher
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

// Handle registers the finisher of the operations of a kind: the collection of their target
// and their operationType, such as forwardingRules.insert.
func (e *Engine) Handle(kind string, f Finisher) { e.finishers[kind] = f }

// Mode is the engine's mode.
func (e *Engine) Mode() Mode { return e.cfg.Mode }

// FinishesAtAccept says whether every operation Begin accepts is DONE before Begin returns
// (immediate mode). A handler can then store its resource finished already, and its
// finisher has nothing left to change (Start.Settled skips it).
func (e *Engine) FinishesAtAccept() bool { return !e.cfg.Mode.Manual && e.cfg.Mode.Delay == 0 }

// Start describes an operation to accept.
type Start struct {
	// Scope is where it is listed: projects/{p}/global or projects/{p}/regions/{r}.
	Scope         string
	OperationType string
	// TargetLink is the path of the resource it acts on (projects/...), which its finisher
	// reads (see Handle).
	TargetLink                   string
	TargetID                     string
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
// global operations, or its operations in a region), as it is now.
func (e *Engine) Existing(tx *store.Tx, scope, requestID string) (Record, bool) {
	if requestID == "" {
		return Record{}, false
	}
	_, r, ok := e.t.byRequestID.Get(tx, scopedKey(scope, requestID))
	if !ok {
		return r, false
	}
	return e.view(r, e.cfg.Now()), true
}

// Begin accepts an operation inside the caller's transaction, the one that also reserves
// or changes the resource. An operation DONE at once is finished in the same transaction.
func (e *Engine) Begin(tx *store.Tx, s Start) (Record, error) {
	now := e.cfg.Now()
	name, id, inserted := e.newName(now), e.newID(), stamp(now)
	r := Record{Seq: tx.Next("operations"), Failure: s.Failure, Manual: e.cfg.Mode.Manual && !s.Done, Op: gen.Operation{
		Kind: ptr(gen.OperationKindComputeOperation), Id: &id, Name: &name, SelfLink: ptr(s.Scope + "/operations/" + name),
		OperationType: &s.OperationType, TargetLink: &s.TargetLink, TargetId: optional(s.TargetID), User: &s.User,
		ClientOperationId: optional(s.RequestID), Description: optional(s.Description),
		InsertTime: &inserted, CreationTimestamp: &inserted,
	}}
	if strings.Contains(s.Scope, "/regions/") {
		r.Op.Region = ptr(s.Scope)
	}
	if s.Done || e.FinishesAtAccept() {
		return e.finish(tx, r, now, s.Settled) // sets the status and progress
	}
	r.Op.Status, r.Op.Progress = ptr(Pending), ptr(int32(0))
	if !r.Manual {
		r.Due = now.Add(e.cfg.Mode.Delay)
	}
	if err := e.put(tx, r); err != nil {
		return r, err
	}
	return r, nil
}

// put stores r.
func (e *Engine) put(tx *store.Tx, r Record) error {
	if err := e.t.ops.Put(tx, deref(r.Op.SelfLink), r); err != nil {
		return fmt.Errorf("operation %s: %w", r.Name(), err)
	}
	return nil
}

// finish turns r DONE at time at: its finisher runs unless a failure was decided or the
// target is settled already (Start.Settled).
func (e *Engine) finish(tx *store.Tx, r Record, at time.Time, settled bool) (Record, error) {
	end := r.stampOf(at)
	if r.Op.StartTime == nil {
		// As view showed it while it ran: a timed operation started a quarter of the way
		// through its delay (unless it finished before that).
		r.Op.StartTime = end
		if from, ok := runningFrom(r); ok && from.Before(at) {
			r.Op.StartTime = ptr(stamp(from))
		}
	}
	r.Op.Status, r.Op.Progress, r.Op.EndTime = ptr(Done), ptr(int32(100)), end
	if f := r.Failure; f != nil {
		r.Op.HttpErrorStatusCode, r.Op.HttpErrorMessage = &f.HTTPStatus, &f.HTTPMessage
		r.Op.Error = &gen.OperationError{Errors: f.Errors}
	} else if !settled {
		if f := e.finishers[r.kind()]; f != nil {
			if err := f(tx, r); err != nil {
				return r, fmt.Errorf("operation %s (%s): %w", r.Name(), r.kind(), err)
			}
		}
	}
	r.Failure, r.Due, r.Manual = nil, time.Time{}, false
	return r, e.put(tx, r)
}

// Advance finishes the operations that are due and forgets those finished longer ago than
// the retention period. When there is nothing to do it reads no operation: the indexes of
// what is due are read up to now only.
func (e *Engine) Advance(ctx context.Context) error {
	now := e.cfg.Now()
	var work bool
	err := e.db.View(ctx, func(tx *store.Tx) error {
		work = e.anythingDue(tx, now)
		return nil
	})
	if err != nil || !work {
		return err
	}
	return e.db.Update(ctx, func(tx *store.Tx) error {
		var due []Record
		var expired []string
		e.t.due.Scan(tx, "", store.Uint(uint64(nanos(now))+1), nil, func(_ store.Cursor, r Record) bool {
			due = append(due, r)
			return true
		})
		if before, ok := e.expiry(now); ok {
			e.t.ended.Scan(tx, "", before, nil, func(c store.Cursor, _ Record) bool {
				expired = append(expired, c.PK)
				return true
			})
		}
		for _, r := range due {
			if _, err := e.finish(tx, r, r.Due, false); err != nil {
				return err
			}
		}
		for _, key := range expired {
			e.t.ops.Delete(tx, key)
		}
		return nil
	})
}

// anythingDue reports whether an operation is due, or one finished before the retention
// period.
func (e *Engine) anythingDue(tx *store.Tx, now time.Time) bool {
	found := false
	e.t.due.Scan(tx, "", store.Uint(uint64(nanos(now))+1), nil, func(store.Cursor, Record) bool {
		found = true
		return false
	})
	if before, ok := e.expiry(now); ok && !found {
		e.t.ended.Scan(tx, "", before, nil, func(store.Cursor, Record) bool {
			found = true
			return false
		})
	}
	return found
}

// expiry is the end of the ended index's range of expired operations: those that ended at
// or before now less the retention period.
func (e *Engine) expiry(now time.Time) (string, bool) {
	limit := nanos(now.Add(-e.cfg.Retention))
	return store.Uint(uint64(limit) + 1), limit > 0
}

// view is the operation as a client sees it now: a timed operation is PENDING for the first
// quarter of its delay, then RUNNING with progress growing from 10 to 90.
func (e *Engine) view(r Record, now time.Time) Record {
	start, ok := runningFrom(r)
	if r.Done() || r.Manual || !ok || now.Before(start) {
		return r
	}
	inserted := r.insertTime()
	d, elapsed := r.Due.Sub(inserted), now.Sub(inserted)
	p := 10 + int(80*float64(elapsed-d/4)/float64(d-d/4))
	r.Op.Status, r.Op.StartTime, r.Op.Progress = ptr(Running), ptr(stamp(start)), ptr(int32(min(max(p, 10), 90)))
	return r
}

// runningFrom is when a timed operation shows as started: a quarter of the way through
// its delay. ok is false for an operation that is not timed.
func runningFrom(r Record) (time.Time, bool) {
	inserted := r.insertTime()
	if r.Due.IsZero() || !r.Due.After(inserted) {
		return time.Time{}, false
	}
	return inserted.Add(r.Due.Sub(inserted) / 4), true
}

func (r Record) insertTime() time.Time { return parseStamp(r.Op.InsertTime) }
func (r Record) endTime() time.Time    { return parseStamp(r.Op.EndTime) }

// stampOf is t as r shows it, the insert time's text when it is that (most operations end
// in the millisecond they began).
func (r Record) stampOf(t time.Time) *string {
	if s := stamp(t); r.Op.InsertTime == nil || *r.Op.InsertTime != s {
		return &s
	}
	return r.Op.InsertTime
}

// stamp formats a time as the Operation shows it: RFC 3339 with milliseconds and an offset.
func stamp(t time.Time) string { return timefmt.Millis(t, "+00:00") }

// parseStamp reads a time stamp wrote (or a seed gave), the zero time when there is none.
func parseStamp(s *string) time.Time {
	if s == nil {
		return time.Time{}
	}
	t, _ := timefmt.Parse(*s) // written by stamp, or checked when it was loaded
	return t
}

// optional is s, or nil for "" (absent, as the APIs show an empty text member). It
// allocates only for a text it keeps.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return ptr(s)
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
