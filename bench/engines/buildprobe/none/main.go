// Command none is the baseline for the build probes: the same shape as ../bbolt and
// ../sqlite (open a file, write a record, read it back) with the standard library only.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	dir, err := os.MkdirTemp("", "probe")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	b, _ := json.Marshal(map[string]string{"name": "x"})
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		panic(err)
	}
	got, err := os.ReadFile(p)
	fmt.Println(string(got), err)
}
