package httperr

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/validate"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		kind       Kind
		status     int
		wantLimit  int64
		wantDetail string
	}{
		{"validation", fmt.Errorf("wrapped: %w", &validate.Error{Status: 400, In: "query", Name: "x"}), Invalid, 400, 0, ""},
		{"validation: body too large", &validate.Error{Status: 413, Cause: &http.MaxBytesError{Limit: 7}}, TooLarge, 413, 7, ""},
		{"validation: content type", &validate.Error{Status: 415}, UnsupportedMediaType, 415, 0, ""},
		{"body limit", &http.MaxBytesError{Limit: 9}, TooLarge, 413, 9, ""},
		{"no route", echo.ErrNotFound, NotFound, 404, 0, ""},
		{"wrong method", echo.ErrMethodNotAllowed, MethodNotAllowed, 405, 0, ""},
		{"binder", echo.NewHTTPError(400, "Invalid format for parameter id"), BadRequest, 400, 0, "Invalid format for parameter id"},
		{"bad escape in a query or form", fmt.Errorf("parse: %w", url.EscapeError("%")), BadRequest, 400, 0, `the query or form has an invalid %-escape: invalid URL escape "%"`},
		{"body binder: a number its Go type cannot hold", echo.NewHTTPError(400, "Unmarshal type error").SetInternal(&json.UnmarshalTypeError{Value: "number 1.5", Type: reflect.TypeFor[int](), Field: "count"}), Invalid, 400, 0, ""},
		{"store conflict", fmt.Errorf("put: %w", store.ErrConflict), Conflict, 409, 0, ""},
		{"store unavailable", fmt.Errorf("%w: postgres: connection refused", store.ErrUnavailable), Unavailable, 503, 0, ""},
		{"echo 500", echo.NewHTTPError(500, "boom"), Internal, 500, 0, ""},
		{"anything else", errors.New("boom"), Internal, 500, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Classify(tt.err)
			if c.Kind != tt.kind || c.Status != tt.status || c.Limit != tt.wantLimit || c.Message != tt.wantDetail {
				t.Errorf("got %+v, want kind %d status %d limit %d message %q", c, tt.kind, tt.status, tt.wantLimit, tt.wantDetail)
			}
			if (c.Kind == Unavailable) != (c.RetryAfter > 0) {
				t.Errorf("RetryAfter %d for kind %d: want it set for Unavailable only", c.RetryAfter, c.Kind)
			}
			if tt.kind == Invalid && c.Validation == nil {
				t.Error("validation error not passed on")
			}
		})
	}
}

// TestClientGoneIsNotAnInternalError: a response whose connection the client reset or
// closed is logged as the client leaving, at debug level, not as an internal error.
func TestClientGoneIsNotAnInternalError(t *testing.T) {
	reset := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.ECONNRESET)}
	for _, tt := range []struct {
		err       error
		gone      bool
		wantLevel string
	}{
		{fmt.Errorf("writing the list: %w", reset), true, "DEBUG"},
		{&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true, "DEBUG"},
		{errors.New("store: broken"), false, "ERROR"},
	} {
		if got := ClientGone(tt.err); got != tt.gone {
			t.Errorf("ClientGone(%v) = %v", tt.err, got)
		}
		var buf strings.Builder
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/x", nil), httptest.NewRecorder())
		LogUnexpected(c, http.StatusInternalServerError, tt.err, log)
		if !strings.Contains(buf.String(), "level="+tt.wantLevel) {
			t.Errorf("%v logged %q, want level %s", tt.err, buf.String(), tt.wantLevel)
		}
	}
}

// TestWriteJSONLeavesHTMLCharacters: an error envelope quoting what the client sent shows
// '<', '>' and '&' as they are, not as \u003c, \u003e and \u0026.
func TestWriteJSONLeavesHTMLCharacters(t *testing.T) {
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/x", nil), rec)
	if err := WriteJSON(c, http.StatusBadRequest, map[string]string{"message": "name '<b>&</b>' is not valid"}); err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Body.String(), `{"message":"name '<b>&</b>' is not valid"}`+"\n"; got != want || rec.Code != 400 || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("%d %q %q, want 400 application/json %q", rec.Code, rec.Header().Get("Content-Type"), got, want)
	}
}
