package condition

import (
	"strings"
	"time"

	"github.com/google/uuid"
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

// IsGUID reports whether s has the 8-4-4-4-12 hexadecimal GUID shape (either case), the
// only one of the forms uuid.Validate accepts that the services take.
func IsGUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}
