package store

import "sync"

// DB is a set of tables changed together in transactions.
type DB struct {
	mu     sync.RWMutex
	tables []resetter
}

type resetter interface {
	reset()
	tableName() string
	size() int
}

// Counts returns how many records each table holds, by table name.
func (db *DB) Counts() map[string]int {
	db.mu.RLock()
	defer db.mu.RUnlock()
	out := make(map[string]int, len(db.tables))
	for _, t := range db.tables {
		out[t.tableName()] = t.size()
	}
	return out
}

// New returns an empty database.
func New() *DB { return &DB{} }

// Tx is a transaction. It is valid only inside the function given to Update or View.
type Tx struct {
	writable bool
	undo     []func()
}

// Update runs fn in a write transaction. Writers are serialised; if fn returns an error
// (or panics) every change it made is rolled back before the lock is released.
func (db *DB) Update(fn func(tx *Tx) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	return write(fn)
}

// write runs fn in a new write transaction, rolling it back unless fn succeeds. The caller
// holds the writer lock.
func write(fn func(tx *Tx) error) (err error) {
	tx := &Tx{writable: true}
	committed := false
	defer func() {
		if !committed {
			tx.rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	committed = true
	return nil
}

// View runs fn in a read transaction; many may run at once.
func (db *DB) View(fn func(tx *Tx) error) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return fn(&Tx{})
}

// Replace empties every table and runs fn (typically: load the seed) in one write
// transaction, so that no reader ever sees the empty state in between. If fn fails its
// changes are undone and the tables are left empty.
func (db *DB) Replace(fn func(tx *Tx) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	for _, t := range db.tables {
		t.reset()
	}
	return write(fn)
}

func (tx *Tx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		tx.undo[i]()
	}
	tx.undo = nil
}

func (tx *Tx) onRollback(f func()) { tx.undo = append(tx.undo, f) }
