package store

import "encoding/binary"

// records keeps a table's records as bytes, where the garbage collector has nothing to
// follow (see codec.go for why).
//
// Each stored record has a slot, a number that stays its own while it is stored: indexes
// hold slots, not keys. What the slot holds is a version: the record's bytes (a header,
// then the payload the table encodes), appended to the chunk being filled. Putting a record
// again writes a new version and leaves the old one dead where it was; a version is never
// changed once written, so what a reader decoded stays valid.
//
// A chunk that falls below half live (not the one being filled) is compacted: its live
// versions are copied to the chunk being filled, their slots pointed at the copies, and
// the chunk is let go. Strings decoded from it keep it alive until they go, as any Go
// memory. So the space kept is at most about twice what the live records take, and the
// copying costs at most a byte for each byte that died.
type records struct {
	chunks [][]byte // each filled up to its length; nil once let go
	live   []int    // per chunk, the bytes of its live versions, headers included
	queued []bool   // per chunk, whether it waits in sparse
	cur    int      // the chunk being filled; -1 before the first
	size   int      // the capacity of the next chunk (chunks grow up to maxChunk)
	spare  []int    // numbers of chunks let go, for new ones
	sparse []int    // chunks to compact
	// refs holds each slot's version as its chunk (high 32 bits) and offset, or noVersion
	// for a free slot, in pages of refsPage: growing never copies what is there (doubling
	// one large array would hold up every request while it copies).
	refs      [][]uint64
	slots     int // slots made
	freeSlots []uint32
	count     int
}

const refsPage = 1 << 12

func (rs *records) ref(slot uint32) uint64 { return rs.refs[slot/refsPage][slot%refsPage] }

func (rs *records) setRef(slot uint32, ref uint64) { rs.refs[slot/refsPage][slot%refsPage] = ref }

const (
	noVersion  = ^uint64(0)
	headerSize = 8 // the slot and the payload's length, 32 bits each
	minChunk   = 1 << 10
	maxChunk   = 64 << 10
)

func newRecords() records { return records{cur: -1, size: minChunk} }

// newSlot returns a free slot.
func (rs *records) newSlot() uint32 {
	if n := len(rs.freeSlots); n > 0 {
		s := rs.freeSlots[n-1]
		rs.freeSlots = rs.freeSlots[:n-1]
		return s
	}
	if rs.slots%refsPage == 0 {
		rs.refs = append(rs.refs, make([]uint64, refsPage))
	}
	s := uint32(rs.slots)
	rs.slots++
	rs.setRef(s, noVersion)
	return s
}

// write makes payload the slot's version, in place of the one it had, if any.
func (rs *records) write(slot uint32, payload []byte) {
	n := headerSize + len(payload)
	c, off := rs.alloc(n)
	dst := rs.chunks[c][off : off+n]
	binary.LittleEndian.PutUint32(dst, slot)
	binary.LittleEndian.PutUint32(dst[4:], uint32(len(payload)))
	copy(dst[headerSize:], payload)
	old := rs.ref(slot)
	rs.setRef(slot, uint64(c)<<32|uint64(off))
	if old == noVersion {
		rs.count++
	} else {
		rs.free(old)
	}
}

// payload is the slot's version's payload, which the caller must not change.
func (rs *records) payload(slot uint32) []byte {
	ref := rs.ref(slot)
	chunk, off := rs.chunks[ref>>32], uint32(ref)
	n := binary.LittleEndian.Uint32(chunk[off+4:])
	return chunk[off+headerSize : off+headerSize+n : off+headerSize+n]
}

// drop frees the slot and its version.
func (rs *records) drop(slot uint32) {
	rs.free(rs.ref(slot))
	rs.setRef(slot, noVersion)
	rs.freeSlots = append(rs.freeSlots, slot)
	rs.count--
}

// alloc finds n bytes, counted live, in the chunk being filled or a new one.
func (rs *records) alloc(n int) (c, off int) {
	if rs.cur >= 0 {
		chunk := rs.chunks[rs.cur]
		if off = len(chunk); off+n <= cap(chunk) {
			rs.chunks[rs.cur] = chunk[:off+n]
			rs.live[rs.cur] += n
			return rs.cur, off
		}
		rs.settle(rs.cur)
	}
	size := max(rs.size, n)
	rs.size = min(rs.size*2, maxChunk)
	chunk := make([]byte, n, size)
	if k := len(rs.spare); k > 0 {
		c = rs.spare[k-1]
		rs.spare = rs.spare[:k-1]
		rs.chunks[c], rs.live[c] = chunk, n
	} else {
		c = len(rs.chunks)
		rs.chunks, rs.live, rs.queued = append(rs.chunks, chunk), append(rs.live, n), append(rs.queued, false)
	}
	rs.cur = c
	return c, 0
}

// free counts the version at ref dead.
func (rs *records) free(ref uint64) {
	c, off := int(ref>>32), uint32(ref)
	rs.live[c] -= headerSize + int(binary.LittleEndian.Uint32(rs.chunks[c][off+4:]))
	if c != rs.cur {
		rs.settle(c)
	}
}

// settle lets chunk c go if nothing in it lives, or queues it for compaction if less than
// half of it does. The chunk being filled settles when it is full.
func (rs *records) settle(c int) {
	switch {
	case rs.live[c] == 0:
		rs.release(c)
	case rs.live[c]*2 < cap(rs.chunks[c]) && !rs.queued[c]:
		rs.queued[c] = true
		rs.sparse = append(rs.sparse, c)
	}
}

func (rs *records) release(c int) {
	if rs.cur == c {
		rs.cur = -1
	}
	rs.chunks[c], rs.live[c] = nil, 0
	if !rs.queued[c] {
		rs.spare = append(rs.spare, c)
	}
}

// compact copies the live versions of the chunks queued as sparse to the chunk being
// filled and lets the sparse chunks go. Writes call it once they are done.
func (rs *records) compact() {
	for len(rs.sparse) > 0 {
		c := rs.sparse[len(rs.sparse)-1]
		rs.sparse = rs.sparse[:len(rs.sparse)-1]
		rs.queued[c] = false
		chunk := rs.chunks[c]
		if chunk == nil {
			rs.spare = append(rs.spare, c) // let go while it waited
			continue
		}
		if c == rs.cur || rs.live[c]*2 >= cap(chunk) {
			continue
		}
		for off := 0; off < len(chunk); {
			slot := binary.LittleEndian.Uint32(chunk[off:])
			n := headerSize + int(binary.LittleEndian.Uint32(chunk[off+4:]))
			if rs.ref(slot) == uint64(c)<<32|uint64(off) {
				nc, noff := rs.alloc(n)
				copy(rs.chunks[nc][noff:noff+n], chunk[off:off+n])
				rs.setRef(slot, uint64(nc)<<32|uint64(noff))
				rs.live[c] -= n
			}
			off += n
		}
		rs.release(c)
	}
}

// each calls fn with every slot that holds a record, until it returns false.
func (rs *records) each(fn func(slot uint32) bool) {
	for s := range rs.slots {
		if rs.ref(uint32(s)) != noVersion && !fn(uint32(s)) {
			return
		}
	}
}
