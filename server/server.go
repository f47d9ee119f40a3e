// Package server builds understudy's whole HTTP stack: one Echo instance serving every API
// on one port, each operation validated against its spec, every error in its API's own
// envelope. New is used by cmd/understudy and by tests alike, so tests drive the very stack
// users run.
package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/internal/clock"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/bolt"
	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/admin"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/compute"
	"github.com/understudy-dev/understudy/server/console"
	"github.com/understudy-dev/understudy/server/control"
	"github.com/understudy-dev/understudy/server/validate"
)

// DefaultBodyLimit is the largest request body accepted unless configured otherwise.
const DefaultBodyLimit = 1 << 20

// Config is everything the server can be told at start.
type Config struct {
	// PublicURL is the base URL put into links that point back at us ("" = the request's host).
	PublicURL string
	// BodyLimit is the largest request body in bytes (0 = DefaultBodyLimit).
	BodyLimit int64
	// Version is reported by the health endpoint.
	Version string
	// Log receives request logs and internal errors (nil = slog.Default()).
	Log *slog.Logger
	// Now is the clock (nil = time.Now).
	Now func() time.Time
	// Authorization configures the authorization API.
	Authorization authorization.Config
	// Accounts configures the accounts API.
	Accounts accounts.Config
	// Compute configures the compute API.
	Compute compute.Config
	// AdminToken, when set, is what every /_understudy/ endpoint but health asks for, as
	// Authorization: Bearer <AdminToken> (401 otherwise). It is never logged.
	AdminToken string
	// DataDir, when set, keeps the state on disk there (see Open in internal/store): it
	// survives restarts, and every acknowledged write is synced first. "" keeps it in memory.
	DataDir string
	// Store, when set, is a postgres:// URL: the state lives in that PostgreSQL database
	// (in the schema its search_path names, default understudy), which every server
	// pointed at it shares. It is seeded when it holds no state yet. "" keeps the state
	// embedded (in memory, or in DataDir); giving both is an error.
	Store string
	// ReplicaName names this process in the request journal, which replicas on one
	// database (Store) share ("" = its host name and process id).
	ReplicaName string
	// backend, for tests, is the disk in place of DataDir's (a failing one, say).
	backend store.Backend
}

// Server is the assembled HTTP stack.
type Server struct {
	// mounts are the APIs' own Echo instances (mount.go); ServeHTTP hands each request to
	// its owner's.
	mounts [apiCount]*echo.Echo
	cfg    Config
	db     *store.DB
	// mem is the embedded engine under db (nil on PostgreSQL), which --data-dir opens on disk.
	mem   *store.Memory
	authz *authorization.Server
	accts *accounts.Server
	comp  *compute.Server
	// console's live views end when the server drains.
	console *console.Console
	// stopWaits ends compute's operations waits (Draining).
	stopWaits func()
	// seedMu guards seed, what Reset loads: the configuration's seeded state at start, the
	// last state loaded by LoadState since. Reset and LoadState hold it while they replace
	// the state, so the seed a reset replays is the last one loaded.
	seedMu sync.Mutex
	seed   Config
	// restores pick up each API's counters after state was loaded from disk.
	restores []func(tx *store.Tx) error
	settings *store.Table[setting]
	clock    *clock.Clock
	journal  *control.Journal
	faults   *control.Faults
	// controls are the store's tables of the fault rules and the journal, which replicas
	// on one database share; shared says they are in use (and the clock is read from the
	// store too: refreshShared).
	controls *control.Tables
	shared   bool
	// sharedRead is when the newest read of the shared controls that succeeded began (time
	// since epoch, on the monotonic clock); refreshing lets one request read them at a time,
	// and sharedFailed, under it, is when the newest read failed for the store's being away
	// (store.ErrUnavailable). The requests that waited for that read go on with their copy,
	// as a request whose own read failed did before: one connection's failure can let them
	// miss a change made in the last Staleness.
	sharedRead   atomic.Int64
	refreshing   sync.Mutex
	sharedFailed time.Duration
	epoch        time.Time
	// stopRefresh ends refreshSharedIdle (Close), refreshDone waits for it.
	stopRefresh context.CancelFunc
	refreshDone sync.WaitGroup
	// leases are the store's leases on background work; holder is this process in them.
	leases  *store.Leases
	holder  string
	metrics *control.Metrics
	routes  map[route]string // method and Echo path -> operationId
}

