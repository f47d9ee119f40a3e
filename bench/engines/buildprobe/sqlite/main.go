// Command sqlite is a build probe: the smallest program that links modernc.org/sqlite the
// way a durable backend would (open through database/sql, write, read).
package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite"
)

func main() {
	dir, err := os.MkdirTemp("", "probe")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	b, _ := json.Marshal(map[string]string{"name": "x"})
	if _, err := db.Exec(`CREATE TABLE kv(tbl TEXT, pk TEXT, value BLOB, PRIMARY KEY(tbl, pk)) WITHOUT ROWID`); err != nil {
		panic(err)
	}
	_, err = db.Exec(`INSERT INTO kv VALUES(?,?,?)`, "t", "k", b)
	var got []byte
	_ = db.QueryRow(`SELECT value FROM kv WHERE tbl=? AND pk=?`, "t", "k").Scan(&got)
	fmt.Println(string(got), err)
}
