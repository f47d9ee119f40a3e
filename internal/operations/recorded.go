package operations

import (
	"errors"
	"fmt"

	"github.com/understudy-dev/understudy/internal/store"
)

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
