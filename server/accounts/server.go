// Package accounts implements the accounts API (gen/accounts): v2 accounts, their persons,
// account and person tokens, and single-use, expiring account links under /v2/core, with the
// v2 error envelope, and the hosted onboarding pages the links open (/r/...), which answer
// HTML; the thin events their changes emit (events.go, from the one write path of accounts
// and persons in writes.go), the event destinations that receive them (destinations.go) and their
// signed delivery in the background (deliver.go); and the removal of state past its
// retention (retention.go).
//
// Where we decided something the real service leaves open, it is said next to the code.
// Notable choices:
//   - any sk_test_/sk_live_ key belongs to the default platform unless the seed gives it to
//     another platform; livemode follows the key and test and live data never meet;
//   - onboarding always needs the terms of service accepted, which only the hosted form can
//     do: the requested capabilities of a link's configurations become active when its form
//     is submitted, and those of the account's other configurations stay restricted;
//   - a closed account is still read and listed (closed=true) with its contact details,
//     identity and configuration sections withheld, and refused with account_closed by
//     anything that would change it; a list's page token belongs to its filters and is
//     refused with others;
//   - an Idempotency-Key is remembered only for requests that succeeded: a failed request
//     may be retried with the same key and runs again (v2 semantics).
//   - the hosted pages ignore the query of their URL, even one Go's form parsing refuses
//     (';' or a bad %-escape): the link is the path, the session a cookie.
package accounts

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
	"github.com/understudy-dev/understudy/server/routes"
	"github.com/understudy-dev/understudy/server/validate"
)

// Config is what the accounts API can be told at start.
type Config struct {
	// Platforms are declared in the seed, each with its own keys; any other sk_test_/sk_live_
	// key belongs to the default platform.
	Platforms []Platform
	// Accounts exist at start and again after every reset (see Seed), and so do Links to
	// them and IdempotencyKeys.
	Accounts []SeedAccount
	Persons  []SeedPerson
	// EventDestinations exist at start and again after every reset.
	EventDestinations []SeedDestination
	Links             []SeedLink
	IdempotencyKeys   []SeedIdempotencyKey
	// ServiceVersions are the accepted Service-Version values (the first is the default one).
	ServiceVersions []string
	// LinkLifetime is how long an account link stays usable.
	LinkLifetime time.Duration
	// SessionLifetime is how long the hosted form, once opened, can be submitted.
	SessionLifetime time.Duration
	// IdempotencyWindow is how long an Idempotency-Key is remembered.
	IdempotencyWindow time.Duration
	// LinkRetention is how long a link is kept once it can no longer be used (expired, or
	// its session over); a visit after that finds no link.
	LinkRetention time.Duration
	// EventRetention is how long events are kept (and listed).
	EventRetention time.Duration
	// OnDelivery, when set, is told of every attempt to deliver an event to a destination.
	OnDelivery func(DeliveryAttempt)
	// AccountConcurrency is how many updating requests may be in flight on one account.
	AccountConcurrency int
	// UpdateLatency is how long an update holds its account (simulated work; 0 = none), which
	// makes the per-account concurrency limit easy to meet in tests.
	UpdateLatency time.Duration
	// PublicURL is the base of link URLs; "" uses the request's own host.
	PublicURL string
	// Now is the clock; nil is time.Now, or the server's clock (which the admin API
	// advances) when server.New serves the API.
	Now func() time.Time
	// Random is the source of ids and secrets (crypto/rand when nil).
	Random io.Reader
	// Log receives internal errors; nil is slog.Default(), or the server's logger when
	// server.New serves the API.
	Log *slog.Logger
	// Leases are the store's leases on background work (nil: the API declares its own),
	// and Holder names this process in them (a token of its own when ""): of the servers on
	// one database, one at a time runs the retention sweep.
	Leases *store.Leases
	Holder string
	// Shared says other servers share the store (replicas on one database): the
	// per-account concurrency limit is then counted in the store, across them.
	Shared bool
}

// Platform is a platform declared in the seed.
type Platform struct {
	ID   string `yaml:"id"`
	Name string `yaml:"name,omitempty"`
	// AccountsV2 says whether the platform may use /v2/core (default true).
	AccountsV2 *bool `yaml:"accounts_v2,omitempty"`
	// Keys are its secret keys (sk_test_... for test mode, sk_live_... for live mode).
	Keys []string `yaml:"keys,omitempty"`
	// AccountConcurrency overrides the per-account limit for its accounts.
	AccountConcurrency int `yaml:"account_concurrency,omitempty"`
}

// DefaultPlatformID is the platform of every sk_test_/sk_live_ key the seed does not claim.
const DefaultPlatformID = "platform_default"

// DefaultConfig returns the configuration used when nothing is said.
func DefaultConfig() Config {
	return Config{
		ServiceVersions:    []string{"2026-05-27.dahlia"},
		LinkLifetime:       10 * time.Minute,
		SessionLifetime:    30 * time.Minute,
		IdempotencyWindow:  30 * 24 * time.Hour,
		LinkRetention:      24 * time.Hour,
		EventRetention:     30 * 24 * time.Hour,
		AccountConcurrency: 1,
	}
}

