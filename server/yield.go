package server

import (
	"context"
	"net"
	"runtime"
	"sync/atomic"

	"github.com/labstack/echo/v4"
)

// Why a request yields once its response is written, before net/http sends it: a client on
// the same machine that has sent all it can is asleep, and every response wakes it, on a
// core that other requests were using. Yielding lets the other requests that are ready run
// up to the same point, so the responses leave back to back and one wake-up serves many.
//
// A yield only helps when other connections' requests are being served; otherwise it only
// delays the response. So a request yields only when responses went out on other connections
// since the previous response on its own: true of every connection of a load generator,
// never of a client making one request at a time, even with idle connections in its pool.

// connKey is the context key of a connection's activity (see ConnContext).
type connKey struct{}

// connActivity is the server's count of responses after the connection's previous one.
type connActivity struct{ last atomic.Uint64 }

// ConnContext gives each connection a record of its activity, from the responses sent so
// far (its first request yields only if others are answered meanwhile); an http.Server
// serving Handler should have it as its ConnContext, or requests never yield.
func (s *Server) ConnContext(ctx context.Context, _ net.Conn) context.Context {
	a := &connActivity{}
	a.last.Store(s.answered.Load())
	return context.WithValue(ctx, connKey{}, a)
}

// yieldToOthers runs the request, then yields if responses went out on other connections
// since the previous one on this request's connection (see above). It is the outermost
// middleware: the response (an error's too, rendered by observe) is written by then, and
// only net/http's send is left.
func (s *Server) yieldToOthers(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		conn, ok := c.Request().Context().Value(connKey{}).(*connActivity)
		if !ok {
			return err
		}
		n := s.answered.Add(1)
		if prev := conn.last.Swap(n); n-prev > 1 {
			s.yields.Add(1)
			runtime.Gosched()
		}
		return err
	}
}
