package authorization

import (
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// routeWords are the fixed words after /providers/Vendor.Authorization/, spelled as the
// routes register them. ARM paths are case-insensitive; Echo's routes are not.
var routeWords = map[string]string{
	"roleassignments": "roleAssignments",
	"roledefinitions": "roleDefinitions",
}

// RewritePath is Echo Pre middleware that lets the generated routes
// (/:scope/providers/Vendor.Authorization/...) serve a scope of many segments.
//
// It splits the path at its LAST /providers/Vendor.Authorization/ (a resource scope may
// itself contain /providers/), makes the scope one %2F-escaped segment and canonicalises
// the case of the fixed words. Echo then routes on the rewritten RawPath and the generated
// binder unescapes the scope again. Scopes sent raw (as ARM clients do) and %2F-escaped (as
// the generated client does) end up the same. Other paths pass untouched.
func (s *Server) RewritePath(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Request().URL.Path
		for _, p := range s.cfg.OtherPrefixes {
			if strings.HasPrefix(path, p) {
				return next(c) // another API's path: theirs to answer, 404 included
			}
		}
		if p, raw, ok := rewrite(path); ok {
			c.Request().URL.Path, c.Request().URL.RawPath = p, raw
		}
		return next(c)
	}
}

// rewrite returns the new Path and RawPath for a decoded request path.
func rewrite(path string) (newPath, newRaw string, ok bool) {
	i := lastIndexFold(path, providerSegment)
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
	if scope == "" {
		return suffix, rawSuffix, true
	}
	return "/" + scope + suffix, "/" + url.PathEscape(scope) + rawSuffix, true
}

// lastIndexFold is strings.LastIndex ignoring ASCII case. It folds ASCII only, so that byte
// offsets stay those of s whatever else s holds.
func lastIndexFold(s, sub string) int {
	return strings.LastIndex(asciiLower(s), asciiLower(sub))
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
