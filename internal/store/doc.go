// Package store keeps understudy's state: tables of rows, each row a document (the JSON of
// a Go value, for an API's resources the API's own object) under a primary key, found
// through unique, ordered and counted indexes, and changed only in transactions.
//
// Table[R] is the typed layer the APIs use: it encodes R as JSON and derives each row's
// index keys from R. Below it an Engine keeps the rows and the indexes, without looking
// inside documents: Memory (memory.go), optionally written to disk through a Backend
// (durable.go, internal/store/bolt), or PostgreSQL. The store knows nothing about HTTP, Echo
// or the APIs.
//
// A write transaction (DB.Update) is serialisable: a read-check-write inside it is atomic,
// which is how "a name is never taken twice" and "compare the fingerprint, then set" hold
// under racing requests. If its function returns an error every change it made is undone.
package store
