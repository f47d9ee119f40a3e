package operations

import (
	"context"
	"math"
	"time"

	"github.com/understudy-dev/understudy/internal/store/compat"
)

// Get returns an operation by name or numeric id. In manual mode a get advances the
// operation one step (PENDING, RUNNING, DONE) before answering.
func (e *Engine) Get(scope, nameOrID string) (Operation, error) {
	if err := e.Advance(); err != nil {
		return Operation{}, err
	}
	var op Operation
	found := false
	_ = e.db.View(func(tx *store.Tx) error {
		op, found = e.lookup(tx, scope, nameOrID)
		return nil
	})
	if !found {
		return op, ErrNotFound
	}
	if op.Manual && !op.Done() {
		err := e.db.Update(func(tx *store.Tx) error {
			var ok bool
			if op, ok = e.lookup(tx, scope, nameOrID); !ok {
				return ErrNotFound
			}
			if op.Done() {
				return nil
			}
			var err error
			op, err = e.step(tx, op)
			return err
		})
		if err != nil {
			return op, err
		}
	}
	return e.view(op, e.cfg.Now()), nil
}

// step moves a manual operation one state on.
func (e *Engine) step(tx *store.Tx, op Operation) (Operation, error) {
	now := e.cfg.Now()
	if op.Status == Pending {
		op.Status, op.Progress, op.StartTime = Running, 50, now
		return op, e.t.Ops.Put(tx, op.Key(), op)
	}
	return e.finish(tx, op.Key(), op, now, false)
}

func (e *Engine) lookup(tx *store.Tx, scope, nameOrID string) (Operation, bool) {
	if op, ok := e.t.Ops.Get(tx, scopedKey(scope, nameOrID)); ok {
		return op, true
	}
	_, op, ok := e.t.ByID.Get(tx, scopedKey(scope, nameOrID))
	return op, ok
}

// List returns a scope's operations in the order they were accepted, as clients see them
// now. It does not advance manual operations.
func (e *Engine) List(scope string) ([]Operation, error) {
	if err := e.Advance(); err != nil {
		return nil, err
	}
	now := e.cfg.Now()
	var out []Operation
	err := e.db.View(func(tx *store.Tx) error {
		e.t.InOrder.Scan(tx, scope, 0, math.MaxUint64, func(op Operation) bool {
			out = append(out, e.view(op, now))
			return true
		})
		return nil
	})
	return out, err
}

// Delete forgets an operation. It does not undo or stop anything: the real service carries
// on with the work after the record has gone, and an operation that has not finished is
// finished first, so that its effect, decided at accept, happens (a deleted insert's
// resource would otherwise hold its name unreadable until a reset).
func (e *Engine) Delete(scope, nameOrID string) error {
	return e.db.Update(func(tx *store.Tx) error {
		op, ok := e.lookup(tx, scope, nameOrID)
		if !ok {
			return ErrNotFound
		}
		if !op.Done() {
			var err error
			if op, err = e.finish(tx, op.Key(), op, e.cfg.Now(), false); err != nil {
				return err
			}
		}
		_, _, err := e.t.Ops.Delete(tx, op.Key())
		return err
	})
}

// pollEvery is how often Wait looks again.
const pollEvery = 5 * time.Millisecond

// Wait returns the operation once it is DONE, or when the wait timeout or ctx ends, in
// which case it may not be DONE. In manual mode it advances one step, like Get.
func (e *Engine) Wait(ctx context.Context, scope, nameOrID string) (Operation, error) {
	deadline := time.NewTimer(e.cfg.WaitTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		op, err := e.Get(scope, nameOrID)
		if err != nil || op.Done() || op.Manual {
			return op, err
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return op, nil
		case <-ctx.Done():
			return op, nil
		case <-e.stopped:
			return op, nil
		}
	}
}

// Count returns how many operations are kept, for tests and metrics.
func (e *Engine) Count() int {
	n := 0
	_ = e.db.View(func(tx *store.Tx) error { n = e.t.Ops.Len(tx); return nil })
	return n
}
