package store

import "strings"

// Numbered is an index kept in order of a group and a number within it, for orders that are
// numeric: operations by acceptance within their scope, by due time, by end time.
//
// An Ordered index needs a string key per record, and a key built from a number (padded to
// sort as text) would be kept with every record. A Numbered entry is the number and the
// record's slot, in a list of its group (sorted): it derives nothing and keeps no string.
type Numbered[R any] struct {
	t      *Table[R]
	key    func(R) (group string, n uint64, ok bool)
	groups map[string]*sorted[numEntry]
}

// numEntry is one record's place in its group's list: by number, then primary key.
type numEntry struct {
	n    uint64
	slot uint32
}

func (x *Numbered[R]) compare(a, b numEntry) int {
	switch {
	case a.n < b.n:
		return -1
	case a.n > b.n:
		return 1
	case a.slot == b.slot:
		return 0
	}
	return strings.Compare(x.t.pkOf(a.slot), x.t.pkOf(b.slot))
}

// put adds e to group's list, made if it has none.
func (x *Numbered[R]) put(group string, e numEntry) {
	l := x.groups[group]
	if l == nil {
		l = &sorted[numEntry]{}
		x.groups[strings.Clone(group)] = l // group may share a version's bytes
	}
	l.put(e, func(y numEntry) int { return x.compare(y, e) }, nil)
}

// AddNumbered adds a numbered index. key returns the record's group and number, or false
// for records that are not indexed.
func (t *Table[R]) AddNumbered(key func(R) (group string, n uint64, ok bool)) *Numbered[R] {
	x := &Numbered[R]{t: t, key: key, groups: map[string]*sorted[numEntry]{}}
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
	from := l.seek(func(e numEntry) int {
		if e.n < lo {
			return -1
		}
		return 1
	}, nil)
	l.ascend(from, func(e numEntry) bool { return e.n < hi && fn(x.t.decode(e.slot)) })
}

func (x *Numbered[R]) remove(group string, e numEntry) {
	if l := x.groups[group]; l != nil && l.remove(func(y numEntry) int { return x.compare(y, e) }, nil) && len(l.chunks) == 0 {
		delete(x.groups, group)
	}
}
