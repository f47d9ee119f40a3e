//go:build !unix

package server

import "net"

func quiet(c net.Conn) net.Conn { return c }

func yielding(net.Conn, bool) {}
