// Package postgres is the store engine on a PostgreSQL database: every server process
// pointed at one database serves one state. It is the one package that knows about
// PostgreSQL; everything above the store sees a store.Engine.
//
// The engine keeps its tables in one schema (the connection URL's search_path, or
// "understudy"), which it creates and migrates itself (schema.go). A row is a document under
// a primary key in rows; its index keys are in unique_keys and index_keys. Write transactions
// lock what they read and change (lock.go) and run again alone after a deadlock, so a
// read-check-write holds across processes as it does in one; read transactions see one
// snapshot (REPEATABLE READ, READ ONLY). Sequences are PostgreSQL sequences, one per name.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/understudy-dev/understudy/internal/store"
)

// DefaultSchema is where the engine keeps its tables when the URL names no search_path.
const DefaultSchema = "understudy"

// Options tune the engine; the zero value is the default.
type Options struct {
	// Timeout bounds one transaction, its retries included, and each connection attempt
	// (default 10 s): a database that does not answer fails the request with
	// store.ErrUnavailable rather than holding it.
	Timeout time.Duration
}

const (
	defaultTimeout = 10 * time.Second
	// connectTimeout bounds a connection attempt when the URL sets no connect_timeout.
	connectTimeout = 5 * time.Second
	// maxAttempts bounds how often a transaction runs: after a conflict it runs alone, so
	// more only come from connections the database had closed.
	maxAttempts = 10
)

// Engine is a store.Engine on one PostgreSQL database.
type Engine struct {
	pool    *pgxpool.Pool
	schema  string
	timeout time.Duration

	mu   sync.RWMutex
	defs map[string]*tableDef
	// order is the tables in definition order.
	order []string

	// seqs holds the sequences known to exist; seqMu makes one caller create a missing one.
	seqs sync.Map
	// locks holds the lock relations known to exist (lock.go), by table; seqMu makes one
	// caller create a missing one too.
	locks  sync.Map
	seqMu  sync.Mutex
	closed atomic.Bool
	// conflicts counts the write transactions that ran again alone after a conflict.
	conflicts atomic.Uint64
}

// Conflicts is how many write transactions have run again alone after conflicting with
// another (see Run).
func (e *Engine) Conflicts() uint64 { return e.conflicts.Load() }

// tableDef is a table as the engine keeps it.
type tableDef struct {
	store.TableDef
	unique []bool // by index position: a unique index
}

// Open connects to the database url names (postgres://...), creates or migrates the engine's
// schema in it, and returns the engine. Tables are then declared with Define, and Load
// makes the database ready for them.
func Open(ctx context.Context, rawURL string, opts Options) (*Engine, error) {
	cfg, schema, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if cfg.ConnConfig.ConnectTimeout <= 0 || cfg.ConnConfig.ConnectTimeout > opts.Timeout {
		cfg.ConnConfig.ConnectTimeout = min(connectTimeout, opts.Timeout)
	}
	// A server that stops mid-transaction (frozen, or cut off) would hold the writers lock
	// until its connection died: PostgreSQL ends such a session once it has been idle in a
	// transaction for longer than any transaction of ours may last.
	if _, ok := cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt((2 * opts.Timeout).Milliseconds(), 10)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	e := &Engine{pool: pool, schema: schema, timeout: opts.Timeout, defs: map[string]*tableDef{}}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := e.migrate(ctx); err != nil {
		pool.Close()
		return nil, e.failure(err)
	}
	return e, nil
}

// parseURL reads the connection URL and the schema it names.
func parseURL(rawURL string) (*pgxpool.Config, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, "", fmt.Errorf("store: %q is not a postgres:// URL", Redact(rawURL))
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("store: postgres URL %s: %w", Redact(rawURL), err)
	}
	schema := DefaultSchema
	if sp, ok := cfg.ConnConfig.RuntimeParams["search_path"]; ok {
		schema = sp
		if schema == "" || strings.ContainsAny(schema, ",\"") {
			return nil, "", fmt.Errorf("store: postgres URL %s: search_path %q: want the name of one schema", Redact(rawURL), sp)
		}
	}
	// The engine's tables are found in its schema whatever the role's own search_path.
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "understudy"
	}
	return cfg, schema, nil
}

