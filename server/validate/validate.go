// Package validate checks every request against its API's OpenAPI spec before a handler
// runs. kin-openapi's openapi3filter.ValidateRequest is the validator; this package only
// configures it, adds the few checks it does not make, and turns its errors into *Error,
// which each API renders in its own error envelope.
//
// The route of each operation is built once at start and the check is attached as that
// operation's own Echo middleware (through the generated RegisterHandlersOptions
// .OperationMiddlewares), so no route is looked up per request. One set of kin options
// serves every request of an API: only requests are validated; authentication is Echo
// middleware in front of validation, so kin is given operations without security
// requirements; defaults are not filled in (kin would re-encode the whole body); and the
// decoded body is kept on the request (KeepValidatedValue), so the generated strict
// handler binds the value that was validated instead of decoding the body a second time.
//
// Before kin, the body is read once, through the server's size limit, and refused if its
// charset is not UTF-8 or its bytes are not (Go's decoder would silently turn bad bytes
// into U+FFFD). After kin, a JSON body is refused if a string in it spells a lone UTF-16
// surrogate (surrogate.go) or anything but white space follows its value: kin's decoder
// lets both through, changed or ignored.
package validate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// Options tune validation for one API.
type Options struct {
	// AllowReadOnly accepts read-only members in request bodies (clients that send back what
	// they read, as ARM and compute clients do); the handlers ignore them.
	AllowReadOnly bool
	// RejectUnknownQuery refuses a query parameter the operation does not declare, as
	// Google's front end does ("Cannot bind query parameter"), except those named in
	// SystemQuery, which every operation takes. Without it, undeclared parameters are
	// ignored.
	RejectUnknownQuery bool
	SystemQuery        []string
	// Rewrite, when set, changes a request body before kin judges it, as the API reads its
	// clients' bodies (ARM reads a null member as an absent one). It is given the body as
	// read (within the limit, UTF-8), the operation's id and the request's context, and
	// returns the context with what the handler needs to know of the change and the body
	// to validate and hand on, nil to leave it as it is. CheckRequest does not apply it.
	Rewrite func(ctx context.Context, op string, data []byte) (context.Context, []byte)
}

// uuidPattern accepts any RFC 4122 layout (any version), as the vendors' APIs do.
const uuidPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// Formats are the string formats the specs use, for kin to check: it checks a format only
// when it is given a validator for it.
func Formats() map[string]openapi3.StringFormatValidator {
	return map[string]openapi3.StringFormatValidator{
		// A UUID in its 36-character form, any version, either case (uuidPattern), checked by
		// the uuid package rather than by running the pattern: the words of the error are the
		// pattern's, as kin's regexp format validator words them.
		"uuid": openapi3.NewCallbackValidator(func(s string) error {
			if len(s) != 36 || uuid.Validate(s) != nil {
				return fmt.Errorf(`string doesn't match pattern "%s"`, uuidPattern)
			}
			return nil
		}),
		// One bare address, as net/mail reads it (name@example.com, not "Jenny
		// <name@example.com>" nor text with no @), the rule the accounts API's hosted form
		// holds contact emails to.
		"email": openapi3.NewCallbackValidator(func(s string) error {
			if addr, err := mail.ParseAddress(s); err != nil || addr.Name != "" || addr.Address != s {
				return errors.New("not an email address such as name@example.com")
			}
			return nil
		}),
	}
}

// KinOptions are the options kin-openapi's ValidateRequest is given for every request of an
// API: only requests are validated; kin's own security check is not asked for
// (authentication is Echo middleware in front of validation); defaults are not filled in
// (kin would re-encode the whole body); the decoded body is kept on the request
// (KeepValidatedValue), so that the generated strict handler binds the value that was
// validated instead of decoding the body a second time; and the specs' string formats are
// checked (Formats).
func KinOptions(o Options) *openapi3filter.Options {
	return &openapi3filter.Options{
		ExcludeResponseBody:        true,
		ExcludeReadOnlyValidations: o.AllowReadOnly,
		SkipSettingDefaults:        true,
		KeepValidatedValue:         true,
		// A body sent to an operation that takes none is a mistake worth reporting.
		RejectWhenRequestBodyNotSpecified: true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidators(Formats()),
			// kin's SchemaError.Error() otherwise appends the schema and the offending value
			// as indented JSON, whose size grows with the square of the value's nesting: a
			// large body of deep arrays in an unknown member could take gigabytes to
			// describe. The messages built here (convert) never use those details.
			openapi3.DisableSchemaErrorDetails(),
		},
	}
}

