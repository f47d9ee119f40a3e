package server

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"

	"github.com/labstack/echo/v4"
)

// Echo v4 applies Pre and Use middleware anew on every request, one closure each: the
// server's own are therefore combined into two, front (Pre) and guard (Use).

// front turns a panic anywhere below it into a 500 in the API's envelope, logged with its
// stack (the server keeps serving), and observes every request (see observed). Then, when
// other connections are open, it yields before net/http sends the response (see
// ConnState).
func (s *Server) front(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer recovered(log, c, &err)
			err = s.observed(c, next)
			if s.conns.Load() > 1 {
				runtime.Gosched()
			}
			return err
		}
	}
}

// ConnState counts open connections; an http.Server serving Handler should call it (its
// ConnState field), or responses are never held back to go out together.
//
// Why responses go out together: a response is written to net/http's buffers and sent when
// the handler returns (all of it, up to about 6 KB; a larger one has partly gone already).
// A client on the same machine that has sent all it can is asleep, and every response wakes
// it: on the 2-core VM of the README, the send then cost 7-9 µs of the server's core (the
// wake-up of the other CPU), a sixth of a rule insert's time. Yielding first lets the other
// requests that are ready run up to the same point, so the responses leave back to back and
// one wake-up serves many. With a single connection there is nobody to wait for, and
// yielding would only let net/http's background read of the connection make a read call
// that finds nothing (about 5 µs). Open connections are counted, busy or idle: a client with
// one busy connection and an idle one in its pool pays that. The yield comes after the
// request is observed, so the durations in the metrics and the log leave it out.
func (s *Server) ConnState(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.conns.Add(-1)
	}
}

// guard applies the admin API's fault rules (see faulted), then the body limit.
func (s *Server) guard(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { return s.faulted(c, limit, next) }
	}
}

// recovered is front's panic handler: it must be deferred directly.
func recovered(log *slog.Logger, c echo.Context, err *error) {
	if r := recover(); r != nil {
		if r == http.ErrAbortHandler {
			panic(r)
		}
		log.Error("panic while serving a request", "method", c.Request().Method, "path", c.Request().URL.Path,
			"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = fmt.Errorf("panic: %v", r)
	}
}

// limited refuses bodies over limit bytes: at once when Content-Length says so, else when
// reading passes the limit (the validator reads the body and reports 413).
func limited(c echo.Context, limit int64, next echo.HandlerFunc) error {
	req := c.Request()
	if req.ContentLength > limit {
		return &http.MaxBytesError{Limit: limit}
	}
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
	}
	return next(c)
}
