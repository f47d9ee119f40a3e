package store_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	. "github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/bolt"
)

// The suite below runs on every backend: in memory, and on disk through bolt. On disk each
// fixture can be reopened from its directory, and the tests check what they read after a
// reopen as well, so what was acknowledged is what comes back.

type rec struct {
	ID, Email, Group string
	Tags             []string
}

type fixture struct {
	db      *DB
	t       *Table[rec]
	byEmail *Unique[rec]
	byGroup *Ordered[rec]
	count   *Counter[rec]
	dir     string // "" in memory
}

// backends are the ways a fixture can keep its data.
var backends = []string{"memory", "bolt"}

// forEachBackend runs test once per backend.
func forEachBackend(t *testing.T, test func(t *testing.T, f fixture)) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			dir := ""
			if b == "bolt" {
				dir = t.TempDir()
			}
			test(t, openFixture(t, dir))
		})
	}
}

// openFixture makes the tables and, for a directory, opens them on disk.
func openFixture(t *testing.T, dir string) fixture {
	t.Helper()
	db := New()
	tb := NewTable[rec](db, "recs")
	f := fixture{
		db:      db,
		t:       tb,
		byEmail: tb.AddUnique("email", func(r rec) (string, bool) { return r.Email, r.Email != "" }),
		byGroup: tb.AddOrdered(func(r rec) (string, bool) { return r.Group, true }),
		count:   tb.AddCounter(func(r rec) (string, bool) { return r.Group, true }),
		dir:     dir,
	}
	if dir != "" {
		if _, err := db.Open(openBolt(t, dir)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
	}
	return f
}

// reopen closes a fixture on disk and opens its directory again: what comes back is what
// was written. In memory it returns f itself.
func (f fixture) reopen(t *testing.T) fixture {
	t.Helper()
	if f.dir == "" {
		return f
	}
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	return openFixture(t, f.dir)
}

func (f fixture) put(t testing.TB, r rec) {
	t.Helper()
	if err := f.db.Update(func(tx *Tx) error { return f.t.Put(tx, r.ID, r) }); err != nil {
		t.Fatalf("put %v: %v", r, err)
	}
}

func TestUniqueConflict(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		f.put(t, rec{ID: "1", Email: "a@x", Group: "g"})
		err := f.db.Update(func(tx *Tx) error { return f.t.Put(tx, "2", rec{ID: "2", Email: "a@x"}) })
		var ce *ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || ce.Holder != "1" {
			t.Fatalf("got %v, want a conflict held by 1", err)
		}
		// Re-putting the holder under its own key is not a conflict.
		f.put(t, rec{ID: "1", Email: "a@x", Group: "h"})
	})
}

func TestRollbackUndoesEverything(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		f.put(t, rec{ID: "1", Email: "a@x", Group: "g"})
		boom := errors.New("boom")
		err := f.db.Update(func(tx *Tx) error {
			if err := f.t.Put(tx, "1", rec{ID: "1", Email: "b@x", Group: "h"}); err != nil {
				return err
			}
			if err := f.t.Put(tx, "2", rec{ID: "2", Email: "a@x", Group: "h"}); err != nil {
				return err
			}
			if _, _, err := f.t.Delete(tx, "1"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("got %v, want boom", err)
		}
		f = f.reopen(t) // on disk: what comes back is the rolled-back state
		_ = f.db.View(func(tx *Tx) error {
			if got, ok := f.t.Get(tx, "1"); !ok || got.Email != "a@x" || got.Group != "g" {
				t.Errorf("record 1 after rollback = %+v, %v", got, ok)
			}
			if _, ok := f.t.Get(tx, "2"); ok {
				t.Error("record 2 survived the rollback")
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
			return nil
		})
	})
}

func TestRollbackOnPanic(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		func() {
			defer func() { _ = recover() }()
			_ = f.db.Update(func(tx *Tx) error {
				_ = f.t.Put(tx, "1", rec{ID: "1"})
				panic("boom")
			})
		}()
		f = f.reopen(t) // on disk: what comes back is the rolled-back state
		_ = f.db.View(func(tx *Tx) error {
			if f.t.Len(tx) != 0 {
				t.Error("a panicking transaction left a record")
			}
			return nil
		})
	})
}

func TestRecordsAreCopied(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		r := rec{ID: "1", Tags: []string{"a"}}
		f.put(t, r)
		r.Tags[0] = "changed"
		_ = f.db.View(func(tx *Tx) error {
			got, _ := f.t.Get(tx, "1")
			if got.Tags[0] != "a" {
				t.Errorf("stored record changed through the caller's slice: %v", got.Tags)
			}
			got.Tags[0] = "changed again"
			again, _ := f.t.Get(tx, "1")
			if again.Tags[0] != "a" {
				t.Errorf("stored record changed through a returned slice: %v", again.Tags)
			}
			return nil
		})
	})
}

