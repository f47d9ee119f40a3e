// Package admin implements understudy's own control API (gen/admin) under /_understudy/:
// readiness, reset, the request journal, fault rules, the clock and metrics. With a token
// set, every operation the spec secures (all but health) needs it.
package admin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/internal/clock"
	"github.com/understudy-dev/understudy/server/control"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/routes"
	"github.com/understudy-dev/understudy/server/validate"
)

// Deps are what the admin API controls and observes.
type Deps struct {
	Version string
	// Token, when not empty, is the admin token: every operation but health needs
	// Authorization: Bearer <Token>.
	Token string
	Clock *clock.Clock
	// ClockAdvanced, when set, is called after the clock moved (to keep the offset on disk).
	ClockAdvanced func() error
	// AdvanceClock, when set, advances the clock in place of Clock.Advance and
	// ClockAdvanced: replicas on one database advance their shared clock in the store.
	AdvanceClock func(time.Duration) error
	// Reset puts every API back into its seeded state.
	Reset func() error
	// Export writes the whole current state as a seed file.
	Export func() ([]byte, error)
	// Load replaces the whole state with a seed file's; its errors are *Error.
	Load    func(seed []byte) error
	Journal *control.Journal
	Faults  *control.Faults
	Metrics *control.Metrics
	// Ready, when set, says whether the state can be reached and kept (a data directory
	// whose disk refused a write cannot until a restart; a database that is down cannot
	// until it is back): health answers 503, with Ready's error, when it cannot.
	Ready func(ctx context.Context) error
	// Directory is the authorization API's directory of principals.
	Directory Directory
	// Denies are the authorization API's deny assignments.
	Denies DenyAssignments
	// SetCircuit sets a compute interconnect's (region "") or attachment's circuit down or
	// up and returns its path; one that is not there is store.ErrNotFound.
	SetCircuit func(project, region, name string, down bool) (string, error)
	// Operations are each API's operationIds (by API name, as fault rules name them): a
	// rule naming another can never match.
	Operations map[string][]string
}

// Server implements the generated strict server interface.
type Server struct {
	d       Deps
	started time.Time
}

var _ gen.StrictServerInterface = (*Server)(nil)

// New returns the admin API.
func New(d Deps) *Server {
	return &Server{d: d, started: time.Now()}
}

// Spec loads the admin API's embedded OpenAPI document (validate.Load).
func Spec() (*openapi3.T, error) { return validate.Load("admin", gen.GetSpecJSON) }

// Operations are the operations of the API's spec, read without parsing it.
func Operations() ([]validate.Operation, error) { return validate.Operations(gen.GetSpecJSON) }

// Register adds the admin routes to e, the API's own Echo instance, each validated against
// spec (as Spec loads it).
func (s *Server) Register(e *echo.Echo, spec *openapi3.T) error {
	v, err := validate.New(spec, validate.Options{})
	if err != nil {
		return err
	}
	m := v.Middlewares()
	if s.d.Token != "" {
		// The token is checked before validation, as the APIs check their credentials.
		t := newToken(s.d.Token)
		for _, item := range spec.Paths.Map() {
			for _, op := range item.Operations() {
				if needsToken(spec, op) {
					m[op.OperationID] = append([]echo.MiddlewareFunc{t.middleware}, m[op.OperationID]...)
				}
			}
		}
	}
	gen.RegisterHandlersWithOptions(routes.New(e, nil), gen.NewStrictHandler(s, nil), gen.RegisterHandlersOptions{OperationMiddlewares: m})
	return nil
}

// GetHealth answers 200 once the server serves.
func (s *Server) GetHealth(ctx context.Context, _ gen.GetHealthRequestObject) (gen.GetHealthResponseObject, error) {
	if s.d.Ready != nil {
		if err := s.d.Ready(ctx); err != nil {
			return nil, &Error{Status: http.StatusServiceUnavailable, Code: "Unavailable",
				Message: "the state cannot be reached or kept: " + err.Error()}
		}
	}
	up := time.Since(s.started).Seconds() // real time: the admin clock may have been advanced
	v := s.d.Version
	return gen.GetHealth200JSONResponse{Status: gen.HealthStatusOk, Version: &v, UptimeSeconds: &up}, nil
}

// Reset puts every API back into its seeded state.
func (s *Server) Reset(ctx context.Context, _ gen.ResetRequestObject) (gen.ResetResponseObject, error) {
	if err := s.d.Reset(); err != nil {
		return nil, err
	}
	return gen.Reset200JSONResponse{Status: gen.ResetResultStatusReset}, nil
}

// GetState writes the whole current state as a seed file.
func (s *Server) GetState(ctx context.Context, _ gen.GetStateRequestObject) (gen.GetStateResponseObject, error) {
	doc, err := s.d.Export()
	if err != nil {
		return nil, err
	}
	return gen.GetState200ApplicationyamlResponse{Body: bytes.NewReader(doc), ContentLength: int64(len(doc))}, nil
}

// LoadState replaces the whole state with the seed file in the body.
func (s *Server) LoadState(ctx context.Context, req gen.LoadStateRequestObject) (gen.LoadStateResponseObject, error) {
	seed, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	if err := s.d.Load(seed); err != nil {
		return nil, err
	}
	return gen.LoadState200JSONResponse{Status: gen.LoadStateResultStatusLoaded}, nil
}

// Error is an admin API error.
type Error struct {
	Status        int
	Code, Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// WriteError renders err in the admin envelope {"error":{"code","message"}}.
func WriteError(c echo.Context, err error, log *slog.Logger) {
	e := toError(c, err)
	httperr.LogUnexpected(c, e.Status, err, log)
	if c.Response().Committed {
		return
	}
	body := map[string]any{"error": map[string]string{"code": e.Code, "message": e.Message}}
	_ = httperr.WriteJSON(c, e.Status, body)
}

func toError(c echo.Context, err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	cause := httperr.Classify(err)
	switch cause.Kind {
	case httperr.Invalid:
		return &Error{Status: cause.Status, Code: "InvalidRequest", Message: cause.Validation.Error()}
	case httperr.UnsupportedMediaType:
		mediaType := "application/json"
		if c.Request().Method == http.MethodPut && c.Path() == "/_understudy/state" {
			mediaType = "application/yaml" // the one operation that takes a seed file
		}
		return &Error{Status: cause.Status, Code: "UnsupportedMediaType", Message: "send " + mediaType}
	case httperr.TooLarge:
		return &Error{Status: cause.Status, Code: "RequestEntityTooLarge", Message: "the request body is too large"}
	case httperr.NotFound:
		return &Error{Status: cause.Status, Code: "NotFound", Message: "no admin endpoint at " + c.Request().URL.Path}
	case httperr.MethodNotAllowed:
		return &Error{Status: cause.Status, Code: "MethodNotAllowed", Message: "method " + c.Request().Method + " is not allowed on " + c.Request().URL.Path}
	case httperr.BadRequest:
		return &Error{Status: cause.Status, Code: "BadRequest", Message: cause.Message}
	case httperr.Conflict:
		return &Error{Status: cause.Status, Code: "Conflict", Message: "another request changed the same state at the same time; retry"}
	case httperr.Unavailable:
		return &Error{Status: cause.Status, Code: "Unavailable", Message: "the store is unavailable; retry shortly"}
	}
	return &Error{Status: http.StatusInternalServerError, Code: "Internal", Message: "internal error"}
}
