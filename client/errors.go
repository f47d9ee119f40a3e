package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Response is what every generated *Response type offers: the HTTP status and the raw body.
type Response interface {
	StatusCode() int
	GetBody() []byte
}

// CheckARM turns a failed authorization call into an error. Wrap the generated call in it:
//
//	resp, err := client.CheckARM(c.RoleAssignmentsGetWithResponse(ctx, scope, name, params))
//
// A transport error is returned as it is; a status of 400 or more is returned as *ARMError,
// along with the response.
func CheckARM[R Response](r R, err error) (R, error) {
	if err != nil || r.StatusCode() < 400 {
		return r, err
	}
	return r, NewARMError(r.StatusCode(), r.GetBody())
}

// CheckAccounts turns a failed accounts call into an error: a transport error as it is, a
// status of 400 or more as *AccountsError (with the Request-Id of the response), along with
// the response.
func CheckAccounts[R Response](r R, err error) (R, error) {
	if err != nil || r.StatusCode() < 400 {
		return r, err
	}
	var h http.Header
	if hr := httpResponse(r); hr != nil {
		h = hr.Header
	}
	return r, NewAccountsError(r.StatusCode(), h, r.GetBody())
}

// CheckCompute turns a failed compute call into an error: a transport error as it is, a
// status of 400 or more as *ComputeError, along with the response.
func CheckCompute[R Response](r R, err error) (R, error) {
	if err != nil || r.StatusCode() < 400 {
		return r, err
	}
	return r, NewComputeError(r.StatusCode(), r.GetBody())
}

// httpResponse reads the HTTPResponse field that every generated response type has. The
// generated types give the status and the body through methods but the headers only through
// that field, so it is read by reflection rather than making callers pass the headers in.
func httpResponse(r any) *http.Response {
	v := reflect.ValueOf(r)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("HTTPResponse")
	if !f.IsValid() || !f.CanInterface() {
		return nil
	}
	hr, _ := f.Interface().(*http.Response)
	return hr
}

// ARMError is an error of the authorization API, in ARM's envelope
// {"error":{"code","message","target","details"}}.
type ARMError struct {
	StatusCode int
	// Code is the machine-readable code, e.g. RoleAssignmentNotFound.
	Code    string
	Message string
	// Target is the field or parameter at fault, when the server names one.
	Target string
	// Details are nested errors; only their Code, Message, Target and Details are set.
	Details []ARMError
	// Body is the raw response body.
	Body []byte
}

func (e *ARMError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "authorization: %d", e.StatusCode)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	b.WriteString(": ")
	e.describe(&b)
	return b.String()
}

// describe writes the message, the target and each detail, in brackets, as "Code: ...".
func (e *ARMError) describe(b *strings.Builder) {
	b.WriteString(e.Message)
	if e.Target != "" {
		b.WriteString(" (target " + e.Target + ")")
	}
	for i := range e.Details {
		b.WriteString(" [" + e.Details[i].Code + ": ")
		e.Details[i].describe(b)
		b.WriteString("]")
	}
}

type armDetail struct {
	Code    string      `json:"code"`
	Message string      `json:"message"`
	Target  string      `json:"target"`
	Details []armDetail `json:"details"`
}

func (d armDetail) toError() ARMError {
	e := ARMError{Code: d.Code, Message: d.Message, Target: d.Target}
	for _, sub := range d.Details {
		e.Details = append(e.Details, sub.toError())
	}
	return e
}

