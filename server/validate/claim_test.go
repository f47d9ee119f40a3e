package validate

import (
	"strings"
	"testing"
)

func TestClaim(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"someone@example.com", true},
		{"Zoë Müller", true},
		{"app-1", true},
		{strings.Repeat("a", 256), true},
		{strings.Repeat("a", 257), false},
		{"", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"a\tb", false},
		{"a\x7fb", false},
		{"a\u0085b", false},
		{"a\u202eb", false},
		{"a\ufffdb", false},
		{"a\xffb", false},
	} {
		if got := Claim(tt.s, 256); got != tt.want {
			t.Errorf("Claim(%q, 256) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
