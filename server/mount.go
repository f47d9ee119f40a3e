package server

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/httperr"
)

// api names one of the APIs the server mounts, as the metrics, the journal and fault rules
// name them.
type api int

const (
	apiAuthorization api = iota // first: it owns every path no other API claims
	apiAccounts
	apiCompute
	apiAdmin
	apiCount
)

func (a api) String() string {
	return [...]string{"authorization", "accounts", "compute", "admin"}[a]
}

// prefixes are the path prefixes each API owns; authorization's ARM scopes start at the
// root and take whatever none of these claims. /r/ is the accounts API's hosted pages;
// /batch/ is where Google's clients send batched compute requests.
var prefixes = [...]struct {
	prefix string
	api    api
}{
	{"/_understudy/", apiAdmin},
	{"/v2/", apiAccounts},
	{"/r/", apiAccounts},
	{"/compute/", apiCompute},
	{"/batch/", apiCompute},
}

// ServeHTTP hands the request to the Echo instance of the API that owns its path, decided
// here once (ownerOf); everything else about the request is that API's own.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mounts[ownerOf(r.URL.Path)].ServeHTTP(w, r)
}

// ownerOf is the API that answers a request for path: the one whose prefix starts it, else
// the one whose prefix starts it as a client most likely meant it (envelopePath), so that
// //compute/v1/..., /V2/core/... and /compute are answered, 404 as they are, in the
// envelope their clients can read; else the authorization API.
func ownerOf(path string) api {
	if a, ok := prefixOwner(path); ok {
		return a
	}
	if a, ok := prefixOwner(envelopePath(path)); ok {
		return a
	}
	return apiAuthorization
}

func prefixOwner(path string) (api, bool) {
	for _, p := range prefixes {
		if strings.HasPrefix(path, p.prefix) {
			return p.api, true
		}
	}
	return 0, false
}

// envelopePath is path as a client most likely meant it, for ownerOf: without the empty
// and dot segments it starts with, in lower case and with a trailing slash. Only the start
// is tidied: /r/../../etc stays a hosted page's path. A path with a /providers/ segment is
// left alone: it is an ARM path (every ARM operation has one, after a scope that may start
// with anything), which the authorization API serves.
func envelopePath(p string) string {
	// The lower-case copy only when the path does not say it as ARM clients do.
	if strings.Contains(p, "/providers/") || strings.Contains(strings.ToLower(p), "/providers/") {
		return p
	}
	for {
		p = strings.TrimLeft(p, "/")
		if rest, ok := strings.CutPrefix(p, "./"); ok {
			p = rest
		} else if rest, ok := strings.CutPrefix(p, "../"); ok {
			p = rest
		} else {
			break
		}
	}
	return "/" + strings.ToLower(p) + "/"
}

// mounting is how one API is mounted: its error envelope, the request ids it gives every
// response (nil: none, or its own pre middleware's), the middleware it runs before routing
// (pre), and whether its query strings are checked (the hosted pages' are not: see
// limitRequest).
type mounting struct {
	writeError func(c echo.Context, err error, log *slog.Logger)
	ids        func(resp, req http.Header)
	pre        []echo.MiddlewareFunc
	anyQuery   func(path string) bool
}

// mount builds the Echo instance of one API, which the API then registers its routes on.
// Every error met on it (its handlers', its validator's, its router's 404 and 405, a
// panic's) is written in the API's own envelope, with Retry-After when it is one to retry. Its middleware, in the order a request
// meets it: before routing, observe (the log line, metrics, journal and request ids, and
// recoverPanic), then the API's own pre middleware; after routing, routed (injectFault and
// limitRequest); then each operation's own (its authentication and validation), which the
// API registers with its routes.
func (s *Server) mount(a api, m mounting) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	log := s.cfg.Log
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if !c.Response().Committed {
			httperr.SetRetryAfter(c, err)
		}
		m.writeError(c, err, log)
	}
	e.Pre(s.observe(a, m.ids))
	e.Pre(m.pre...)
	e.Use(s.routed(a, m.anyQuery))
	s.mounts[a] = e
	return e
}
