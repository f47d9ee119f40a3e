package compute_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/understudy-dev/understudy/internal/operations"
)

// What driving the Google Cloud CLI against the server found (understudytest's
// TestGoogleCloudCLIMore drives the commands themselves).

// TestCreateMembersRequestedFeatures: each interconnect createMembers makes has the
// requestedFeatures of its entry, or else of the template, as it has every other member of
// them. They were dropped: `gcloud compute interconnects groups create-members
// --interconnect=name=ic,facility=iad-1,requested-features=MACSEC` made an interconnect
// without IF_MACSEC.
func TestCreateMembersRequestedFeatures(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	ok := func(method, path, body string) {
		t.Helper()
		if status, b := w.raw(method, path, body); status != 200 {
			t.Fatalf("%s %s: %d %s", method, path, status, b)
		}
	}
	features := func(name string) []any {
		t.Helper()
		_, b := w.raw("GET", "global/interconnects/"+name, "")
		var ic map[string]any
		if err := json.Unmarshal(b, &ic); err != nil {
			t.Fatal(err)
		}
		got, _ := ic["requestedFeatures"].([]any)
		if avail, _ := ic["availableFeatures"].([]any); !slices.Equal(avail, got) {
			t.Errorf("%s: availableFeatures %v, requestedFeatures %v", name, avail, got)
		}
		return got
	}
	ok("POST", "global/interconnectGroups", `{"name":"grp","intent":{"topologyCapability":"NO_SLA"}}`)
	// What gcloud sends: the entry's own features, and the template's for the others.
	ok("POST", "global/interconnectGroups/grp/createMembers", `{"request":{"interconnects":[
		{"name":"ic-own","facility":"iad-1","requestedFeatures":["IF_MACSEC"]},
		{"name":"ic-template","facility":"iad-1"}],
		"templateInterconnect":{"interconnectType":"DEDICATED","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1,"requestedFeatures":["IF_CROSS_SITE_NETWORK"]}}}`)
	if got := features("ic-own"); !slices.Equal(got, []any{"IF_MACSEC"}) {
		t.Errorf("ic-own's requestedFeatures: %v, want its entry's [IF_MACSEC]", got)
	}
	if got := features("ic-template"); !slices.Equal(got, []any{"IF_CROSS_SITE_NETWORK"}) {
		t.Errorf("ic-template's requestedFeatures: %v, want the template's [IF_CROSS_SITE_NETWORK]", got)
	}
	// A feature no location offers is refused as on insert.
	status, b := w.raw("POST", "global/interconnectGroups/grp/createMembers", `{"request":{"interconnects":[{"name":"ic-l2","facility":"iad-1","requestedFeatures":["IF_L2_FORWARDING"]}],
		"templateInterconnect":{"interconnectType":"DEDICATED","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1}}}`)
	wantGoogleError(t, status, b, 400, "invalid")
	if status, _ := w.raw("GET", "global/interconnects/ic-l2", ""); status != 404 {
		t.Errorf("the refused createMembers made ic-l2: %d", status)
	}
}

// TestPatchNullInsideReplacedMember: an interconnect's patch replaces its macsec and
// applicationAwareInterconnect with the value sent, and inside that value a member given as
// null is a member not set, as proto3 JSON reads null. `gcloud alpha compute interconnects
// application-awareness delete` sends its configuration so (IncludeFields of
// applicationAwareInterconnect.bandwidthPercentagePolicy and .strictPriorityPolicy), which
// was refused with 400 ("must not be null"). A null elsewhere inside a member is still
// refused.
func TestPatchNullInsideReplacedMember(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-aai", "iad-zone1-1")
	read := func() map[string]any {
		t.Helper()
		_, b := w.raw("GET", "global/interconnects/ic-aai", "")
		var ic map[string]any
		if err := json.Unmarshal(b, &ic); err != nil {
			t.Fatal(err)
		}
		return ic
	}
	patch := func(body string) {
		t.Helper()
		if status, b := w.raw("PATCH", "global/interconnects/ic-aai", body); status != 200 {
			t.Fatalf("patch %s: %d %s", body, status, b)
		}
	}
	patch(`{"aaiEnabled":true,"applicationAwareInterconnect":{"profileDescription":"prof","strictPriorityPolicy":{}}}`)
	// application-awareness delete.
	patch(`{"aaiEnabled":false,"applicationAwareInterconnect":{"profileDescription":"","shapeAveragePercentages":[],"bandwidthPercentagePolicy":null,"strictPriorityPolicy":null}}`)
	ic := read()
	aai, _ := ic["applicationAwareInterconnect"].(map[string]any)
	if _, strict := aai["strictPriorityPolicy"]; strict || aai["shapeAveragePercentages"] != nil || ic["aaiEnabled"] == true {
		t.Errorf("after the delete: aaiEnabled %v, applicationAwareInterconnect %v", ic["aaiEnabled"], ic["applicationAwareInterconnect"])
	}
	// Deeper, and inside a list's elements: a key without a start time.
	patch(`{"macsec":{"failOpen":null,"preSharedKeys":[{"name":"k1","startTime":null}]}}`)
	macsec, _ := read()["macsec"].(map[string]any)
	keys, _ := macsec["preSharedKeys"].([]any)
	if _, failOpen := macsec["failOpen"]; failOpen || len(keys) != 1 || keys[0].(map[string]any)["name"] != "k1" || keys[0].(map[string]any)["startTime"] != nil {
		t.Errorf("macsec: %v", macsec)
	}
	// A list element given as null is no member unset: refused.
	status, b := w.raw("PATCH", "global/interconnects/ic-aai", `{"macsec":{"preSharedKeys":[null]}}`)
	wantGoogleError(t, status, b, 400, "invalid")
}

