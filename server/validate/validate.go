// Package validate checks every request against its API's OpenAPI spec with kin-openapi
// before a handler runs.
//
// The route of each operation is built once at start and the check is attached as that
// operation's own Echo middleware (through the generated RegisterHandlersOptions
// .OperationMiddlewares), so no route is looked up per request. Only requests are validated.
// Defaults are not filled in (that re-encodes the whole body) and the decoded body is kept on
// the request, so the generated strict handler binds what was validated instead of decoding
// it a second time.
//
// A rejection is returned as *Error, which each API renders in its own error envelope.
package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
)

// Options tune validation for one API.
type Options struct {
	// AllowReadOnly accepts read-only members in request bodies (clients that send back what
	// they read, as ARM and compute clients do); the handlers ignore them.
	AllowReadOnly bool
}

var defineFormats sync.Once

// uuidPattern accepts any RFC 4122 layout (any version), as the vendors' APIs do.
const uuidPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// Cached returns a loader that parses a generated package's embedded spec once per process
// (parsing is most of the server's start-up) and hands the same document to every caller.
// The document is only read after that; its servers are dropped once, at load, because
// requests are matched by our router, never by host.
func Cached(api string, get func() (*openapi3.T, error)) func() (*openapi3.T, error) {
	return sync.OnceValues(func() (*openapi3.T, error) {
		doc, err := get()
		if err != nil {
			return nil, fmt.Errorf("%s: embedded spec: %w", api, err)
		}
		doc.Servers = nil
		return doc, nil
	})
}

// Validator holds the prebuilt route of every operation of one spec.
type Validator struct {
	routes  map[string]*routers.Route
	options *openapi3filter.Options
}

// New prepares validation for every operation of doc.
func New(doc *openapi3.T, o Options) (*Validator, error) {
	defineFormats.Do(func() {
		// kin checks a format only when a validator for it is registered.
		openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(uuidPattern))
	})
	v := &Validator{
		routes: map[string]*routers.Route{},
		options: &openapi3filter.Options{
			ExcludeResponseBody:        true,
			ExcludeReadOnlyValidations: o.AllowReadOnly,
			SkipSettingDefaults:        true,
			KeepValidatedValue:         true,
			// A body sent to an operation that takes none is a mistake worth reporting.
			RejectWhenRequestBodyNotSpecified: true,
			// Authentication is Echo middleware in front of validation; kin only needs to
			// know that the schemes are taken care of.
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		},
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" {
				return nil, fmt.Errorf("validate: %s %s has no operationId", method, path)
			}
			if _, dup := v.routes[op.OperationID]; dup {
				return nil, fmt.Errorf("validate: operationId %q is used twice", op.OperationID)
			}
			v.routes[op.OperationID] = &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
		}
	}
	return v, nil
}

// Middlewares returns, per operationId, the middleware chain to register: extra (in order,
// for example authentication) followed by validation.
func (v *Validator) Middlewares(extra ...echo.MiddlewareFunc) map[string][]echo.MiddlewareFunc {
	m := make(map[string][]echo.MiddlewareFunc, len(v.routes))
	for id, route := range v.routes {
		chain := append(append([]echo.MiddlewareFunc(nil), extra...), v.middleware(route))
		m[id] = chain
	}
	return m
}

func (v *Validator) middleware(route *routers.Route) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := v.Check(c, route); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// Check validates the request in c against route.
func (v *Validator) Check(c echo.Context, route *routers.Route) error {
	req := c.Request()
	names, values := c.ParamNames(), c.ParamValues()
	params := make(map[string]string, len(names))
	escaped := req.URL.RawPath != "" // Echo matched the escaped path: its values are escaped
	for i, name := range names {
		if i >= len(values) {
			break
		}
		val := values[i]
		if escaped {
			if u, err := url.PathUnescape(val); err == nil {
				val = u
			}
		}
		params[name] = val
	}
	return v.check(req, route, params)
}

// CheckRequest validates req as operation opID would be validated, outside Echo: for
// example a seeded object checked as the request that would create it. pathParams are the
// path parameters' decoded values.
func (v *Validator) CheckRequest(opID string, req *http.Request, pathParams map[string]string) error {
	route, ok := v.routes[opID]
	if !ok {
		return fmt.Errorf("validate: no operation %q", opID)
	}
	return v.check(req, route, pathParams)
}

func (v *Validator) check(req *http.Request, route *routers.Route, params map[string]string) error {
	if err := checkUTF8(req); err != nil {
		return err
	}
	input := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: v.options}
	if err := openapi3filter.ValidateRequest(req.Context(), input); err != nil {
		return convert(err)
	}
	return nil
}

