package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/s2"
	"github.com/tidwall/btree"
)

// Memory is the embedded engine: rows in maps, ordered indexes in B-trees, one writer at a
// time (a write transaction holds the lock for its whole run, so a read-check-write inside
// it is atomic) and any number of readers between writes. A failed transaction is undone
// from its undo list.
//
// With a Backend (Open), every committed transaction is also written to disk before Run
// returns, and reads wait until what they saw is on disk (durable.go).
type Memory struct {
	mu     sync.RWMutex
	tables map[string]*memTable
	order  []string // table names in definition order
	seqs   map[string]uint64
	disk   *committer
	// durable is disk != nil, readable inside a transaction (which holds mu).
	durable atomic.Bool
	closed  bool
	// The running write transaction's undo list and, on disk, its changes.
	undo    []memUndo
	changes []Change
	// reader and writer are what transactions are given: one of each, made once (a value
	// made per transaction would be allocated to become a Txn).
	reader, writer *memTxn
	// packed is where a document is compressed before it is copied to a buffer of its own
	// size (compress); scratch, entry and head are where a row's keys are packed (packRow):
	// used under the write lock only.
	packed, scratch, entry, head []byte
}

type memTable struct {
	def  TableDef
	rows map[string]memRow
	pks  *btree.BTreeG[string] // the primary keys in order; nil for a table not Sorted
	idx  []*memIndex
	// dict is the s2 dictionary a Dictionary table's documents are compressed against:
	// the first document the table kept, whose member names and common values its other
	// rows repeat (an assignment's s2 copy: 417 bytes alone, 115 against another
	// assignment). It is made once (dictMade) and never changes, so every kept row decodes
	// with it; it is nil for other tables, and when that first document was too short.
	dict     *s2.Dict
	dictMade bool
}

// memRow is a stored row: its document and its index entries, packed (packRow).
type memRow struct {
	doc  []byte
	keys string
}

// A row's index entries are substrings of one string, its packed keys, so that a row
// takes one allocation for them however many indexes it is in, and the indexes hold
// nothing of their own: an ordered index's entry is its key, a NUL and the primary key
// (Cursor.String: entries sort as cursors do, keys holding no NUL), a unique or counted
// index's is its key. An entry found inside those already packed is not packed again, nor
// is the primary key: a role assignment's principal entry is the end of its scope entry, its
// subscription inside it, and its primary key the end of both (which took a third of an
// assignment's memory when each was kept apart).
//
// The packed string is the length of its header, the header, then the entries: the header
// is the number of entries, for each its index (a byte), offset and length, then the
// primary key's offset and length. Numbers are unsigned varints (encoding/binary's);
// offsets count from the end of the header.

// packRow packs the keys of a row of t with its primary key (an index's number is a byte:
// NewTable allows 255). A row in no index keeps no packed keys (""). It is called under the
// write lock: it works in m's buffers.
func (m *Memory) packRow(t *memTable, pk string, keys []Key) string {
	if len(keys) == 0 {
		return ""
	}
	// The entries in the order of the table's indexes, then the primary key, each placed
	// in the body unless the body holds it already (a table's first indexes have the
	// longest keys: a role assignment's scope entry holds the others).
	body, e := m.scratch[:0], m.entry[:0]
	place := func(e []byte) int {
		if i := bytes.Index(body, e); i >= 0 {
			return i
		}
		body = append(body, e...)
		return len(body) - len(e)
	}
	head := binary.AppendUvarint(m.head[:0], uint64(len(keys)))
	for _, k := range keys {
		e = append(e[:0], k.Key...)
		if t.idx[k.Index].kind == Ordered {
			e = append(append(e, 0), pk...)
		}
		head = append(head, byte(k.Index))
		head = binary.AppendUvarint(head, uint64(place(e)))
		head = binary.AppendUvarint(head, uint64(len(e)))
	}
	e = append(e[:0], pk...)
	head = binary.AppendUvarint(head, uint64(place(e)))
	head = binary.AppendUvarint(head, uint64(len(pk)))
	var b strings.Builder
	var n [binary.MaxVarintLen64]byte
	size := binary.AppendUvarint(n[:0], uint64(len(head)))
	b.Grow(len(size) + len(head) + len(body))
	b.Write(size)
	b.Write(head)
	b.Write(body)
	m.scratch, m.entry, m.head = body, e, head
	if cap(body) > 64<<10 || cap(e) > 64<<10 {
		m.scratch, m.entry = nil, nil // not kept for the rare long keys
	}
	return b.String()
}

