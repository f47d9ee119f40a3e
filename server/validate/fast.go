package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/labstack/echo/v4"
)

// The quick check accepts a JSON body straight from its bytes, without decoding it into
// maps and slices first: most of what a request with a valid body costs in kin-openapi is
// that decoding, the schema walk over it (which sorts every object's keys) and binding the
// decoded value into the handler's type.
//
// It is a fast path, never the judge of a bad request: it either accepts a body that kin
// would accept too, or gives up, and then kin decodes and validates the body as before and
// produces its own error (or, for what the quick check does not cover, its acceptance).
// Objects and arrays are walked here. Strings are checked here exactly as kin checks them
// (quickString), as are booleans; other scalars are handed to kin's own VisitJSON with the
// options the whole body would be visited with. What kin does to objects (types,
// properties, additional properties, required members, read-only members in requests,
// member counts) and arrays (types, item counts, items) is repeated here; schemas with
// anything else (allOf, anyOf, oneOf, not, uniqueItems, boolean schemas, prefixItems, enums
// of objects or arrays, OpenAPI 3.1's JSON Schema) are not quick-checked at all. The same
// string check serves plain path, query and header parameters (quickParam).
//
// A body it accepts is bound by the generated handler with Echo's JSON binder (through
// JSONSerializer, with encoding/json's semantics) instead of from kin's decoded value. The
// two bind alike except where encoding/json is lenient, so the quick check also gives up
// on what would make them differ: duplicate member names (kin keeps the last), a member whose name matches a
// declared property only when case is ignored (encoding/json would bind it to that
// property), a number that is not a plain integer where the schema wants an integer, and
// anything after the body's value (kin's decoder ignores it; checkBody refuses it then, as
// malformed JSON).

// quickSchema is a body schema prepared for the quick check.
type quickSchema struct {
	s *openapi3.Schema
	// empty: the schema accepts any value but null (as kin's IsEmpty).
	empty bool
	// structured: objects and arrays are not walked (an enum of them, a type that allows
	// neither): the check gives up on them.
	structured    bool
	object, array bool // the type permits objects, arrays
	integer       bool // the type is integer: numbers must be plain integers
	// str, when not nil, checks strings here rather than through kin (see quickString);
	// boolean: true and false are accepted here.
	str     *quickString
	boolean bool

	props    map[string]*quickSchema
	readOnly map[string]bool
	required []string
	// additional: members not declared are allowed; extra checks them when not nil.
	additional bool
	extra      *quickSchema
	minProps   uint64
	maxProps   *uint64

	items    *quickSchema
	minItems uint64
	maxItems *uint64
}

// prepareQuick returns the quick check of a request body's schema, or nil when the schema
// uses something the quick check does not do. readOnlyChecked: read-only members are
// rejected (kin's request visit without DisableReadOnlyValidation).
func prepareQuick(schema *openapi3.Schema, readOnlyChecked bool) *quickSchema {
	return (&quickBuilder{seen: map[*openapi3.Schema]*quickSchema{}, readOnlyChecked: readOnlyChecked}).build(schema)
}

type quickBuilder struct {
	seen            map[*openapi3.Schema]*quickSchema
	readOnlyChecked bool // read-only members are rejected (a request without AllowReadOnly)
	failed          bool
}

func (b *quickBuilder) build(s *openapi3.Schema) *quickSchema {
	if s == nil {
		b.failed = true
		return nil
	}
	if q, ok := b.seen[s]; ok {
		return q // recursive schemas share their node
	}
	q := &quickSchema{s: s}
	b.seen[s] = q
	if s.Not != nil || len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Always != nil ||
		s.UniqueItems || len(s.PrefixItems) > 0 || s.Discriminator != nil {
		b.failed = true
		return nil
	}
	q.empty = s.IsEmpty()
	q.structured = len(s.Enum) == 0
	q.object = s.Type.Permits(openapi3.TypeObject)
	q.array = s.Type.Permits(openapi3.TypeArray)
	q.integer = s.Type.Is(openapi3.TypeInteger)
	q.str = newQuickString(s)
	q.boolean = len(s.Enum) == 0 && s.Type.Permits(openapi3.TypeBoolean)
	if q.empty {
		return q
	}
	if len(s.Properties) > 0 {
		q.props = make(map[string]*quickSchema, len(s.Properties))
		for name, ref := range s.Properties {
			if ref == nil || ref.Value == nil {
				b.failed = true
				return nil
			}
			q.props[name] = b.build(ref.Value)
			if ref.Value.ReadOnly && b.readOnlyChecked {
				if q.readOnly == nil {
					q.readOnly = map[string]bool{}
				}
				q.readOnly[name] = true
			}
		}
	}
	for _, name := range s.Required {
		// kin lets a request leave out a required read-only member.
		if ref := s.Properties[name]; ref != nil && ref.Value != nil && ref.Value.ReadOnly {
			continue
		}
		q.required = append(q.required, name)
	}
	q.additional = s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has
	if ref := s.AdditionalProperties.Schema; ref != nil {
		if ref.Value == nil {
			b.failed = true
			return nil
		}
		q.extra = b.build(ref.Value)
	}
	q.minProps, q.maxProps = s.MinProps, s.MaxProps
	if ref := s.Items; ref != nil {
		if ref.Value == nil {
			b.failed = true
			return nil
		}
		q.items = b.build(ref.Value)
	}
	q.minItems, q.maxItems = s.MinItems, s.MaxItems
	if b.failed {
		return nil
	}
	return q
}

