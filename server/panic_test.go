package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/control"
)

// TestPanicIsAnObserved500: a panic in a handler answers 500 in the API's envelope, is
// logged with its stack, and is observed like any answer (the journal has it, with its
// status); the server keeps serving.
func TestPanicIsAnObserved500(t *testing.T) {
	var logs bytes.Buffer
	s, err := New(Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.mounts[apiCompute].GET("/compute/v1/projects/p/panic", func(echo.Context) error { panic("boom") })
	for range 2 {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/compute/v1/projects/p/panic", nil))
		if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), `"code":500`) {
			t.Fatalf("panic answered %d %s, want a 500 in the compute envelope", rec.Code, rec.Body)
		}
	}
	if !strings.Contains(logs.String(), "panic while serving a request") || !strings.Contains(logs.String(), "boom") {
		t.Errorf("the panic was not logged: %s", logs.String())
	}
	var seen []control.Entry
	for _, e := range s.journal.List(control.Filter{}) {
		if e.Path == "/compute/v1/projects/p/panic" {
			seen = append(seen, e)
		}
	}
	if len(seen) != 2 || seen[0].Status != http.StatusInternalServerError {
		t.Errorf("journal entries for the panics: %+v, want two with status 500", seen)
	}
}
