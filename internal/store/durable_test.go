package store_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/understudy-dev/understudy/internal/store"
)

// TestReopenRestoresEveryIndex: after puts, overwrites and deletes, a reopened database has
// the same records and the same unique, ordered and counting indexes.
func TestReopenRestoresEveryIndex(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		f.put(t, rec{ID: "1", Email: "a@x", Group: "g", Tags: []string{"t"}})
		f.put(t, rec{ID: "2", Email: "b@x", Group: "g"})
		f.put(t, rec{ID: "3", Email: "c@x", Group: "h"})
		f.put(t, rec{ID: "2", Email: "b2@x", Group: "h"}) // moves between groups, changes email
		if err := f.db.Update(func(tx *Tx) error { _, _, err := f.t.Delete(tx, "3"); return err }); err != nil {
			t.Fatal(err)
		}
		f = f.reopen(t)
		_ = f.db.View(func(tx *Tx) error {
			if r, ok := f.t.Get(tx, "1"); !ok || r.Email != "a@x" || !slices.Equal(r.Tags, []string{"t"}) {
				t.Errorf("record 1 = %+v %v", r, ok)
			}
			if _, ok := f.t.Get(tx, "3"); ok {
				t.Error("a deleted record came back")
			}
			if _, _, ok := f.byEmail.Get(tx, "b@x"); ok {
				t.Error("the old email of record 2 is still indexed")
			}
			if pk, _, ok := f.byEmail.Get(tx, "b2@x"); !ok || pk != "2" {
				t.Errorf("b2@x -> %q %v", pk, ok)
			}
			if g, h := f.count.Count(tx, "g"), f.count.Count(tx, "h"); g != 1 || h != 1 {
				t.Errorf("counts g=%d h=%d, want 1 and 1", g, h)
			}
			var inH []string
			f.byGroup.Scan(tx, "h", "h\x01", nil, func(_ Cursor, r rec) bool { inH = append(inH, r.ID); return true })
			if fmt.Sprint(inH) != "[2]" {
				t.Errorf("group h = %v", inH)
			}
			return nil
		})
	})
}

// TestReplaceWipes: a reset leaves only what it loaded, on disk as in memory; a new
// directory reports that it was never seeded, a reset one that it was.
func TestReplaceWipes(t *testing.T) {
	dir := t.TempDir()
	f := openFixture(t, dir)
	f.put(t, rec{ID: "1", Email: "a@x"})
	f.put(t, rec{ID: "2", Email: "b@x"})
	seed := func(tx *Tx) error { return f.t.Put(tx, "seed", rec{ID: "seed", Email: "a@x"}) }
	if err := f.db.Replace(seed); err != nil {
		t.Fatal(err)
	}
	f = f.reopen(t)
	_ = f.db.View(func(tx *Tx) error {
		if n := f.t.Len(tx); n != 1 {
			t.Errorf("%d records after reset, want 1", n)
		}
		if pk, _, ok := f.byEmail.Get(tx, "a@x"); !ok || pk != "seed" {
			t.Errorf("a@x -> %q %v, want the seed", pk, ok)
		}
		return nil
	})
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	if seeded := openSeeded(t, dir); !seeded {
		t.Error("a reset directory says it was never seeded")
	}
	if seeded := openSeeded(t, t.TempDir()); seeded {
		t.Error("a new directory says it was seeded")
	}
}

func openSeeded(t *testing.T, dir string) bool {
	t.Helper()
	db := New()
	NewTable[rec](db, "recs")
	seeded, err := db.Open(openBolt(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return seeded
}

// TestFailedReplaceLeavesEmpty: a reset whose seed fails leaves no records, on disk too.
func TestFailedReplaceLeavesEmpty(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		f.put(t, rec{ID: "1"})
		boom := errors.New("bad seed")
		err := f.db.Replace(func(tx *Tx) error {
			_ = f.t.Put(tx, "half", rec{ID: "half"})
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("got %v, want the seed's error", err)
		}
		f = f.reopen(t)
		_ = f.db.View(func(tx *Tx) error {
			if n := f.t.Len(tx); n != 0 {
				t.Errorf("%d records after a failed reset, want none", n)
			}
			return nil
		})
	})
}

// TestAcknowledgedWritesSurvive: many writers put and delete at once; after a reopen the
// records are exactly those whose last acknowledged change was a put.
func TestAcknowledgedWritesSurvive(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f fixture) {
		const writers, each = 32, 40
		var wg sync.WaitGroup
		var mu sync.Mutex
		want := map[string]string{}
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					id := fmt.Sprintf("w%02d-%02d", w, i%10) // each writer reuses ten ids
					var err error
					if i%7 == 6 {
						err = f.db.Update(func(tx *Tx) error { _, _, err := f.t.Delete(tx, id); return err })
					} else {
						err = f.db.Update(func(tx *Tx) error {
							return f.t.Put(tx, id, rec{ID: id, Email: id + "@x", Group: fmt.Sprint(i)})
						})
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if i%7 == 6 {
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
		_ = f.db.View(func(tx *Tx) error {
			if n := f.t.Len(tx); n != len(want) {
				t.Errorf("%d records, want %d", n, len(want))
			}
			for id, group := range want {
				if r, ok := f.t.Get(tx, id); !ok || r.Group != group {
					t.Errorf("%s = %+v %v, want group %s", id, r, ok, group)
				}
			}
			return nil
		})
	})
}

// fakeBackend is a Backend in memory whose writes can be slowed, held or failed.
type fakeBackend struct {
	mu      sync.Mutex
	written map[string]bool // "table/pk" of every record written
	writes  int
	delay   time.Duration
	hold    chan struct{} // when not nil, Write waits for it to close
	fail    error
}

func newFakeBackend() *fakeBackend { return &fakeBackend{written: map[string]bool{}} }

func (b *fakeBackend) Load(func(table, pk string, value []byte) error) (bool, error) {
	return false, nil
}

func (b *fakeBackend) Write(batch *Batch) error {
	if b.hold != nil {
		<-b.hold
	}
	time.Sleep(b.delay)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return b.fail
	}
	b.writes++
	for _, c := range batch.Changes {
		b.written[c.Table+"/"+c.PK] = c.Value != nil
	}
	return nil
}

