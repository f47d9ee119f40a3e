package store_test

import (
	"testing"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/bolt"
	"github.com/understudy-dev/understudy/internal/store/storetest"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, storetest.Engine{New: func(t *testing.T) storetest.Opener {
		return func(define func(*store.DB)) *store.DB {
			db := store.New(store.NewMemory())
			define(db)
			return db
		}
	}})
}

func TestMemoryOnDisk(t *testing.T) {
	storetest.Run(t, storetest.Engine{Durable: true, New: func(t *testing.T) storetest.Opener {
		dir := t.TempDir()
		return func(define func(*store.DB)) *store.DB {
			eng := store.NewMemory()
			db := store.New(eng)
			define(db)
			b, err := bolt.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Open(b); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return db
		}
	}})
}

// TestUintSortsAsNumbers: keys made by store.Uint are 20 digits, so that they sort as the
// numbers do, the largest uint64 included.
func TestUintSortsAsNumbers(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{{0, "00000000000000000000"}, {42, "00000000000000000042"}, {1<<64 - 1, "18446744073709551615"}} {
		if got := store.Uint(c.n); got != c.want {
			t.Errorf("Uint(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
