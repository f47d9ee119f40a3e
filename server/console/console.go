// Package console serves understudy's console under /_understudy/console: HTML pages,
// rendered on the server, that show the request journal live and each API's state, and
// the controls of the admin API. Its operations are the admin spec's tag Console
// (gen/console), mounted on the admin API's Echo instance and validated like every admin
// request.
//
// The console keeps no model of its own: it reads each API through that API's handlers or
// the small Console* read methods next to them (server/<api>/console.go), and changes the
// sandbox through the admin API's own handlers.
//
// Safety: a browser logs in once with the admin token (none is asked for when the server
// has none) and keeps a session cookie (HttpOnly, SameSite=Strict, Secure over TLS); every
// change is a POST carrying the session's CSRF token. Scripts may send the admin token as
// a bearer token instead. Stored values are rendered by html/template, which escapes them.
package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/console"
	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/admin"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/compute"
	"github.com/understudy-dev/understudy/server/control"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/routes"
	"github.com/understudy-dev/understudy/server/validate"
)

// Base is where the console is served.
const Base = "/_understudy/console"

// watchWindow is how long after a console page was last asked for (or while a live view is
// open) the journal keeps the exchanges' headers and bodies.
const watchWindow = 10 * time.Minute

// Deps are what the console shows and steers.
type Deps struct {
	// Token is the admin token ("" when the server has none).
	Token         string
	Journal       *control.Journal
	Admin         *admin.Server
	Authorization *authorization.Server
	Accounts      *accounts.Server
	Compute       *compute.Server
	// Load replaces the state with a seed file's (name is how errors name it); where the
	// file is at fault its error is an *admin.Error, as the admin API answers it.
	Load func(name string, data []byte) error
	// Now is real time, for sessions (nil: time.Now): the admin clock may be advanced.
	Now func() time.Time
}

// Console implements the generated strict server interface of the console's operations.
type Console struct {
	d        Deps
	sessions *sessions
	// done ends the live views when the server drains (Close).
	done      chan struct{}
	closeOnce sync.Once
}

var _ gen.StrictServerInterface = (*Console)(nil)

// New returns the console.
func New(d Deps) (*Console, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	ss, err := newSessions(d.Token)
	if err != nil {
		return nil, err
	}
	return &Console{d: d, sessions: ss, done: make(chan struct{})}, nil
}

// Close ends the live views, so that a graceful shutdown does not wait for them.
func (c *Console) Close() { c.closeOnce.Do(func() { close(c.done) }) }

// openOperations need no session: the login page and the login itself.
var openOperations = map[string]bool{"consoleLoginPage": true, "consoleLogin": true}

// Spec is the admin spec's console operations (tag Console), which gen/console embeds:
// the admin API's own embedded spec (admin.Spec) leaves them out.
func Spec() (*openapi3.T, error) { return validate.Load("admin (console)", gen.GetSpecJSON) }

// Operations are the console's operations, read without parsing its spec.
func Operations() ([]validate.Operation, error) { return validate.Operations(gen.GetSpecJSON) }

// Register adds the console's routes to e, the admin API's Echo instance, for ops
// (Operations), each validated against the spec (as Spec loads it, on the first request
// that needs it): in front of validation the page's headers and error pages (pages), then
// the session (authenticate).
func (c *Console) Register(e *echo.Echo, ops []validate.Operation) error {
	v := validate.Defer(ops, validate.Lazy(Spec, validate.Options{}))
	m := v.Middlewares()
	registered := 0
	for _, op := range ops {
		id := op.ID
		if !slices.Contains(op.Tags, "Console") {
			delete(m, id)
			continue
		}
		chain := []echo.MiddlewareFunc{pages}
		if !openOperations[id] {
			chain = append(chain, c.authenticate)
		} else {
			chain = append(chain, c.identify)
		}
		m[id] = append(chain, m[id]...)
		registered++
	}
	if registered == 0 { // each route must have its session check
		return errors.New("console: the spec has no Console operation")
	}
	gen.RegisterHandlersWithOptions(routes.New(e, isStream), gen.NewStrictHandler(c, nil), gen.RegisterHandlersOptions{OperationMiddlewares: m})
	return nil
}

// isStream: the live view answers GET only (a HEAD would hold the connection for nothing).
func isStream(path string) bool { return path == Base+"/requests/events" }

// request is what the console's middleware learns of a request, for its handlers.
type request struct {
	// nonce lets the page's own scripts run (its Content-Security-Policy names it).
	nonce   string
	session session
	secure  bool
	// base is the scheme and host the browser reached us at (for curl commands).
	base string
	// path is the page asked for, with its query (where to come back to after login).
	path string
	// lastEventID is the number of the last journal entry a reconnecting live view saw
	// (its Last-Event-ID header; 0 for none).
	lastEventID uint64
}

type requestKey struct{}

