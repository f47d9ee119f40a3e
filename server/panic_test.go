package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestPanicBecomesA500InTheEnvelope: a handler that panics gives the client a 500 in its
// API's envelope, the stack goes to the log, and the server keeps serving.
func TestPanicBecomesA500InTheEnvelope(t *testing.T) {
	var logs bytes.Buffer
	s, err := New(Config{Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.echo.GET("/compute/v1/projects/:project/boom", func(echo.Context) error { panic("kaboom") })
	s.echo.GET("/v2/core/boom", func(echo.Context) error { panic("kaboom") })
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()

	for _, path := range []string{"/compute/v1/projects/my-project-123/boom", "/v2/core/boom"} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("%s: status %d, want 500", path, resp.StatusCode)
		}
		var env struct {
			Error map[string]any `json:"error"`
		}
		if json.Unmarshal(body, &env) != nil || env.Error["message"] == nil {
			t.Fatalf("%s: not an envelope: %s", path, body)
		}
		if strings.Contains(string(body), "kaboom") {
			t.Errorf("%s: the panic value leaked to the client: %s", path, body)
		}
	}
	if !strings.Contains(logs.String(), "kaboom") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic and its stack were not logged: %s", logs.String())
	}
	resp, err := http.Get(hs.URL + "/_understudy/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("server stopped serving after a panic: %v %v", err, resp)
	}
	resp.Body.Close()
}
