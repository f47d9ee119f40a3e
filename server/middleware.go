package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/validate"
)

// The server's middleware is composed once, in New, around route (see ServeHTTP): front
// before routing, the fault rules and the body limit after it.

// front turns a panic anywhere below it into a 500 in the API's envelope, logged with its
// stack (the server keeps serving), and observes every request (see observed). Then it may
// yield before net/http sends the response (see yieldToOthers).
func (s *Server) front(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer recovered(log, c, &err)
			err = s.observed(c, next)
			s.yieldToOthers(c.Request().Context())
			return err
		}
	}
}

// recovered is front's panic handler: it must be deferred directly.
func recovered(log *slog.Logger, c echo.Context, err *error) {
	if r := recover(); r != nil {
		if r == http.ErrAbortHandler {
			panic(r)
		}
		log.Error("panic while serving a request", "method", c.Request().Method, "path", accounts.LoggedPath(c.Request().URL.Path),
			"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = fmt.Errorf("panic: %v", r)
	}
}

// limited refuses a query string that does not parse, and bodies over limit bytes: at once
// when Content-Length says so, else when reading passes the limit (the validator reads the
// body and reports 413).
//
// Every parser of the query (Echo's, the generated binders', kin-openapi's) drops a
// parameter with a bad %-escape or a ';' and ignores the error, so the request would go on
// without it: every route of every API and of /_understudy/ answers 400 instead (see
// validate.Query), unknown paths included. The hosted pages (/r/) are the exception: a
// browser's page whose URL means the same whatever query a mail or a tracker added to it
// (they read none; see TestHostedFlow).
func limited(c echo.Context, limit int64, next echo.HandlerFunc) error {
	req := c.Request()
	if err := validate.Query(req.URL.RawQuery); err != nil && !strings.HasPrefix(requestPath(c), prefixHosted) {
		return err
	}
	if req.ContentLength > limit {
		return &http.MaxBytesError{Limit: limit}
	}
	if req.Body != nil && req.Body != http.NoBody {
		// The limited body goes on a copy of the request. net/http decides whether the
		// connection may serve another request by looking at its own request's body: read
		// to its end, closed early, failed (a bad chunk, a read timeout), or an unread
		// body behind "Expect: 100-continue". Behind a wrapper it sees none of that, took
		// a failed body for a consumed one and read what followed it as the next request:
		// bytes smuggled inside a body ran as requests of their own.
		limitedReq := *req
		limitedReq.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		c.SetRequest(&limitedReq)
	}
	return next(c)
}
