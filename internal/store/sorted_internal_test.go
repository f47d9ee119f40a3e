package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// testEntry is a sorted list's entry in the tests: a number, then a key, as a numbered
// index orders its entries.
type testEntry struct {
	n  uint64
	pk string
}

// at compares an entry with a, as sorted's methods are given; atFence compares a fence.
func (a testEntry) at(x testEntry) int { return x.compare(a) }

func (a testEntry) atFence(f string) int { return strings.Compare(f, a.fence()) }

// fence is the entry as a string that orders as entries do.
func (a testEntry) fence() string { return fmt.Sprintf("%020d%s%s", a.n, sep, a.pk) }

func (a testEntry) compare(b testEntry) int {
	switch {
	case a.n < b.n:
		return -1
	case a.n > b.n:
		return 1
	}
	return strings.Compare(a.pk, b.pk)
}

// TestSortedAgainstModel puts and removes entries in a sorted list, in order (as
// operations come), out of order, again, from the front (as retention removes them) and
// anywhere, past many chunks, and after each step checks the list against a sorted model:
// the same entries, in order, in chunks neither empty nor over chunkMax, and with fences
// each its chunk's last entry's, in a list that keeps them.
func TestSortedAgainstModel(t *testing.T) {
	for _, fenced := range []bool{false, true} {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("fenced=%v/seed=%d", fenced, seed), func(t *testing.T) {
				var l sorted[testEntry]
				if fenced {
					l.fence = testEntry.fence
				}
				checkSortedAgainstModel(t, &l, seed)
			})
		}
	}
}

// checkSortedAgainstModel runs TestSortedAgainstModel's steps on l.
func checkSortedAgainstModel(t *testing.T, l *sorted[testEntry], seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var model []testEntry
	next := uint64(0)
	for step := range 20000 {
		switch op := rng.IntN(10); {
		case op < 4: // in order
			next += uint64(rng.IntN(3)) // equal numbers too: the key orders them
			e := testEntry{n: next, pk: fmt.Sprint("p", step)}
			l.put(e, e.at, e.atFence)
			model = insertModel(model, e)
		case op < 6: // anywhere
			e := testEntry{n: uint64(rng.IntN(int(next) + 10)), pk: fmt.Sprint("q", rng.IntN(50))}
			l.put(e, e.at, e.atFence)
			model = insertModel(model, e)
		case op < 7 && len(model) > 0: // the oldest
			if !l.remove(model[0].at, model[0].atFence) {
				t.Fatalf("step %d: remove(%v) found nothing", step, model[0])
			}
			model = model[1:]
		case op < 9 && len(model) > 0: // any
			i := rng.IntN(len(model))
			if !l.remove(model[i].at, model[i].atFence) {
				t.Fatalf("step %d: remove(%v) found nothing", step, model[i])
			}
			model = slices.Delete(model, i, i+1)
		case op < 10 && len(model) > 0 && rng.IntN(2) == 0: // put again: the last, or any
			e := model[len(model)-1]
			if rng.IntN(2) == 0 {
				e = model[rng.IntN(len(model))]
			}
			l.put(e, e.at, e.atFence)
		default: // absent
			if e := (testEntry{n: next + 1000, pk: "absent"}); l.remove(e.at, e.atFence) {
				t.Fatalf("step %d: removed %v, which was never put", step, e)
			}
		}
		if step%8 != 0 {
			continue // checked every few steps: the check walks the whole list
		}
		var got []testEntry
		for _, chunk := range l.chunks {
			if len(chunk) == 0 || len(chunk) > chunkMax {
				t.Fatalf("step %d: a chunk of %d entries", step, len(chunk))
			}
			got = append(got, chunk...)
		}
		if !slices.Equal(got, model) {
			t.Fatalf("step %d: list of %d entries differs from the model of %d", step, len(got), len(model))
		}
		if l.fence != nil {
			if len(l.fences) != max(len(l.chunks)-1, 0) {
				t.Fatalf("step %d: %d fences for %d chunks", step, len(l.fences), len(l.chunks))
			}
			for c, f := range l.fences {
				if last := l.chunks[c][len(l.chunks[c])-1]; f != last.fence() {
					t.Fatalf("step %d: chunk %d's fence is %q, its last entry %v", step, c, f, last)
				}
			}
		} else if len(l.fences) != 0 {
			t.Fatalf("step %d: fences in a list without", step)
		}
	}
	if len(l.chunks) < 3 {
		t.Fatalf("seed %d: only %d chunks: the test did not cross chunks", seed, len(l.chunks))
	}
}

// insertModel puts e into the sorted model, replacing an equal entry.
func insertModel(m []testEntry, e testEntry) []testEntry {
	i, found := slices.BinarySearchFunc(m, e, testEntry.compare)
	if found {
		m[i] = e
		return m
	}
	return slices.Insert(m, i, e)
}

