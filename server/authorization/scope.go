package authorization

import (
	"strings"
)

// Scope is a parsed role-assignment scope.
type Scope struct {
	// Path is the scope as sent, without leading or trailing slashes.
	Path string
	// Key is Path lower-cased: scopes compare case-insensitively, as in ARM.
	Key string
	// Subscription is the lower-cased subscription id, "" for management groups.
	Subscription string
}

// ParseScope checks that raw has one of the shapes ARM accepts:
//
//	subscriptions/{sid}
//	subscriptions/{sid}/resourceGroups/{rg}
//	subscriptions/{sid}/resourceGroups/{rg}/providers/{ns}/{type}/{name}[/{type}/{name}...]
//	providers/Vendor.Management/managementGroups/{id}
//
// A resource may itself be followed by /providers/{ns}/{type}/{name} (an extension resource).
func ParseScope(raw string) (Scope, bool) {
	path := strings.Trim(raw, "/")
	segs := strings.Split(path, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return Scope{}, false
		}
	}
	// Words and keys fold ASCII letters only: Unicode folding would let look-alikes such as
	// U+017F (ſ) pass for "s" in the words while the key kept them apart.
	sc := Scope{Path: path, Key: asciiLower(path)}
	word := func(i int, w string) bool { return i < len(segs) && asciiEqualFold(segs[i], w) }
	switch {
	case word(0, "subscriptions") && len(segs) >= 2:
		sc.Subscription = asciiLower(segs[1])
		rest := segs[2:]
		if len(rest) == 0 {
			return sc, true
		}
		if !asciiEqualFold(rest[0], "resourceGroups") || len(rest) < 2 {
			return Scope{}, false
		}
		if !validResourcePath(rest[2:]) {
			return Scope{}, false
		}
		return sc, true
	case len(segs) == 4 && word(0, "providers") && word(1, "Vendor.Management") && word(2, "managementGroups"):
		return sc, true
	}
	return Scope{}, false
}

// validResourcePath accepts "" or providers/{ns}/{type}/{name} followed by {type}/{name}
// pairs, repeated for extension resources.
func validResourcePath(segs []string) bool {
	for len(segs) > 0 {
		if !asciiEqualFold(segs[0], "providers") || len(segs) < 4 {
			return false
		}
		segs = segs[2:] // providers/{ns}
		pairs := 0
		for len(segs) >= 2 && !asciiEqualFold(segs[0], "providers") {
			segs = segs[2:]
			pairs++
		}
		if pairs == 0 || (len(segs) == 1) {
			return false
		}
	}
	return true
}

// Ancestors returns the keys of every scope above key (its proper prefixes at segment
// boundaries), shortest first.
func Ancestors(key string) []string {
	var out []string
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			out = append(out, key[:i])
		}
	}
	return out
}

// Covers reports whether an assignment at scope key a applies at scope key s: a is s or
// one of its ancestors.
func Covers(a, s string) bool {
	return a == s || (strings.HasPrefix(s, a) && len(s) > len(a) && s[len(a)] == '/')
}

// asciiEqualFold is strings.EqualFold for ASCII letters only.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if asciiLowerByte(a[i]) != asciiLowerByte(b[i]) {
			return false
		}
	}
	return true
}
