package postgres

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/understudy-dev/understudy/internal/store"
)

// The schema's migrations, applied in the order of their numbers (NNNN_what.sql), each once:
// schema_migrations records those applied. A migration is never edited once released; a
// change is a new one.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	files, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, ours{err}
	}
	var out []migration
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "migrations/"), ".sql")
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, ours{fmt.Errorf("store: migration %s: want a name such as 0002_what.sql", f)}
		}
		b, err := migrationFiles.ReadFile(f)
		if err != nil {
			return nil, ours{err}
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, ours{fmt.Errorf("store: two migrations numbered %d", out[i].version)}
		}
	}
	return out, nil
}

// lockClass is the first key of the engine's advisory locks; the second is the schema's
// hash, so that engines on different schemas of one database do not wait for each other.
const lockClass = 0x756e64 // "und"

// withLock runs fn holding the schema's advisory lock, on a connection of its own: servers
// starting at once migrate and seed one after another. The lock goes with the connection,
// also when this process dies.
func (e *Engine) withLock(ctx context.Context, fn func(conn *pgx.Conn) error) error {
	conn, err := e.connect(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, lockClass, e.schema); err != nil {
		return err
	}
	return fn(conn)
}

// migrate creates the schema if it is missing and applies the migrations it lacks, in one
// transaction.
func (e *Engine) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return e.withLock(ctx, func(conn *pgx.Conn) error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }()
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1)`, e.schema).Scan(&exists); err != nil {
			return err
		}
		// Only when missing: CREATE SCHEMA IF NOT EXISTS asks for the right to create one
		// even when it exists.
		if !exists {
			if _, err := tx.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{e.schema}.Sanitize()); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return err
		}
		if latest := ms[len(ms)-1].version; current > latest {
			return ours{fmt.Errorf("store: the database's schema %s is at version %d, which this server (version %d) does not know: run a newer server", e.schema, current, latest)}
		}
		for _, m := range ms {
			if m.version <= current {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("store: migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		return tx.Commit(ctx)
	})
}

// Load makes the database ready for the tables defined: a table whose indexes are not those
// its keys were written for (a new server version added or changed one) has its keys
// written again from its documents. It reports whether the database holds a state (it was
// seeded before); when it does not, Load calls seed, which seeds it with a Wipe transaction.
// Load holds the schema's lock meanwhile, so that of servers starting at once on an empty
// database one seeds and the others find that state.
func (e *Engine) Load(ctx context.Context, seed func() error) (seeded bool, err error) {
	err = e.withLock(ctx, func(conn *pgx.Conn) error {
		if err := e.reindex(ctx, conn); err != nil {
			return err
		}
		e.mu.RLock()
		tables := slices.Clone(e.order)
		e.mu.RUnlock()
		e.seqMu.Lock()
		_, err := e.createLockRelations(ctx, conn, tables...)
		e.seqMu.Unlock()
		if err != nil {
			return err
		}
		err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM meta WHERE name = 'seeded')`).Scan(&seeded)
		if err != nil || seeded {
			return err
		}
		if err := seed(); err != nil {
			return ours{err}
		}
		return nil
	})
	if err != nil {
		return false, e.failure(err)
	}
	return seeded, nil
}

// signature is what table_defs records of a table's indexes.
func signature(d *tableDef) string {
	var b strings.Builder
	for i, x := range d.Indexes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x.Name)
		b.WriteByte(':')
		b.WriteString([]string{store.Unique: "unique", store.Ordered: "ordered", store.Counted: "counted"}[x.Kind])
	}
	return b.String()
}

