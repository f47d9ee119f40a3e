package authorization

import (
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/condition"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/routes"
	"github.com/understudy-dev/understudy/server/validate"
)

// Config is what the authorization API can be told at start.
type Config struct {
	// DefaultPrincipal is the caller of a token that is neither a JWT with an oid claim nor
	// mapped in Tokens.
	DefaultPrincipal string
	// Tokens maps bearer tokens to principals (seed file).
	Tokens map[string]Principal
	// Enforce turns permission checks on: callers then need a role that grants the action.
	Enforce bool
	// BootstrapOwners hold Owner everywhere, so that someone can make the first assignments
	// when Enforce is on.
	BootstrapOwners []string
	// RoleDefinitions are custom roles that exist at start and again after every reset, in
	// addition to the built-in ones.
	RoleDefinitions []SeedRole
	// Assignments exist at start and again after every reset.
	Assignments []SeedAssignment
	// ManagementGroups place subscriptions under management groups, and groups under
	// groups: assignments at a group then apply to what is below it.
	ManagementGroups []ManagementGroup
	// Directory is the principals (and group members) that exist at start and again after
	// every reset; the admin API adds more.
	Directory []DirectoryEntry
	// DenyAssignments exist at start and again after every reset; the admin API adds more.
	DenyAssignments []SeedDenyAssignment
	// StrictPrincipals refuses an assignment to a principal the directory does not know
	// (400 PrincipalNotFound), as ARM does.
	StrictPrincipals bool
	// MaxPerSubscription limits assignments under one subscription (ARM: 4000).
	MaxPerSubscription int
	// PageSize is the largest page of a list (ARM: 1000).
	PageSize int
	// PublicURL is the base of nextLink URLs; "" uses the request's own host.
	PublicURL string
	// Now is the clock; nil is time.Now, or the server's clock (which the admin API
	// advances) when server.New serves the API.
	Now func() time.Time
	// Log receives internal errors; nil is slog.Default(), or the server's logger when
	// server.New serves the API.
	Log *slog.Logger
}

// DefaultConfig returns the configuration used when nothing is said.
func DefaultConfig() Config {
	return Config{
		DefaultPrincipal:   "00000000-0000-0000-0000-00000000c0de",
		MaxPerSubscription: maxRoleAssignmentsPerSubscript,
		PageSize:           1000,
	}
}

// Server implements the generated strict server interface.
type Server struct {
	cfg    Config
	db     *store.DB
	tables *tables
	owners map[string]bool
	hier   *hierarchy
	// seedValidator checks seeded assignments as PUTs are checked.
	seedValidator func() (*validate.Validator, error)
	// parsed is the spec as the API reads it, parsed once, when first needed.
	parsed func() (parsedSpec, error)
}

var _ gen.StrictServerInterface = (*Server)(nil)

// New returns the API over its tables in db.
func New(cfg Config, db *store.DB) (*Server, error) {
	def := DefaultConfig()
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxPerSubscription <= 0 {
		cfg.MaxPerSubscription = def.MaxPerSubscription
	}
	if cfg.PageSize <= 0 || cfg.PageSize > def.PageSize {
		cfg.PageSize = def.PageSize
	}
	if cfg.DefaultPrincipal == "" {
		cfg.DefaultPrincipal = def.DefaultPrincipal
	}
	// The seed's roles are read by Seed; reading them here too stops a start on a bad one.
	if _, err := decodeRoles(cfg.RoleDefinitions); err != nil {
		return nil, err
	}
	hier, err := newHierarchy(cfg.ManagementGroups)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, db: db, tables: newTables(db), owners: map[string]bool{}, hier: hier, seedValidator: validate.Lazy(Spec, validate.Options{AllowReadOnly: true}),
		parsed: sync.OnceValues(parseSpec)}
	for _, o := range cfg.BootstrapOwners {
		s.owners[strings.ToLower(o)] = true
	}
	return s, nil
}

// Register adds the API's routes to e, the API's own Echo instance, for ops (Operations):
// per operation authentication, the api-version check and spec validation (nulls dropped
// first, dropNulls) before the handler. The spec is parsed on the first request that needs
// it (parsed). RewritePath must run before routing.
func (s *Server) Register(e *echo.Echo, ops []validate.Operation) error {
	v := validate.Defer(ops, func() (*validate.Validator, error) {
		p, err := s.parsed()
		return p.validator, err
	})
	gen.RegisterHandlersWithOptions(routes.New(e, nil), gen.NewStrictHandler(s, nil), gen.RegisterHandlersOptions{
		OperationMiddlewares: v.Middlewares(s.authenticate, checkAPIVersion),
	})
	return nil
}

// parsedSpec is what the API reads of its spec: the validation of requests, and the
// statuses only some api-versions answer.
type parsedSpec struct {
	validator *validate.Validator
	statuses  map[string]map[int][]string
}

// parseSpec parses the spec (Spec) for parsed.
func parseSpec() (parsedSpec, error) {
	spec, err := Spec()
	if err != nil {
		return parsedSpec{}, err
	}
	// Read before the validator keeps only what requests use.
	statuses, err := versionedStatuses(spec)
	if err != nil {
		return parsedSpec{}, err
	}
	v, err := validate.New(spec, validate.Options{AllowReadOnly: true, Rewrite: dropNulls})
	return parsedSpec{validator: v, statuses: statuses}, err
}

// Spec loads the API's embedded OpenAPI document with its 200 responses (validate.LoadWithOK):
// parseSpec reads their x-api-versions (versionedStatuses).
func Spec() (*openapi3.T, error) { return validate.LoadWithOK("authorization", gen.GetSpecJSON) }

// Operations are the operations of the API's spec, read without parsing it.
func Operations() ([]validate.Operation, error) { return validate.Operations(gen.GetSpecJSON) }

// parseGUID returns the canonical lower-case form of a GUID, lowered as every key is
// (asciiLower).
func parseGUID(s string) (string, bool) {
	if !condition.IsGUID(s) {
		return "", false
	}
	return asciiLower(s), true
}
