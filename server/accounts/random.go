package accounts

import (
	"crypto/rand"
	"io"
	"sync"
)

// randomBuffers hold the random bytes drawn for an id between uses: they are handed to an
// io.Reader, so a local buffer would be allocated on the heap every time.
var randomBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64); return &b }}

const alphanumerics = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// random returns n random alphanumerics (about 5.95 bits each), uniformly: bytes that would
// bias the choice are thrown away.
func (s *Server) random(n int) string { return s.randomID("", n) }

// randomID is prefix + s.random(n), built in one allocation.
func (s *Server) randomID(prefix string, n int) string {
	src := s.cfg.Random
	if src == nil {
		src = rand.Reader
	}
	var outArr [96]byte
	out := outArr[:0]
	if len(prefix)+n > len(outArr) {
		out = make([]byte, 0, len(prefix)+n)
	}
	out = append(out, prefix...)
	bp := randomBuffers.Get().(*[]byte)
	defer randomBuffers.Put(bp)
	if cap(*bp) < n+8 {
		*bp = make([]byte, n+8)
	}
	buf := (*bp)[:n+8]
	for len(out)-len(prefix) < n {
		if _, err := io.ReadFull(src, buf); err != nil {
			panic("accounts: no randomness: " + err.Error())
		}
		for _, b := range buf {
			if b < 248 { // 248 = 4*62: keeps the draw uniform
				out = append(out, alphanumerics[b%62])
				if len(out)-len(prefix) == n {
					break
				}
			}
		}
	}
	return string(out)
}
