package server

import (
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/authorization"
)

// routeIDs maps "METHOD /echo/path" to the operationId of every operation in specs, so that
// middleware can name the operation a request reached from Echo's matched route.
func routeIDs(specs ...*openapi3.T) map[string]string {
	ids := map[string]string{}
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
				ids[method+" "+echoPath] = op.OperationID
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
	return s.routes[method+" "+path]
}

// setRequestID sets X-Request-Id to a random id (a uint64 in base 36).
func setRequestID(h, _ http.Header) {
	h["X-Request-Id"] = []string{strconv.FormatUint(rand.Uint64(), 36)}
}

// setARMRequestIDs sets the ids ARM answers every request with: x-ms-request-id, a GUID of
// the response's own, and x-ms-correlation-request-id, the client's when it sent a GUID
// there, else the same one. Callers and support tooling quote them.
func setARMRequestIDs(h, req http.Header) {
	id := []string{randomGUID()}
	h["X-Ms-Request-Id"] = id
	if corr := req.Get("X-Ms-Correlation-Request-Id"); len(corr) == 36 && uuid.Validate(corr) == nil {
		h["X-Ms-Correlation-Request-Id"] = []string{corr}
	} else {
		h["X-Ms-Correlation-Request-Id"] = id // one slice for both: nothing appends to either
	}
}

// randomGUID is a random (version 4) GUID in lower case, from the fast generator: it names a
// response, it is not a secret (uuid.New would read crypto/rand for each).
func randomGUID() string {
	var u uuid.UUID
	binary.LittleEndian.PutUint64(u[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(u[8:], rand.Uint64())
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u.String()
}
