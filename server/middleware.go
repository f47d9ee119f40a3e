package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/control"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/validate"
)

// recoverPanic runs next, turning a panic anywhere below it into a 500 in the API's
// envelope, logged with its stack; the server keeps serving.
func (s *Server) recoverPanic(c echo.Context, next echo.HandlerFunc) (err error) {
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

// observe records every request of API a once it has been answered: a structured log line
// (never headers, so never tokens or keys, and hosted link tokens masked in the path),
// metrics, and (for the APIs, not /_understudy) the journal, with the exchange's headers
// and bodies while the journal is capturing (control.Recorder). It runs before routing, so it
// sees the path as the client sent it. ids, when not nil, gives the response its request
// ids before anything else runs, so that every answer has them, errors included. It runs
// the rest of the request under recoverPanic.
func (s *Server) observe(a api, ids func(resp, req http.Header)) echo.MiddlewareFunc {
	name := a.String()
	idHeader := map[api]string{apiAuthorization: "X-Ms-Request-Id", apiAccounts: "Request-Id", apiCompute: "X-Request-Id"}[a]
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			req := c.Request()
			path := req.URL.Path // before any rewriting
			if s.shared {
				s.refreshShared(req.Context())
			}
			if ids != nil {
				ids(c.Response().Header(), req.Header)
			}
			// While someone looks at the console, the journal keeps what was sent and
			// answered; otherwise this costs one atomic load.
			var rec *control.Recorder
			if a != apiAdmin && s.journal.Capturing(start) {
				var served *http.Request
				rec, served, c.Response().Writer = control.NewRecorder(req, c.Response().Writer)
				c.SetRequest(served)
			}
			if err := s.recoverPanic(c, next); err != nil {
				c.Error(err) // render now, so that the status recorded is the one the client gets
			}
			d := time.Since(start)
			status := c.Response().Status
			op := s.operationID(c.Request().Method, c.Path())
			s.metrics.Observe(name, op, status, d)
			if a != apiAdmin {
				e := control.Entry{Time: s.clock.Now(), API: name, OperationID: op, Method: req.Method, Path: accounts.LoggedPath(path),
					Status: status, Duration: d, RequestID: c.Response().Header().Get(idHeader)}
				if rec != nil {
					e.Exchange = rec.Exchange()
				}
				s.journal.Add(e)
			}
			if s.cfg.Log.Enabled(req.Context(), slog.LevelInfo) {
				s.cfg.Log.LogAttrs(req.Context(), slog.LevelInfo, "request",
					slog.String("api", name), slog.String("operation", op),
					slog.String("method", req.Method), slog.String("path", accounts.LoggedPath(path)),
					slog.Int("status", status), slog.Float64("ms", float64(d.Microseconds())/1000),
					slog.Int64("bytes", c.Response().Size))
			}
			return nil
		}
	}
}

// routed is the middleware every request of API a meets after routing: injectFault (not on
// the admin API, which is never faulted), then limitRequest. One middleware for both:
// Echo applies its middleware anew on every request, a closure each.
func (s *Server) routed(a api, anyQuery func(path string) bool) echo.MiddlewareFunc {
	name := a.String()
	faulted := a != apiAdmin
	limit := s.cfg.BodyLimit
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if faulted && s.faults.Any() {
				if err := s.injectFault(c, name); err != nil {
					return err
				}
			}
			if err := limitRequest(c, limit, anyQuery); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// injectFault applies the admin API's fault rules to a request of the API named name, after
// routing (so that rules can name operations) and before authentication and validation:
// it waits a rule's latency, and returns the fault it answers with, if any.
func (s *Server) injectFault(c echo.Context, name string) error {
	req := c.Request()
	// A HEAD is its GET without the body: rules naming GET apply to it.
	method := req.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	rule, ok := s.faults.Match(req.Context(), control.Request{API: name, OperationID: s.operationID(method, c.Path()), Method: method, Path: requestPath(c)})
	if !ok {
		return nil
	}
	if rule.LatencyMs > 0 {
		select {
		case <-time.After(time.Duration(rule.LatencyMs) * time.Millisecond):
		case <-req.Context().Done():
		}
	}
	if rule.Status == 0 {
		return nil
	}
	if rule.RetryAfterSeconds > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(rule.RetryAfterSeconds))
	}
	return &httperr.Fault{Status: rule.Status, Code: rule.Code, Message: rule.Message}
}

// limitRequest refuses a query string that does not parse, and bodies over the body limit:
// at once when Content-Length says so, else when reading passes the limit (the validator
// reads the body and reports 413).
//
// Every parser of the query (Echo's, the generated binders', kin-openapi's) drops a
// parameter with a bad %-escape or a ';' and ignores the error, so the request would go on
// without it: every route of every API and of /_understudy/ answers 400 instead (see
// validate.Query), unknown paths included. The hosted pages (/r/, which anyQuery reports)
// are the exception: a browser's page whose URL means the same whatever query a mail or a
// tracker added to it.
func limitRequest(c echo.Context, limit int64, anyQuery func(path string) bool) error {
	req := c.Request()
	if err := validate.Query(req.URL.RawQuery); err != nil && (anyQuery == nil || !anyQuery(req.URL.Path)) {
		return err
	}
	if req.ContentLength > limit {
		return &http.MaxBytesError{Limit: limit}
	}
	// A body of a declared length is read to that length at most (net/http's reader
	// stops there; HTTP/2's refuses more), so only a body of unknown length needs
	// the limit put on it (0 with a body: an in-process caller that did not say).
	if req.ContentLength <= 0 && req.Body != nil && req.Body != http.NoBody {
		// The limited body goes on a copy of the request: net/http decides whether the
		// connection may serve another request by looking at its own request's body
		// (read to its end, closed early, failed). Behind a wrapper on the original it
		// would take a failed body for a consumed one, and read the bytes after it as
		// the next request.
		limitedReq := *req
		limitedReq.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		c.SetRequest(&limitedReq)
	}
	return nil
}
