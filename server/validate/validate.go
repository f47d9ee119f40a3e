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
// The checks are kin-openapi's ValidateRequest, step for step, with what depends only on
// the operation worked out at start: the parameter list, and the security check, which with
// authentication done by Echo middleware only ever passes. The body is read once, into a
// pooled buffer, and checked to be UTF-8 before anything else; a JSON body is then decoded
// and validated from those bytes exactly as ValidateRequestBody would (same decoder, same
// schema options, same errors), other bodies are left to ValidateRequestBody. A JSON body
// with a string that spells a lone UTF-16 surrogate (surrogate.go) is refused before it is
// decoded, as a body that is not UTF-8 is, since decoding would silently change it. What a
// request needs for this (buffer, readers, kin's input) comes from a pool and goes back once
// the handler has returned. validate_test.go compares the outcome with kin's over many
// requests.
//
// Before that decoding, a JSON body goes through a quick check (fast.go) that walks the
// bytes against the schema and accepts most valid bodies without building a decoded value;
// the handler then binds the body with Echo's JSON binder. Anything the quick check does not
// accept goes through kin as above, so errors are always kin's.
//
// A rejection is returned as *Error, which each API renders in its own error envelope.
package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/internal/ascii"
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
}

var defineFormats sync.Once

// uuidPattern accepts any RFC 4122 layout (any version), as the vendors' APIs do.
const uuidPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// Validator holds the prebuilt route of every operation of one spec.
type Validator struct {
	routes  map[string]*route
	options *openapi3filter.Options
	// unknownQuery: undeclared query parameters are refused, but for systemQuery's.
	unknownQuery bool
	systemQuery  map[string]bool
	// fastJSON: kin decodes application/json with its own stock decoder, which checkBody
	// repeats from the bytes already read (decided at New: nothing registers one later).
	fastJSON bool
}

// route is one operation with what its validation needs worked out once, at start.
type route struct {
	*routers.Route
	// params are the operation's parameters and the path item's it does not override, in
	// the order kin-openapi checks them.
	params []*openapi3.Parameter
	// quickParams are the parameters' quick checks (see fast.go), nil where there is none.
	quickParams []*quickParam
	// security is how the operation's security requirements check out (see securityCheck).
	security    securityCheck
	requirement openapi3.SecurityRequirements
	// body is the operation's request body (nil: none); bodyOpts the options its schema is
	// visited with, as kin-openapi would build them.
	body     *openapi3.RequestBody
	bodyOpts []openapi3.SchemaValidationOption
	// jsonMedia is body.Content.Get("application/json"), looked up once (see mediaType).
	jsonMedia *openapi3.MediaType
	// quick is the quick check of the body's application/json schema (see fast.go); nil
	// when there is none or the schema is beyond it.
	quick *quickSchema
}

// securityCheck is what kin-openapi's security check, with authentication left to Echo
// middleware (a no-op AuthenticationFunc), does for an operation: it depends only on the
// spec, so it is worked out once.
type securityCheck int

const (
	// securityNone: no requirements, nothing is looked at.
	securityNone securityCheck = iota
	// securityPasses: some requirement names only declared schemes, so the check passes;
	// on its way it reads the body and puts it back, setting ContentLength.
	securityPasses
	// securityKin: anything else is left to kin-openapi as is.
	securityKin
)

// New prepares validation for every operation of doc.
func New(doc *openapi3.T, o Options) (*Validator, error) {
	defineFormats.Do(func() {
		// kin checks a format only when a validator for it is registered.
		openapi3.DefineStringFormatValidator("uuid", uuidFormat())
		openapi3.DefineStringFormatValidator("email", emailFormat())
	})
	v := &Validator{
		routes: map[string]*route{},
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
			// kin's SchemaError.Error() otherwise appends the schema and the offending value
			// as indented JSON, whose size grows with the square of the value's nesting: a
			// 1 MB body of deep arrays in an unknown member took gigabytes to describe. The
			// messages built here (convert) never used those details.
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
		},
		fastJSON:     stockJSONDecoder(),
		unknownQuery: o.RejectUnknownQuery,
		systemQuery:  map[string]bool{},
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
			v.routes[op.OperationID] = v.prepare(&routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op})
		}
	}
	return v, nil
}

