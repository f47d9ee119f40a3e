package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/understudy-dev/understudy/internal/store"
)

// txn is a transaction of the engine, on one pooled connection. It begins with its first
// statement, in the same round trip (pgx.Batch.BeginTx): BEGIN, the prelude (the writers
// lock; a wipe), then that statement.
//
// A write transaction that does not run alone (locking) runs at READ COMMITTED and locks
// what it reads and writes before it does (lock.go): the locks go in the same round trip
// as the statement they guard (pending), each statement seeing what committed before its
// locks were granted.
type txn struct {
	e       *Engine
	ctx     context.Context
	conn    *pgxpool.Conn
	opts    pgx.TxOptions
	prelude []string
	tx      pgx.Tx // nil until the transaction has begun
	write   bool
	locking bool
	// pending are lock statements to send before the next statement, in its round trip.
	pending []*pgx.QueuedQuery
	// held are the locks taken (lockID: exclusive or not), so as to take each once.
	held map[string]bool
	// err is the first failure of the database: PostgreSQL has aborted the transaction,
	// so every later statement would fail too.
	err error
	// writes counts the rows this transaction changed; dirty has, for each row it changed
	// (by table and primary key), the count after its last change. A scan reads rows in
	// batches and checks again the ones changed since it read them.
	writes uint64
	dirty  map[string]uint64
}

// fail keeps the first database failure.
func (t *txn) fail(err error) error {
	if t.err == nil {
		t.err = err
	}
	return err
}

func (t *txn) changed(table, pk string) {
	t.writes++
	if t.dirty == nil {
		t.dirty = map[string]uint64{}
	}
	t.dirty[table+"\x00"+pk] = t.writes
}

func (t *txn) changedSince(table, pk string, writes uint64) bool {
	return t.dirty != nil && t.dirty[table+"\x00"+pk] > writes
}

// begin begins the transaction on its own, when no statement has begun it yet.
func (t *txn) begin() error {
	if t.tx != nil {
		return nil
	}
	br, err := t.send(nil)
	if err != nil {
		return err
	}
	return br.Close()
}

