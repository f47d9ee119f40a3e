package validate

import (
	"unicode"
	"unicode/utf8"
)

// Claim reports whether s, a claim read from a bearer token whose signature nobody checks,
// is plausible enough to record as who the caller is: not empty, at most max bytes, valid
// UTF-8 without U+FFFD (what invalid UTF-8 in the token's JSON decodes to), control
// characters (Cc) or invisible format characters (Cf, such as U+202E). A claim that is not
// is ignored, as if the token did not carry it.
func Claim(s string, max int) bool {
	if s == "" || len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= utf8.RuneSelf && (r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf)) {
			return false
		}
	}
	return true
}