// Redact is url without its password, for messages and logs.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(an unreadable URL)"
	}
	return u.Redacted()
}

// Schema is the schema the engine keeps its tables in.
func (e *Engine) Schema() string { return e.schema }

// Define declares a table.
func (e *Engine) Define(def store.TableDef) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, dup := e.defs[def.Name]; dup {
		return fmt.Errorf("store: table %q is defined twice", def.Name)
	}
	if len(def.Indexes) > 1<<15 {
		return fmt.Errorf("store: table %q has too many indexes", def.Name)
	}
	d := &tableDef{TableDef: def, unique: make([]bool, len(def.Indexes))}
	for i, x := range def.Indexes {
		d.unique[i] = x.Kind == store.Unique
	}
	e.defs[def.Name] = d
	e.order = append(e.order, def.Name)
	return nil
}

// keptTables is the condition that leaves the kept tables out of a wipe's DELETE ("" when
// there are none).
func (e *Engine) keptTables() string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var names []string
	for _, name := range e.order {
		if e.defs[name].Kept {
			names = append(names, "'"+strings.ReplaceAll(name, "'", "''")+"'")
		}
	}
	if len(names) == 0 {
		return ""
	}
	return ` WHERE tbl NOT IN (` + strings.Join(names, ", ") + `)`
}

func (e *Engine) def(table string) (*tableDef, error) {
	e.mu.RLock()
	d, ok := e.defs[table]
	e.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("store: no table %q", table)
	}
	return d, nil
}

// Close closes the connections; later transactions fail with store.ErrClosed.
func (e *Engine) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.pool.Close()
	return nil
}

