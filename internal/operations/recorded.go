package operations

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// Finished returns every finished operation, in acceptance order: what a state export
// records. Operations still running are left out: their effect, decided at accept, has not
// happened yet, and a replay could not make it happen as it would have.
func (e *Engine) Finished(tx *store.Tx) []Record {
	var out []Record
	e.t.ops.Each(tx, func(_ string, r Record) bool {
		if r.Done() {
			out = append(out, r)
		}
		return true
	})
	slices.SortFunc(out, acceptance)
	return out
}

// acceptance orders operations as they were accepted: by insert time, then sequence number
// (the times are written in one fixed-width form, which sorts as the times do).
func acceptance(a, b Record) int {
	if c := strings.Compare(deref(a.Op.InsertTime), deref(b.Op.InsertTime)); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}

// LoadError is an operation Load refuses: Member is the one at fault (status, name, id,
// clientOperationId, endTime).
type LoadError struct {
	Member string
	Err    error
}

func (e *LoadError) Error() string { return e.Member + ": " + e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// Load stores a finished operation as it was recorded (a seed's), inside tx: its name, id,
// requestId, times and sequence number are its own (a sequence number of 0 takes the next
// one). Its retention runs from its end time. It is refused when it is not DONE, or when its
// name, id or requestId is another's in its scope.
func (e *Engine) Load(tx *store.Tx, r Record) error {
	if !r.Done() {
		return &LoadError{"status", fmt.Errorf("%q: only finished (DONE) operations can be loaded", r.status())}
	}
	if _, err := timeOf(r.Op.EndTime); err != nil {
		return &LoadError{"endTime", err}
	}
	if r.Seq == 0 {
		r.Seq = tx.Next("operations")
	}
	r.Op.Progress, r.Manual, r.Due, r.Failure = ptr(int32(100)), false, time.Time{}, nil
	if _, taken := e.t.ops.Get(tx, deref(r.Op.SelfLink)); taken {
		return &LoadError{"name", fmt.Errorf("%s is another operation's in %s", r.Name(), r.Scope())}
	}
	if err := e.t.ops.Put(tx, deref(r.Op.SelfLink), r); err != nil {
		var ce *store.ConflictError
		if errors.As(err, &ce) {
			member, value := "id", r.ID()
			if ce.Index == "requestId" {
				member, value = "clientOperationId", *r.Op.ClientOperationId
			}
			return &LoadError{member, fmt.Errorf("%s is another operation's in %s", value, r.Scope())}
		}
		return err
	}
	return nil
}

func timeOf(s *string) (time.Time, error) {
	if s == nil {
		return time.Time{}, errors.New("required")
	}
	return timefmt.Parse(*s)
}
