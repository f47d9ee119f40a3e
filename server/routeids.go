package server

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/authorization"
)

// route is an operation's method and path as Echo routes it (/a/:name): a map key looked up
// per request with no string built for it.
type route struct{ method, path string }

// routeIDs maps the method and Echo path of every operation in specs to its operationId, so
// that middleware can name the operation a request reached from Echo's matched route.
func routeIDs(specs ...*openapi3.T) map[route]string {
	ids := map[route]string{}
	for _, spec := range specs {
		for path, item := range spec.Paths.Map() {
			echoPath := path
			for {
				i := strings.IndexByte(echoPath, '{')
				j := strings.IndexByte(echoPath, '}')
				if i < 0 || j < i {
					break
				}
				echoPath = echoPath[:i] + ":" + echoPath[i+1:j] + echoPath[j+1:]
			}
			for method, op := range item.Operations() {
				ids[route{method, echoPath}] = op.OperationID
			}
		}
	}
	return ids
}

// requestPath is the path as the client sent it, before the authorization API's rewriting
// (which keeps the original when it changes it): which API owns a request is decided on
// that path.
func requestPath(c echo.Context) string {
	if p, ok := c.Get(authorization.OriginalPathKey).(string); ok {
		return p
	}
	return c.Request().URL.Path
}

// operationID names the operation Echo routed a request to (a HEAD is answered by its GET).
func (s *Server) operationID(method, path string) string {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	return s.routes[route{method, path}]
}
