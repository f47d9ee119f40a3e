package store

import (
	"errors"
	"fmt"
	"testing"
)

// TestUniqueWithCollidingHashes: when every key has the same hash the index is still exact:
// conflicts only for equal keys, lookups find the right record, deletes and rollbacks keep
// the others.
func TestUniqueWithCollidingHashes(t *testing.T) {
	type rec struct{ ID, Key string }
	db := New()
	tb := NewTable(db, "recs", JSONCodec[rec]())
	u := tb.AddUnique("key", func(b []byte, r rec) ([]byte, bool) { return append(b, r.Key...), r.Key != "" })
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