func (b *fakeBackend) Close() error { return nil }

func (b *fakeBackend) has(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.written[key]
}

func fakeFixture(t *testing.T, b *fakeBackend) fixture {
	t.Helper()
	f := openFixture(t, "")
	if _, err := f.db.Open(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.db.Close() })
	return f
}

// TestGroupCommit: concurrent writers share disk writes, and none returns before its own
// change has been written.
func TestGroupCommit(t *testing.T) {
	b := newFakeBackend()
	b.delay = 2 * time.Millisecond // a sync's worth
	f := fakeFixture(t, b)
	const writers, each = 64, 5
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := fmt.Sprintf("%d-%d", w, i)
				if err := f.db.Update(func(tx *Tx) error { return f.t.Put(tx, id, rec{ID: id}) }); err != nil {
					t.Error(err)
					return
				}
				if !b.has("recs/" + id) {
					t.Errorf("Update of %s returned before its change was written", id)
				}
			}
		}()
	}
	wg.Wait()
	if b.writes >= writers*each/2 {
		t.Errorf("%d disk writes for %d transactions from %d writers: no group commit", b.writes, writers*each, writers)
	}
	t.Logf("%d transactions in %d disk writes", writers*each, b.writes)
}

// TestReadsWaitForTheDisk: a reader that can see a change not yet on disk does not return
// before it is, so no answer shows what a crash could still lose.
func TestReadsWaitForTheDisk(t *testing.T) {
	b := newFakeBackend()
	b.hold = make(chan struct{})
	release := sync.OnceFunc(func() { close(b.hold) })
	defer release() // before the cleanup closes the database, even when the test fails
	f := fakeFixture(t, b)
	writeDone := make(chan error, 1)
	go func() { writeDone <- f.db.Update(func(tx *Tx) error { return f.t.Put(tx, "1", rec{ID: "1"}) }) }()
	// Wait until the change is in memory (its write is then held at the disk). Counts does
	// not wait for the disk, so it can look.
	for f.db.Counts()["recs"] != 1 {
		time.Sleep(time.Millisecond)
	}
	readDone := make(chan bool, 1)
	go func() {
		var saw bool
		_ = f.db.View(func(tx *Tx) error { _, saw = f.t.Get(tx, "1"); return nil })
		readDone <- saw
	}()
	select {
	case <-readDone:
		t.Fatal("a read returned a change that was not on disk yet")
	case <-writeDone:
		t.Fatal("a write was acknowledged before it was on disk")
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
	if saw := <-readDone; !saw {
		t.Error("the read did not see the change")
	}
}

// TestDiskFailureStopsChanges: when the disk refuses a write, that write and every later
// one fail with ErrUnavailable, and reads say so too.
func TestDiskFailureStopsChanges(t *testing.T) {
	b := newFakeBackend()
	f := fakeFixture(t, b)
	f.put(t, rec{ID: "1"})
	b.mu.Lock()
	b.fail = errors.New("no space left on device")
	b.mu.Unlock()
	err := f.db.Update(func(tx *Tx) error { return f.t.Put(tx, "2", rec{ID: "2"}) })
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
	if err := f.db.Update(func(tx *Tx) error { return f.t.Put(tx, "3", rec{ID: "3"}) }); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a later write got %v, want ErrUnavailable", err)
	}
	if err := f.db.View(func(tx *Tx) error { return nil }); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a read after the failure got %v, want ErrUnavailable", err)
	}
}
