package compute

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/validate"
)

// Error is an error in the Google envelope:
// {"error":{"code","message","errors":[{"message","domain","reason","location","locationType"}]}}.
type Error struct {
	Status       int
	Reason       string
	Message      string
	Location     string
	LocationType gen.GoogleErrorItemLocationType
	// ItemMessage is the entry's message where it is not Message (a 401's), and Canonical
	// the envelope's status, which only Google's front end's answers carry.
	ItemMessage, Canonical string
}

func (e *Error) Error() string { return e.Reason + ": " + e.Message }

// WriteError renders any error met while serving this API in the Google envelope.
func WriteError(c echo.Context, err error, log *slog.Logger) {
	e := toError(c, err)
	httperr.LogUnexpected(c, e.Status, err, log)
	if c.Response().Committed {
		return
	}
	item := gen.GoogleErrorItem{Message: e.Message, Domain: "global", Reason: e.Reason}
	if e.ItemMessage != "" {
		item.Message = e.ItemMessage
	}
	if e.Location != "" {
		item.Location = &e.Location
		lt := e.LocationType
		if lt == "" {
			lt = gen.GoogleErrorItemLocationTypeParameter
		}
		item.LocationType = &lt
	}
	out := gen.GoogleError{Code: int32(e.Status), Message: e.Message, Errors: []gen.GoogleErrorItem{item}}
	if e.Canonical != "" {
		out.Status = &e.Canonical
	}
	_ = httperr.WriteJSON(c, e.Status, gen.GoogleErrorResponse{Error: out})
}

func toError(c echo.Context, err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	cause := httperr.Classify(err)
	switch cause.Kind {
	case httperr.Invalid:
		return fromValidation(cause.Validation)
	case httperr.TooLarge:
		return &Error{Status: cause.Status, Reason: "invalid", Message: "The request body is too large."}
	case httperr.UnsupportedMediaType:
		msg := "Requests must have Content-Type: application/json."
		if reason := cause.Charset(); reason != "" {
			msg = "Requests must have Content-Type: application/json, in UTF-8: " + reason + "."
		}
		return &Error{Status: cause.Status, Reason: "invalid", Message: msg, Location: "Content-Type", LocationType: gen.GoogleErrorItemLocationTypeHeader}
	case httperr.NotFound:
		return &Error{Status: cause.Status, Reason: "notFound", Message: fmt.Sprintf("The requested URL %s was not found on this server.", c.Request().URL.Path)}
	case httperr.MethodNotAllowed:
		return &Error{Status: cause.Status, Reason: "methodNotAllowed", Message: fmt.Sprintf("Method %s is not allowed on %s.", c.Request().Method, c.Request().URL.Path)}
	case httperr.Faulted:
		return &Error{Status: cause.Status, Reason: cause.Code, Message: cause.Message}
	case httperr.BadRequest:
		return &Error{Status: cause.Status, Reason: "invalid", Message: cause.Message}
	case httperr.Conflict:
		return &Error{Status: cause.Status, Reason: "conflict", Message: "The resource was changed by another request at the same time. Please try again."}
	case httperr.Unavailable:
		return &Error{Status: cause.Status, Reason: "backendError", Message: "The service is currently unavailable."}
	}
	return &Error{Status: http.StatusInternalServerError, Reason: "backendError", Message: "Internal error. Please try again."}
}

// fromValidation follows the real messages: "Required field 'resource.name' not specified",
// "Invalid value for field 'resource.name': ...".
func fromValidation(ve *validate.Error) *Error {
	if ve.In == "body" && ve.Name == "name" {
		if e := nameError(ve); e != nil {
			return e
		}
	}
	switch {
	case ve.In == "body" && requiredOnInsert[ve.Name] && ve.Rule == "nullable":
		// Required on insert but optional in the schema (patch sends part of a resource):
		// null is unset, as the real API reads proto3 JSON.
		field := "resource." + ve.Name
		return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", field), Location: field}
	case ve.In == "body" && ve.Name == "":
		return &Error{Status: http.StatusBadRequest, Reason: "parseError", Message: "Invalid JSON payload received. " + ve.Reason}
	case ve.In == "body" && ve.Unknown:
		field := "resource." + ve.Name
		return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf("Invalid JSON payload received. Unknown name %q: Cannot find field.", field), Location: field}
	case ve.In == "body" && ve.Missing:
		field := "resource." + ve.Name
		return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", field), Location: field}
	case ve.In == "body":
		field := "resource." + ve.Name
		return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf("Invalid value for field '%s': %s", field, ve.Reason), Location: field}
	case ve.Unknown:
		// Google's front end, for a query parameter the method does not have.
		return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf("Invalid JSON payload received. Unknown name %q: Cannot bind query parameter. Field '%s' could not be found in request message.", ve.Name, ve.Name)}
	case ve.Missing:
		lt := gen.GoogleErrorItemLocationTypeParameter
		if ve.In == "header" {
			lt = gen.GoogleErrorItemLocationTypeHeader
		}
		return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required parameter '%s' not specified", ve.Name), Location: ve.Name, LocationType: lt}
	}
	if ve.Rule == "pattern" && ve.In == "path" {
		// A name or id in the path that its rule refuses, in the real service's words.
		return mustMatch(ve.Name, ve.Value, strings.TrimSuffix(strings.TrimPrefix(ve.Pattern, "^"), "$"))
	}
	return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf("Invalid value for %s parameter '%s': %s", ve.In, ve.Name, ve.Reason), Location: ve.Name}
}

// requiredOnInsert are the body members an insert requires that the schema cannot (the same
// schema is a patch's body).
var requiredOnInsert = map[string]bool{"name": true, "location": true, "linkType": true, "requestedLinkCount": true, "interconnectType": true}

// nameError says in the real service's words (checkName's) why the validator refused a
// body's name by the name rule: with the name when the validator quoted it back, without
// it when it was too long or unprintable to quote. nil for any other refusal.
func nameError(ve *validate.Error) *Error {
	switch {
	case ve.Value != "":
		if err := checkName(ve.Value); err != nil {
			return err.(*Error)
		}
	case ve.Rule == "minLength":
		return checkName("").(*Error)
	case ve.Rule == "pattern" || ve.Rule == "maxLength":
		return mustMatch("resource.name", "", nameRegex)
	}
	return nil
}

// The API's own errors that several resources answer with, in the real service's words.

func notFound(path string) *Error {
	return &Error{Status: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("The resource '%s' was not found", path)}
}

func alreadyExists(path string) *Error {
	return &Error{Status: http.StatusConflict, Reason: "alreadyExists", Message: fmt.Sprintf("The resource '%s' already exists", path)}
}

func invalidField(location, message string) *Error {
	return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: message, Location: location}
}

func requiredField(location string) *Error {
	return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", location), Location: location}
}
