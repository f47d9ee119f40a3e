package compute_test

import (
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/internal/operations"
)

// TestNullIsUnset: a required member given as null is reported as not given, as the real
// API reads proto3 JSON (null is unset); an optional one given as null is still refused.
func TestNullIsUnset(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	post := func(body string) googleError {
		t.Helper()
		status, b := w.raw("POST", "global/forwardingRules", body)
		return wantGoogleError(t, status, b, 400, map[bool]string{true: "required", false: "invalid"}[strings.Contains(body, `"name":null`)])
	}
	if e := post(`{"name":null}`); e.Message != "Required field 'resource.name' not specified" {
		t.Errorf("name null: %q", e.Message)
	}
	if e := post(`{"name":"fr-a","portRange":null}`); !strings.Contains(e.Message, "resource.portRange") {
		t.Errorf("optional null: %q", e.Message)
	}
}
