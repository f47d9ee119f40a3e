package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	bbolt "go.etcd.io/bbolt"
)

// ErrDamaged: the database file cannot be read back as bbolt wrote it.
var ErrDamaged = errors.New("is damaged")

// checkReadable reads every key and value of the file at path, in this goroutine, and
// returns an error wrapping ErrDamaged when a page cannot be read or keys are out of order.
//
// Why before the real open: with NoFreelistSync, bbolt's read-write Open rebuilds the
// freelist by walking the file in a goroutine of its own, and panics there on the first
// damaged page (a panic no caller can recover: the process dies with bbolt's stack trace).
// The same damage met here, where a read goes through the same page lookups, is a panic
// in this goroutine, which is recovered and becomes one line saying what is wrong. Reads
// outside the mapped file fault; SetPanicOnFault makes that a panic too. A missing or
// empty file is a new database: nothing to read.
func checkReadable(path string) (err error) {
	if fi, statErr := os.Stat(path); statErr != nil || fi.Size() == 0 {
		return nil
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockWait, ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w (%v)", ErrDamaged, r)
		}
	}()
	return db.View(func(tx *bbolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bbolt.Bucket) error { return readBucket(name, b) })
	})
}

// readBucket reads every key and value of b and the buckets inside it, checking that keys
// come in order (what bbolt's own walk at open checks, and panics on).
func readBucket(name []byte, b *bbolt.Bucket) error {
	var last []byte
	return b.ForEach(func(k, v []byte) error {
		if last != nil && bytes.Compare(last, k) >= 0 {
			return fmt.Errorf("%w (bucket %q: keys out of order)", ErrDamaged, name)
		}
		last = k
		if v == nil {
			if inner := b.Bucket(k); inner != nil {
				return readBucket(k, inner)
			}
		}
		return nil
	})
}
