package store

import "slices"

// sorted keeps entries in the order cmp gives them, as a run of sorted chunks rather than a
// tree: entries mostly come in order (a sequence, the clock, names made one after another),
// and an entry that sorts last is appended to the last chunk after one comparison, filling
// chunks whole, where a B-tree's splits leave every node they pass half empty. An entry out
// of order is placed by binary search (a full chunk splits in two); the first entry of a
// chunk is cut from its front, as retention removes the oldest.
//
// The entries are slots or numbers, so the chunks hold no pointers. Methods are given how
// entries compare with the one they look for (at: negative for an entry that comes before
// it), which may look keys up in the table.
type sorted[E any] struct{ chunks [][]E }

// chunkMax is the most entries a chunk holds: an entry placed or removed out of order moves
// at most the rest of its chunk, and a split copies half of one.
const chunkMax = 256

// pos is a place in a sorted: entry i of chunk c.
type pos struct{ c, i int }

// seek is the first place whose entry is not before the probe: at returns the sign of an
// entry's order against it (negative: the entry comes first). It is the end if every entry
// comes first.
func (l *sorted[E]) seek(at func(e E) int) pos {
	c, _ := slices.BinarySearchFunc(l.chunks, 0, func(chunk []E, _ int) int {
		if at(chunk[len(chunk)-1]) < 0 {
			return -1
		}
		return 1
	})
	if c == len(l.chunks) {
		return pos{c, 0}
	}
	i, _ := slices.BinarySearchFunc(l.chunks[c], 0, func(e E, _ int) int {
		if at(e) < 0 {
			return -1
		}
		return 1
	})
	return pos{c, i}
}

// find is the place of the entry at says is equal, if there is one.
func (l *sorted[E]) find(at func(x E) int) (pos, bool) {
	p := l.seek(at)
	return p, p.c < len(l.chunks) && at(l.chunks[p.c][p.i]) == 0
}

// put adds e, or replaces the entry equal to it; at compares entries with e.
func (l *sorted[E]) put(e E, at func(x E) int) {
	last := len(l.chunks) - 1
	if last < 0 || at(l.chunks[last][len(l.chunks[last])-1]) < 0 {
		// In order: appended (the usual case).
		if last < 0 || len(l.chunks[last]) == chunkMax {
			l.chunks = append(l.chunks, append(make([]E, 0, startCap(last)), e))
			return
		}
		l.chunks[last] = append(l.chunks[last], e)
		return
	}
	p, found := l.find(at)
	chunk := l.chunks[p.c]
	if found {
		chunk[p.i] = e
		return
	}
	chunk = slices.Insert(chunk, p.i, e)
	if len(chunk) <= chunkMax {
		l.chunks[p.c] = chunk
		return
	}
	half := len(chunk) / 2
	upper := append(make([]E, 0, chunkMax), chunk[half:]...)
	clear(chunk[half:])
	l.chunks[p.c] = chunk[:half]
	l.chunks = slices.Insert(l.chunks, p.c+1, upper)
}

// startCap is the capacity of a new last chunk: a list's first chunk grows as needed (most
// lists are small), later ones are made whole.
func startCap(last int) int {
	if last < 0 {
		return 1
	}
	return chunkMax
}

// remove removes the entry at says is equal, if there is one, and reports whether it did.
func (l *sorted[E]) remove(at func(x E) int) bool {
	p, found := l.find(at)
	if !found {
		return false
	}
	chunk := l.chunks[p.c]
	switch {
	case len(chunk) == 1:
		l.chunks = slices.Delete(l.chunks, p.c, p.c+1)
	case p.i == 0:
		// The oldest go first: cut from the front, without moving the rest.
		var zero E
		chunk[0] = zero
		l.chunks[p.c] = chunk[1:]
	default:
		l.chunks[p.c] = slices.Delete(chunk, p.i, p.i+1)
	}
	return true
}

// ascend visits the entries from p on, in order, until fn returns false.
func (l *sorted[E]) ascend(p pos, fn func(e E) bool) {
	for c := p.c; c < len(l.chunks); c++ {
		from := 0
		if c == p.c {
			from = p.i
		}
		for _, e := range l.chunks[c][from:] {
			if !fn(e) {
				return
			}
		}
	}
}

// descend visits the entries before p, last first, until fn returns false.
func (l *sorted[E]) descend(p pos, fn func(e E) bool) {
	for c := min(p.c, len(l.chunks)-1); c >= 0; c-- {
		chunk := l.chunks[c]
		to := len(chunk)
		if c == p.c {
			to = p.i
		}
		for i := to - 1; i >= 0; i-- {
			if !fn(chunk[i]) {
				return
			}
		}
	}
}