// checkUTF8 rejects a body that is not UTF-8 (RFC 8259 requires it; Go's decoder would
// silently turn bad bytes into U+FFFD). It reads the body once and hands the same bytes on.
func checkUTF8(req *http.Request) error {
	if req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &Error{Status: http.StatusRequestEntityTooLarge, In: "body", Reason: fmt.Sprintf("the request body is larger than the limit of %d bytes", mbe.Limit), Cause: err}
		}
		return &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body could not be read", Cause: err}
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	if !utf8.Valid(data) {
		return &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body is not valid UTF-8"}
	}
	return nil
}

// Error is a request that does not match the spec.
type Error struct {
	// Status is 400, or 413 for a body over the limit, or 415 for a content type the
	// operation does not take.
	Status int
	// In is where the problem is: "path", "query", "header", "cookie" or "body".
	In string
	// Name is the parameter's name (In != "body"), or the dotted path of the body member at
	// fault ("" for the whole body).
	Name string
	// Reason says what is wrong; it never repeats the value that was sent.
	Reason string
	// Missing is true when a required value is absent.
	Missing bool
	// Cause is the underlying error, when there is one.
	Cause error
}

func (e *Error) Error() string {
	switch {
	case e.In == "body" && e.Name == "":
		return "request body: " + e.Reason
	case e.In == "body":
		return e.Name + ": " + e.Reason
	default:
		return fmt.Sprintf("%s parameter %q: %s", e.In, e.Name, e.Reason)
	}
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

func convert(err error) error {
	var me openapi3.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		err = me[0]
	}
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		var se *openapi3filter.SecurityRequirementsError
		if errors.As(err, &se) {
			return &Error{Status: http.StatusUnauthorized, In: "header", Name: "Authorization", Reason: "authentication failed", Cause: err}
		}
		return &Error{Status: http.StatusBadRequest, In: "body", Reason: sanitize(err.Error()), Cause: err}
	}
	out := &Error{Status: http.StatusBadRequest, Cause: err}
	if re.Parameter != nil {
		out.In, out.Name = re.Parameter.In, re.Parameter.Name
	} else {
		out.In = "body"
	}
	var mbe *http.MaxBytesError
	var se *openapi3.SchemaError
	var pe *openapi3filter.ParseError
	switch {
	case errors.As(err, &mbe):
		out.Status = http.StatusRequestEntityTooLarge
		out.Reason = fmt.Sprintf("the request body is larger than the limit of %d bytes", mbe.Limit)
	case re.Err != nil && re.Err.Error() == "request body not allowed for this request":
		out.Reason = "this operation takes no request body"
	case errors.Is(err, openapi3filter.ErrInvalidRequired):
		out.Missing = true
		if out.In == "body" {
			out.Reason = "a request body is required"
		} else {
			out.Reason = "required parameter is missing"
		}
	case errors.Is(err, openapi3filter.ErrInvalidEmptyValue):
		out.Missing = true
		out.Reason = "empty value is not allowed"
	case strings.HasPrefix(re.Reason, "header Content-Type has unexpected value"):
		out.Status = http.StatusUnsupportedMediaType
		out.In, out.Name = "header", "Content-Type"
		out.Reason = "the content type " + strings.TrimPrefix(re.Reason, "header Content-Type has unexpected value ") + " is not supported by this operation"
	case errors.As(err, &se):
		path := se.JSONPointer()
		if out.In == "body" {
			out.Name = strings.Join(path, ".")
		}
		out.Reason, out.Missing = schemaReason(se)
		if out.Missing && out.In == "body" {
			// kin reports a missing member at its parent; name the member itself.
			if m := missingProperty.FindStringSubmatch(se.Reason); m != nil {
				if len(path) == 0 || path[len(path)-1] != m[1] {
					path = append(path, m[1])
				}
				out.Name = strings.Join(path, ".")
				out.Reason = "required field missing"
			}
		}
		if out.In == "body" {
			if m := unknownProperty.FindStringSubmatch(se.Reason); m != nil {
				if len(path) == 0 || path[len(path)-1] != m[1] {
					path = append(path, m[1])
				}
				out.Name = strings.Join(path, ".")
				out.Reason = "unknown field"
			}
		}
	case errors.As(err, &pe):
		out.Reason = sanitize(pe.Reason)
		if pe.Cause != nil {
			out.Reason = sanitize(pe.Cause.Error())
		}
	default:
		reason := re.Reason
		if re.Err != nil {
			reason = re.Err.Error()
		}
		out.Reason = sanitize(reason)
	}
	if out.Reason == "" {
		out.Reason = "invalid value"
	}
	return out
}

var (
	missingProperty = regexp.MustCompile(`^property "([^"]*)" is missing$`)
	unknownProperty = regexp.MustCompile(`^property "([^"]*)" is unsupported$`)
)

func schemaReason(se *openapi3.SchemaError) (reason string, missing bool) {
	if missingProperty.MatchString(se.Reason) {
		return se.Reason, true
	}
	return sanitize(se.Reason), false
}

// sanitize keeps messages to one line of reasonable length.
func sanitize(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
