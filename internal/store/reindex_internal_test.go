package store

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestPutKeepsIndexesExact runs random puts and deletes, some in transactions that fail,
// over few keys (so that records change and swap index keys, and conflicts happen), and
// after each transaction checks the table against a model and every index against the
// rows: Put changes only the index entries whose keys changed, and that must leave the
// indexes exactly what indexing the rows from scratch would give. It also checks that a
// record's key is one string shared by the table and its index entries.
func TestPutKeepsIndexesExact(t *testing.T) {
	for _, collide := range []bool{false, true} {
		t.Run(fmt.Sprint("collide=", collide), func(t *testing.T) {
			db := New()
			tb := NewTable[rec](db, "recs", nil)
			byEmail := tb.AddUnique("email", func(b []byte, r rec) ([]byte, bool) { return appendKey(b, "e", r.Email), r.Email != "" })
			byGroup := tb.AddUnique("group+other", func(b []byte, r rec) ([]byte, bool) {
				return appendKey(b, r.Group, r.Other), r.Other != ""
			})
			if collide {
				byEmail.collide = func(k string) uint64 { return uint64(len(k) % 2) }
				byGroup.collide = func(string) uint64 { return 7 }
			}
			inGroup := tb.AddOrdered(func(r rec) (string, bool) { return r.Group, r.Group != "" })
			byOther := tb.AddOrdered(func(r rec) (string, bool) { return "o|" + r.Other, true })
			pkOrder := tb.AddPKOrder()
			// Numbered: grouped by Group, numbered by what Email and Other pick, so that a
			// record changes group, number or neither.
			numbered := tb.AddNumbered(func(r rec) (string, uint64, bool) {
				return r.Group, uint64(len(r.Other))*8 + uint64(len(r.Email)), r.Email != "y"
			})
			count := tb.AddCounter(func(r rec) (string, bool) { return r.Group, r.Group != "" })

			rng := rand.New(rand.NewPCG(1, 2))
			pick := func(s ...string) string { return s[rng.IntN(len(s))] }
			model := map[string]rec{}
			for step := range 3000 {
				next := maps.Clone(model)
				fail := rng.IntN(4) == 0
				err := db.Update(func(tx *Tx) error {
					for range 1 + rng.IntN(4) {
						// A key made afresh each time, as one cut from a request would be.
						pk := strings.Clone(pick("a", "b", "c", "d", "e", "f"))
						if rng.IntN(5) == 0 {
							if _, ok, err := tb.Delete(tx, pk); err != nil || ok != hasKey(next, pk) {
								return fmt.Errorf("delete %s: %v %v", pk, ok, err)
							}
							delete(next, pk)
							continue
						}
						r := rec{Email: pick("", "x", "y", "z", "w"), Group: pick("", "g1", "g2"), Other: pick("", "1", "2", "3")}
						if rng.IntN(3) == 0 {
							if cur, ok := next[pk]; ok {
								r = cur // put again unchanged, as a finisher does
								r.Other = pick(r.Other, r.Other, "", "1")
							}
						}
						err := tb.Put(tx, pk, r)
						if want := modelConflict(next, pk, r); (err != nil) != want {
							return fmt.Errorf("put %s %+v: %v, want conflict %v", pk, r, err, want)
						}
						if err != nil {
							if !errors.Is(err, ErrConflict) {
								return err
							}
							continue
						}
						next[pk] = r
					}
					if fail {
						return errBoom
					}
					return nil
				})
				if err != nil && !errors.Is(err, errBoom) {
					t.Fatalf("step %d: %v", step, err)
				}
				if err == nil {
					model = next
				}
				if !maps.Equal(tb.rows, model) {
					t.Fatalf("step %d: rows %v, want %v", step, tb.rows, model)
				}
				checkIndexes(t, step, tb, []*Unique[rec]{byEmail, byGroup}, []*Ordered[rec]{inGroup, byOther, pkOrder}, []*Numbered[rec]{numbered}, count)
			}
		})
	}
}

var errBoom = errors.New("boom")

func hasKey[R any](m map[string]R, k string) bool { _, ok := m[k]; return ok }

// rec is the test's record: few values, so that keys are shared and swapped often.
type rec struct{ Email, Group, Other string }

// modelConflict: would putting r under pk give a unique key of r to another record?
func modelConflict(m map[string]rec, pk string, r rec) bool {
	keys := func(c rec) []string {
		var out []string
		if c.Email != "" {
			out = append(out, "email "+c.Email)
		}
		if c.Other != "" {
			out = append(out, "group+other "+c.Group+"|"+c.Other)
		}
		return out
	}
	for _, k := range keys(r) {
		for opk, o := range m {
			if opk != pk && slices.Contains(keys(o), k) {
				return true
			}
		}
	}
	return false
}