// quickState is one quick check's decoder and scratch space, pooled.
type quickState struct {
	in      bytes.Buffer
	dec     jsontext.Decoder
	name    []byte
	scratch []byte
}

var quickStates = sync.Pool{New: func() any { return new(quickState) }}

// quickAccept reports whether data is one JSON value that schema accepts (with kin's opts),
// bound alike by kin's value and by encoding/json. false means "let kin decide".
func quickAccept(q *quickSchema, data []byte, opts []openapi3.SchemaValidationOption) bool {
	st := quickStates.Get().(*quickState)
	defer quickStates.Put(st)
	st.in.Reset()
	st.in.Write(data)
	st.dec.Reset(&st.in)
	ok := st.value(q, opts)
	if ok {
		// Nothing but white space may follow: else kin's path decides (and refuses it).
		_, err := st.dec.ReadToken()
		ok = err == io.EOF
	}
	return ok
}

// value checks the next value against q.
func (st *quickState) value(q *quickSchema, opts []openapi3.SchemaValidationOption) bool {
	switch st.dec.PeekKind() {
	case '{':
		if q.empty {
			return st.dec.SkipValue() == nil
		}
		if !q.structured || !q.object {
			return false
		}
		return st.object(q, opts)
	case '[':
		if q.empty {
			return st.dec.SkipValue() == nil
		}
		if !q.structured || !q.array {
			return false
		}
		return st.array(q, opts)
	case 0:
		return false
	}
	raw, err := st.dec.ReadValue()
	if err != nil {
		return false
	}
	var v any
	switch raw[0] {
	case 'n':
		v = nil
	case 't', 'f':
		if q.empty || q.boolean {
			return true
		}
		v = raw[0] == 't'
	case '"':
		s, ok := unquote(raw, &st.scratch)
		if !ok {
			return false
		}
		if q.empty {
			return true
		}
		if q.str != nil {
			return q.str.acceptBytes(s)
		}
		v = string(s)
	default:
		if q.integer && bytes.ContainsAny(raw, ".eE") {
			return false
		}
		v = json.Number(raw)
	}
	return q.s.VisitJSON(v, opts...) == nil
}

// unquote returns the content of raw, a JSON string ReadValue has read (and checked): raw
// itself between its quotes when it has no escapes, else unquoted into buf.
func unquote(raw []byte, buf *[]byte) ([]byte, bool) {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return s, true
	}
	unq, err := jsontext.AppendUnquote((*buf)[:0], raw)
	if err != nil {
		return nil, false
	}
	*buf = unq
	return unq, true
}

func (st *quickState) object(q *quickSchema, opts []openapi3.SchemaValidationOption) bool {
	if _, err := st.dec.ReadToken(); err != nil { // {
		return false
	}
	// Which required members were present, by index in q.required.
	var presentBuf [8]bool
	present := presentBuf[:0]
	if len(q.required) > len(presentBuf) {
		present = make([]bool, 0, len(q.required))
	}
	present = present[:len(q.required)]
	var n uint64
	for st.dec.PeekKind() != '}' {
		raw, err := st.dec.ReadValue() // the member's name
		if err != nil || len(raw) < 2 {
			return false
		}
		name, ok := unquote(raw, &st.name)
		if !ok {
			return false
		}
		n++
		child, declared := q.props[string(name)]
		switch {
		case declared:
			for i, r := range q.required {
				if r == string(name) {
					present[i] = true
				}
			}
			if q.readOnly[string(name)] && st.dec.PeekKind() != 'n' {
				return false // a read-only member in a request
			}
		case q.clashes(name):
			return false
		case !q.additional:
			return false
		default:
			child = q.extra
		}
		if child == nil {
			if st.dec.SkipValue() != nil {
				return false
			}
			continue
		}
		if !st.value(child, opts) {
			return false
		}
	}
	if _, err := st.dec.ReadToken(); err != nil { // }
		return false
	}
	if n < q.minProps || q.maxProps != nil && n > *q.maxProps {
		return false
	}
	for _, p := range present {
		if !p {
			return false
		}
	}
	return true
}

