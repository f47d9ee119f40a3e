package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNumListAgainstModel puts and removes entries in a numbered list, in order (as
// operations come), out of order, again, from the front (as retention removes them) and
// anywhere, past many chunks, and after each step checks the list against a sorted model: the same
// entries, in order, in chunks neither empty nor over chunkMax.
func TestNumListAgainstModel(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		rng := rand.New(rand.NewPCG(seed, 7))
		var l numList
		var model []numEntry
		next := uint64(0)
		for step := range 20000 {
			switch op := rng.IntN(10); {
			case op < 4: // in order
				next += uint64(rng.IntN(3)) // equal numbers too: the key orders them
				e := numEntry{n: next, pk: fmt.Sprint("p", step)}
				l.put(e)
				model = insertModel(model, e)
			case op < 6: // anywhere
				e := numEntry{n: uint64(rng.IntN(int(next) + 10)), pk: fmt.Sprint("q", rng.IntN(50))}
				l.put(e)
				model = insertModel(model, e)
			case op < 7 && len(model) > 0: // the oldest
				if !l.remove(model[0]) {
					t.Fatalf("step %d: remove(%v) found nothing", step, model[0])
				}
				model = model[1:]
			case op < 9 && len(model) > 0: // any
				i := rng.IntN(len(model))
				if !l.remove(model[i]) {
					t.Fatalf("step %d: remove(%v) found nothing", step, model[i])
				}
				model = slices.Delete(model, i, i+1)
			case op < 10 && len(model) > 0 && rng.IntN(2) == 0: // put again: the last, or any
				e := model[len(model)-1]
				if rng.IntN(2) == 0 {
					e = model[rng.IntN(len(model))]
				}
				l.put(e)
			default: // absent
				if e := (numEntry{n: next + 1000, pk: "absent"}); l.remove(e) {
					t.Fatalf("step %d: removed %v, which was never put", step, e)
				}
			}
			if step%8 != 0 {
				continue // checked every few steps: the check walks the whole list
			}
			var got []numEntry
			for _, chunk := range l.chunks {
				if len(chunk) == 0 || len(chunk) > chunkMax {
					t.Fatalf("step %d: a chunk of %d entries", step, len(chunk))
				}
				got = append(got, chunk...)
			}
			if !slices.Equal(got, model) {
				t.Fatalf("step %d: list of %d entries differs from the model of %d", step, len(got), len(model))
			}
		}
		if len(l.chunks) < 3 {
			t.Fatalf("seed %d: only %d chunks: the test did not cross chunks", seed, len(l.chunks))
		}
	}
}

// insertModel puts e into the sorted model, replacing an equal entry.
func insertModel(m []numEntry, e numEntry) []numEntry {
	i, found := slices.BinarySearchFunc(m, e, numEntry.compare)
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
	tb := NewTable[rec](db, "recs", nil)
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
		return numEntry{n: a.N, pk: a.PK}.compare(numEntry{n: b.N, pk: b.PK})
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
