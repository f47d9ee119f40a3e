package store

// hashIndex finds slots by a 64-bit hash of a key; the caller confirms a match against
// the record, so it is exact, and slots whose keys share a hash (rare) are all found.
//
// It is 256 segments, chosen by the hash's top byte, each one array (open addressing,
// linear probing) of 64-bit entries: the top 32 bits of a hash and a slot (plus one: 0 is
// an empty entry). A lookup in a large index costs one cache miss, where Go's maps walk a
// directory, a table and a group; and the arrays hold no pointers. A segment grows on its
// own, so growing copies a 256th of the index at a time, where growing one array for a
// whole large index would hold up every request while it copies. An entry's home is the
// next bits of its hash, so a segment rehashes from its entries alone.
type hashIndex struct {
	segs []hashSegment // nil until the first entry
}

type hashSegment struct {
	e    []uint64
	bits uint // len(e) is 1<<bits
	n    int
}

const segmentBits = 8

func (x *hashIndex) clear() { x.segs = nil }

// segment is the segment of tag, nil while the index is empty.
func (x *hashIndex) segment(tag uint32) *hashSegment {
	if x.segs == nil {
		return nil
	}
	return &x.segs[tag>>(32-segmentBits)]
}

func (g *hashSegment) home(tag uint32) int { return int(tag << segmentBits >> (32 - g.bits)) }

// lookup calls match with the slots under h in turn until it returns true, and returns
// that slot.
func (x *hashIndex) lookup(h uint64, match func(slot uint32) bool) (uint32, bool) {
	tag := uint32(h >> 32)
	g := x.segment(tag)
	if g == nil || g.n == 0 {
		return 0, false
	}
	mask := len(g.e) - 1
	for i := g.home(tag); ; i = (i + 1) & mask {
		e := g.e[i]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == tag && match(uint32(e)-1) {
			return uint32(e) - 1, true
		}
	}
}

// touch reads the entry where a lookup of h starts, so that the lookup finds it in the
// cache; what it returns is only for the caller to keep, lest the read be compiled away.
func (x *hashIndex) touch(h uint64) uint64 {
	tag := uint32(h >> 32)
	g := x.segment(tag)
	if g == nil || len(g.e) == 0 {
		return 0
	}
	return g.e[g.home(tag)]
}

func (x *hashIndex) add(h uint64, s uint32) {
	if x.segs == nil {
		x.segs = make([]hashSegment, 1<<segmentBits)
	}
	g := x.segment(uint32(h >> 32))
	if (g.n+1)*2 > len(g.e) {
		g.grow()
	}
	g.put(uint64(h>>32)<<32 | uint64(s+1))
	g.n++
}

func (g *hashSegment) put(e uint64) {
	mask := len(g.e) - 1
	for i := g.home(uint32(e >> 32)); ; i = (i + 1) & mask {
		if g.e[i] == 0 {
			g.e[i] = e
			return
		}
	}
}

// grow doubles the segment's array: at most half full, a probe mostly stays in one cache
// line.
func (g *hashSegment) grow() {
	old := g.e
	g.bits = max(g.bits+1, 2)
	g.e = make([]uint64, 1<<g.bits)
	for _, e := range old {
		if e != 0 {
			g.put(e)
		}
	}
}

// remove takes slot s out from under h. The entries after it in its run move back to
// fill the gap where that brings them no further from home, so that no lookup ever stops
// short of an entry (no tombstones).
func (x *hashIndex) remove(h uint64, s uint32) {
	tag := uint32(h >> 32)
	g := x.segment(tag)
	if g == nil || g.n == 0 {
		return
	}
	want, mask := uint64(tag)<<32|uint64(s+1), len(g.e)-1
	i := g.home(tag)
	for g.e[i] != want {
		if g.e[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	g.e[i] = 0
	g.n--
	for j := (i + 1) & mask; g.e[j] != 0; j = (j + 1) & mask {
		// The entry at j may move to i if i lies between its home and j.
		if e := g.e[j]; (j-g.home(uint32(e>>32)))&mask >= (j-i)&mask {
			g.e[i], g.e[j] = e, 0
			i = j
		}
	}
}

// len is the number of entries.
func (x *hashIndex) len() int {
	n := 0
	for i := range x.segs {
		n += x.segs[i].n
	}
	return n
}
