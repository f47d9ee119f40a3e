package store

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strings"
	"unique"

	"github.com/google/btree"
)

// sep separates the index key from the primary key in an encoded Cursor; primary keys must
// not contain it.
const sep = "\x00"

// Table holds records of type R by primary key, with the indexes added to it before use.
type Table[R any] struct {
	name  string
	clone func(R) R
	// canonical, when set, rewrites a record as Put stores it or it is loaded from disk (to
	// share repeated strings); it must not change what the record means.
	canonical func(R) R
	rows      map[string]R
	uniques   []*Unique[R]
	ordered   []*Ordered[R]
	counts    []*Counter[R]
}

// NewTable adds a table to db. clone, when not nil, deep-copies a record; it is needed when
// R holds maps, slices or pointers.
func NewTable[R any](db *DB, name string, clone func(R) R) *Table[R] {
	t := &Table[R]{name: name, clone: clone, rows: map[string]R{}}
	db.mu.Lock()
	defer db.mu.Unlock()
	db.tables = append(db.tables, t)
	return t
}

func (t *Table[R]) copy(r R) R {
	if t.clone == nil {
		return r
	}
	return t.clone(r)
}

func (t *Table[R]) reset() {
	t.rows = map[string]R{}
	for _, u := range t.uniques {
		u.clear()
	}
	for _, o := range t.ordered {
		o.tree.Clear(false)
	}
	for _, c := range t.counts {
		c.n = map[string]int{}
	}
}

func (t *Table[R]) tableName() string { return t.name }

// encode is the record as the disk keeps it. JSON: readable with any tool, and tolerant of
// fields added later.
func (t *Table[R]) encode(record any) ([]byte, error) { return json.Marshal(record.(R)) }

func (t *Table[R]) load(pk string, value []byte) error {
	var r R
	if err := json.Unmarshal(value, &r); err != nil {
		return err
	}
	if t.canonical != nil {
		r = t.canonical(r)
	}
	t.rows[pk] = r
	t.index(pk, r)
	return nil
}

func (t *Table[R]) size() int { return len(t.rows) }

