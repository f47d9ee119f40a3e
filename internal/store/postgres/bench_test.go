package postgres_test

import (
	"fmt"
	"testing"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
)

// BenchmarkCreate: one write transaction as a create makes it: a read of the name, a count
// (of one of 100 groups), a Put with an index key of each kind.
func BenchmarkCreate(b *testing.B) {
	type row struct{ ID, Group string }
	var tab *store.Table[row]
	var count *store.Index[row]
	db, _ := open(b, pgtest.URL(b), func(db *store.DB) {
		count = store.CountedIndex("n", func(r row) (string, bool) { return r.Group, true })
		tab = store.NewTable(db, "t", store.UniqueIndex("id", func(r row) (string, bool) { return r.ID, true }),
			store.OrderedIndex("g", func(r row) (string, bool) { return r.Group, true }), count)
	})
	b.ResetTimer()
	for i := range b.N {
		err := db.Update(ctx, func(tx *store.Tx) error {
			id, group := fmt.Sprintf("%09d", i), fmt.Sprint(i%100)
			if _, ok := tab.Get(tx, id); ok {
				return store.ErrConflict
			}
			count.Count(tx, group)
			return tab.Put(tx, id, row{id, group})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet: one read transaction of one row.
func BenchmarkGet(b *testing.B) {
	type row struct{ ID string }
	var tab *store.Table[row]
	db, _ := open(b, pgtest.URL(b), func(db *store.DB) { tab = store.NewTable[row](db, "t") })
	if err := db.Update(ctx, func(tx *store.Tx) error { return tab.Put(tx, "x", row{"x"}) }); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		_ = db.View(ctx, func(tx *store.Tx) error { tab.Get(tx, "x"); return nil })
	}
}
