// Command engines measures two pure-Go embedded stores as the durable backend of an
// in-memory database: go.etcd.io/bbolt and modernc.org/sqlite (no cgo).
//
// The use it models: every committed write transaction of the in-memory database is a small
// change set (1-3 records of ~300-600 bytes of JSON, keyed by table name + primary key;
// sometimes a delete) that must be on disk (fsynced) before the HTTP response. Concurrent
// writers' change sets are group-committed: one committer goroutine takes everything queued,
// applies it in one disk transaction and syncs once. On start the whole database is read
// back into memory with one full scan.
//
// Engines, all fully durable:
//
//	bbolt          default options (NoSync=false, freelist synced); one bucket per table, key = pk
//	sqlite-wal     journal_mode=WAL, synchronous=FULL
//	sqlite-delete  journal_mode=DELETE, synchronous=FULL
//
// SQLite uses one table kv(tbl TEXT, pk TEXT, value BLOB, PRIMARY KEY(tbl, pk)) WITHOUT
// ROWID, one connection (database/sql with MaxOpenConns=1, pinned as a *sql.Conn), prepared
// statements, BEGIN IMMEDIATE ... COMMIT, cache_size=64 MiB.
//
// Scenarios:
//
//  1. single writer, one change set per disk transaction: commits/s, p50/p99 latency;
//  2. group commit with 1, 8 and 64 concurrent writers, each submitting a change set and
//     waiting until its batch is durable: change sets/s, p50/p99, mean batch size.
//     1 and 2 run -reps times for every engine (interleaved) on a fresh database holding
//     -preload records; medians are reported.
//  3. -load records of ~400 bytes (random keys) written in transactions of -batch records,
//     once per engine of -bulkengines (a 1M load takes 20-60 s here, so it is not repeated;
//     sqlite-delete shares sqlite-wal's file format and is left out by default); then -reps
//     times: reopen + full scan with the file evicted from the page cache (posix_fadvise
//     DONTNEED), the same after a sequential read of the file, and warm; medians reported.
//     Then scenarios 1 and 2 (64 writers) again, -reps times, with that database present.
//  4. reset with those records present, once: delete everything and write a 200-record seed
//     in one transaction; and, for comparison, remove the files and create a new database.
//
// Everything runs in a temporary directory under -dir (default /work, a disk, not tmpfs),
// removed at exit. The Markdown report goes to stdout, progress to stderr.
//
//	cd bench/engines && CGO_ENABLED=0 go run . [-dur 1s] [-reps 3] [-load 1000000]
//	cd bench/engines && go run . -build   # build time (empty GOCACHE) and binary size
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	_ "modernc.org/sqlite"
)

var (
	flagDir     = flag.String("dir", "/work", "parent of the temporary directory the databases are written in (must be a real disk)")
	flagDur     = flag.Duration("dur", time.Second, "duration of each latency run (scenarios 1 and 2)")
	flagReps    = flag.Int("reps", 3, "repetitions; medians are reported")
	flagPreload = flag.Int("preload", 20000, "records in the database before the latency runs")
	flagLoad    = flag.Int("load", 1_000_000, "records written in scenario 3")
	flagBatch   = flag.Int("batch", 10_000, "records per transaction in scenario 3")
	flagEngines = flag.String("engines", "bbolt,sqlite-wal,sqlite-delete", "engines to run")
	flagBuild   = flag.Bool("build", false, "measure build time with an empty GOCACHE and binary size of ./buildprobe/{none,bbolt,sqlite} instead")
	flagBReps   = flag.Int("buildreps", 3, "repetitions of each build with -build")
	flagBulk    = flag.String("bulkengines", "bbolt,sqlite-wal", "engines to run scenarios 3 and 4 for (sqlite-delete has the same file format as sqlite-wal)")
)

// tables are the record kinds; keys look like the store's: "project|name".
var tables = []string{"forwardingRules", "interconnects", "interconnectAttachments", "operations", "authorizations"}

// Op is one record change: Value nil means delete.
type Op struct {
	Tbl, PK string
	Value   []byte
}

// ChangeSet is what one committed in-memory transaction wrote.
type ChangeSet []Op

