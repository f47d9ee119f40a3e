package store

import "errors"

// Sentinel errors. Callers wrap them with context and test them with errors.Is.
var (
	// ErrNotFound: no record with that key.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the change would give two records the same unique key.
	ErrConflict = errors.New("conflict")
	// ErrReadOnly: a change was attempted inside a read transaction.
	ErrReadOnly = errors.New("write in a read-only transaction")
	// ErrClosed: the database was closed.
	ErrClosed = errors.New("store: the database is closed")
	// ErrUnavailable: the engine cannot be reached or cannot keep a change (a disk that
	// refuses writes, a database that is down). Clients should retry later: the APIs answer
	// 503.
	ErrUnavailable = errors.New("store: unavailable")
)

// ConflictError says which unique index a Put violated and which row holds the key.
type ConflictError struct {
	Table, Index, Key string
	// Holder is the primary key of the record that already has Key.
	Holder string
}

func (e *ConflictError) Error() string {
	return "store: " + e.Table + "." + e.Index + " " + e.Key + " is already held by " + e.Holder
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }
