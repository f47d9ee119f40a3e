package accounts

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/server/httperr"
	"github.com/understudy-dev/understudy/server/validate"
)

// Error is an error in the v2 envelope:
// {"error":{"type","code","message","user_message","doc_url"}}.
type Error struct {
	Status        int
	Type, Code    string
	Message       string
	UserMessage   string
	DocURL        string
	RetryAfterSec int
	// AppliedConfigurations are the account's configurations, which configs_must_match_to_close
	// lists.
	AppliedConfigurations []string
}

func (e *Error) Error() string { return e.Type + "/" + e.Code + ": " + e.Message }

func invalidRequest(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Type: "invalid_request_error", Code: code, Message: fmt.Sprintf(format, args...)}
}

// WriteError renders any error met while serving this API in the v2 envelope, or, on the
// hosted pages (/r/...), as an HTML page with the same status.
func WriteError(c echo.Context, err error, log *slog.Logger) {
	e := toError(c, err)
	httperr.LogUnexpected(c, e.Status, err, log)
	if c.Response().Committed {
		return
	}
	if isHostedPath(c.Request().URL.Path) {
		writeHostedError(c, e, err) // a browser's page: HTML, never JSON
		return
	}
	body := gen.ErrorObject{Type: e.Type, Message: e.Message, UserMessage: nullable.NewNullNullable[string](), DocUrl: nullable.NewNullNullable[string]()}
	if e.Code != "" {
		body.Code = &e.Code
	}
	if e.UserMessage != "" {
		body.UserMessage = nullable.NewNullableWithValue(e.UserMessage)
	}
	if e.DocURL != "" {
		body.DocUrl = nullable.NewNullableWithValue(e.DocURL)
	}
	for _, name := range e.AppliedConfigurations {
		body.AppliedConfigurations = append(body.AppliedConfigurations, gen.ConfigurationType(name))
	}
	_ = httperr.WriteJSON(c, e.Status, gen.ErrorResponse{Error: body})
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
		return invalidRequest(cause.Status, "request_too_large", "The request body is too large.")
	case httperr.UnsupportedMediaType:
		if reason := cause.Charset(); reason != "" {
			return invalidRequest(cause.Status, "content_type_invalid", "The Content-Type '%s' is not supported: %s.", c.Request().Header.Get(echo.HeaderContentType), reason)
		}
		return invalidRequest(cause.Status, "content_type_invalid", "The Content-Type '%s' is not supported; /v2 requests are application/json.", c.Request().Header.Get(echo.HeaderContentType))
	case httperr.NotFound:
		return invalidRequest(cause.Status, "not_found", "Unrecognized request URL (%s: %s).", c.Request().Method, c.Request().URL.Path)
	case httperr.MethodNotAllowed:
		return invalidRequest(cause.Status, "method_not_allowed", "The method %s is not allowed on %s.", c.Request().Method, c.Request().URL.Path)
	case httperr.Faulted:
		return &Error{Status: cause.Status, Type: faultType(cause.Status), Code: cause.Code, Message: cause.Message}
	case httperr.BadRequest:
		return invalidRequest(cause.Status, "parameter_invalid", "%s", cause.Message)
	case httperr.Conflict:
		return invalidRequest(cause.Status, "resource_conflict", "Another request changed this object at the same time. Retry the request.")
	case httperr.Unavailable:
		return &Error{Status: cause.Status, Type: "api_error", Message: "The service is temporarily unavailable. Retry the request shortly.", RetryAfterSec: cause.RetryAfter}
	}
	return &Error{Status: http.StatusInternalServerError, Type: "api_error", Message: "An unexpected error occurred."}
}

// fromValidation names the field path as the v2 API does, e.g.
// "use_case.account_onboarding.refresh_url: required request field missing".
func fromValidation(ve *validate.Error) *Error {
	switch {
	case ve.In == "body" && ve.Unknown:
		return invalidRequest(http.StatusBadRequest, "parameter_unknown", "%s: unknown field", ve.Name)
	case ve.In == "body" && ve.Missing && ve.Name != "":
		return invalidRequest(http.StatusBadRequest, "parameter_missing", "%s: required request field missing", ve.Name)
	case ve.In == "body":
		return invalidRequest(http.StatusBadRequest, "parameter_invalid", "%s", ve.Error())
	case ve.Missing:
		return invalidRequest(http.StatusBadRequest, "parameter_missing", "The %s %s is required.", ve.Name, ve.In)
	}
	return invalidRequest(http.StatusBadRequest, "parameter_invalid", "Invalid %s %s: %s.", ve.In, ve.Name, ve.Reason)
}

// faultType is the v2 error type an injected fault of this status carries.
func faultType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}