// uvarint reads the number at s[i:] and returns it and the index after it.
func uvarint(s string, i int) (n, next int) {
	for shift := 0; ; shift += 7 {
		c := s[i]
		i++
		n |= int(c&0x7f) << shift
		if c < 0x80 {
			return n, i
		}
	}
}

// eachPacked calls entry with each index entry packed in keys, then pk with the primary key.
func eachPacked(keys string, entry func(index int, e string), pk func(string)) {
	if keys == "" {
		return
	}
	h, i := uvarint(keys, 0)
	body := keys[i+h:]
	n, i := uvarint(keys, i)
	var off, size int
	for range n {
		index := int(keys[i])
		off, i = uvarint(keys, i+1)
		size, i = uvarint(keys, i)
		if entry != nil {
			entry(index, body[off:off+size])
		}
	}
	if pk != nil {
		off, i = uvarint(keys, i)
		size, _ = uvarint(keys, i)
		pk(body[off : off+size])
	}
}

// eachEntry calls fn with each index entry packed in keys.
func eachEntry(keys string, fn func(index int, entry string)) { eachPacked(keys, fn, nil) }

// rowPK is the primary key a row is kept under: pk, or its copy in the row's packed keys.
func rowPK(pk string, keys string) string {
	eachPacked(keys, nil, func(p string) { pk = p })
	return pk
}

// entryCursor is the cursor of an ordered index's entry.
func entryCursor(entry string) Cursor {
	c, _ := ParseCursor(entry)
	return c
}

// hasEntry reports whether the packed keys hold entry in the index.
func hasEntry(keys string, index int, entry string) bool {
	found := false
	eachEntry(keys, func(i int, e string) { found = found || i == index && e == entry })
	return found
}

type memIndex struct {
	kind   IndexKind
	unique map[string]string     // Unique: key -> primary key
	order  *btree.BTreeG[string] // entries: Cursor.String
	counts map[string]int        // Counted
}

// memUndo restores the row a change replaced (or removes the one it added).
type memUndo struct {
	t   *memTable
	pk  string
	old memRow
	had bool
}

// sequencesTable is where a durable memory engine keeps its sequences on disk.
const sequencesTable = "_sequences"

// NewMemory returns an empty engine in memory.
func NewMemory() *Memory {
	m := &Memory{tables: map[string]*memTable{}, seqs: map[string]uint64{}}
	m.reader, m.writer = &memTxn{m: m}, &memTxn{m: m, write: true}
	return m
}

func lessString(a, b string) bool { return a < b }

func newMemTable(def TableDef) *memTable {
	t := &memTable{def: def, rows: map[string]memRow{}}
	if def.Sorted {
		t.pks = btree.NewBTreeGOptions(lessString, btree.Options{NoLocks: true})
	}
	for _, d := range def.Indexes {
		x := &memIndex{kind: d.Kind}
		switch d.Kind {
		case Unique:
			x.unique = map[string]string{}
		case Ordered:
			x.order = btree.NewBTreeGOptions(lessString, btree.Options{NoLocks: true})
		case Counted:
			x.counts = map[string]int{}
		}
		t.idx = append(t.idx, x)
	}
	return t
}

// Define adds a table.
func (m *Memory) Define(def TableDef) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.tables[def.Name]; dup || def.Name == sequencesTable {
		return fmt.Errorf("store: table %q is defined twice", def.Name)
	}
	m.tables[def.Name] = newMemTable(def)
	m.order = append(m.order, def.Name)
	return nil
}

