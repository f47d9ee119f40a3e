package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

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
	// Unknown is true for a parameter the operation does not take (Options.RejectUnknownQuery)
	// and for a body member its schema does not have.
	Unknown bool
	// Rule is the schema keyword the value broke, as kin-openapi's SchemaError names it
	// ("pattern", "minLength", "maxLength", "nullable", "enum", "type", "format", "minimum",
	// ...); "" when no schema was broken.
	Rule string
	// Pattern is the pattern a string did not match (Rule "pattern").
	Pattern string
	// Charset is the charset of the body's Content-Type when it is why the body was refused
	// (Status 415): the body must be UTF-8.
	Charset string
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

// convert restates an error of kin's ValidateRequest, for a request to op whose body was
// data, as *Error, from the error's structure: the parameter or body it is about, and for a
// schema error the keyword that failed, the schema and the value.
func convert(err error, op *openapi3.Operation, data []byte) *Error {
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return &Error{Status: http.StatusBadRequest, In: "body", Reason: sanitize(err.Error()), Cause: err}
	}
	out := &Error{Status: http.StatusBadRequest, Cause: err}
	if re.Parameter != nil {
		out.In, out.Name = re.Parameter.In, re.Parameter.Name
	} else {
		out.In = "body"
	}
	var se *openapi3.SchemaError
	var pe *openapi3filter.ParseError
	switch {
	case re.Parameter == nil && re.RequestBody == nil && op.RequestBody == nil:
		// About neither a parameter nor the body the operation takes: a body it does not take
		// (Options.RejectWhenRequestBodyNotSpecified).
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
	case re.RequestBody != nil && re.Err == nil && re.RequestBody.Content.Get(re.Input.Request.Header.Get("Content-Type")) == nil:
		// A body in a media type the operation does not take.
		out.Status = http.StatusUnsupportedMediaType
		out.In, out.Name = "header", "Content-Type"
		out.Reason = fmt.Sprintf("the content type %q is not supported by this operation", re.Input.Request.Header.Get("Content-Type"))
	case errors.As(err, &se):
		schemaError(out, se, re)
	case errors.As(err, &pe):
		out.Reason = sanitize(pe.Reason)
		if pe.Cause != nil {
			out.Reason = sanitize(pe.Cause.Error())
			if reason, ok := jsonReason(pe.Cause, data); ok {
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
	if out.Reason == "" {
		out.Reason = "invalid value"
	}
	return out
}

// schemaError fills out from se, kin's error for a value its schema refused, in the
// request re.
func schemaError(out *Error, se *openapi3.SchemaError, re *openapi3filter.RequestError) {
	// A schema reached through allOf (a $ref made nullable) fails as a whole: report what
	// failed inside it, where it did.
	path := se.JSONPointer()
	for se.SchemaField == "allOf" {
		var inner *openapi3.SchemaError
		if se.Origin == nil || !errors.As(se.Origin, &inner) {
			break
		}
		if p := inner.JSONPointer(); len(p) > 0 {
			path = p // kin gives the inner error the whole path
		}
		se = inner
	}
	body := out.In == "body"
	if body {
		out.Name = strings.Join(path, ".")
	}
	if v, ok := se.Value.(string); ok && printable(v) {
		out.Value = v
	}
	out.Rule = se.SchemaField
	out.Reason = sanitize(se.Reason)
	switch se.SchemaField {
	case "required":
		// kin names the missing member as the last segment of the path.
		out.Missing = true
		if body {
			out.Reason = "required field missing"
		}
	case "properties":
		// A member the schema does not have (additionalProperties false): kin checks the
		// members in the order of their names and stops at the first it does not know.
		if name, ok := unknownMember(se); ok && body {
			out.Unknown = true
			out.Name, out.Reason = strings.Join(append(path, name), "."), "unknown field"
		}
	case "nullable":
		out.Reason = "must not be null"
		if body && re.RequestBody != nil && requiredAt(bodySchema(re.RequestBody), path) {
			// A required member given as null is a member not given, as the real services
			// take it (proto3 JSON reads null as unset) and as SDKs send it: stripe-go writes
			// a required field its caller left unset as null.
			out.Missing, out.Reason = true, "required field missing"
		}
	case "pattern":
		out.Pattern = se.Schema.Pattern
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if reason, ok := boundReason(se.SchemaField, se.Schema); ok {
			out.Reason = reason
		}
	case "type":
		if _, number := se.Value.(json.Number); number {
			out.Reason = "number out of range" // a number beyond a float64's (1e400)
		}
	}
}

// unknownMember is the member of se's object that its schema does not have, the first by
// name, as kin finds it.
func unknownMember(se *openapi3.SchemaError) (string, bool) {
	obj, ok := se.Value.(map[string]any)
	if !ok || se.Schema == nil {
		return "", false
	}
	names := slices.Sorted(maps.Keys(obj))
	for _, name := range names {
		if se.Schema.Properties[name] == nil {
			return name, true
		}
	}
	return "", false
}

// boundReason words the bound a number broke (the keyword field of schema) in digits
// (31622400), as a client writes it, where kin words it as %g (3.16224e+07).
func boundReason(field string, schema *openapi3.Schema) (string, bool) {
	var bound *float64
	var words string
	switch field {
	case "minimum":
		bound, words = schema.Min, "at least"
	case "maximum":
		bound, words = schema.Max, "at most"
	case "exclusiveMinimum":
		bound, words = schema.ExclusiveMin.Value, "more than"
		if bound == nil {
			bound = schema.Min
		}
	case "exclusiveMaximum":
		bound, words = schema.ExclusiveMax.Value, "less than"
		if bound == nil {
			bound = schema.Max
		}
	}
	if bound == nil {
		return "", false
	}
	return "number must be " + words + " " + strconv.FormatFloat(*bound, 'f', -1, 64), true
}

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