// Server implements the generated strict server interface.
type Server struct {
	cfg       Config
	db        *store.DB
	tables    *tables
	platforms map[string]*platform // by id
	keys      map[string]*platform // declared keys
	slots     *accountSlots
	// submissions serialises the submissions of each link's hosted form (by token).
	submissions *keyedMutex
	deliveries  *deliverer
	// sweepLease is this process's claim to run the retention sweep.
	sweepLease *store.Lease
	// seedValidator checks seeded entries as the requests that would make them, built at
	// the first seed.
	seedValidator func() (*validate.Validator, error)
	// objectSchemas are the objects' schemas, which checking requests does not keep, for
	// seed entries that are objects: read from the spec at the first such entry.
	objectSchemas func() (openapi3.Schemas, error)
	// hostedBase is the path PublicURL puts before /r/ (as "/base", or ""): what the
	// browser sees, for the hosted form's action and its cookie's path.
	hostedBase string
}

var _ gen.StrictServerInterface = (*Server)(nil)

// New returns the API over its tables in db.
func New(cfg Config, db *store.DB) (*Server, error) {
	def := DefaultConfig()
	if len(cfg.ServiceVersions) == 0 {
		cfg.ServiceVersions = def.ServiceVersions
	}
	if cfg.LinkLifetime <= 0 {
		cfg.LinkLifetime = def.LinkLifetime
	}
	if cfg.SessionLifetime <= 0 {
		cfg.SessionLifetime = def.SessionLifetime
	}
	if cfg.IdempotencyWindow <= 0 {
		cfg.IdempotencyWindow = def.IdempotencyWindow
	}
	if cfg.AccountConcurrency <= 0 {
		cfg.AccountConcurrency = def.AccountConcurrency
	}
	if cfg.LinkRetention <= 0 {
		cfg.LinkRetention = def.LinkRetention
	}
	if cfg.EventRetention <= 0 {
		cfg.EventRetention = def.EventRetention
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Server{cfg: cfg, db: db, tables: newTables(db), slots: newAccountSlots(), submissions: newKeyedMutex(), deliveries: newDeliverer()}
	if cfg.Leases == nil {
		cfg.Leases = store.NewLeases(db)
	}
	if cfg.Holder == "" {
		cfg.Holder = rand.Text() // not from cfg.Random, whose sequence the ids follow
	}
	s.cfg = cfg
	s.sweepLease = cfg.Leases.Lease("accounts.retention", cfg.Holder, sweepLease)
	s.objectSchemas = sync.OnceValues(objectSchemasOf)
	s.seedValidator = validate.Lazy(Spec, validate.Options{})
	if cfg.PublicURL != "" {
		u, err := url.Parse(cfg.PublicURL)
		if err != nil {
			return nil, fmt.Errorf("public URL: %w", err)
		}
		s.hostedBase = strings.TrimRight(u.EscapedPath(), "/")
	}
	if err := s.loadPlatforms(); err != nil {
		return nil, err
	}
	return s, nil
}

// hostedOperations answer browsers: no API key, no Service-Version.
var hostedOperations = []string{"openAccountLink", "submitAccountLink"}

// Register adds the API's routes to e, the API's own Echo instance, for ops (Operations):
// per operation the API key, the Service-Version check and spec validation before the
// handler, the spec parsed on the first request that needs it. AssignRequestID must run
// before routing.
func (s *Server) Register(e *echo.Echo, ops []validate.Operation) error {
	v := validate.Defer(ops, validate.Lazy(Spec, validate.Options{}))
	m := v.Middlewares(s.authenticate(false), s.checkServiceVersion, normalizeLists)
	tokens := v.Middlewares(s.authenticate(true), s.checkServiceVersion, normalizeLists)
	for _, id := range publishableOperations {
		m[id] = tokens[id]
	}
	plain := v.Middlewares()
	for _, id := range hostedOperations {
		m[id] = append([]echo.MiddlewareFunc{hostedPage}, plain[id]...)
	}
	m["submitAccountLink"] = append(m["submitAccountLink"], formFromBody)
	gen.RegisterHandlersWithOptions(routes.New(e, isHostedPath), gen.NewStrictHandler(s, nil), gen.RegisterHandlersOptions{OperationMiddlewares: m})
	return nil
}

// Spec loads the API's embedded OpenAPI document (validate.Load).
func Spec() (*openapi3.T, error) { return validate.Load("accounts", gen.GetSpecJSON) }

// Operations are the operations of the API's spec, read without parsing it.
func Operations() ([]validate.Operation, error) { return validate.Operations(gen.GetSpecJSON) }

func (s *Server) now() time.Time { return s.cfg.Now().UTC() }

// timestamp formats times as the v2 API does: RFC 3339, UTC, milliseconds.
func timestamp(t time.Time) string { return timefmt.Millis(t, "Z") }

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Restore picks up where a durable store of this process alone (a data directory) left off
// before a restart: idempotency keys whose request was still running when the process
// stopped are forgotten, since that request was never answered and its retry must be able
// to run. On a database that other servers share it must not run (one of them may be
// running those requests): there an abandoned key is taken over once its RunningUntil has
// passed.
func (s *Server) Restore(tx *store.Tx) error {
	var running []string
	s.tables.Idempotency.Each(tx, func(pk string, r Idempotency) bool {
		if r.InFlight {
			running = append(running, pk)
		}
		return true
	})
	for _, pk := range running {
		s.tables.Idempotency.Delete(tx, pk)
	}
	return tx.Err()
}