// New builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	// One adjustable clock for every API: the admin API moves it.
	clk := clock.New(cfg.Now)
	cfg.Now = clk.Now
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = DefaultBodyLimit
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	// Each API's operations, read from its spec without parsing it: the APIs parse their
	// specs on the first request that needs them (validate.Defer), which keeps start-up to
	// milliseconds and leaves an API nobody calls without the memory a parsed spec takes.
	// The admin API's small spec is parsed now.
	var ops [apiCount][]validate.Operation
	for a, read := range [apiCount]func() ([]validate.Operation, error){apiAuthorization: authorization.Operations, apiAccounts: accounts.Operations, apiCompute: compute.Operations, apiAdmin: admin.Operations} {
		list, err := read()
		if err != nil {
			return nil, err
		}
		ops[a] = list
	}
	adminSpec, err := admin.Spec()
	if err != nil {
		return nil, err
	}
	// Every API's operationIds: the metrics and the journal name requests by them, and a
	// fault rule naming one no API has could never match.
	operationIDs := map[string][]string{}
	for a, list := range ops {
		if api(a) == apiAdmin {
			continue // never faulted
		}
		for _, op := range list {
			operationIDs[api(a).String()] = append(operationIDs[api(a).String()], op.ID)
		}
	}

	db, mem, shared, err := newDB(cfg)
	if err != nil {
		return nil, err
	}
	built := false
	if shared != nil {
		defer func() { // a server that fails to build closes its connections
			if !built {
				_ = shared.Close()
			}
		}()
	}
	s := &Server{cfg: cfg, db: db, mem: mem, clock: clk, journal: control.NewJournal(0), faults: &control.Faults{}, epoch: time.Now(), sharedFailed: -1}
	s.sharedRead.Store(-int64(control.Staleness)) // never read, nor failed (sharedFailed)
	s.metrics = control.NewMetrics(func() map[string]int {
		counts, _ := s.db.Counts(context.Background())
		return counts
	})
	// Kept through a reset: the clock is not reset.
	s.settings = store.NewKeptTable[setting](s.db, "settings")
	s.controls = control.NewTables(s.db)
	s.leases = store.NewLeases(s.db)
	s.holder = replicaName(cfg.ReplicaName) + "/" + rand.Text()
	if shared != nil {
		s.shared = true
		s.controls.Share(s.journal, replicaName(cfg.ReplicaName), cfg.Log)
		s.controls.ShareFaults(s.faults)
		defer func() {
			if !built {
				s.journal.Close()
			}
		}()
	}

	authzCfg := cfg.Authorization
	cfg.inherit(&authzCfg.Now, &authzCfg.Log, &authzCfg.PublicURL)
	authz, err := authorization.New(authzCfg, s.db)
	if err != nil {
		return nil, err
	}
	s.authz = authz

	acctCfg := cfg.Accounts
	cfg.inherit(&acctCfg.Now, &acctCfg.Log, &acctCfg.PublicURL)
	if acctCfg.Leases == nil {
		acctCfg.Leases = s.leases
		acctCfg.Holder = s.holder
	}
	acctCfg.Shared = shared != nil
	if acctCfg.OnDelivery == nil {
		acctCfg.OnDelivery = s.journalDelivery
	}
	accts, err := accounts.New(acctCfg, s.db)
	if err != nil {
		return nil, err
	}
	s.accts = accts

	adminDeps := admin.Deps{Version: cfg.Version, Token: cfg.AdminToken, Clock: clk, Reset: s.Reset, Export: s.Export, Load: func(seed []byte) error { return s.loadState("(request body)", seed) }, Journal: s.journal, Faults: s.faults, Metrics: s.metrics,
		Operations: operationIDs, Directory: authz, Denies: authz, Ready: s.ready,
		SetCircuit: func(project, region, name string, down bool) (string, error) {
			return s.comp.SetCircuit(project, region, name, down)
		}}
	switch {
	case shared != nil:
		adminDeps.AdvanceClock = s.advanceSharedClock
	case cfg.DataDir != "":
		adminDeps.ClockAdvanced = func() error { return s.db.Update(context.Background(), s.saveClock) }
	}
	compCfg := cfg.Compute
	cfg.inherit(&compCfg.Now, &compCfg.Log, &compCfg.PublicURL)
	comp := compute.New(compCfg, s.db)
	s.comp = comp
	s.stopWaits = comp.StopWaits

	// Each API on its own Echo instance, with its own envelope and request ids (mount.go).
	adm := admin.New(adminDeps)
	adminEcho := s.mount(apiAdmin, mounting{writeError: admin.WriteError})
	if err := adm.Register(adminEcho, adminSpec); err != nil {
		return nil, err
	}
	hosted := func(path string) bool { return strings.HasPrefix(path, "/r/") }
	if err := accts.Register(s.mount(apiAccounts, mounting{writeError: accounts.WriteError, pre: []echo.MiddlewareFunc{accts.AssignRequestID}, anyQuery: hosted}), ops[apiAccounts]); err != nil {
		return nil, err
	}
	if err := comp.Register(s.mount(apiCompute, mounting{writeError: compute.WriteError, ids: setRequestID}), ops[apiCompute]); err != nil {
		return nil, err
	}
	if err := authz.Register(s.mount(apiAuthorization, mounting{writeError: authorization.WriteError, ids: setARMRequestIDs, pre: []echo.MiddlewareFunc{authorization.RewritePath}}), ops[apiAuthorization]); err != nil {
		return nil, err
	}
	// The console: pages on the admin API's instance, reading each API through its handlers.
	con, err := console.New(console.Deps{Token: cfg.AdminToken, Journal: s.journal, Admin: adm, Load: s.loadState, Authorization: authz, Accounts: accts, Compute: comp})
	if err != nil {
		return nil, err
	}
	consoleOps, err := console.Operations()
	if err != nil {
		return nil, err
	}
	if err := con.Register(adminEcho, consoleOps); err != nil {
		return nil, err
	}
	s.console = con
	s.routes = routeIDs(append(ops[:], consoleOps)...)
	s.seed = Config{Authorization: authzCfg, Accounts: acctCfg, Compute: compCfg}
	if shared == nil {
		s.restores = []func(tx *store.Tx) error{accts.Restore}
	}
	if shared != nil {
		if err := s.openShared(shared); err != nil {
			return nil, err
		}
		built = true
		accts.Start()
		ctx, stop := context.WithCancel(context.Background())
		s.stopRefresh = stop
		s.refreshDone.Go(func() { s.refreshSharedIdle(ctx) })
		return s, nil
	}
	if cfg.DataDir != "" || cfg.backend != nil {
		if err := s.open(cfg.DataDir, cfg.backend); err != nil {
			return nil, err
		}
		accts.Start()
		return s, nil
	}
	// Loading the seed for the first time also checks it: a bad seed stops the start.
	if err := s.Reset(); err != nil {
		return nil, err
	}
	accts.Start()
	return s, nil
}

