package bolt

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/understudy-dev/understudy/internal/store"
)

// TestSecondOpenRefused: while one process (here: one Backend) has the directory, another
// Open fails fast, naming the directory; once closed it opens again.
func TestSecondOpenRefused(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second open: %v, want ErrLocked naming %s", err, dir)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(dir)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	_ = again.Close()
}

// TestUnusableDir: a data dir that cannot be a directory fails with its name.
func TestUnusableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(file, "data"))
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("got %v, want an error naming %s", err, file)
	}
}

// TestWriteAndLoad: a batch comes back from Load; a wipe removes every table's records.
func TestWriteAndLoad(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	load := func() (map[string]string, bool) {
		got := map[string]string{}
		seeded, err := b.Load(func(table, pk string, v []byte) error { got[table+"/"+pk] = string(v); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return got, seeded
	}
	if got, seeded := load(); len(got) != 0 || seeded {
		t.Fatalf("new file: %v seeded=%v", got, seeded)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.Write(&store.Batch{Wipe: true, Changes: []store.Change{{Table: "a", PK: "1", Value: []byte(`1`)}, {Table: "b", PK: "2", Value: []byte(`2`)}}}))
	must(b.Write(&store.Batch{Changes: []store.Change{{Table: "a", PK: "1"}, {Table: "a", PK: "3", Value: []byte(`3`)}}}))
	if got, seeded := load(); len(got) != 2 || got["a/3"] != "3" || got["b/2"] != "2" || !seeded {
		t.Fatalf("after writes: %v seeded=%v", got, seeded)
	}
	must(b.Write(&store.Batch{Wipe: true, Changes: []store.Change{{Table: "b", PK: "9", Value: []byte(`9`)}}}))
	if got, _ := load(); len(got) != 1 || got["b/9"] != "9" {
		t.Fatalf("after a wipe: %v", got)
	}
	must(b.Close())
}

// TestFormatChecked: a file written in another format is refused, not misread.
func TestFormatChecked(t *testing.T) {
	dir := t.TempDir()
	db, err := bbolt.Open(filepath.Join(dir, FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		m, err := tx.CreateBucket(metaBucket)
		if err != nil {
			return err
		}
		return m.Put(formatKey, []byte("99"))
	})
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), `"99"`) {
		t.Fatalf("got %v, want a format error", err)
	}
}

// TestDamagedFileRefused: a file with damaged pages (16 bytes flipped, page by page) either
// opens and loads, or is refused with one error naming it; it never brings the process
// down, as bbolt's own walk at open would (a panic in its goroutine), nor panics in Load.
func TestDamagedFileRefused(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var changes []store.Change
	for i := range 300 {
		changes = append(changes, store.Change{Table: "t" + string(rune('a'+i%3)), PK: strings.Repeat("k", 20) + string(rune('a'+i%26)) + strings.Repeat("x", i%7) + string(rune('0'+i/26)), Value: []byte(`{"v":"` + strings.Repeat("v", 40) + `"}`)})
	}
	if err := b.Write(&store.Batch{Wipe: true, Changes: changes}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	refused := 0
	for p := 2; p < len(good)/page; p++ {
		for _, off := range []int{0, 8, 16, 32, 64, 200} {
			bad := bytes.Clone(good)
			for i := p*page + off; i < p*page+off+16; i++ {
				bad[i] ^= 0x5a
			}
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, FileName), bad, 0o600); err != nil {
				t.Fatal(err)
			}
			b, err := Open(d)
			if err != nil {
				if !strings.Contains(err.Error(), filepath.Join(d, FileName)) {
					t.Errorf("page %d+%d: %v, want the file named", p, off, err)
				}
				refused++
				continue
			}
			_, _ = b.Load(func(table, pk string, v []byte) error { return nil })
			_ = b.Close()
		}
	}
	if refused == 0 {
		t.Fatal("no damaged file was refused")
	}
	t.Logf("%d of %d damaged files refused", refused, (len(good)/page-2)*6)
}
