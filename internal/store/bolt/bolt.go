// Package bolt keeps understudy's database on disk in one bbolt file (go.etcd.io/bbolt, a
// pure-Go B+tree store with ACID transactions): one bucket per table, the primary key as the
// key, the record's JSON as the value.
//
// Every Write is one bbolt transaction, synced (fdatasync) before it returns; a crash leaves
// either the whole batch or none of it. bbolt holds an exclusive flock on the file while it
// is open, which is what refuses a second process on the same directory.
package bolt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/understudy-dev/understudy/internal/store"
)

// FileName is the database file inside the data directory.
const FileName = "understudy.db"

// metaBucket holds what is not a table: the format version, and that a seed was written.
var (
	metaBucket = []byte("_understudy")
	formatKey  = []byte("format")
	// format 2: rows are the APIs' objects (format 1 kept earlier records).
	format = []byte("2")
)

// lockWait is how long Open waits for another process to release the file before giving up.
const lockWait = 250 * time.Millisecond

// Backend is a store.Backend in one bbolt file.
type Backend struct {
	db   *bbolt.DB
	path string
}

var _ store.Backend = (*Backend)(nil)

// ErrLocked: another process has the data directory open.
var ErrLocked = errors.New("is in use by another process")

// Open opens (creating it when missing) the database in dir. It fails at once, with an error
// naming the directory, when dir cannot be created or written or another process holds it.
func Open(dir string) (*Backend, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	if err := checkReadable(path); err != nil {
		return nil, openError(dir, path, err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{
		Timeout: lockWait,
		// The freelist is rebuilt by a scan at open instead of being written at every commit:
		// fewer pages per synced write.
		NoFreelistSync: true,
		FreelistType:   bbolt.FreelistMapType,
	})
	if err != nil {
		return nil, openError(dir, path, err)
	}
	b := &Backend{db: db, path: path}
	if err := b.checkFormat(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return b, nil
}

// openError says why the file at path, in dir, could not be opened.
func openError(dir, path string, err error) error {
	switch {
	case errors.Is(err, bbolt.ErrTimeout):
		return fmt.Errorf("data dir %s %w (the file %s is locked)", dir, ErrLocked, path)
	case errors.Is(err, ErrDamaged):
		return fmt.Errorf("data dir %s: %s %w: move it away to start again from the seed", dir, path, err)
	default:
		return fmt.Errorf("data dir %s: %w", dir, err)
	}
}

// Path is the database file.
func (b *Backend) Path() string { return b.path }

func (b *Backend) checkFormat() error {
	return b.db.View(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(metaBucket)
		if meta == nil {
			return nil
		}
		if v := meta.Get(formatKey); string(v) != string(format) {
			return fmt.Errorf("%s has data format %q, written by another version of understudy; this one reads %q: start that version and export its state (GET /_understudy/state) to load here with --seed, or move the file away", b.path, v, format)
		}
		return nil
	})
}

// Load calls fn for every record, bucket by bucket.
func (b *Backend) Load(fn func(table, pk string, value []byte) error) (seeded bool, err error) {
	err = b.db.View(func(tx *bbolt.Tx) error {
		seeded = tx.Bucket(metaBucket) != nil
		return tx.ForEach(func(name []byte, bucket *bbolt.Bucket) error {
			if string(name) == string(metaBucket) {
				return nil
			}
			table := string(name)
			return bucket.ForEach(func(k, v []byte) error { return fn(table, string(k), v) })
		})
	})
	return seeded, err
}

// Write applies the batch in one synced transaction.
func (b *Backend) Write(batch *store.Batch) error {
	return b.db.Update(func(tx *bbolt.Tx) error {
		if batch.Wipe {
			var names [][]byte
			if err := tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
				names = append(names, append([]byte(nil), name...))
				return nil
			}); err != nil {
				return err
			}
			for _, name := range names {
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
			}
			meta, err := tx.CreateBucket(metaBucket)
			if err != nil {
				return err
			}
			if err := meta.Put(formatKey, format); err != nil {
				return err
			}
		}
		var bucket *bbolt.Bucket
		var bucketName string
		for _, c := range batch.Changes {
			if bucket == nil || bucketName != c.Table {
				var err error
				if bucket, err = tx.CreateBucketIfNotExists([]byte(c.Table)); err != nil {
					return err
				}
				bucketName = c.Table
			}
			var err error
			if c.Value == nil {
				err = bucket.Delete([]byte(c.PK))
			} else {
				err = bucket.Put([]byte(c.PK), c.Value)
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", c.Table, c.PK, err)
			}
		}
		return nil
	})
}

// Close closes the file and releases its lock.
func (b *Backend) Close() error { return b.db.Close() }
