package accounts

import (
	"crypto/rand"
	"io"
)

const alphanumerics = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// random returns n random alphanumerics (about 5.95 bits each), uniformly: bytes that would
// bias the choice are thrown away.
func (s *Server) random(n int) string { return s.randomID("", n) }

// randomID is prefix + s.random(n).
func (s *Server) randomID(prefix string, n int) string {
	src := s.cfg.Random
	if src == nil {
		src = rand.Reader
	}
	out := make([]byte, 0, len(prefix)+n)
	out = append(out, prefix...)
	buf := make([]byte, n+8)
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
