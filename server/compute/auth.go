package compute

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/mail"
	"strings"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/server/validate"
)

// authenticate requires a bearer token (any is accepted; IAM is not enforced) and records
// the caller for Operation.user: the email claim of a JWT when it is a plausible address
// (plausibleEmail), else the default user.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		scheme, token, _ := strings.Cut(c.Request().Header.Get(echo.HeaderAuthorization), " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			// Google's front end's answer, with its challenge.
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
			return &Error{Status: http.StatusUnauthorized, Reason: "required",
				Message:     "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
				ItemMessage: "Login Required.", Canonical: "UNAUTHENTICATED",
				Location: "Authorization", LocationType: gen.GoogleErrorItemLocationTypeHeader}
		}
		user := s.cfg.DefaultUser
		if email := jwtEmail(strings.TrimSpace(token)); email != "" {
			user = email
		}
		req := c.Request()
		info := &requestInfo{user: user, host: req.Host}
		if s.cfg.PublicURL == "" {
			info.scheme = c.Scheme() // links use it only without a public URL (see link)
		}
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), requestKey{}, info)))
		return next(c)
	}
}

// requestKey carries a *requestInfo: what authenticate learns, in one context value.
type requestKey struct{}

type requestInfo struct {
	user         string
	scheme, host string
}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(requestKey{}).(*requestInfo)
	return info
}

func userFrom(ctx context.Context) string {
	if info := infoFrom(ctx); info != nil {
		return info.user
	}
	return ""
}

// jwtEmail reads the email claim of a compact JWT without checking its signature, "" when
// there is none or it is not plausible (plausibleEmail).
func jwtEmail(token string) string {
	if strings.Count(token, ".") != 2 {
		return ""
	}
	parts := strings.Split(token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var claims struct {
		Email string `json:"email"`
	}
	if json.Unmarshal(payload, &claims) != nil || !plausibleEmail(claims.Email) {
		return ""
	}
	return claims.Email
}

// maxEmail is the longest address SMTP can carry (RFC 5321's 256-octet path less its angle
// brackets).
const maxEmail = 254

// plausibleEmail reports whether an email claim, read unverified, may be recorded as
// Operation.user: a bare address (no display name, no angle brackets) that net/mail parses,
// at most maxEmail bytes, of characters validate.Claim accepts. Any other claim is ignored
// and the default user recorded, as when the token has no email claim.
func plausibleEmail(s string) bool {
	if !validate.Claim(s, maxEmail) {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}
