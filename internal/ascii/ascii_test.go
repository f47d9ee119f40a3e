package ascii

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLowerMatchesStrings: IsLower and Lower answer as strings.ToLower does, for strings of
// every length up to a few words made of bytes around the letters' edges, other ASCII and
// UTF-8 (valid or not), at every offset within a word.
func TestLowerMatchesStrings(t *testing.T) {
	pieces := []string{"a", "z", "A", "Z", "@", "[", "`", "{", "0", "-", "\x00", "\x7f", "é", "É", "İ", "K", "\xff", "ab12-cd"}
	r := rand.New(rand.NewPCG(1, 1))
	for range 200000 {
		var b strings.Builder
		for k := r.IntN(24); k > 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		want := strings.ToLower(s)
		if got := Lower(s); got != want {
			t.Fatalf("Lower(%q) = %q, want %q", s, got, want)
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < 0x80
		}
		if got, want := IsLower(s), ascii && want == s; got != want {
			t.Fatalf("IsLower(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestUpperEveryByte: upper marks exactly the upper-case letters, whatever the bytes
// beside them.
func TestUpperEveryByte(t *testing.T) {
	for c := range 0x80 {
		for _, fill := range []byte{0, 'A', 'Z', 0x7f} {
			x := uint64(0)
			for i := range 8 {
				b := uint64(fill)
				if i == 3 {
					b = uint64(c)
				}
				x |= b << (8 * i)
			}
			isUpper := 'A' <= c && c <= 'Z'
			if got := upper(x)>>(8*3+7)&1 == 1; got != isUpper {
				t.Fatalf("upper marks %q beside %q: %v", rune(c), rune(fill), got)
			}
		}
	}
}

func BenchmarkLowerGUID(b *testing.B) {
	const guid = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	for b.Loop() {
		_ = Lower(guid)
	}
}

func BenchmarkToLowerGUID(b *testing.B) {
	const guid = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	for b.Loop() {
		_ = strings.ToLower(guid)
	}
}
