// Package store (internal/store/compat) is the store's previous API, kept on top of the new
// one while the APIs move to it: each table of old records is kept by the new engine as its
// records' JSON. It goes when the last API has moved.
package store

import (
	"context"
	"sync"

	ns "github.com/understudy-dev/understudy/internal/store"
)

// Aliases of the new store's types and errors.
type (
	Cursor        = ns.Cursor
	ConflictError = ns.ConflictError
	Backend       = ns.Backend
	Batch         = ns.Batch
	Change        = ns.Change
)

var (
	ErrNotFound    = ns.ErrNotFound
	ErrConflict    = ns.ErrConflict
	ErrReadOnly    = ns.ErrReadOnly
	ErrUnavailable = ns.ErrUnavailable
	ParseCursor    = ns.ParseCursor
)

// DB is the old database API on a new database.
type DB struct {
	db  *ns.DB
	mem *ns.Memory

	mu      sync.Mutex
	pending []func()
}

// New returns an empty database in memory.
func New() *DB {
	mem := ns.NewMemory()
	return &DB{db: ns.New(mem), mem: mem}
}

// Wrap gives the old API to a new database (on a memory engine when mem is not nil).
func Wrap(db *ns.DB) *DB {
	mem, _ := db.Engine().(*ns.Memory)
	return &DB{db: db, mem: mem}
}

// Store is the new database underneath.
func (db *DB) Store() *ns.DB {
	db.define()
	return db.db
}

func (db *DB) define() {
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, d := range db.pending {
		d()
	}
	db.pending = nil
}

var bg = context.Background()

// Tx is a transaction.
type Tx struct{ tx *ns.Tx }

// New is the transaction as the new store has it.
func (tx *Tx) New() *ns.Tx { return tx.tx }

// From wraps a new transaction.
func From(tx *ns.Tx) *Tx { return &Tx{tx: tx} }

func (db *DB) wrap(fn func(tx *Tx) error) func(*ns.Tx) error {
	return func(tx *ns.Tx) error { return fn(&Tx{tx: tx}) }
}

// Update runs fn in a write transaction.
func (db *DB) Update(fn func(tx *Tx) error) error {
	db.define()
	return db.db.Update(bg, db.wrap(fn))
}

// Replace empties every table and runs fn in one write transaction.
func (db *DB) Replace(fn func(tx *Tx) error) error {
	db.define()
	return db.db.Replace(bg, db.wrap(fn))
}

// View runs fn in a read transaction.
func (db *DB) View(fn func(tx *Tx) error) error {
	db.define()
	return db.db.View(bg, db.wrap(fn))
}

// Open loads the backend into memory.
func (db *DB) Open(b Backend) (bool, error) {
	db.define()
	return db.mem.Open(b)
}

// Durable reports whether a backend is open.
func (db *DB) Durable() bool { return db.mem != nil && db.mem.Durable() }

// Close closes the database.
func (db *DB) Close() error { return db.db.Close() }

// Counts returns the number of rows of each table.
func (db *DB) Counts() map[string]int {
	db.define()
	m, _ := db.db.Counts(bg)
	return m
}

// Table is a table of old records.
type Table[R any] struct {
	db   *DB
	name string
	idx  []*ns.Index[R]
	t    *ns.Table[R]
}

// NewTable adds a table; its indexes are added before the first transaction.
func NewTable[R any](db *DB, name string) *Table[R] {
	t := &Table[R]{db: db, name: name}
	db.mu.Lock()
	db.pending = append(db.pending, func() { t.t = ns.NewTable(db.db, name, t.idx...) })
	db.mu.Unlock()
	return t
}

// Get returns the record under pk.
func (t *Table[R]) Get(tx *Tx, pk string) (R, bool) { return t.t.Get(tx.tx, pk) }

// Put stores r under pk.
func (t *Table[R]) Put(tx *Tx, pk string, r R) error { return t.t.Put(tx.tx, pk, r) }

