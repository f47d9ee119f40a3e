package operations

import (
	"context"
	"slices"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
)

// Get returns an operation of scope by name or numeric id, as it is now. In manual mode a
// get advances the operation one step (PENDING, RUNNING, DONE) before answering.
func (e *Engine) Get(ctx context.Context, scope, nameOrID string) (Record, error) {
	if err := e.Advance(ctx); err != nil {
		return Record{}, err
	}
	var r Record
	found := false
	if err := e.db.View(ctx, func(tx *store.Tx) error {
		r, found = e.lookup(tx, scope, nameOrID)
		return nil
	}); err != nil {
		return r, err
	}
	if !found {
		return r, ErrNotFound
	}
	if r.Manual && !r.Done() {
		err := e.db.Update(ctx, func(tx *store.Tx) error {
			var ok bool
			if r, ok = e.lookup(tx, scope, nameOrID); !ok {
				return ErrNotFound
			}
			if r.Done() {
				return nil
			}
			var err error
			r, err = e.step(tx, r)
			return err
		})
		if err != nil {
			return r, err
		}
	}
	return e.view(r, e.cfg.Now()), nil
}

// step moves a manual operation one state on.
func (e *Engine) step(tx *store.Tx, r Record) (Record, error) {
	now := e.cfg.Now()
	if r.status() == Pending {
		r.Op.Status, r.Op.Progress, r.Op.StartTime = ptr(Running), ptr(int32(50)), ptr(stamp(now))
		return r, e.put(tx, r)
	}
	return e.finish(tx, r, now, false)
}

func (e *Engine) lookup(tx *store.Tx, scope, nameOrID string) (Record, bool) {
	key := scope + "/operations/" + nameOrID
	if r, ok := e.t.ops.Get(tx, key); ok {
		return r, true
	}
	_, r, ok := e.t.byID.Get(tx, key)
	return r, ok
}

// List returns the operations whose selfLink path starts with within (a scope's
// operations: scope + "/operations/"; a project's: "projects/{p}/"), in the order they were
// accepted, as clients see them now. It does not advance manual operations.
func (e *Engine) List(ctx context.Context, within string) ([]Record, error) {
	if err := e.Advance(ctx); err != nil {
		return nil, err
	}
	now := e.cfg.Now()
	var out []Record
	err := e.db.View(ctx, func(tx *store.Tx) error {
		out = nil
		e.t.ops.Scan(tx, within, within+"\xff", nil, func(_ store.Cursor, r Record) bool {
			out = append(out, e.view(r, now))
			return true
		})
		return nil
	})
	slices.SortFunc(out, acceptance)
	return out, err
}

// Delete forgets an operation. It does not undo or stop anything: the real service carries
// on with the work after the record has gone, and an operation that has not finished is
// finished first, so that its effect, decided at accept, happens (a deleted insert's
// resource would otherwise hold its name unreadable until a reset).
func (e *Engine) Delete(ctx context.Context, scope, nameOrID string) error {
	return e.db.Update(ctx, func(tx *store.Tx) error {
		r, ok := e.lookup(tx, scope, nameOrID)
		if !ok {
			return ErrNotFound
		}
		if !r.Done() {
			if _, err := e.finish(tx, r, e.cfg.Now(), false); err != nil {
				return err
			}
		}
		e.t.ops.Delete(tx, deref(r.Op.SelfLink))
		return nil
	})
}

// pollEvery is how often Wait looks again.
const pollEvery = 5 * time.Millisecond

// Wait returns the operation once it is DONE, or when the wait timeout or ctx ends, in
// which case it may not be DONE. In manual mode it advances one step, like Get.
func (e *Engine) Wait(ctx context.Context, scope, nameOrID string) (Record, error) {
	deadline := time.NewTimer(e.cfg.WaitTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		r, err := e.Get(ctx, scope, nameOrID)
		if err != nil || r.Done() || r.Manual {
			return r, err
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return r, nil
		case <-ctx.Done():
			return r, nil
		case <-e.stopped:
			return r, nil
		}
	}
}

// Count returns how many operations are kept, for tests and metrics.
func (e *Engine) Count(ctx context.Context) int {
	n := 0
	_ = e.db.View(ctx, func(tx *store.Tx) error { n = e.t.ops.Len(tx); return nil })
	return n
}
