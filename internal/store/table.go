package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"
)

// sep separates the index key from the primary key in an encoded Cursor; primary keys must
// not contain it.
const sep = "\x00"

// Table holds records of type R by primary key, with the indexes added to it before use.
//
// The records are kept as bytes (records, codec.go), each under a slot that its index
// entries hold. A record's stored version is its encoding followed by its primary key and
// its ordered indexes' keys, so that an index compares keys without decoding records; a
// key that appears in the encoding (a name that is also the primary key, a scope) is kept
// as its place there rather than a second copy.
type Table[R any] struct {
	name  string
	codec codec
	recs  records
	seed  maphash.Seed
	byPK  hashIndex // primary key hash -> slot
	// keyed is the number of ordered indexes with a key of their own (not the primary key),
	// each a key in every version.
	keyed    int
	uniques  []*Unique[R]
	ordered  []*Ordered[R]
	numbered []*Numbered[R]
	counts   []*Counter[R]
	// Writes are serialised (they hold the writer lock), so one of each scratch buffer per
	// table serves them all: uniqueKeys is what Put learns of a record's unique keys, one
	// per unique index; enc and vbuf hold a version being made; stay and renumber say
	// which ordered and numbered entries a Put leaves or moves.
	uniqueKeys []uniquePut
	enc        encoder
	vbuf       []byte
	stay       []bool
	renumber   []bool
	// undo holds, newest last, what undoes this table's changes in the open write
	// transaction (Tx.undo says in which order tables undo theirs).
	undo []undoEntry[R]
	// readAhead keeps what Put reads ahead of its lookups, so that the reads are not
	// compiled away.
	readAhead uint64
}

// undoEntry undoes one change: the record under pk goes, and old comes back if it existed.
type undoEntry[R any] struct {
	pk      string
	old     R
	existed bool
}

// NewTable adds a table of records of type R to db. R is stored field by field, by a codec
// derived from its type (codec.go): its fields must be exported.
func NewTable[R any](db *DB, name string) *Table[R] {
	t := &Table[R]{name: name, codec: recordCodec[R](), recs: newRecords(), seed: maphash.MakeSeed()}
	t.byPK.clear()
	db.mu.Lock()
	defer db.mu.Unlock()
	db.tables = append(db.tables, t)
	return t
}

