package store

import (
	"context"
	"sync"
	"time"
)

// Leases are named claims on background work that one holder at a time has, for a while:
// retention sweeps and the like, which one of the replicas on a database runs, and another
// takes over once the holder has stopped renewing (it died). They are rows of a kept table,
// changed in transactions, so every engine keeps them alike. Lease times are the machines'
// own clocks (not the sandbox's, which the admin API moves): replicas' clocks are assumed
// to agree to well within a lease's term.
type Leases struct {
	db *DB
	t  *Table[leaseRow]
	// now is the real clock (tests give their own).
	now func() time.Time
}

type leaseRow struct {
	Name, Holder string
	Until        time.Time
}

// NewLeases declares the leases' table in db.
func NewLeases(db *DB) *Leases {
	return &Leases{db: db, t: NewKeptTable[leaseRow](db, "leases"), now: time.Now}
}

// Lease is one holder's claim on the lease name, with term ttl.
type Lease struct {
	ls     *Leases
	name   string
	holder string
	ttl    time.Duration

	mu sync.Mutex
	// until is the end of the term this holder has (zero: it holds none); next is when
	// one that does not hold it asks again.
	until, next time.Time
}

// Lease returns holder's claim on name (holder: a token unique to the process).
func (ls *Leases) Lease(name, holder string, ttl time.Duration) *Lease {
	return &Lease{ls: ls, name: name, holder: holder, ttl: ttl}
}

// Held says whether this holder has the lease now, taking it when it is free or its
// holder's term has ended, and renewing its own once half its term has passed: a write
// transaction every ttl/2 for the holder, one every ttl/4 for the others, none between.
// Work done while Held is true must end well within ttl/2.
func (l *Lease) Held(ctx context.Context) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.ls.now()
	if now.Before(l.until.Add(-l.ttl / 2)) {
		return true
	}
	if l.until.IsZero() && now.Before(l.next) {
		return false
	}
	held := false
	err := l.ls.db.Update(ctx, func(tx *Tx) error {
		held = false
		cur, ok := l.ls.t.Get(tx, l.name)
		if ok && cur.Holder != l.holder && now.Before(cur.Until) {
			return nil
		}
		held = true
		return l.ls.t.Put(tx, l.name, leaseRow{Name: l.name, Holder: l.holder, Until: now.Add(l.ttl)})
	})
	if err != nil || !held {
		l.until, l.next = time.Time{}, now.Add(l.ttl/4)
		return false
	}
	l.until = now.Add(l.ttl)
	return true
}

// Release gives the lease up, so that another holder need not wait out its term.
func (l *Lease) Release(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.until.IsZero() {
		return
	}
	l.until = time.Time{}
	_ = l.ls.db.Update(ctx, func(tx *Tx) error {
		if cur, ok := l.ls.t.Get(tx, l.name); ok && cur.Holder == l.holder {
			l.ls.t.Delete(tx, l.name)
		}
		return nil
	})
}
