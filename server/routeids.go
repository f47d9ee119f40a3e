package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/validate"
)

// route is an operation's method and path as Echo routes it (/a/:name): a map key looked up
// per request with no string built for it.
type route struct{ method, path string }

// routeIDs maps the method and Echo path of every operation in lists to its operationId,
// so that middleware can name the operation a request reached from Echo's matched route.
func routeIDs(lists ...[]validate.Operation) map[route]string {
	ids := map[route]string{}
	for _, ops := range lists {
		for _, op := range ops {
			echoPath := op.Path
			for {
				i := strings.IndexByte(echoPath, '{')
				j := strings.IndexByte(echoPath, '}')
				if i < 0 || j < i {
					break
				}
				echoPath = echoPath[:i] + ":" + echoPath[i+1:j] + echoPath[j+1:]
			}
			ids[route{op.Method, echoPath}] = op.ID
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
