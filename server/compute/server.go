// Package compute implements the compute API (gen/compute) under /compute/v1, with the
// Google error envelope: global forwarding rules and their labels, interconnect locations
// and Cross-Cloud Interconnect remote locations, interconnects, interconnect attachments
// and attachment groups with their SLA analysis, and the global and regional long-running
// operations every mutation returns.
//
// Every mutation is decided atomically when it is accepted (names reserved, fingerprints
// compared and set) and returns an Operation run by internal/operations: an inserted
// resource is readable once its operation is DONE, a deleted one until then; setLabels
// applies at once and returns a DONE operation, as the real service does. Where we decided
// something the real service leaves open, it is said next to the code.
package compute

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/fieldsel"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
	"github.com/understudy-dev/understudy/server/routes"
	"github.com/understudy-dev/understudy/server/validate"
)

// Config is what the compute API can be told at start.
type Config struct {
	// Operations sets the operation mode, retention and wait timeout.
	Operations operations.Config
	// DefaultUser is Operation.user when the token is not a JWT with an email claim.
	DefaultUser string
	// Locations are interconnect locations in addition to the built-in catalog.
	Locations []Location
	// RemoteLocations are Cross-Cloud Interconnect remote locations in addition to the
	// built-in catalog.
	RemoteLocations []RemoteLocation
	// Projects hold resources that exist at start and again after every reset (see Seed).
	Projects []SeedProject
	// AttachmentsPerGroup is the "Attachments per group" quota.
	AttachmentsPerGroup int
	// PublicURL is the base of selfLinks and targetLinks; "" uses the request's own host.
	PublicURL string
	// Now is the clock; nil is time.Now, or the server's clock (which the admin API
	// advances) when server.New serves the API.
	Now    func() time.Time
	Random io.Reader
	// Log receives internal errors; nil is slog.Default(), or the server's logger when
	// server.New serves the API.
	Log *slog.Logger
}

// DefaultConfig returns the configuration used when nothing is said.
func DefaultConfig() Config {
	return Config{Operations: operations.DefaultConfig(), DefaultUser: "user@understudy.local", AttachmentsPerGroup: 16}
}

// Server implements the generated strict server interface.
type Server struct {
	cfg             Config
	db              *store.DB
	tables          *tables
	locations       locationCatalog
	remoteLocations catalog[RemoteLocation]
	ops             *operations.Engine
	// parsed is the spec as the API reads it, parsed once, when first needed.
	parsed func() (parsedSpec, error)
	// seedValidator checks seeded resources as the inserts that would create them; as
	// requests do, they may give read-only members (a state export writes resources as a
	// read returns them).
	seedValidator func() (*validate.Validator, error)
}

var _ gen.StrictServerInterface = (*Server)(nil)

