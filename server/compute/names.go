package compute

import "fmt"

// nameRegex is the real service's name rule, quoted in its messages.
const nameRegex = `(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)`

// checkName applies the name rule to a resource name in a request body.
func checkName(name string) error {
	if name == "" {
		return &Error{Status: 400, Reason: "required", Message: "Required field 'resource.name' not specified", Location: "resource.name"}
	}
	if !validName(name) {
		return mustMatch("resource.name", name, nameRegex)
	}
	return nil
}

// mustMatch is the real service's refusal of a value of field that does not match regex:
// "Invalid value for field 'resource.name': 'BAD'. Must be a match of regex '...'", without
// the value when it is "" (too long or unprintable to quote: validate.Error.Value).
func mustMatch(field, value, regex string) *Error {
	if value == "" {
		return invalidField(field, fmt.Sprintf("Invalid value for field '%s'. Must be a match of regex '%s'", field, regex))
	}
	return invalidField(field, fmt.Sprintf("Invalid value for field '%s': '%s'. Must be a match of regex '%s'", field, value, regex))
}

// validName is ^nameRegex$ spelled out, because every insert checks a name and regexp's
// backtracking matcher is slow at it: 1 to 63 bytes, a lowercase letter first, then
// lowercase letters, digits and dashes, the last not a dash. TestValidNameMatchesRegex
// holds the two together.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '-' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