// reindex writes again the keys of every table whose indexes changed, in one transaction.
func (e *Engine) reindex(ctx context.Context, conn *pgx.Conn) error {
	e.mu.RLock()
	defs := make([]*tableDef, 0, len(e.order))
	for _, name := range e.order {
		defs = append(defs, e.defs[name])
	}
	e.mu.RUnlock()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	stored := map[string]string{}
	rows, err := tx.Query(ctx, `SELECT tbl, indexes FROM table_defs`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name, sig string
		if err := rows.Scan(&name, &sig); err != nil {
			return err
		}
		stored[name] = sig
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, d := range defs {
		sig := signature(d)
		if have, ok := stored[d.Name]; ok && have == sig {
			continue
		}
		if err := rebuild(ctx, tx, d); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO table_defs (tbl, indexes) VALUES ($1, $2)
			ON CONFLICT (tbl) DO UPDATE SET indexes = excluded.indexes`, d.Name, sig); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

// rebuild writes a table's keys from its documents.
func rebuild(ctx context.Context, tx pgx.Tx, d *tableDef) error {
	if _, err := tx.Exec(ctx, `DELETE FROM unique_keys WHERE tbl = $1`, d.Name); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM index_keys WHERE tbl = $1`, d.Name); err != nil {
		return err
	}
	if d.Keys == nil {
		return nil
	}
	last := []byte{}
	first := true
	for {
		rows, err := tx.Query(ctx, `SELECT pk, doc FROM rows WHERE tbl = $1 AND (pk > $2 OR $3) ORDER BY pk LIMIT 1000`, d.Name, last, first)
		if err != nil {
			return err
		}
		var uIdx, kIdx []int16
		var uKey, kKey, uPK, kPK [][]byte
		n := 0
		for rows.Next() {
			var pk, doc []byte
			if err := rows.Scan(&pk, &doc); err != nil {
				rows.Close()
				return err
			}
			n++
			last, first = pk, false
			keys, err := d.Keys(doc)
			if err != nil {
				rows.Close()
				return ours{fmt.Errorf("store: %s %s: %w", d.Name, pk, err)}
			}
			for _, k := range keys {
				if d.unique[k.Index] {
					uIdx, uKey, uPK = append(uIdx, int16(k.Index)), append(uKey, []byte(k.Key)), append(uPK, pk)
				} else {
					kIdx, kKey, kPK = append(kIdx, int16(k.Index)), append(kKey, []byte(k.Key)), append(kPK, pk)
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO unique_keys (tbl, idx, key, pk) SELECT $1, * FROM unnest($2::int2[], $3::bytea[], $4::bytea[])`,
			d.Name, uIdx, uKey, uPK); err != nil {
			return fmt.Errorf("store: table %s: rebuilding its unique keys: %w", d.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO index_keys (tbl, idx, key, pk) SELECT $1, * FROM unnest($2::int2[], $3::bytea[], $4::bytea[])`,
			d.Name, kIdx, kKey, kPK); err != nil {
			return err
		}
		if n < 1000 {
			return nil
		}
	}
}

// sequence returns the name of the PostgreSQL sequence that numbers the store's sequence
// name, creating it if it does not exist yet.
func (e *Engine) sequence(ctx context.Context, name string) (string, error) {
	if rel, ok := e.seqs.Load(name); ok {
		return rel.(string), nil
	}
	rel := pgx.Identifier{sequenceRelation(name)}.Sanitize()
	e.seqMu.Lock()
	defer e.seqMu.Unlock()
	if _, ok := e.seqs.Load(name); ok {
		return rel, nil
	}
	// Created on a connection of its own, committed at once: a sequence created in the
	// transaction would go with it if it rolled back, and hand out its numbers again.
	conn, err := e.connect(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, `CREATE SEQUENCE IF NOT EXISTS `+rel); err != nil {
		var pgErr *pgconn.PgError
		// Another server created it at the same moment.
		if !errors.As(err, &pgErr) || pgErr.Code != "23505" && pgErr.Code != "42P07" {
			return "", err
		}
	}
	e.seqs.Store(name, rel)
	return rel, nil
}

// sequenceRelation names the sequence of a store sequence: seq_<name>, or, for a name
// PostgreSQL could not keep as it is (too long, or not UTF-8), seq_ and its hash.
func sequenceRelation(name string) string {
	if len(name) <= 59 && utf8.ValidString(name) && !strings.ContainsRune(name, 0) {
		return "seq_" + name
	}
	sum := sha256.Sum256([]byte(name))
	return "seq_" + hex.EncodeToString(sum[:16])
}