// share returns s as one copy that equal strings share, through unique.Make, whose table
// forgets values nobody holds a handle to: records made around the same time share their
// repeated strings, and nothing is kept for values no longer in use.
func share(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// Len is the number of records.
func (t *Table[R]) Len(tx *Tx) int { return len(t.rows) }

// Get returns a copy of the record with primary key pk.
func (t *Table[R]) Get(tx *Tx, pk string) (R, bool) {
	r, ok := t.rows[pk]
	if !ok {
		return r, false
	}
	return t.copy(r), true
}

// Put stores a copy of r under pk, replacing any record there. It fails with a
// *ConflictError when a unique index key of r is held by another record.
func (t *Table[R]) Put(tx *Tx, pk string, r R) error {
	if !tx.writable {
		return ErrReadOnly
	}
	if strings.Contains(pk, sep) {
		return fmt.Errorf("store: primary key %q contains NUL", pk)
	}
	for _, u := range t.uniques {
		if k, ok := u.key(r); ok {
			if holder, taken := u.holder(k); taken && holder != pk {
				return &ConflictError{Table: t.name, Index: u.name, Key: k, Holder: holder}
			}
		}
	}
	old, existed := t.rows[pk]
	if existed {
		t.unindex(pk, old)
	}
	// The key is kept in the table and its indexes: a copy, so that a key cut from a
	// request's path does not keep the whole path alive.
	pk = strings.Clone(pk)
	r = t.copy(r)
	if t.canonical != nil {
		r = t.canonical(r)
	}
	t.rows[pk] = r
	t.index(pk, r)
	if tx.logged {
		tx.record(t, pk, r)
	}
	tx.onRollback(func() {
		t.unindex(pk, r)
		delete(t.rows, pk)
		if existed {
			t.rows[pk] = old
			t.index(pk, old)
		}
	})
	return nil
}

// Each visits every record in no particular order until fn returns false. It is for work
// over a whole table, such as recovering counters after a restart.
func (t *Table[R]) Each(tx *Tx, fn func(pk string, r R) bool) {
	for pk, r := range t.rows {
		if !fn(pk, t.copy(r)) {
			return
		}
	}
}

// Delete removes the record with primary key pk and returns it.
func (t *Table[R]) Delete(tx *Tx, pk string) (R, bool, error) {
	var zero R
	if !tx.writable {
		return zero, false, ErrReadOnly
	}
	old, ok := t.rows[pk]
	if !ok {
		return zero, false, nil
	}
	t.unindex(pk, old)
	delete(t.rows, pk)
	if tx.logged {
		tx.record(t, pk, nil)
	}
	tx.onRollback(func() {
		t.rows[pk] = old
		t.index(pk, old)
	})
	return t.copy(old), true, nil
}

// index adds r, stored under pk, to every index. t.rows[pk] must already be r.
func (t *Table[R]) index(pk string, r R) {
	for _, u := range t.uniques {
		if k, ok := u.key(r); ok {
			u.add(u.hash(k), pk)
		}
	}
	for _, o := range t.ordered {
		if k, ok := o.keyOf(pk, r); ok {
			o.tree.ReplaceOrInsert(entry{key: k, pk: pk})
		}
	}
	for _, c := range t.counts {
		if k, ok := c.key(r); ok {
			c.n[k]++
		}
	}
}

func (t *Table[R]) unindex(pk string, r R) {
	for _, u := range t.uniques {
		if k, ok := u.key(r); ok {
			u.remove(u.hash(k), pk)
		}
	}
	for _, o := range t.ordered {
		if k, ok := o.keyOf(pk, r); ok {
			o.tree.Delete(entry{key: k, pk: pk})
		}
	}
	for _, c := range t.counts {
		if k, ok := c.key(r); ok {
			if c.n[k]--; c.n[k] <= 0 {
				delete(c.n, k)
			}
		}
	}
}

// Unique is an index in which no two records share a key.
//
// It keeps a 64-bit hash of each key, not the key: index keys are often long concatenations
// (scope|role|principal) that would otherwise cost an allocation per record. A lookup
// confirms a hash match by deriving the key again from the record, so it is exact; records
// whose keys share a hash (rare) wait in a short list.
type Unique[R any] struct {
	t    *Table[R]
	name string
	key  func(R) (string, bool)
	seed maphash.Seed
	// collide, in tests only, replaces the hash to force keys to share one.
	collide func(string) uint64
	slots   map[uint64]string   // key hash -> primary key
	more    map[uint64][]string // key hash -> further primary keys whose keys share it
}

// AddUnique adds a unique index. key returns false for records that are not indexed.
func (t *Table[R]) AddUnique(name string, key func(R) (string, bool)) *Unique[R] {
	u := &Unique[R]{t: t, name: name, key: key, seed: maphash.MakeSeed()}
	u.clear()
	t.uniques = append(t.uniques, u)
	return u
}

func (u *Unique[R]) clear() {
	u.slots, u.more = map[uint64]string{}, map[uint64][]string{}
}

func (u *Unique[R]) hash(k string) uint64 {
	if u.collide != nil {
		return u.collide(k)
	}
	return maphash.String(u.seed, k)
}

// holder is the primary key of the record whose key is k.
func (u *Unique[R]) holder(k string) (string, bool) {
	h := u.hash(k)
	if pk, ok := u.slots[h]; ok && u.keyOf(pk) == k {
		return pk, true
	}
	for _, pk := range u.more[h] {
		if u.keyOf(pk) == k {
			return pk, true
		}
	}
	return "", false
}

func (u *Unique[R]) keyOf(pk string) string {
	r, ok := u.t.rows[pk]
	if !ok {
		return ""
	}
	k, _ := u.key(r)
	return k
}

func (u *Unique[R]) add(h uint64, pk string) {
	if _, taken := u.slots[h]; !taken {
		u.slots[h] = pk
		return
	}
	u.more[h] = append(u.more[h], pk)
}

func (u *Unique[R]) remove(h uint64, pk string) {
	if u.slots[h] == pk {
		if rest := u.more[h]; len(rest) > 0 {
			u.slots[h] = rest[0]
			if len(rest) == 1 {
				delete(u.more, h)
			} else {
				u.more[h] = rest[1:]
			}
		} else {
			delete(u.slots, h)
		}
		return
	}
	rest := u.more[h]
	for i, p := range rest {
		if p == pk {
			rest = append(rest[:i:i], rest[i+1:]...)
			break
		}
	}
	if len(rest) == 0 {
		delete(u.more, h)
	} else {
		u.more[h] = rest
	}
}

// Get returns the record holding key.
func (u *Unique[R]) Get(tx *Tx, key string) (pk string, r R, ok bool) {
	pk, ok = u.holder(key)
	if !ok {
		return "", r, false
	}
	r, ok = u.t.Get(tx, pk)
	return pk, r, ok
}

// Ordered is an index kept in key order, for range scans and paging.
type Ordered[R any] struct {
	t    *Table[R]
	key  func(R) (string, bool) // nil: the primary key
	tree *btree.BTreeG[entry]
}

func (o *Ordered[R]) keyOf(pk string, r R) (string, bool) {
	if o.key == nil {
		return pk, true
	}
	return o.key(r)
}

// entry is one record's place in an ordered index. Both strings are usually the record's
// own (a field and the primary key), so an entry costs no allocation of its own.
type entry struct{ key, pk string }

func (a entry) less(b entry) bool { return a.key < b.key || a.key == b.key && a.pk < b.pk }

// AddOrdered adds an ordered index. key returns false for records that are not indexed.
// Index keys must not contain NUL.
func (t *Table[R]) AddOrdered(key func(R) (string, bool)) *Ordered[R] {
	o := &Ordered[R]{t: t, key: key, tree: btree.NewG(32, entry.less)}
	t.ordered = append(t.ordered, o)
	return o
}

// AddPKOrder adds an index of the records in primary key order, for lists by key prefix.
// It derives nothing from the records, so it costs no allocation per change.
func (t *Table[R]) AddPKOrder() *Ordered[R] { return t.AddOrdered(nil) }

// padded appends n in decimal, zero-padded to 20 digits, so that numbers sort as strings.
func padded(b []byte, n uint64) []byte {
	var d [20]byte
	for i := len(d) - 1; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[:]...)
}

