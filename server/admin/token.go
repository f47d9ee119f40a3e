package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// tokenRealm is the realm a 401 names in its WWW-Authenticate challenge.
const tokenRealm = `Bearer realm="understudy"`

// token checks the admin token. Both sides are hashed before the comparison, so that it
// takes the same time whatever the token sent, its length included.
type token struct {
	want [sha256.Size]byte
}

func newToken(t string) *token { return &token{want: sha256.Sum256([]byte(t))} }

// allows reports whether an Authorization header value carries the token:
// "Bearer <token>", the scheme in any case (RFC 9110 section 11.1).
func (t *token) allows(header string) bool {
	scheme, given, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		given = "" // still compared, so that a missing header takes as long as a wrong one
	}
	got := sha256.Sum256([]byte(strings.TrimLeft(given, " ")))
	return subtle.ConstantTimeCompare(got[:], t.want[:]) == 1 && ok
}

// middleware refuses a request without the token with 401 in the admin envelope. The
// message never quotes what was sent.
func (t *token) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !t.allows(c.Request().Header.Get(echo.HeaderAuthorization)) {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, tokenRealm)
			return &Error{Status: http.StatusUnauthorized, Code: "Unauthorized",
				Message: "this endpoint needs the admin token: send Authorization: Bearer <the server's --admin-token>"}
		}
		return next(c)
	}
}

// needsToken reports whether an operation of doc asks for credentials: its own security
// requirements, or the document's when it has none of its own (health says `security: []`).
// An empty requirement among them makes credentials optional, as OpenAPI has it.
func needsToken(doc *openapi3.T, op *openapi3.Operation) bool {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	for _, r := range reqs {
		if len(r) == 0 {
			return false
		}
	}
	return len(reqs) > 0
}
