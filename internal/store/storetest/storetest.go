// Package storetest is the store's contract: one suite of tests that every engine must pass
// (memory, memory on disk, PostgreSQL). An engine's own test package calls Run with a way
// to open it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/understudy-dev/understudy/internal/store"
)

// Engine describes an engine to the suite.
type Engine struct {
	// Durable: what a database committed comes back when its storage is opened again.
	Durable bool
	// New returns an opener of fresh, empty storage for one test. Each call of the opener
	// opens that same storage (again): it makes a database on it, lets define declare the
	// tables, and loads what the storage holds. The suite closes each database before it
	// opens the storage again.
	New func(t *testing.T) Opener
}

// Opener opens a test's storage; see Engine.New.
type Opener func(define func(db *store.DB)) *store.DB

// rec is the suite's row.
type rec struct {
	ID, Email, Group string
	Tags             []string
}

type fixture struct {
	db      *store.DB
	t       *store.Table[rec]
	byEmail *store.Index[rec]
	byGroup *store.Index[rec]
	count   *store.Index[rec]
	// unsorted is a table whose engine need not keep its keys in order.
	unsorted *store.Table[rec]
	// compact is a table of many small rows (NewCompactTable).
	compact   *store.Table[rec]
	compactBy *store.Index[rec]
	// kept is a table that Replace leaves as it is.
	kept    *store.Table[rec]
	keptBy  *store.Index[rec]
	open    Opener
	durable bool
}

func newFixture(open Opener, durable bool) fixture {
	f := fixture{open: open, durable: durable}
	f.db = open(func(db *store.DB) {
		f.byEmail = store.UniqueIndex("email", func(r rec) (string, bool) { return r.Email, r.Email != "" })
		f.byGroup = store.OrderedIndex("group", func(r rec) (string, bool) { return r.Group, r.Group != "" })
		f.count = store.CountedIndex("groupCount", func(r rec) (string, bool) { return r.Group, r.Group != "" })
		f.t = store.NewTable(db, "recs", f.byEmail, f.byGroup, f.count)
		f.unsorted = store.NewUnsortedTable[rec](db, "unsorted")
		f.compactBy = store.OrderedIndex("compactGroup", func(r rec) (string, bool) { return r.Group, r.Group != "" })
		f.compact = store.NewCompactTable(db, "compact", f.compactBy)
		f.keptBy = store.OrderedIndex("keptGroup", func(r rec) (string, bool) { return r.Group, r.Group != "" })
		f.kept = store.NewKeptTable(db, "kept", f.keptBy)
	})
	return f
}

// reopen closes the database and opens its storage again; an engine that keeps nothing
// returns f itself.
func (f fixture) reopen(t *testing.T) fixture {
	t.Helper()
	if !f.durable {
		return f
	}
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	return newFixture(f.open, f.durable)
}

var ctx = context.Background()

func (f fixture) put(t testing.TB, rs ...rec) {
	t.Helper()
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		for _, r := range rs {
			if err := f.t.Put(tx, r.ID, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("put %v: %v", rs, err)
	}
}

func (f fixture) view(t testing.TB, fn func(tx *store.Tx)) {
	t.Helper()
	if err := f.db.View(ctx, func(tx *store.Tx) error { fn(tx); return nil }); err != nil {
		t.Fatal(err)
	}
}

// Run runs the contract on e.
func Run(t *testing.T, e Engine) {
	tests := []struct {
		name string
		fn   func(t *testing.T, f fixture)
	}{
		{"UniqueConflict", testUniqueConflict},
		{"RollbackUndoesEverything", testRollback},
		{"RollbackOnPanic", testRollbackOnPanic},
		{"RowsAreCopies", testCopies},
		{"ReadOnly", testReadOnly},
		{"OrderedScanAndCursor", testOrderedScan},
		{"ReverseScan", testReverseScan},
		{"PrimaryKeyScan", testPKScan},
		{"ScanWhileChanging", testScanWhileChanging},
		{"Counts", testCounts},
		{"ReopenRestoresEveryIndex", testReopen},
		{"Replace", testReplace},
		{"FailedReplaceKeepsState", testFailedReplace},
		{"ReplaceLeavesKeptTables", testReplaceKept},
		{"Sequences", testSequences},
		{"ConcurrentUniqueInsert", testConcurrentUnique},
		{"ConcurrentCounter", testConcurrentCounter},
		{"AcknowledgedWritesSurvive", testAcknowledged},
		{"CompactTable", testCompact},
		{"KeysInsideKeys", testKeysInsideKeys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newFixture(e.New(t), e.Durable))
		})
	}
}

