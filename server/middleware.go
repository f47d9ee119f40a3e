package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/control"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/validate"
)

// use installs the server's middleware, in the order a request meets it. Before routing:
// every request is observed, panics below
// become 500s, the accounts API gives its requests their ids, and the authorization API
// rewrites ARM paths so that Echo can route them. After routing: the admin API's fault
// rules, then the query and body limits. Then each operation's own middleware, which each
// API registers with its routes (authentication, spec validation), and the handler.
func (s *Server) use(e *echo.Echo, accts *accounts.Server, authz *authorization.Server) {
	e.Pre(s.observe, s.recoverPanic, accts.AssignRequestID, authz.RewritePath)
	e.Use(s.injectFaults, s.limitRequest)
}

// recoverPanic turns a panic anywhere below it into a 500 in the API's envelope, logged with
// its stack; the server keeps serving.
func (s *Server) recoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			s.cfg.Log.Error("panic while serving a request", "method", c.Request().Method, "path", accounts.LoggedPath(c.Request().URL.Path),
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}()
		return next(c)
	}
}

// observe records every request once it has been answered: a structured log line (never
// headers, so never tokens or keys, and hosted link tokens masked in the path), metrics,
// and (for the APIs, not /_understudy) the journal. It runs before routing, so it sees the
// path as the client sent it. It also gives ARM and compute responses their request ids.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		req := c.Request()
		path := req.URL.Path // before any rewriting
		api := s.apiName(path)
		switch api {
		case "admin":
		case "accounts":
			// AssignRequestID, inside, gives every response of this API its Request-Id, as
			// the real API's.
		case "authorization":
			setARMRequestIDs(c.Response().Header(), req.Header)
		default:
			setRequestID(c.Response().Header())
		}
		if err := next(c); err != nil {
			c.Error(err) // render now, so that the status recorded is the one the client gets
		}
		d := time.Since(start)
		status := c.Response().Status
		op := s.operationID(c.Request().Method, c.Path())
		s.metrics.Observe(api, op, status, d)
		if api != "admin" {
			h := c.Response().Header()
			id := h.Get("Request-Id")
			if id == "" {
				id = h.Get("X-Request-Id")
			}
			if id == "" {
				id = h.Get("X-Ms-Request-Id")
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
}

// injectFaults applies the admin API's fault rules to requests of the APIs, after routing
// (so that rules can name operations) and before authentication and validation.
func (s *Server) injectFaults(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !s.faults.Any() {
			return next(c)
		}
		req := c.Request()
		api := s.apiName(requestPath(c))
		if api == "admin" {
			return next(c)
		}
		// A HEAD is its GET without the body: rules naming GET apply to it.
		method := req.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		rule, ok := s.faults.Match(control.Request{API: api, OperationID: s.operationID(method, c.Path()), Method: method, Path: requestPath(c)})
		if !ok {
			return next(c)
		}
		if rule.LatencyMs > 0 {
			select {
			case <-time.After(time.Duration(rule.LatencyMs) * time.Millisecond):
			case <-req.Context().Done():
			}
		}
		if rule.Status == 0 {
			return next(c)
		}
		if rule.RetryAfterSeconds > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(rule.RetryAfterSeconds))
		}
		return &httperr.Fault{Status: rule.Status, Code: rule.Code, Message: rule.Message}
	}
}

// limitRequest refuses a query string that does not parse, and bodies over the body limit:
// at once when Content-Length says so, else when reading passes the limit (the validator
// reads the body and reports 413).
//
// Every parser of the query (Echo's, the generated binders', kin-openapi's) drops a
// parameter with a bad %-escape or a ';' and ignores the error, so the request would go on
// without it: every route of every API and of /_understudy/ answers 400 instead (see
// validate.Query), unknown paths included. The hosted pages (/r/) are the exception: a
// browser's page whose URL means the same whatever query a mail or a tracker added to it.
func (s *Server) limitRequest(next echo.HandlerFunc) echo.HandlerFunc {
	limit := s.cfg.BodyLimit
	return func(c echo.Context) error {
		req := c.Request()
		if err := validate.Query(req.URL.RawQuery); err != nil && !strings.HasPrefix(requestPath(c), prefixHosted) {
			return err
		}
		if req.ContentLength > limit {
			return &http.MaxBytesError{Limit: limit}
		}
		if req.Body != nil && req.Body != http.NoBody {
			// The limited body goes on a copy of the request: net/http decides whether the
			// connection may serve another request by looking at its own request's body
			// (read to its end, closed early, failed). Behind a wrapper on the original it
			// would take a failed body for a consumed one, and read the bytes after it as
			// the next request.
			limitedReq := *req
			limitedReq.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			c.SetRequest(&limitedReq)
		}
		return next(c)
	}
}