// journalDelivery puts an attempt to deliver an event into the request journal, as the
// accounts API's operation deliverEvent: the endpoint's URL as the path, its answer's status
// (0 when it gave none), the event's id as the request id.
func (s *Server) journalDelivery(a accounts.DeliveryAttempt) {
	path := a.URL
	if u, err := url.Parse(a.URL); err == nil {
		u.RawQuery, u.Fragment, u.User = "", "", nil
		path = u.String()
	}
	s.journal.Add(control.Entry{Time: a.Time, API: "accounts", OperationID: "deliverEvent", Method: http.MethodPost, Path: path,
		Status: a.Status, Duration: a.Duration, RequestID: a.Event,
		Delivery: &control.Delivery{Destination: a.Destination, Attempt: a.Attempt, Error: a.Error, GaveUp: a.GaveUp}})
}

// setting is a named server-wide value that must outlive a restart, such as how far the
// clock has been advanced; the settings table keys them by name.
// ready reports whether the store can be reached and kept: a read of one row, which a
// PostgreSQL store must ask its database for (an empty transaction would not).
func (s *Server) ready(ctx context.Context) error {
	return s.db.View(ctx, func(tx *store.Tx) error {
		s.settings.Get(tx, clockSetting)
		return nil
	})
}

type setting struct {
	Name  string
	Value string
}

// clockSetting names the setting that keeps how far the clock was advanced.
const clockSetting = "clockOffset"

// loadedSeedSetting names the setting that keeps, for replicas on one database, the seed
// file the last LoadState loaded (load).
const loadedSeedSetting = "loadedSeed"

// open loads the state kept in dir (or by b, when not nil), or seeds it when it holds none.
func (s *Server) open(dir string, b store.Backend) error {
	if b == nil {
		bb, err := bolt.Open(dir)
		if err != nil {
			return err
		}
		b = bb
	}
	seeded, err := s.mem.Open(b)
	if err != nil {
		_ = b.Close()
		return fmt.Errorf("data dir %s: %w", dir, err)
	}
	if !seeded {
		if err := s.Reset(); err != nil {
			_ = s.db.Close()
			return err
		}
		return nil
	}
	// Reading everything back leaves as much garbage as there is state: hand it back to the
	// system now rather than carry it until the heap grows again.
	debug.FreeOSMemory()
	if err := s.restore("data dir " + dir); err != nil {
		_ = s.db.Close()
		return err
	}
	return nil
}

