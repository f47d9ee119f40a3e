package server

import "net"

// Why connections are wrapped (Listener): when a handler has read a request's body to its
// end, net/http starts a goroutine that reads one byte from the connection, to learn early
// if the client goes away; when the handler is done, net/http sets a read deadline in the
// past to stop that read. A goroutine that only gets the core after the deadline is set
// returns without a system call. One that runs before (as it does while a request yields,
// see yieldToOthers) makes a read call that finds nothing and then waits for the
// connection: a system call, and the wait registered, for every request that yields.
//
// A quiet connection serves that one-byte read, while its request is yielding, by waiting
// for the connection to become readable first and reading only then: the read call is made
// only if something arrives (a client closing, or a pipelined request), and the deadline
// ends the wait as it ended the read. Every other read is the connection's own.

// Listener wraps ln so that its TCP connections are quiet (see above) and answer net/http's
// own errors in the APIs' envelopes (see servedConn). The http.Server must also have
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
	return l.s.served(quiet(c)), nil
}
