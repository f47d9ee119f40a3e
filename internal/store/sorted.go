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
//
// A list of slots keeps fences: a copy of the key of each chunk's last entry, but the last
// chunk's (which appends change). The search for the chunk compares the fences, a few
// kilobytes that stay in the cache, where reading an entry's key at each step costs a cache
// miss or more in a large table. Methods are then also given how a fence compares with
// what they look for (atFence, as at).
type sorted[E any] struct {
	chunks [][]E
	// fences[c] is fence(the last entry of chunks[c]) for each chunk but the last, when
	// fence is set (else fences stays empty).
	fences []string
	fence  func(E) string
}

// clear empties the list.
func (l *sorted[E]) clear() { l.chunks, l.fences = nil, nil }

// chunkMax is the most entries a chunk holds: an entry placed or removed out of order moves
// at most the rest of its chunk, and a split copies half of one.
const chunkMax = 256

// pos is a place in a sorted: entry i of chunk c.
type pos struct{ c, i int }

// seek is the first place whose entry is not before the probe: at returns the sign of an
// entry's order against it (negative: the entry comes first), atFence that of a fence (nil
// for a list without). It is the end if every entry comes first.
func (l *sorted[E]) seek(at func(e E) int, atFence func(fence string) int) pos {
	c := l.chunkOf(at, atFence)
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

// chunkOf is the first chunk whose last entry is not before the probe, len(l.chunks) if
// there is none.
func (l *sorted[E]) chunkOf(at func(e E) int, atFence func(fence string) int) int {
	lo, hi := 0, len(l.chunks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		var sign int
		if m < len(l.fences) {
			sign = atFence(l.fences[m])
		} else {
			chunk := l.chunks[m]
			sign = at(chunk[len(chunk)-1])
		}
		if sign < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// setFence sets the fence of chunk c, which is not the last, to its last entry's.
func (l *sorted[E]) setFence(c int) {
	if l.fence != nil {
		chunk := l.chunks[c]
		l.fences[c] = l.fence(chunk[len(chunk)-1])
	}
}

// find is the place of the entry at says is equal, if there is one.
func (l *sorted[E]) find(at func(x E) int, atFence func(fence string) int) (pos, bool) {
	p := l.seek(at, atFence)
	return p, p.c < len(l.chunks) && at(l.chunks[p.c][p.i]) == 0
}

// put adds e, or replaces the entry equal to it; at and atFence compare with e.
func (l *sorted[E]) put(e E, at func(x E) int, atFence func(fence string) int) {
	last := len(l.chunks) - 1
	if last < 0 || at(l.chunks[last][len(l.chunks[last])-1]) < 0 {
		// In order: appended (the usual case).
		if last < 0 || len(l.chunks[last]) == chunkMax {
			l.chunks = append(l.chunks, append(make([]E, 0, startCap(last)), e))
			if last >= 0 && l.fence != nil {
				l.fences = append(l.fences, "") // the full chunk is no longer the last
				l.setFence(last)
			}
			return
		}
		l.chunks[last] = append(l.chunks[last], e)
		return
	}
	// Placed inside a chunk whose last entry comes after e (or is e): no chunk's last
	// entry changes, unless a split makes one.
	p, found := l.find(at, atFence)
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
	if l.fence != nil {
		// The upper half keeps the chunk's last entry, and its fence if it had one.
		l.fences = slices.Insert(l.fences, p.c, "")
		l.setFence(p.c)
	}
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
func (l *sorted[E]) remove(at func(x E) int, atFence func(fence string) int) bool {
	p, found := l.find(at, atFence)
	if !found {
		return false
	}
	chunk := l.chunks[p.c]
	switch {
	case len(chunk) == 1:
		l.chunks = slices.Delete(l.chunks, p.c, p.c+1)
		if len(l.fences) > 0 {
			// Its fence goes; or, if it was the last chunk, the fence of the one before,
			// which now is.
			f := min(p.c, len(l.fences)-1)
			l.fences = slices.Delete(l.fences, f, f+1)
		}
	case p.i == 0:
		// The oldest go first: cut from the front, without moving the rest.
		var zero E
		chunk[0] = zero
		l.chunks[p.c] = chunk[1:]
	default:
		l.chunks[p.c] = slices.Delete(chunk, p.i, p.i+1)
		if p.i == len(chunk)-1 && p.c < len(l.fences) {
			l.setFence(p.c) // its last entry went
		}
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
