package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

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