// Validator holds the prebuilt route of every operation of one spec.
type Validator struct {
	routes  map[string]*route
	options *openapi3filter.Options
	// unknownQuery: undeclared query parameters are refused, but for systemQuery's.
	unknownQuery bool
	systemQuery  map[string]bool
	rewrite      func(ctx context.Context, op string, data []byte) (context.Context, []byte)
}

// route is one operation's kin route, and the query parameters it declares.
type route struct {
	*routers.Route
	query map[string]queryParam
}

// queryParam is what the generated binder needs of a query parameter that kin does not
// check: that it is given once, unless it is an array; that an unsigned integer (format
// uint32 or uint64, a Go uint) has no sign, which kin reads as a number and strconv's
// ParseUint refuses ("-0", "+1"). list: it is an array, whose empty form (name=) is the
// empty list (emptyLists).
type queryParam struct{ one, unsigned, list bool }

// Lazy returns New of the document spec loads, made on the first call and kept (errors
// too): for checks that only some runs need, such as a seed's entries checked as the
// requests that would create them, which should cost nothing at start without a seed.
func Lazy(spec func() (*openapi3.T, error), o Options) func() (*Validator, error) {
	return sync.OnceValues(func() (*Validator, error) {
		doc, err := spec()
		if err != nil {
			return nil, err
		}
		return New(doc, o)
	})
}

// New prepares validation for every operation of doc, which it keeps: what checking
// requests never reads is dropped from doc (requestsOnly), so a caller that needs anything
// of its responses or components reads it first.
func New(doc *openapi3.T, o Options) (*Validator, error) {
	requestsOnly(doc)
	v := &Validator{
		routes:       map[string]*route{},
		options:      KinOptions(o),
		unknownQuery: o.RejectUnknownQuery,
		systemQuery:  map[string]bool{},
		rewrite:      o.Rewrite,
	}
	for _, name := range o.SystemQuery {
		v.systemQuery[name] = true
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" {
				return nil, fmt.Errorf("validate: %s %s has no operationId", method, path)
			}
			if _, dup := v.routes[op.OperationID]; dup {
				return nil, fmt.Errorf("validate: operationId %q is used twice", op.OperationID)
			}
			// Authentication is Echo middleware in front of validation: kin's own security
			// check would only read the body and put it back. The operation kin is given has
			// no security requirements.
			kinOp := *op
			kinOp.Security = &openapi3.SecurityRequirements{}
			r := &route{Route: &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: &kinOp}, query: map[string]queryParam{}}
			for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range params {
					if p.Value.In == openapi3.ParameterInQuery {
						var q queryParam
						if s := p.Value.Schema; s == nil || s.Value == nil {
							q.one = true
						} else {
							q.list = s.Value.Type.Is("array")
							q.one = !q.list
							q.unsigned = s.Value.Type.Is("integer") && (s.Value.Format == "uint32" || s.Value.Format == "uint64")
						}
						r.query[p.Value.Name] = q
					}
				}
			}
			v.routes[op.OperationID] = r
		}
	}
	return v, nil
}

// Middlewares returns, per operationId, the middleware chain to register: extra (in order,
// for example authentication) followed by validation.
func (v *Validator) Middlewares(extra ...echo.MiddlewareFunc) map[string][]echo.MiddlewareFunc {
	m := make(map[string][]echo.MiddlewareFunc, len(v.routes))
	for id, route := range v.routes {
		m[id] = append(append([]echo.MiddlewareFunc(nil), extra...), v.middleware(route))
	}
	return m
}

