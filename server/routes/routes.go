// Package routes registers an API's generated routes on Echo: pass a Router to the
// generated RegisterHandlersWithOptions in place of the Echo instance.
//
// Three things differ from registering on Echo directly. Every GET route also answers HEAD,
// as GET without the body (RFC 9110 section 9.3.2; net/http sends the headers only), except
// the paths New is told to leave GET-only. A route's middleware is applied once, when it is registered:
// Echo v4 applies it anew on every request, allocating a closure per middleware. The
// middleware must not keep per-request state in the closures they return (none of ours do).
// And a path parameter followed by text in its segment, as OpenAPI allows
// (/specs/{api}.yaml, which the generated code registers as /specs/:api.yaml), is routed
// as the parameter's whole segment, the text cut off its value: Echo would take the
// parameter's name to be "api.yaml" and its value to be the segment, text and all.
package routes

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Router adds routes to an Echo instance.
type Router struct {
	e *echo.Echo
	// getOnly reports the GET paths that do not answer HEAD (nil: none).
	getOnly func(path string) bool
}

// New returns a Router adding routes to e; GET routes whose path (as the generated code
// registers it, e.g. /r/:account/:token) getOnly reports, when it is not nil, do not
// answer HEAD.
func New(e *echo.Echo, getOnly func(path string) bool) Router { return Router{e: e, getOnly: getOnly} }

func (r Router) add(method, path string, h echo.HandlerFunc, m []echo.MiddlewareFunc) *echo.Route {
	for i := len(m) - 1; i >= 0; i-- { // as Echo applies them: m[0] outermost
		h = m[i](h)
	}
	path, h = suffixed(path, h)
	if method == http.MethodGet && (r.getOnly == nil || !r.getOnly(path)) {
		r.e.Add(http.MethodHead, path, h)
	}
	return r.e.Add(method, path, h)
}

// CONNECT registers a route for CONNECT.
func (r Router) CONNECT(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodConnect, path, h, m)
}

// DELETE registers a route for DELETE.
func (r Router) DELETE(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodDelete, path, h, m)
}

// GET registers a route for GET, and for HEAD unless its path is one of the Router's
// GET-only paths.
func (r Router) GET(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodGet, path, h, m)
}

// HEAD registers a route for HEAD.
func (r Router) HEAD(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodHead, path, h, m)
}

// OPTIONS registers a route for OPTIONS.
func (r Router) OPTIONS(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodOptions, path, h, m)
}

// PATCH registers a route for PATCH.
func (r Router) PATCH(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPatch, path, h, m)
}

// POST registers a route for POST.
func (r Router) POST(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPost, path, h, m)
}

// PUT registers a route for PUT.
func (r Router) PUT(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPut, path, h, m)
}

// TRACE registers a route for TRACE.
func (r Router) TRACE(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodTrace, path, h, m)
}

// suffixed finds the parameters of path that text follows in their segment (":api.yaml"):
// it returns the path with each such parameter alone in its segment (":api") and h behind
// a check that each one's value ends with its text, cut off before h sees the value. A
// value without it is not this route's: 404, as for any path no route has.
func suffixed(path string, h echo.HandlerFunc) (string, echo.HandlerFunc) {
	segments := strings.Split(path, "/")
	suffixes := map[int]string{} // parameter index -> its text
	param := 0
	for i, seg := range segments {
		if !strings.HasPrefix(seg, ":") && !strings.HasPrefix(seg, "*") {
			continue
		}
		end := 1
		for end < len(seg) && isNameByte(seg[end]) {
			end++
		}
		if end < len(seg) {
			suffixes[param] = seg[end:]
			segments[i] = seg[:end]
		}
		param++
	}
	if len(suffixes) == 0 {
		return path, h
	}
	return strings.Join(segments, "/"), func(c echo.Context) error {
		values := append([]string(nil), c.ParamValues()...)
		for i, suffix := range suffixes {
			if i >= len(values) {
				return echo.ErrNotFound
			}
			v, ok := strings.CutSuffix(values[i], suffix)
			if !ok || v == "" {
				return echo.ErrNotFound
			}
			values[i] = v
		}
		c.SetParamValues(values...)
		return h(c)
	}
}

// isNameByte reports whether b may be part of a parameter's name, as the specs name them.
func isNameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}
