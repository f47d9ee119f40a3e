package compute_test

import (
	"strings"
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

// TestDollarSystemParameters: the system parameters Google documents under two names ("$alt,
// alt", "$callback, callback", "$fields, fields", "$key, key", "$prettyPrint, prettyPrint",
// cloud.google.com/apis/docs/system-parameters) are taken under either, as Google's Node
// clients send them: $alt=json;enum-encoding=int (numericEnums) and $prettyPrint=0
// (minifyJson) on every call. The enum-encoding option of alt is accepted in either name;
// enums are still answered by name. A format other than json is still refused.
func TestDollarSystemParameters(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	if status, b := w.raw("POST", "global/forwardingRules?$alt=json%3Benum-encoding=int&$prettyPrint=0", `{"name":"fr-d"}`); status != 200 {
		t.Fatalf("insert: %d %s", status, b)
	} else if !strings.Contains(string(b), `"status":"DONE"`) {
		t.Errorf("insert: the operation's status is not DONE by name: %s", b)
	}
	status, b := w.raw("GET", "global/forwardingRules?$alt=json%3Benum-encoding=int&$prettyPrint=0&$fields=items(name)&$key=k&$callback=cb", "")
	if status != 200 {
		t.Fatalf("list: %d %s", status, b)
	}
	if want := `{"items":[{"name":"fr-d"}]}`; strings.TrimSpace(string(b)) != want {
		t.Errorf("list with $fields: %s, want %s", b, want)
	}
	if status, b := w.raw("GET", "global/forwardingRules?%24fields=items%2Fname", ""); status != 200 || strings.TrimSpace(string(b)) != `{"items":[{"name":"fr-d"}]}` {
		t.Errorf("list with %%24fields alone: %d %s", status, b)
	}
	if status, b := w.raw("GET", "global/forwardingRules/fr-d?alt=json%3Benum-encoding=int", ""); status != 200 {
		t.Errorf("alt=json;enum-encoding=int: %d %s", status, b)
	}
	status, b = w.raw("GET", "global/forwardingRules/fr-d?$alt=proto", "")
	wantGoogleError(t, status, b, 400, "invalid")
	status, b = w.raw("GET", "global/forwardingRules/fr-d?$colour=blue", "")
	wantGoogleError(t, status, b, 400, "invalid")
}
