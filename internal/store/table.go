package store

import (
	"fmt"

	// encoding/json's behaviour and bytes (TestGoccyJSONIsEncodingJSON), as the generated
	// code has them, in a fraction of the instructions.
	json "github.com/goccy/go-json"
)

// Table is a table of rows of type R, each kept as R's JSON: for an API's resources, R is
// the API's own object (a generated wire type), or a small record holding it beside what the
// API keeps of it that its object does not say.
type Table[R any] struct {
	db      *DB
	name    string
	indexes []*Index[R]
}

// Index is an index of a table of R: Unique, Ordered or Counted (IndexKind). Its key is
// derived from the row by key, which returns false to leave a row out. Declare it with
// UniqueIndex, OrderedIndex or CountedIndex and give it to NewTable.
type Index[R any] struct {
	t    *Table[R]
	pos  int
	name string
	kind IndexKind
	key  func(R) (string, bool)
}

// UniqueIndex declares an index in which no two rows share a key.
func UniqueIndex[R any](name string, key func(R) (string, bool)) *Index[R] {
	return &Index[R]{name: name, kind: Unique, key: key}
}

// OrderedIndex declares an index that lists rows in the order of their keys.
func OrderedIndex[R any](name string, key func(R) (string, bool)) *Index[R] {
	return &Index[R]{name: name, kind: Ordered, key: key}
}

// CountedIndex declares an index that counts the rows holding each key.
func CountedIndex[R any](name string, key func(R) (string, bool)) *Index[R] {
	return &Index[R]{name: name, kind: Counted, key: key}
}

// NewTable declares a table of db with its indexes, its rows kept in primary-key order too
// (for Scan by key ranges: lists by a key prefix). A table or index declared twice is a
// mistake in the code: NewTable panics, at start.
func NewTable[R any](db *DB, name string, indexes ...*Index[R]) *Table[R] {
	return newTable(db, TableDef{Name: name, Sorted: true}, indexes)
}

// NewUnsortedTable is NewTable for a table whose rows are never listed by primary key on a
// request's path (Each still visits them in that order, sorting them first): the engine
// keeps no order of its keys, which costs memory and time per row.
func NewUnsortedTable[R any](db *DB, name string, indexes ...*Index[R]) *Table[R] {
	return newTable(db, TableDef{Name: name}, indexes)
}

// NewCompactTable is NewUnsortedTable for a table of very many small rows (role
// assignments): the memory engine keeps them compressed against a dictionary
// (TableDef.Dictionary), smaller and slower to write.
func NewCompactTable[R any](db *DB, name string, indexes ...*Index[R]) *Table[R] {
	return newTable(db, TableDef{Name: name, Dictionary: true}, indexes)
}

// NewKeptTable is NewTable for a table whose rows a reset (Replace) leaves as they are.
func NewKeptTable[R any](db *DB, name string, indexes ...*Index[R]) *Table[R] {
	return newTable(db, TableDef{Name: name, Sorted: true, Kept: true}, indexes)
}

func newTable[R any](db *DB, def TableDef, indexes []*Index[R]) *Table[R] {
	name := def.Name
	t := &Table[R]{db: db, name: name, indexes: indexes}
	if len(indexes) > 255 {
		panic(errDefine(name, errTooManyIndexes)) // the memory engine numbers them in a byte
	}
	for i, x := range indexes {
		if x.t != nil {
			panic(errDefine(name, errIndexBound))
		}
		x.t, x.pos = t, i
		def.Indexes = append(def.Indexes, IndexDef{Name: x.name, Kind: x.kind})
	}
	if len(indexes) > 0 {
		def.Keys = func(doc []byte) ([]Key, error) {
			var r R
			if err := json.Unmarshal(doc, &r); err != nil {
				return nil, err
			}
			return t.keys(r), nil
		}
	}
	if err := db.eng.Define(def); err != nil {
		panic(errDefine(name, err))
	}
	db.tables = append(db.tables, name)
	return t
}

// Name is the table's name.
func (t *Table[R]) Name() string { return t.name }

func (t *Table[R]) keys(r R) []Key {
	if len(t.indexes) == 0 {
		return nil
	}
	keys := make([]Key, 0, len(t.indexes))
	for _, x := range t.indexes {
		if k, ok := x.key(r); ok {
			keys = append(keys, Key{Index: x.pos, Key: k})
		}
	}
	return keys
}

// decode reads a stored document; one that cannot be read fails the transaction.
func (t *Table[R]) decode(tx *Tx, pk string, doc []byte) (R, bool) {
	var r R
	if err := json.Unmarshal(doc, &r); err != nil {
		tx.fail(fmt.Errorf("store: %s %s: %w", t.name, pk, err))
		return r, false
	}
	return r, true
}

