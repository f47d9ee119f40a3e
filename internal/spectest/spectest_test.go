package spectest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

const specYAML = `
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /{scope}/providers/X/things/{name}:
    get:
      operationId: getThing
      parameters:
        - {name: scope, in: path, required: true, schema: {type: string}}
        - {name: name, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [id]
                properties: {id: {type: string}}
`

// recorder is a testing.TB that remembers failures instead of failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func TestTransportFlagsResponsesOutsideTheSpec(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(specYAML))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, body string
		status           int
		wantFailure      bool
	}{
		{"matching response", "/a/b/providers/X/things/n", `{"id":"x"}`, 200, false},
		{"missing required member", "/a/b/providers/X/things/n", `{}`, 200, true},
		{"undeclared status", "/a/providers/X/things/n", `{"id":"x"}`, 201, true},
		{"multi-segment scope matched case-insensitively", "/a/b/c/PROVIDERS/x/THINGS/n", `{"id":1}`, 200, true},
		{"outside the spec, JSON", "/elsewhere", `{"x":1}`, 404, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			rec := &recorder{TB: t}
			hc := &http.Client{Transport: Transport(rec, doc, nil)}
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+tt.path, nil)
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := io.ReadAll(resp.Body); string(b) != tt.body {
				t.Errorf("body passed on as %q, want %q", b, tt.body)
			}
			if got := len(rec.failures) > 0; got != tt.wantFailure {
				t.Errorf("failure reported = %v (%v), want %v", got, rec.failures, tt.wantFailure)
			}
		})
	}
}