// send sends, in one batch, BEGIN and the prelude (when the transaction has not begun),
// the pending locks and, when not nil, q, and reads the results of all but q.
func (t *txn) send(q *pgx.QueuedQuery) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	if t.tx == nil {
		b.BeginTx(t.opts)
		for _, sql := range t.prelude {
			b.Queue(sql)
		}
	}
	b.QueuedQueries = append(b.QueuedQueries, t.pending...)
	t.pending = nil
	before := len(b.QueuedQueries)
	if q != nil {
		b.QueuedQueries = append(b.QueuedQueries, q)
	}
	var br pgx.BatchResults
	if t.tx == nil {
		br = t.conn.SendBatch(t.ctx, b)
		t.tx = br.Tx()
	} else {
		br = t.tx.SendBatch(t.ctx, b)
	}
	for _, pre := range b.QueuedQueries[:before] {
		var err error
		if pre.SQL == tryLockSQL {
			var granted bool
			if err = br.QueryRow().Scan(&granted); err == nil && !granted {
				err = errLockBusy
			}
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

// queryRow runs a statement that returns one row.
func (t *txn) queryRow(sql string, args ...any) pgx.Row {
	if t.tx != nil && len(t.pending) == 0 {
		return t.tx.QueryRow(t.ctx, sql, args...)
	}
	br, err := t.send(&pgx.QueuedQuery{SQL: sql, Arguments: args})
	if err != nil {
		return errRow{err}
	}
	return batchRow{br}
}

// query runs a statement that returns rows.
func (t *txn) query(sql string, args ...any) (pgx.Rows, error) {
	if t.tx != nil && len(t.pending) == 0 {
		return t.tx.Query(t.ctx, sql, args...)
	}
	br, err := t.send(&pgx.QueuedQuery{SQL: sql, Arguments: args})
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// rollback ends a transaction that will not commit. It has a second of its own when the
// transaction's time is over; a rollback that fails leaves the connection inside the
// transaction, and the pool closes it rather than reuse it (PostgreSQL then rolls back).
func (t *txn) rollback() {
	if t.tx == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), time.Second)
	defer cancel()
	_ = t.tx.Rollback(ctx)
}

// errRow is a row that failed before it was read.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// batchRow is the row of a batch's last statement; scanning it ends the batch.
type batchRow struct{ br pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	err := r.br.QueryRow().Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// batchRows are the rows of a batch's last statement; closing them ends the batch.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

func (t *txn) Get(table, pk string) ([]byte, bool, error) {
	if t.err != nil {
		return nil, false, t.err
	}
	if _, err := t.e.def(table); err != nil {
		return nil, false, err
	}
	t.lockKey(table, pkIndex, pk, false)
	var doc []byte
	err := t.queryRow(`SELECT doc FROM rows WHERE tbl = $1 AND pk = $2`, table, []byte(pk)).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, t.fail(err)
	}
	return doc, true, nil
}

// putSQL stores a row and its keys in one statement, unless another row holds one of its
// unique keys: then it changes nothing and returns that key. All its parts see the state
// before it, so the old keys it removes are those the row had.
const putSQL = `WITH
new_u (idx, key) AS (SELECT * FROM unnest($4::int2[], $5::bytea[])),
new_k (idx, key) AS (SELECT * FROM unnest($6::int2[], $7::bytea[])),
held AS (
	SELECT u.idx, u.key, u.pk FROM unique_keys u JOIN new_u n ON u.idx = n.idx AND u.key = n.key
	WHERE u.tbl = $1 AND u.pk <> $2 LIMIT 1),
put AS (
	INSERT INTO rows (tbl, pk, doc) SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT FROM held)
	ON CONFLICT (tbl, pk) DO UPDATE SET doc = excluded.doc),
drop_u AS (
	DELETE FROM unique_keys u WHERE u.tbl = $1 AND u.pk = $2 AND NOT EXISTS (SELECT FROM held)
	AND NOT EXISTS (SELECT FROM new_u n WHERE n.idx = u.idx AND n.key = u.key)),
add_u AS (
	INSERT INTO unique_keys (tbl, idx, key, pk) SELECT $1, idx, key, $2 FROM new_u
	WHERE NOT EXISTS (SELECT FROM held) ON CONFLICT DO NOTHING),
drop_k AS (
	DELETE FROM index_keys k WHERE k.tbl = $1 AND k.pk = $2 AND NOT EXISTS (SELECT FROM held)
	AND NOT EXISTS (SELECT FROM new_k n WHERE n.idx = k.idx AND n.key = k.key)),
add_k AS (
	INSERT INTO index_keys (tbl, idx, key, pk) SELECT $1, idx, key, $2 FROM new_k
	WHERE NOT EXISTS (SELECT FROM held) ON CONFLICT DO NOTHING)
SELECT idx, key, pk FROM held`

func (t *txn) Put(table, pk string, doc []byte, keys []store.Key) error {
	if t.err != nil {
		return t.err
	}
	if !t.write {
		return store.ErrReadOnly
	}
	d, err := t.e.def(table)
	if err != nil {
		return err
	}
	var uIdx, kIdx []int16
	var uKey, kKey [][]byte
	for _, k := range keys {
		if k.Index < 0 || k.Index >= len(d.unique) {
			return errors.New("store: table " + table + ": a key of an index it does not have")
		}
		if d.unique[k.Index] {
			uIdx, uKey = append(uIdx, int16(k.Index)), append(uKey, []byte(k.Key))
		} else {
			kIdx, kKey = append(kIdx, int16(k.Index)), append(kKey, []byte(k.Key))
		}
	}
	if doc == nil {
		doc = []byte{} // a row always has a document, if an empty one
	}
	if err := t.lockWrite(table, pk, uIdx, uKey, kIdx, kKey); err != nil {
		return t.fail(err)
	}
	var idx int16
	var key, holder []byte
	err = t.queryRow(putSQL, table, []byte(pk), doc, uIdx, uKey, kIdx, kKey).Scan(&idx, &key, &holder)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		t.changed(table, pk)
		return nil
	case err != nil:
		return t.fail(err)
	}
	return &store.ConflictError{Table: table, Index: d.Indexes[idx].Name, Key: string(key), Holder: string(holder)}
}

