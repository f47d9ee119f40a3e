package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUniqueWithCollidingHashes: when every key has the same hash the index is still exact:
// conflicts only for equal keys, lookups find the right record, deletes and rollbacks keep
// the others.
func TestUniqueWithCollidingHashes(t *testing.T) {
	type rec struct{ ID, Key string }
	db := New()
	tb := NewTable[rec](db, "recs")
	u := tb.AddUnique("key", func(r rec) (string, bool) { return r.Key, r.Key != "" })
	u.collide = func(k string) uint64 { return uint64(len(k) % 2) } // two buckets for all
	put := func(id, key string) error {
		return db.Update(func(tx *Tx) error { return tb.Put(tx, id, rec{ID: id, Key: key}) })
	}
	for i := range 20 {
		if err := put(fmt.Sprint(i), fmt.Sprintf("key-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := put("new", "key-7"); !errors.Is(err, ErrConflict) {
		t.Fatalf("equal key: %v, want a conflict", err)
	}
	if err := db.Update(func(tx *Tx) error { _, _, err := tb.Delete(tx, "0"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := put("3", "key-3b"); err != nil { // a record changing its own key
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_ = db.Update(func(tx *Tx) error {
		_, _, _ = tb.Delete(tx, "5")
		_ = tb.Put(tx, "6", rec{ID: "6", Key: "key-6b"})
		return boom
	})
	_ = db.View(func(tx *Tx) error {
		for i := range 20 {
			key := fmt.Sprintf("key-%d", i)
			pk, _, ok := u.Get(tx, key)
			switch {
			case i == 0 || i == 3:
				if ok {
					t.Errorf("%s still held by %s", key, pk)
				}
			case !ok || pk != fmt.Sprint(i):
				t.Errorf("%s -> %q %v, want %d", key, pk, ok, i)
			}
		}
		if pk, _, ok := u.Get(tx, "key-3b"); !ok || pk != "3" {
			t.Errorf("key-3b -> %q %v", pk, ok)
		}
		if _, _, ok := u.Get(tx, "key-6b"); ok {
			t.Error("a rolled-back key is held")
		}
		return nil
	})
	if err := put("x", "key-0"); err != nil {
		t.Errorf("a deleted record's key is still taken: %v", err)
	}
}

// TestHashIndexAgainstModel adds and removes entries at random, with hashes crowded into
// few homes (so that runs are long, wrap around the end and lose entries from their
// middle), and after each step finds every entry the model holds and none it does not.
func TestHashIndexAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x hashIndex
	x.clear()
	type entry struct {
		h uint64
		s uint32
	}
	var model []entry
	hashes := []uint64{0, 1 << 63, 1<<64 - 1, 1 << 62, 3 << 62, 0x8000_0001_0000_0000}
	for step := range 20000 {
		if len(model) > 0 && rng.IntN(5) < 2 {
			i := rng.IntN(len(model))
			x.remove(model[i].h, model[i].s)
			model = slices.Delete(model, i, i+1)
		} else {
			e := entry{h: hashes[rng.IntN(len(hashes))] ^ uint64(rng.IntN(4))<<32, s: uint32(step)}
			if rng.IntN(3) == 0 {
				e.h = rng.Uint64()
			}
			x.add(e.h, e.s)
			model = append(model, e)
		}
		if x.len() != len(model) {
			t.Fatalf("step %d: %d entries, want %d", step, x.len(), len(model))
		}
		if step%16 != 0 {
			continue
		}
		for _, e := range model {
			if _, ok := x.lookup(e.h, func(s uint32) bool { return s == e.s }); !ok {
				t.Fatalf("step %d: slot %d under %x is lost", step, e.s, e.h)
			}
		}
		if _, ok := x.lookup(hashes[0], func(s uint32) bool { return s == uint32(step)+1 }); ok {
			t.Fatalf("step %d: found a slot never added", step)
		}
	}
}