// clashes says whether name matches a declared property when case is ignored (and so would
// be bound to it by encoding/json).
func (q *quickSchema) clashes(name []byte) bool {
	for p := range q.props {
		if strings.EqualFold(p, string(name)) {
			return true
		}
	}
	return false
}

func (st *quickState) array(q *quickSchema, opts []openapi3.SchemaValidationOption) bool {
	if _, err := st.dec.ReadToken(); err != nil { // [
		return false
	}
	var n uint64
	for st.dec.PeekKind() != ']' {
		n++
		if q.items == nil {
			if st.dec.SkipValue() != nil {
				return false
			}
			continue
		}
		if !st.value(q.items, opts) {
			return false
		}
	}
	if _, err := st.dec.ReadToken(); err != nil { // ]
		return false
	}
	return n >= q.minItems && (q.maxItems == nil || n <= *q.maxItems)
}

// quickString is kin's check of a string against a schema whose type allows strings, for
// what it can do exactly: the enum (of strings), the lengths (in UTF-16 units, as kin
// counts them), the pattern (matched as kin's regexp matches it: pattern.go), and the
// format through kin's own registered validator.
type quickString struct {
	enum      []string
	minLength uint64
	maxLength *uint64
	// pattern compiles the schema's pattern on first use (nil: none): compiling every
	// pattern of every spec at start cost about 2 ms of start-up.
	pattern func() (*pattern, error)
	format  string
}

// newQuickString returns nil when strings of s are left to kin.
func newQuickString(s *openapi3.Schema) *quickString {
	if !s.Type.Permits(openapi3.TypeString) {
		return nil
	}
	q := &quickString{minLength: s.MinLength, maxLength: s.MaxLength, format: s.Format}
	if q.format == "uuid" && s.Pattern == uuidPattern {
		// The "uuid" format is this very pattern (uuidFormat): the pattern's match decides,
		// a second one would only repeat it (compute's requestId has both, on every insert).
		q.format = ""
	}
	for _, e := range s.Enum {
		str, ok := e.(string)
		if !ok {
			return nil
		}
		q.enum = append(q.enum, str)
	}
	if s.Pattern != "" {
		// kin rewrites \uXXXX escapes before compiling; patterns with none compile the same.
		if strings.Contains(s.Pattern, `\u`) {
			return nil
		}
		q.pattern = sync.OnceValues(func() (*pattern, error) { return compilePattern(s.Pattern) })
	}
	return q
}

func (q *quickString) accepts(s string) bool { return acceptString(q, s) }

// acceptBytes is accepts for the bytes of a string.
func (q *quickString) acceptBytes(b []byte) bool { return acceptString(q, b) }

// acceptString is accepts and acceptBytes: the bytes of a body's string are checked where
// the decoder holds them (converting them for a call that keeps its argument, as regexp's
// and kin's do, would copy them to the heap every time).
func acceptString[S string | []byte](q *quickString, s S) bool {
	if len(q.enum) > 0 && !slices.ContainsFunc(q.enum, func(e string) bool { return string(s) == e }) {
		return false
	}
	if q.minLength != 0 || q.maxLength != nil {
		n := stringLength(s)
		if n < q.minLength || q.maxLength != nil && n > *q.maxLength {
			return false
		}
	}
	if q.pattern != nil {
		// A pattern that does not compile is left to kin, which reports it.
		re, err := q.pattern()
		if err != nil {
			return false
		}
		switch s := any(s).(type) {
		case string:
			if !re.MatchString(s) {
				return false
			}
		case []byte:
			if !re.Match(s) {
				return false
			}
		}
	}
	if q.format != "" {
		if f, ok := openapi3.SchemaStringFormats[q.format]; ok && f.Validate(string(s)) != nil {
			return false
		}
	}
	return true
}

// stringLength is a string's length as kin measures it for minLength and maxLength: its
// runes as range reads them, one that is a surrogate counting twice (kin's rule, kept
// exactly). An ASCII byte is one rune: the ASCII head of s, all of it as a rule, is counted
// without converting a body's bytes to a string, which copied them to the heap.
func stringLength[S string | []byte](s S) uint64 {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			n := uint64(i)
			for _, r := range string(s[i:]) {
				if utf16.IsSurrogate(r) {
					n += 2
				} else {
					n++
				}
			}
			return n
		}
	}
	return uint64(len(s))
}

