package accounts

import (
	"context"
	"strings"

	"github.com/labstack/echo/v4"
)

type requestIDKey struct{}
type baseURLKey struct{}

// assignRequestID gives every response of this API a Request-Id header (req_...), errors
// included, echoes the Idempotency-Key as the real API does, and remembers the request's own
// base URL for links.
func (s *Server) assignRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Request().URL.Path
		if !strings.HasPrefix(path, "/v2/") && !strings.HasPrefix(path, "/r/") {
			return next(c)
		}
		id := "req_" + s.random(14)
		c.Response().Header().Set("Request-Id", id)
		if k := c.Request().Header.Get("Idempotency-Key"); k != "" && c.Request().Method == "POST" {
			c.Response().Header().Set("Idempotency-Key", k)
		}
		req := c.Request()
		ctx := context.WithValue(req.Context(), requestIDKey{}, id)
		ctx = context.WithValue(ctx, baseURLKey{}, c.Scheme()+"://"+req.Host)
		c.SetRequest(req.WithContext(ctx))
		return next(c)
	}
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func (s *Server) baseURL(ctx context.Context) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	b, _ := ctx.Value(baseURLKey{}).(string)
	return b
}
