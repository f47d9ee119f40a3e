package control

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Rule is a fault rule: matching requests fail with Status and Code (rendered in their API's
// envelope), or only wait LatencyMs when Status is 0.
type Rule struct {
	ID          string
	API         string
	OperationID string
	Method      string
	Path        string // a prefix
	// Remaining is how many more requests the rule applies to; 0 means no limit.
	Remaining int
	// Probability is the chance that a matching request is faulted: 1 always, 0 never.
	Probability       float64
	Status            int
	Code, Message     string
	RetryAfterSeconds int
	LatencyMs         int
}

// Request is what a rule is matched against.
type Request struct{ API, OperationID, Method, Path string }

func (r Rule) matches(q Request) bool {
	return (r.API == "" || r.API == q.API) && (r.OperationID == "" || r.OperationID == q.OperationID) &&
		(r.Method == "" || strings.EqualFold(r.Method, q.Method)) && (r.Path == "" || strings.HasPrefix(q.Path, r.Path))
}

// Faults holds the rules in force, matched in order: in memory, or in the store when shared
// by replicas (Tables.ShareFaults).
type Faults struct {
	mu    sync.Mutex
	rules []Rule
	seq   int
	// active lets requests skip everything when there are no rules (the usual case); it is
	// read without a lock, and written under mu when the rules are this process's. Shared,
	// it is what the store said at most Staleness before the request (Tables.Refresh), or
	// true after an Add: a stale true costs a request a look at the rules, never a fault.
	active atomic.Bool
	shared *Tables
}

// Any reports whether any rule is in force, without taking the lock.
func (f *Faults) Any() bool { return f.active.Load() }

// Add installs a rule and returns it with its id.
func (f *Faults) Add(r Rule) (Rule, error) {
	if r.Message == "" {
		r.Message = "Injected by understudy."
	}
	if f.shared != nil {
		out, err := f.shared.addFault(r)
		if err == nil {
			f.active.Store(true)
			time.Sleep(Staleness) // until every replica's next request sees it
		}
		return out, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	r.ID = fmt.Sprintf("fault-%d", f.seq)
	f.rules = append(f.rules, r)
	f.active.Store(true)
	return r, nil
}

// List returns the rules in force.
func (f *Faults) List() ([]Rule, error) {
	if f.shared != nil {
		return f.shared.listFaults()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Rule{}, f.rules...), nil
}

// Delete removes a rule; false when there is none with that id.
func (f *Faults) Delete(id string) (bool, error) {
	if f.shared != nil {
		return f.shared.deleteFault(id)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.rules {
		if r.ID == id {
			f.rules = append(f.rules[:i], f.rules[i+1:]...)
			f.active.Store(len(f.rules) > 0)
			return true, nil
		}
	}
	return false, nil
}

// Clear removes every rule.
func (f *Faults) Clear() error {
	if f.shared != nil {
		// Whether a rule is in force stays the store's to say (Tables.Refresh): another
		// replica may have added one since.
		return f.shared.clearFaults()
	}
	f.mu.Lock()
	f.rules = nil
	f.active.Store(false)
	f.mu.Unlock()
	return nil
}

// Match finds the first rule that applies to q, counting it against the rule's remaining
// requests (and removing the rule when they run out). Shared, a store that cannot answer
// faults nothing: the request itself meets the store's failure.
func (f *Faults) Match(ctx context.Context, q Request) (Rule, bool) {
	if f.shared != nil {
		r, ok, err := f.shared.matchFault(ctx, q)
		return r, ok && err == nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.active.Load() {
		return Rule{}, false
	}
	for i, r := range f.rules {
		if !r.matches(q) {
			continue
		}
		if r.Probability < 1 && rand.Float64() >= r.Probability { // never when 0: Float64 is in [0, 1)
			continue
		}
		if r.Remaining > 0 {
			f.rules[i].Remaining--
			if f.rules[i].Remaining == 0 {
				f.rules = append(f.rules[:i], f.rules[i+1:]...)
				f.active.Store(len(f.rules) > 0)
			}
		}
		return r, true
	}
	return Rule{}, false
}
