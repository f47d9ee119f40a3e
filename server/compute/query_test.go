package compute_test

import (
	"testing"

	"github.com/understudy-dev/understudy/internal/operations"
)

// TestUnknownQueryParametersRefused: a query parameter the method does not take is a 400 in
// Google's words, even one another method takes (setLabels has no requestId: a retry that
// counted on it would not be safe); the parameters every Google method takes pass.
func TestUnknownQueryParametersRefused(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	if status, b := w.raw("POST", "global/forwardingRules?requestId=0b1f6471-1bf0-4dda-aec3-111111111111", `{"name":"fr-q"}`); status != 200 {
		t.Fatalf("insert: %d %s", status, b)
	}
	status, b := w.raw("POST", "global/forwardingRules/fr-q/setLabels?requestId=0b1f6471-1bf0-4dda-aec3-222222222222", `{"labels":{"a":"1"},"labelFingerprint":"42WmSpB8rSM="}`)
	e := wantGoogleError(t, status, b, 400, "invalid")
	if want := `Invalid JSON payload received. Unknown name "requestId": Cannot bind query parameter. Field 'requestId' could not be found in request message.`; e.Message != want {
		t.Errorf("message: %q, want %q", e.Message, want)
	}
	status, b = w.raw("GET", "global/forwardingRules?colour=blue", "")
	wantGoogleError(t, status, b, 400, "invalid")
	if status, b := w.raw("GET", "global/forwardingRules?alt=json&prettyPrint=false&fields=items(name)&quotaUser=u&key=k&$.xgafv=2", ""); status != 200 {
		t.Errorf("system parameters: %d %s", status, b)
	}
}
