package accounts

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// platform is a platform as the server uses it.
type platform struct {
	id          string
	accountsV2  bool
	concurrency int // 0: the server's default
}

// apiKeyPrefixes are the prefixes of the keys the API takes: secret keys and restricted
// keys, of test or live mode. The real API lets a restricted key do what its permissions
// allow; understudy keeps no permissions, so a restricted key may do what a secret key may.
var apiKeyPrefixes = []string{"sk_test_", "sk_live_", "rk_test_", "rk_live_"}

// isAPIKey says whether key starts as a secret or restricted key does.
func isAPIKey(key string) bool {
	for _, p := range apiKeyPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// isPublishableKey says whether key has the shape of a publishable key:
// ^pk_(test|live)_[A-Za-z0-9]+$.
func isPublishableKey(key string) bool {
	return isDefaultKey("sk"+strings.TrimPrefix(key, "pk")) && strings.HasPrefix(key, "pk_")
}

// isLiveKey says whether key is of live mode (sk_live_, rk_live_, pk_live_).
func isLiveKey(key string) bool { return strings.HasPrefix(key[min(len(key), 2):], "_live_") }

// isDefaultKey reports whether key has the shape of the keys that belong to the default
// platform out of the box: ^[sr]k_(test|live)_[A-Za-z0-9]+$ (TestIsDefaultKey), checked by
// hand rather than by regexp because every request with such a key checks it.
func isDefaultKey(key string) bool {
	var rest string
	ok := false
	for _, p := range apiKeyPrefixes {
		if r, found := strings.CutPrefix(key, p); found {
			rest, ok = r, true
			break
		}
	}
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func (s *Server) loadPlatforms() error {
	s.platforms = map[string]*platform{DefaultPlatformID: {id: DefaultPlatformID, accountsV2: true}}
	s.keys = map[string]*platform{}
	for i, p := range s.cfg.Platforms {
		if p.ID == "" {
			return &SeedError{Collection: SeedPlatforms, Index: i, Field: "id", Err: errors.New("id is required")}
		}
		if _, dup := s.platforms[p.ID]; dup {
			return &SeedError{Collection: SeedPlatforms, Index: i, Field: "id", Err: fmt.Errorf("platform %q is declared twice", p.ID)}
		}
		pl := &platform{id: p.ID, accountsV2: p.AccountsV2 == nil || *p.AccountsV2, concurrency: p.AccountConcurrency}
		s.platforms[p.ID] = pl
		for _, k := range p.Keys {
			if !isAPIKey(k) && !strings.HasPrefix(k, "pk_test_") && !strings.HasPrefix(k, "pk_live_") {
				return &SeedError{Collection: SeedPlatforms, Index: i, Field: "keys", Err: fmt.Errorf("key %s is not a secret, restricted or publishable key (sk_test_..., sk_live_..., rk_test_..., rk_live_..., pk_test_..., pk_live_...)", maskKey(k))}
			}
			if _, dup := s.keys[k]; dup {
				return &SeedError{Collection: SeedPlatforms, Index: i, Field: "keys", Err: fmt.Errorf("key %s belongs to two platforms", maskKey(k))}
			}
			s.keys[k] = pl
		}
	}
	return nil
}

// caller is the platform and mode a request acts in, from its key.
type caller struct {
	platform *platform
	livemode bool
	// publishable says the key is a publishable one (pk_), taken only to make tokens.
	publishable bool
}

func (c caller) scope() string {
	if c.livemode {
		return c.platform.id + "|live"
	}
	return c.platform.id + "|test"
}

type callerKey struct{}

func callerFrom(ctx context.Context) caller {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c
}

// publishableOperations are the operations a publishable key (pk_test_, pk_live_) may
// call: the real API lets the browser tokenize account and person details with it, and
// refuses it everywhere else.
var publishableOperations = []string{"createAccountToken", "createPersonToken"}

// authenticate maps the bearer key to its platform and mode; a publishable key is taken
// only where publishableOK says so. Keys are never logged and error messages show them
// masked.
func (s *Server) authenticate(publishableOK bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return s.authenticated(publishableOK, next)
	}
}

func (s *Server) authenticated(publishableOK bool, next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header.Get(echo.HeaderAuthorization)
		scheme, key, _ := strings.Cut(h, " ")
		key = strings.TrimSpace(key)
		if h == "" || (strings.EqualFold(scheme, "Bearer") && key == "") {
			return invalidRequest(http.StatusUnauthorized, "", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').")
		}
		if !strings.EqualFold(scheme, "Bearer") {
			return invalidRequest(http.StatusUnauthorized, "", "Invalid Authorization header: use Bearer auth with a secret key (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').")
		}
		p, ok := s.keys[key]
		if !ok && (isDefaultKey(key) || isPublishableKey(key)) {
			p, ok = s.platforms[DefaultPlatformID], true
		}
		if !ok {
			return invalidRequest(http.StatusUnauthorized, "", "Invalid API Key provided: %s", maskKey(key))
		}
		publishable := strings.HasPrefix(key, "pk_")
		if publishable && !publishableOK {
			return invalidRequest(http.StatusUnauthorized, "", "This API call cannot be made with a publishable API key. Please use a secret API key.")
		}
		req := c.Request()
		ctx := context.WithValue(req.Context(), callerKey{}, caller{platform: p, livemode: isLiveKey(key), publishable: publishable})
		c.SetRequest(req.WithContext(ctx))
		return next(c)
	}
}

// maskKey keeps a key's prefix and last four characters: sk_test_****abcd.
func maskKey(k string) string {
	prefix := ""
	for _, p := range []string{"sk_test_", "sk_live_", "rk_test_", "rk_live_", "pk_test_", "pk_live_"} {
		if strings.HasPrefix(k, p) {
			prefix = p
			break
		}
	}
	return masked(k, prefix)
}

// masked is secret s, which starts with prefix, as messages and logs may show it: the
// prefix and, when at least 8 characters follow it, the last four.
func masked(s, prefix string) string {
	if len(s)-len(prefix) < 8 {
		return prefix + "****"
	}
	return prefix + "****" + s[len(s)-4:]
}

// checkServiceVersion requires a supported Service-Version on every /v2 request.
func (s *Server) checkServiceVersion(next echo.HandlerFunc) echo.HandlerFunc {
	supported := strings.Join(s.cfg.ServiceVersions, ", ")
	return func(c echo.Context) error {
		v := c.Request().Header.Get("Service-Version")
		if v == "" {
			return invalidRequest(http.StatusBadRequest, "parameter_missing", "The Service-Version header is required on every /v2 request. Supported versions: %s.", supported)
		}
		for _, ok := range s.cfg.ServiceVersions {
			if v == ok {
				return next(c)
			}
		}
		return invalidRequest(http.StatusBadRequest, "parameter_invalid", "Service-Version '%s' is not supported. Supported versions: %s.", v, supported)
	}
}

// listParams are the query parameters that take a list of values.
var listParams = []string{"include", "applied_configurations", "types"}

// normalizeLists accepts the name[] and name[N] spellings some SDKs send for a list
// parameter (stripe-go sends name[N]), by rewriting them to the repeated name the spec
// names, before validation. A query without '[' (escaped or not) is left as it is.
func normalizeLists(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		raw := req.URL.RawQuery
		if !strings.Contains(raw, "[") && !strings.Contains(raw, "%5B") && !strings.Contains(raw, "%5b") {
			return next(c)
		}
		q := req.URL.Query()
		changed := false
		for _, k := range slices.Sorted(maps.Keys(q)) { // a stable order of values
			name, rest, ok := strings.Cut(k, "[")
			if !ok || !strings.HasSuffix(rest, "]") || !slices.Contains(listParams, name) {
				continue
			}
			q[name] = append(q[name], q[k]...)
			delete(q, k)
			changed = true
		}
		if changed {
			req.URL.RawQuery = q.Encode()
		}
		return next(c)
	}
}

// requireV2 refuses platforms that do not have Accounts v2.
func requireV2(ctx context.Context) error {
	if !callerFrom(ctx).platform.accountsV2 {
		return invalidRequest(http.StatusBadRequest, "accounts_v2_access_blocked", "Accounts v2 is not enabled for your platform.")
	}
	return nil
}
