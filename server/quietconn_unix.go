//go:build unix

package server

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
)

// quietConn is a TCP connection whose one-byte reads wait for the connection to be
// readable before reading while yielding is set (see Listener).
type quietConn struct {
	*net.TCPConn
	raw      syscall.RawConn
	yielding atomic.Bool
	waits    atomic.Uint64 // reads that waited first, for tests
}

func quiet(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	return &quietConn{TCPConn: tc, raw: raw}
}

// yielding marks c, when it is a quiet connection, as yielding or not.
func yielding(c net.Conn, on bool) {
	if qc, ok := c.(*quietConn); ok {
		qc.yielding.Store(on)
	}
}

func (c *quietConn) Read(p []byte) (int, error) {
	if len(p) != 1 || !c.yielding.Load() {
		return c.TCPConn.Read(p)
	}
	var (
		n       int
		readErr error
		waited  bool
	)
	err := c.raw.Read(func(fd uintptr) bool {
		if !waited {
			waited = true
			c.waits.Add(1)
			return false // wait to be readable first
		}
		for {
			n, readErr = syscall.Read(int(fd), p)
			if readErr != syscall.EINTR {
				return readErr != syscall.EAGAIN
			}
		}
	})
	switch {
	case err != nil: // the deadline, or the connection closed
		return 0, err
	case readErr != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("read", readErr)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
