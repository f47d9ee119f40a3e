// Package store keeps understudy's state: tables of records with unique, ordered, numbered
// and counting indexes, changed only inside transactions. It is a generic engine: each API
// defines its record types and tables next to its handlers.
//
// A write transaction (DB.Update) holds the one writer lock for its whole duration, so a
// read-check-write inside it is atomic: that is how "a name can never be taken twice" and
// "compare the fingerprint, then set" hold under racing requests. If the function returns an
// error every change it made is undone. Read transactions (DB.View) share the lock.
//
// Records are values: Put stores a copy and Get returns a copy, so no caller can change
// stored state behind the store's back. A record type is any struct of exported fields: the
// store derives from the type how to keep it (codec.go), as bytes in large chunks that hold
// no pointers, so the garbage collector does not scan what is stored and its collections
// stay short however much the store holds. The store knows nothing about HTTP, Echo or
// generated wire types.
//
// With a backend (DB.Open), every committed transaction is also written to disk, as JSON
// per record, before Update returns (durable.go).
package store