// Open loads what the backend holds into the tables (which must all be defined) and from
// then on writes every committed transaction to it. seeded reports whether the backend held
// a database; when it did not, the caller seeds it (a Wipe transaction).
func (m *Memory) Open(b Backend) (seeded bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.disk != nil {
		return false, errors.New("store: a backend is already open")
	}
	seeded, err = b.Load(func(table, pk string, doc []byte) error {
		if table == sequencesTable {
			n, err := strconv.ParseUint(string(doc), 10, 64)
			if err != nil {
				return fmt.Errorf("store: sequence %s: %w", pk, err)
			}
			m.seqs[pk] = n
			return nil
		}
		t, ok := m.tables[table]
		if !ok {
			return fmt.Errorf("store: the data holds an unknown table %q", table)
		}
		if _, dup := t.rows[pk]; dup {
			return fmt.Errorf("store: %s %s is stored twice", table, pk)
		}
		var keys []Key
		if t.def.Keys != nil {
			if keys, err = t.def.Keys(doc); err != nil {
				return fmt.Errorf("store: %s %s: %w", table, pk, err)
			}
		}
		if conflict := t.conflict(pk, keys); conflict != nil {
			return conflict
		}
		t.add(pk, memRow{doc: m.compress(t, bytes.Clone(doc)), keys: m.packRow(t, pk, keys)}) // doc is the backend's until fn returns
		return nil
	})
	if err != nil {
		m.empty()
		return false, err
	}
	m.disk = newCommitter(b)
	m.durable.Store(true)
	return seeded, nil
}

// Durable reports whether a backend is open.
func (m *Memory) Durable() bool { return m.durable.Load() }

// empty drops every row and sequence.
func (m *Memory) empty() {
	for name, t := range m.tables {
		m.tables[name] = newMemTable(t.def)
	}
	m.seqs = map[string]uint64{}
}

// Close writes what is still queued to disk and closes the backend; later transactions fail.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if m.disk == nil {
		return nil
	}
	return m.disk.close()
}

// Run runs fn in a transaction.
func (m *Memory) Run(ctx context.Context, mode Mode, fn func(Txn) error) error {
	if mode == Read {
		return m.settle(m.read(fn))
	}
	return m.settle(m.write(mode == Wipe, fn))
}

// settle returns err once transaction seq is on disk (or the disk's error).
func (m *Memory) settle(seq uint64, err error) error {
	if m.disk != nil && seq > 0 {
		if werr := m.disk.wait(seq); werr != nil {
			return werr
		}
	}
	return err
}

func (m *Memory) read(fn func(Txn) error) (seq uint64, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, ErrClosed
	}
	if m.disk != nil {
		seq = m.disk.last()
	}
	return seq, fn(m.reader)
}

func (m *Memory) write(wipe bool, fn func(Txn) error) (seq uint64, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	if m.disk != nil {
		if err := m.disk.failed(); err != nil {
			return 0, err
		}
	}
	var before map[string]*memTable
	if wipe {
		before = m.tables
		m.tables = make(map[string]*memTable, len(before))
		for name, t := range before {
			if t.def.Kept {
				m.tables[name] = t // changed in place; a rollback undoes its changes
				continue
			}
			m.tables[name] = newMemTable(t.def)
		}
	}
	committed := false
	defer func() {
		if !committed {
			m.rollback(before)
		}
	}()
	if err := fn(m.writer); err != nil {
		return m.lastDurable(), err
	}
	changes := m.changes
	if wipe && m.disk != nil {
		// The disk's wipe empties every table: the kept ones, and the sequences (never to
		// give a number twice), are written again after it.
		kept, err := m.keptRows()
		if err != nil {
			return m.lastDurable(), err
		}
		changes = append(kept, changes...)
	}
	committed = true
	m.undo, m.changes = m.undo[:0], nil
	if m.disk == nil {
		return 0, nil
	}
	return m.disk.enqueue(txEntry{wipe: wipe, changes: changes}), nil
}

// lastDurable is what a failed transaction waits for: it changed nothing, but what it read
// may not be on disk yet, so like a reader it waits for that.
func (m *Memory) lastDurable() uint64 {
	if m.disk == nil {
		return 0
	}
	return m.disk.last()
}

