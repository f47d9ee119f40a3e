// Package ascii answers, eight bytes at a time, whether a string is lower-case ASCII, the
// usual form of the ids and keys the servers lower-case on every request (GUIDs, scopes),
// so that lower-casing one costs a pass of a few instructions per eight bytes rather than
// strings.ToLower's per-byte Unicode checks.
package ascii

import "strings"

// IsLower reports whether s is ASCII without an upper-case letter, so that
// strings.ToLower(s) == s.
func IsLower(s string) bool {
	for ; len(s) >= 8; s = s[8:] {
		w := s[:8] // constant indexes into eight bytes: one load, no bounds checks
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if x&highBits != 0 || upper(x) != 0 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

const highBits = 0x8080808080808080

// upper has the high bit of each byte of x that is an ASCII upper-case letter set, for x
// of ASCII bytes: a byte plus 0x3f reaches 0x80 from 'A' on, plus 0x25 from past 'Z' on,
// and neither carries into the next byte.
func upper(x uint64) uint64 {
	return (x + 0x3f3f3f3f3f3f3f3f) &^ (x + 0x2525252525252525) & highBits
}

// Lower is strings.ToLower(s), which returns s at once when IsLower(s).
func Lower(s string) string {
	if IsLower(s) {
		return s
	}
	return strings.ToLower(s)
}
