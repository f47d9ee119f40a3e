package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestPutKeepsIndexesExact runs random puts and deletes, some in transactions that fail,
// over few keys (so that records change and swap index keys, and conflicts happen), and
// after each transaction checks the table against a model and every index against the
// rows: Put changes only the index entries whose keys changed, and that must leave the
// indexes exactly what indexing the rows from scratch would give. Records are put again
// and again, so chunks die and are compacted all along.
func TestPutKeepsIndexesExact(t *testing.T) {
	for _, collide := range []bool{false, true} {
		t.Run(fmt.Sprint("collide=", collide), func(t *testing.T) {
			db := New()
			tb := NewTable[rec](db, "recs")
			byEmail := tb.AddUnique("email", func(r rec) (string, bool) { return "e|" + r.Email, r.Email != "" })
			byGroup := tb.AddUnique("group+other", func(r rec) (string, bool) {
				return r.Group + "|" + r.Other, r.Other != ""
			})
			if collide {
				byEmail.collide = func(k string) uint64 { return uint64(len(k) % 2) }
				byGroup.collide = func(string) uint64 { return 7 }
			}
			inGroup := tb.AddOrdered(func(r rec) (string, bool) { return r.Group, r.Group != "" })
			byOther := tb.AddOrdered(func(r rec) (string, bool) { return "o|" + r.Other, true })
			pkOrder := tb.AddPKOrder()
			// Numbered: grouped by Group, numbered by what Email and Other pick, so that a
			// record changes group, number or neither.
			numbered := tb.AddNumbered(func(r rec) (string, uint64, bool) {
				return r.Group, uint64(len(r.Other))*8 + uint64(len(r.Email)), r.Email != "y"
			})
			count := tb.AddCounter(func(r rec) (string, bool) { return r.Group, r.Group != "" })

			rng := rand.New(rand.NewPCG(1, 2))
			pick := func(s ...string) string { return s[rng.IntN(len(s))] }
			model := map[string]rec{}
			for step := range 3000 {
				next := maps.Clone(model)
				fail := rng.IntN(4) == 0
				err := db.Update(func(tx *Tx) error {
					for range 1 + rng.IntN(4) {
						// A key made afresh each time, as one cut from a request would be.
						pk := strings.Clone(pick("a", "b", "c", "d", "e", "f"))
						if rng.IntN(5) == 0 {
							if _, ok, err := tb.Delete(tx, pk); err != nil || ok != hasKey(next, pk) {
								return fmt.Errorf("delete %s: %v %v", pk, ok, err)
							}
							delete(next, pk)
							continue
						}
						r := rec{Email: pick("", "x", "y", "z", "w"), Group: pick("", "g1", "g2"), Other: pick("", "1", "2", "3")}
						if rng.IntN(3) == 0 {
							if cur, ok := next[pk]; ok {
								r = cur // put again unchanged, as a finisher does
								r.Other = pick(r.Other, r.Other, "", "1")
							}
						}
						err := tb.Put(tx, pk, r)
						if want := modelConflict(next, pk, r); (err != nil) != want {
							return fmt.Errorf("put %s %+v: %v, want conflict %v", pk, r, err, want)
						}
						if err != nil {
							if !errors.Is(err, ErrConflict) {
								return err
							}
							continue
						}
						next[pk] = r
					}
					if fail {
						return errBoom
					}
					return nil
				})
				if err != nil && !errors.Is(err, errBoom) {
					t.Fatalf("step %d: %v", step, err)
				}
				if err == nil {
					model = next
				}
				if rows := rowsOf(tb); !maps.Equal(rows, model) {
					t.Fatalf("step %d: rows %v, want %v", step, rows, model)
				}
				checkIndexes(t, step, tb, []*Unique[rec]{byEmail, byGroup}, []*Ordered[rec]{inGroup, byOther, pkOrder}, []*Numbered[rec]{numbered}, count)
			}
		})
	}
}

var errBoom = errors.New("boom")

func hasKey[R any](m map[string]R, k string) bool { _, ok := m[k]; return ok }

// rec is the test's record: few values, so that keys are shared and swapped often.
type rec struct{ Email, Group, Other string }

// modelConflict: would putting r under pk give a unique key of r to another record?
func modelConflict(m map[string]rec, pk string, r rec) bool {
	keys := func(c rec) []string {
		var out []string
		if c.Email != "" {
			out = append(out, "email "+c.Email)
		}
		if c.Other != "" {
			out = append(out, "group+other "+c.Group+"|"+c.Other)
		}
		return out
	}
	for _, k := range keys(r) {
		for opk, o := range m {
			if opk != pk && slices.Contains(keys(o), k) {
				return true
			}
		}
	}
	return false
}