// rollback undoes the running write transaction; before, when not nil, is the state a wipe
// replaced.
func (m *Memory) rollback(before map[string]*memTable) {
	// Undone also after a wipe: its kept tables were changed in place.
	for i := len(m.undo) - 1; i >= 0; i-- {
		u := m.undo[i]
		if cur, ok := u.t.rows[u.pk]; ok {
			u.t.remove(u.pk, cur)
		}
		if u.had {
			u.t.add(u.pk, u.old)
		}
	}
	if before != nil {
		m.tables = before
	}
	clear(m.undo)
	m.undo, m.changes = m.undo[:0], nil
}

// keptRows is every row of the kept tables and every sequence, as changes that write them.
func (m *Memory) keptRows() ([]Change, error) {
	var out []Change
	for name, t := range m.tables {
		if !t.def.Kept {
			continue
		}
		for pk, r := range t.rows {
			doc, err := t.decode(r.doc)
			if err != nil {
				return nil, err
			}
			out = append(out, Change{Table: name, PK: pk, Value: doc})
		}
	}
	for name, n := range m.seqs {
		out = append(out, Change{Table: sequencesTable, PK: name, Value: strconv.AppendUint(nil, n, 10)})
	}
	return out, nil
}

// add stores a row that is not in the table, with its index entries.
func (t *memTable) add(pk string, r memRow) {
	pk = rowPK(pk, r.keys)
	t.rows[pk] = r
	if t.pks != nil {
		t.pks.Set(pk)
	}
	eachEntry(r.keys, func(i int, e string) { t.idx[i].add(e, pk) })
}

// remove drops a stored row and its index entries.
func (t *memTable) remove(pk string, r memRow) {
	delete(t.rows, pk)
	if t.pks != nil {
		t.pks.Delete(pk)
	}
	eachEntry(r.keys, func(i int, e string) { t.idx[i].remove(e) })
}

// conflict is the error of storing keys under pk when another row holds one of its unique
// keys.
func (t *memTable) conflict(pk string, keys []Key) error {
	for _, k := range keys {
		x := t.idx[k.Index]
		if x.kind != Unique {
			continue
		}
		if holder, ok := x.unique[k.Key]; ok && holder != pk {
			return &ConflictError{Table: t.def.Name, Index: t.def.Indexes[k.Index].Name, Key: k.Key, Holder: holder}
		}
	}
	return nil
}

// add adds a row's entry (packRow) to the index.
func (x *memIndex) add(entry, pk string) {
	switch x.kind {
	case Unique:
		x.unique[entry] = pk
	case Ordered:
		x.order.Set(entry)
	case Counted:
		x.counts[entry]++
	}
}

func (x *memIndex) remove(entry string) {
	switch x.kind {
	case Unique:
		delete(x.unique, entry)
	case Ordered:
		x.order.Delete(entry)
	case Counted:
		if x.counts[entry]--; x.counts[entry] <= 0 {
			delete(x.counts, entry)
		}
	}
}

// memTxn is a transaction of the memory engine; the engine's lock is held while it runs.
type memTxn struct {
	m     *Memory
	write bool
}

func (tx memTxn) table(name string) (*memTable, error) {
	t, ok := tx.m.tables[name]
	if !ok {
		return nil, fmt.Errorf("store: no table %q", name)
	}
	return t, nil
}

func (tx memTxn) Get(table, pk string) ([]byte, bool, error) {
	t, err := tx.table(table)
	if err != nil {
		return nil, false, err
	}
	r, ok := t.rows[pk]
	if !ok {
		return nil, false, nil
	}
	d, err := t.decode(r.doc)
	return d, ok, err
}

func (tx memTxn) Put(table, pk string, doc []byte, keys []Key) error {
	if !tx.write {
		return ErrReadOnly
	}
	t, err := tx.table(table)
	if err != nil {
		return err
	}
	if err := t.conflict(pk, keys); err != nil {
		return err
	}
	for _, k := range keys {
		if strings.IndexByte(k.Key, 0) >= 0 {
			return fmt.Errorf("store: %s %s: an index key holds a NUL", table, pk)
		}
	}
	old, had := t.rows[pk]
	row := memRow{doc: tx.m.compress(t, doc), keys: tx.m.packRow(t, pk, keys)}
	if had {
		t.replace(pk, old, row)
	} else {
		t.add(pk, row)
	}
	tx.m.undo = append(tx.m.undo, memUndo{t: t, pk: pk, old: old, had: had})
	if tx.m.disk != nil {
		tx.m.changes = append(tx.m.changes, Change{Table: table, PK: pk, Value: doc})
	}
	return nil
}

