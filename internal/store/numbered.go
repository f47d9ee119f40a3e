package store

import "github.com/google/btree"

// Numbered is an index kept in order of a group and a number within it, for orders that are
// numeric: operations by acceptance within their scope, by due time, by end time.
//
// An Ordered index needs a string key per record, and a key built from a number (padded to
// sort as text) is an allocation for every record stored, and an object of its own for the
// garbage collector to find as long as the record lives. A Numbered entry holds the group,
// a string the record holds anyway, and the number itself: it derives nothing.
type Numbered[R any] struct {
	t   *Table[R]
	key func(R) (group string, n uint64, ok bool)
	// tree holds one entry per indexed record, in (group, n, primary key) order.
	tree *btree.BTreeG[numEntry]
}

// numEntry is one record's place in a Numbered index.
type numEntry struct {
	group string
	n     uint64
	pk    string
}

func (a numEntry) less(b numEntry) bool {
	if a.group != b.group {
		return a.group < b.group
	}
	if a.n != b.n {
		return a.n < b.n
	}
	return a.pk < b.pk
}

// AddNumbered adds a numbered index. key returns the record's group and number, or false
// for records that are not indexed.
func (t *Table[R]) AddNumbered(key func(R) (group string, n uint64, ok bool)) *Numbered[R] {
	x := &Numbered[R]{t: t, key: key, tree: btree.NewG(32, numEntry.less)}
	t.numbered = append(t.numbered, x)
	return x
}

// Scan visits, in order, the records of group whose number n satisfies lo <= n < hi, until
// fn returns false.
func (x *Numbered[R]) Scan(tx *Tx, group string, lo, hi uint64, fn func(r R) bool) {
	x.tree.AscendGreaterOrEqual(numEntry{group: group, n: lo}, func(e numEntry) bool {
		if e.group != group || e.n >= hi {
			return false
		}
		r, ok := x.t.rows[e.pk]
		if !ok {
			return true
		}
		return fn(x.t.copy(r))
	})
}

// index adds the record r, stored under pk.
func (x *Numbered[R]) index(pk string, r R) {
	if g, n, ok := x.key(r); ok {
		x.tree.ReplaceOrInsert(numEntry{group: g, n: n, pk: pk})
	}
}

// unindex removes the record r, stored under pk.
func (x *Numbered[R]) unindex(pk string, r R) {
	if g, n, ok := x.key(r); ok {
		x.tree.Delete(numEntry{group: g, n: n, pk: pk})
	}
}

// reindex moves the record under pk from old (if it existed) to r. An entry whose place
// does not change is replaced in place (one descent, not a delete and an insert), so that
// it holds the new record's strings, not the old one's.
func (x *Numbered[R]) reindex(pk string, old R, existed bool, r R) {
	g, n, ok := x.key(r)
	if existed {
		og, on, ook := x.key(old)
		switch {
		case ook && ok && og == g && on == n:
			x.tree.ReplaceOrInsert(numEntry{group: g, n: n, pk: pk})
			return
		case ook:
			x.tree.Delete(numEntry{group: og, n: on, pk: pk})
		}
	}
	if ok {
		x.tree.ReplaceOrInsert(numEntry{group: g, n: n, pk: pk})
	}
}