// TestNoLabelsNoMember: a rule, interconnect or attachment without labels is read without a
// "labels" member, only its labelFingerprint, as the real service answers (an empty map is
// no member in the proto3 JSON it writes; `gcloud compute forwarding-rules describe` of a
// rule without labels shows labelFingerprint 42WmSpB8rSM= and no labels). It was answered
// "labels": {}, which gcloud showed. Cleared labels are none either.
func TestNoLabelsNoMember(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-nl", "iad-zone1-1")
	w.attachment("us-east4", "att-nl", "ic-nl", true)
	if status, b := w.raw("POST", "global/forwardingRules", `{"name":"fr-nl","portRange":"80"}`); status != 200 {
		t.Fatalf("insert: %d %s", status, b)
	}
	read := func(path string) map[string]any {
		t.Helper()
		status, b := w.raw("GET", path, "")
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || status != 200 {
			t.Fatalf("get %s: %d %s", path, status, b)
		}
		return m
	}
	for _, path := range []string{"global/forwardingRules/fr-nl", "global/interconnects/ic-nl", "regions/us-east4/interconnectAttachments/att-nl"} {
		m := read(path)
		if l, has := m["labels"]; has || m["labelFingerprint"] != "42WmSpB8rSM=" {
			t.Errorf("%s: labels %v (present %v), labelFingerprint %v", path, l, has, m["labelFingerprint"])
		}
		fp := m["labelFingerprint"].(string)
		set := path + "/setLabels"
		if status, b := w.raw("POST", set, `{"labels":{"env":"prod"},"labelFingerprint":"`+fp+`"}`); status != 200 {
			t.Fatalf("setLabels %s: %d %s", path, status, b)
		}
		m = read(path)
		if l, _ := m["labels"].(map[string]any); l["env"] != "prod" {
			t.Errorf("%s after setLabels: %v", path, m["labels"])
		}
		if status, b := w.raw("POST", set, `{"labels":{},"labelFingerprint":"`+m["labelFingerprint"].(string)+`"}`); status != 200 {
			t.Fatalf("clearing %s: %d %s", path, status, b)
		}
		if l, has := read(path)["labels"]; has {
			t.Errorf("%s after clearing: labels %v", path, l)
		}
	}
	// Lists, and the aggregated ones gcloud calls, read the same.
	for _, path := range []string{"global/forwardingRules", "global/interconnects", "regions/us-east4/interconnectAttachments"} {
		items, _ := read(path)["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("%s: %v", path, items)
		}
		if l, has := items[0].(map[string]any)["labels"]; has {
			t.Errorf("%s: labels %v", path, l)
		}
	}
	scoped, _ := read("aggregated/interconnectAttachments")["items"].(map[string]any)
	east, _ := scoped["regions/us-east4"].(map[string]any)
	atts, _ := east["interconnectAttachments"].([]any)
	if len(atts) != 1 {
		t.Fatalf("aggregated: %v", scoped["regions/us-east4"])
	}
	if l, has := atts[0].(map[string]any)["labels"]; has {
		t.Errorf("aggregated attachment: labels %v", l)
	}
}