// Get returns the row under pk.
func (t *Table[R]) Get(tx *Tx, pk string) (R, bool) {
	var zero R
	if tx.err != nil {
		return zero, false
	}
	doc, ok, err := tx.txn.Get(t.name, pk)
	if err != nil {
		tx.fail(err)
		return zero, false
	}
	if !ok {
		return zero, false
	}
	return t.decode(tx, pk, doc)
}

// Put stores r under pk, in place of the row there, if any. It fails with a *ConflictError
// (errors.Is ErrConflict), changing nothing, when another row holds one of r's unique keys.
func (t *Table[R]) Put(tx *Tx, pk string, r R) error {
	if tx.err != nil {
		return tx.err
	}
	doc, err := json.Marshal(&r) // a pointer: r itself would be copied to the heap
	if err != nil {
		return fmt.Errorf("store: %s %s: %w", t.name, pk, err)
	}
	if err := tx.txn.Put(t.name, pk, doc, t.keys(r)); err != nil {
		if _, conflict := err.(*ConflictError); !conflict {
			tx.fail(err)
		}
		return err
	}
	return nil
}

// Delete removes the row under pk and reports whether there was one.
func (t *Table[R]) Delete(tx *Tx, pk string) bool {
	if tx.err != nil {
		return false
	}
	ok, err := tx.txn.Delete(t.name, pk)
	if err != nil {
		tx.fail(err)
		return false
	}
	return ok
}

// Len is the number of rows.
func (t *Table[R]) Len(tx *Tx) int {
	if tx.err != nil {
		return 0
	}
	n, err := tx.txn.Len(t.name)
	if err != nil {
		tx.fail(err)
	}
	return n
}

// Scan calls fn for the rows whose primary key is in [lo, hi) ("" for hi: no end), in
// primary-key order, after from when it is set, until fn returns false. The cursor's Key
// and PK are both the primary key.
func (t *Table[R]) Scan(tx *Tx, lo, hi string, from *Cursor, fn func(c Cursor, r R) bool) {
	t.scan(tx, -1, Range{Lo: lo, Hi: hi, From: from}, fn)
}

// Each calls fn for every row, in primary-key order, until fn returns false.
func (t *Table[R]) Each(tx *Tx, fn func(pk string, r R) bool) {
	t.scan(tx, -1, Range{}, func(c Cursor, r R) bool { return fn(c.PK, r) })
}

func (t *Table[R]) scan(tx *Tx, index int, rg Range, fn func(c Cursor, r R) bool) {
	if tx.err != nil {
		return
	}
	err := tx.txn.Scan(t.name, index, rg, func(c Cursor, doc []byte) bool {
		r, ok := t.decode(tx, c.PK, doc)
		return ok && fn(c, r)
	})
	if err != nil {
		tx.fail(err)
	}
}

// Get finds the row holding key in a unique index.
func (x *Index[R]) Get(tx *Tx, key string) (pk string, r R, ok bool) {
	if tx.err != nil {
		return "", r, false
	}
	pk, doc, ok, err := tx.txn.Lookup(x.t.name, x.pos, key)
	if err != nil {
		tx.fail(err)
		return "", r, false
	}
	if !ok {
		return "", r, false
	}
	r, ok = x.t.decode(tx, pk, doc)
	return pk, r, ok
}

// Scan calls fn for the rows of an ordered index whose key is in [lo, hi) ("" for hi: no
// end), in key order, after from when it is set, until fn returns false. fn may change the
// table; a row it changes or removes before the scan reaches it is seen as it is then.
func (x *Index[R]) Scan(tx *Tx, lo, hi string, from *Cursor, fn func(c Cursor, r R) bool) {
	x.t.scan(tx, x.pos, Range{Lo: lo, Hi: hi, From: from}, fn)
}

// ScanReverse is Scan from the highest key down, before from when it is set.
func (x *Index[R]) ScanReverse(tx *Tx, lo, hi string, from *Cursor, fn func(c Cursor, r R) bool) {
	x.t.scan(tx, x.pos, Range{Lo: lo, Hi: hi, From: from, Reverse: true}, fn)
}

// Count is the number of rows holding key.
func (x *Index[R]) Count(tx *Tx, key string) int {
	if tx.err != nil {
		return 0
	}
	n, err := tx.txn.Count(x.t.name, x.pos, key)
	if err != nil {
		tx.fail(err)
	}
	return n
}
