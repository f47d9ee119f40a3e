package operations

import (
	"errors"
	"fmt"
	"sort"

	"github.com/understudy-dev/understudy/internal/store/compat"
)

// Finished returns every finished operation, in acceptance order: what a state export
// records. Operations still running are left out: their effect, decided at accept, has not
// happened yet, and a replay could not make it happen as it would have.
func (e *Engine) Finished(tx *store.Tx) []Operation {
	var out []Operation
	e.t.Ops.Each(tx, func(_ string, op Operation) bool {
		if op.Done() {
			out = append(out, op)
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Numbered makes the operations accepted from now on follow seq: a seed that gives its
// operations their sequence numbers says so first, so that those it does not number, and
// the ones accepted later, come after them.
func (e *Engine) Numbered(seq uint64) {
	for {
		cur := e.seq.Load()
		if cur >= seq || e.seq.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// Load stores a finished operation as it was recorded (a seed's), inside tx: its name, id,
// requestId and times are its own, and so is its sequence number, unless it has none
// (it is then numbered after every other). Its retention runs from its end time. It is
// refused when it is not DONE, or when its name, id or requestId is another's in its
// scope; the error starts with the member at fault (status, name, id, requestId) and ": ".
func (e *Engine) Load(tx *store.Tx, op Operation) error {
	if !op.Done() {
		return fmt.Errorf("status: %q: only finished (DONE) operations can be loaded", op.Status)
	}
	if op.Seq == 0 {
		op.Seq = e.seq.Add(1)
	}
	op.Progress, op.Manual = 100, false
	if _, taken := e.t.Ops.Get(tx, op.Key()); taken {
		return fmt.Errorf("name: %s is another operation's in %s", op.Name, op.Scope)
	}
	if err := e.t.Ops.Put(tx, op.Key(), op); err != nil {
		var ce *store.ConflictError
		if errors.As(err, &ce) {
			return fmt.Errorf("%s: %s is another operation's in %s", ce.Index, ce.Key[len(op.Scope)+1:], op.Scope)
		}
		return err
	}
	e.lowerNextEvent(op.EndTime.Add(e.cfg.Retention))
	return nil
}
