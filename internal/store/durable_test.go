package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	. "github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/bolt"
)

var ctx = context.Background()

type rec struct{ ID string }

type fixture struct {
	db *DB
	t  *Table[rec]
}

func (f fixture) put(t *testing.T, r rec) {
	t.Helper()
	if err := f.db.Update(ctx, func(tx *Tx) error { return f.t.Put(tx, r.ID, r) }); err != nil {
		t.Fatal(err)
	}
}

// TestSeeded: a new directory reports that it was never seeded, one written by a Replace
// that it was.
func TestSeeded(t *testing.T) {
	dir := t.TempDir()
	open := func() (*DB, bool) {
		eng := NewMemory()
		db := New(eng)
		NewTable[rec](db, "recs")
		b, err := bolt.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		seeded, err := eng.Open(b)
		if err != nil {
			t.Fatal(err)
		}
		return db, seeded
	}
	db, seeded := open()
	if seeded {
		t.Error("a new directory says it was seeded")
	}
	if err := db.Replace(ctx, func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, seeded = open()
	defer db.Close()
	if !seeded {
		t.Error("a reset directory says it was never seeded")
	}
}

// fakeBackend is a Backend in memory whose writes can be slowed, held or failed.
type fakeBackend struct {
	mu      sync.Mutex
	written map[string]bool // "table/pk" of every record written
	writes  int
	delay   time.Duration
	hold    chan struct{} // when not nil, Write waits for it to close
	entered chan struct{} // when not nil, Write sends on it first
	fail    error
}

func newFakeBackend() *fakeBackend { return &fakeBackend{written: map[string]bool{}} }

func (b *fakeBackend) Load(func(table, pk string, value []byte) error) (bool, error) {
	return false, nil
}

func (b *fakeBackend) Write(batch *Batch) error {
	if b.entered != nil {
		b.entered <- struct{}{}
	}
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
	eng := NewMemory()
	f := fixture{db: New(eng)}
	f.t = NewTable[rec](f.db, "recs")
	if _, err := eng.Open(b); err != nil {
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
				if err := f.db.Update(ctx, func(tx *Tx) error { return f.t.Put(tx, id, rec{ID: id}) }); err != nil {
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
	b.entered = make(chan struct{}, 1)
	release := sync.OnceFunc(func() { close(b.hold) })
	defer release() // before the cleanup closes the database, even when the test fails
	f := fakeFixture(t, b)
	writeDone := make(chan error, 1)
	go func() { writeDone <- f.db.Update(ctx, func(tx *Tx) error { return f.t.Put(tx, "1", rec{ID: "1"}) }) }()
	// Wait until the change is in memory and its write held at the disk.
	<-b.entered
	readDone := make(chan bool, 1)
	go func() {
		var saw bool
		_ = f.db.View(ctx, func(tx *Tx) error { _, saw = f.t.Get(tx, "1"); return nil })
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
	err := f.db.Update(ctx, func(tx *Tx) error { return f.t.Put(tx, "2", rec{ID: "2"}) })
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v, want ErrUnavailable", err)
	}
	if err := f.db.Update(ctx, func(tx *Tx) error { return f.t.Put(tx, "3", rec{ID: "3"}) }); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a later write got %v, want ErrUnavailable", err)
	}
	if err := f.db.View(ctx, func(tx *Tx) error { return nil }); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a read after the failure got %v, want ErrUnavailable", err)
	}
}
