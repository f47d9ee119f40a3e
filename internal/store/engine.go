package store

import (
	"context"
	"strings"
)

// Engine is where rows live. Memory (memory.go, optionally durable through a Backend) and
// PostgreSQL (internal/store/postgres) implement it; nothing above the store knows which one
// runs.
//
// A row is a primary key, a document (the JSON the table's typed layer encoded) and the
// keys it has in the table's indexes. The engine keeps the indexes; it never looks inside a
// document.
type Engine interface {
	// Define declares a table before use: its indexes, in the order Put's keys refer to
	// them, and how to find a stored document's keys again (for an engine that rebuilds
	// its indexes from the documents, as memory does when it loads from disk).
	Define(t TableDef) error
	// Run runs fn in a transaction. A Write transaction's changes become visible to others
	// all at once when fn returns nil, and not at all when it returns an error. An engine
	// may run fn again after a conflict with a transaction of another process (PostgreSQL's
	// serialization failures), so fn must have no effect outside the transaction but on
	// its own variables.
	Run(ctx context.Context, mode Mode, fn func(Txn) error) error
	// Close releases what the engine holds (files, connections); later transactions fail.
	Close() error
}

// Mode is what a transaction may do.
type Mode int

const (
	// Read transactions see one consistent state and change nothing.
	Read Mode = iota
	// Write transactions are serialisable: each behaves as if it ran alone.
	Write
	// Wipe is a Write transaction that starts by emptying every table but the kept ones
	// (a reset).
	Wipe
)

// TableDef describes a table to an engine.
type TableDef struct {
	Name    string
	Indexes []IndexDef
	// Sorted: the engine keeps the rows in primary-key order too, for Scan in that order
	// on a request's path. Any table can be scanned in that order; one not Sorted is
	// sorted for the scan.
	Sorted bool
	// Dictionary: the memory engine compresses the rows against a dictionary (the first
	// row it kept), for a table of very many small rows that share their member names and
	// most values: it takes a third of a role assignment's size, and twice the time to
	// compress (s2's dictionary encoder has no assembly).
	Dictionary bool
	// Kept: a Wipe leaves the table's rows as they are. For what a reset does not touch:
	// the sandbox's own controls (its clock, fault rules, journal, leases).
	Kept bool
	// Keys returns the index keys of a stored document (nil when the table has no
	// indexes).
	Keys func(doc []byte) ([]Key, error)
}

// IndexDef describes one index of a table.
type IndexDef struct {
	Name string
	Kind IndexKind
}

// IndexKind says what an index answers.
type IndexKind int

const (
	// Unique indexes find the one row holding a key; Put refuses a second.
	Unique IndexKind = iota
	// Ordered indexes list rows in the order of their keys, then of their primary keys.
	Ordered
	// Counted indexes only count the rows holding a key.
	Counted
)

// Key is a row's key in one index (Index: the position in TableDef.Indexes). A row absent
// from an index has no Key for it. Keys hold no NUL byte (it separates a cursor's key from
// its primary key).
type Key struct {
	Index int
	Key   string
}

// Txn is a transaction as an engine runs it. Its methods report the engine's own failures
// (a lost connection); the typed layer above turns those into the transaction's error.
// The documents Get, Lookup and Scan give are only read: an engine may give the bytes it
// keeps.
type Txn interface {
	Get(table, pk string) (doc []byte, ok bool, err error)
	// Put stores doc under pk, with keys in place of what the row had. It fails with a
	// *ConflictError, changing nothing, when a unique key is held by another row. The
	// engine may keep doc itself: the caller does not change it afterwards.
	Put(table, pk string, doc []byte, keys []Key) error
	// Delete removes the row under pk and reports whether there was one.
	Delete(table, pk string) (ok bool, err error)
	// Lookup finds the row holding key in a unique index.
	Lookup(table string, index int, key string) (pk string, doc []byte, ok bool, err error)
	// Scan calls fn for the rows of an ordered index (index -1: the primary key order) in
	// r, until fn returns false. fn may use the transaction.
	Scan(table string, index int, r Range, fn func(c Cursor, doc []byte) bool) error
	// Count is the number of rows holding key in a counted or ordered index.
	Count(table string, index int, key string) (int, error)
	// Len is the number of rows in the table.
	Len(table string) (int, error)
	// Next returns the next number of the named sequence (1, 2, ...), never twice, even
	// when the transaction rolls back.
	Next(sequence string) (uint64, error)
}

// Range is a part of an ordered index: the entries whose key is in [Lo, Hi), in key order
// (Reverse: from the highest), starting after From when it is set (Reverse: before it).
type Range struct {
	Lo, Hi  string
	From    *Cursor
	Reverse bool
}

// Cursor is a position in an ordered index: an entry's key and its row's primary key.
type Cursor struct {
	Key, PK string
}

// cursorSep separates a cursor's key from its primary key in String; keys must not hold it.
const cursorSep = "\x00"

// String is the cursor as a page token may carry it (ParseCursor reads it back).
func (c Cursor) String() string { return c.Key + cursorSep + c.PK }

// ParseCursor reads a cursor written by String.
func ParseCursor(s string) (Cursor, bool) {
	key, pk, ok := strings.Cut(s, cursorSep)
	return Cursor{Key: key, PK: pk}, ok
}

// compare orders cursors as the index does.
func (c Cursor) compare(o Cursor) int {
	switch {
	case c.Key < o.Key:
		return -1
	case c.Key > o.Key:
		return 1
	case c.PK < o.PK:
		return -1
	case c.PK > o.PK:
		return 1
	}
	return 0
}