func testUniqueConflict(t *testing.T, f fixture) {
	f.put(t, rec{ID: "1", Email: "a@x", Group: "g"})
	err := f.db.Update(ctx, func(tx *store.Tx) error { return f.t.Put(tx, "2", rec{ID: "2", Email: "a@x"}) })
	var ce *store.ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, store.ErrConflict) || ce.Holder != "1" || ce.Index != "email" {
		t.Fatalf("got %v, want a conflict on email held by 1", err)
	}
	// The refused Put changed nothing, and the transaction may go on after it.
	err = f.db.Update(ctx, func(tx *store.Tx) error {
		if err := f.t.Put(tx, "2", rec{ID: "2", Email: "a@x"}); !errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("second put: %v", err)
		}
		return f.t.Put(tx, "2", rec{ID: "2", Email: "b@x"})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Re-putting the holder under its own key is not a conflict.
	f.put(t, rec{ID: "1", Email: "a@x", Group: "h"})
	f.view(t, func(tx *store.Tx) {
		if pk, r, ok := f.byEmail.Get(tx, "b@x"); !ok || pk != "2" || r.ID != "2" {
			t.Errorf("b@x -> %q %+v %v", pk, r, ok)
		}
	})
}

func testRollback(t *testing.T, f fixture) {
	f.put(t, rec{ID: "1", Email: "a@x", Group: "g"})
	boom := errors.New("boom")
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		if err := f.t.Put(tx, "1", rec{ID: "1", Email: "b@x", Group: "h"}); err != nil {
			return err
		}
		if err := f.t.Put(tx, "2", rec{ID: "2", Email: "a@x", Group: "h"}); err != nil {
			return err
		}
		if !f.t.Delete(tx, "1") {
			return errors.New("delete found nothing")
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if got, ok := f.t.Get(tx, "1"); !ok || got.Email != "a@x" || got.Group != "g" {
			t.Errorf("row 1 after rollback = %+v, %v", got, ok)
		}
		if _, ok := f.t.Get(tx, "2"); ok {
			t.Error("row 2 survived the rollback")
		}
		if pk, _, ok := f.byEmail.Get(tx, "a@x"); !ok || pk != "1" {
			t.Errorf("email index after rollback: %q %v", pk, ok)
		}
		if _, _, ok := f.byEmail.Get(tx, "b@x"); ok {
			t.Error("email index kept b@x")
		}
		if n := f.count.Count(tx, "h"); n != 0 {
			t.Errorf("count h = %d, want 0", n)
		}
		if n := f.count.Count(tx, "g"); n != 1 {
			t.Errorf("count g = %d, want 1", n)
		}
	})
}

func testRollbackOnPanic(t *testing.T, f fixture) {
	func() {
		defer func() { _ = recover() }()
		_ = f.db.Update(ctx, func(tx *store.Tx) error {
			_ = f.t.Put(tx, "1", rec{ID: "1"})
			panic("boom")
		})
	}()
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if f.t.Len(tx) != 0 {
			t.Error("a panicking transaction left a row")
		}
	})
	f.put(t, rec{ID: "2"}) // and the database still takes changes
}

func testCopies(t *testing.T, f fixture) {
	r := rec{ID: "1", Tags: []string{"a"}}
	f.put(t, r)
	r.Tags[0] = "changed"
	f.view(t, func(tx *store.Tx) {
		got, _ := f.t.Get(tx, "1")
		if got.Tags[0] != "a" {
			t.Errorf("stored row changed through the caller's slice: %v", got.Tags)
		}
		got.Tags[0] = "changed again"
		if again, _ := f.t.Get(tx, "1"); again.Tags[0] != "a" {
			t.Errorf("stored row changed through a returned slice: %v", again.Tags)
		}
	})
}

