package httperr

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/validate"
)

// Binding restates an error met binding a request body the validator let through (the
// generated handlers' body binder) as a validation error: the member at fault and what is
// wrong with it, in plain words, from the encoding/json error the binder wraps, without
// the Go types and byte offsets its own message carries. It reports false for any other
// error.
//
// What gets this far is what the spec allows but the handler's Go type cannot hold: a
// number beyond the range of an integer type, an integer written as 1.0 or 1e2 (a JSON
// Schema integer, but not one encoding/json puts in an int). (A query parameter given
// twice, which the parameter binders refuse, is refused by the validator first.)
func Binding(err error) (*validate.Error, bool) {
	var he *echo.HTTPError
	if !errors.As(err, &he) || he.Code != http.StatusBadRequest {
		return nil, false
	}
	out := &validate.Error{Status: http.StatusBadRequest, In: "body", Cause: err}
	var ute *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &ute):
		// Value describes the JSON value: "number", or "number 1.5" with its literal.
		out.Name = ute.Field
		literal, number := strings.CutPrefix(ute.Value, "number ")
		out.Reason = valueReason(number || ute.Value == "number", literal, isInteger(ute.Type))
	case errors.As(err, &syn):
		out.Reason = "the body is not valid JSON"
	default:
		return nil, false
	}
	return out, true
}

// valueReason says why a JSON value did not fit its Go type, from what is known of it: a
// number (and its literal, when known) and an integer type.
func valueReason(number bool, literal string, integer bool) string {
	switch {
	case number && integer && strings.ContainsAny(literal, ".eE"):
		return "value must be an integer written without a fraction or exponent (such as 2, not 2.0 or 2e0)"
	case number:
		return "number out of range"
	}
	return "invalid value"
}

func isInteger(t reflect.Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}
