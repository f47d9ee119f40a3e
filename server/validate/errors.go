package validate

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
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

// convert restates an error of kin's ValidateRequest as *Error.
func convert(err error) *Error {
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
		// kin reports a missing or unknown member at its parent; name the member itself.
		if out.Missing && out.In == "body" {
			if name, ok := memberNamed(missingProperty, se.Reason, path); ok {
				out.Name, out.Reason = name, "required field missing"
			}
		}
		if out.In == "body" {
			if name, ok := memberNamed(unknownProperty, se.Reason, path); ok {
				out.Name, out.Reason = name, "unknown field"
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

// memberNamed is the dotted path of the member a reason of kin's (matching re, which
// captures the member's name) names, under path, its parent's.
func memberNamed(re *regexp.Regexp, reason string, path []string) (string, bool) {
	m := re.FindStringSubmatch(reason)
	if m == nil {
		return "", false
	}
	if len(path) == 0 || path[len(path)-1] != m[1] {
		path = append(path, m[1])
	}
	return strings.Join(path, "."), true
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