// TestKeysInTheRecordAreKeptOnce: a primary key or an ordered index's key that the
// record's encoding holds (a name that is the key, a scope) is kept as its place there, not
// as a second copy; a key made of several fields is kept whole. Either way it reads back.
func TestKeysInTheRecordAreKeptOnce(t *testing.T) {
	type named struct{ Name, Group string }
	db := New()
	tb := NewTable[named](db, "named")
	byGroup := tb.AddOrdered(func(r named) (string, bool) { return r.Group, r.Group != "" })
	joined := tb.AddOrdered(func(r named) (string, bool) { return r.Name + "/" + r.Group, true })
	count := tb.AddCounter(func(r named) (string, bool) { return r.Group, true })
	put := func(pk string, r named) {
		if err := db.Update(func(tx *Tx) error { return tb.Put(tx, pk, r) }); err != nil {
			t.Fatal(err)
		}
	}
	put("alpha-name", named{Name: "alpha-name", Group: "group-1"})
	put("other-key", named{Name: "beta-name", Group: ""})
	// extra is how many bytes a version holds beyond its key table and the record's
	// encoding: the keys it does not find in the encoding.
	extra := func(pk string) int {
		slot, ok := tb.find(tb.hash(pk), pk)
		if !ok {
			t.Fatalf("%s is not stored", pk)
		}
		r := tb.decode(slot)
		var e encoder
		encode(&e, tb.codec, unsafe.Pointer(&r))
		return len(tb.recs.payload(slot)) - 8*3 - len(e.b)
	}
	// alpha-name's key and group are in its encoding; only the joined key is not.
	if got, want := extra("alpha-name"), len("alpha-name/group-1"); got != want {
		t.Errorf("alpha-name keeps %d bytes of keys, want %d", got, want)
	}
	// other-key's primary key is not its name: it is kept, and so is the joined key.
	if got, want := extra("other-key"), len("other-key")+len("beta-name/"); got != want {
		t.Errorf("other-key keeps %d bytes of keys, want %d", got, want)
	}
	checkIndexes(t, 0, tb, nil, []*Ordered[named]{byGroup, joined}, nil, count)
}

// segmentEntries is each segment's array of an index.
func segmentEntries(x *hashIndex) [][]uint64 {
	var out [][]uint64
	for _, g := range x.segs {
		out = append(out, g.e)
	}
	return out
}

// rowsOf is every record of tb, by primary key.
func rowsOf[R any](tb *Table[R]) map[string]R {
	rows := map[string]R{}
	tb.Each(&readTx, func(pk string, r R) bool {
		rows[pk] = r
		return true
	})
	return rows
}

