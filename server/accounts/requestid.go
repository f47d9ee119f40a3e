package accounts

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// requestKey carries a *requestInfo: what AssignRequestID learns, in one context value.
type requestKey struct{}

type requestInfo struct {
	id           string
	scheme, host string
	// api says the request is an API request (/v2/), which events name as their reason,
	// with its Idempotency-Key; the hosted flow's are not.
	api            bool
	idempotencyKey string
	// method and path are the request's: the endpoint an Idempotency-Key is bound to.
	method, path string
}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(requestKey{}).(*requestInfo)
	return info
}

// requestBaseURL is the request's own scheme and host ("" outside a request).
func requestBaseURL(ctx context.Context) string {
	if info := infoFrom(ctx); info != nil {
		return info.scheme + "://" + info.host
	}
	return ""
}

// AssignRequestID gives every response of this API a Request-Id header (req_...), errors
// included (not found among them, so it runs before routing on the API's own Echo
// instance), echoes the Idempotency-Key of a POST or DELETE as the real API does, and
// remembers the request's own base URL for links.
func (s *Server) AssignRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Request().URL.Path
		id := s.requestIDValue()
		c.Response().Header().Set("Request-Id", id)
		req := c.Request()
		idempotent := req.Method == http.MethodPost || req.Method == http.MethodDelete
		if k := req.Header.Get("Idempotency-Key"); k != "" && idempotent {
			c.Response().Header().Set("Idempotency-Key", k)
		}
		info := &requestInfo{id: id, host: req.Host, api: strings.HasPrefix(path, "/v2/"), method: req.Method, path: path}
		if idempotent {
			info.idempotencyKey = req.Header.Get("Idempotency-Key")
		}
		if s.cfg.PublicURL == "" {
			info.scheme = c.Scheme() // links use it only without a public URL (see baseURL)
		}
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), requestKey{}, info)))
		return next(c)
	}
}

// requestIDValue is a new Request-Id: req_ and 14 random alphanumerics. An id names a
// request in logs and support tickets and guards nothing, so it is drawn from math/rand's
// generator rather than crypto/rand, which it does not need; a configured Random source
// (tests) is used for ids as for secrets.
func (s *Server) requestIDValue() string {
	if s.cfg.Random != nil {
		return s.randomID("req_", 14)
	}
	var b [len("req_") + 14]byte
	copy(b[:], "req_")
	for i := len("req_"); i < len(b); i++ {
		b[i] = alphanumerics[rand.IntN(len(alphanumerics))]
	}
	return string(b[:])
}

func requestID(ctx context.Context) string {
	if info := infoFrom(ctx); info != nil {
		return info.id
	}
	return ""
}

func (s *Server) baseURL(ctx context.Context) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	return requestBaseURL(ctx)
}