// joinPadded is prefix + "|" + padded(n), in one allocation.
func joinPadded(prefix string, n uint64) string {
	var sb strings.Builder
	sb.Grow(len(prefix) + 21)
	sb.WriteString(prefix)
	sb.WriteByte('|')
	var d [20]byte
	sb.Write(padded(d[:0], n))
	return sb.String()
}

// Cursor is a position in an ordered index: the index key and primary key of an entry.
type Cursor struct{ Key, PK string }

// String encodes the cursor; ParseCursor reverses it.
func (c Cursor) String() string { return c.Key + sep + c.PK }

// ParseCursor decodes Cursor.String.
func ParseCursor(s string) (Cursor, bool) {
	k, pk, ok := strings.Cut(s, sep)
	return Cursor{Key: k, PK: pk}, ok
}

// Scan visits, in order, the entries whose index key k satisfies lo <= k < hi and that
// come after the cursor (if not nil), until fn returns false.
func (o *Ordered[R]) Scan(tx *Tx, lo, hi string, after *Cursor, fn func(c Cursor, r R) bool) {
	start := entry{key: lo}
	if after != nil {
		if c := (entry{key: after.Key, pk: after.PK + sep}); !c.less(start) {
			start = c // the smallest entry after the cursor's
		}
	}
	o.tree.AscendGreaterOrEqual(start, func(e entry) bool {
		if e.key >= hi {
			return false
		}
		r, ok := o.t.rows[e.pk]
		if !ok {
			return true
		}
		return fn(Cursor{Key: e.key, PK: e.pk}, o.t.copy(r))
	})
}

// Counter counts records by a key, for limits such as "at most N per subscription".
type Counter[R any] struct {
	key func(R) (string, bool)
	n   map[string]int
}

// AddCounter adds a counting index. key returns false for records that are not counted.
func (t *Table[R]) AddCounter(key func(R) (string, bool)) *Counter[R] {
	c := &Counter[R]{key: key, n: map[string]int{}}
	t.counts = append(t.counts, c)
	return c
}

// Count returns how many records have the key.
func (c *Counter[R]) Count(tx *Tx, key string) int { return c.n[key] }