func TestReadOnlyTransaction(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		err := f.db.View(func(tx *Tx) error { return f.t.Put(tx, "1", rec{ID: "1"}) })
		if !errors.Is(err, ErrReadOnly) {
			t.Fatalf("got %v, want ErrReadOnly", err)
		}
	})
}

func TestOrderedScanAndCursor(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		for i := 0; i < 10; i++ {
			g := "a"
			if i%2 == 1 {
				g = "b"
			}
			f.put(t, rec{ID: fmt.Sprintf("%02d", i), Group: g})
		}
		f = f.reopen(t) // on disk: the index is rebuilt from what was written
		scan := func(lo, hi string, after *Cursor, limit int) (ids []string, last *Cursor) {
			_ = f.db.View(func(tx *Tx) error {
				f.byGroup.Scan(tx, lo, hi, after, func(c Cursor, r rec) bool {
					ids = append(ids, r.ID)
					cc := c
					last = &cc
					return len(ids) < limit
				})
				return nil
			})
			return ids, last
		}
		got, cur := scan("a", "a\x01", nil, 3)
		if fmt.Sprint(got) != "[00 02 04]" {
			t.Fatalf("first page = %v", got)
		}
		got, _ = scan("a", "a\x01", cur, 10)
		if fmt.Sprint(got) != "[06 08]" {
			t.Fatalf("second page = %v", got)
		}
		all, _ := scan("", "\xff", nil, 100)
		if len(all) != 10 {
			t.Fatalf("full scan = %v", all)
		}
		c, ok := ParseCursor(cur.String())
		if !ok || c != *cur {
			t.Fatalf("cursor round trip: %v %v", c, ok)
		}
	})
}

// TestConcurrentUniqueInsert races many writers for one unique key: exactly one wins.
func TestConcurrentUniqueInsert(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := 0; i < 64; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				err := f.db.Update(func(tx *Tx) error {
					return f.t.Put(tx, fmt.Sprint(i), rec{ID: fmt.Sprint(i), Email: "same@x"})
				})
				if err == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				} else if !errors.Is(err, ErrConflict) {
					t.Errorf("unexpected error %v", err)
				}
			}(i)
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("%d writers won, want 1", wins)
		}
		f = f.reopen(t)
		_ = f.db.View(func(tx *Tx) error {
			if n := f.t.Len(tx); n != 1 {
				t.Errorf("%d records after the race, want 1", n)
			}
			return nil
		})
	})
}

func openBolt(t *testing.T, dir string) *bolt.Backend {
	t.Helper()
	b, err := bolt.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNumberedScan: a numbered index visits one group's records whose number is in
// [lo, hi), by number, then primary key; a group that is a prefix of another is a group of
// its own.
func TestNumberedScan(t *testing.T) {
	type rec struct {
		PK, Group string
		N         uint64
	}
	db := New()
	tb := NewTable[rec](db, "recs")
	byN := tb.AddNumbered(func(r rec) (string, uint64, bool) { return r.Group, r.N, r.N != 0 })
	if err := db.Update(func(tx *Tx) error {
		for _, r := range []rec{
			{"a3", "a", 3}, {"a1", "a", 3}, {"a2", "a", 1}, {"a4", "a", 10}, {"a5", "a", 0},
			{"ab", "ab", 2}, {"b", "b", 1}, {"e", "", 2}, {"max", "a", 1<<64 - 1},
		} {
			if err := tb.Put(tx, r.PK, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		group  string
		lo, hi uint64
		want   string
	}{
		{"a", 0, 1<<64 - 1, "a2 a1 a3 a4"}, // a5 is not indexed; max is not below hi
		{"a", 2, 10, "a1 a3"},
		{"a", 3, 4, "a1 a3"},
		{"a", 4, 10, ""},
		{"ab", 0, 100, "ab"},
		{"", 0, 100, "e"},
		{"c", 0, 100, ""},
	} {
		var got []string
		db.View(func(tx *Tx) error {
			byN.Scan(tx, c.group, c.lo, c.hi, func(r rec) bool {
				got = append(got, r.PK)
				return true
			})
			return nil
		})
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("Scan(%q, %d, %d) = %q, want %q", c.group, c.lo, c.hi, s, c.want)
		}
	}
}