func (t *Table[R]) reset() {
	t.recs = newRecords()
	t.byPK.clear()
	for _, u := range t.uniques {
		u.idx.clear()
	}
	for _, o := range t.ordered {
		o.list.clear()
	}
	for _, x := range t.numbered {
		x.groups = map[string]*sorted[numEntry]{}
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
	if _, ok := t.find(t.hash(pk), pk); ok {
		return fmt.Errorf("the key is stored twice")
	}
	t.add(pk, r)
	return nil
}

func (t *Table[R]) size() int { return t.recs.count }

func (t *Table[R]) hash(pk string) uint64 { return maphash.String(t.seed, pk) }

// find is the slot of the record under pk, whose hash is h.
func (t *Table[R]) find(h uint64, pk string) (uint32, bool) {
	return t.byPK.lookup(h, func(s uint32) bool { return t.pkOf(s) == pk })
}

// decode is the record in slot.
func (t *Table[R]) decode(slot uint32) R {
	var r R
	decode(&decoder{b: t.recs.payload(slot)[8*(1+t.keyed):]}, t.codec, unsafe.Pointer(&r))
	return r
}

// A version's payload starts with its keys, each as an offset into the payload and a length
// (32 bits each): the primary key first, then the key of each ordered index that has one
// of its own (a length of noKey: the index leaves the record out). The record's encoding
// follows, then the keys that are not in it. An index reads a key in one step, without
// decoding the record.
const noKey = ^uint32(0)

// version builds, in the table's buffer, the payload that stores r under pk.
func (t *Table[R]) version(pk string, r R) []byte {
	head := 8 * (1 + t.keyed)
	v := slices.Grow(t.vbuf[:0], head)[:head]
	t.enc = encoder{b: v}
	encode(&t.enc, t.codec, unsafe.Pointer(&r))
	v = t.enc.b
	if len(v) > sizeLimit {
		panic("store: a record too large to store")
	}
	rec := len(v)
	v = putKey(v, 0, head, rec, pk, true)
	for _, o := range t.ordered {
		if o.key != nil {
			k, ok := o.key(r)
			v = putKey(v, o.spec, head, rec, k, ok)
		}
	}
	t.vbuf = v
	return v
}

// minRef is the shortest key found in the record's encoding rather than appended: shorter
// ones are appended (the search would cost more than it saves).
const minRef = 4

// putKey sets the i-th key of the payload v, whose record's encoding is v[head:rec]: where
// the encoding holds the key's bytes, or appended.
func putKey(v []byte, i, head, rec int, key string, ok bool) []byte {
	at := v[8*i : 8*i+8]
	if !ok {
		binary.LittleEndian.PutUint64(at, uint64(noKey)<<32)
		return v
	}
	off := -1
	if len(key) >= minRef {
		if j := bytes.Index(v[head:rec], unsafe.Slice(unsafe.StringData(key), len(key))); j >= 0 {
			off = head + j
		}
	}
	if off < 0 {
		off = len(v)
		v = append(v, key...)
		at = v[8*i : 8*i+8]
	}
	binary.LittleEndian.PutUint32(at, uint32(off))
	binary.LittleEndian.PutUint32(at[4:], uint32(len(key)))
	return v
}

// versionKey is the i-th key of a payload (0: the primary key), a string that shares the
// payload's bytes.
func versionKey(p []byte, i int) (string, bool) {
	off, n := binary.LittleEndian.Uint32(p[8*i:]), binary.LittleEndian.Uint32(p[8*i+4:])
	if n == noKey {
		return "", false
	}
	if n == 0 {
		return "", true
	}
	return unsafe.String(&p[off], n), true
}

// pkOf is the primary key of the record in slot.
func (t *Table[R]) pkOf(slot uint32) string {
	pk, _ := versionKey(t.recs.payload(slot), 0)
	return pk
}

// Len is the number of records.
func (t *Table[R]) Len(tx *Tx) int { return t.recs.count }

// Get returns the record with primary key pk. It is the caller's: its maps and slices are
// its own, and its strings never change.
func (t *Table[R]) Get(tx *Tx, pk string) (R, bool) {
	slot, ok := t.find(t.hash(pk), pk)
	if !ok {
		var zero R
		return zero, false
	}
	return t.decode(slot), true
}

// Put stores r under pk, replacing any record there. It fails with a *ConflictError when
// a unique index key of r is held by another record. What Put stores is a copy: the caller
// may change r's maps and slices afterwards.
//
// A Put derives each index key of r once, and changes an index only where the record's key
// changed: a record put again with the same keys (a finisher, a label change) leaves its
// index entries as they were.
func (t *Table[R]) Put(tx *Tx, pk string, r R) error {
	if !tx.writable {
		return ErrReadOnly
	}
	if strings.Contains(pk, sep) {
		return fmt.Errorf("store: primary key %q contains NUL", pk)
	}
	hpk := t.hash(pk)
	put := t.uniqueKeys
	for i, u := range t.uniques {
		k, ok := u.key(r)
		put[i] = uniquePut{ok: ok, k: k}
		if ok {
			put[i].h = u.hash(k)
		}
	}
	// Each lookup below reads a place of a large index that is seldom in the cache. Read
	// together first, they wait for memory once rather than once each.
	ahead := t.byPK.touch(hpk)
	for i, u := range t.uniques {
		if put[i].ok {
			ahead += u.idx.touch(put[i].h)
		}
	}
	t.readAhead = ahead
	slot, existed := t.find(hpk, pk)
	for i, u := range t.uniques {
		if !put[i].ok {
			continue
		}
		holder, taken, kept := u.check(put[i].h, put[i].k, slot, existed)
		if taken {
			return &ConflictError{Table: t.name, Index: u.name, Key: put[i].k, Holder: strings.Clone(t.pkOf(holder))}
		}
		put[i].kept = kept
	}
	var old R
	if existed {
		old = t.decode(slot)
	}
	payload := t.version(pk, r)
	if !existed {
		slot = t.recs.newSlot()
		t.byPK.add(hpk, slot)
	}
	t.replace(slot, old, existed, r, payload)
	if tx.logged {
		tx.record(t, pk, t.decode(slot))
	}
	t.logUndo(tx, pk, old, existed)
	t.recs.compact()
	return nil
}

// uniquePut is what Put learned of r in one unique index.
type uniquePut struct {
	k  string // r's key
	h  uint64 // its hash
	ok bool   // r is indexed
	// kept: the record's slot already sits under h; nothing changes.
	kept bool
}

// replace writes payload (r's version) to slot, which held old if it existed, and moves
// the record in every index, after Put has filled t.uniqueKeys. Entries leave an ordered index
// while the old version (whose keys they are found by) is still there, and come in once
// the new one is.
func (t *Table[R]) replace(slot uint32, old R, existed bool, r R, payload []byte) {
	for i, u := range t.uniques {
		if p := t.uniqueKeys[i]; !p.kept && existed {
			if k, ok := u.key(old); ok {
				u.idx.remove(u.hash(k), slot)
			}
		}
	}
	t.stay = slices.Grow(t.stay[:0], len(t.ordered))[:len(t.ordered)]
	if existed {
		for i, o := range t.ordered {
			if o.spec == 0 {
				t.stay[i] = true // the primary key, which stays
				continue
			}
			k, ok := versionKey(payload, o.spec)
			ko, oko := versionKey(t.recs.payload(slot), o.spec)
			t.stay[i] = ok && oko && k == ko
			if oko && !t.stay[i] {
				o.remove(slot)
			}
		}
	} else {
		clear(t.stay)
	}
	t.renumber = slices.Grow(t.renumber[:0], len(t.numbered))[:len(t.numbered)]
	for i, x := range t.numbered {
		g, n, ok := x.key(r)
		t.renumber[i] = ok
		if existed {
			if og, on, ook := x.key(old); ook {
				if ok && og == g && on == n {
					t.renumber[i] = false
				} else {
					x.remove(og, numEntry{n: on, slot: slot})
				}
			}
		}
	}
	t.recs.write(slot, payload)
	for i, o := range t.ordered {
		if !t.stay[i] && o.holds(slot) {
			o.put(slot)
		}
	}
	for i, x := range t.numbered {
		if t.renumber[i] {
			g, n, _ := x.key(r)
			x.put(g, numEntry{n: n, slot: slot})
		}
	}
	for i, u := range t.uniques {
		if p := t.uniqueKeys[i]; !p.kept && p.ok {
			u.idx.add(p.h, slot)
		}
	}
	for _, c := range t.counts {
		k, ok := c.key(r)
		if existed {
			if ko, oko := c.key(old); oko {
				if ok && ko == k {
					continue
				}
				c.down(ko)
			}
		}
		if ok {
			c.up(k)
		}
	}
}

// add stores r under pk, which holds no record, and indexes it: a load, or an undo.
func (t *Table[R]) add(pk string, r R) {
	payload := t.version(pk, r)
	slot := t.recs.newSlot()
	t.byPK.add(t.hash(pk), slot)
	t.recs.write(slot, payload)
	for _, u := range t.uniques {
		if k, ok := u.key(r); ok {
			u.idx.add(u.hash(k), slot)
		}
	}
	for _, o := range t.ordered {
		if o.holds(slot) {
			o.put(slot)
		}
	}
	for _, x := range t.numbered {
		if g, n, ok := x.key(r); ok {
			x.put(g, numEntry{n: n, slot: slot})
		}
	}
	for _, c := range t.counts {
		if k, ok := c.key(r); ok {
			c.up(k)
		}
	}
}

// remove takes the record r, in slot under the primary key whose hash is hpk, out of
// every index and frees its slot.
func (t *Table[R]) remove(hpk uint64, slot uint32, r R) {
	for _, u := range t.uniques {
		if k, ok := u.key(r); ok {
			u.idx.remove(u.hash(k), slot)
		}
	}
	for _, o := range t.ordered {
		if o.holds(slot) {
			o.remove(slot)
		}
	}
	for _, x := range t.numbered {
		if g, n, ok := x.key(r); ok {
			x.remove(g, numEntry{n: n, slot: slot})
		}
	}
	for _, c := range t.counts {
		if k, ok := c.key(r); ok {
			c.down(k)
		}
	}
	t.byPK.remove(hpk, slot)
	t.recs.drop(slot)
}

// Each visits every record in no particular order until fn returns false. It is for work
// over a whole table, such as recovering counters after a restart. fn must not change the
// table.
func (t *Table[R]) Each(tx *Tx, fn func(pk string, r R) bool) {
	t.recs.each(func(slot uint32) bool { return fn(t.pkOf(slot), t.decode(slot)) })
}

// Delete removes the record with primary key pk and returns it.
func (t *Table[R]) Delete(tx *Tx, pk string) (R, bool, error) {
	var zero R
	if !tx.writable {
		return zero, false, ErrReadOnly
	}
	hpk := t.hash(pk)
	slot, ok := t.find(hpk, pk)
	if !ok {
		return zero, false, nil
	}
	old := t.decode(slot)
	t.remove(hpk, slot, old)
	if tx.logged {
		tx.record(t, pk, nil)
	}
	t.logUndo(tx, pk, old, true)
	t.recs.compact()
	return old, true, nil
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
	hpk := t.hash(e.pk)
	if slot, ok := t.find(hpk, e.pk); ok {
		t.remove(hpk, slot, t.decode(slot))
	}
	if e.existed {
		t.add(e.pk, e.old)
	}
	t.recs.compact()
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

// Unique is an index in which no two records share a key.
//
// It keeps a 64-bit hash of each key, not the key: index keys are often long concatenations
// (scope|role|principal) that would otherwise be stored again for each record. A lookup
// confirms a hash match by deriving the key again from the record, so it is exact.
type Unique[R any] struct {
	t    *Table[R]
	name string
	key  func(r R) (string, bool)
	seed maphash.Seed
	// collide, in tests only, replaces the hash to force keys to share one.
	collide func(string) uint64
	idx     hashIndex
}

// AddUnique adds a unique index. key returns a record's key, or false for records that are
// not indexed.
func (t *Table[R]) AddUnique(name string, key func(r R) (string, bool)) *Unique[R] {
	u := &Unique[R]{t: t, name: name, key: key, seed: maphash.MakeSeed()}
	u.idx.clear()
	t.uniques = append(t.uniques, u)
	t.uniqueKeys = make([]uniquePut, len(t.uniques))
	return u
}

func (u *Unique[R]) hash(k string) uint64 {
	if u.collide != nil {
		return u.collide(k)
	}
	return maphash.String(u.seed, k)
}

// holds reports whether the record in slot has the key k, and returns it.
func (u *Unique[R]) holds(slot uint32, k string) (R, bool) {
	r := u.t.decode(slot)
	got, ok := u.key(r)
	return r, ok && got == k
}

// check looks under h for a record other than the one in slot (if it exists) whose key is
// k (taken: holder holds k), and reports whether slot itself is under h (kept). Put uses
// it so as not to derive the record's own key again: if its slot is under h, that entry
// already serves r, whether or not its old key was k.
func (u *Unique[R]) check(h uint64, k string, slot uint32, existed bool) (holder uint32, taken, kept bool) {
	holder, taken = u.idx.lookup(h, func(s uint32) bool {
		if existed && s == slot {
			kept = true
			return false
		}
		_, held := u.holds(s, k)
		return held
	})
	if taken {
		return holder, true, false
	}
	return 0, false, kept
}

// Get returns the record holding key, and its primary key.
func (u *Unique[R]) Get(tx *Tx, key string) (pk string, r R, ok bool) {
	slot, ok := u.idx.lookup(u.hash(key), func(s uint32) bool {
		var held bool
		r, held = u.holds(s, key)
		return held
	})
	if !ok {
		var zero R
		return "", zero, false
	}
	return u.t.pkOf(slot), r, true
}

// Ordered is an index kept in key order, for range scans and paging.
type Ordered[R any] struct {
	t   *Table[R]
	key func(R) (string, bool) // nil: the primary key
	keyOrder
}

// keyOrder is an ordered index's entries: slots, in order of the record's key, then its
// primary key, both read from the slot's version. It needs nothing of the record type, so
// its comparisons are plain functions the compiler inlines.
type keyOrder struct {
	recs *records
	// spec is the place of the index's key among a version's keys (0: the primary key).
	spec int
	list sorted[uint32]
}

// holds reports whether the index has an entry for the record in slot (as its stored
// version says).
func (o *keyOrder) holds(slot uint32) bool {
	_, ok := versionKey(o.recs.payload(slot), o.spec)
	return ok
}

// entry is the index key and the primary key of the record in slot.
func (o *keyOrder) entry(slot uint32) (key, pk string) {
	p := o.recs.payload(slot)
	key, _ = versionKey(p, o.spec)
	pk, _ = versionKey(p, 0)
	return key, pk
}

// compareEntry orders entries by key, then primary key. One three-way comparison of the
// keys: index keys share long prefixes (a scope, a project) and often a length, and a <
// followed by an == would compare them twice.
func compareEntry(key, pk, key2, pk2 string) int {
	if c := strings.Compare(key, key2); c != 0 {
		return c
	}
	return strings.Compare(pk, pk2)
}

// compareTo orders the entry of slot against the entry (key, pk). It reads the slot's
// primary key only when the keys are equal.
func (o *keyOrder) compareTo(slot uint32, key, pk string) int {
	p := o.recs.payload(slot)
	k, _ := versionKey(p, o.spec)
	if c := strings.Compare(k, key); c != 0 || o.spec == 0 {
		return c
	}
	kpk, _ := versionKey(p, 0)
	return strings.Compare(kpk, pk)
}

// put adds the record in slot, whose version is written; remove takes it out, while its
// version is still the one it was indexed by. Each reads the slot's key once, and
// compares the entries it passes with it.
func (o *keyOrder) put(slot uint32) {
	key, pk := o.entry(slot)
	o.list.put(slot, func(s uint32) int { return o.compareTo(s, key, pk) },
		func(f string) int { return o.compareFence(f, key, pk) })
}

func (o *keyOrder) remove(slot uint32) {
	key, pk := o.entry(slot)
	o.list.remove(func(s uint32) int { return o.compareTo(s, key, pk) },
		func(f string) int { return o.compareFence(f, key, pk) })
}

// seek is the place of the first entry not before (key, pk).
func (o *keyOrder) seek(key, pk string) pos {
	return o.list.seek(func(s uint32) int { return o.compareTo(s, key, pk) },
		func(f string) int { return o.compareFence(f, key, pk) })
}

// fenceOf is the list's fence for the entry of slot: its entry as one string, the key and
// the primary key joined by sep (which neither holds), so that fences order as entries do;
// the primary key alone in primary key order. A copy: the version's bytes move when its
// chunk of records is compacted.
func (o *keyOrder) fenceOf(slot uint32) string {
	key, pk := o.entry(slot)
	if o.spec == 0 {
		return strings.Clone(key)
	}
	return key + sep + pk
}

// compareFence orders a fence against the entry (key, pk), as compareTo orders a slot's.
func (o *keyOrder) compareFence(fence, key, pk string) int {
	if o.spec == 0 {
		return strings.Compare(fence, key)
	}
	// The fence's key is key exactly when sep follows key's bytes; else the fence orders
	// as its key does against key (sep sorts before every byte of a key).
	if n := len(key); len(fence) > n && fence[n] == sep[0] && fence[:n] == key {
		return strings.Compare(fence[n+1:], pk)
	}
	return strings.Compare(fence, key)
}

// AddOrdered adds an ordered index. key returns false for records that are not indexed.
// Index keys must not contain NUL.
func (t *Table[R]) AddOrdered(key func(R) (string, bool)) *Ordered[R] {
	o := &Ordered[R]{t: t, key: key, keyOrder: keyOrder{recs: &t.recs}}
	if key != nil {
		t.keyed++
		o.spec = t.keyed
	}
	o.list.fence = o.fenceOf
	t.ordered = append(t.ordered, o)
	return o
}

// AddPKOrder adds an index of the records in primary key order, for lists by key prefix.
func (t *Table[R]) AddPKOrder() *Ordered[R] { return t.AddOrdered(nil) }

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
// come after the cursor (if not nil), until fn returns false. fn must not change the
// table.
func (o *Ordered[R]) Scan(tx *Tx, lo, hi string, after *Cursor, fn func(c Cursor, r R) bool) {
	key, pk := lo, ""
	if after != nil && compareEntry(after.Key, after.PK+sep, lo, "") >= 0 {
		key, pk = after.Key, after.PK+sep // the smallest entry after the cursor's
	}
	o.list.ascend(o.seek(key, pk), func(s uint32) bool {
		k, p := o.entry(s)
		if k >= hi {
			return false
		}
		return fn(Cursor{Key: k, PK: p}, o.t.decode(s))
	})
}

// ScanBackward visits, newest key first, the entries whose index key k satisfies
// lo <= k < hi and that are at or before the cursor, until fn returns false: what comes
// before a position, for a list's previous page. fn must not change the table.
func (o *Ordered[R]) ScanBackward(tx *Tx, lo, hi string, atOrBefore Cursor, fn func(c Cursor, r R) bool) {
	// The first entry after the cursor's: every entry before it is at or before the cursor.
	o.list.descend(o.seek(atOrBefore.Key, atOrBefore.PK+sep), func(s uint32) bool {
		k, p := o.entry(s)
		if k < lo {
			return false
		}
		if k >= hi {
			return true
		}
		return fn(Cursor{Key: k, PK: p}, o.t.decode(s))
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

func (c *Counter[R]) up(k string) {
	if n, ok := c.n[k]; ok {
		c.n[k] = n + 1
		return
	}
	c.n[strings.Clone(k)] = 1 // k may share a version's bytes: the count keeps its own
}

func (c *Counter[R]) down(k string) {
	if c.n[k]--; c.n[k] <= 0 {
		delete(c.n, k)
	}
}
