package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestBodilessPostsTakeEmptyJSON: every operation that changes something and takes no
// body, in every API, takes the empty JSON values clients send there anyway (blanks, {},
// null, ""; @google-cloud/compute sends "" on operations.wait) as no body, and still
// refuses any other body in its own envelope. The operations are read from the specs, so
// that a new one is not missed.
func TestBodilessPostsTakeEmptyJSON(t *testing.T) {
	srv := understudytest.Start(t)
	newRule(t, srv.URL, "fr-bodiless")
	status, b := do(t, "GET", srv.URL+hProject+"/global/operations?maxResults=1", hCompute, nil, 0)
	var ops struct{ Items []struct{ Name string } }
	if status != 200 || json.Unmarshal(b, &ops) != nil || len(ops.Items) != 1 {
		t.Fatalf("list operations: %d %s", status, b)
	}
	op := ops.Items[0].Name

	// How to call each: its path and headers, and the envelope of its errors.
	calls := map[string]struct {
		path     string
		headers  map[string]string
		envelope func([]byte) (string, error)
	}{
		"reset":                 {"/_understudy/reset", nil, adminEnvelope},
		"globalOperations.wait": {hProject + "/global/operations/" + op + "/wait", hCompute, googleEnvelope},
		"regionOperations.wait": {hProject + "/regions/us-east4/operations/" + op + "/wait", hCompute, googleEnvelope},
	}
	var found []string
	for _, s := range apiSpecs {
		doc, err := s.load()
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range doc.Paths.Map() {
			for method, o := range item.Operations() {
				if o.RequestBody == nil && method != http.MethodGet && method != http.MethodDelete && method != http.MethodHead {
					found = append(found, o.OperationID)
				}
			}
		}
	}
	slices.Sort(found)
	want := []string{"globalOperations.wait", "regionOperations.wait", "reset"}
	if !slices.Equal(found, want) {
		t.Fatalf("the operations that take no body are %v: give the new ones a call here", found)
	}

	for _, id := range want {
		c := calls[id]
		for _, body := range []string{"", "  \n", "{}", "{ }", "null", `""`, ` "" `} {
			status, b := do(t, "POST", srv.URL+c.path, withHeaders(c.headers, "Content-Type", "application/json"), strings.NewReader(body), 0)
			// regionOperations.wait of a global operation's name is 404: found, not refused.
			if status != 200 && !(id == "regionOperations.wait" && status == 404) {
				t.Errorf("%s with body %q: %d %s", id, body, status, b)
			}
		}
		for _, body := range []string{`"x"`, `" "`, `[]`, `{"a":1}`, `0`} {
			status, b := do(t, "POST", srv.URL+c.path, withHeaders(c.headers, "Content-Type", "application/json"), strings.NewReader(body), 0)
			if _, err := c.envelope(b); status != 400 || err != nil {
				t.Errorf("%s with body %q: %d %s, want 400 in the API's envelope (%v)", id, body, status, b, err)
			}
		}
	}
}

// TestEmptyListParameters: every list-valued query parameter, in every API, given once
// with no value (?include=) is the empty list, as stripe-go sends one, whichever of the
// forms the accounts API takes it in (include=, include[]=); an empty value beside others
// is an item, refused as one. The parameters are read from the specs, so that a new one
// is not missed.
func TestEmptyListParameters(t *testing.T) {
	srv := understudytest.Start(t)
	acct := newAccount(t, srv.URL)
	paths := map[string]string{ // operationId.parameter: the path to call it on
		"listAccounts.applied_configurations": "/v2/core/accounts",
		"retrieveAccount.include":             "/v2/core/accounts/" + acct,
		"listEventDestinations.include":       "/v2/core/event_destinations",
		"listEvents.types":                    "/v2/core/events",
	}
	var found []string
	for _, s := range apiSpecs {
		doc, err := s.load()
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range doc.Paths.Map() {
			for _, o := range item.Operations() {
				for _, params := range []openapi3.Parameters{item.Parameters, o.Parameters} {
					for _, p := range params {
						if p.Value.In == openapi3.ParameterInQuery && p.Value.Schema != nil && p.Value.Schema.Value.Type.Is("array") {
							found = append(found, o.OperationID+"."+p.Value.Name)
						}
					}
				}
			}
		}
	}
	for _, id := range found {
		path, ok := paths[id]
		if !ok {
			// retrieveEventDestination needs a destination; the same parameter as its list's.
			if id == "retrieveEventDestination.include" {
				continue
			}
			t.Errorf("list parameter %s: give it a path here", id)
			continue
		}
		_, name, _ := strings.Cut(id, ".")
		for _, q := range []string{name + "=", name + "%5B%5D="} {
			if status, b := do(t, "GET", srv.URL+path+"?"+q, hAccounts, nil, 0); status != 200 {
				t.Errorf("%s?%s: %d %s", path, q, status, b)
			}
		}
		status, b := do(t, "GET", srv.URL+path+"?"+name+"=&"+name+"=x", hAccounts, nil, 0)
		if _, err := v2Envelope(b); status != 400 || err != nil {
			t.Errorf("%s?%s=&%s=x: %d %s, want 400 in the v2 envelope", path, name, name, status, b)
		}
	}
	if len(found) != len(paths)+1 {
		t.Errorf("list parameters %v, want the %d this test calls", found, len(paths)+1)
	}
}
