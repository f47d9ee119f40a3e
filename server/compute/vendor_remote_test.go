package compute_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	compute "google.golang.org/api/compute/v1"
)

// TestVendorRemoteLocations: interconnectRemoteLocations.get and list through Google's own
// Go client: every member decoded into its types, the list paged by the client's Pages and
// filtered, an unknown name 404 notFound.
func TestVendorRemoteLocations(t *testing.T) {
	w := newVMWorld(t)
	r, err := w.svc.InterconnectRemoteLocations.Get(vendorProject, "aws-iad-1").Context(w.ctx).Do()
	if err != nil {
		t.Fatalf("InterconnectRemoteLocations.Get: %v", err)
	}
	if r.Kind != "compute#interconnectRemoteLocation" || r.Id == 0 || r.SelfLink != w.url("global/interconnectRemoteLocations/aws-iad-1") ||
		r.RemoteService != "Amazon Web Services" || r.Status != "AVAILABLE" || r.Lacp != "LACP_SUPPORTED" || r.MaxLagSize10Gbps != 8 || r.MaxLagSize100Gbps != 4 ||
		r.Continent != "NORTH_AMERICA" || r.PeeringdbFacilityId == "" || r.Constraints == nil || r.Constraints.SubnetLengthRange == nil ||
		r.Constraints.SubnetLengthRange.Min != 29 || r.Constraints.SubnetLengthRange.Max != 30 ||
		r.Constraints.PortPairRemoteLocation != "PORT_PAIR_UNCONSTRAINED_REMOTE_LOCATION" || r.AttachmentConfigurationConstraints == nil ||
		r.AttachmentConfigurationConstraints.BgpMd5 != "MD5_OPTIONAL" || len(r.AttachmentConfigurationConstraints.BgpPeerAsnRanges) != 2 ||
		r.AttachmentConfigurationConstraints.BgpPeerAsnRanges[1].Max != 4294967294 {
		t.Errorf("get: %+v", r)
	}
	var permitted []string
	for _, p := range r.PermittedConnections {
		permitted = append(permitted, p.InterconnectLocation)
	}
	if !slices.Contains(permitted, w.url("global/interconnectLocations/iad-zone1-1")) {
		t.Errorf("permittedConnections %v, want iad-zone1-1's URL among them", permitted)
	}

	var names []string
	pages := 0
	err = w.svc.InterconnectRemoteLocations.List(vendorProject).MaxResults(2).Pages(w.ctx, func(l *compute.InterconnectRemoteLocationList) error {
		pages++
		if l.Kind != "compute#interconnectRemoteLocationList" || l.SelfLink != w.url("global/interconnectRemoteLocations") || len(l.Items) > 2 {
			t.Errorf("page %d: kind %q selfLink %q, %d items", pages, l.Kind, l.SelfLink, len(l.Items))
		}
		for _, it := range l.Items {
			names = append(names, it.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("InterconnectRemoteLocations.List: %v", err)
	}
	if len(names) < 4 || !slices.IsSorted(names) || pages != (len(names)+1)/2 {
		t.Errorf("listed %v in %d pages of 2", names, pages)
	}
	closed, err := w.svc.InterconnectRemoteLocations.List(vendorProject).Filter("status = CLOSED").Context(w.ctx).Do()
	if err != nil || len(closed.Items) != 1 || closed.Items[0].Name != "azure-sjc-1" || closed.Items[0].MaxLagSize10Gbps != 1 {
		t.Errorf("status = CLOSED: %v %+v", err, closed)
	}

	_, err = w.svc.InterconnectRemoteLocations.Get(vendorProject, "aws-nowhere-1").Context(w.ctx).Do()
	if e := vendorAPIError(t, err, http.StatusNotFound, "notFound"); !strings.Contains(e.Message, "global/interconnectRemoteLocations/aws-nowhere-1' was not found") {
		t.Errorf("unknown: %q", e.Message)
	}
}