// prepare works out what ValidateRequest would look up for every request of rt.
func (v *Validator) prepare(rt *routers.Route) *route {
	r := &route{Route: rt}
	op := rt.Operation
	for _, ref := range rt.PathItem.Parameters {
		p := ref.Value
		if op.Parameters != nil && op.Parameters.GetByInAndName(p.In, p.Name) != nil {
			continue
		}
		r.params = append(r.params, p)
	}
	for _, ref := range op.Parameters {
		r.params = append(r.params, ref.Value)
	}
	r.quickParams = make([]*quickParam, len(r.params))
	if !rt.Spec.IsOpenAPI31OrLater() {
		for i, p := range r.params {
			r.quickParams[i] = newQuickParam(p)
		}
	}

	security := op.Security
	if security == nil {
		security = &rt.Spec.Security
	}
	r.requirement = *security
	r.security = securityKin
	if len(r.requirement) == 0 {
		r.security = securityNone
	} else {
		var schemes openapi3.SecuritySchemes
		if rt.Spec.Components != nil {
			schemes = rt.Spec.Components.SecuritySchemes
		}
		for _, req := range r.requirement {
			declared := true
			for name := range req {
				if ref := schemes[name]; ref == nil || ref.Value == nil {
					declared = false
				}
			}
			if declared {
				r.security = securityPasses
				break
			}
		}
	}

	if op.RequestBody != nil {
		r.body = op.RequestBody.Value
		r.jsonMedia = r.body.Content.Get("application/json")
		// As ValidateRequestBody builds them for v.options.
		r.bodyOpts = append([]openapi3.SchemaValidationOption{openapi3.VisitAsRequest()}, v.options.SchemaValidationOptions...)
		if v.options.ExcludeReadOnlyValidations {
			r.bodyOpts = append(r.bodyOpts, openapi3.DisableReadOnlyValidation())
		}
		if rt.Spec.IsOpenAPI31OrLater() {
			r.bodyOpts = append(r.bodyOpts, openapi3.EnableJSONSchema2020())
		} else if mt := r.jsonMedia; mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			r.quick = prepareQuick(mt.Schema.Value, !v.options.ExcludeReadOnlyValidations)
		}
	}
	return r
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

func (v *Validator) middleware(route *route) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			st := getState()
			req := c.Request()
			if err := v.checkEcho(c, route, st); err != nil {
				// The error may refer to the state (kin's errors keep their input): it is
				// left to the garbage collector.
				return err
			}
			err := next(c)
			// The handler has returned: nothing reads the body or the input any more. The
			// request lets go of the state's body before it is reused.
			if req.Body == io.ReadCloser(&st.body) || req.Body == io.ReadCloser(&st.validated) || req.Body == io.ReadCloser(&st.quick) {
				req.Body = http.NoBody
			}
			if st.gaveGetBody {
				req.GetBody = nil
			}
			putState(st)
			return err
		}
	}
}

func (v *Validator) checkEcho(c echo.Context, route *route, st *state) error {
	req := c.Request()
	names, values := c.ParamNames(), c.ParamValues()
	params := st.params
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
	// Echo's parsed query, shared with the generated binder, instead of one parse per
	// query parameter.
	query := c.QueryParams()
	if v.unknownQuery {
		for name := range query {
			if !route.takesQuery(name) && !v.systemQuery[name] {
				return &Error{Status: http.StatusBadRequest, In: "query", Name: name, Reason: "unknown parameter", Unknown: true}
			}
		}
	}
	return v.check(req, route, st, query)
}

// mediaType is the media type of the operation's body that a body sent as contentType is
// checked against: kin-openapi's Content.Get, which trims and lower-cases the header and
// looks it up each time, answered from the route for the usual header.
func (r *route) mediaType(contentType string) *openapi3.MediaType {
	if contentType == "application/json" {
		return r.jsonMedia
	}
	return r.body.Content.Get(contentType)
}

// takesQuery reports whether the operation declares the query parameter name.
func (r *route) takesQuery(name string) bool {
	for _, p := range r.params {
		if p.In == openapi3.ParameterInQuery && p.Name == name {
			return true
		}
	}
	return false
}

// CheckRequest validates req as operation opID would be validated, outside Echo: for
// example a seeded object checked as the request that would create it. pathParams are the
// path parameters' decoded values.
func (v *Validator) CheckRequest(opID string, req *http.Request, pathParams map[string]string) error {
	route, ok := v.routes[opID]
	if !ok {
		return fmt.Errorf("validate: no operation %q", opID)
	}
	st := newState()
	st.params = pathParams
	return v.check(req, route, st, nil)
}

