package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
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
	canonical func(R, *sharer) R
	// shared is canonical's memory of the strings it shared last.
	shared sharer
	rows   map[string]R
	// madeKeys: every primary key Put is given is a string made for the call (by a Key
	// method, or together with strings the record keeps, as compute's keyAndID and the
	// operations engine's newKey make them), never a piece of a longer one such as a
	// request's path, so Put keeps it without a copy.
	madeKeys bool
	// keyIn, when set, returns the record's own copy of its primary key (as canonical
	// leaves it), if it holds one: Put keeps that string as the key rather than a second
	// copy.
	keyIn    func(R) string
	uniques  []*Unique[R]
	ordered  []*Ordered[R]
	numbered []*Numbered[R]
	counts   []*Counter[R]
	// uput is Put's scratch, one per unique index, and kbuf and kbuf2 hold unique keys as
	// writes derive them. Writes are serialised (they hold the writer lock), so one of each
	// per table serves them all.
	uput        []uniquePut
	kbuf, kbuf2 []byte
	// undo holds, newest last, what undoes this table's changes in the open write
	// transaction (Tx.undo says in which order tables undo theirs).
	undo []undoEntry[R]
}

// undoEntry undoes one change: the record under pk goes, and old comes back if it existed.
type undoEntry[R any] struct {
	pk      string
	old     R
	existed bool
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
	for _, x := range t.numbered {
		x.clear()
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
		r = t.canonical(r, &t.shared)
	}
	if t.keyIn != nil && t.keyIn(r) == pk {
		pk = t.keyIn(r) // one string for both, as Put keeps them
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

// sharer shares strings as share does, remembering the string it shared last for each of
// a record's fields: records put one after another mostly repeat their neighbour's project,
// scope and enumerations, and comparing with it is cheaper than unique.Make's lookup. Each
// table has its own, used under the writer lock (or while loading, alone).
type sharer struct{ last [12]string }

// share is share(v), for the field-th field of a record.
func (s *sharer) share(field int, v string) string {
	if v != s.last[field] {
		s.last[field] = share(v)
	}
	return s.last[field]
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
//
// A Put derives each index key of r once, and changes an index only where the record's key
// changed: a record put again with the same keys (a finisher, a label change) leaves its
// index entries, and the string that stores its key, as they were.
func (t *Table[R]) Put(tx *Tx, pk string, r R) error {
	if !tx.writable {
		return ErrReadOnly
	}
	if strings.Contains(pk, sep) {
		return fmt.Errorf("store: primary key %q contains NUL", pk)
	}
	// stored is the key string the record already has in the table, when a unique index
	// finds it under r's key: the table keeps using it.
	stored, found := "", false
	put := t.uput
	for i, u := range t.uniques {
		k, ok := t.uniqueKey(u, r)
		put[i] = uniquePut{ok: ok}
		if !ok {
			continue
		}
		h := u.hashBytes(k)
		holder, taken, self, kept := u.check(h, k, pk)
		if taken {
			return &ConflictError{Table: t.name, Index: u.name, Key: string(k), Holder: holder}
		}
		put[i].h, put[i].kept = h, kept
		if kept {
			stored, found = self, true
		}
	}
	old, existed := t.rows[pk]
	r = t.copy(r)
	if t.canonical != nil {
		r = t.canonical(r, &t.shared)
	}
	switch {
	case found:
		pk = stored
	case t.keyIn != nil && t.keyIn(r) == pk:
		pk = t.keyIn(r)
	case !t.madeKeys:
		// The key is kept in the table and its indexes: a copy, so that a key cut from a
		// request's path does not keep the whole path alive.
		pk = strings.Clone(pk)
	}
	t.rows[pk] = r
	t.reindex(pk, old, existed, r, found)
	if tx.logged {
		tx.record(t, pk, r)
	}
	t.logUndo(tx, pk, old, existed)
	return nil
}

// uniquePut is what Put learned of r in one unique index.
type uniquePut struct {
	h  uint64 // the hash of r's key
	ok bool   // r is indexed
	// kept: the record already sits under h, under the stored key; nothing changes.
	kept bool
}

// reindex moves the record under pk from old (if it existed) to r in every index, after
// Put has filled t.uput. same says pk is the string the old record's entries hold.
func (t *Table[R]) reindex(pk string, old R, existed bool, r R, same bool) {
	for i, u := range t.uniques {
		p := t.uput[i]
		if p.kept {
			continue
		}
		if existed {
			if k, ok := t.uniqueKey(u, old); ok {
				u.remove(u.hashBytes(k), pk)
			}
		}
		if p.ok {
			u.add(p.h, pk)
		}
	}
	for _, o := range t.ordered {
		k, ok := o.keyOf(pk, r)
		if existed {
			ko, oko := o.keyOf(pk, old)
			if oko && ok && ko == k {
				// The entry stays where it is. In primary key order under the stored key it
				// holds these very strings, so nothing changes; else it is replaced in place
				// (one descent, not a delete and an insert), so that it keeps no string the
				// record no longer holds.
				if !same || o.key != nil {
					o.tree.ReplaceOrInsert(entry{key: k, pk: pk})
				}
				continue
			}
			if oko {
				o.tree.Delete(entry{key: ko, pk: pk})
			}
		}
		if ok {
			o.tree.ReplaceOrInsert(entry{key: k, pk: pk})
		}
	}
	for _, x := range t.numbered {
		x.reindex(pk, old, existed, r)
	}
	for _, c := range t.counts {
		k, ok := c.key(r)
		if existed {
			ko, oko := c.key(old)
			if oko && ok && ko == k {
				continue
			}
			if oko {
				if c.n[ko]--; c.n[ko] <= 0 {
					delete(c.n, ko)
				}
			}
		}
		if ok {
			c.n[k]++
		}
	}
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
	t.logUndo(tx, pk, old, true)
	return t.copy(old), true, nil
}

// logUndo notes how to undo a change to the record under pk, which was old if it existed.
func (t *Table[R]) logUndo(tx *Tx, pk string, old R, existed bool) {
	t.undo = append(t.undo, undoEntry[R]{pk: pk, old: old, existed: existed})
	tx.undo = append(tx.undo, t)
}

// undoLast undoes the table's last change. Changes are undone newest first, so the record
// under pk is still the one that change stored, if any.
func (t *Table[R]) undoLast() {
	n := len(t.undo) - 1
	e := t.undo[n]
	t.undo[n] = undoEntry[R]{} // let the old record go
	t.undo = t.undo[:n]
	if cur, ok := t.rows[e.pk]; ok {
		t.unindex(e.pk, cur)
		delete(t.rows, e.pk)
	}
	if e.existed {
		t.rows[e.pk] = e.old
		t.index(e.pk, e.old)
	}
}

// forgetUndo empties the undo entries (they hold old records), keeping the slice for the
// next transaction unless it grew large.
func (t *Table[R]) forgetUndo() {
	if cap(t.undo) > maxKeptUndo {
		t.undo = nil
		return
	}
	clear(t.undo)
	t.undo = t.undo[:0]
}

// index adds r, stored under pk, to every index. t.rows[pk] must already be r.
func (t *Table[R]) index(pk string, r R) {
	for _, u := range t.uniques {
		if k, ok := t.uniqueKey(u, r); ok {
			u.add(u.hashBytes(k), pk)
		}
	}
	for _, o := range t.ordered {
		if k, ok := o.keyOf(pk, r); ok {
			o.tree.ReplaceOrInsert(entry{key: k, pk: pk})
		}
	}
	for _, x := range t.numbered {
		x.index(pk, r)
	}
	for _, c := range t.counts {
		if k, ok := c.key(r); ok {
			c.n[k]++
		}
	}
}

func (t *Table[R]) unindex(pk string, r R) {
	for _, u := range t.uniques {
		if k, ok := t.uniqueKey(u, r); ok {
			u.remove(u.hashBytes(k), pk)
		}
	}
	for _, o := range t.ordered {
		if k, ok := o.keyOf(pk, r); ok {
			o.tree.Delete(entry{key: k, pk: pk})
		}
	}
	for _, x := range t.numbered {
		x.unindex(pk, r)
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
// whose keys share a hash (rare) wait in a short list. Keys are appended to a buffer, never
// made strings: writes derive them into the table's buffers at no allocation.
type Unique[R any] struct {
	t    *Table[R]
	name string
	key  func(b []byte, r R) ([]byte, bool)
	seed maphash.Seed
	// collide, in tests only, replaces the hash to force keys to share one.
	collide func(string) uint64
	slots   map[uint64]string   // key hash -> primary key
	more    map[uint64][]string // key hash -> further primary keys whose keys share it
}

// AddUnique adds a unique index. key appends a record's key to b and returns the result
// (appendKey builds the usual shape); it returns false for records that are not indexed.
func (t *Table[R]) AddUnique(name string, key func(b []byte, r R) ([]byte, bool)) *Unique[R] {
	u := &Unique[R]{t: t, name: name, key: key, seed: maphash.MakeSeed()}
	u.clear()
	t.uniques = append(t.uniques, u)
	t.uput = make([]uniquePut, len(t.uniques))
	return u
}

// appendKey appends parts joined by "|", growing b once.
func appendKey(b []byte, parts ...string) []byte {
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b = slices.Grow(b, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, '|')
		}
		b = append(b, p...)
	}
	return b
}

// uniqueKey derives r's key in u into the table's first buffer. The caller holds the
// writer lock, and uses the key before the next derivation.
func (t *Table[R]) uniqueKey(u *Unique[R], r R) ([]byte, bool) {
	k, ok := u.key(t.kbuf[:0], r)
	t.kbuf = k[:0]
	return k, ok
}

func (u *Unique[R]) clear() {
	u.slots, u.more = map[uint64]string{}, map[uint64][]string{}
}

// hash and hashBytes agree: maphash gives a string and its bytes the same hash.
func (u *Unique[R]) hash(k string) uint64 {
	if u.collide != nil {
		return u.collide(k)
	}
	return maphash.String(u.seed, k)
}

func (u *Unique[R]) hashBytes(k []byte) uint64 {
	if u.collide != nil {
		return u.collide(string(k))
	}
	return maphash.Bytes(u.seed, k)
}

// holder is the primary key of the record whose key is k. buf, when not nil, is scratch
// for deriving keys (a writer's); a reader derives into a buffer of its own.
func (u *Unique[R]) holder(k string, buf *[]byte) (string, bool) {
	return u.find(u.hash(k), buf, func(got []byte) bool { return string(got) == k })
}

// holderBytes is holder for a key in bytes.
func (u *Unique[R]) holderBytes(k []byte, buf *[]byte) (string, bool) {
	return u.find(u.hashBytes(k), buf, func(got []byte) bool { return bytes.Equal(got, k) })
}

// find is the primary key, among the records under hash h, of the one whose key (derived
// into buf) satisfies is.
func (u *Unique[R]) find(h uint64, buf *[]byte, is func(key []byte) bool) (string, bool) {
	if pk, ok := u.slots[h]; ok {
		if got, ok := u.keyOf(pk, buf); ok && is(got) {
			return pk, true
		}
	}
	for _, pk := range u.more[h] {
		if got, ok := u.keyOf(pk, buf); ok && is(got) {
			return pk, true
		}
	}
	return "", false
}

// keyOf derives the key of the record under pk into *buf, or a buffer of its own if buf
// is nil.
func (u *Unique[R]) keyOf(pk string, buf *[]byte) ([]byte, bool) {
	r, ok := u.t.rows[pk]
	if !ok {
		return nil, false
	}
	var b []byte
	if buf != nil {
		b = *buf
	}
	got, ok := u.key(b[:0], r)
	if buf != nil {
		*buf = got[:0]
	}
	return got, ok
}

// check looks in bucket h for a record other than pk whose key is k (taken: it holds k),
// and reports whether pk itself is in the bucket (kept) with the string stored for it
// (self). Put uses it so as not to derive pk's own key again: if pk is in the bucket its
// entry already serves r, whether or not its old key was k. Keys of others are derived
// into the table's second buffer (k is in the first). The caller holds the writer lock.
func (u *Unique[R]) check(h uint64, k []byte, pk string) (holder string, taken bool, self string, kept bool) {
	p, ok := u.slots[h]
	if !ok {
		return "", false, "", false
	}
	if p == pk {
		self, kept = p, true
	} else if got, ok := u.keyOf(p, &u.t.kbuf2); ok && bytes.Equal(got, k) {
		return p, true, "", false
	}
	if len(u.more) > 0 {
		for _, p := range u.more[h] {
			if p == pk {
				self, kept = p, true
			} else if got, ok := u.keyOf(p, &u.t.kbuf2); ok && bytes.Equal(got, k) {
				return p, true, "", false
			}
		}
	}
	return "", false, self, kept
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

// Get returns the record holding key. Inside a write transaction it derives keys into the
// table's buffer, as writes do.
func (u *Unique[R]) Get(tx *Tx, key string) (pk string, r R, ok bool) {
	pk, ok = u.holder(key, u.scratch(tx))
	if !ok {
		return "", r, false
	}
	r, ok = u.t.Get(tx, pk)
	return pk, r, ok
}

// GetBytes is Get for a key held in bytes, which it does not keep: a caller can build the
// key in a buffer on its stack instead of allocating a string per lookup.
func (u *Unique[R]) GetBytes(tx *Tx, key []byte) (pk string, r R, ok bool) {
	pk, ok = u.holderBytes(key, u.scratch(tx))
	if !ok {
		return "", r, false
	}
	r, ok = u.t.Get(tx, pk)
	return pk, r, ok
}

// scratch is the buffer a lookup derives keys into: the table's inside a write transaction
// (which holds the writer lock), else none (the lookup allocates its own).
func (u *Unique[R]) scratch(tx *Tx) *[]byte {
	if tx.writable {
		return &u.t.kbuf2
	}
	return nil
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

// less orders entries by key, then primary key. One three-way comparison of the keys: index
// keys share long prefixes (a scope, a project) and often a length, and a < followed by an
// == would compare them twice.
func (a entry) less(b entry) bool {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.pk < b.pk
}

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

// ScanBackward visits, newest key first, the entries whose index key k satisfies
// lo <= k < hi and that are at or before the cursor, until fn returns false: what comes
// before a position, for a list's previous page.
func (o *Ordered[R]) ScanBackward(tx *Tx, lo, hi string, atOrBefore Cursor, fn func(c Cursor, r R) bool) {
	o.tree.DescendLessOrEqual(entry{key: atOrBefore.Key, pk: atOrBefore.PK}, func(e entry) bool {
		if e.key < lo {
			return false
		}
		if e.key >= hi {
			return true
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
