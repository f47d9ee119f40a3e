package authorization

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// routeWords are the fixed words after /providers/Vendor.Authorization/, spelled as the
// routes register them. ARM paths are case-insensitive; Echo's routes are not.
var routeWords = map[string]string{
	"roleassignments": "roleAssignments",
	"roledefinitions": "roleDefinitions",
	"permissions":     "permissions",
	"denyassignments": "denyAssignments",
}

// rootScope is how the tenant root travels as the route's scope segment: "/" escaped. The
// reads of role definitions have tenant-level paths of their own; the rest is served at the
// root through the scope routes.
const rootScope = "%2F"

// OriginalPathKey is the key of the Echo context under which RewritePath keeps the path as
// the client sent it, when it changes it.
const OriginalPathKey = "understudy.path"

// RewritePath is middleware for before routing that lets the generated routes
// (/:scope/providers/Vendor.Authorization/...) serve a scope of many segments.
//
// It splits the path at its LAST /providers/Vendor.Authorization/ (a resource scope may
// itself contain /providers/), makes the scope one %2F-escaped segment and canonicalises
// the case of the fixed words. Echo then routes on the rewritten RawPath and the generated
// binder unescapes the scope again. Scopes sent raw (as ARM clients do) and %2F-escaped (as
// the generated client does) end up the same. Other paths (without the provider) pass
// untouched. It is the authorization API's own pre-routing middleware: it only sees the
// paths that API owns.
func RewritePath(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Request().URL.Path
		if p, raw, ok := rewriteRequest(c.Request().Method, path); ok {
			if p != path {
				c.Set(OriginalPathKey, path)
			}
			c.Request().URL.Path, c.Request().URL.RawPath = p, raw
		}
		return next(c)
	}
}

// rewriteRequest is rewrite, and sends a PUT or DELETE of a role definition at the tenant
// level (/providers/Vendor.Authorization/roleDefinitions/{id}) to the scope routes with the
// root "/" as its scope: custom roles are made and deleted at the root as at any scope. A
// GET there stays on its own route (RoleDefinitions_GetById), which reads every role.
func rewriteRequest(method, path string) (newPath, newRaw string, ok bool) {
	newPath, newRaw, ok = rewrite(path)
	const tenantRoles = providerSegment + "roleDefinitions/"
	if ok && (method == http.MethodPut || method == http.MethodDelete) &&
		strings.HasPrefix(newRaw, tenantRoles) && len(newRaw) > len(tenantRoles) {
		return "//" + newPath, "/" + rootScope + newRaw, true
	}
	return newPath, newRaw, ok
}

// rewrite returns the new Path and RawPath for a decoded request path.
func rewrite(path string) (newPath, newRaw string, ok bool) {
	i := lastIndexFold(path, providerSegment)
	if i < 0 {
		return "", "", false
	}
	scope := strings.Trim(path[:i], "/")
	rest := path[i+len(providerSegment):]
	// The first word after the provider takes the case the routes are registered with.
	word, tail, slash := strings.Cut(rest, "/")
	canonical := word
	if w, known := routeWords[strings.ToLower(word)]; known {
		canonical = w
	}
	sep := ""
	if slash {
		sep = "/"
	}
	if scope == "" && (canonical == routeWords["roleassignments"] || canonical == routeWords["permissions"] || canonical == routeWords["denyassignments"]) {
		// /providers/Vendor.Authorization/roleAssignments/...: the tenant root, "/", as the
		// scope (ARM's clients send the root scope "/" so, or as "//providers/...").
		newPath = "//" + providerSegment + canonical + sep + tail
		var raw strings.Builder
		raw.WriteString("/" + rootScope + providerSegment)
		writeEscapedSegments(&raw, canonical, sep, tail)
		return newPath, raw.String(), true
	}
	// The path only changes where it is not already in its canonical form.
	if canonical == word && path[i:i+len(providerSegment)] == providerSegment &&
		(scope == "" && i == 0 || scope != "" && i == len(scope)+1 && path[0] == '/') {
		newPath = path
	} else if scope == "" {
		newPath = providerSegment + canonical + sep + tail
	} else {
		newPath = "/" + scope + providerSegment + canonical + sep + tail
	}
	// What a client means needs no escape but the scope's slashes.
	var raw strings.Builder
	raw.Grow(1 + len(scope) + 2*strings.Count(scope, "/") + len(providerSegment) + len(canonical) + len(sep) + len(tail))
	if scope != "" {
		raw.WriteByte('/')
		writeEscapedScope(&raw, scope)
	}
	raw.WriteString(providerSegment)
	writeEscapedSegments(&raw, canonical, sep, tail)
	return newPath, raw.String(), true
}