// restore picks up a stored state (from where): the clock's offset, and each API's
// counters.
func (s *Server) restore(where string) error {
	return s.db.Update(context.Background(), func(tx *store.Tx) error {
		if c, ok := s.settings.Get(tx, clockSetting); ok {
			offset, err := strconv.ParseInt(c.Value, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: clock offset %q: %w", where, c.Value, err)
			}
			if offset < 0 {
				return fmt.Errorf("%s: clock offset %q: negative", where, c.Value)
			}
			s.clock.CatchUp(time.Duration(offset))
		}
		for _, restore := range s.restores {
			if err := restore(tx); err != nil {
				return err
			}
		}
		return nil
	})
}

// saveClock keeps the clock's offset on disk, so that time does not run backwards for
// stored resources after a restart.
func (s *Server) saveClock(tx *store.Tx) error {
	offset := strconv.FormatInt(int64(s.clock.Offset()), 10)
	return s.settings.Put(tx, clockSetting, setting{Name: clockSetting, Value: offset})
}

// Draining prepares the handler for a graceful shutdown: requests that would wait (compute's
// operations wait, up to minutes) answer at once with what they have, so that the drain
// ends as soon as the requests in flight are done.
func (s *Server) Draining() {
	s.stopWaits()
	s.console.Close()
}

// Close writes what is still queued for the disk and releases the data dir. The handler
// must not be serving any more.
func (s *Server) Close() error {
	if s.stopRefresh != nil {
		s.stopRefresh()
		s.refreshDone.Wait()
	}
	s.accts.Close()
	s.journal.Close()
	return s.db.Close()
}

// inherit gives an API the server's clock, logger and public URL where it has none.
func (c Config) inherit(now *func() time.Time, log **slog.Logger, publicURL *string) {
	if *now == nil {
		*now = c.Now
	}
	if *log == nil {
		*log = c.Log
	}
	if *publicURL == "" {
		*publicURL = c.PublicURL
	}
}

// Handler is the HTTP handler serving every API: s itself (ServeHTTP, mount.go).
func (s *Server) Handler() http.Handler { return s }

// Reset drops all state and goes back to what was seeded, atomically: every API's seed is
// loaded in the one transaction that empties the store, so a request running at the same
// time sees either the old state or the seeded one.
func (s *Server) Reset() error {
	s.seedMu.Lock()
	defer s.seedMu.Unlock()
	return s.load(s.seed, nil)
}

// load replaces the state with the one seed gives (its APIs' seeded entries), in one
// transaction. Replicas on one database keep in it the seed file the last LoadState
// through any of them loaded (loaded; nil for a reset), and a reset through any of them
// loads that file's state.
func (s *Server) load(seed Config, loaded []byte) error {
	// The clock, fault rules, journal and settings are not reset: their tables are kept.
	return s.db.Replace(context.Background(), func(tx *store.Tx) error {
		if s.shared {
			if err := s.sharedSeed(tx, &seed, loaded); err != nil {
				return err
			}
		}
		if err := s.authz.Seed(tx, seed.Authorization); err != nil {
			return err
		}
		if err := s.accts.Seed(tx, seed.Accounts); err != nil {
			return err
		}
		return s.comp.Seed(tx, seed.Compute)
	})
}

// sharedSeed keeps loaded, a seed file LoadState loads, in tx's store for every replica;
// for a reset (loaded nil) it makes seed the state of the file the last LoadState through
// any replica kept, if one did.
func (s *Server) sharedSeed(tx *store.Tx, seed *Config, loaded []byte) error {
	if loaded != nil {
		return s.settings.Put(tx, loadedSeedSetting, setting{Name: loadedSeedSetting, Value: string(loaded)})
	}
	c, ok := s.settings.Get(tx, loadedSeedSetting)
	if !ok {
		return nil
	}
	file, err := ParseSeed("the state loaded through PUT /_understudy/state", []byte(c.Value))
	if err != nil {
		return err
	}
	return file.replaceState(seed, s.cfg)
}

// replicaName is name, or this process's host name and process id.
func replicaName(name string) string {
	if name != "" {
		return name
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "understudy"
	}
	return host + "-" + strconv.Itoa(os.Getpid())
}

