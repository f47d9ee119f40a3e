package authorization

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/labstack/echo/v4"
)

// Caller is who sent a request.
type Caller struct {
	// PrincipalID is the caller's object id (lower-case GUID).
	PrincipalID string
	// Name is how 403 messages name the client (upn, app id or the object id).
	Name string
	// Type is the systemData identity type: User, Application, ManagedIdentity or Key.
	Type string
}

// Principal is what the seed file maps a bearer token to.
type Principal struct {
	ID   string `yaml:"principalId"`
	Name string `yaml:"name"`
	Type string `yaml:"type"` // User (default), Application, ManagedIdentity or Key
}

type callerKey struct{}

type baseURLKey struct{}

// baseURL is where links back to us point: the configured public URL, else the request's
// own scheme and host.
func (s *Server) baseURL(ctx context.Context) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	b, _ := ctx.Value(baseURLKey{}).(string)
	return b
}

func withCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

func callerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// authenticate requires a bearer token and puts the caller into the request context: the
// `oid` claim of a JWT (signature not checked), else the principal the seed maps the token
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
		caller := s.callerForToken(token)
		req := c.Request()
		ctx := withCaller(req.Context(), caller)
		ctx = context.WithValue(ctx, baseURLKey{}, c.Scheme()+"://"+req.Host)
		c.SetRequest(req.WithContext(ctx))
		return next(c)
	}
}

func (s *Server) callerForToken(token string) Caller {
	if claims, ok := jwtClaims(token); ok {
		if oid, _ := claims["oid"].(string); oid != "" {
			c := Caller{PrincipalID: strings.ToLower(oid), Name: oid, Type: "User"}
			for _, k := range []string{"upn", "unique_name", "preferred_username", "appid", "azp"} {
				if v, _ := claims[k].(string); v != "" {
					c.Name = v
					break
				}
			}
			if t, _ := claims["idtyp"].(string); strings.EqualFold(t, "app") {
				c.Type = "Application"
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
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false
	}
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
