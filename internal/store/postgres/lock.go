package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A write transaction runs at READ COMMITTED, many at once, and locks each thing it reads
// for a decision, and each thing it changes, before the statement that reads or changes
// it, so that two transactions that would decide on the same thing run one after the
// other, the second seeing what the first committed:
//
//   - a row (by table and primary key) and a key of a unique index: an advisory lock,
//     shared by Get and Lookup, exclusive for Put and Delete (Put and Delete: the row's
//     keys before and after). A row or key that does not exist is locked too: a name
//     taken twice waits. Rows many transactions read and none changes (a setting, a
//     role definition) are read by all at once.
//   - a key of an ordered or counted index: Count takes an exclusive advisory lock on it,
//     Put and Delete a shared one (for the keys before and after), so that writers of one
//     key run at once and a count waits for them.
//   - a whole table: Scan and Len take its lock relation (lock_<table>) in SHARE mode,
//     Put and Delete in ROW EXCLUSIVE mode: scans run at once, writers run at once, a
//     scan and a writer of one table one after the other.
//
// A lock is taken in a statement of its own, sent in the round trip of the statement it
// guards: that statement's snapshot is taken once the lock is granted. Locks are held
// until the transaction ends. A transaction that holds a shared lock and needs it
// exclusive (a row it read, then changes) does not wait for it: if another holds it too
// (they would wait for each other), it gives up (errLockBusy), and runs again alone
// (Engine.Run), as one the database ends in a deadlock (two that lock in opposite orders)
// does.

// pkIndex stands for the primary key where a lock names an index.
const pkIndex = -1

// keyExpr is the advisory lock key (a bigint) of a key of a table's index, in SQL: the
// first 8 bytes of the MD5 of the schema, the table, the index and the key. Two keys
// sharing a lock key (2^-64 apart) only wait for each other.
func keyExpr(tbl, idx, key string) string {
	return `('x' || left(md5(convert_to(current_schema(), 'UTF8') || '\x00'::bytea || convert_to(` + tbl +
		`, 'UTF8') || '\x00'::bytea || int4send(` + idx + `) || ` + key + `), 16))::bit(64)::bigint`
}

var (
	lockSQL       = `SELECT pg_advisory_xact_lock(` + keyExpr("$1::text", "$2::int4", "$3::bytea") + `)`
	lockSharedSQL = `SELECT pg_advisory_xact_lock_shared(` + keyExpr("$1::text", "$2::int4", "$3::bytea") + `)`
	tryLockSQL    = `SELECT pg_try_advisory_xact_lock(` + keyExpr("$1::text", "$2::int4", "$3::bytea") + `)`
	// lockRowSQL locks the keys a write gives a row ($2..$4) and those the row has now (of
	// the row $5, whose own lock the transaction holds, so they do not change meanwhile),
	// in the order of their lock keys.
	lockRowSQL = `SELECT CASE WHEN x THEN pg_advisory_xact_lock(k) ELSE pg_advisory_xact_lock_shared(k) END
FROM (SELECT k, bool_or(x) AS x FROM (
	SELECT ` + keyExpr("$1::text", "n.idx", "n.key") + ` AS k, n.x FROM unnest($2::int4[], $3::bytea[], $4::bool[]) AS n (idx, key, x)
	UNION ALL SELECT ` + keyExpr("$1::text", "u.idx::int4", "u.key") + `, true FROM unique_keys u WHERE u.tbl = $1::text AND u.pk = $5
	UNION ALL SELECT ` + keyExpr("$1::text", "i.idx::int4", "i.key") + `, false FROM index_keys i WHERE i.tbl = $1::text AND i.pk = $5
) a GROUP BY k ORDER BY k) s`
)

// errLockBusy: a lock the transaction holds shared, and needs exclusive, is held by
// another transaction too.
var errLockBusy = errors.New("store: postgres: a lock to upgrade is held by another transaction")

// lockKey locks a key of a table's index (pkIndex: a primary key) before the next
// statement, exclusively or shared, unless the transaction holds that lock already. It
// reports whether the lock is queued (false: held already).
func (t *txn) lockKey(table string, index int, key string, exclusive bool) bool {
	if !t.locking {
		return false
	}
	id := lockID(table, index, key)
	x, ok := t.held[id]
	if ok && (x || !exclusive) {
		return false
	}
	if t.held == nil {
		t.held = map[string]bool{}
	}
	t.held[id] = exclusive
	sql := lockSharedSQL
	switch {
	case ok: // held shared: an upgrade
		sql = tryLockSQL
	case exclusive:
		sql = lockSQL
	}
	t.pending = append(t.pending, &pgx.QueuedQuery{SQL: sql, Arguments: []any{table, int32(index), []byte(key)}})
	return true
}

