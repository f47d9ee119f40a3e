package accounts

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/server/httperr"
)

// The hosted flow's pages are html/template templates, so everything they print is escaped
// for where it is printed; no page is ever built by concatenating strings. They need no
// JavaScript.
//
//go:embed templates/*.html
var templateFiles embed.FS

// hostedTemplates are the hosted pages, parsed on the first page shown, not at start.
var hostedTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(templateFiles, "templates/*.html"))
})

// messagePage is a page that only says something: an error, or that the flow is complete.
type messagePage struct {
	Title   string
	Heading string
	Message string
	Detail  string
}

var (
	pageLinkNotValid = messagePage{Title: "This link is not valid", Heading: "This link is not valid",
		Message: "This link is not valid."}
	pageSessionOver = messagePage{Title: "This form can no longer be used", Heading: "This form can no longer be used",
		Message: "This form has expired or was already submitted. Ask for a new link."}
	pageTooManyUpdates = messagePage{Title: "Please try again", Heading: "Please try again",
		Message: "Too many updates at once; try again."}
	pageComplete = messagePage{Title: "You're all set", Heading: "You're all set",
		Message: "You're all set. You can close this page."}
)

// render executes one of the page templates.
func renderPage(name string, data any) (*bytes.Reader, int64, error) {
	var buf bytes.Buffer
	if err := hostedTemplates().ExecuteTemplate(&buf, name, data); err != nil {
		return nil, 0, err
	}
	return bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil
}

// hostedError is the body of an HTML error page, as the generated responses embed it.
func hostedError(p messagePage) (gen.HostedErrorTexthtmlResponse, error) {
	body, n, err := renderPage("message.html", p)
	if err != nil {
		return gen.HostedErrorTexthtmlResponse{}, err
	}
	return gen.HostedErrorTexthtmlResponse{Body: body, ContentLength: n}, nil
}

// pageHeaders adds to a hosted response about to be sent with status the headers a page
// holding a secret URL and a form needs: never cached, never framed, never sent as a
// referrer (the URL holds the link's token), no script at all; and names the charset of
// the HTML the generated code labels text/html.
func pageHeaders(h http.Header, status int) {
	if ct := h.Get(echo.HeaderContentType); ct == "" || ct == "text/html" {
		if status != http.StatusFound && status != http.StatusSeeOther {
			h.Set(echo.HeaderContentType, "text/html; charset=utf-8")
		}
	}
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// form-action is left open on purpose: it would also block the redirect to the
	// platform's return_url that follows a successful submission.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'")
}

// hostedPage is the hosted operations' first route middleware: whatever answers the request,
// the page's headers go with it (pageHeaders).
func hostedPage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		res.Before(func() { pageHeaders(res.Header(), res.Status) })
		return next(c)
	}
}

// isHostedPath says whether path is one of the hosted flow's pages, which answer HTML.
func isHostedPath(path string) bool { return strings.HasPrefix(path, "/r/") }

// writeHostedError answers an error met on a hosted page (/r/...) as an HTML page with the
// error's status: a browser is on the other end, never an API client.
func writeHostedError(c echo.Context, e *Error, err error) {
	p := hostedErrorPage(e, err)
	body, _, rerr := renderPage("message.html", p)
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "text/html; charset=utf-8")
	if e.RetryAfterSec > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSec))
	}
	pageHeaders(w.Header(), e.Status)
	w.WriteHeader(e.Status)
	if rerr != nil {
		// The templates are parsed at start and their data is plain strings: this does not
		// happen, but the status has been sent, so say something.
		_, _ = w.Write([]byte("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Error</title></head><body><p>An error occurred.</p></body></html>"))
		return
	}
	_, _ = body.WriteTo(w)
}

// hostedErrorPage words an error for a person: the status stays, the API's wording (meant
// for developers) is kept only as a detail where it helps.
func hostedErrorPage(e *Error, err error) messagePage {
	p := messagePage{Heading: http.StatusText(e.Status)}
	if p.Heading == "" {
		p.Heading = "Error"
	}
	cause := httperr.Classify(err)
	switch {
	case cause.Kind == httperr.Invalid && cause.Validation != nil && cause.Validation.In == "path":
		p = pageLinkNotValid // a malformed account or token: no link has that URL
		p.Detail = e.Message
	case e.Status == http.StatusNotFound:
		p = pageLinkNotValid
	case e.Status == http.StatusMethodNotAllowed:
		p.Message = "This page cannot be used that way."
	case e.Status == http.StatusUnsupportedMediaType:
		p.Message = "The form must be sent as application/x-www-form-urlencoded, as browsers send forms."
	case e.Status == http.StatusRequestEntityTooLarge:
		p.Message = "The form is too large."
	case e.Status == http.StatusTooManyRequests:
		p = pageTooManyUpdates
	case e.Status >= 500:
		p.Message = "Something went wrong on our side. Try again later."
	default:
		p.Message = "The form could not be accepted."
		p.Detail = e.Message
	}
	p.Title = p.Heading
	return p
}
