// Command bbolt is a build probe: the smallest program that links go.etcd.io/bbolt the way
// a durable backend would (open, write, read).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
)

func main() {
	dir, err := os.MkdirTemp("", "probe")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := bolt.Open(filepath.Join(dir, "db"), 0o600, nil)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	b, _ := json.Marshal(map[string]string{"name": "x"})
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucketIfNotExists([]byte("t"))
		if err != nil {
			return err
		}
		return bk.Put([]byte("k"), b)
	})
	var got []byte
	_ = db.View(func(tx *bolt.Tx) error {
		got = append(got, tx.Bucket([]byte("t")).Get([]byte("k"))...)
		return nil
	})
	fmt.Println(string(got), err)
}