// Delete removes the record under pk, returning it.
func (t *Table[R]) Delete(tx *Tx, pk string) (R, bool, error) {
	r, ok := t.t.Get(tx.tx, pk)
	if ok {
		t.t.Delete(tx.tx, pk)
	}
	return r, ok, tx.tx.Err()
}

// Each visits every record.
func (t *Table[R]) Each(tx *Tx, fn func(pk string, r R) bool) { t.t.Each(tx.tx, fn) }

// Len is the number of records.
func (t *Table[R]) Len(tx *Tx) int { return t.t.Len(tx.tx) }

// Unique is a unique index.
type Unique[R any] struct{ x *ns.Index[R] }

// AddUnique adds a unique index.
func (t *Table[R]) AddUnique(name string, key func(R) (string, bool)) *Unique[R] {
	x := ns.UniqueIndex(name, key)
	t.idx = append(t.idx, x)
	return &Unique[R]{x: x}
}

// Get finds the record holding key.
func (u *Unique[R]) Get(tx *Tx, key string) (string, R, bool) { return u.x.Get(tx.tx, key) }

// Ordered is an ordered index (or the primary key order).
type Ordered[R any] struct {
	t *Table[R]
	x *ns.Index[R] // nil: the primary key
}

// AddOrdered adds an ordered index.
func (t *Table[R]) AddOrdered(key func(R) (string, bool)) *Ordered[R] {
	x := ns.OrderedIndex("ordered"+string(rune('0'+len(t.idx))), key)
	t.idx = append(t.idx, x)
	return &Ordered[R]{t: t, x: x}
}

// AddPKOrder lists records in primary key order.
func (t *Table[R]) AddPKOrder() *Ordered[R] { return &Ordered[R]{t: t} }

// Scan visits the entries in [lo, hi) after the cursor.
func (o *Ordered[R]) Scan(tx *Tx, lo, hi string, after *Cursor, fn func(c Cursor, r R) bool) {
	if o.x == nil {
		o.t.t.Scan(tx.tx, lo, hi, after, fn)
		return
	}
	o.x.Scan(tx.tx, lo, hi, after, fn)
}

// ScanBackward visits the entries in [lo, hi) at or before the cursor, newest first.
func (o *Ordered[R]) ScanBackward(tx *Tx, lo, hi string, atOrBefore Cursor, fn func(c Cursor, r R) bool) {
	from := Cursor{Key: atOrBefore.Key, PK: atOrBefore.PK + "\x00"}
	o.x.ScanReverse(tx.tx, lo, hi, &from, fn)
}

// Counter counts records by key.
type Counter[R any] struct{ x *ns.Index[R] }

// AddCounter adds a counting index.
func (t *Table[R]) AddCounter(key func(R) (string, bool)) *Counter[R] {
	x := ns.CountedIndex("counter"+string(rune('0'+len(t.idx))), key)
	t.idx = append(t.idx, x)
	return &Counter[R]{x: x}
}

// Count is the number of records with key.
func (c *Counter[R]) Count(tx *Tx, key string) int { return c.x.Count(tx.tx, key) }

// Numbered orders records by a group and a number.
type Numbered[R any] struct{ x *ns.Index[R] }

// AddNumbered adds a numbered index.
func (t *Table[R]) AddNumbered(key func(R) (string, uint64, bool)) *Numbered[R] {
	x := ns.OrderedIndex("numbered"+string(rune('0'+len(t.idx))), func(r R) (string, bool) {
		g, n, ok := key(r)
		return g + "\x01" + ns.Uint(n), ok
	})
	t.idx = append(t.idx, x)
	return &Numbered[R]{x: x}
}

// Scan visits the records of group numbered in [lo, hi).
func (x *Numbered[R]) Scan(tx *Tx, group string, lo, hi uint64, fn func(r R) bool) {
	x.x.Scan(tx.tx, group+"\x01"+ns.Uint(lo), group+"\x01"+ns.Uint(hi), nil, func(_ Cursor, r R) bool { return fn(r) })
}