// NewARMError decodes an error response of the authorization API. A body that is not ARM's
// envelope (from a proxy, say) leaves Code empty and becomes the Message.
func NewARMError(status int, body []byte) *ARMError {
	var env struct {
		Error *armDetail `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil && (env.Error.Code != "" || env.Error.Message != "") {
		e := env.Error.toError()
		e.StatusCode, e.Body = status, body
		return &e
	}
	return &ARMError{StatusCode: status, Message: fallbackMessage(status, body), Body: body}
}

// AccountsError is an error of the accounts API, in the v2 envelope
// {"error":{"type","code","message","user_message","doc_url"}}.
type AccountsError struct {
	StatusCode int
	// Type is the error's category, e.g. invalid_request_error, idempotency_error.
	Type string
	// Code is the specific error, e.g. parameter_missing; empty for some errors (an unknown
	// API key, say).
	Code    string
	Message string
	// UserMessage is a message meant for end users, when the server gives one.
	UserMessage string
	// DocURL links to documentation about the error, when the server gives one.
	DocURL string
	// RequestID is the Request-Id header of the response.
	RequestID string
	// Body is the raw response body.
	Body []byte
}

func (e *AccountsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "accounts: %d", e.StatusCode)
	switch {
	case e.Type != "" && e.Code != "":
		b.WriteString(" " + e.Type + "/" + e.Code)
	case e.Type != "" || e.Code != "":
		b.WriteString(" " + e.Type + e.Code)
	}
	b.WriteString(": " + e.Message)
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// NewAccountsError decodes an error response of the accounts API; header (may be nil) gives
// the Request-Id. A body that is not the v2 envelope leaves Type and Code empty and becomes
// the Message.
func NewAccountsError(status int, header http.Header, body []byte) *AccountsError {
	e := &AccountsError{StatusCode: status, RequestID: header.Get("Request-Id"), Body: body}
	var env struct {
		Error *struct {
			Type        string  `json:"type"`
			Code        *string `json:"code"`
			Message     string  `json:"message"`
			UserMessage *string `json:"user_message"`
			DocURL      *string `json:"doc_url"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil || (env.Error.Type == "" && env.Error.Message == "") {
		e.Message = fallbackMessage(status, body)
		return e
	}
	e.Type, e.Code, e.Message = env.Error.Type, deref(env.Error.Code), env.Error.Message
	e.UserMessage, e.DocURL = deref(env.Error.UserMessage), deref(env.Error.DocURL)
	return e
}

// ComputeError is an error of the compute API, in Google's envelope
// {"error":{"code","message","errors":[{"message","domain","reason","location","locationType"}]}}.
// Reason, Location and LocationType are those of the first entry of errors, which is the
// only one the server sends.
type ComputeError struct {
	StatusCode int
	// Reason is the machine-readable reason, e.g. notFound, alreadyExists, conditionNotMet.
	Reason  string
	Message string
	// Location is the header, parameter or field at fault, e.g. If-Match or resource.name.
	Location string
	// LocationType says what Location names: header or parameter.
	LocationType string
	// Body is the raw response body.
	Body []byte
}

func (e *ComputeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compute: %d", e.StatusCode)
	if e.Reason != "" {
		b.WriteString(" " + e.Reason)
	}
	b.WriteString(": " + e.Message)
	if e.Location != "" {
		b.WriteString(" (" + strings.TrimSpace(e.LocationType+" "+e.Location) + ")")
	}
	return b.String()
}

// NewComputeError decodes an error response of the compute API. A body that is not Google's
// envelope leaves Reason empty and becomes the Message.
func NewComputeError(status int, body []byte) *ComputeError {
	e := &ComputeError{StatusCode: status, Body: body}
	var env struct {
		Error *struct {
			Message string `json:"message"`
			Errors  []struct {
				Message      string `json:"message"`
				Reason       string `json:"reason"`
				Location     string `json:"location"`
				LocationType string `json:"locationType"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil || (env.Error.Message == "" && len(env.Error.Errors) == 0) {
		e.Message = fallbackMessage(status, body)
		return e
	}
	e.Message = env.Error.Message
	if len(env.Error.Errors) > 0 {
		first := env.Error.Errors[0]
		e.Reason, e.Location, e.LocationType = first.Reason, first.Location, first.LocationType
		if e.Message == "" {
			e.Message = first.Message
		}
	}
	return e
}

// fallbackMessage describes a body that is not the API's envelope: its text, shortened, or
// the status text when it is empty.
func fallbackMessage(status int, body []byte) string {
	const limit = 512
	text := string(bytes.TrimSpace(body))
	if len(text) > limit {
		n := limit
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n] + "..."
	}
	if text == "" {
		text = http.StatusText(status)
	}
	return text
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