// replace stores r in place of old, touching only the index entries whose key changed.
func (t *memTable) replace(pk string, old, r memRow) {
	pk = rowPK(pk, r.keys)
	t.rows[pk] = r
	eachEntry(old.keys, func(i int, e string) {
		if !hasEntry(r.keys, i, e) {
			t.idx[i].remove(e)
		}
	})
	// An entry the row keeps stays indexed as the old row's string; new ones are indexed
	// as the new one's.
	eachEntry(r.keys, func(i int, e string) {
		if !hasEntry(old.keys, i, e) {
			t.idx[i].add(e, pk)
		}
	})
}

func (tx memTxn) Delete(table, pk string) (bool, error) {
	if !tx.write {
		return false, ErrReadOnly
	}
	t, err := tx.table(table)
	if err != nil {
		return false, err
	}
	old, had := t.rows[pk]
	if !had {
		return false, nil
	}
	t.remove(pk, old)
	tx.m.undo = append(tx.m.undo, memUndo{t: t, pk: pk, old: old, had: true})
	if tx.m.disk != nil {
		tx.m.changes = append(tx.m.changes, Change{Table: table, PK: pk})
	}
	return true, nil
}

func (tx memTxn) Lookup(table string, index int, key string) (string, []byte, bool, error) {
	t, err := tx.table(table)
	if err != nil {
		return "", nil, false, err
	}
	pk, ok := t.idx[index].unique[key]
	if !ok {
		return "", nil, false, nil
	}
	d, err := t.decode(t.rows[pk].doc)
	return pk, d, true, err
}

// scanBatch is how many entries a scan reads before it calls fn for them: fn may change the
// index it walks, which a B-tree walk must not see.
const scanBatch = 64

func (tx memTxn) Scan(table string, index int, r Range, fn func(Cursor, []byte) bool) error {
	t, err := tx.table(table)
	if err != nil {
		return err
	}
	if index < 0 && t.pks == nil {
		return t.scanUnsorted(r, fn)
	}
	batch := make([]Cursor, 0, scanBatch)
	from := r.From
	for {
		batch = t.entries(index, r, from, batch[:0])
		for _, c := range batch {
			row, ok := t.rows[c.PK]
			if !ok || !t.holds(index, row, c.Key) {
				continue // changed by fn since the batch was read
			}
			d, err := t.decode(row.doc)
			if err != nil {
				return err
			}
			if !fn(c, d) {
				return nil
			}
		}
		if len(batch) < scanBatch {
			return nil
		}
		last := batch[len(batch)-1]
		from = &last
	}
}

// scanUnsorted is Scan in primary-key order over a table that does not keep it: its keys
// are sorted for the scan (exports, retention sweeps: not a request's path).
func (t *memTable) scanUnsorted(r Range, fn func(Cursor, []byte) bool) error {
	pks := make([]string, 0, len(t.rows))
	for pk := range t.rows {
		if pk >= r.Lo && (r.Hi == "" || pk < r.Hi) && (r.From == nil || !r.Reverse && pk > r.From.PK || r.Reverse && pk < r.From.PK) {
			pks = append(pks, pk)
		}
	}
	slices.Sort(pks)
	if r.Reverse {
		slices.Reverse(pks)
	}
	for _, pk := range pks {
		row, ok := t.rows[pk]
		if !ok {
			continue // removed by fn since the scan began
		}
		doc, err := t.decode(row.doc)
		if err != nil {
			return err
		}
		if !fn(Cursor{Key: pk, PK: pk}, doc) {
			return nil
		}
	}
	return nil
}

// holds reports whether row still has key in the index (index -1: the primary key order).
func (t *memTable) holds(index int, row memRow, key string) bool {
	if index < 0 {
		return true
	}
	found := false
	eachEntry(row.keys, func(i int, e string) {
		found = found || i == index && t.idx[i].entryKey(e) == key
	})
	return found
}

