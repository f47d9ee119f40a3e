package store

import (
	"slices"
	"strings"
)

// Numbered is an index kept in order of a group and a number within it, for orders that are
// numeric: operations by acceptance within their scope, by due time, by end time.
//
// An Ordered index needs a string key per record, and a key built from a number (padded to
// sort as text) is an allocation for every record stored, and an object of its own for the
// garbage collector to find as long as the record lives. A Numbered entry is the number
// and the primary key, in a list of its group: it derives nothing.
//
// Each group's list is a run of sorted chunks rather than a B-tree, because its numbers
// mostly come in order (a sequence, the clock): an entry that sorts last is appended to the
// last chunk, with one comparison, and chunks filled that way are full, where a B-tree's
// splits leave every node it passes half empty. Entries out of order are placed by binary
// search (a full chunk splits in two), and the oldest, which go first (retention), are cut
// from the front of their chunk.
type Numbered[R any] struct {
	t      *Table[R]
	key    func(R) (group string, n uint64, ok bool)
	groups map[string]*numList
}

// numEntry is one record's place in its group's list.
type numEntry struct {
	n  uint64
	pk string
}

func (a numEntry) compare(b numEntry) int {
	switch {
	case a.n < b.n:
		return -1
	case a.n > b.n:
		return 1
	}
	return strings.Compare(a.pk, b.pk)
}

// chunkMax is the most entries a chunk holds: an entry placed or removed out of order moves
// at most the rest of its chunk (6 KB), and a split copies half of one.
const chunkMax = 256

// numList is a group's entries in (n, pk) order: chunks, each sorted and not empty, every
// entry of a chunk before every entry of the next.
type numList struct{ chunks [][]numEntry }

// AddNumbered adds a numbered index. key returns the record's group and number, or false
// for records that are not indexed.
func (t *Table[R]) AddNumbered(key func(R) (group string, n uint64, ok bool)) *Numbered[R] {
	x := &Numbered[R]{t: t, key: key, groups: map[string]*numList{}}
	t.numbered = append(t.numbered, x)
	return x
}

// Scan visits, in order, the records of group whose number n satisfies lo <= n < hi, until
// fn returns false. fn must not change the table.
func (x *Numbered[R]) Scan(tx *Tx, group string, lo, hi uint64, fn func(r R) bool) {
	l := x.groups[group]
	if l == nil {
		return
	}
	from := numEntry{n: lo}
	for c := l.chunkFor(from); c < len(l.chunks); c++ {
		chunk := l.chunks[c]
		i, _ := slices.BinarySearchFunc(chunk, from, numEntry.compare)
		for _, e := range chunk[i:] {
			if e.n >= hi {
				return
			}
			if r, ok := x.t.rows[e.pk]; ok && !fn(x.t.copy(r)) {
				return
			}
		}
	}
}

func (x *Numbered[R]) clear() { x.groups = map[string]*numList{} }

// index adds the record r, stored under pk.
func (x *Numbered[R]) index(pk string, r R) {
	if g, n, ok := x.key(r); ok {
		x.list(g).put(numEntry{n: n, pk: pk})
	}
}

// unindex removes the record r, stored under pk.
func (x *Numbered[R]) unindex(pk string, r R) {
	if g, n, ok := x.key(r); ok {
		x.remove(g, numEntry{n: n, pk: pk})
	}
}

// reindex moves the record under pk from old (if it existed) to r. An entry whose place
// does not change is put again, so that it holds pk as the table now keeps it.
func (x *Numbered[R]) reindex(pk string, old R, existed bool, r R) {
	if existed {
		if og, on, ok := x.key(old); ok {
			if g, n, ok := x.key(r); !ok || g != og || n != on {
				x.remove(og, numEntry{n: on, pk: pk})
			}
		}
	}
	x.index(pk, r)
}

func (x *Numbered[R]) list(group string) *numList {
	l := x.groups[group]
	if l == nil {
		l = &numList{}
		x.groups[group] = l
	}
	return l
}

func (x *Numbered[R]) remove(group string, e numEntry) {
	if l := x.groups[group]; l != nil && l.remove(e) && len(l.chunks) == 0 {
		delete(x.groups, group)
	}
}

// chunkFor is the index of the first chunk whose last entry is not before e: the chunk
// where e is, or belongs (len(l.chunks) if e sorts after every entry).
func (l *numList) chunkFor(e numEntry) int {
	c, _ := slices.BinarySearchFunc(l.chunks, e, func(chunk []numEntry, e numEntry) int {
		return chunk[len(chunk)-1].compare(e)
	})
	return c
}

// put adds e, or replaces the entry equal to it.
func (l *numList) put(e numEntry) {
	last := len(l.chunks) - 1
	if last < 0 || l.chunks[last][len(l.chunks[last])-1].compare(e) < 0 {
		// In order: appended (the usual case).
		if last < 0 || len(l.chunks[last]) == chunkMax {
			l.chunks = append(l.chunks, append(make([]numEntry, 0, startCap(last)), e))
			return
		}
		l.chunks[last] = append(l.chunks[last], e)
		return
	}
	c := l.chunkFor(e)
	chunk := l.chunks[c]
	i, found := slices.BinarySearchFunc(chunk, e, numEntry.compare)
	if found {
		chunk[i] = e
		return
	}
	chunk = slices.Insert(chunk, i, e)
	if len(chunk) <= chunkMax {
		l.chunks[c] = chunk
		return
	}
	half := len(chunk) / 2
	upper := append(make([]numEntry, 0, chunkMax), chunk[half:]...)
	clear(chunk[half:])
	l.chunks[c] = chunk[:half]
	l.chunks = slices.Insert(l.chunks, c+1, upper)
}

// startCap is the capacity of a new last chunk: a list's first chunk grows as needed (most
// groups are small), later ones are made whole.
func startCap(last int) int {
	if last < 0 {
		return 1
	}
	return chunkMax
}

// remove removes the entry equal to e, if there is one, and reports whether it did.
func (l *numList) remove(e numEntry) bool {
	c := l.chunkFor(e)
	if c == len(l.chunks) {
		return false
	}
	chunk := l.chunks[c]
	i, found := slices.BinarySearchFunc(chunk, e, numEntry.compare)
	if !found {
		return false
	}
	switch {
	case len(chunk) == 1:
		l.chunks = slices.Delete(l.chunks, c, c+1)
	case i == 0:
		// The oldest go first: cut from the front, without moving the rest.
		chunk[0] = numEntry{}
		l.chunks[c] = chunk[1:]
	default:
		l.chunks[c] = slices.Delete(chunk, i, i+1) // clears the freed slot
	}
	return true
}
