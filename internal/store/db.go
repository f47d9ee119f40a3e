package store

import (
	"errors"
	"fmt"
	"sync"
)

// DB is a set of tables changed together in transactions.
type DB struct {
	mu     sync.RWMutex
	tables []table
	// disk, when set, makes every committed transaction durable before Update returns.
	disk *committer
	// closed refuses changes once Close has run.
	closed bool
	// wtx is the write transaction, used again by each writer in turn (they hold mu), so
	// that neither it nor its undo list is allocated per transaction.
	wtx Tx
}

// table is what the database needs of a Table whatever its record type.
type table interface {
	diskTable
	reset()
	size() int
	// load adds a record read from disk, indexes and all, outside any transaction.
	load(pk string, value []byte) error
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

// New returns an empty database that lives in memory.
func New() *DB { return &DB{} }

// Open loads what the backend holds into the tables (which must all have been added) and
// from then on writes every committed transaction to it. seeded reports whether the backend
// held a database; when it did not, the caller seeds it with Replace.
func (db *DB) Open(b Backend) (seeded bool, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.disk != nil {
		return false, errors.New("store: a backend is already open")
	}
	byName := make(map[string]table, len(db.tables))
	for _, t := range db.tables {
		byName[t.tableName()] = t
	}
	seeded, err = b.Load(func(name, pk string, value []byte) error {
		t, ok := byName[name]
		if !ok {
			return fmt.Errorf("store: the data holds an unknown table %q", name)
		}
		if err := t.load(pk, value); err != nil {
			return fmt.Errorf("store: %s %s: %w", name, pk, err)
		}
		return nil
	})
	if err != nil {
		for _, t := range db.tables {
			t.reset()
		}
		return false, err
	}
	db.disk = newCommitter(b)
	return seeded, nil
}

// Durable reports whether committed transactions go to disk.
func (db *DB) Durable() bool { return db.disk != nil }

// Close writes what is still queued and closes the backend; later changes fail. It is a
// no-op for a database in memory.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.closed = true
	if db.disk == nil {
		return nil
	}
	return db.disk.close()
}

// Tx is a transaction. It is valid only inside the function given to Update or View.
type Tx struct {
	writable bool
	// logged: the database is durable, so changes are recorded for the committer.
	logged bool
	// undo names the table of each change, in order; each table keeps, typed, what undoes
	// its own changes, so that recording a change allocates no closure.
	undo    []undoer
	changes []change
}

// undoer is a table as a transaction undoes it.
type undoer interface {
	// undoLast undoes the table's last change in the transaction.
	undoLast()
	// forgetUndo drops what would undo the table's changes: the transaction committed.
	forgetUndo()
}

// readTx is every read transaction: it holds nothing, so readers share it instead of
// allocating one each.
var readTx = Tx{}

// maxKeptUndo is the most undo entries a write transaction's slices keep for the next one;
// a larger transaction (a seed) lets its slices go.
const maxKeptUndo = 1024

// Update runs fn in a write transaction. Writers are serialised; if fn returns an error
// (or panics) every change it made is rolled back before the lock is released. On a durable
// database Update returns once the transaction (and every one before it) is synced to disk,
// so a caller that answers after Update never acknowledges a change a crash could lose.
func (db *DB) Update(fn func(tx *Tx) error) error {
	return db.commit(false, fn)
}

// Replace empties every table and runs fn (typically: load the seed) in one write
// transaction, so that no reader ever sees the empty state in between. If fn fails its
// changes are undone and the tables are left empty. On disk the old state is wiped too.
func (db *DB) Replace(fn func(tx *Tx) error) error {
	return db.commit(true, fn)
}

func (db *DB) commit(wipe bool, fn func(tx *Tx) error) error {
	return db.settle(db.apply(wipe, fn))
}

// settle returns the transaction's own error once transaction seq is on disk, or the disk's
// error; in memory it returns err at once.
func (db *DB) settle(seq uint64, err error) error {
	if db.disk != nil {
		if werr := db.disk.wait(seq); werr != nil {
			return werr
		}
	}
	return err
}

// apply runs the transaction under the writer lock and, on a durable database, queues it for
// the disk. It returns the sequence number to wait for: a failed transaction changed
// nothing, but what it read may not be on disk yet, so like a reader it waits for that.
func (db *DB) apply(wipe bool, fn func(tx *Tx) error) (seq uint64, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.usable(); err != nil {
		return 0, err
	}
	if wipe {
		for _, t := range db.tables {
			t.reset()
		}
	}
	tx := &db.wtx
	*tx = Tx{writable: true, logged: db.disk != nil, undo: tx.undo[:0]}
	err = write(tx, fn)
	// The committer keeps the changes: the next transaction starts a slice of its own.
	changes := tx.changes
	tx.changes = nil
	if db.disk == nil {
		return 0, err
	}
	switch {
	case err == nil:
		return db.disk.enqueue(txEntry{wipe: wipe, changes: changes}), nil
	case wipe:
		// A failed Replace leaves the tables empty: so must it leave the disk.
		return db.disk.enqueue(txEntry{wipe: true}), err
	default:
		return db.disk.last(), err
	}
}

// usable refuses changes after Close or after the disk failed. The caller holds the lock.
func (db *DB) usable() error {
	if db.closed {
		return errors.New("store: the database is closed")
	}
	if db.disk != nil {
		return db.disk.failed()
	}
	return nil
}

// write runs fn in tx, rolling it back unless fn succeeds. The caller holds the writer lock.
func write(tx *Tx, fn func(tx *Tx) error) (err error) {
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
	tx.commit()
	return nil
}

// View runs fn in a read transaction; many may run at once. On a durable database View
// returns once everything fn could have seen is on disk, so no answer ever shows a change
// a crash could still lose.
func (db *DB) View(fn func(tx *Tx) error) error {
	return db.settle(db.read(fn))
}

func (db *DB) read(fn func(tx *Tx) error) (seq uint64, err error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.disk != nil {
		seq = db.disk.last()
	}
	return seq, fn(&readTx)
}

func (tx *Tx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		tx.undo[i].undoLast()
	}
	tx.endUndo()
	tx.changes = nil
}

// commit drops what would have undone the transaction.
func (tx *Tx) commit() {
	for _, t := range tx.undo {
		t.forgetUndo()
	}
	tx.endUndo()
}

// endUndo empties the undo list, keeping it for the next transaction unless it grew large.
func (tx *Tx) endUndo() {
	if cap(tx.undo) > maxKeptUndo {
		tx.undo = nil
		return
	}
	clear(tx.undo)
	tx.undo = tx.undo[:0]
}

// record notes a change for the committer (a nil record is a delete). Callers check
// tx.logged first, so that a database in memory does not even box the record.
func (tx *Tx) record(t diskTable, pk string, record any) {
	tx.changes = append(tx.changes, change{table: t, pk: pk, record: record})
}