// refreshShared reads what replicas on one database share but this one keeps a copy of:
// the clock's offset (another replica may have advanced it) and whether any fault rule is
// in force. It runs at the start of every request and reads them when the copy is older
// than control.Staleness; a change through any replica answers only once that much time has
// passed since its commit, so a request sent after that answer sees it, whichever replica
// it reaches. A store that cannot answer changes nothing: the request meets that itself.
func (s *Server) refreshShared(ctx context.Context) {
	arrived := time.Since(s.epoch)
	fresh := func() bool { return time.Since(s.epoch)-time.Duration(s.sharedRead.Load()) < control.Staleness }
	if fresh() {
		return
	}
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	// Read by another request while this one waited, or a read failed for the store's
	// being away while this one waited: requests do not queue on a store that is away.
	if fresh() || s.sharedFailed >= arrived {
		return
	}
	began := time.Since(s.epoch)
	var offset int64
	err := s.db.View(ctx, func(tx *store.Tx) error {
		if c, ok := s.settings.Get(tx, clockSetting); ok {
			n, err := strconv.ParseInt(c.Value, 10, 64)
			if err != nil {
				return err
			}
			offset = n
		}
		s.controls.Refresh(tx, s.faults)
		return nil
	})
	if err != nil {
		if errors.Is(err, store.ErrUnavailable) {
			s.sharedFailed = time.Since(s.epoch)
		}
		return
	}
	if offset > 0 {
		s.clock.CatchUp(time.Duration(offset))
	}
	s.sharedRead.Store(int64(began))
}

// sharedIdleRefresh is how often a replica reads the shared controls when no request does:
// its background work (event deliveries, their retries) runs on its copy of the clock.
const sharedIdleRefresh = time.Second

// refreshSharedIdle keeps the copy of the shared controls at most sharedIdleRefresh old
// until ctx ends (Close), reading it only when no request has.
func (s *Server) refreshSharedIdle(ctx context.Context) {
	t := time.NewTicker(sharedIdleRefresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			read, cancel := context.WithTimeout(ctx, sharedIdleRefresh)
			s.refreshShared(read)
			cancel()
		}
	}
}

// advanceSharedClock advances the clock of replicas on one database: the next offset is
// decided in a transaction from the stored one, so that advances through different
// replicas at once add up. It returns control.Staleness after the commit, once every
// replica reads the new offset for its next request (refreshShared).
func (s *Server) advanceSharedClock(d time.Duration) error {
	var next time.Duration
	err := s.db.Update(context.Background(), func(tx *store.Tx) error {
		var cur time.Duration
		if c, ok := s.settings.Get(tx, clockSetting); ok {
			n, err := strconv.ParseInt(c.Value, 10, 64)
			if err != nil {
				return fmt.Errorf("clock offset %q: %w", c.Value, err)
			}
			cur = time.Duration(n)
		}
		var err error
		if next, err = s.clock.Plus(max(cur, s.clock.Offset()), d); err != nil {
			return err
		}
		return s.settings.Put(tx, clockSetting, setting{Name: clockSetting, Value: strconv.FormatInt(int64(next), 10)})
	})
	if err == nil {
		s.clock.CatchUp(next)
		time.Sleep(control.Staleness)
	}
	return err
}

// loadState is LoadState for the admin API's PUT /_understudy/state and the console's load
// control: its errors are the admin API's (*admin.Error), which both show.
func (s *Server) loadState(file string, data []byte) error {
	err := s.LoadState(file, data)
	var (
		se  *SeedError
		aze *authorization.SeedError
		ace *accounts.SeedError
		ce  *compute.SeedError
	)
	switch {
	case errors.Is(err, ErrRunningSetting):
		return &admin.Error{Status: http.StatusConflict, Code: "SettingDiffers", Message: err.Error()}
	case errors.As(err, &se), errors.As(err, &aze), errors.As(err, &ace), errors.As(err, &ce):
		return &admin.Error{Status: http.StatusBadRequest, Code: "InvalidSeed", Message: err.Error()}
	}
	return err
}

// LoadState replaces the whole state with the one a seed file gives (data, as --seed reads
// it; file names it in errors), atomically as Reset does, and makes it the seed later resets
// load. Its settings (the authorization settings and management groups, accounts' platforms
// and concurrency, compute's operation mode, locations and remote locations) configure the
// running APIs, which are not rebuilt: a setting the file gives must be the running one (a
// *SeedError wrapping ErrRunningSetting otherwise). Nothing changes when it returns an error.
func (s *Server) LoadState(file string, data []byte) error {
	seed, err := ParseSeed(file, data)
	if err != nil {
		return err
	}
	s.seedMu.Lock()
	defer s.seedMu.Unlock()
	next := s.seed
	if err := seed.replaceState(&next, s.cfg); err != nil {
		return err
	}
	if err := s.load(next, data); err != nil {
		return err
	}
	s.seed = next
	return nil
}
