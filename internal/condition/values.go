package condition

import (
	"strings"
	"time"
)

// isDateTime reports whether s is an RFC 3339 date-time. RFC 3339 allows
// "t" and "z" in lower case; the time package does not.
func isDateTime(s string) bool {
	upper := strings.Map(func(r rune) rune {
		switch r {
		case 't':
			return 'T'
		case 'z':
			return 'Z'
		}
		return r
	}, s)
	_, err := time.Parse(time.RFC3339Nano, upper)
	return err == nil
}

// isNumber reports whether s is [+-]digits[.digits].
func isNumber(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	return allDigits(intPart) && (!hasFrac || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsGUID reports whether s has the 8-4-4-4-12 hexadecimal GUID shape (either case). The
// authorization API checks its ids with it too, three or more per request: the dashes are
// checked where they belong and every other byte with one table lookup, rather than
// switching on the position of each byte.
func IsGUID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	h := hexDigit[s[0]] & hexDigit[s[1]] & hexDigit[s[2]] & hexDigit[s[3]] &
		hexDigit[s[4]] & hexDigit[s[5]] & hexDigit[s[6]] & hexDigit[s[7]] &
		hexDigit[s[9]] & hexDigit[s[10]] & hexDigit[s[11]] & hexDigit[s[12]] &
		hexDigit[s[14]] & hexDigit[s[15]] & hexDigit[s[16]] & hexDigit[s[17]] &
		hexDigit[s[19]] & hexDigit[s[20]] & hexDigit[s[21]] & hexDigit[s[22]]
	for _, c := range []byte(s[24:36]) {
		h &= hexDigit[c]
	}
	return h == 1
}

// hexDigit[c] is 1 for the hexadecimal digits, either case.
var hexDigit = func() (t [256]byte) {
	for c := range t {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			t[c] = 1
		}
	}
	return t
}()
