package validate

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// Router registers routes on an Echo instance with their route middleware applied once,
// at registration: Echo v4 applies a route's middleware anew on every request, which
// allocates a closure per middleware per request. Pass it to the generated
// RegisterHandlersWithOptions in place of the Echo instance. The middleware must not keep
// per-request state in the closures they return (none of ours do).
type Router struct{ e *echo.Echo }

// NewRouter returns a Router adding routes to e.
func NewRouter(e *echo.Echo) Router { return Router{e} }

func (r Router) add(method, path string, h echo.HandlerFunc, m []echo.MiddlewareFunc) *echo.Route {
	for i := len(m) - 1; i >= 0; i-- { // as Echo applies them: m[0] outermost
		h = m[i](h)
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

// GET registers a route for GET.
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

// Header is h.Get(key) for a key in canonical form already (net/http keeps request headers
// under canonical keys), which Get would canonicalise again on every call.
func Header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