// entryKey is the key of an entry of the index.
func (x *memIndex) entryKey(entry string) string {
	if x.kind == Ordered {
		return entryCursor(entry).Key
	}
	return entry
}

// entries appends up to scanBatch entries of the index in r, after from (before it, in
// reverse).
func (t *memTable) entries(index int, r Range, from *Cursor, out []Cursor) []Cursor {
	in := func(c Cursor) (keep, more bool) {
		if from != nil && (!r.Reverse && c.compare(*from) <= 0 || r.Reverse && c.compare(*from) >= 0) {
			return false, true
		}
		above := r.Hi != "" && c.Key >= r.Hi
		if !r.Reverse && above || r.Reverse && c.Key < r.Lo {
			return false, false
		}
		if c.Key < r.Lo || above {
			return false, true
		}
		return true, len(out)+1 < scanBatch
	}
	visit := func(c Cursor) bool {
		keep, more := in(c)
		if keep {
			out = append(out, c)
		}
		return more
	}
	if index < 0 {
		pivot := r.Lo
		if r.Reverse {
			pivot = r.Hi
		}
		if from != nil {
			pivot = from.PK
		}
		each := func(pk string) bool { return visit(Cursor{Key: pk, PK: pk}) }
		switch {
		case !r.Reverse:
			t.pks.Ascend(pivot, each)
		case pivot == "":
			t.pks.Reverse(each)
		default:
			t.pks.Descend(pivot, each)
		}
		return out
	}
	x := t.idx[index]
	if x.order == nil {
		return out
	}
	pivot := r.Lo // as an entry, before every entry of key Lo (Hi: after none of Hi's)
	if r.Reverse {
		pivot = r.Hi
	}
	if from != nil {
		pivot = from.String()
	}
	each := func(e string) bool { return visit(entryCursor(e)) }
	switch {
	case !r.Reverse:
		x.order.Ascend(pivot, each)
	case pivot == "":
		x.order.Reverse(each)
	default:
		x.order.Descend(pivot, each)
	}
	return out
}

func (tx memTxn) Count(table string, index int, key string) (int, error) {
	t, err := tx.table(table)
	if err != nil {
		return 0, err
	}
	x := t.idx[index]
	switch x.kind {
	case Counted:
		return x.counts[key], nil
	case Unique:
		_, ok := x.unique[key]
		if ok {
			return 1, nil
		}
		return 0, nil
	}
	n := 0
	x.order.Ascend(key, func(e string) bool {
		if entryCursor(e).Key != key {
			return false
		}
		n++
		return true
	})
	return n, nil
}

func (tx memTxn) Len(table string) (int, error) {
	t, err := tx.table(table)
	if err != nil {
		return 0, err
	}
	return len(t.rows), nil
}

func (tx memTxn) Next(sequence string) (uint64, error) {
	if !tx.write {
		return 0, ErrReadOnly
	}
	tx.m.seqs[sequence]++
	n := tx.m.seqs[sequence]
	if tx.m.disk != nil {
		tx.m.changes = append(tx.m.changes, Change{Table: sequencesTable, PK: sequence, Value: strconv.AppendUint(nil, n, 10)})
	}
	return n, nil
}

// compress is doc as the engine keeps it in table t: doc itself, or for a Dictionary table
// doc compressed against the dictionary, in a buffer of its own size. Other tables' rows
// are not compressed: s2 costs 4-6% of a write's instructions, for memory no bar asks of
// them. The caller holds the write lock.
func (m *Memory) compress(t *memTable, doc []byte) []byte {
	if t.def.Dictionary && !t.dictMade {
		t.dict, t.dictMade = s2.MakeDict(bytes.Clone(doc), nil), true
	}
	if t.dict == nil {
		return doc
	}
	m.packed = t.dict.Encode(m.packed[:cap(m.packed)], doc)
	out := bytes.Clone(m.packed)
	if cap(m.packed) > 64<<10 {
		m.packed = nil // not kept for the rare large document
	}
	return out
}

// decode is a document of t as it was given to compress.
func (t *memTable) decode(doc []byte) ([]byte, error) {
	if t.dict != nil {
		return t.dict.Decode(nil, doc)
	}
	return doc, nil
}