// check is openapi3filter.ValidateRequest for v.options (first error only), with the
// per-operation lookups done at start, the body read once (and checked to be UTF-8 first),
// and JSON bodies decoded and validated without copying them again.
func (v *Validator) check(req *http.Request, route *route, st *state, query url.Values) error {
	data, hasBody, err := readBody(req, st)
	if err != nil {
		return err
	}
	input := &st.input
	*input = openapi3filter.RequestValidationInput{Request: req, PathParams: st.params, QueryParams: query, Route: route.Route, Options: v.options}
	ctx := req.Context()

	switch route.security {
	case securityPasses:
		// kin reads the body and puts it back (without a GetBody, as a new body of that
		// length) before it finds that every scheme is declared.
		if hasBody {
			st.putBack(req, len(data))
		}
	case securityKin:
		if err := openapi3filter.ValidateSecurityRequirements(ctx, input, route.requirement); err != nil {
			return convert(err)
		}
	}

	for i, p := range route.params {
		if q := route.quickParams[i]; q != nil && q.accepts(st.params, input) {
			continue
		}
		if err := openapi3filter.ValidateParameter(ctx, input, p); err != nil {
			return convert(err)
		}
	}

	if route.body != nil {
		if err := v.checkBody(ctx, input, route, st, data, hasBody); err != nil {
			return convert(err)
		}
	} else if v.options.RejectWhenRequestBodyNotSpecified && req.ContentLength > 0 {
		return convert(&openapi3filter.RequestError{Input: input, Err: errors.New("request body not allowed for this request")})
	}
	return nil
}

// checkBody is openapi3filter.ValidateRequestBody. A body in application/json, decoded by
// kin's own JSON decoder, is decoded and validated here exactly as kin would, from the bytes
// already read; anything else goes to kin.
func (v *Validator) checkBody(ctx context.Context, input *openapi3filter.RequestValidationInput, route *route, st *state, data []byte, hasBody bool) error {
	req := input.Request
	rb := route.body
	contentType := Header(req.Header, "Content-Type")
	mt := route.mediaType(contentType)
	// A string with a lone surrogate escape would decode to U+FFFD (surrogate.go): refused
	// before anything decodes it, once the content type is one the operation takes, with
	// the request as kin leaves it when it refuses a body it read.
	if hasBody && mt != nil && jsonLike(contentType) {
		if err := checkSurrogates(data); err != nil {
			st.putBack(req, len(data))
			return err
		}
	}
	if !v.fastJSON || !hasBody || len(data) == 0 || mt == nil || mt.Schema == nil || !isJSON(contentType) ||
		isBinary(mt.Schema) || mt.Encoding[""] != nil {
		err := openapi3filter.ValidateRequestBody(ctx, input, rb)
		// kin's JSON decoder stops after the first value and ignores the rest: a body with
		// more is refused as the decoding above refuses it, before its schema is looked at.
		if (err == nil || bodySchemaError(err)) && hasBody && trailing(contentType, data) {
			return trailingError(input, rb, data)
		}
		return err
	}
	// What ValidateRequestBody does to the request before it decodes.
	st.putBack(req, len(data))
	// A body the quick check accepts is left for Echo's binder, which reads it only for
	// exactly this media type.
	if route.quick != nil && mt == route.jsonMedia && echoJSON(contentType) &&
		quickAccept(route.quick, data, route.bodyOpts) {
		// From its start: kin's security check may have read st.body (securityKin).
		st.body.Reset(data)
		st.quick.data = data
		req.Body = &st.quick
		return nil
	}

	st.decode.Reset(data)
	dec := json.NewDecoder(&st.decode)
	dec.UseNumber()
	var value any
	if err := dec.Decode(&value); err != nil {
		return &openapi3filter.RequestError{Input: input, RequestBody: rb, Reason: "failed to decode request body",
			Err: &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: err}}
	}
	// kin's decoder stops after the first value and ignores what follows it: anything but
	// white space is refused here (the quick check refuses it too).
	if !onlySpace(data[dec.InputOffset():]) {
		return trailingError(input, rb, data)
	}
	if err := mt.Schema.Value.VisitJSON(value, route.bodyOpts...); err != nil {
		id := strings.TrimSpace(mt.Schema.Ref)
		if id == "" && mt.Schema.Value != nil {
			id = strings.TrimSpace(mt.Schema.Value.Title)
		}
		if id != "" {
			id = " " + id
		}
		return &openapi3filter.RequestError{Input: input, RequestBody: rb, Reason: "doesn't match schema" + id, Err: err}
	}
	// KeepValidatedValue.
	st.validated.value = value
	req.Body = &st.validated
	return nil
}

