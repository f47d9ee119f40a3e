package authorization

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

// rewrite escapes scopes and folds case by hand; it must answer exactly as the same steps
// written with url.PathEscape, strings.Split and strings.LastIndex do.

func rewriteReference(path string) (newPath, newRaw string, ok bool) {
	i := strings.LastIndex(asciiLowerReference(path), asciiLowerReference(providerSegment))
	if i < 0 {
		return "", "", false
	}
	scope := strings.Trim(path[:i], "/")
	rest := strings.Split(path[i+len(providerSegment):], "/")
	if w, known := routeWords[strings.ToLower(rest[0])]; known {
		rest[0] = w
	}
	escaped := make([]string, len(rest))
	for j, s := range rest {
		escaped[j] = url.PathEscape(s)
	}
	suffix := providerSegment + strings.Join(rest, "/")
	rawSuffix := providerSegment + strings.Join(escaped, "/")
	if scope == "" && (rest[0] == "roleAssignments" || rest[0] == "permissions") {
		// The tenant root travels as the scope "/".
		return "//" + suffix, "/%2F" + rawSuffix, true
	}
	if scope == "" {
		return suffix, rawSuffix, true
	}
	return "/" + scope + suffix, "/" + url.PathEscape(scope) + rawSuffix, true
}

func asciiLowerReference(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func checkRouteEquivalence(t *testing.T, path string) {
	t.Helper()
	p, raw, ok := rewrite(path)
	wp, wraw, wok := rewriteReference(path)
	if p != wp || raw != wraw || ok != wok {
		t.Fatalf("rewrite(%q) = %q, %q, %v; want %q, %q, %v", path, p, raw, ok, wp, wraw, wok)
	}
	var escaped strings.Builder
	if writeEscapedScope(&escaped, path); escaped.String() != url.PathEscape(path) {
		t.Fatalf("writeEscapedScope(%q) wrote %q, want %q", path, escaped.String(), url.PathEscape(path))
	}
	if got, want := asciiLower(path), asciiLowerReference(path); got != want {
		t.Fatalf("asciiLower(%q) = %q, want %q", path, got, want)
	}
	for _, w := range []string{"roleAssignments", "roleassignments", strings.ToUpper(path), path} {
		if got, want := asciiEqualFold(path, w), len(path) == len(w) && asciiLowerReference(path) == asciiLowerReference(w); got != want {
			t.Fatalf("asciiEqualFold(%q, %q) = %v", path, w, got)
		}
		if got, want := lastIndexFold(path, w), strings.LastIndex(asciiLowerReference(path), asciiLowerReference(w)); got != want {
			t.Fatalf("lastIndexFold(%q, %q) = %d, want %d", path, w, got, want)
		}
	}
}

func TestRewriteMatchesReference(t *testing.T) {
	fixed := []string{
		"", "/", "//", providerSegment, providerSegment + "roleAssignments", "/x" + providerSegment + "roleassignments/",
		"/subscriptions/s/resourceGroups/rg/providers/Vendor.Authorization/roleAssignments/a",
		"subscriptions/s/providers/Vendor.Authorization/roleAssignments/a",
		"//subscriptions/s//providers/vendor.authorization/ROLEASSIGNMENTS/a/b//",
		"/subscriptions/s/resourceGroups/r g/providers/Vendor.Authorization/roleDefinitions/a b/c%2Fd",
		"/subscriptions/s/providers/Vendor.Authorization/roleAssİgnments/a",
		"/subscriptions/s/providers/Vendor.Authorization/roleAſſignments/a",
		"/a/providers/Vendor.Authorization/x/providers/Vendor.Authorization/roleAssignments",
		"/providers/Vendor.Authorization/roleDefinitions",
	}
	for _, p := range fixed {
		checkRouteEquivalence(t, p)
	}
	pieces := []string{"/", "//", "a", "B", "rg", "subscriptions", "providers", "Vendor.Authorization", "vendor.AUTHORIZATION",
		providerSegment, "/PROVIDERS/Vendor.Authorization/", "roleAssignments", "ROLEDEFINITIONS", "roleassignments",
		" ", "%", "%2F", "?", "#", "İ", "ſ", "K", "é", ".", "..", ";", "+", "~", "$", "@", ":", "=", "&", ",", "!", "*", "'", "\x00", "\x7f"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkRouteEquivalence(t, b.String())
	}
}
