package server

import (
	"net"
	"sync/atomic"
)

// Why connections are wrapped (Listener): when a handler has read a request's body to its
// end, net/http starts a goroutine that reads one byte from the connection, to learn early
// if the client goes away; when the handler is done, net/http sets a read deadline in the
// past to stop that read and waits for the goroutine to end. A goroutine that only gets the
// core after the deadline is set returns without a system call. One that runs before (as it
// does while a request yields, see yieldToOthers) makes a read call that finds nothing and
// waits for the connection, to be woken by the deadline: a system call, a wait registered
// with the poller, two deadlines set and the handler's goroutine parked until the read ends,
// for every request that yields.
//
// A request yields only once its handler is done and its response is written: there is
// nothing left to cancel if the client goes away, and a pipelined request is read in its
// turn anyway. So a quiet connection answers a one-byte read made while its request yields
// with nothing at all (0 bytes, no error): net/http's background read ends at once, and
// there is no read left for the deadline to stop. Nothing is read, so nothing is lost: the
// connection's next read sees what the client sent, or that it closed. Every other read is
// the connection's own.

// Listener wraps ln so that its connections are quiet (see above) and answer net/http's own
// errors in the APIs' envelopes (see servedConn). The http.Server must also have
// ConnContext, which tells the connection when its request yields.
func (s *Server) Listener(ln net.Listener) net.Listener { return servedListener{ln, s} }

type servedListener struct {
	net.Listener
	s *Server
}

func (l servedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	return l.s.served(&quietConn{Conn: c}), nil
}

// quietConn is a connection whose one-byte reads return nothing while yielding is set (see
// Listener).
type quietConn struct {
	net.Conn
	yielding atomic.Bool
	skipped  atomic.Uint64 // reads answered with nothing, for tests
}

// yielding marks c, when it is a quiet connection, as yielding or not.
func yielding(c net.Conn, on bool) {
	if qc, ok := c.(*quietConn); ok {
		qc.yielding.Store(on)
	}
}

func (c *quietConn) Read(p []byte) (int, error) {
	if len(p) == 1 && c.yielding.Load() {
		c.skipped.Add(1)
		// io.Reader discourages 0 bytes without an error; net/http's background read,
		// the only one-byte reader, takes it as a read that found nothing and ends.
		return 0, nil
	}
	return c.Conn.Read(p)
}
