package compute

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
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
}

func (e *Error) Error() string { return e.Reason + ": " + e.Message }

// WriteError renders any error met while serving this API in the Google envelope.
func WriteError(c echo.Context, err error, log *slog.Logger) {
	e := toError(c, err)
	if e.Status >= 500 && e.Status != http.StatusNotImplemented {
		log.Error("internal error", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	if c.Response().Committed {
		return
	}
	item := gen.GoogleErrorItem{Message: e.Message, Domain: "global", Reason: e.Reason}
	if e.Location != "" {
		item.Location = &e.Location
		lt := e.LocationType
		if lt == "" {
			lt = gen.GoogleErrorItemLocationTypeParameter
		}
		item.LocationType = &lt
	}
	_ = c.JSON(e.Status, gen.GoogleErrorResponse{Error: gen.GoogleError{Code: int32(e.Status), Message: e.Message, Errors: []gen.GoogleErrorItem{item}}})
}

func toError(c echo.Context, err error) *Error {
	var ae *Error
	var ve *validate.Error
	var he *echo.HTTPError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &ve):
		return fromValidation(ve)
	case errors.As(err, &mbe):
		return &Error{Status: http.StatusRequestEntityTooLarge, Reason: "invalid", Message: fmt.Sprintf("The request body is larger than the limit of %d bytes.", mbe.Limit)}
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound:
			return &Error{Status: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("The requested URL %s was not found on this server.", c.Request().URL.Path)}
		case http.StatusMethodNotAllowed:
			return &Error{Status: http.StatusMethodNotAllowed, Reason: "methodNotAllowed", Message: fmt.Sprintf("Method %s is not allowed on %s.", c.Request().Method, c.Request().URL.Path)}
		}
		if he.Code >= 400 && he.Code < 500 {
			return &Error{Status: he.Code, Reason: "invalid", Message: fmt.Sprint(he.Message)}
		}
	}
	return &Error{Status: http.StatusInternalServerError, Reason: "backendError", Message: "Internal error. Please try again."}
}

// fromValidation follows the real messages: "Required field 'resource.name' not specified",
// "Invalid value for field 'resource.name': ...".
func fromValidation(ve *validate.Error) *Error {
	switch {
	case ve.Status == http.StatusRequestEntityTooLarge:
		return &Error{Status: ve.Status, Reason: "invalid", Message: "The request body is too large."}
	case ve.Status == http.StatusUnsupportedMediaType:
		return &Error{Status: ve.Status, Reason: "invalid", Message: "Requests must have Content-Type: application/json.", Location: "Content-Type", LocationType: gen.GoogleErrorItemLocationTypeHeader}
	case ve.In == "body" && ve.Name == "":
		return &Error{Status: http.StatusBadRequest, Reason: "parseError", Message: "Invalid JSON payload received. " + ve.Reason}
	case ve.In == "body" && ve.Reason == "unknown field":
		field := "resource." + ve.Name
		return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf("Invalid JSON payload received. Unknown name %q: Cannot find field.", field), Location: field}
	case ve.In == "body" && ve.Missing:
		field := "resource." + ve.Name
		return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", field), Location: field}
	case ve.In == "body":
		field := "resource." + ve.Name
		return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf("Invalid value for field '%s': %s", field, ve.Reason), Location: field}
	case ve.Missing:
		lt := gen.GoogleErrorItemLocationTypeParameter
		if ve.In == "header" {
			lt = gen.GoogleErrorItemLocationTypeHeader
		}
		return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required parameter '%s' not specified", ve.Name), Location: ve.Name, LocationType: lt}
	}
	return &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf("Invalid value for %s parameter '%s': %s", ve.In, ve.Name, ve.Reason), Location: ve.Name}
}