// checkIndexes compares every index of t with what indexing its records afresh gives, and
// checks the records' chunks: every slot's version where its slot says, and each chunk's
// live bytes what its live versions take.
func checkIndexes[R any](t *testing.T, step int, tb *Table[R], us []*Unique[R], os []*Ordered[R], ns []*Numbered[R], c *Counter[R]) {
	t.Helper()
	checkRecords(t, step, &tb.recs)
	rows := rowsOf(tb)
	if len(rows) != tb.recs.count {
		t.Fatalf("step %d: %d records, counted %d", step, len(rows), tb.recs.count)
	}
	slotOf := map[string]uint32{}
	tb.recs.each(func(slot uint32) bool {
		pk := tb.pkOf(slot)
		if s, ok := tb.find(tb.hash(pk), pk); !ok || s != slot {
			t.Fatalf("step %d: %q is in slot %d, found in %d %v", step, pk, slot, s, ok)
		}
		slotOf[pk] = slot
		return true
	})
	for _, u := range us {
		want := 0
		for pk, r := range rows {
			kb, ok := u.key(r)
			if !ok {
				continue
			}
			want++
			if holder, _, found := u.Get(&readTx, kb); !found || holder != pk {
				t.Fatalf("step %d: %s %q -> %q %v, want %q", step, u.name, kb, holder, found, pk)
			}
		}
		got := 0
		for _, e := range slices.Concat(segmentEntries(&u.idx)...) {
			if e == 0 {
				continue
			}
			got++
			s := uint32(e) - 1
			if k, ok := u.key(tb.decode(s)); !ok || u.hash(k)>>32 != e>>32 {
				t.Fatalf("step %d: %s: slot %d sits under a hash not its key's", step, u.name, s)
			}
		}
		if got != want || got != u.idx.len() {
			t.Fatalf("step %d: %s has %d entries, want %d", step, u.name, got, want)
		}
	}
	type entry struct{ key, pk string }
	for i, o := range os {
		var want, got []entry
		for pk, r := range rows {
			if o.key == nil {
				want = append(want, entry{pk, pk})
			} else if k, ok := o.key(r); ok {
				want = append(want, entry{k, pk})
			}
		}
		slices.SortFunc(want, func(a, b entry) int { return compareEntry(a.key, a.pk, b.key, b.pk) })
		for _, chunk := range o.list.chunks {
			if len(chunk) == 0 || len(chunk) > chunkMax {
				t.Fatalf("step %d: ordered index %d: a chunk of %d entries", step, i, len(chunk))
			}
			for _, s := range chunk {
				k, pk := o.entry(s)
				got = append(got, entry{k, pk})
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: ordered index %d = %v, want %v", step, i, got, want)
		}
	}
	for i, x := range ns {
		type placed struct {
			group string
			e     testEntry
		}
		var want, got []placed
		for pk, r := range rows {
			if g, n, ok := x.key(r); ok {
				want = append(want, placed{g, testEntry{n: n, pk: pk}})
			}
		}
		slices.SortFunc(want, func(a, b placed) int {
			if c := strings.Compare(a.group, b.group); c != 0 {
				return c
			}
			return a.e.compare(b.e)
		})
		for _, g := range slices.Sorted(maps.Keys(x.groups)) {
			l := x.groups[g]
			if len(l.chunks) == 0 {
				t.Fatalf("step %d: numbered index %d keeps an empty list for %q", step, i, g)
			}
			for _, chunk := range l.chunks {
				if len(chunk) == 0 || len(chunk) > chunkMax {
					t.Fatalf("step %d: numbered index %d: a chunk of %d entries", step, i, len(chunk))
				}
				for _, e := range chunk {
					te := testEntry{n: e.n, pk: tb.pkOf(e.slot)}
					if len(got) > 0 && got[len(got)-1].group == g && got[len(got)-1].e.compare(te) >= 0 {
						t.Fatalf("step %d: numbered index %d: %v after %v", step, i, te, got[len(got)-1].e)
					}
					got = append(got, placed{g, te})
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: numbered index %d = %v, want %v", step, i, got, want)
		}
	}
	want := map[string]int{}
	for _, r := range rows {
		if k, ok := c.key(r); ok {
			want[k]++
		}
	}
	if !maps.Equal(c.n, want) {
		t.Fatalf("step %d: counts %v, want %v", step, c.n, want)
	}
}

// checkRecords checks the chunks: each slot's version is where the slot says and names the
// slot, each chunk's live bytes are what its live versions take, a chunk let go holds
// nothing, and no chunk but the one being filled is less than half live for long (it is
// compacted once a write is done).
func checkRecords(t *testing.T, step int, rs *records) {
	t.Helper()
	live := make([]int, len(rs.chunks))
	for slot := range rs.slots {
		ref := rs.ref(uint32(slot))
		if ref == noVersion {
			continue
		}
		c, off := int(ref>>32), int(uint32(ref))
		chunk := rs.chunks[c]
		if chunk == nil || off+headerSize > len(chunk) {
			t.Fatalf("step %d: slot %d points past its chunk %d", step, slot, c)
		}
		if got := binary.LittleEndian.Uint32(chunk[off:]); got != uint32(slot) {
			t.Fatalf("step %d: slot %d's version names slot %d", step, slot, got)
		}
		live[c] += headerSize + int(binary.LittleEndian.Uint32(chunk[off+4:]))
	}
	for c, chunk := range rs.chunks {
		if live[c] != rs.live[c] {
			t.Fatalf("step %d: chunk %d counts %d live bytes, holds %d", step, c, rs.live[c], live[c])
		}
		if chunk == nil {
			continue
		}
		if c != rs.cur && live[c]*2 < cap(chunk) {
			t.Fatalf("step %d: chunk %d is %d of %d bytes live, and not compacted", step, c, live[c], cap(chunk))
		}
	}
	if len(rs.sparse) > 0 {
		t.Fatalf("step %d: %d chunks wait for compaction after a write", step, len(rs.sparse))
	}
}