func (t *txn) Delete(table, pk string) (bool, error) {
	if t.err != nil {
		return false, t.err
	}
	if !t.write {
		return false, store.ErrReadOnly
	}
	if _, err := t.e.def(table); err != nil {
		return false, err
	}
	if err := t.lockWrite(table, pk, nil, nil, nil, nil); err != nil {
		return false, t.fail(err)
	}
	var n int
	err := t.queryRow(`WITH
		row AS (DELETE FROM rows WHERE tbl = $1 AND pk = $2 RETURNING 1),
		u AS (DELETE FROM unique_keys WHERE tbl = $1 AND pk = $2),
		k AS (DELETE FROM index_keys WHERE tbl = $1 AND pk = $2)
		SELECT count(*) FROM row`, table, []byte(pk)).Scan(&n)
	if err != nil {
		return false, t.fail(err)
	}
	if n > 0 {
		t.changed(table, pk)
	}
	return n > 0, nil
}

func (t *txn) Lookup(table string, index int, key string) (string, []byte, bool, error) {
	if t.err != nil {
		return "", nil, false, t.err
	}
	if _, err := t.e.def(table); err != nil {
		return "", nil, false, err
	}
	t.lockKey(table, index, key, false)
	var pk, doc []byte
	err := t.queryRow(`SELECT u.pk, r.doc FROM unique_keys u JOIN rows r ON r.tbl = u.tbl AND r.pk = u.pk
		WHERE u.tbl = $1 AND u.idx = $2 AND u.key = $3`, table, int16(index), []byte(key)).Scan(&pk, &doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, t.fail(err)
	}
	return string(pk), doc, true, nil
}

// Scan batches: the first is small (most scans stop early: a page, a first match), later
// ones grow, so that a long scan costs few round trips.
const (
	firstBatch = 64
	maxBatch   = 1024
)

// entry is a row a scan read.
type entry struct {
	c   store.Cursor
	doc []byte
}

// Scan reads the range in batches and calls fn for each entry of a batch once the batch is
// read, with no result set open: fn may use the transaction. An entry whose row fn changed
// since its batch was read is read again (and skipped when its row no longer holds it).
func (t *txn) Scan(table string, index int, r store.Range, fn func(store.Cursor, []byte) bool) error {
	if t.err != nil {
		return t.err
	}
	d, err := t.e.def(table)
	if err != nil {
		return err
	}
	if index >= 0 && (index >= len(d.Indexes) || d.Indexes[index].Kind != store.Ordered) {
		return nil // only ordered indexes (and the primary key) have an order
	}
	if err := t.lockTable(table, lockScan); err != nil {
		return t.fail(err)
	}
	from := r.From
	batch := make([]entry, 0, firstBatch)
	limit := firstBatch
	for {
		writes := t.writes
		if batch, err = t.entries(table, index, r, from, limit, batch[:0]); err != nil {
			return t.fail(err)
		}
		for _, en := range batch {
			doc := en.doc
			if t.changedSince(table, en.c.PK, writes) {
				var ok bool
				if doc, ok, err = t.reread(table, index, en.c); err != nil {
					return t.fail(err)
				}
				if !ok {
					continue
				}
			}
			if !fn(en.c, doc) {
				return nil
			}
			if t.err != nil {
				return t.err
			}
		}
		if len(batch) < limit {
			return nil
		}
		last := batch[len(batch)-1].c
		from = &last
		limit = min(limit*4, maxBatch)
	}
}

