// Package store keeps understudy's state: tables of records with unique, ordered and
// counting indexes, changed only inside transactions.
//
// A write transaction (DB.Update) holds the one writer lock for its whole duration, so a
// read-check-write inside it is atomic: that is how "a name can never be taken twice" and
// "compare the fingerprint, then set" hold under racing requests. If the function returns an
// error every change it made is undone. Read transactions (DB.View) share the lock.
//
// Records are values: Put stores a copy and Get returns a copy, so no caller can change
// stored state behind the store's back. The copy the store keeps is bytes (each record type
// has a Codec), in large chunks that hold no pointers: the garbage collector does not scan
// what is stored, so its collections stay short however much the store holds. The store
// knows nothing about HTTP, Echo or generated wire types; the API packages convert between
// records and wire types.
//
// The shape (transactions, primary keys, index handles, no pointers out) is what a durable
// backend needs as well, so one can follow behind the same methods.
package store
