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

// TestVendorCrossCloudInterconnect: an interconnect inserted through Google's Go client with
// a remoteLocation names a remote location of the catalog and reads back with its URL; one
// the catalog lacks, a location it does not permit and a bundle above its maxLagSize are
// 400 invalid, naming the member.
func TestVendorCrossCloudInterconnect(t *testing.T) {
	w := newVMWorld(t)
	insert := func(name, location, remote string, links int64) (*compute.Operation, error) {
		return w.svc.Interconnects.Insert(vendorProject, &compute.Interconnect{Name: name, Location: w.url("global/interconnectLocations/" + location),
			RemoteLocation: remote, LinkType: "LINK_TYPE_ETHERNET_100G_LR", RequestedLinkCount: links, InterconnectType: "DEDICATED"}).Context(w.ctx).Do()
	}
	op, err := insert("ic-oci", "fra-zone2-4", w.url("global/interconnectRemoteLocations/oci-fra-1"), 8)
	w.done("insert ic-oci", op, err)
	ic, err := w.svc.Interconnects.Get(vendorProject, "ic-oci").Context(w.ctx).Do()
	if err != nil || ic.RemoteLocation != w.url("global/interconnectRemoteLocations/oci-fra-1") || ic.Location != w.url("global/interconnectLocations/fra-zone2-4") {
		t.Fatalf("get: %v %+v", err, ic)
	}
	for _, tt := range []struct {
		location, remote string
		links            int64
		field            string
	}{
		{"fra-zone2-4", "oci-nowhere-1", 1, "resource.remoteLocation"},
		{"fra-zone1-4", "alibaba-fra-1", 1, "resource.location"},
		{"fra-zone2-4", "alibaba-fra-1", 3, "resource.requestedLinkCount"},
	} {
		_, err := insert("ic-bad", tt.location, tt.remote, tt.links)
		if e := vendorAPIError(t, err, http.StatusBadRequest, "invalid"); !strings.HasPrefix(e.Message, "Invalid value for field '"+tt.field+"'") {
			t.Errorf("%s at %s, %d links: %q, want it to name %s", tt.remote, tt.location, tt.links, e.Message, tt.field)
		}
	}
}