func requestOf(ctx context.Context) *request {
	if r, ok := ctx.Value(requestKey{}).(*request); ok {
		return r
	}
	return &request{}
}

// identify reads the session, if any, into the request's context.
func (c *Console) identify(next echo.HandlerFunc) echo.HandlerFunc {
	return func(ec echo.Context) error {
		req := ec.Request()
		r := requestOf(req.Context())
		r.secure, r.base, r.path = ec.Scheme() == "https", ec.Scheme()+"://"+req.Host, req.URL.RequestURI()
		r.session = c.sessionOf(req)
		r.lastEventID, _ = strconv.ParseUint(req.Header.Get("Last-Event-ID"), 10, 64)
		return next(ec)
	}
}

// authenticate lets a request through with a console session or the admin token, and
// notes that someone is looking (the journal keeps exchanges for watchWindow). Without
// either, a page is redirected to the login page and a change refused (401).
func (c *Console) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return c.identify(func(ec echo.Context) error {
		r := requestOf(ec.Request().Context())
		if !r.session.valid {
			if m := ec.Request().Method; m == http.MethodGet || m == http.MethodHead {
				return ec.Redirect(http.StatusSeeOther, Base+"/login?next="+url.QueryEscape(r.path))
			}
			return &pageError{Status: http.StatusUnauthorized, Message: "Your console session has ended: log in again."}
		}
		c.d.Journal.Capture(c.d.Now().Add(watchWindow))
		return next(ec)
	})
}

// pageError is an error the console answers as a page.
type pageError struct {
	Status  int
	Message string
}

func (e *pageError) Error() string { return e.Message }

// checkCSRF refuses a change whose form does not carry the session's CSRF token (a session
// of the admin token, sent by a script rather than a browser, needs none).
func checkCSRF(ctx context.Context, token string) error {
	s := requestOf(ctx).session
	if s.viaToken || (token != "" && s.csrfMatches(token)) {
		return nil
	}
	return &pageError{Status: http.StatusForbidden, Message: "This form is stale or did not come from the console (its CSRF token does not match your session): reload the page and try again."}
}

// adminError is the page error for an error of the admin API's handlers: their status and
// message, which name what was wrong.
func adminError(err error) error {
	var ae *admin.Error
	if errors.As(err, &ae) {
		return &pageError{Status: ae.Status, Message: ae.Message}
	}
	return err
}

// pages gives every console answer a page's headers and answers every error met below it
// (the validator's, a handler's) as an HTML page with the error's status, never the admin
// API's JSON.
func pages(next echo.HandlerFunc) echo.HandlerFunc {
	return func(ec echo.Context) error {
		res := ec.Response()
		// html/template writes the nonce into the page's script tags.
		nonce := randomToken(16)
		req := ec.Request()
		ec.SetRequest(req.WithContext(context.WithValue(req.Context(), requestKey{}, &request{nonce: nonce})))
		res.Before(func() { pageHeaders(res.Header(), res.Status, nonce) })
		err := next(ec)
		if err == nil || res.Committed {
			return err
		}
		var status int
		var msg string
		var pe *pageError
		cause := httperr.Classify(err)
		switch {
		case errors.As(err, &pe):
			status, msg = pe.Status, pe.Message
		case cause.Kind == httperr.Invalid && cause.Validation != nil:
			status, msg = cause.Status, "The request is not one this page takes: "+cause.Validation.Error()
		case cause.Kind == httperr.TooLarge:
			status, msg = cause.Status, "The file is too large for this server's body limit (--body-limit)."
		case cause.Kind == httperr.UnsupportedMediaType, cause.Kind == httperr.BadRequest:
			status, msg = cause.Status, "The form could not be read: "+cause.Message
		default:
			return err // unexpected: the admin API's error handler logs it
		}
		body, rerr := render(ec.Request().Context(), "error", page{Title: http.StatusText(status), Data: msg})
		if rerr != nil {
			return rerr
		}
		return ec.HTMLBlob(status, body)
	}
}

// pageHeaders: pages are never cached or framed, sent as referrers only to this origin, and
// run only the scripts they carry (by nonce).
func pageHeaders(h http.Header, status int, nonce string) {
	if ct := h.Get(echo.HeaderContentType); ct == "text/html" {
		h.Set(echo.HeaderContentType, "text/html; charset=utf-8")
	}
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
}

// redirect is a 303 to a console page.
func redirect(path string) gen.ConsoleRedirectResponse {
	return gen.ConsoleRedirectResponse{Headers: gen.ConsoleRedirectResponseHeaders{Location: path}}
}

// safeNext is where to go after logging in: a console page, never another site.
func safeNext(next *string) string {
	if next == nil || !strings.HasPrefix(*next, Base) || strings.HasPrefix(*next, "//") || strings.ContainsAny(*next, "\\\r\n") {
		return Base
	}
	return *next
}