// quickParam is kin's ValidateParameter for one parameter where it can be done exactly
// without kin's decoding: a path, query or header parameter whose schema is a plain string,
// with a single non-empty value (checked with quickString); and an optional query or header
// parameter of a plain type that the request leaves out, which kin finds absent and lets
// pass. (kin reads a header parameter from the first value under its canonical name, as
// the value itself: a header with more values than one is left to kin.)
type quickParam struct {
	in         string
	name       string       // for a header, in canonical form
	str        *quickString // nil: a value is left to kin
	skipAbsent bool
}

func newQuickParam(p *openapi3.Parameter) *quickParam {
	if p.Content != nil || p.Schema == nil || p.Schema.Value == nil {
		return nil
	}
	s := p.Schema.Value
	if len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil {
		return nil
	}
	sm, err := p.SerializationMethod()
	if err != nil {
		return nil
	}
	name := p.Name
	switch {
	case p.In == openapi3.ParameterInPath && sm.Style == openapi3.SerializationSimple:
	case p.In == openapi3.ParameterInQuery && sm.Style == openapi3.SerializationForm:
	case p.In == openapi3.ParameterInHeader && sm.Style == openapi3.SerializationSimple:
		name = http.CanonicalHeaderKey(name)
	default:
		return nil
	}
	types := s.Type.Slice()
	if len(types) != 1 {
		return nil
	}
	q := &quickParam{in: p.In, name: name}
	if types[0] == openapi3.TypeString {
		q.str = newQuickString(s)
	}
	switch types[0] {
	case openapi3.TypeString, openapi3.TypeInteger, openapi3.TypeNumber, openapi3.TypeBoolean:
		q.skipAbsent = p.In != openapi3.ParameterInPath && !p.Required
	}
	if q.str == nil && !q.skipAbsent {
		return nil
	}
	return q
}

// accepts reports whether kin would accept the parameter; false leaves it to kin.
func (q *quickParam) accepts(pathParams map[string]string, input *openapi3filter.RequestValidationInput) bool {
	var v string
	if q.in == openapi3.ParameterInPath {
		v = pathParams[q.name]
	} else {
		var values []string
		var present bool
		if q.in == openapi3.ParameterInQuery {
			values, present = input.GetQueryParams()[q.name]
		} else { // header
			values, present = input.Request.Header[q.name]
		}
		if !present {
			return q.skipAbsent
		}
		if len(values) != 1 {
			return false
		}
		v = values[0]
	}
	return v != "" && q.str != nil && q.str.accepts(v)
}

// quickBody is a body the quick check accepted: the handler's binder reads it (through
// JSONSerializer) straight from its bytes.
type quickBody struct {
	*body
	data []byte
}

// JSONSerializer is Echo's JSON serializer, except that a body the quick check accepted is
// decoded from its bytes by go-json-experiment/json with its encoding/json (v1) options,
// which bind as encoding/json does, at a third of its cost (a link request: 3.2 us, 22
// allocations with encoding/json's Decoder; 1.2 us, 4 allocations). Install it on the Echo
// instance the validated routes are registered on.
type JSONSerializer struct{ echo.DefaultJSONSerializer }

// quickBodyOptions are encoding/json's, except that the body is not checked for syntax
// again before it is bound (encoding/json's order of reporting errors): the quick check
// read it whole already. That check was a third pass over the body, 1,000 instructions of
// a rule insert's 5,900 in Unmarshal.
var quickBodyOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

// Deserialize binds the request body into i.
func (s JSONSerializer) Deserialize(c echo.Context, i any) error {
	if qb, ok := c.Request().Body.(*quickBody); ok {
		if err := jsonv2.Unmarshal(qb.data, i, quickBodyOptions); err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, err.Error()).SetInternal(err)
		}
		return nil
	}
	// Any other body is bound as Echo's DefaultJSONSerializer binds it (same errors), except
	// that nothing but white space may follow the value: the Decoder alone stops after it.
	dec := json.NewDecoder(c.Request().Body)
	err := dec.Decode(i)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			var mbe *http.MaxBytesError
			if errors.As(terr, &mbe) {
				return terr
			}
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Syntax error: offset=%v, error=unexpected data after the JSON value", dec.InputOffset()))
		}
		return nil
	}
	if ute, ok := err.(*json.UnmarshalTypeError); ok {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Unmarshal type error: expected=%v, got=%v, field=%v, offset=%v", ute.Type, ute.Value, ute.Field, ute.Offset)).SetInternal(err)
	} else if se, ok := err.(*json.SyntaxError); ok {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Syntax error: offset=%v, error=%v", se.Offset, se.Error())).SetInternal(err)
	}
	return err
}