func testReadOnly(t *testing.T, f fixture) {
	err := f.db.View(ctx, func(tx *store.Tx) error { return f.t.Put(tx, "1", rec{ID: "1"}) })
	if !errors.Is(err, store.ErrReadOnly) {
		t.Fatalf("got %v, want ErrReadOnly", err)
	}
}

// scanIDs collects the ids an ordered scan visits, up to limit, and the cursor of the last.
func scanIDs(tx *store.Tx, x *store.Index[rec], reverse bool, lo, hi string, from *store.Cursor, limit int) (ids []string, last *store.Cursor) {
	visit := func(c store.Cursor, r rec) bool {
		ids = append(ids, r.ID)
		last = &c
		return len(ids) < limit
	}
	if reverse {
		x.ScanReverse(tx, lo, hi, from, visit)
	} else {
		x.Scan(tx, lo, hi, from, visit)
	}
	return ids, last
}

func testOrderedScan(t *testing.T, f fixture) {
	for i := range 10 {
		f.put(t, rec{ID: fmt.Sprintf("%02d", i), Group: string(rune('a' + i%2))})
	}
	f = f.reopen(t) // a durable engine's indexes come back too
	f.view(t, func(tx *store.Tx) {
		got, cur := scanIDs(tx, f.byGroup, false, "a", "b", nil, 3)
		if fmt.Sprint(got) != "[00 02 04]" {
			t.Fatalf("first page = %v", got)
		}
		if cur.Key != "a" || cur.PK != "04" {
			t.Fatalf("cursor = %+v", cur)
		}
		if got, _ = scanIDs(tx, f.byGroup, false, "a", "b", cur, 10); fmt.Sprint(got) != "[06 08]" {
			t.Fatalf("second page = %v", got)
		}
		if all, _ := scanIDs(tx, f.byGroup, false, "", "", nil, 100); len(all) != 10 || all[0] != "00" || all[9] != "09" {
			t.Fatalf("full scan = %v", all)
		}
		c, ok := store.ParseCursor(cur.String())
		if !ok || c != *cur {
			t.Fatalf("cursor round trip: %v %v", c, ok)
		}
	})
}

func testReverseScan(t *testing.T, f fixture) {
	for i := range 6 {
		f.put(t, rec{ID: fmt.Sprintf("%02d", i), Group: string(rune('a' + i%3))})
	}
	f.view(t, func(tx *store.Tx) {
		if got, _ := scanIDs(tx, f.byGroup, true, "", "", nil, 100); fmt.Sprint(got) != "[05 02 04 01 03 00]" {
			t.Errorf("reverse scan = %v", got)
		}
		got, cur := scanIDs(tx, f.byGroup, true, "a", "c", nil, 3)
		if fmt.Sprint(got) != "[04 01 03]" {
			t.Errorf("reverse [a, c) = %v", got)
		}
		if got, _ = scanIDs(tx, f.byGroup, true, "a", "c", cur, 10); fmt.Sprint(got) != "[00]" {
			t.Errorf("reverse after %+v = %v", cur, got)
		}
	})
}

