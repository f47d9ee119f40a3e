package store

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/btree"
)

// sep separates an index key from the primary key inside ordered indexes. Keys must not
// contain it.
const sep = "\x00"

// Table holds records of type R by primary key, with the indexes added to it before use.
type Table[R any] struct {
	name    string
	clone   func(R) R
	rows    map[string]R
	uniques []*Unique[R]
	ordered []*Ordered[R]
	counts  []*Counter[R]
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
		u.keys = map[string]string{}
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
	t.rows[pk] = r
	t.index(pk, r)
	return nil
}

func (t *Table[R]) size() int { return len(t.rows) }

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
			if holder, taken := u.keys[k]; taken && holder != pk {
				return &ConflictError{Table: t.name, Index: u.name, Key: k, Holder: holder}
			}
		}
	}
	old, existed := t.rows[pk]
	if existed {
		t.unindex(pk, old)
	}
	r = t.copy(r)
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

func (t *Table[R]) index(pk string, r R) {
	for _, u := range t.uniques {
		if k, ok := u.key(r); ok {
			u.keys[k] = pk
		}
	}
	for _, o := range t.ordered {
		for _, k := range o.keys(r) {
			o.tree.ReplaceOrInsert(k + sep + pk)
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
		if k, ok := u.key(r); ok && u.keys[k] == pk {
			delete(u.keys, k)
		}
	}
	for _, o := range t.ordered {
		for _, k := range o.keys(r) {
			o.tree.Delete(k + sep + pk)
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
type Unique[R any] struct {
	t    *Table[R]
	name string
	key  func(R) (string, bool)
	keys map[string]string // index key -> primary key
}

// AddUnique adds a unique index. key returns false for records that are not indexed.
func (t *Table[R]) AddUnique(name string, key func(R) (string, bool)) *Unique[R] {
	u := &Unique[R]{t: t, name: name, key: key, keys: map[string]string{}}
	t.uniques = append(t.uniques, u)
	return u
}

// Get returns the record holding key.
func (u *Unique[R]) Get(tx *Tx, key string) (pk string, r R, ok bool) {
	pk, ok = u.keys[key]
	if !ok {
		return "", r, false
	}
	r, ok = u.t.Get(tx, pk)
	return pk, r, ok
}

// Ordered is an index kept in key order, for range scans and paging. A record may appear
// under several keys.
type Ordered[R any] struct {
	t    *Table[R]
	keys func(R) []string
	tree *btree.BTreeG[string]
}

// AddOrdered adds an ordered index. Index keys must not contain NUL.
func (t *Table[R]) AddOrdered(keys func(R) []string) *Ordered[R] {
	o := &Ordered[R]{t: t, keys: keys, tree: btree.NewG(32, func(a, b string) bool { return a < b })}
	t.ordered = append(t.ordered, o)
	return o
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
	start := lo + sep
	if after != nil && after.String() >= start {
		start = after.String() + sep // the smallest string greater than the cursor entry
	}
	o.tree.AscendGreaterOrEqual(start, func(item string) bool {
		k, pk, _ := strings.Cut(item, sep)
		if k >= hi {
			return false
		}
		if k < lo {
			return true
		}
		r, ok := o.t.rows[pk]
		if !ok {
			return true
		}
		return fn(Cursor{Key: k, PK: pk}, o.t.copy(r))
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