func lockID(table string, index int, key string) string {
	return table + "\x00" + strconv.Itoa(index) + "\x00" + key
}

// lockWrite locks what a Put or a Delete of the row pk changes: the table for writing,
// the row, and the row's index keys before and after (uIdx/uKey unique, kIdx/kKey the
// others; none for a Delete).
func (t *txn) lockWrite(table, pk string, uIdx []int16, uKey [][]byte, kIdx []int16, kKey [][]byte) error {
	if !t.locking {
		return nil
	}
	if err := t.lockTable(table, lockWriters); err != nil {
		return err
	}
	t.lockKey(table, pkIndex, pk, true)
	n := len(uIdx) + len(kIdx)
	idx, keys, excl := make([]int32, 0, n), make([][]byte, 0, n), make([]bool, 0, n)
	add := func(index int16, key []byte, exclusive bool) {
		if x, ok := t.held[lockID(table, int(index), string(key))]; ok {
			if exclusive && !x {
				t.lockKey(table, int(index), string(key), true) // an upgrade, tried alone
			}
			return
		}
		idx, keys, excl = append(idx, int32(index)), append(keys, key), append(excl, exclusive)
	}
	for i := range uIdx {
		add(uIdx[i], uKey[i], true)
	}
	for i := range kIdx {
		add(kIdx[i], kKey[i], false)
	}
	t.pending = append(t.pending, &pgx.QueuedQuery{SQL: lockRowSQL, Arguments: []any{table, idx, keys, excl, []byte(pk)}})
	return nil
}

// Table lock modes: scans share theirs, writers share theirs, and the two exclude each
// other.
const (
	lockScan    = "SHARE"
	lockWriters = "ROW EXCLUSIVE"
)

// lockTable locks the table in mode before the next statement.
func (t *txn) lockTable(table, mode string) error {
	if !t.locking {
		return nil
	}
	id := "\x00table\x00" + table + "\x00" + mode
	if _, ok := t.held[id]; ok {
		return nil
	}
	rel, err := t.e.lockRelation(t.ctx, table)
	if err != nil {
		return err
	}
	if t.held == nil {
		t.held = map[string]bool{}
	}
	t.held[id] = true
	t.pending = append(t.pending, &pgx.QueuedQuery{SQL: `LOCK TABLE ` + rel + ` IN ` + mode + ` MODE`})
	return nil
}

// lockRelation returns the name of the table's lock relation, an empty table that only
// transactions lock, creating it if it does not exist yet.
func (e *Engine) lockRelation(ctx context.Context, table string) (string, error) {
	if rel, ok := e.locks.Load(table); ok {
		return rel.(string), nil
	}
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	if rel, ok := e.locks.Load(table); ok {
		return rel.(string), nil
	}
	// Created on a connection of its own, committed at once, as a sequence is (schema.go).
	conn, err := e.connect(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	return e.createLockRelations(ctx, conn, table)
}

// createLockRelations creates the lock relations of tables that are missing, and returns
// the name of the last one.
func (e *Engine) createLockRelations(ctx context.Context, conn *pgx.Conn, tables ...string) (string, error) {
	var rel string
	for _, table := range tables {
		rel = pgx.Identifier{lockRelationName(table)}.Sanitize()
		if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+rel+` ()`); err != nil {
			var pgErr *pgconn.PgError
			// Another server created it at the same moment.
			if !errors.As(err, &pgErr) || pgErr.Code != "23505" && pgErr.Code != "42P07" {
				return "", err
			}
		}
		e.locks.Store(table, rel)
	}
	return rel, nil
}

// lockRelationName names the lock relation of a table: lock_<table>, or, for a name
// PostgreSQL could not keep as it is, lock_ and its hash.
func lockRelationName(table string) string {
	if len(table) <= 58 && utf8.ValidString(table) && !strings.ContainsRune(table, 0) {
		return "lock_" + table
	}
	sum := sha256.Sum256([]byte(table))
	return "lock_" + hex.EncodeToString(sum[:16])
}