func testPKScan(t *testing.T, f fixture) {
	for _, id := range []string{"p|b", "p|a", "q|a", "p|c", "o|z"} {
		f.put(t, rec{ID: id})
	}
	testPKScanOf(t, f, f.t)
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		for _, id := range []string{"p|b", "p|a", "q|a", "p|c", "o|z"} {
			if err := f.unsorted.Put(tx, id, rec{ID: id}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testPKScanOf(t, f, f.unsorted)
}

func testPKScanOf(t *testing.T, f fixture, table *store.Table[rec]) {
	t.Helper()
	f.view(t, func(tx *store.Tx) {
		var got []string
		var last store.Cursor
		table.Scan(tx, "p|", "p}", nil, func(c store.Cursor, r rec) bool {
			got, last = append(got, r.ID), c
			return len(got) < 2
		})
		if fmt.Sprint(got) != "[p|a p|b]" || last.PK != "p|b" {
			t.Fatalf("scan p| = %v, last %+v", got, last)
		}
		got = nil
		table.Scan(tx, "p|", "p}", &last, func(_ store.Cursor, r rec) bool { got = append(got, r.ID); return true })
		if fmt.Sprint(got) != "[p|c]" {
			t.Fatalf("scan after p|b = %v", got)
		}
		got = nil
		table.Each(tx, func(pk string, r rec) bool { got = append(got, pk); return true })
		if fmt.Sprint(got) != "[o|z p|a p|b p|c q|a]" {
			t.Fatalf("each = %v", got)
		}
		if n := table.Len(tx); n != 5 {
			t.Fatalf("len = %d", n)
		}
	})
}

// testScanWhileChanging: a scan's function may change the table it walks; it sees each row
// as it is when the scan reaches it, and never a removed row.
func testScanWhileChanging(t *testing.T, f fixture) {
	var rs []rec
	for i := range 200 {
		rs = append(rs, rec{ID: fmt.Sprintf("%03d", i), Group: "g"})
	}
	f.put(t, rs...)
	var seen []string
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		seen = seen[:0]
		f.byGroup.Scan(tx, "g", "h", nil, func(_ store.Cursor, r rec) bool {
			seen = append(seen, r.ID)
			// Remove this row and the next; move the one after that out of the group.
			f.t.Delete(tx, r.ID)
			n, _ := strconv.Atoi(r.ID)
			f.t.Delete(tx, fmt.Sprintf("%03d", n+1))
			if err := f.t.Put(tx, fmt.Sprintf("%03d", n+2), rec{ID: fmt.Sprintf("%03d", n+2), Group: "z"}); err != nil {
				t.Error(err)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range seen {
		if want := fmt.Sprintf("%03d", 3*i); id != want {
			t.Fatalf("visited %v, want every third row", seen)
		}
	}
	f.view(t, func(tx *store.Tx) {
		if n := f.count.Count(tx, "g"); n != 0 {
			t.Errorf("group g still counts %d", n)
		}
	})
}

func testCounts(t *testing.T, f fixture) {
	f.put(t, rec{ID: "1", Group: "g"}, rec{ID: "2", Group: "g"}, rec{ID: "3", Group: "h"}, rec{ID: "4"})
	f.put(t, rec{ID: "2", Group: "h"})
	f.view(t, func(tx *store.Tx) {
		for _, c := range []struct {
			x    *store.Index[rec]
			key  string
			want int
		}{{f.count, "g", 1}, {f.count, "h", 2}, {f.count, "", 0}, {f.byGroup, "h", 2}, {f.byEmail, "none", 0}} {
			if n := c.x.Count(tx, c.key); n != c.want {
				t.Errorf("count %q = %d, want %d", c.key, n, c.want)
			}
		}
	})
}

func testReopen(t *testing.T, f fixture) {
	f.put(t, rec{ID: "1", Email: "a@x", Group: "g", Tags: []string{"t"}})
	f.put(t, rec{ID: "2", Email: "b@x", Group: "g"})
	f.put(t, rec{ID: "3", Email: "c@x", Group: "h"})
	f.put(t, rec{ID: "2", Email: "b2@x", Group: "h"}) // moves between groups, changes email
	if err := f.db.Update(ctx, func(tx *store.Tx) error { f.t.Delete(tx, "3"); return nil }); err != nil {
		t.Fatal(err)
	}
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if r, ok := f.t.Get(tx, "1"); !ok || r.Email != "a@x" || !slices.Equal(r.Tags, []string{"t"}) {
			t.Errorf("row 1 = %+v %v", r, ok)
		}
		if _, ok := f.t.Get(tx, "3"); ok {
			t.Error("a deleted row came back")
		}
		if _, _, ok := f.byEmail.Get(tx, "b@x"); ok {
			t.Error("the old email of row 2 is still indexed")
		}
		if pk, _, ok := f.byEmail.Get(tx, "b2@x"); !ok || pk != "2" {
			t.Errorf("b2@x -> %q %v", pk, ok)
		}
		if g, h := f.count.Count(tx, "g"), f.count.Count(tx, "h"); g != 1 || h != 1 {
			t.Errorf("counts g=%d h=%d, want 1 and 1", g, h)
		}
		if inH, _ := scanIDs(tx, f.byGroup, false, "h", "i", nil, 10); fmt.Sprint(inH) != "[2]" {
			t.Errorf("group h = %v", inH)
		}
	})
}

func testReplace(t *testing.T, f fixture) {
	f.put(t, rec{ID: "1", Email: "a@x", Group: "g"}, rec{ID: "2", Email: "b@x", Group: "g"})
	err := f.db.Replace(ctx, func(tx *store.Tx) error {
		if n := f.t.Len(tx); n != 0 {
			return fmt.Errorf("%d rows at the start of a replace", n)
		}
		return f.t.Put(tx, "seed", rec{ID: "seed", Email: "a@x", Group: "s"})
	})
	if err != nil {
		t.Fatal(err)
	}
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if n := f.t.Len(tx); n != 1 {
			t.Errorf("%d rows after replace, want 1", n)
		}
		if pk, _, ok := f.byEmail.Get(tx, "a@x"); !ok || pk != "seed" {
			t.Errorf("a@x -> %q %v, want the seed", pk, ok)
		}
		if n := f.count.Count(tx, "g"); n != 0 {
			t.Errorf("group g counts %d after replace", n)
		}
	})
}

func testFailedReplace(t *testing.T, f fixture) {
	f.put(t, rec{ID: "1", Group: "g"})
	boom := errors.New("bad seed")
	err := f.db.Replace(ctx, func(tx *store.Tx) error {
		_ = f.t.Put(tx, "half", rec{ID: "half"})
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the seed's error", err)
	}
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if _, ok := f.t.Get(tx, "1"); !ok || f.t.Len(tx) != 1 || f.count.Count(tx, "g") != 1 {
			t.Errorf("a failed replace changed the state: %d rows", f.t.Len(tx))
		}
	})
}