// Engine is a durable store: Apply writes change sets in one transaction and returns once
// it is durable.
type Engine interface {
	Apply(sets []ChangeSet) error
	Scan() (records int, bytes int64, err error)
	Reset(seed []Op) error
	Close() error
	Files() []string
}

var engineNames = map[string]func(path string) (Engine, error){
	"bbolt":         openBolt,
	"sqlite-wal":    func(p string) (Engine, error) { return openSQLite(p, "WAL") },
	"sqlite-delete": func(p string) (Engine, error) { return openSQLite(p, "DELETE") },
}

// ---- bbolt ----

type boltEngine struct {
	db   *bolt.DB
	path string
}

func openBolt(path string) (Engine, error) {
	db, err := bolt.Open(path, 0o600, nil) // DefaultOptions: NoSync=false, NoFreelistSync=false
	if err != nil {
		return nil, err
	}
	return &boltEngine{db: db, path: path}, nil
}

func (e *boltEngine) Apply(sets []ChangeSet) error {
	return e.db.Update(func(tx *bolt.Tx) error {
		for _, cs := range sets {
			for _, op := range cs {
				b, err := tx.CreateBucketIfNotExists([]byte(op.Tbl))
				if err != nil {
					return err
				}
				if op.Value == nil {
					err = b.Delete([]byte(op.PK))
				} else {
					err = b.Put([]byte(op.PK), op.Value)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (e *boltEngine) Scan() (n int, size int64, err error) {
	err = e.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			tbl := string(name)
			c := b.Cursor()
			for k, v := c.First(); k != nil; k, v = c.Next() {
				rec := Op{Tbl: tbl, PK: string(k), Value: slices.Clone(v)} // copy out of the mmap
				n++
				size += int64(len(rec.Value))
			}
			return nil
		})
	})
	return n, size, err
}

func (e *boltEngine) Reset(seed []Op) error {
	return e.db.Update(func(tx *bolt.Tx) error {
		var names [][]byte
		if err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, slices.Clone(name))
			return nil
		}); err != nil {
			return err
		}
		for _, n := range names {
			if err := tx.DeleteBucket(n); err != nil {
				return err
			}
		}
		for _, op := range seed {
			b, err := tx.CreateBucketIfNotExists([]byte(op.Tbl))
			if err != nil {
				return err
			}
			if err := b.Put([]byte(op.PK), op.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *boltEngine) Close() error    { return e.db.Close() }
func (e *boltEngine) Files() []string { return []string{e.path} }

// ---- sqlite ----

type sqliteEngine struct {
	db                         *sql.DB
	conn                       *sql.Conn
	path                       string
	begin, commit, upsert, del *sql.Stmt
}

func openSQLite(path, journal string) (Engine, error) {
	dsn := "file:" + path + "?_pragma=journal_mode(" + journal + ")&_pragma=synchronous(FULL)&_pragma=cache_size(-65536)&_pragma=busy_timeout(5000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection, the writer's
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	e := &sqliteEngine{db: db, conn: conn, path: path}
	var mode, sync string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		e.Close()
		return nil, err
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		e.Close()
		return nil, err
	}
	if !strings.EqualFold(mode, journal) || sync != "2" { // 2 = FULL
		e.Close()
		return nil, fmt.Errorf("sqlite: journal_mode=%s synchronous=%s, want %s and 2 (FULL)", mode, sync, journal)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kv(tbl TEXT NOT NULL, pk TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY(tbl, pk)) WITHOUT ROWID`); err != nil {
		e.Close()
		return nil, err
	}
	for _, s := range []struct {
		p *(*sql.Stmt)
		q string
	}{
		{&e.begin, "BEGIN IMMEDIATE"},
		{&e.commit, "COMMIT"},
		{&e.upsert, "INSERT INTO kv(tbl, pk, value) VALUES(?, ?, ?) ON CONFLICT(tbl, pk) DO UPDATE SET value = excluded.value"},
		{&e.del, "DELETE FROM kv WHERE tbl = ? AND pk = ?"},
	} {
		if *s.p, err = conn.PrepareContext(ctx, s.q); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

// tx runs f between BEGIN IMMEDIATE and COMMIT on the one connection (ROLLBACK on error).
func (e *sqliteEngine) tx(f func() error) error {
	if _, err := e.begin.Exec(); err != nil {
		return err
	}
	if err := f(); err != nil {
		_, _ = e.conn.ExecContext(context.Background(), "ROLLBACK")
		return err
	}
	_, err := e.commit.Exec()
	return err
}

func (e *sqliteEngine) Apply(sets []ChangeSet) error {
	return e.tx(func() error {
		for _, cs := range sets {
			for _, op := range cs {
				var err error
				if op.Value == nil {
					_, err = e.del.Exec(op.Tbl, op.PK)
				} else {
					_, err = e.upsert.Exec(op.Tbl, op.PK, op.Value)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (e *sqliteEngine) Scan() (n int, size int64, err error) {
	rows, err := e.conn.QueryContext(context.Background(), "SELECT tbl, pk, value FROM kv")
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var rec Op
		if err := rows.Scan(&rec.Tbl, &rec.PK, &rec.Value); err != nil {
			return n, size, err
		}
		n++
		size += int64(len(rec.Value))
	}
	return n, size, rows.Err()
}

func (e *sqliteEngine) Reset(seed []Op) error {
	return e.tx(func() error {
		if _, err := e.conn.ExecContext(context.Background(), "DELETE FROM kv"); err != nil {
			return err
		}
		for _, op := range seed {
			if _, err := e.upsert.Exec(op.Tbl, op.PK, op.Value); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *sqliteEngine) Close() error {
	for _, s := range []*sql.Stmt{e.begin, e.commit, e.upsert, e.del} {
		if s != nil {
			s.Close()
		}
	}
	if e.conn != nil {
		e.conn.Close()
	}
	return e.db.Close()
}

func (e *sqliteEngine) Files() []string {
	return []string{e.path, e.path + "-wal", e.path + "-shm", e.path + "-journal"}
}

// ---- workload ----

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "

// value returns a JSON object of about size bytes (exactly size when size >= 200).
func value(r *rand.Rand, tbl, pk string, size int) []byte {
	b := make([]byte, 0, size+16)
	b = fmt.Appendf(b, `{"kind":"compute#%s","name":%q,"selfLink":"https://compute.example/v1/projects/%s","creationTimestamp":"2026-01-02T15:04:05.000-07:00","labels":{"env":"test","team":"t%02d"},"description":"`,
		tbl, pk, pk, r.IntN(100))
	for len(b) < size-2 {
		b = append(b, letters[r.IntN(len(letters))])
	}
	return append(b, '"', '}')
}

func newPK(r *rand.Rand, prefix string) string {
	return fmt.Sprintf("project-%s%03d|res-%016x", prefix, r.IntN(1000), r.Uint64())
}

// writer generates change sets over its own keys: 1-3 ops, each an update of a key it wrote
// (60%), an insert (30%) or a delete of a key it wrote (10%); values 300-600 bytes.
type writer struct {
	r    *rand.Rand
	id   string
	keys []Op // Tbl, PK of live keys
}

func newWriter(seed uint64, id int) *writer {
	return &writer{r: rand.New(rand.NewPCG(seed, uint64(id))), id: fmt.Sprintf("w%02d-", id)}
}

func (w *writer) next() ChangeSet {
	n := 1 + w.r.IntN(3)
	cs := make(ChangeSet, 0, n)
	for range n {
		p := w.r.IntN(10)
		switch {
		case p < 1 && len(w.keys) > 0: // delete
			i := w.r.IntN(len(w.keys))
			k := w.keys[i]
			w.keys[i] = w.keys[len(w.keys)-1]
			w.keys = w.keys[:len(w.keys)-1]
			cs = append(cs, Op{Tbl: k.Tbl, PK: k.PK})
		case p < 7 && len(w.keys) > 0: // update
			k := w.keys[w.r.IntN(len(w.keys))]
			cs = append(cs, Op{Tbl: k.Tbl, PK: k.PK, Value: value(w.r, k.Tbl, k.PK, 300+w.r.IntN(301))})
		default: // insert
			tbl := tables[w.r.IntN(len(tables))]
			pk := newPK(w.r, w.id)
			w.keys = append(w.keys, Op{Tbl: tbl, PK: pk})
			cs = append(cs, Op{Tbl: tbl, PK: pk, Value: value(w.r, tbl, pk, 300+w.r.IntN(301))})
		}
	}
	return cs
}

// records returns n insert ops of ~400 bytes (360-440) with random keys across the tables.
func records(r *rand.Rand, n int, prefix string) []Op {
	ops := make([]Op, n)
	for i := range ops {
		tbl := tables[r.IntN(len(tables))]
		pk := newPK(r, prefix)
		ops[i] = Op{Tbl: tbl, PK: pk, Value: value(r, tbl, pk, 360+r.IntN(81))}
	}
	return ops
}

// ---- measurements ----

type latencyResult struct {
	perSec, p50, p99, batch float64 // p50/p99 in ms; batch = change sets per disk transaction
}

func percentile(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(p * float64(len(d)-1))
	return float64(d[i]) / float64(time.Millisecond)
}

// singleWriter: one goroutine, one change set per Apply.
func singleWriter(e Engine, dur time.Duration, seed uint64) (latencyResult, error) {
	w := newWriter(seed, 99)
	var lat []time.Duration
	start := time.Now()
	for time.Since(start) < dur {
		cs := w.next()
		t := time.Now()
		if err := e.Apply([]ChangeSet{cs}); err != nil {
			return latencyResult{}, err
		}
		lat = append(lat, time.Since(t))
	}
	el := time.Since(start)
	return latencyResult{perSec: float64(len(lat)) / el.Seconds(), p50: percentile(lat, .5), p99: percentile(lat, .99), batch: 1}, nil
}

type request struct {
	cs   ChangeSet
	done chan error
}

// groupCommit: n writers submit to one committer that takes everything queued at once.
func groupCommit(e Engine, writers int, dur time.Duration, seed uint64) (latencyResult, error) {
	queue := make(chan request, writers)
	var txs, sets int
	committerDone := make(chan struct{})
	go func() {
		defer close(committerDone)
		batch := make([]request, 0, writers)
		css := make([]ChangeSet, 0, writers)
		for r := range queue {
			batch = append(batch[:0], r)
		drain:
			for {
				select {
				case r, ok := <-queue:
					if !ok {
						break drain
					}
					batch = append(batch, r)
				default:
					break drain
				}
			}
			css = css[:0]
			for _, b := range batch {
				css = append(css, b.cs)
			}
			err := e.Apply(css)
			txs++
			sets += len(batch)
			for _, b := range batch {
				b.done <- err
			}
		}
	}()
	lats := make([][]time.Duration, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	for i := range writers {
		wg.Go(func() {
			w := newWriter(seed, i)
			done := make(chan error, 1)
			for time.Now().Before(deadline) {
				cs := w.next()
				t := time.Now()
				queue <- request{cs: cs, done: done}
				if err := <-done; err != nil {
					errs[i] = err
					return
				}
				lats[i] = append(lats[i], time.Since(t))
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	close(queue)
	<-committerDone
	if err := errors.Join(errs...); err != nil {
		return latencyResult{}, err
	}
	all := slices.Concat(lats...)
	return latencyResult{perSec: float64(len(all)) / el.Seconds(), p50: percentile(all, .5), p99: percentile(all, .99),
		batch: float64(sets) / float64(max(txs, 1))}, nil
}

type loadResult struct {
	load, batchP50, batchMax         float64   // s, ms, ms
	scanCold, scanPrefetch, scanWarm []float64 // s, one per repetition
	reset, resetNew                  float64   // s
	bigSingle, bigGroup64            []latencyResult
	sizeMiB, sizeAfterResetMiB       float64
}

func fileSize(files []string) int64 {
	var n int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		}
	}
	return n
}

// dropCache evicts the (clean, fsynced) pages of files from the page cache.
func dropCache(files []string) {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		_ = f.Sync()
		const fadvDontneed = 4
		_, _, _ = syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontneed, 0, 0)
		f.Close()
	}
}

func seedOps(r *rand.Rand) []Op { return records(r, 200, "seed") }

// prefetch reads files sequentially so that a following scan finds them in the page cache
// (bbolt maps its file with MADV_RANDOM, so a cold scan faults in one 4 KiB page at a time).
func prefetch(files []string) error {
	buf := make([]byte, 1<<20)
	for _, name := range files {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		for {
			_, err := f.Read(buf)
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return nil
}

// scanOnce opens the database, scans it all and closes it; it returns the time of
// prefetch (when asked) + open + scan.
func scanOnce(name, path string, pre bool) (float64, error) {
	t := time.Now()
	if pre {
		if err := prefetch([]string{path, path + "-wal"}); err != nil {
			return 0, err
		}
	}
	e, err := engineNames[name](path)
	if err != nil {
		return 0, err
	}
	n, _, err := e.Scan()
	el := time.Since(t).Seconds()
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != *flagLoad {
		err = fmt.Errorf("%s: scanned %d records, want %d", name, n, *flagLoad)
	}
	return el, err
}

// bulk is scenarios 3 and 4: load once, then -reps times a cold scan, a cold scan after a
// sequential prefetch and a warm scan (each reopening the database), then reset once.
func bulk(name, dir string, seed uint64, logf func(string, ...any)) (res loadResult, err error) {
	open := engineNames[name]
	path := filepath.Join(dir, name+".db")
	e, err := open(path)
	if err != nil {
		return res, err
	}
	files := e.Files()
	defer func() {
		for _, f := range files {
			os.Remove(f)
		}
	}()
	r := rand.New(rand.NewPCG(seed, 7))
	var loadTime time.Duration
	var batches []time.Duration
	for done := 0; done < *flagLoad; done += *flagBatch {
		ops := records(r, min(*flagBatch, *flagLoad-done), "")
		t := time.Now()
		if err := e.Apply([]ChangeSet{ops}); err != nil {
			e.Close()
			return res, err
		}
		d := time.Since(t)
		loadTime += d
		batches = append(batches, d)
	}
	res.load = loadTime.Seconds()
	res.batchMax = percentile(batches, 1)
	res.batchP50 = percentile(batches, .5)
	if err := e.Close(); err != nil {
		return res, err
	}
	res.sizeMiB = float64(fileSize(files)) / (1 << 20)
	logf("%-13s load %.2fs (batch p50 %.0f ms, max %.0f ms), %.0f MiB", name, res.load, res.batchP50, res.batchMax, res.sizeMiB)

	for rep := range *flagReps {
		dropCache(files)
		cold, err := scanOnce(name, path, false)
		if err != nil {
			return res, err
		}
		dropCache(files)
		pre, err := scanOnce(name, path, true)
		if err != nil {
			return res, err
		}
		warm, err := scanOnce(name, path, false)
		if err != nil {
			return res, err
		}
		res.scanCold = append(res.scanCold, cold)
		res.scanPrefetch = append(res.scanPrefetch, pre)
		res.scanWarm = append(res.scanWarm, warm)
		logf("%-13s rep %d reopen+scan cold %.2fs, cold with prefetch %.2fs, warm %.2fs", name, rep+1, cold, pre, warm)
	}

	e, err = open(path)
	if err != nil {
		return res, err
	}
	// Commit latency with the big database present (scenarios 1 and 2 start from -preload).
	for rep := range *flagReps {
		one, err := singleWriter(e, *flagDur, uint64(100+rep))
		if err != nil {
			e.Close()
			return res, err
		}
		many, err := groupCommit(e, 64, *flagDur, uint64(200+rep))
		if err != nil {
			e.Close()
			return res, err
		}
		res.bigSingle = append(res.bigSingle, one)
		res.bigGroup64 = append(res.bigGroup64, many)
		logf("%-13s rep %d with %d records: single writer %.0f/s p50 %.2f ms p99 %.2f ms; group 64 %.0f/s p50 %.2f ms p99 %.2f ms",
			name, rep+1, *flagLoad, one.perSec, one.p50, one.p99, many.perSec, many.p50, many.p99)
	}
	seed200 := seedOps(r)
	t := time.Now()
	if err := e.Reset(seed200); err != nil {
		e.Close()
		return res, err
	}
	res.reset = time.Since(t).Seconds()
	if n, _, err := e.Scan(); err != nil || n != len(seed200) {
		e.Close()
		return res, fmt.Errorf("%s: after reset scanned %d records (%v), want %d", name, n, err, len(seed200))
	}
	if err := e.Close(); err != nil {
		return res, err
	}
	res.sizeAfterResetMiB = float64(fileSize(files)) / (1 << 20)
	// The other way to reset: remove the files and start a new database with the seed.
	t = time.Now()
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
	}
	if err := syncDir(dir); err != nil {
		return res, err
	}
	e, err = open(path)
	if err != nil {
		return res, err
	}
	if err := e.Apply([]ChangeSet{seed200}); err != nil {
		e.Close()
		return res, err
	}
	res.resetNew = time.Since(t).Seconds()
	logf("%-13s reset in place %.3fs (file after %.0f MiB), reset as new file %.3fs", name, res.reset, res.sizeAfterResetMiB, res.resetNew)
	return res, e.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// fsyncBaseline: median latency of write(4 KiB)+fdatasync on the benchmark filesystem.
func fsyncBaseline(dir string) (float64, error) {
	f, err := os.Create(filepath.Join(dir, "fsync.probe"))
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	var lat []time.Duration
	for i := range 200 {
		t := time.Now()
		if _, err := f.WriteAt(buf, int64(i%16)*4096); err != nil {
			return 0, err
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			return 0, err
		}
		lat = append(lat, time.Since(t))
	}
	return percentile(lat, .5), nil
}

func medianOf[T any](rs []T, f func(T) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return median(xs)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func run(name string, args ...string) string {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return strings.TrimSpace(string(out)) + " (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func machine(dir string) {
	fmt.Printf("- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Printf("- command: `%s`\n", commandLine())
	fmt.Printf("- machine: nproc %s, CPU %q, %s, load average at start %s\n", run("nproc"), cpuModel(), runtime.Version(), loadavg())
	// -dir, not the temporary directory under it, whose random name says nothing to a reader.
	fmt.Printf("- filesystem the databases are written to (-dir %s):\n\n```text\n%s\n```\n\n", *flagDir, run("df", "-T", dir))
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func commandLine() string {
	cmd := "go run ."
	flag.Visit(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && f.Value.String() == "true" {
			cmd += " -" + f.Name
		} else {
			cmd += fmt.Sprintf(" -%s=%s", f.Name, f.Value)
		}
	})
	if v, ok := os.LookupEnv("CGO_ENABLED"); ok {
		cmd = "CGO_ENABLED=" + v + " " + cmd
	}
	return "cd bench/engines && " + cmd
}

func main() {
	flag.Parse()
	if *flagBuild {
		if err := buildBench(); err != nil {
			fmt.Fprintln(os.Stderr, "engines:", err)
			os.Exit(1)
		}
		return
	}
	if err := bench(); err != nil {
		fmt.Fprintln(os.Stderr, "engines:", err)
		os.Exit(1)
	}
}

func bench() error {
	dir, err := os.MkdirTemp(*flagDir, "engines-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	names := strings.Split(*flagEngines, ",")
	for _, n := range names {
		if engineNames[n] == nil {
			return fmt.Errorf("unknown engine %q", n)
		}
	}
	var bulkNames []string
	if *flagBulk != "" {
		bulkNames = strings.Split(*flagBulk, ",")
	}
	for _, n := range bulkNames {
		if engineNames[n] == nil {
			return fmt.Errorf("unknown engine %q", n)
		}
	}
	begin := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "[%6.1fs] "+format+"\n", append([]any{time.Since(begin).Seconds()}, a...)...)
	}
	fmt.Println("## Results")
	fmt.Println()
	machine(dir)
	fs, err := fsyncBaseline(dir)
	if err != nil {
		return err
	}
	fmt.Printf("- raw `write(4 KiB)+fdatasync` on that filesystem: p50 %.2f ms\n\n", fs)

	scenarios := []string{"1 single writer", "2 group, 1 writer", "2 group, 8 writers", "2 group, 64 writers"}
	lat := map[string]map[string][]latencyResult{}
	bulkRes := map[string]loadResult{}
	for _, n := range names {
		lat[n] = map[string][]latencyResult{}
	}
	for rep := range *flagReps {
		for _, n := range names {
			seed := uint64(rep*1000 + 1)
			path := filepath.Join(dir, n+"-lat.db")
			e, err := engineNames[n](path)
			if err != nil {
				return err
			}
			r := rand.New(rand.NewPCG(seed, 3))
			for done := 0; done < *flagPreload; done += *flagBatch {
				if err := e.Apply([]ChangeSet{records(r, min(*flagBatch, *flagPreload-done), "pre")}); err != nil {
					return err
				}
			}
			for i, sc := range scenarios {
				var res latencyResult
				if i == 0 {
					res, err = singleWriter(e, *flagDur, seed)
				} else {
					res, err = groupCommit(e, []int{1, 8, 64}[i-1], *flagDur, seed+uint64(i))
				}
				if err != nil {
					return fmt.Errorf("%s %s: %w", n, sc, err)
				}
				lat[n][sc] = append(lat[n][sc], res)
				logf("rep %d %-13s %-20s %7.0f/s p50 %6.2f ms p99 %6.2f ms batch %.1f", rep+1, n, sc, res.perSec, res.p50, res.p99, res.batch)
			}
			files := e.Files()
			if err := e.Close(); err != nil {
				return err
			}
			for _, f := range files {
				os.Remove(f)
			}
		}
	}
	for _, n := range bulkNames {
		res, err := bulk(n, dir, 1, logf)
		if err != nil {
			return err
		}
		bulkRes[n] = res
	}

	fmt.Printf("### Commits (median of %d runs of %s each; %d records preloaded, or %d where said (the scenario-3 database, after its scans); change sets of 1-3 records of 300-600 B, 60%% update / 30%% insert / 10%% delete)\n\n", *flagReps, *flagDur, *flagPreload, *flagLoad)
	fmt.Println("| engine | scenario | change sets/s | p50 ms | p99 ms | change sets per fsync'd tx |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: |")
	for _, n := range names {
		for _, sc := range scenarios {
			rs := lat[n][sc]
			fmt.Printf("| %s | %s | %.0f | %.2f | %.2f | %.1f |\n", n, sc,
				medianOf(rs, func(r latencyResult) float64 { return r.perSec }), medianOf(rs, func(r latencyResult) float64 { return r.p50 }),
				medianOf(rs, func(r latencyResult) float64 { return r.p99 }), medianOf(rs, func(r latencyResult) float64 { return r.batch }))
		}
	}
	for _, n := range bulkNames {
		for i, rs := range [][]latencyResult{bulkRes[n].bigSingle, bulkRes[n].bigGroup64} {
			sc := []string{"1 single writer", "2 group, 64 writers"}[i]
			fmt.Printf("| %s | %s, %d records present | %.0f | %.2f | %.2f | %.1f |\n", n, sc, *flagLoad,
				medianOf(rs, func(r latencyResult) float64 { return r.perSec }), medianOf(rs, func(r latencyResult) float64 { return r.p50 }),
				medianOf(rs, func(r latencyResult) float64 { return r.p99 }), medianOf(rs, func(r latencyResult) float64 { return r.batch }))
		}
	}
	fmt.Printf("\n### Bulk load, start-up scan, reset (%d records of 360-440 B, random keys over %d tables)\n\n", *flagLoad, len(tables))
	fmt.Printf("Load: once per engine, %d transactions of %d records. Scans: reopen + full scan, median of %d; cold = file evicted from the page cache first (posix_fadvise DONTNEED), prefetch = cold but the file read sequentially before opening (included in the time). Reset: once, with the %d records present; in place = delete everything + write 200 seed records in one transaction; new file = remove the files, create a new database, write the seed.\n\n",
		(*flagLoad+*flagBatch-1) / *flagBatch, *flagBatch, *flagReps, *flagLoad)
	fmt.Println("| engine | 3 load s | records/s | tx p50 / max ms | file MiB | 3 scan cold s | 3 scan cold + prefetch s | 3 scan warm s | 4 reset in place s | file after MiB | 4 reset as new file s |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range bulkNames {
		r := bulkRes[n]
		fmt.Printf("| %s | %.1f | %.0f | %.0f / %.0f | %.0f | %.2f | %.2f | %.2f | %.3f | %.0f | %.3f |\n", n, r.load, float64(*flagLoad)/r.load,
			r.batchP50, r.batchMax, r.sizeMiB, median(r.scanCold), median(r.scanPrefetch), median(r.scanWarm), r.reset, r.sizeAfterResetMiB, r.resetNew)
	}
	fmt.Printf("\n(total benchmark time %.0f s)\n", time.Since(begin).Seconds())
	return nil
}

// buildBench builds ./buildprobe/{none,bbolt,sqlite} with CGO_ENABLED=0 and an empty GOCACHE
// each time, and reports wall time and binary size.
func buildBench() error {
	modDir := filepath.Dir(run("go", "env", "GOMOD"))
	dir, err := os.MkdirTemp(*flagDir, "engines-build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Println("## Build cost")
	fmt.Println()
	fmt.Printf("- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Printf("- command: `%s`\n", commandLine())
	fmt.Printf("- machine: nproc %s, CPU %q, %s, load average at start %s\n\n", run("nproc"), cpuModel(), runtime.Version(), loadavg())
	type res struct{ secs, cpu, warm, size []float64 }
	probes := []string{"none", "bbolt", "sqlite"}
	results := map[string]*res{}
	for rep := range *flagBReps {
		for _, p := range probes {
			if results[p] == nil {
				results[p] = &res{}
			}
			cache := filepath.Join(dir, fmt.Sprintf("cache-%s-%d", p, rep))
			out := filepath.Join(dir, p+".bin")
			var cpu float64
			build := func() (float64, error) {
				cmd := exec.Command("go", "build", "-o", out, "./buildprobe/"+p)
				cmd.Dir = modDir
				cmd.Env = append(os.Environ(), "GOCACHE="+cache, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
				t := time.Now()
				if b, err := cmd.CombinedOutput(); err != nil {
					return 0, fmt.Errorf("build %s: %v\n%s", p, err, b)
				}
				cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() // includes the compilers it ran
				return time.Since(t).Seconds(), nil
			}
			cold, err := build()
			if err != nil {
				return err
			}
			// warm: same cache, main package relinked (a changed -X value), as in day-to-day work
			cmd := exec.Command("go", "build", "-ldflags=-X main.stamp="+fmt.Sprint(time.Now().UnixNano()), "-o", out, "./buildprobe/"+p)
			cmd.Dir = modDir
			cmd.Env = append(os.Environ(), "GOCACHE="+cache, "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
			t := time.Now()
			if b, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("rebuild %s: %v\n%s", p, err, b)
			}
			warm := time.Since(t).Seconds()
			st, err := os.Stat(out)
			if err != nil {
				return err
			}
			results[p].secs = append(results[p].secs, cold)
			results[p].cpu = append(results[p].cpu, cpu)
			results[p].warm = append(results[p].warm, warm)
			results[p].size = append(results[p].size, float64(st.Size())/(1<<20))
			fmt.Fprintf(os.Stderr, "build %-6s cold %.1fs (CPU %.1fs) warm %.1fs size %.2f MiB\n", p, cold, cpu, warm, float64(st.Size())/(1<<20))
			os.RemoveAll(cache)
		}
	}
	base := results["none"]
	fmt.Printf("Median of %d. `go build` with CGO_ENABLED=0 and an empty GOCACHE (so the standard library is compiled too: that is the `none` row); CPU = user+sys of `go build` and the compilers and linker it ran; warm = relink with the cache filled.\n\n", *flagBReps)
	fmt.Printf("| probe | `go build`, empty GOCACHE s | added s | CPU s | added CPU s | relink, warm cache s | binary MiB | added MiB |\n")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, p := range probes {
		r := results[p]
		fmt.Printf("| %s | %.1f | %+.1f | %.1f | %+.1f | %.1f | %.2f | %+.2f |\n", p, median(r.secs), median(r.secs)-median(base.secs),
			median(r.cpu), median(r.cpu)-median(base.cpu), median(r.warm),
			median(r.size), median(r.size)-median(base.size))
	}
	return nil
}
