package store_test

import (
	"strconv"
	"testing"

	. "github.com/understudy-dev/understudy/internal/store"
)

// The benchmarks below measure one write transaction at a time, in memory, on a table with
// a unique, an ordered and a counting index (the fixture's): the store's share of a request.
// Keys and records are made before the timer starts, so what is counted is the store's own.

func benchFixture(b *testing.B) fixture {
	db := New()
	tb := NewTable[rec](db, "recs")
	return fixture{
		db: db,
		t:  tb,
		byEmail: tb.AddUnique("email", func(r rec) (string, bool) {
			return r.Group + "|" + r.Email, r.Email != ""
		}),
		byGroup: tb.AddOrdered(func(r rec) (string, bool) { return r.Group + "|" + r.Email, true }),
		count:   tb.AddCounter(func(r rec) (string, bool) { return r.Group, true }),
	}
}

func benchRecs(n int) []rec {
	rs := make([]rec, n)
	for i := range rs {
		id := strconv.Itoa(i)
		rs[i] = rec{ID: "rec-" + id, Email: "user-" + id + "@example.com", Group: "group-" + strconv.Itoa(i%100)}
	}
	return rs
}

// BenchmarkPut: "insert" adds a new record per transaction; "update" puts an existing record
// again with its index keys unchanged (as a finisher does); "insert+update" does both in one
// transaction, as an insert with an immediate operation does.
func BenchmarkPut(b *testing.B) {
	b.Run("insert", func(b *testing.B) {
		f := benchFixture(b)
		rs := benchRecs(b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			f.put(b, rs[i])
		}
	})
	b.Run("update", func(b *testing.B) {
		f := benchFixture(b)
		rs := benchRecs(10000)
		for _, r := range rs {
			f.put(b, r)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			f.put(b, rs[i%len(rs)])
		}
	})
	b.Run("insert+update", func(b *testing.B) {
		f := benchFixture(b)
		rs := benchRecs(b.N)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			r := rs[i]
			err := f.db.Update(func(tx *Tx) error {
				if err := f.t.Put(tx, r.ID, r); err != nil {
					return err
				}
				got, _ := f.t.Get(tx, r.ID)
				got.Tags = nil
				return f.t.Put(tx, r.ID, got)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