// New returns the API over its tables in db.
func New(cfg Config, db *store.DB) *Server {
	def := DefaultConfig()
	if cfg.DefaultUser == "" {
		cfg.DefaultUser = def.DefaultUser
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Random == nil {
		cfg.Random = rand.Reader
	}
	if cfg.AttachmentsPerGroup <= 0 {
		cfg.AttachmentsPerGroup = def.AttachmentsPerGroup
	}
	cfg.Operations.Now, cfg.Operations.Random = cfg.Now, cfg.Random
	s := &Server{cfg: cfg, db: db, tables: newTables(db),
		locations:       locationCatalog{newCatalog(locationsCreated, builtinLocations, cfg.Locations)},
		remoteLocations: newCatalog(remoteLocationsCreated, builtinRemoteLocations, cfg.RemoteLocations),
		ops:             operations.New(cfg.Operations, db), seedValidator: validate.Lazy(Spec, validate.Options{AllowReadOnly: true}),
		parsed: sync.OnceValues(parseSpec)}
	s.ops.Handle(kindRuleInsert, s.finishRuleInsert)
	s.ops.Handle(kindRuleDelete, s.finishRuleDelete)
	s.ops.Handle(kindInterconnectInsert, s.finishInterconnectInsert)
	s.ops.Handle(kindInterconnectDelete, s.finishInterconnectDelete)
	s.ops.Handle(kindAttachmentInsert, s.finishAttachmentInsert)
	s.ops.Handle(kindAttachmentDelete, s.finishAttachmentDelete)
	s.ops.Handle(kindGroupInsert, s.finishGroupInsert)
	s.ops.Handle(kindGroupDelete, s.finishGroupDelete)
	s.ops.Handle(kindICGroupInsert, s.finishICGroupInsert)
	s.ops.Handle(kindICGroupDelete, s.finishICGroupDelete)
	return s
}

// Register adds the API's routes to e, the API's own Echo instance, for ops (Operations):
// per operation the bearer check and spec validation, then the engine finishes what is due,
// then the handler. The spec is parsed on the first request that needs it (parsed).
func (s *Server) Register(e *echo.Echo, ops []validate.Operation) error {
	v := validate.Defer(ops, func() (*validate.Validator, error) {
		p, err := s.parsed()
		return p.validator, err
	})
	mws := v.Middlewares(systemAliases, wholeSegments, s.authenticate, s.advance)
	for id := range mws {
		// After validation: a request is judged whole before its answer is trimmed.
		mws[id] = append(mws[id], checkSystemParameters, partialResponse(func() *fieldsel.Shape {
			p, _ := s.parsed() // validation, before, parsed it
			return p.shapes[id]
		}))
	}
	gen.RegisterHandlersWithOptions(routes.New(e, nil), gen.NewStrictHandler(s, nil), gen.RegisterHandlersOptions{
		OperationMiddlewares: mws,
	})
	// Google's batch endpoint: each request it holds is served by e as if sent alone.
	e.POST(batchPath, batch(e))
	return nil
}

// parsedSpec is what the API reads of its spec: the validation of requests, the shapes of
// the operations' 200 bodies (for partial responses) and the members each schema marks
// readOnly (which patches ignore).
type parsedSpec struct {
	validator *validate.Validator
	shapes    map[string]*fieldsel.Shape
	readOnly  map[string]map[string]bool
}

// parseSpec parses the spec (Spec) for parsed.
func parseSpec() (parsedSpec, error) {
	spec, err := Spec()
	if err != nil {
		return parsedSpec{}, err
	}
	// What partial responses and patches need of the responses and components, read before
	// the validator keeps only what requests use.
	p := parsedSpec{shapes: shapesOf(spec), readOnly: readOnlyOf(spec)}
	// Clients send back output-only fields they read; the handlers ignore them.
	p.validator, err = validate.New(spec, validate.Options{AllowReadOnly: true, RejectUnknownQuery: true, SystemQuery: systemQuery, Rewrite: patchNulls})
	return p, err
}

// systemQuery are the query parameters every Google API method takes besides its own (the
// discovery document's "parameters"), accepted and without effect here; alt and
// prettyPrint are declared by each operation. Any other parameter an operation does not
// declare is refused, as Google's front end refuses it: a requestId sent to setLabels,
// which takes none, would otherwise be ignored, and a client's retry believed safe.
var systemQuery = []string{"$.xgafv", "access_token", "callback", "fields", "key", "oauth_token", "quotaUser", "upload_protocol", "uploadType", "userIp"}

// dollarAliases are the system parameters Google documents under a second name with a
// '$' ("$alt, alt", cloud.google.com/apis/docs/system-parameters), by that name: Google's
// Node clients send $alt=json;enum-encoding=int (numericEnums) and $prettyPrint=0
// (minifyJson).
var dollarAliases = map[string]string{"$alt": "alt", "$callback": "callback", "$fields": "fields", "$key": "key", "$prettyPrint": "prettyPrint"}

// numericEnums is the option of alt=json by which Google's clients ask for enums as
// numbers. Where we decided: it is accepted and enums are still answered by name, as the
// discovery document defines each (compute's protos number only Operation.status, which
// the clients read by name as well).
const numericEnums = ";enum-encoding=int"

// systemAliases reads, before validation, each $-named system parameter as the parameter
// it names (dollarAliases), and alt=json;enum-encoding=int as alt=json, in the query Echo
// parsed, which validation, the handlers and partial responses all read.
func systemAliases(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if raw := c.QueryString(); !strings.Contains(raw, "alt") && !strings.Contains(raw, "$") && !strings.Contains(raw, "%24") {
			return next(c) // neither an alias ('$' or its escape) nor an alt
		}
		q := c.QueryParams()
		for alias, name := range dollarAliases {
			if vs, ok := q[alias]; ok {
				q[name] = append(q[name], vs...)
				delete(q, alias)
			}
		}
		for i, v := range q["alt"] {
			if format, ok := strings.CutSuffix(v, numericEnums); ok {
				q["alt"][i] = format
			}
		}
		return next(c)
	}
}

// Spec loads the API's embedded OpenAPI document with its 200 responses, whose shapes
// partial responses check (validate.LoadWithOK).
func Spec() (*openapi3.T, error) { return validate.LoadWithOK("compute", gen.GetSpecJSON) }

// Operations are the operations of the API's spec, read without parsing it.
func Operations() ([]validate.Operation, error) { return validate.Operations(gen.GetSpecJSON) }

// wholeSegments answers 404, as for any URL the API does not have, when a path is longer
// than its route: Echo gives a route's last parameter the rest of the path, slashes and all
// (labstack/echo#2501), so a path such as interconnects/{name}/foo would otherwise reach
// interconnects.get and be refused as an interconnect named "{name}/foo".
func wholeSegments(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for _, v := range c.ParamValues() {
			if strings.IndexByte(v, '/') >= 0 {
				return echo.ErrNotFound
			}
		}
		return next(c)
	}
}

// advance lets the engine finish due operations before the request looks at anything, so
// that what it reads is current.
func (s *Server) advance(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.ops.Advance(c.Request().Context()); err != nil {
			return err
		}
		return next(c)
	}
}

// timestamp formats times as the real API does: RFC 3339 with milliseconds and an offset.
func timestamp(t time.Time) string { return timefmt.Millis(t, "+00:00") }

// newID is a random uint64 id in decimal.
func (s *Server) newID() string {
	var r [8]byte
	s.read(r[:])
	return strconv.FormatUint(binary.BigEndian.Uint64(r[:])>>1|1, 10)
}

// read fills b with randomness.
func (s *Server) read(b []byte) {
	if _, err := io.ReadFull(s.cfg.Random, b); err != nil {
		panic("compute: no randomness: " + err.Error())
	}
}

// link is an absolute URL of a resource path under /compute/v1/.
func (s *Server) link(ctx context.Context, path string) string { return s.links(ctx).url(path) }

// baseURL is the configured public URL, else the request's own scheme://host.
func (s *Server) baseURL(ctx context.Context) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	if info := infoFrom(ctx); info != nil {
		return info.scheme + "://" + info.host
	}
	return ""
}

// StopWaits makes operations waits return at once (see operations.Engine.StopWaits).
func (s *Server) StopWaits() { s.ops.StopWaits() }