// testReplaceKept: a kept table's rows and index keys outlive a Replace (also on disk),
// its changes inside the Replace are kept with it, and a failed Replace undoes them.
func testReplaceKept(t *testing.T, f fixture) {
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		for _, r := range []rec{{ID: "k1", Group: "a"}, {ID: "k2", Group: "b"}} {
			if err := f.kept.Put(tx, r.ID, r); err != nil {
				return err
			}
		}
		return f.t.Put(tx, "1", rec{ID: "1"})
	})
	if err != nil {
		t.Fatal(err)
	}
	var before uint64
	if err := f.db.Update(ctx, func(tx *store.Tx) error { before = tx.Next("kept"); return nil }); err != nil {
		t.Fatal(err)
	}
	err = f.db.Replace(ctx, func(tx *store.Tx) error {
		if n := f.kept.Len(tx); n != 2 {
			return fmt.Errorf("%d kept rows at the start of a replace, want 2", n)
		}
		return f.kept.Put(tx, "k3", rec{ID: "k3", Group: "a"})
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("bad seed")
	if err := f.db.Replace(ctx, func(tx *store.Tx) error {
		f.kept.Delete(tx, "k1")
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the seed's error", err)
	}
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if n := f.t.Len(tx); n != 0 {
			t.Errorf("%d rows in a table the replace emptied", n)
		}
		if ids, _ := scanIDs(tx, f.keptBy, false, "a", "b", nil, 10); fmt.Sprint(ids) != "[k1 k3]" {
			t.Errorf("kept group a = %v, want [k1 k3]", ids)
		}
		if n := f.kept.Len(tx); n != 3 {
			t.Errorf("%d kept rows, want 3", n)
		}
	})
	if err := f.db.Update(ctx, func(tx *store.Tx) error {
		if n := tx.Next("kept"); n <= before {
			return fmt.Errorf("sequence gave %d after a replace, %d before it", n, before)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}

func testSequences(t *testing.T, f fixture) {
	var got []uint64
	next := func(fail bool) {
		err := f.db.Update(ctx, func(tx *store.Tx) error {
			got = append(got, tx.Next("s"))
			if fail {
				return errors.New("roll back")
			}
			return nil
		})
		if (err != nil) != fail {
			t.Fatal(err)
		}
	}
	next(false)
	next(true)
	next(false)
	f = f.reopen(t)
	next(false)
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("sequence went %v: not increasing", got)
		}
	}
	if got[0] < 1 {
		t.Fatalf("sequence starts at %d", got[0])
	}
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		if n := tx.Next("other"); n < 1 {
			return fmt.Errorf("another sequence starts at %d", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testConcurrentUnique races writers for one unique key: exactly one wins.
func testConcurrentUnique(t *testing.T, f fixture) {
	var wg sync.WaitGroup
	var wins atomic.Int32
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := f.db.Update(ctx, func(tx *store.Tx) error {
				if _, _, taken := f.byEmail.Get(tx, "same@x"); taken {
					return store.ErrConflict
				}
				return f.t.Put(tx, fmt.Sprint(i), rec{ID: fmt.Sprint(i), Email: "same@x"})
			})
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, store.ErrConflict):
				t.Errorf("unexpected error %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d writers won, want 1", wins.Load())
	}
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if n := f.t.Len(tx); n != 1 {
			t.Errorf("%d rows after the race, want 1", n)
		}
	})
}

