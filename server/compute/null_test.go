package compute_test

import (
	"encoding/json"
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

// TestNullInMergePatch: a resource's patch is a JSON merge patch, in which a member given as
// null is removed. On a rule, the members patch changes go back to what an insert without
// them gets (the backend bucket migration cleared, as `gcloud compute forwarding-rules
// update --clear-external-managed-backend-bucket-migration-state` sends it); a member the
// resource does not have stays absent (an unchanged export imported back sends
// "allowGlobalAccess": null); removing one it has that patch does not change is 400 naming
// it. Interconnects and attachments take null for what they do not have, and refuse
// removing what they have.
func TestNullInMergePatch(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	if status, b := w.raw("POST", "global/forwardingRules", `{"name":"fr-n","description":"web","loadBalancingScheme":"EXTERNAL"}`); status != 200 {
		t.Fatalf("insert: %d %s", status, b)
	}
	patch := func(path, body string) (int, string) {
		t.Helper()
		status, b := w.raw("PATCH", path, body)
		return status, string(b)
	}
	rule := func() map[string]any {
		t.Helper()
		_, b := w.raw("GET", "global/forwardingRules/fr-n", "")
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	}
	if status, b := patch("global/forwardingRules/fr-n", `{"externalManagedBackendBucketMigrationState":"TEST_BY_PERCENTAGE","externalManagedBackendBucketMigrationTestingPercentage":50}`); status != 200 {
		t.Fatalf("set the migration: %d %s", status, b)
	}
	if status, b := patch("global/forwardingRules/fr-n", `{"name":"fr-n","externalManagedBackendBucketMigrationState":null,"externalManagedBackendBucketMigrationTestingPercentage":null}`); status != 200 {
		t.Fatalf("clear the migration: %d %s", status, b)
	}
	if r := rule(); r["externalManagedBackendBucketMigrationState"] != nil || r["externalManagedBackendBucketMigrationTestingPercentage"] != nil || r["networkTier"] != "PREMIUM" {
		t.Errorf("after the clearing patch: %v", r)
	}
	if status, b := patch("global/forwardingRules/fr-n", `{"name":"fr-n","allowGlobalAccess":null,"networkTier":null,"metadataFilters":[]}`); status != 200 {
		t.Errorf("nulls of members the rule does not have: %d %s", status, b)
	}
	if r := rule(); r["networkTier"] != "PREMIUM" || r["description"] != "web" {
		t.Errorf("after removing networkTier: %v", r)
	}
	status, b := patch("global/forwardingRules/fr-n", `{"description":null}`)
	if e := wantGoogleError(t, status, []byte(b), 400, "invalid"); !strings.Contains(e.Message, "resource.description") {
		t.Errorf("removing the description: %q", e.Message)
	}

	w.interconnect("ic-n", "iad-zone1-1")
	if status, b := patch("global/interconnects/ic-n", `{"macsec":null,"description":null,"nocContactEmail":"noc@example.com"}`); status != 200 {
		t.Errorf("interconnect: nulls of members it does not have: %d %s", status, b)
	}
	status, b = patch("global/interconnects/ic-n", `{"nocContactEmail":null}`)
	if e := wantGoogleError(t, status, []byte(b), 400, "invalid"); !strings.Contains(e.Message, "resource.nocContactEmail") {
		t.Errorf("interconnect: removing its nocContactEmail: %q", e.Message)
	}
}

// TestNullInMergePatchNotUTF8: a merge patch whose bytes are not UTF-8 is refused as every
// body that is not is, even with a member given as null: its nulls are taken out only of a
// body the validator has read and found UTF-8.
func TestNullInMergePatchNotUTF8(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	if status, b := w.raw("POST", "global/forwardingRules", `{"name":"fr-u","loadBalancingScheme":"EXTERNAL"}`); status != 200 {
		t.Fatalf("insert: %d %s", status, b)
	}
	status, b := w.raw("PATCH", "global/forwardingRules/fr-u", "{\"description\":\"a\xffb\",\"allowGlobalAccess\":null}")
	if e := wantGoogleError(t, status, b, 400, "parseError"); !strings.Contains(e.Message, "UTF-8") {
		t.Errorf("not UTF-8: %q", e.Message)
	}
	if r := func() map[string]any {
		_, b := w.raw("GET", "global/forwardingRules/fr-u", "")
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	}(); r["description"] != nil {
		t.Errorf("the refused patch changed the rule: %v", r)
	}
}