// onlySpace reports whether b is JSON white space only.
func onlySpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// trailing reports whether data, a body of this Content-Type, is read by kin-openapi as
// JSON and is not one JSON value alone: either it is not JSON at all (kin's decoding fails
// first) or something other than white space follows the value.
func trailing(contentType string, data []byte) bool {
	return len(data) > 0 && jsonLike(contentType) && !json.Valid(data)
}

// trailingError is the decoding error for a JSON body with data after its value.
func trailingError(input *openapi3filter.RequestValidationInput, rb *openapi3.RequestBody, data []byte) error {
	return &openapi3filter.RequestError{Input: input, RequestBody: rb, Reason: "failed to decode request body",
		Err: &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: trailingData(data)}}
}

// bodySchemaError reports whether err is kin's error for a body that decoded and then did
// not match its schema.
func bodySchemaError(err error) bool {
	var re *openapi3filter.RequestError
	var se *openapi3.SchemaError
	return errors.As(err, &re) && re.RequestBody != nil && re.Parameter == nil && errors.As(re.Err, &se)
}

// trailingData is the error encoding/json's Unmarshal reports for data, one JSON value
// followed by something other than white space ("invalid character 'x' after top-level
// value"): only a request about to be refused pays for it.
func trailingData(data []byte) error {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	return errors.New("unexpected data after the JSON value")
}

// jsonLike reports whether kin-openapi decodes a body of this Content-Type as JSON: its
// media type is application/json or ends in +json (RFC 6839).
func jsonLike(contentType string) bool {
	mt := ascii.Lower(mediaType(contentType))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// isJSON reports whether the media type of a Content-Type value, as kin's body decoding
// reads it, is application/json.
func isJSON(contentType string) bool {
	return strings.EqualFold(mediaType(contentType), "application/json")
}

// echoJSON reports whether Echo's binder decodes a body of this Content-Type as JSON: its
// media type is application/json, compared as Echo does (not ignoring case).
func echoJSON(contentType string) bool { return mediaType(contentType) == "application/json" }

// mediaType is a Content-Type value without its parameters, as kin and Echo both cut it.
func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.TrimSpace(mt)
}

func isBinary(schema *openapi3.SchemaRef) bool {
	return schema.Value != nil && schema.Value.Type.Is("string") && schema.Value.Format == "binary"
}

// stockJSONDecoder reports whether application/json bodies are decoded by kin's own decoder
// (nobody registered another) and that decoder is the plain encoding/json Decoder with
// UseNumber that checkBody repeats (not a build of kin that rejects duplicate names).
func stockJSONDecoder() bool {
	d := openapi3filter.RegisteredBodyDecoder("application/json")
	stock := reflect.ValueOf(openapi3filter.BodyDecoder(openapi3filter.JSONBodyDecoder)).Pointer()
	if d == nil || reflect.ValueOf(d).Pointer() != stock {
		return false
	}
	_, err := openapi3filter.JSONBodyDecoder(strings.NewReader(`{"a":1,"a":2}`), nil, nil, nil)
	return err == nil
}

// readBody reads the body once, rejecting one over the limit or not UTF-8 (RFC 8259
// requires it; Go's decoder would silently turn bad bytes into U+FFFD), and puts the same
// bytes back as the request's body. hasBody is false when the request has none.
func readBody(req *http.Request, st *state) (data []byte, hasBody bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, false, nil
	}
	data, err = st.read(req.Body, req.ContentLength)
	req.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, true, &Error{Status: http.StatusRequestEntityTooLarge, In: "body", Reason: fmt.Sprintf("the request body is larger than the limit of %d bytes", mbe.Limit), Cause: err}
		}
		return nil, true, &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body could not be read", Cause: err}
	}
	st.body.Reset(data)
	req.Body = &st.body
	if cs := charset(Header(req.Header, "Content-Type")); cs != "" && !utf8Charset(cs) {
		return nil, true, &Error{Status: http.StatusUnsupportedMediaType, In: "header", Name: "Content-Type",
			Reason: fmt.Sprintf("the charset %s is not supported: send the body in UTF-8", sanitize(strconv.Quote(cs)))}
	}
	if !utf8.Valid(data) {
		return nil, true, &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body is not valid UTF-8"}
	}
	return data, true, nil
}