// Run runs fn in a transaction.
//
// Write transactions run at READ COMMITTED, many at once, locking what they read and change
// (lock.go): each first takes the writers table's lock in ROW SHARE mode, which they share.
// One that meets a deadlock (it locked in another order than another), or a serialization
// failure or a unique violation (which the locks should leave none of), runs again holding
// that lock in EXCLUSIVE mode: it waits for the writers running then, runs alone (new
// writers wait for it), and so cannot conflict again. Contention thus costs one run again,
// not a storm of them, and a reset (Wipe), which conflicts with everything, runs alone from
// the start.
func (e *Engine) Run(ctx context.Context, mode store.Mode, fn func(store.Txn) error) error {
	if e.closed.Load() {
		return store.ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	alone := mode == store.Wipe
	for attempt := 1; ; attempt++ {
		fnErr, engErr := e.attempt(ctx, mode, alone, fn)
		if engErr == nil {
			return fnErr
		}
		if e.closed.Load() {
			return store.ErrClosed
		}
		if attempt >= maxAttempts || ctx.Err() != nil {
			return e.failure(engErr)
		}
		switch {
		case conflict(engErr) && mode != store.Read:
			alone = true
			e.conflicts.Add(1)
		case pgconn.SafeToRetry(engErr):
			// Nothing reached the server (a pooled connection the database had closed):
			// the transaction did nothing. A short pause, so that a database that is
			// away is not asked in a tight loop.
			select {
			case <-time.After(time.Duration(rand.Int64N(int64(time.Millisecond << min(attempt, 6))))):
			case <-ctx.Done():
				return e.failure(engErr)
			}
		default:
			return e.failure(engErr)
		}
	}
}

// attempt runs fn once, alone (holding the writers lock exclusively) or not. fnErr is fn's
// own error (the transaction rolled back); engErr is the engine's (the transaction may be
// tried again).
func (e *Engine) attempt(ctx context.Context, mode store.Mode, alone bool, fn func(store.Txn) error) (fnErr, engErr error) {
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release() // a connection left inside a transaction is closed, not reused
	t := &txn{e: e, ctx: ctx, conn: conn, write: mode != store.Read}
	switch {
	case mode == store.Read:
		t.opts = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	case alone:
		// No other writer runs: there is nothing to lock against.
		t.opts = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
		t.prelude = []string{`LOCK TABLE writers IN EXCLUSIVE MODE`}
	default:
		t.opts = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
		t.prelude = []string{`LOCK TABLE writers IN ROW SHARE MODE`}
		t.locking = true
	}
	if mode == store.Wipe {
		kept := e.keptTables()
		t.prelude = append(t.prelude, `DELETE FROM rows`+kept, `DELETE FROM unique_keys`+kept, `DELETE FROM index_keys`+kept,
			`INSERT INTO meta (name, value) VALUES ('seeded', now()::text) ON CONFLICT (name) DO UPDATE SET value = excluded.value`)
	}
	committed := false
	defer func() {
		if !committed { // an error, or a panic in fn
			t.rollback()
		}
	}()
	if mode == store.Wipe {
		if err := t.begin(); err != nil {
			return nil, t.fail(err)
		}
	}
	fnErr = fn(t)
	if t.err != nil {
		return nil, t.err // fn's error, if any, came from the engine's failure
	}
	if fnErr != nil {
		return fnErr, nil
	}
	committed = true
	if t.tx == nil {
		return nil, nil // fn read and wrote nothing: there is no transaction to commit
	}
	return nil, t.tx.Commit(ctx)
}

// conflict reports whether err says that the transaction conflicted with another one.
func conflict(err error) bool {
	if errors.Is(err, errLockBusy) {
		return true
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "40001", "40P01": // serialization_failure, deadlock_detected
		return true
	case "23505":
		// unique_violation: a key written by a concurrent transaction that the locks
		// missed (two keys sharing a lock key would wait, not miss).
		return true
	}
	return false
}

// failure is the error Run returns for an engine's failure: ErrUnavailable for what a
// client should retry later (the database unreachable, restarting, out of resources, or too
// busy for a transaction to get through), the error itself for anything else.
func (e *Engine) failure(err error) error {
	if e.closed.Load() {
		return store.ErrClosed
	}
	var own ours
	if errors.As(err, &own) {
		return own.error
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", "40", "53", "57", "58": // connection, rollback, resources, operator, system
			if pgErr.Detail != "" {
				return fmt.Errorf("%w: postgres: %w (%s)", store.ErrUnavailable, err, pgErr.Detail)
			}
			return fmt.Errorf("%w: postgres: %w", store.ErrUnavailable, err)
		}
		if pgErr.Code == "25006" { // read_only_sql_transaction: a standby, during a failover
			return fmt.Errorf("%w: postgres: %w", store.ErrUnavailable, err)
		}
		return fmt.Errorf("store: postgres: %w", err)
	}
	// No answer from the database: the connection failed or was lost, or the time ran out.
	return fmt.Errorf("%w: postgres: %w", store.ErrUnavailable, err)
}

// ours is an error of the engine's own making (or its caller's), not the database's:
// failure passes it on as it is.
type ours struct{ error }

func (o ours) Unwrap() error { return o.error }

// connect opens a connection of its own, outside the pool: for work that must not wait for
// (or hold) a pooled connection, such as holding a session lock or creating a sequence
// while a transaction is open.
func (e *Engine) connect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, e.pool.Config().ConnConfig.Copy())
}

// WithSchema returns the URL rawURL with schema as its search_path: the engine's tables in
// that schema.
func WithSchema(rawURL, schema string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("store: %s is not a URL", Redact(rawURL))
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// DropSchema removes the schema rawURL names, with everything in it (tests make one per
// server).
func DropSchema(ctx context.Context, rawURL string) error {
	cfg, schema, err := parseURL(rawURL)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	_, err = conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
	return err
}