// testConcurrentCounter: read-modify-write transactions racing on one row lose no update.
func testConcurrentCounter(t *testing.T, f fixture) {
	f.put(t, rec{ID: "c", Group: ""})
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := f.db.Update(ctx, func(tx *store.Tx) error {
				r, _ := f.t.Get(tx, "c")
				r.Tags = append(r.Tags, "x")
				return f.t.Put(tx, "c", r)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f.view(t, func(tx *store.Tx) {
		if r, _ := f.t.Get(tx, "c"); len(r.Tags) != 16 || strings.Count(strings.Join(r.Tags, ""), "x") != 16 {
			t.Errorf("%d of 16 increments kept", len(r.Tags))
		}
	})
}

// testAcknowledged: many writers put and delete at once; after a reopen the rows are
// exactly those whose last acknowledged change was a put.
func testAcknowledged(t *testing.T, f fixture) {
	const writers, each = 16, 30
	var wg sync.WaitGroup
	var mu sync.Mutex
	want := map[string]string{}
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("w%02d-%02d", w, i%10) // each writer reuses ten ids
				del := i%7 == 6
				err := f.db.Update(ctx, func(tx *store.Tx) error {
					if del {
						f.t.Delete(tx, id)
						return nil
					}
					return f.t.Put(tx, id, rec{ID: id, Email: id + "@x", Group: fmt.Sprint(i)})
				})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if del {
					delete(want, id)
				} else {
					want[id] = fmt.Sprint(i)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	f = f.reopen(t)
	f.view(t, func(tx *store.Tx) {
		if n := f.t.Len(tx); n != len(want) {
			t.Errorf("%d rows, want %d", n, len(want))
		}
		for id, group := range want {
			if r, ok := f.t.Get(tx, id); !ok || r.Group != group {
				t.Errorf("%s = %+v %v, want group %s", id, r, ok, group)
			}
		}
	})
}

// testCompact: a compact table's rows read back as written, through the primary key, an
// index and a scan, after a rolled-back change and (durable engines) a reopen.
func testCompact(t *testing.T, f fixture) {
	want := map[string]rec{}
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		for i := range 50 {
			r := rec{ID: fmt.Sprintf("c%02d", i), Email: fmt.Sprintf("c%02d@example.com", i), Group: fmt.Sprint(i % 5), Tags: []string{"a", fmt.Sprint(i)}}
			if i == 0 {
				r = rec{ID: "c00"} // the first row is the memory engine's dictionary
			}
			want[r.ID] = r
			if err := f.compact.Put(tx, r.ID, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A change that fails is undone: the rows it replaced and removed are back as they were.
	failed := errors.New("fail")
	err = f.db.Update(ctx, func(tx *store.Tx) error {
		_ = f.compact.Put(tx, "c01", rec{ID: "c01", Group: "changed"})
		f.compact.Delete(tx, "c02")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("failed update: %v", err)
	}
	check := func(f fixture) {
		f.view(t, func(tx *store.Tx) {
			for id, w := range want {
				if got, ok := f.compact.Get(tx, id); !ok || fmt.Sprint(got) != fmt.Sprint(w) {
					t.Errorf("Get(%s) = %v, %v; want %v", id, got, ok, w)
				}
			}
			n := 0
			f.compactBy.Scan(tx, "3", "4", nil, func(_ store.Cursor, r rec) bool {
				if fmt.Sprint(r) != fmt.Sprint(want[r.ID]) || r.Group != "3" {
					t.Errorf("group 3 holds %v", r)
				}
				n++
				return true
			})
			if n != 10 {
				t.Errorf("group 3 has %d rows, want 10", n)
			}
		})
	}
	check(f)
	check(f.reopen(t))
}

// testKeysInsideKeys: a row's keys may repeat each other, other rows' keys and primary
// keys, whole or in part (an engine may keep such a row's strings once); every index still
// finds exactly its rows, through a change, a rollback, a delete and a reopen.
func testKeysInsideKeys(t *testing.T, f fixture) {
	f.put(t,
		rec{ID: "ab", Email: "ab", Group: "ab"}, // every key the primary key
		rec{ID: "b", Email: "ab\x01b", Group: "ab\x01b"},
		rec{ID: "abc", Email: "bc", Group: "b"},
		rec{ID: "a", Email: "a", Group: "ab"},
	)
	check := func(when, groups, emails string, counts map[string]int) {
		t.Helper()
		f.view(t, func(tx *store.Tx) {
			var got []string
			f.byGroup.Scan(tx, "", "", nil, func(c store.Cursor, r rec) bool {
				if c.PK != r.ID || c.Key != r.Group {
					t.Errorf("%s: cursor %q for row %+v", when, c, r)
				}
				got = append(got, c.Key+"="+c.PK)
				return true
			})
			if g := strings.Join(got, " "); g != groups {
				t.Errorf("%s: groups %q, want %q", when, g, groups)
			}
			got = nil
			for _, e := range []string{"a", "ab", "ab\x01b", "b", "bc", "abc"} {
				if pk, r, ok := f.byEmail.Get(tx, e); ok {
					if r.Email != e {
						t.Errorf("%s: email %q finds %+v", when, e, r)
					}
					got = append(got, e+"="+pk)
				}
			}
			if g := strings.Join(got, " "); g != emails {
				t.Errorf("%s: emails %q, want %q", when, g, emails)
			}
			for key, want := range counts {
				if n := f.count.Count(tx, key); n != want {
					t.Errorf("%s: count %q = %d, want %d", when, key, n, want)
				}
			}
		})
	}
	check("put", "ab=a ab=ab ab\x01b=b b=abc", "a=a ab=ab ab\x01b=b bc=abc", map[string]int{"ab": 2, "b": 1, "ab\x01b": 1, "a": 0})
	f.put(t, rec{ID: "ab", Email: "ab", Group: "b"}) // its email stays, its group changes
	check("changed", "ab=a ab\x01b=b b=ab b=abc", "a=a ab=ab ab\x01b=b bc=abc", map[string]int{"ab": 1, "b": 2})
	boom := errors.New("boom")
	err := f.db.Update(ctx, func(tx *store.Tx) error {
		if err := f.t.Put(tx, "a", rec{ID: "a", Email: "abc", Group: "abc"}); err != nil {
			return err
		}
		f.t.Delete(tx, "b")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("rolled back: %v", err)
	}
	check("rolled back", "ab=a ab\x01b=b b=ab b=abc", "a=a ab=ab ab\x01b=b bc=abc", map[string]int{"ab": 1, "b": 2, "abc": 0})
	if err := f.db.Update(ctx, func(tx *store.Tx) error { f.t.Delete(tx, "ab"); return nil }); err != nil {
		t.Fatal(err)
	}
	check("deleted", "ab=a ab\x01b=b b=abc", "a=a ab\x01b=b bc=abc", map[string]int{"ab": 1, "b": 1})
	f = f.reopen(t)
	check("reopened", "ab=a ab\x01b=b b=abc", "a=a ab\x01b=b bc=abc", map[string]int{"ab": 1, "b": 1})
}
