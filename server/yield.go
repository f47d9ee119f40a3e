package server

import (
	"context"
	"net"
	"runtime"
	"sync/atomic"
)

// Why responses are held back to go out together: a response is written to net/http's
// buffers and sent when the handler returns (all of it up to about 6 KB; a larger one has
// partly gone already). A client on the same machine that has sent all it can is asleep,
// and every response wakes it: on the 2-core VM of the README, the send then cost 7-9 µs
// of the server's core (the wake-up of the other CPU), a sixth of a rule insert's time.
// Yielding before the send lets the other requests that are ready run up to the same point,
// so the responses leave back to back and one wake-up serves many.
//
// A yield only helps when other clients' requests are being served; otherwise it costs
// about 5 µs (on a connection that is not quiet, see Listener, it also lets net/http's
// background read of the connection make a read call that finds nothing), and during a
// garbage collection it hands the core to the collector before the response goes. So a
// request yields only when responses were sent on other connections since the previous
// response on its own: true of every connection of a load generator, and never of a client
// making one request at a time, even with idle connections in its pool.

// connKey is the context key of a connection's activity (see ConnContext).
type connKey struct{}

// connActivity is what yieldToOthers remembers of one connection.
type connActivity struct {
	last atomic.Uint64 // the server's count of responses after this connection's previous one
	conn net.Conn      // the connection, quiet while its request yields (see Listener)
}

// ConnContext gives each connection a record of its activity; an http.Server serving
// Handler should have it as its ConnContext, or responses are never held back to go out
// together.
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if sc, ok := c.(*servedConn); ok {
		c = sc.Conn // the quiet connection, if it is one
	}
	return context.WithValue(ctx, connKey{}, &connActivity{conn: c})
}

// yieldToOthers yields when responses went out on other connections since the previous
// one on this request's connection. The durations that observation records leave it out.
// It must be called only once the handler is done and its response written: while it
// yields, the connection answers net/http's background read with nothing (see Listener),
// which would hide a client going away from a handler still at work.
func (s *Server) yieldToOthers(ctx context.Context) {
	conn, ok := ctx.Value(connKey{}).(*connActivity)
	if !ok {
		return
	}
	n := s.watch.Answered()
	if prev := conn.last.Swap(n); n-prev > 1 {
		s.yields.Add(1)
		yielding(conn.conn, true)
		runtime.Gosched()
		yielding(conn.conn, false)
	}
}
