package authorization

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/internal/condition"
	"github.com/understudy-dev/understudy/server/validate"
)

// Caller is who sent a request.
type Caller struct {
	// PrincipalID is the caller's object id (lower-case GUID).
	PrincipalID string
	// Name is how 403 messages name the client (upn, app id or the object id).
	Name string
	// Type is the systemData identity type: User, Application, ManagedIdentity or Key.
	Type string
	// Tenant is the caller's directory: the tid claim of a JWT (a GUID), else "" (which
	// messages spell defaultTenant).
	Tenant string
}

// defaultTenant is the directory of callers whose token names none (a made-up id).
const defaultTenant = "00000000-0000-0000-0000-0000000000d1"

// Principal is what the seed file maps a bearer token to.
type Principal struct {
	ID   string `yaml:"principalId" json:"principalId"`
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	Type string `yaml:"type,omitempty" json:"type,omitempty"` // User (default), Application, ManagedIdentity or Key
}

// requestKey carries a *requestInfo: what authenticate and checkAPIVersion learn, in one
// context value (one copy of the request, not one per middleware).
type requestKey struct{}

type requestInfo struct {
	caller       Caller
	scheme, host string
	// version is the request's api-version as the API spells it (checkAPIVersion).
	version string
}

// baseURL is where links back to us point: the configured public URL, else the request's
// own scheme and host.
func (s *Server) baseURL(ctx context.Context) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	if info, _ := ctx.Value(requestKey{}).(*requestInfo); info != nil && info.host != "" {
		return info.scheme + "://" + info.host
	}
	return ""
}

func callerFrom(ctx context.Context) Caller {
	if info, _ := ctx.Value(requestKey{}).(*requestInfo); info != nil {
		return info.caller
	}
	return Caller{}
}

// authenticate requires a bearer token and puts the caller into the request context: the
// `oid` claim of a JWT when it is a GUID (signature not checked), else the principal the seed maps the token
// to, else the default principal.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		if h == "" {
			return errAuthenticationMissing()
		}
		scheme, token, ok := strings.Cut(h, " ")
		token = strings.TrimSpace(token)
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			return errAuthenticationInvalid()
		}
		req := c.Request()
		info := &requestInfo{caller: s.callerForToken(token), host: req.Host}
		if s.cfg.PublicURL == "" {
			info.scheme = c.Scheme() // links use it only without a public URL (see baseURL)
		}
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), requestKey{}, info)))
		return next(c)
	}
}

// maxNameClaim bounds the claims that name a caller in 403 messages (upn and the like):
// Entra ID's user principal names are at most 113 characters, app ids are GUIDs.
const maxNameClaim = 256

// callerForToken is who a token says the caller is. Claims are read unverified, so a claim
// counts only when it is plausible: an oid that is a GUID (Entra ID object ids are), a name
// claim that validate.Claim accepts. An implausible oid is treated as a missing one (the
// seed's mapping, else the default principal) and an implausible name claim as a missing
// one (the next name claim, else the oid), so nothing a token makes up is stored as
// createdBy/updatedBy or echoed in a message.
func (s *Server) callerForToken(token string) Caller {
	if claims, ok := jwtClaims(token); ok {
		if oid, _ := claims["oid"].(string); condition.IsGUID(oid) {
			c := Caller{PrincipalID: strings.ToLower(oid), Name: oid, Type: "User"}
			for _, k := range []string{"upn", "unique_name", "preferred_username", "appid", "azp"} {
				if v, _ := claims[k].(string); validate.Claim(v, maxNameClaim) {
					c.Name = v
					break
				}
			}
			if t, _ := claims["idtyp"].(string); strings.EqualFold(t, "app") {
				c.Type = "Application"
			}
			if tid, _ := claims["tid"].(string); condition.IsGUID(tid) {
				c.Tenant = strings.ToLower(tid)
			}
			return c
		}
	}
	if p, ok := s.cfg.Tokens[token]; ok {
		return callerFromPrincipal(p)
	}
	return callerFromPrincipal(Principal{ID: s.cfg.DefaultPrincipal})
}

func callerFromPrincipal(p Principal) Caller {
	c := Caller{PrincipalID: strings.ToLower(p.ID), Name: p.Name, Type: p.Type}
	if c.Name == "" {
		c.Name = p.ID
	}
	if c.Type == "" {
		c.Type = "User"
	}
	return c
}

// jwtClaims decodes the payload of a compact JWT without checking its signature.
func jwtClaims(token string) (map[string]any, bool) {
	if strings.Count(token, ".") != 2 {
		return nil, false
	}
	parts := strings.Split(token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, false
	}
	var claims map[string]any
	if json.Unmarshal(payload, &claims) != nil {
		return nil, false
	}
	return claims, true
}