// TestNumberedScanRanges: scans of a group of thousands of records, over random ranges,
// visit exactly the records in range, in order, and stop when fn says so.
func TestNumberedScanRanges(t *testing.T) {
	type rec struct {
		PK    string
		Group string
		N     uint64
	}
	db := New()
	tb := NewTable[rec](db, "recs")
	byN := tb.AddNumbered(func(r rec) (string, uint64, bool) { return r.Group, r.N, true })
	rng := rand.New(rand.NewPCG(5, 5))
	var all []rec
	if err := db.Update(func(tx *Tx) error {
		for i := range 3000 {
			r := rec{PK: fmt.Sprint("r", i), Group: []string{"a", "b"}[rng.IntN(2)], N: uint64(rng.IntN(2000))}
			all = append(all, r)
			if err := tb.Put(tx, r.PK, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b rec) int {
		return testEntry{n: a.N, pk: a.PK}.compare(testEntry{n: b.N, pk: b.PK})
	})
	for range 200 {
		lo, hi := uint64(rng.IntN(2100)), uint64(rng.IntN(2100))
		limit := 1 + rng.IntN(3000)
		var want, got []string
		for _, r := range all {
			if r.Group == "a" && r.N >= lo && r.N < hi && len(want) < limit {
				want = append(want, r.PK)
			}
		}
		db.View(func(tx *Tx) error {
			byN.Scan(tx, "a", lo, hi, func(r rec) bool {
				got = append(got, r.PK)
				return len(got) < limit
			})
			return nil
		})
		if !slices.Equal(got, want) {
			t.Fatalf("Scan(a, %d, %d) with a limit of %d: %d records, want %d", lo, hi, limit, len(got), len(want))
		}
	}
}

// TestOrderedScansAgainstModel: over thousands of records whose keys repeat (so that the
// primary key orders entries of one key), Scan from a range's start or after a cursor, and
// ScanBackward from a cursor, visit exactly what a sorted model says, in order.
func TestOrderedScansAgainstModel(t *testing.T) {
	type rec struct{ PK, Key string }
	db := New()
	tb := NewTable[rec](db, "recs")
	byKey := tb.AddOrdered(func(r rec) (string, bool) { return r.Key, r.Key != "k13" })
	rng := rand.New(rand.NewPCG(11, 12))
	model := map[string]rec{}
	if err := db.Update(func(tx *Tx) error {
		for range 5000 {
			r := rec{PK: fmt.Sprint("p", rng.IntN(4000)), Key: fmt.Sprint("k", rng.IntN(40))}
			model[r.PK] = r
			if err := tb.Put(tx, r.PK, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var sortedModel []Cursor
	for _, r := range model {
		if r.Key != "k13" {
			sortedModel = append(sortedModel, Cursor{Key: r.Key, PK: r.PK})
		}
	}
	slices.SortFunc(sortedModel, func(a, b Cursor) int { return compareEntry(a.Key, a.PK, b.Key, b.PK) })
	for range 300 {
		lo, hi := fmt.Sprint("k", rng.IntN(45)), fmt.Sprint("k", rng.IntN(45))
		cur := Cursor{Key: fmt.Sprint("k", rng.IntN(45)), PK: fmt.Sprint("p", rng.IntN(4100))}
		limit := 1 + rng.IntN(600)
		var wantFwd, wantBack, gotFwd, gotBack []Cursor
		for _, c := range sortedModel {
			if c.Key >= lo && c.Key < hi && compareEntry(c.Key, c.PK, cur.Key, cur.PK) > 0 && len(wantFwd) < limit {
				wantFwd = append(wantFwd, c)
			}
		}
		for i := len(sortedModel) - 1; i >= 0; i-- {
			c := sortedModel[i]
			if c.Key >= lo && c.Key < hi && compareEntry(c.Key, c.PK, cur.Key, cur.PK) <= 0 && len(wantBack) < limit {
				wantBack = append(wantBack, c)
			}
		}
		_ = db.View(func(tx *Tx) error {
			byKey.Scan(tx, lo, hi, &cur, func(c Cursor, r rec) bool {
				if r.PK != c.PK || r.Key != c.Key {
					t.Fatalf("cursor %v with record %v", c, r)
				}
				gotFwd = append(gotFwd, c)
				return len(gotFwd) < limit
			})
			byKey.ScanBackward(tx, lo, hi, cur, func(c Cursor, r rec) bool {
				gotBack = append(gotBack, c)
				return len(gotBack) < limit
			})
			return nil
		})
		if !slices.Equal(gotFwd, wantFwd) {
			t.Fatalf("Scan(%s, %s, after %v): %d entries, want %d", lo, hi, cur, len(gotFwd), len(wantFwd))
		}
		if !slices.Equal(gotBack, wantBack) {
			t.Fatalf("ScanBackward(%s, %s, %v): %d entries, want %d", lo, hi, cur, len(gotBack), len(wantBack))
		}
	}
}
