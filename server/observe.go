package server

import (
	"encoding/binary"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/control"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/validate"
)

// routeIDs maps "METHOD /echo/path" to the operationId of every operation in specs, so that
// middleware can name the operation a request reached from Echo's matched route.
func routeIDs(specs ...*openapi3.T) map[string]string {
	ids := map[string]string{}
	for _, spec := range specs {
		for path, item := range spec.Paths.Map() {
			echoPath := path
			for {
				i := strings.IndexByte(echoPath, '{')
				j := strings.IndexByte(echoPath, '}')
				if i < 0 || j < i {
					break
				}
				echoPath = echoPath[:i] + ":" + echoPath[i+1:j] + echoPath[j+1:]
			}
			for method, op := range item.Operations() {
				ids[method+" "+echoPath] = op.OperationID
			}
		}
	}
	return ids
}

// observed records every request once it has been answered: a structured log line (never
// headers, so never tokens or keys, and hosted link tokens masked in the path), metrics,
// and (for the APIs, not /_understudy) the journal. It runs before routing, so it sees the
// path as the client sent it.
func (s *Server) observed(c echo.Context, next echo.HandlerFunc) error {
	start := time.Now()
	req := c.Request()
	path := req.URL.Path // before any rewriting
	api := s.apiName(path)
	switch {
	case api == "admin":
	case api == "accounts":
		// AssignRequestID, inside, gives every response of this API its Request-Id, as the
		// real API's: no X-Request-Id besides (the test below would always have found none
		// set yet).
	case api == "authorization":
		setARMRequestIDs(c.Response().Header(), req.Header)
	case validate.Header(c.Response().Header(), "Request-Id") == "":
		setRequestID(c.Response().Header())
	}
	if err := next(c); err != nil {
		c.Error(err) // render now, so that the status recorded is the one the client gets
	}
	d := time.Since(start)
	status := c.Response().Status
	op := s.operationID(c.Request().Method, c.Path()) // a HEAD is routed as GET
	s.metrics.Observe(api, op, status, d)
	if api != "admin" {
		id := validate.Header(c.Response().Header(), "Request-Id")
		if id == "" {
			id = validate.Header(c.Response().Header(), "X-Request-Id")
		}
		if id == "" {
			id = validate.Header(c.Response().Header(), "X-Ms-Request-Id")
		}
		s.journal.Add(control.Entry{Time: s.clock.Now(), API: api, OperationID: op, Method: req.Method, Path: accounts.LoggedPath(path), Status: status, Duration: d, RequestID: id})
	}
	if s.cfg.Log.Enabled(req.Context(), slog.LevelInfo) {
		s.cfg.Log.LogAttrs(req.Context(), slog.LevelInfo, "request",
			slog.String("api", api), slog.String("operation", op),
			slog.String("method", req.Method), slog.String("path", accounts.LoggedPath(path)),
			slog.Int("status", status), slog.Float64("ms", float64(d.Microseconds())/1000),
			slog.Int64("bytes", c.Response().Size))
	}
	return nil
}

// requestPath is the path as the client sent it, before the authorization API's rewriting
// (which keeps the original when it changes it): which API owns a request is decided on
// that path.
func requestPath(c echo.Context) string {
	if p, ok := c.Get(authorization.OriginalPathKey).(string); ok {
		return p
	}
	return c.Request().URL.Path
}

// operationID is s.routes[method+" "+path] without building the key on the heap.
func (s *Server) operationID(method, path string) string {
	var buf [128]byte
	key := append(append(append(buf[:0], method...), ' '), path...)
	return s.routes[string(key)]
}

// setRequestID sets X-Request-Id to a random id (a uint64 in base 36).
func setRequestID(h http.Header) {
	h["X-Request-Id"] = []string{strconv.FormatUint(rand.Uint64(), 36)}
}

// setARMRequestIDs sets the ids ARM answers every request with: x-ms-request-id, a GUID of
// the response's own, and x-ms-correlation-request-id, the client's when it sent a GUID
// there, else the same one. Callers and support tooling quote them.
func setARMRequestIDs(h, req http.Header) {
	id := []string{randomGUID()}
	h["X-Ms-Request-Id"] = id
	if corr := validate.Header(req, "X-Ms-Correlation-Request-Id"); len(corr) == 36 && uuid.Validate(corr) == nil {
		h["X-Ms-Correlation-Request-Id"] = []string{corr}
	} else {
		h["X-Ms-Correlation-Request-Id"] = id // one slice for both: nothing appends to either
	}
}

// randomGUID is a random (version 4) GUID in lower case, from the fast generator: it names a
// response, it is not a secret (uuid.New would read crypto/rand for each).
func randomGUID() string {
	var u uuid.UUID
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u.String()
}

// faulted applies the admin API's fault rules to requests of the APIs, after routing (so
// that rules can name operations) and before authentication and validation; a request no
// rule stops goes on through limited(c, limit, next).
func (s *Server) faulted(c echo.Context, limit int64, next echo.HandlerFunc) error {
	if !s.faults.Any() {
		return limited(c, limit, next) // the usual case: no rule, nothing to look up
	}
	req := c.Request()
	api := s.apiName(requestPath(c))
	if api == "admin" {
		return limited(c, limit, next)
	}
	rule, ok := s.faults.Match(control.Request{API: api, OperationID: s.operationID(req.Method, c.Path()), Method: req.Method, Path: requestPath(c)})
	if !ok {
		return limited(c, limit, next)
	}
	if rule.LatencyMs > 0 {
		select {
		case <-time.After(time.Duration(rule.LatencyMs) * time.Millisecond):
		case <-req.Context().Done():
		}
	}
	if rule.Status == 0 {
		return limited(c, limit, next)
	}
	if rule.RetryAfterSeconds > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(rule.RetryAfterSeconds))
	}
	return &httperr.Fault{Status: rule.Status, Code: rule.Code, Message: rule.Message}
}
