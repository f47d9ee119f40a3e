package condition

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// guidShape is what IsGUID accepts, spelled as a regular expression.
var guidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// TestIsGUIDMatchesShape: IsGUID agrees with the 8-4-4-4-12 pattern on GUIDs with one byte
// changed anywhere (to a letter past f, a dash, a non-ASCII byte, a digit), and on other
// lengths.
func TestIsGUIDMatchesShape(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const digits = "0123456789abcdefABCDEF"
	bytes := []byte("0123456789abcdefABCDEFgG-/:@`{\x00\x80\xff")
	for range 100000 {
		b := []byte("00000000-0000-0000-0000-000000000000")
		for i := range b {
			if b[i] != '-' {
				b[i] = digits[r.IntN(len(digits))]
			}
		}
		if r.IntN(4) > 0 {
			b[r.IntN(len(b))] = bytes[r.IntN(len(bytes))]
		}
		s := string(b)
		switch r.IntN(8) {
		case 0:
			s = s[:r.IntN(len(s))]
		case 1:
			s += string(bytes[r.IntN(len(bytes))])
		case 2:
			s = strings.ToUpper(s)
		}
		if got, want := IsGUID(s), guidShape.MatchString(s); got != want {
			t.Fatalf("IsGUID(%q) = %v, want %v", s, got, want)
		}
	}
}