// utf8Charset reports whether a body in charset cs is UTF-8: it is, or it is US-ASCII,
// whose bytes are UTF-8's.
func utf8Charset(cs string) bool {
	return strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8") || strings.EqualFold(cs, "us-ascii")
}

// charset is the charset parameter of a Content-Type, "" when it has none. A body in
// another charset (latin1, utf-16) was read as UTF-8 whatever it said: refused instead. A
// Content-Type without parameters, the usual one, costs one byte search.
func charset(contentType string) string {
	semi := strings.IndexByte(contentType, ';')
	if semi < 0 {
		return ""
	}
	// The usual parameter, without mime's map and parsing.
	if p := strings.TrimLeft(contentType[semi+1:], " "); len(p) == len("charset=utf-8") && strings.EqualFold(p, "charset=utf-8") {
		return "utf-8"
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return params["charset"]
}

// state is what validating one request needs besides the route, kept in a pool: the body's
// bytes and its readers, the path parameters and kin's input.
type state struct {
	buf       []byte
	body      body
	validated validatedBody
	quick     quickBody
	decode    bytes.Reader
	getBody   func() (io.ReadCloser, error)
	// gaveGetBody: the request's GetBody is getBody.
	gaveGetBody bool
	params      map[string]string
	input       openapi3filter.RequestValidationInput
}

// body is the request body once read: the bytes, readable again from the start.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// validatedBody is the body with the value validated from it, which the generated strict
// handlers bind instead of decoding the body again (kin's KeepValidatedValue).
type validatedBody struct {
	*body
	value any
}

// ValidatedValue returns the request body value that was validated.
func (b *validatedBody) ValidatedValue() any { return b.value }

func newState() *state {
	st := &state{params: map[string]string{}}
	st.validated.body = &st.body
	st.quick.body = &st.body
	st.getBody = func() (io.ReadCloser, error) {
		st.body.Seek(0, io.SeekStart)
		return &st.body, nil
	}
	return st
}

var states = sync.Pool{New: func() any { return newState() }}

func getState() *state { return states.Get().(*state) }

// maxPooledBody is the largest body buffer kept for reuse.
const maxPooledBody = 64 << 10

func putState(st *state) {
	clear(st.params)
	st.input = openapi3filter.RequestValidationInput{}
	st.validated.value = nil
	st.quick.data = nil
	st.gaveGetBody = false
	st.body.Reset(nil)
	st.decode.Reset(nil)
	if cap(st.buf) > maxPooledBody {
		st.buf = nil
	}
	states.Put(st)
}

// putBack is what kin does after reading the body: it makes the body readable again, and a
// request without GetBody gets one, and the length of what was read.
func (st *state) putBack(req *http.Request, n int) {
	if req.GetBody != nil {
		if b, err := req.GetBody(); err == nil && b != nil {
			req.Body = b
			return
		}
	}
	req.ContentLength = int64(n)
	req.GetBody, st.gaveGetBody = st.getBody, true
	req.Body, _ = st.getBody()
}

// read is io.ReadAll into the state's buffer, sized by the Content-Length when known.
func (st *state) read(r io.Reader, size int64) ([]byte, error) {
	b := st.buf[:0]
	if size >= 0 && size < maxPooledBody && int64(cap(b)) < size+1 {
		b = make([]byte, 0, size+1) // +1: the read that finds the end needs room
	} else if cap(b) == 0 {
		b = make([]byte, 0, 512)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			st.buf = b
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
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
	// Unknown is true for a parameter the operation does not take (Options.RejectUnknownQuery).
	Unknown bool
	// Value is the string a schema refused (a body member's or a parameter's), when it is
	// short and printable (at most 256 bytes of UTF-8 without control characters), for an
	// API whose messages quote what was sent, as the compute API's do; "" otherwise.
	Value string
	// Cause is the underlying error, when there is one.
	Cause error
}

func (e *Error) Error() string {
	switch {
	case e.In == "body" && e.Name == "":
		return "request body: " + e.Reason
	case e.In == "body":
		return e.Name + ": " + e.Reason
	case e.Name == "":
		return e.In + ": " + e.Reason
	default:
		return fmt.Sprintf("%s parameter %q: %s", e.In, e.Name, e.Reason)
	}
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

func convert(err error) error {
	if ve, ok := err.(*Error); ok {
		return ve // already this package's
	}
	// Several errors at once (kin's MultiErrors): the first. Only at the top: a MultiError
	// further down is one combinator's (allOf) and stays inside its SchemaError.
	if me, ok := err.(openapi3.MultiError); ok && len(me) > 0 {
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
		// Given empty: missing only if it is required; an optional one was given a value
		// it cannot take ("The limit query is required" named nothing wrong).
		out.Missing = re.Parameter != nil && re.Parameter.Required
		out.Reason = "empty value is not allowed"
	case strings.HasPrefix(re.Reason, "header Content-Type has unexpected value"):
		out.Status = http.StatusUnsupportedMediaType
		out.In, out.Name = "header", "Content-Type"
		out.Reason = "the content type " + strings.TrimPrefix(re.Reason, "header Content-Type has unexpected value ") + " is not supported by this operation"
	case errors.As(err, &se):
		path := se.JSONPointer()
		// A schema reached through allOf (a $ref made nullable) fails as a whole: report
		// what failed inside it, where it did.
		for strings.HasPrefix(se.Reason, "doesn't match all schemas from") {
			var inner *openapi3.SchemaError
			if se.Origin == nil || !errors.As(se.Origin, &inner) {
				break
			}
			if p := inner.JSONPointer(); len(p) > 0 {
				path = p // kin gives the inner error the whole path
			}
			se = inner
		}
		if out.In == "body" {
			out.Name = strings.Join(path, ".")
		}
		if v, ok := se.Value.(string); ok && printable(v) {
			out.Value = v
		}
		out.Reason, out.Missing = schemaReason(se)
		if se.Reason == "Value is not nullable" && out.In == "body" && re.RequestBody != nil && requiredAt(bodySchema(re.RequestBody), path) {
			// A required member given as null is a member not given, as the real services
			// take it (proto3 JSON reads null as unset) and as SDKs send it: stripe-go writes
			// a required field its caller left unset as null.
			out.Missing, out.Reason = true, "required field missing"
		}
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
			if reason, ok := jsonReason(pe.Cause); ok {
				out.Reason = reason
			}
		}
		// A parameter that does not parse as the number its schema says: strconv's bare
		// "invalid syntax" or "value out of range" named nothing the client could act on.
		switch {
		case errors.Is(pe.Cause, strconv.ErrRange):
			out.Reason = "number out of range"
		case errors.Is(pe.Cause, strconv.ErrSyntax):
			out.Reason = "must be a number"
			if re.Parameter != nil && re.Parameter.Schema != nil && re.Parameter.Schema.Value != nil {
				switch t := re.Parameter.Schema.Value.Type; {
				case t.Is("integer"):
					out.Reason = "must be a whole number, written in digits"
				case t.Is("boolean"):
					out.Reason = "must be true or false"
				}
			}
		}
	default:
		reason := re.Reason
		if re.Err != nil {
			reason = re.Err.Error()
		}
		out.Reason = sanitize(reason)
	}
	switch {
	case out.Reason == "":
		out.Reason = "invalid value"
	case strings.Contains(out.Reason, "json.Number"):
		// kin-openapi's words for a number beyond a float64 (1e400): "cannot convert
		// json.Number to float64".
		out.Reason = "number out of range"
	}
	return out
}

var (
	missingProperty = regexp.MustCompile(`^property "([^"]*)" is missing$`)
	unknownProperty = regexp.MustCompile(`^property "([^"]*)" is unsupported$`)
)

// bodySchema is the JSON schema of a request body, or nil.
func bodySchema(rb *openapi3.RequestBody) *openapi3.Schema {
	if mt := rb.Content.Get("application/json"); mt != nil && mt.Schema != nil {
		return mt.Schema.Value
	}
	return nil
}

// requiredAt reports whether the member at path (a JSON pointer's segments) is required by
// the object schema holding it, following properties, array items, additional properties
// and allOf from root.
func requiredAt(root *openapi3.Schema, path []string) bool {
	if root == nil || len(path) == 0 {
		return false
	}
	parent := root
	for _, seg := range path[:len(path)-1] {
		if parent = memberSchema(parent, seg); parent == nil {
			return false
		}
	}
	return requires(parent, path[len(path)-1])
}

// memberSchema is the schema s gives the member or item named seg, or nil.
func memberSchema(s *openapi3.Schema, seg string) *openapi3.Schema {
	if p := s.Properties[seg]; p != nil && p.Value != nil {
		return p.Value
	}
	if s.Items != nil && s.Items.Value != nil {
		if _, err := strconv.Atoi(seg); err == nil {
			return s.Items.Value
		}
	}
	if a := s.AdditionalProperties.Schema; a != nil && a.Value != nil {
		return a.Value
	}
	for _, sub := range s.AllOf {
		if sub.Value != nil {
			if m := memberSchema(sub.Value, seg); m != nil {
				return m
			}
		}
	}
	return nil
}

// requires reports whether s, or a schema it combines with allOf, lists name as required.
func requires(s *openapi3.Schema, name string) bool {
	if slices.Contains(s.Required, name) {
		return true
	}
	for _, sub := range s.AllOf {
		if sub.Value != nil && requires(sub.Value, name) {
			return true
		}
	}
	return false
}

func schemaReason(se *openapi3.SchemaError) (reason string, missing bool) {
	if missingProperty.MatchString(se.Reason) {
		return se.Reason, true
	}
	if se.Reason == "Value is not nullable" {
		return "must not be null", false
	}
	return sanitize(boundInDigits(se.Reason)), false
}

// boundInDigits writes the bound in kin's "number must be at most 3.16224e+07" in digits
// (31622400), as a client would write it.
func boundInDigits(reason string) string {
	m := numberBound.FindStringSubmatchIndex(reason)
	if m == nil {
		return reason
	}
	f, err := strconv.ParseFloat(reason[m[2]:m[3]], 64)
	if err != nil {
		return reason
	}
	return reason[:m[2]] + strconv.FormatFloat(f, 'f', -1, 64) + reason[m[3]:]
}

// numberBound finds the bound of kin's minimum and maximum reasons.
var numberBound = regexp.MustCompile(`^number must be (?:at most|at least|less than|more than|greater than) ([-+0-9.eE]+)`)

// printable reports whether s may be quoted back in a message: short, UTF-8, no control
// characters.
func printable(s string) bool {
	if len(s) > 256 || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// sanitize keeps messages to one line of reasonable length.
func sanitize(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// Router registers routes on an Echo instance with their route middleware applied once,
// at registration: Echo v4 applies a route's middleware anew on every request, which
// allocates a closure per middleware per request. Pass it to the generated
// RegisterHandlersWithOptions in place of the Echo instance. The middleware must not keep
// per-request state in the closures they return (none of ours do).
type Router struct{ e *echo.Echo }

// NewRouter returns a Router adding routes to e.
func NewRouter(e *echo.Echo) Router { return Router{e} }

func (r Router) add(method, path string, h echo.HandlerFunc, m []echo.MiddlewareFunc) *echo.Route {
	for i := len(m) - 1; i >= 0; i-- { // as Echo applies them: m[0] outermost
		h = m[i](h)
	}
	return r.e.Add(method, path, h)
}

// CONNECT registers a route for CONNECT.
func (r Router) CONNECT(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodConnect, path, h, m)
}

// DELETE registers a route for DELETE.
func (r Router) DELETE(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodDelete, path, h, m)
}

// GET registers a route for GET.
func (r Router) GET(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodGet, path, h, m)
}

// HEAD registers a route for HEAD.
func (r Router) HEAD(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodHead, path, h, m)
}

// OPTIONS registers a route for OPTIONS.
func (r Router) OPTIONS(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodOptions, path, h, m)
}

// PATCH registers a route for PATCH.
func (r Router) PATCH(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPatch, path, h, m)
}

// POST registers a route for POST.
func (r Router) POST(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPost, path, h, m)
}

// PUT registers a route for PUT.
func (r Router) PUT(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPut, path, h, m)
}

// TRACE registers a route for TRACE.
func (r Router) TRACE(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodTrace, path, h, m)
}

// Header is h.Get(key) for a key in canonical form already (net/http keeps request headers
// under canonical keys), which Get would canonicalise again on every call.
func Header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