// checkIndexes compares every index of t with what indexing its rows afresh gives, and
// checks that each index entry holds the very key string the rows map holds.
func checkIndexes[R any](t *testing.T, step int, tb *Table[R], us []*Unique[R], os []*Ordered[R], ns []*Numbered[R], c *Counter[R]) {
	t.Helper()
	keyData := map[string]*byte{}
	for pk := range tb.rows {
		keyData[pk] = unsafe.StringData(pk)
	}
	shared := func(where, pk string) {
		if keyData[pk] != unsafe.StringData(pk) {
			t.Fatalf("step %d: %s holds another copy of the key %q", step, where, pk)
		}
	}
	for _, u := range us {
		want := 0
		for pk, r := range tb.rows {
			kb, ok := u.key(nil, r)
			if !ok {
				continue
			}
			want++
			k := string(kb)
			if holder, found := u.holder(k, nil); !found || holder != pk {
				t.Fatalf("step %d: %s %q -> %q %v, want %q", step, u.name, k, holder, found, pk)
			}
		}
		got := 0
		for h, pk := range u.slots {
			got++
			shared(u.name, pk)
			if k, _ := u.key(nil, tb.rows[pk]); u.hashBytes(k) != h {
				t.Fatalf("step %d: %s: %q sits under a hash not its key's", step, u.name, pk)
			}
			for _, p := range u.more[h] {
				got++
				shared(u.name, p)
			}
		}
		if got != want {
			t.Fatalf("step %d: %s has %d entries, want %d", step, u.name, got, want)
		}
	}
	for i, o := range os {
		var want, got []entry
		for pk, r := range tb.rows {
			if k, ok := o.keyOf(pk, r); ok {
				want = append(want, entry{key: k, pk: pk})
			}
		}
		slices.SortFunc(want, func(a, b entry) int {
			if a.less(b) {
				return -1
			}
			return 1
		})
		o.tree.Ascend(func(e entry) bool {
			got = append(got, e)
			shared(fmt.Sprint("ordered index ", i), e.pk)
			return true
		})
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: ordered index %d = %v, want %v", step, i, got, want)
		}
	}
	for i, x := range ns {
		type placed struct {
			group string
			e     numEntry
		}
		var want, got []placed
		for pk, r := range tb.rows {
			if g, n, ok := x.key(r); ok {
				want = append(want, placed{g, numEntry{n: n, pk: pk}})
			}
		}
		slices.SortFunc(want, func(a, b placed) int {
			if c := strings.Compare(a.group, b.group); c != 0 {
				return c
			}
			return a.e.compare(b.e)
		})
		for _, g := range slices.Sorted(maps.Keys(x.groups)) {
			l := x.groups[g]
			if len(l.chunks) == 0 {
				t.Fatalf("step %d: numbered index %d keeps an empty list for %q", step, i, g)
			}
			for _, chunk := range l.chunks {
				if len(chunk) == 0 || len(chunk) > chunkMax {
					t.Fatalf("step %d: numbered index %d: a chunk of %d entries", step, i, len(chunk))
				}
				for _, e := range chunk {
					if len(got) > 0 && got[len(got)-1].group == g && got[len(got)-1].e.compare(e) >= 0 {
						t.Fatalf("step %d: numbered index %d: %v after %v", step, i, e, got[len(got)-1].e)
					}
					got = append(got, placed{g, e})
					shared(fmt.Sprint("numbered index ", i), e.pk)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: numbered index %d = %v, want %v", step, i, got, want)
		}
	}
	want := map[string]int{}
	for _, r := range tb.rows {
		if k, ok := c.key(r); ok {
			want[k]++
		}
	}
	if !maps.Equal(c.n, want) {
		t.Fatalf("step %d: counts %v, want %v", step, c.n, want)
	}
}

// TestKeyInSharesTheKey: a table whose records hold their own key keeps that string as the
// key (in the rows and every index) when Put stores a record anew; a record put again keeps
// the key it had. The indexes stay exact through it all, rollbacks too.
func TestKeyInSharesTheKey(t *testing.T) {
	type named struct{ Name, Group string }
	db := New()
	tb := NewTable[named](db, "named", nil)
	tb.canonical = func(r named, _ *sharer) named { r.Name = strings.Clone(r.Name); return r }
	tb.keyIn = func(r named) string { return r.Name }
	u := tb.AddUnique("group", func(b []byte, r named) ([]byte, bool) { return append(b, r.Group...), r.Group != "" })
	o := tb.AddOrdered(func(r named) (string, bool) { return r.Group, true })
	pko := tb.AddPKOrder()
	c := tb.AddCounter(func(r named) (string, bool) { return r.Group, true })
	// check checks the indexes, and that the record under shared (if not "") holds the
	// very string that is its key.
	check := func(step int, shared string) {
		t.Helper()
		checkIndexes(t, step, tb, []*Unique[named]{u}, []*Ordered[named]{o, pko}, nil, c)
		for pk, r := range tb.rows {
			if pk == shared && unsafe.StringData(r.Name) != unsafe.StringData(pk) {
				t.Fatalf("step %d: %q is kept twice", step, pk)
			}
		}
	}
	put := func(pk, name, group string, fail bool) {
		_ = db.Update(func(tx *Tx) error {
			if err := tb.Put(tx, strings.Clone(pk), named{Name: strings.Clone(name), Group: group}); err != nil {
				t.Fatal(err)
			}
			if fail {
				return errBoom
			}
			return nil
		})
	}
	put("a", "a", "", false) // new: the key comes from the record
	check(1, "a")
	put("a", "a", "g1", false) // no unique key to find it by: the record's again
	check(2, "a")
	put("a", "a", "g1", false) // found through the unique index: its key stays
	check(3, "")
	put("b", "B", "g2", false) // the record's name is not its key: a copy
	check(4, "")
	put("c", "c", "g4", false)
	check(5, "c")
	put("a", "a", "g3", true)
	check(6, "")
	_ = db.Update(func(tx *Tx) error {
		if _, _, err := tb.Delete(tx, "a"); err != nil {
			t.Fatal(err)
		}
		return errBoom
	})
	check(7, "")
}
