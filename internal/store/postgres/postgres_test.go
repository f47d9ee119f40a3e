package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/postgres"
	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
	"github.com/understudy-dev/understudy/internal/store/storetest"
)

var ctx = context.Background()

// open opens an engine on url with define's tables, ready for use.
func open(t testing.TB, url string, define func(db *store.DB)) (*store.DB, *postgres.Engine) {
	t.Helper()
	eng, err := postgres.Open(ctx, url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.New(eng)
	define(db)
	if _, err := eng.Load(ctx, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, eng
}

// TestContract: the store's contract, each test on a schema of its own; reopening is a new
// engine (a new pool) on the same schema.
func TestContract(t *testing.T) {
	pgtest.Base(t)
	storetest.Run(t, storetest.Engine{Durable: true, New: func(t *testing.T) storetest.Opener {
		url := pgtest.URL(t)
		return func(define func(*store.DB)) *store.DB {
			db, _ := open(t, url, define)
			return db
		}
	}})
}

// run runs fn in a transaction of eng, failing t on an error.
func run(t testing.TB, eng store.Engine, mode store.Mode, fn func(tx store.Txn) error) {
	t.Helper()
	if err := eng.Run(ctx, mode, fn); err != nil {
		t.Fatal(err)
	}
}

// TestAnyBytes: documents, primary keys and keys are kept byte for byte, whatever they
// hold (NUL, bytes that are not UTF-8, JSON's \u0000), and keys are ordered as Go orders
// strings.
func TestAnyBytes(t *testing.T) {
	url := pgtest.URL(t)
	_, eng := open(t, url, func(db *store.DB) {
		if err := db.Engine().Define(store.TableDef{Name: "t", Indexes: []store.IndexDef{{Name: "u", Kind: store.Unique}, {Name: "o", Kind: store.Ordered}}}); err != nil {
			t.Fatal(err)
		}
	})
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	docs := map[string][]byte{
		"\x00":       all,
		"a\xffb":     []byte(`{"s":"nul \u0000 here","t":"\ud800"}`),
		"é":          []byte(`"caf\xc3\xa9 \xff"`),
		"empty":      {},
		"z\x00\x00z": []byte("{}"),
	}
	keys := []string{"", "\x00", "\x00\x00", "\x01", "a", "a\x00", "a\x00b", "ab", "\x7f", "\x80", "é", "\xff", "\xff\xff"}
	run(t, eng, store.Write, func(tx store.Txn) error {
		i := 0
		for pk, doc := range docs {
			if err := tx.Put("t", pk, doc, []store.Key{{Index: 0, Key: pk}, {Index: 1, Key: keys[i]}}); err != nil {
				return err
			}
			i++
		}
		for j, k := range keys[i:] {
			pk := fmt.Sprintf("k%02d", j)
			if err := tx.Put("t", pk, []byte(k), []store.Key{{Index: 1, Key: k}}); err != nil {
				return err
			}
		}
		return nil
	})
	run(t, eng, store.Read, func(tx store.Txn) error {
		for pk, want := range docs {
			got, ok, err := tx.Get("t", pk)
			if err != nil || !ok || !bytes.Equal(got, want) {
				t.Errorf("Get %q = %q %v %v, want %q", pk, got, ok, err, want)
			}
			if holder, _, ok, err := tx.Lookup("t", 0, pk); err != nil || !ok || holder != pk {
				t.Errorf("Lookup %q = %q %v %v", pk, holder, ok, err)
			}
		}
		var got []string
		err := tx.Scan("t", 1, store.Range{}, func(c store.Cursor, _ []byte) bool { got = append(got, c.Key); return true })
		if err != nil {
			return err
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("keys in order %q, want %q", got, want)
		}
		var pks []string
		err = tx.Scan("t", -1, store.Range{Reverse: true}, func(c store.Cursor, _ []byte) bool { pks = append(pks, c.PK); return true })
		if err != nil {
			return err
		}
		if !slices.IsSortedFunc(pks, func(a, b string) int { return strings.Compare(b, a) }) || len(pks) != len(keys) {
			t.Errorf("primary keys in reverse order: %q", pks)
		}
		return nil
	})
}

// TestServersStartTogether: servers starting at once on an empty database all come up, and
// exactly one of them seeds it.
func TestServersStartTogether(t *testing.T) {
	url := pgtest.URL(t)
	var seeds atomic.Int32
	var wg sync.WaitGroup
	seeded := make([]bool, 6)
	for i := range seeded {
		wg.Add(1)
		go func() {
			defer wg.Done()
			eng, err := postgres.Open(ctx, url, postgres.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer eng.Close()
			db := store.New(eng)
			tab := store.NewTable[string](db, "t", store.UniqueIndex("v", func(s string) (string, bool) { return s, true }))
			seeded[i], err = eng.Load(ctx, func() error {
				seeds.Add(1)
				return db.Replace(ctx, func(tx *store.Tx) error { return tab.Put(tx, "seed", "seed") })
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := seeds.Load(); n != 1 {
		t.Fatalf("%d servers seeded, want 1", n)
	}
	if n := len(slices.DeleteFunc(seeded, func(b bool) bool { return b })); n != 1 {
		t.Errorf("%d servers found no state, want 1", n)
	}
}

// TestReplicas: engines on one database (each its own pool, as separate processes have)
// see each other's writes at once, let one writer win a unique key, and never hand out a
// sequence's number twice.
func TestReplicas(t *testing.T) {
	url := pgtest.URL(t)
	type row struct{ ID, Email string }
	var dbs []*store.DB
	var tabs []*store.Table[row]
	var emails []*store.Index[row]
	for range 3 {
		db, _ := open(t, url, func(db *store.DB) {
			email := store.UniqueIndex("email", func(r row) (string, bool) { return r.Email, true })
			tabs = append(tabs, store.NewTable(db, "rows", email))
			emails = append(emails, email)
		})
		dbs = append(dbs, db)
	}
	// A write through one is read through the others.
	if err := dbs[0].Update(ctx, func(tx *store.Tx) error { return tabs[0].Put(tx, "1", row{"1", "one@x"}) }); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 3; i++ {
		_ = dbs[i].View(ctx, func(tx *store.Tx) error {
			if r, ok := tabs[i].Get(tx, "1"); !ok || r.Email != "one@x" {
				t.Errorf("replica %d reads %+v %v", i, r, ok)
			}
			return nil
		})
	}
	// Racing writers spread over the replicas: one takes the address.
	var wg sync.WaitGroup
	var wins atomic.Int32
	numbers := make(chan uint64, 300)
	for w := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := w % 3
			err := dbs[i].Update(ctx, func(tx *store.Tx) error {
				if _, _, taken := emails[i].Get(tx, "same@x"); taken {
					return store.ErrConflict
				}
				return tabs[i].Put(tx, fmt.Sprint("w", w), row{fmt.Sprint("w", w), "same@x"})
			})
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, store.ErrConflict):
				t.Error(err)
			}
			for range 10 {
				var n uint64
				if err := dbs[i].Update(ctx, func(tx *store.Tx) error { n = tx.Next("ids"); return nil }); err != nil {
					t.Error(err)
				}
				numbers <- n
			}
		}()
	}
	wg.Wait()
	close(numbers)
	if wins.Load() != 1 {
		t.Errorf("%d writers took the address, want 1", wins.Load())
	}
	seen := map[uint64]bool{}
	for n := range numbers {
		if n == 0 || seen[n] {
			t.Fatalf("sequence number %d handed out twice (or zero)", n)
		}
		seen[n] = true
	}
}

// TestReindex: a server whose table has an index the stored keys were not written for (a
// new version added it) writes that index's keys from the documents when it starts.
func TestReindex(t *testing.T) {
	url := pgtest.URL(t)
	type row struct{ ID, Email, Group string }
	var tab *store.Table[row]
	db, _ := open(t, url, func(db *store.DB) {
		tab = store.NewTable(db, "rows", store.UniqueIndex("id", func(r row) (string, bool) { return r.ID, true }))
	})
	err := db.Update(ctx, func(tx *store.Tx) error {
		for i := range 2500 { // more than one batch
			id := fmt.Sprintf("%04d", i)
			if err := tab.Put(tx, id, row{id, id + "@x", fmt.Sprint(i % 3)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	var email, group *store.Index[row]
	db2, _ := open(t, url, func(db *store.DB) {
		email = store.UniqueIndex("email", func(r row) (string, bool) { return r.Email, true })
		group = store.CountedIndex("group", func(r row) (string, bool) { return r.Group, true })
		store.NewTable[row](db, "rows", email, group)
	})
	err = db2.View(ctx, func(tx *store.Tx) error {
		if pk, _, ok := email.Get(tx, "1234@x"); !ok || pk != "1234" {
			t.Errorf("the new index finds %q %v", pk, ok)
		}
		if n := group.Count(tx, "1"); n != 833 {
			t.Errorf("group 1 counts %d, want 833", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRacingWritersRunAlone: writers racing on one row (a read, then a write of what it
// read) all read it at once; each that then cannot have it to itself runs again alone,
// once, and no update is lost.
func TestRacingWritersRunAlone(t *testing.T) {
	type row struct{ N int }
	var tab *store.Table[row]
	db, eng := open(t, pgtest.URL(t), func(db *store.DB) { tab = store.NewTable[row](db, "t") })
	const writers, each = 8, 25
	var wg sync.WaitGroup
	var runs atomic.Int64
	for range writers {
		wg.Go(func() {
			for range each {
				err := db.Update(ctx, func(tx *store.Tx) error {
					runs.Add(1)
					r, _ := tab.Get(tx, "c")
					r.N++
					return tab.Put(tx, "c", r)
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	_ = db.View(ctx, func(tx *store.Tx) error {
		if r, _ := tab.Get(tx, "c"); r.N != writers*each {
			t.Errorf("counter = %d, want %d", r.N, writers*each)
		}
		return nil
	})
	conflicts := eng.Conflicts()
	if extra := runs.Load() - writers*each; extra != int64(conflicts) {
		t.Errorf("%d runs beyond one per transaction, %d conflicts: a transaction that ran alone conflicted again", extra, conflicts)
	}
	t.Logf("%d transactions, %d ran again alone", writers*each, conflicts)
}

// TestCrossedWritersRunAlone: two writers that read two rows in opposite orders and then
// change both would wait for each other; each that cannot have them to itself runs again
// alone, once, and both changes are kept.
func TestCrossedWritersRunAlone(t *testing.T) {
	type row struct{ By []string }
	var tab *store.Table[row]
	db, eng := open(t, pgtest.URL(t), func(db *store.DB) { tab = store.NewTable[row](db, "t") })
	var holding sync.WaitGroup
	holding.Add(2)
	var wg sync.WaitGroup
	for i, order := range [][2]string{{"a", "b"}, {"b", "a"}} {
		wg.Go(func() {
			first := true
			err := db.Update(ctx, func(tx *store.Tx) error {
				r1, _ := tab.Get(tx, order[0])
				if first { // both hold their first row before either asks for its second
					first = false
					holding.Done()
					holding.Wait()
				}
				r2, _ := tab.Get(tx, order[1])
				by := fmt.Sprint(i)
				r1.By, r2.By = append(r1.By, by), append(r2.By, by)
				if err := tab.Put(tx, order[0], r1); err != nil {
					return err
				}
				return tab.Put(tx, order[1], r2)
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if c := eng.Conflicts(); c < 1 || c > 2 {
		t.Errorf("%d transactions ran again alone, want 1 or 2", c)
	}
	_ = db.View(ctx, func(tx *store.Tx) error {
		for _, pk := range []string{"a", "b"} {
			if r, _ := tab.Get(tx, pk); len(r.By) != 2 {
				t.Errorf("row %s was changed by %v, want both writers", pk, r.By)
			}
		}
		return nil
	})
}

// TestDocumentsView: the documents view shows each row's document as JSON, as
// docs/postgres.md reads it with psql.
func TestDocumentsView(t *testing.T) {
	url := pgtest.URL(t)
	type assignment struct {
		Properties struct {
			PrincipalID string `json:"principalId"`
		} `json:"properties"`
	}
	var tab *store.Table[assignment]
	db, _ := open(t, url, func(db *store.DB) { tab = store.NewTable[assignment](db, "roleAssignments") })
	var a assignment
	a.Properties.PrincipalID = "22222222-2222-4222-8222-222222222222"
	if err := db.Update(ctx, func(tx *store.Tx) error { return tab.Put(tx, "a1", a) }); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var pk, principal string
	if err := conn.QueryRow(ctx, `SELECT pk, doc->'properties'->>'principalId' FROM documents WHERE "table" = 'roleAssignments'`).Scan(&pk, &principal); err != nil {
		t.Fatal(err)
	}
	if pk != "a1" || principal != a.Properties.PrincipalID {
		t.Errorf("documents view: %q %q", pk, principal)
	}
}