// entries reads up to limit entries of the range after from (before it, in reverse).
func (t *txn) entries(table string, index int, r store.Range, from *store.Cursor, limit int, out []entry) ([]entry, error) {
	var q strings.Builder
	args := []any{table}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	desc := ""
	if r.Reverse {
		desc = " DESC"
	}
	if index < 0 {
		q.WriteString("SELECT pk, pk, doc FROM rows WHERE tbl = $1")
		q.WriteString(" AND pk >= " + arg([]byte(r.Lo)))
		if r.Hi != "" {
			q.WriteString(" AND pk < " + arg([]byte(r.Hi)))
		}
		if from != nil {
			op := " > "
			if r.Reverse {
				op = " < "
			}
			q.WriteString(" AND pk" + op + arg([]byte(from.PK)))
		}
		q.WriteString(" ORDER BY pk" + desc)
	} else {
		q.WriteString("SELECT k.key, k.pk, r.doc FROM index_keys k JOIN rows r ON r.tbl = k.tbl AND r.pk = k.pk WHERE k.tbl = $1")
		q.WriteString(" AND k.idx = " + arg(int16(index)))
		q.WriteString(" AND k.key >= " + arg([]byte(r.Lo)))
		if r.Hi != "" {
			q.WriteString(" AND k.key < " + arg([]byte(r.Hi)))
		}
		if from != nil {
			op := " > "
			if r.Reverse {
				op = " < "
			}
			q.WriteString(" AND (k.key, k.pk)" + op + "(" + arg([]byte(from.Key)) + ", " + arg([]byte(from.PK)) + ")")
		}
		q.WriteString(" ORDER BY k.key" + desc + ", k.pk" + desc)
	}
	q.WriteString(" LIMIT " + arg(limit))
	rows, err := t.query(q.String(), args...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var key, pk, doc []byte
		if err := rows.Scan(&key, &pk, &doc); err != nil {
			return out, err
		}
		out = append(out, entry{c: store.Cursor{Key: string(key), PK: string(pk)}, doc: doc})
	}
	return out, rows.Err()
}

// reread reads an entry's row again: its document, if the row still holds the entry.
func (t *txn) reread(table string, index int, c store.Cursor) ([]byte, bool, error) {
	var doc []byte
	var err error
	if index < 0 {
		err = t.queryRow(`SELECT doc FROM rows WHERE tbl = $1 AND pk = $2`, table, []byte(c.PK)).Scan(&doc)
	} else {
		err = t.queryRow(`SELECT r.doc FROM index_keys k JOIN rows r ON r.tbl = k.tbl AND r.pk = k.pk
			WHERE k.tbl = $1 AND k.idx = $2 AND k.key = $3 AND k.pk = $4`, table, int16(index), []byte(c.Key), []byte(c.PK)).Scan(&doc)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	return doc, err == nil, err
}

func (t *txn) Count(table string, index int, key string) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	d, err := t.e.def(table)
	if err != nil {
		return 0, err
	}
	if index < 0 || index >= len(d.Indexes) {
		return 0, errors.New("store: table " + table + " has no such index")
	}
	t.lockKey(table, index, key, true)
	q := `SELECT count(*) FROM index_keys WHERE tbl = $1 AND idx = $2 AND key = $3`
	if d.unique[index] {
		q = `SELECT count(*) FROM unique_keys WHERE tbl = $1 AND idx = $2 AND key = $3`
	}
	var n int
	if err := t.queryRow(q, table, int16(index), []byte(key)).Scan(&n); err != nil {
		return 0, t.fail(err)
	}
	return n, nil
}

func (t *txn) Len(table string) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if _, err := t.e.def(table); err != nil {
		return 0, err
	}
	if err := t.lockTable(table, lockScan); err != nil {
		return 0, t.fail(err)
	}
	var n int
	if err := t.queryRow(`SELECT count(*) FROM rows WHERE tbl = $1`, table).Scan(&n); err != nil {
		return 0, t.fail(err)
	}
	return n, nil
}

// Next takes the next number of the sequence's PostgreSQL sequence: nextval never hands a
// number out twice, even to transactions that roll back, and never waits for another
// transaction, so writers that number things do not conflict over it.
func (t *txn) Next(sequence string) (uint64, error) {
	if t.err != nil {
		return 0, t.err
	}
	if !t.write {
		return 0, store.ErrReadOnly
	}
	name, err := t.e.sequence(t.ctx, sequence)
	if err != nil {
		return 0, t.fail(err)
	}
	var n int64
	if err := t.queryRow(`SELECT nextval($1::text::regclass)`, name).Scan(&n); err != nil {
		return 0, t.fail(err)
	}
	return uint64(n), nil
}
