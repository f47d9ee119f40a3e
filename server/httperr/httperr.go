// Package httperr sorts the errors met while serving a request (from the validator, the
// router, the binder, the body limit, or anything unexpected) into a few kinds, so that each
// API's errors.go only decides how each kind looks in its own envelope.
package httperr

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"syscall"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/validate"
)

// Kind is what went wrong, whatever reported it.
type Kind int

const (
	// Internal: anything unexpected (a panic, a bug); answered 500 and logged.
	Internal Kind = iota
	// Invalid: the request does not match the spec (Cause.Validation says how).
	Invalid
	// TooLarge: the body is over the limit (413).
	TooLarge
	// UnsupportedMediaType: a body in a content type the operation does not take (415).
	UnsupportedMediaType
	// NotFound: no route for the path (404).
	NotFound
	// MethodNotAllowed: the path exists, the method does not (405).
	MethodNotAllowed
	// BadRequest: another 4xx, such as the generated binder's (Cause.Status, Cause.Message).
	BadRequest
	// Faulted: a fault rule injected this error (Cause.Status, Cause.Code, Cause.Message).
	Faulted
	// Conflict: a write met a record that another one changed or made first
	// (store.ErrConflict) where its handler did not expect one (409).
	Conflict
	// Unavailable: the store cannot be reached or cannot keep a change
	// (store.ErrUnavailable: a database restarting or away, a disk refusing writes): 503
	// with Retry-After (Cause.RetryAfter), which clients and SDKs retry.
	Unavailable
)

// RetryAfter is the Retry-After, in seconds, of an Unavailable answer: a database restarts
// in seconds, and a request meanwhile fails at once (connections refused) or within the
// store's timeout, so a client asking again a second later does not hammer it.
const RetryAfter = 1

// Fault is an error injected by a fault rule of the admin API: each API renders it in its
// own envelope with the rule's status, code and message.
type Fault struct {
	Status        int
	Code, Message string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("injected fault: %d %s: %s", f.Status, f.Code, f.Message)
}

// Cause is a classified error.
type Cause struct {
	Kind       Kind
	Status     int
	Message    string          // for BadRequest and Faulted: the reporter's own words
	Code       string          // for Faulted: the rule's code
	Validation *validate.Error // for Invalid
	Limit      int64           // for TooLarge, when known
	RetryAfter int             // for Unavailable: seconds, for the Retry-After header
}

// Charset is why a 415 was answered when it is the body's charset, not its media type,
// that is refused ("the charset \"latin1\" is not supported: send the body in UTF-8"),
// else "": an API's usual 415 message names the media type, which was fine.
func (c Cause) Charset() string {
	if c.Kind == UnsupportedMediaType && c.Validation != nil && c.Validation.Charset != "" {
		return c.Validation.Reason
	}
	return ""
}

// Classify sorts err, and so decides its status. An API checks for its own error type
// first and passes the rest here.
func Classify(err error) Cause {
	var ve *validate.Error
	var mbe *http.MaxBytesError
	var he *echo.HTTPError
	var f *Fault
	var ee url.EscapeError
	if bound, ok := Binding(err); ok {
		// What the binders refuse, said as the validator says what it refuses.
		return Cause{Kind: Invalid, Status: bound.Status, Validation: bound}
	}
	switch {
	case errors.Is(err, store.ErrUnavailable):
		return Cause{Kind: Unavailable, Status: http.StatusServiceUnavailable, RetryAfter: RetryAfter}
	case errors.Is(err, store.ErrConflict):
		return Cause{Kind: Conflict, Status: http.StatusConflict}
	case errors.As(err, &f):
		return Cause{Kind: Faulted, Status: f.Status, Code: f.Code, Message: f.Message}
	case errors.As(err, &ee):
		// A bad %-escape in the client's query or form, should a parser report one
		// (validate.Query refuses such queries first on every route but the hosted pages,
		// which read no query and bind their form themselves): the client's mistake.
		return Cause{Kind: BadRequest, Status: http.StatusBadRequest, Message: "the query or form has an invalid %-escape: " + ee.Error()}
	case errors.As(err, &ve):
		switch ve.Status {
		case http.StatusRequestEntityTooLarge:
			var limit int64
			if errors.As(ve, &mbe) {
				limit = mbe.Limit
			}
			return Cause{Kind: TooLarge, Status: ve.Status, Limit: limit}
		case http.StatusUnsupportedMediaType:
			return Cause{Kind: UnsupportedMediaType, Status: ve.Status, Validation: ve}
		}
		return Cause{Kind: Invalid, Status: http.StatusBadRequest, Validation: ve}
	case errors.As(err, &mbe):
		return Cause{Kind: TooLarge, Status: http.StatusRequestEntityTooLarge, Limit: mbe.Limit}
	case errors.As(err, &he):
		switch {
		case he.Code == http.StatusNotFound:
			return Cause{Kind: NotFound, Status: he.Code}
		case he.Code == http.StatusMethodNotAllowed:
			return Cause{Kind: MethodNotAllowed, Status: he.Code}
		case he.Code == http.StatusRequestEntityTooLarge:
			return Cause{Kind: TooLarge, Status: he.Code}
		case he.Code == http.StatusUnsupportedMediaType:
			return Cause{Kind: UnsupportedMediaType, Status: he.Code}
		case he.Code >= 400 && he.Code < 500:
			return Cause{Kind: BadRequest, Status: he.Code, Message: fmt.Sprint(he.Message)}
		}
	}
	return Cause{Kind: Internal, Status: http.StatusInternalServerError}
}

// SetRetryAfter sets the Retry-After header of an answer to err when err is one to retry
// later (Unavailable), unless a fault rule has set it already.
func SetRetryAfter(c echo.Context, err error) {
	h := c.Response().Header()
	if cause := Classify(err); cause.RetryAfter > 0 && h.Get("Retry-After") == "" {
		h.Set("Retry-After", strconv.Itoa(cause.RetryAfter))
	}
}

// LogUnexpected logs err when it is answered with a 5xx that no fault rule injected: a
// failure of ours, worth a line saying where it happened.
func LogUnexpected(c echo.Context, status int, err error, log *slog.Logger) {
	switch {
	case status < 500 || Injected(err):
	case errors.Is(err, store.ErrUnavailable):
		// Not a bug of ours, and while it lasts every request meets it: a warning.
		log.Warn("store unavailable", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	case ClientGone(err):
		log.Debug("client went away", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	default:
		log.Error("internal error", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
}

// ClientGone reports whether err is the connection failing under a response being
// written: the client closed or reset it, or stopped reading until the write timeout. Not
// a failure of the server's.
func ClientGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded)
}

// Injected reports whether err is a fault a rule injected (not worth logging as a failure).
func Injected(err error) bool {
	var f *Fault
	return errors.As(err, &f)
}
