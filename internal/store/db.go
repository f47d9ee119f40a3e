package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DB is the state every API keeps: tables of rows in one engine, changed in transactions.
type DB struct {
	eng    Engine
	tables []string
}

// New returns a database kept by eng.
func New(eng Engine) *DB { return &DB{eng: eng} }

// Engine is the engine that keeps the database.
func (db *DB) Engine() Engine { return db.eng }

// Tx is a transaction, valid only inside the function given to Update, View or Replace.
//
// An engine's own failure (a lost connection) is kept as the transaction's error: reads
// then find nothing and writes do nothing, and Update returns that error whatever the
// function returns, so the change is rolled back and the caller answers "unavailable"
// rather than anything the function decided from a read that failed.
type Tx struct {
	txn Txn
	err error
}

// fail keeps the first engine failure.
func (tx *Tx) fail(err error) {
	if tx.err == nil {
		tx.err = err
	}
}

// Err is the engine failure the transaction met, if any.
func (tx *Tx) Err() error { return tx.err }

// Next returns the next number of the named sequence: 1, 2, ..., never twice, also across
// replicas on one database; a rolled-back transaction leaves a gap.
func (tx *Tx) Next(sequence string) uint64 {
	if tx.err != nil {
		return 0
	}
	n, err := tx.txn.Next(sequence)
	if err != nil {
		tx.fail(err)
	}
	return n
}

// Update runs fn in a write transaction: its changes are kept if fn returns nil and undone
// otherwise (or if it panics). The engine may run fn more than once (see Engine.Run), so fn
// must not change anything outside the transaction but its own variables.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	return db.run(ctx, Write, fn)
}

// Replace empties every table but the kept ones (NewKeptTable) and runs fn (loading a seed) in the same write transaction,
// so that no reader sees the empty state in between. If fn fails, the state before stays.
func (db *DB) Replace(ctx context.Context, fn func(tx *Tx) error) error {
	return db.run(ctx, Wipe, fn)
}

// View runs fn in a read transaction.
func (db *DB) View(ctx context.Context, fn func(tx *Tx) error) error {
	return db.run(ctx, Read, fn)
}

func (db *DB) run(ctx context.Context, mode Mode, fn func(tx *Tx) error) error {
	return db.eng.Run(ctx, mode, func(txn Txn) error {
		tx := &Tx{txn: txn}
		err := fn(tx)
		if tx.err != nil {
			return tx.err
		}
		return err
	})
}

// Close closes the engine.
func (db *DB) Close() error { return db.eng.Close() }

// Counts returns how many rows each table holds, by table name.
func (db *DB) Counts(ctx context.Context) (map[string]int, error) {
	out := make(map[string]int, len(db.tables))
	err := db.View(ctx, func(tx *Tx) error {
		for _, name := range db.tables {
			n, err := tx.txn.Len(name)
			if err != nil {
				return err
			}
			out[name] = n
		}
		return nil
	})
	return out, err
}

// Uint is n as an index key that sorts as numbers do (20 digits, zero-padded).
func Uint(n uint64) string {
	s := strconv.FormatUint(n, 10)
	return strings.Repeat("0", 20-len(s)) + s
}

// errDefine reports a table declared wrongly: a mistake in the code, found at start.
func errDefine(table string, err error) error {
	return fmt.Errorf("store: table %s: %w", table, err)
}

var errIndexBound = errors.New("an index belongs to one table only")

var errTooManyIndexes = errors.New("a table has at most 255 indexes")
