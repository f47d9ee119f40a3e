package compute

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
)

type userKey struct{}

// authenticate requires a bearer token (any is accepted; IAM is not enforced) and records
// the caller for Operation.user: the email claim of a JWT, else the default user.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		scheme, token, _ := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return &Error{Status: http.StatusUnauthorized, Reason: "required",
				Message:  "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
				Location: "Authorization", LocationType: gen.GoogleErrorItemLocationTypeHeader}
		}
		user := s.cfg.DefaultUser
		if email := jwtEmail(strings.TrimSpace(token)); email != "" {
			user = email
		}
		req := c.Request()
		ctx := context.WithValue(req.Context(), userKey{}, user)
		ctx = context.WithValue(ctx, baseURLKey{}, c.Scheme()+"://"+req.Host)
		c.SetRequest(req.WithContext(ctx))
		return next(c)
	}
}

func userFrom(ctx context.Context) string {
	u, _ := ctx.Value(userKey{}).(string)
	return u
}

// jwtEmail reads the email claim of a compact JWT without checking its signature.
func jwtEmail(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var claims struct {
		Email string `json:"email"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	return claims.Email
}