// pathSafe[c] reports whether url.PathEscape leaves the ASCII byte c as it is.
var pathSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := range safe {
		safe[c] = url.PathEscape(string(rune(c))) == string(rune(c))
	}
	return safe
}()

// writeEscapedScope writes url.PathEscape(scope). A scope whose only bytes to escape are its
// slashes (every scope a client means: ids, names, dots and dashes) is written run by run
// between the slashes, rather than through PathEscape's byte-by-byte build, because every
// role-assignment request escapes its scope; any other scope goes through PathEscape.
func writeEscapedScope(b *strings.Builder, scope string) {
	if !pathClean(scope) {
		b.WriteString(url.PathEscape(scope))
		return
	}
	for {
		i := strings.IndexByte(scope, '/')
		if i < 0 {
			b.WriteString(scope)
			return
		}
		b.WriteString(scope[:i])
		b.WriteString("%2F")
		scope = scope[i+1:]
	}
}

// pathClean reports whether every "/"-separated segment of s is as url.PathEscape leaves
// it.
func pathClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '/' && (c >= utf8.RuneSelf || !pathSafe[c]) {
			return false
		}
	}
	return true
}

// writeEscapedSegments writes word+sep+tail with each "/"-separated segment path-escaped
// (word has no "/"), without joining them when none needs escaping.
func writeEscapedSegments(b *strings.Builder, word, sep, tail string) {
	if pathClean(word) && pathClean(tail) {
		b.WriteString(word)
		b.WriteString(sep)
		b.WriteString(tail)
		return
	}
	b.WriteString(escapeSegments(word + sep + tail))
}

// escapeSegments is p with each "/"-separated segment path-escaped, as clients escape a path.
func escapeSegments(p string) string {
	if pathClean(p) {
		return p // the usual path: ids, names, dots and dashes
	}
	parts := strings.Split(p, "/")
	for j, part := range parts {
		parts[j] = url.PathEscape(part)
	}
	return strings.Join(parts, "/")
}

// lastIndexFold is strings.LastIndex ignoring ASCII case. It folds ASCII only, so that byte
// offsets stay those of s whatever else s holds.
func lastIndexFold(s, sub string) int {
	if len(sub) == 0 {
		return len(s)
	}
	// Only where the first byte matches is the rest compared: the words searched for start
	// with a '/', of which a path has a few, and which has no other case to look for.
	first := asciiLowerByte(sub[0])
	if first == asciiUpperByte(first) {
		for i := len(s) - len(sub); i >= 0; i-- {
			if i = strings.LastIndexByte(s[:i+1], first); i < 0 {
				return -1
			}
			if asciiEqualFold(s[i:i+len(sub)], sub) {
				return i
			}
		}
		return -1
	}
	for i := len(s) - len(sub); i >= 0; i-- {
		if asciiLowerByte(s[i]) == first && asciiEqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func asciiUpperByte(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func asciiLowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLower lower-cases the ASCII letters of s and leaves every other byte as it is, so
// that byte offsets stay those of s.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for ; i < len(b); i++ {
				b[i] = asciiLowerByte(b[i])
			}
			return string(b)
		}
	}
	return s
}
