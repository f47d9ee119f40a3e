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
