package store_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	. "github.com/understudy-dev/understudy/internal/store"
)

// The benchmarks below measure one write transaction at a time, in memory, on a table with
// a unique, an ordered and a counting index (the fixture's): the store's share of a request.
// Keys and records are made before the timer starts, so what is counted is the store's own.

func benchFixture(b *testing.B) fixture {
	db := New()
	tb := NewTable(db, "recs", recCodec)
	return fixture{
		db: db,
		t:  tb,
		byEmail: tb.AddUnique("email", func(b []byte, r rec) ([]byte, bool) {
			return append(append(append(b, r.Group...), '|'), r.Email...), r.Email != ""
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

// BenchmarkOperationPut stores a finished operation with a requestId per transaction, as
// an immediate operation is stored (two unique and three ordered indexes).
func BenchmarkOperationPut(b *testing.B) {
	db := New()
	ops := NewOperations(db)
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	all := make([]Operation, b.N)
	for i := range all {
		all[i] = Operation{Scope: "projects/bench/global", Project: "bench", Name: fmt.Sprintf("operation-%d-abc", i),
			ID: strconv.Itoa(1000000 + i), Seq: uint64(i + 1), Kind: "forwardingRules.insert", OperationType: "insert",
			Target: "bench|fr-" + strconv.Itoa(i), ClientOperationID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			Status: "DONE", Progress: 100, InsertTime: now, StartTime: now, EndTime: now.Add(time.Duration(i)), DueTime: now}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		op := all[i]
		if err := db.Update(func(tx *Tx) error { return ops.Ops.Put(tx, op.Key(), op) }); err != nil {
			b.Fatal(err)
		}
	}
}