func (v *Validator) middleware(route *route) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
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
					if u, ok := pathUnescape(val); ok {
						val = u
					}
				}
				params[name] = val
			}
			// Echo's parsed query, shared with the generated binder, instead of kin's own.
			query := c.QueryParams()
			if v.unknownQuery {
				for name := range query {
					if _, declared := route.query[name]; !declared && !v.systemQuery[name] {
						return &Error{Status: http.StatusBadRequest, In: "query", Name: name, Reason: "unknown parameter", Unknown: true}
					}
				}
			}
			emptyLists(route, query)
			checked, err := v.check(req, route, params, query, v.rewrite)
			if checked != req {
				c.SetRequest(checked)
			}
			if err != nil {
				return err
			}
			// What kin lets through and the generated binder refuses, refused here, where it is
			// known which parameter it is: kin reads the first of a parameter given twice.
			for name, q := range route.query {
				switch vs := query[name]; {
				case q.one && len(vs) > 1:
					return &Error{Status: http.StatusBadRequest, In: "query", Name: name, Reason: "must be given only once"}
				case q.unsigned && len(vs) > 0 && (strings.HasPrefix(vs[0], "-") || strings.HasPrefix(vs[0], "+")):
					return &Error{Status: http.StatusBadRequest, In: "query", Name: name, Reason: "invalid value"}
				}
			}
			return next(c)
		}
	}
}

// emptyLists drops from query each list parameter of route given once with no value
// (name=): that is how a client sends the empty list (stripe-go's form encoder writes an
// explicitly empty slice so), and the empty list asks for what the parameter's absence
// does. kin would refuse the empty value ("empty value is not allowed"), and the generated
// binder would read it as a list of one empty string. An empty value beside others
// (name=&name=a) is an item, and is judged as one. query is Echo's parsed query, which
// kin and the generated binder both read.
func emptyLists(route *route, query url.Values) {
	for name, q := range route.query {
		if vs := query[name]; q.list && len(vs) == 1 && vs[0] == "" {
			delete(query, name)
		}
	}
}

// CheckRequest validates req as operation opID would be validated, outside Echo: for
// example a seeded object checked as the request that would create it. pathParams are the
// path parameters' decoded values.
func (v *Validator) CheckRequest(opID string, req *http.Request, pathParams map[string]string) error {
	route, ok := v.routes[opID]
	if !ok {
		return fmt.Errorf("validate: no operation %q", opID)
	}
	_, err := v.check(req, route, pathParams, nil, nil)
	return err
}

// check validates req against route: the body read and its encoding checked, then kin's
// ValidateRequest, then what kin's JSON decoder lets through. query is the parsed query
// (nil: kin parses it); rewrite, if not nil, changes the body first (Options.Rewrite). It
// returns req, or req with the context rewrite gave it.
func (v *Validator) check(req *http.Request, route *route, params map[string]string, query url.Values,
	rewrite func(context.Context, string, []byte) (context.Context, []byte)) (*http.Request, error) {
	contentType := req.Header.Get("Content-Type")
	data, err := readBody(req, contentType)
	if err != nil {
		return req, err
	}
	if data != nil && rewrite != nil {
		ctx := req.Context()
		changed, out := rewrite(ctx, route.Operation.OperationID, data)
		if changed != ctx {
			req = req.WithContext(changed)
		}
		if out != nil {
			data = out
			putBack(req, data)
		}
	}
	if route.Operation.RequestBody == nil && len(data) > 0 && emptyValue(data) {
		req.Body, req.GetBody, req.ContentLength, data = http.NoBody, nil, 0, nil
	}
	input := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, QueryParams: query, Route: route.Route, Options: v.options}
	err = openapi3filter.ValidateRequest(req.Context(), input)
	// Where kin decoded a JSON body, or would have but for its schema: what kin reports
	// before the body (a parameter, the content type) is still reported first.
	if len(data) > 0 && (err == nil || bodyError(err)) && route.takesJSON(contentType) {
		if se := checkSurrogates(data); se != nil {
			return req, se
		}
		// kin's decoder stops after the first value and ignores the rest: a body with more is
		// refused as malformed, before its schema is looked at.
		if (err == nil || bodySchemaError(err)) && !validJSON(data) {
			return req, convert(trailingError(input, route.Operation.RequestBody.Value, data), route.Operation, data)
		}
	}
	if err != nil {
		return req, convert(err, route.Operation, data)
	}
	return req, nil
}

// validJSON is encoding/json's Valid for a body already known to be UTF-8 without lone
// surrogate escapes (readBody, checkSurrogates), on go-json-experiment's scanner, which
// takes a quarter of the time: one value, white space around it, nothing else. Member
// names may repeat, as encoding/json allows.
func validJSON(data []byte) bool {
	return jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true))
}
