package compute_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// TestRemoteLocationCatalog: the remote locations list (every page, each entry whole, its
// links built from the request's host), filtered and newest first, and get, by the
// generated client, whose transport checks every answer against the spec.
func TestRemoteLocationCatalog(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	list := func(p *gen.InterconnectRemoteLocationsListParams) *gen.InterconnectRemoteLocationsListResponse {
		t.Helper()
		resp, err := w.c.InterconnectRemoteLocationsListWithResponse(apiCtx, apiProject, p)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	names := func(items []gen.InterconnectRemoteLocation) []string {
		var out []string
		for _, r := range items {
			out = append(out, *r.Name)
		}
		return out
	}
	all := list(nil)
	if all.StatusCode() != 200 {
		t.Fatalf("list: %d %s", all.StatusCode(), all.Body)
	}
	l := all.JSON200
	if l.Kind != gen.InterconnectRemoteLocationListKindComputeInterconnectRemoteLocationList || l.Id != "projects/"+apiProject+"/global/interconnectRemoteLocations" ||
		l.SelfLink != w.url("global/interconnectRemoteLocations") || l.NextPageToken != nil {
		t.Errorf("list: %s", all.Body)
	}
	got := names(l.Items)
	if len(got) < 4 || !slices.IsSorted(got) {
		t.Fatalf("names %v, want several, sorted", got)
	}
	services := map[string]bool{}
	for _, r := range l.Items {
		services[*r.RemoteService] = true
		if *r.Kind != "compute#interconnectRemoteLocation" || *r.Id == "" || *r.SelfLink != w.url("global/interconnectRemoteLocations/"+*r.Name) ||
			*r.CreationTimestamp == "" || r.City == nil || r.Continent == nil || r.Lacp == nil || r.Constraints.SubnetLengthRange == nil ||
			r.AttachmentConfigurationConstraints.BgpMd5 == nil || len(r.PermittedConnections) == 0 {
			t.Errorf("%s: not whole: %+v", *r.Name, r)
		}
		// Every permitted connection is a location of the catalog, by its URL.
		for _, p := range r.PermittedConnections {
			loc := strings.TrimPrefix(*p.InterconnectLocation, w.url("global/interconnectLocations/"))
			if got, _ := w.c.InterconnectLocationsGetWithResponse(apiCtx, apiProject, loc, nil); got.StatusCode() != 200 {
				t.Errorf("%s permits %s: %d", *r.Name, *p.InterconnectLocation, got.StatusCode())
			}
		}
	}
	for _, s := range []string{"Amazon Web Services", "Microsoft Azure", "Oracle Cloud Infrastructure", "Alibaba Cloud"} {
		if !services[s] {
			t.Errorf("no remote location of %s in %v", s, services)
		}
	}

	// Pages of two, each token continuing the last.
	var paged []string
	p := &gen.InterconnectRemoteLocationsListParams{MaxResults: ptr(uint32(2))}
	for pages := 0; ; pages++ {
		page := list(p)
		if page.StatusCode() != 200 || len(page.JSON200.Items) > 2 || pages > len(got) {
			t.Fatalf("page %d: %d %s", pages, page.StatusCode(), page.Body)
		}
		paged = append(paged, names(page.JSON200.Items)...)
		if page.JSON200.NextPageToken == nil {
			break
		}
		p.PageToken = page.JSON200.NextPageToken
	}
	if !slices.Equal(paged, got) {
		t.Errorf("paged %v, want %v", paged, got)
	}

	// Filters on members nested and not, and newest first (the catalog was made at once:
	// the same order).
	for filter, want := range map[string]string{
		`remoteService = "Microsoft Azure"`:                           "azure-iad-1,azure-sjc-1",
		`constraints.subnetLengthRange.min = 30 status = AVAILABLE`:   "azure-iad-1",
		`attachmentConfigurationConstraints.bgpMd5 = MD5_UNSUPPORTED`: "oci-fra-1",
		`maxLagSize400Gbps > 0`:                                       "aws-lhr-1",
		`name eq "aws-.*"`:                                            "aws-iad-1,aws-lhr-1",
	} {
		resp := list(&gen.InterconnectRemoteLocationsListParams{Filter: ptr(filter)})
		if resp.StatusCode() != 200 || strings.Join(names(resp.JSON200.Items), ",") != want {
			t.Errorf("filter %s: %d %s, want %s", filter, resp.StatusCode(), resp.Body, want)
		}
	}
	if newest := list(&gen.InterconnectRemoteLocationsListParams{OrderBy: ptr("creationTimestamp desc")}); newest.StatusCode() != 200 || len(newest.JSON200.Items) != len(got) {
		t.Errorf("newest first: %s", newest.Body)
	}
	bad := list(&gen.InterconnectRemoteLocationsListParams{Filter: ptr("colour = red")})
	if e := wantGoogleError(t, bad.StatusCode(), bad.Body, 400, "invalid"); e.Errors[0].Location != "filter" {
		t.Errorf("unknown field: %+v", e)
	}

	one, err := w.c.InterconnectRemoteLocationsGetWithResponse(apiCtx, apiProject, "azure-iad-1", nil)
	if err != nil || one.StatusCode() != 200 {
		t.Fatalf("get: %v %s", err, one.Body)
	}
	r := one.JSON200
	if *r.RemoteService != "Microsoft Azure" || *r.Lacp != "LACP_UNSUPPORTED" || *r.MaxLagSize10Gbps != 1 || r.MaxLagSize400Gbps != nil ||
		*r.Constraints.PortPairVlan != "PORT_PAIR_MATCHING_VLAN" || *r.Constraints.SubnetLengthRange.Min != 30 || *r.Status != "AVAILABLE" ||
		len(r.AttachmentConfigurationConstraints.BgpPeerAsnRanges) != 1 || *r.AttachmentConfigurationConstraints.BgpPeerAsnRanges[0].Min != 12076 ||
		*r.PermittedConnections[0].InterconnectLocation != w.url("global/interconnectLocations/iad-zone1-1") {
		t.Errorf("get: %s", one.Body)
	}
	missing, _ := w.c.InterconnectRemoteLocationsGetWithResponse(apiCtx, apiProject, "aws-xyz-1", nil)
	if e := wantGoogleError(t, missing.StatusCode(), missing.Body, 404, "notFound"); e.Message != "The resource 'projects/"+apiProject+"/global/interconnectRemoteLocations/aws-xyz-1' was not found" {
		t.Errorf("unknown: %q", e.Message)
	}
}

// TestCrossCloudInterconnects: an interconnect's remoteLocation names a remote location of
// the catalog, by name or URL (full, as gcloud sends it, or partial), and reads back as its
// full URL; the insert is held to the remote location (known, open, permitting the
// location, taking the links), a patch to its bundle size, and the remote location itself
// does not change.
func TestCrossCloudInterconnects(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	insert := func(name, location, remote, linkType string, links int32) *gen.InterconnectsInsertResponse {
		t.Helper()
		resp, err := w.c.InterconnectsInsertWithResponse(apiCtx, apiProject, nil, gen.Interconnect{Name: name, Location: "global/interconnectLocations/" + location,
			RemoteLocation: &remote, LinkType: gen.InterconnectLinkType(linkType), RequestedLinkCount: links, InterconnectType: "DEDICATED"})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	const tenG, hundredG, fourHundredG = "LINK_TYPE_ETHERNET_10G_LR", "LINK_TYPE_ETHERNET_100G_LR", "LINK_TYPE_ETHERNET_400G_LR4"
	for _, tt := range []struct{ name, location, remote, linkType string }{
		{"cci-name", "iad-zone1-1", "aws-iad-1", tenG},
		{"cci-relative", "iad-zone2-1", "global/interconnectRemoteLocations/aws-iad-1", tenG},
		{"cci-partial", "iad-zone1-2", "projects/" + apiProject + "/global/interconnectRemoteLocations/aws-iad-1", hundredG},
		{"cci-url", "iad-zone1-1", w.url("global/interconnectRemoteLocations/azure-iad-1"), tenG},
		{"cci-googleapis", "lhr-zone2-34", "https://www.googleapis.com/compute/v1/projects/" + apiProject + "/global/interconnectRemoteLocations/aws-lhr-1", fourHundredG},
	} {
		if r := insert(tt.name, tt.location, tt.remote, tt.linkType, 1); r.StatusCode() != 200 || *r.JSON200.Status != "DONE" {
			t.Fatalf("%s: %d %s", tt.name, r.StatusCode(), r.Body)
		}
		ic, _ := w.c.InterconnectsGetWithResponse(apiCtx, apiProject, tt.name, nil)
		want := w.url("global/interconnectRemoteLocations/" + tt.remote[strings.LastIndexByte(tt.remote, '/')+1:])
		if ic.StatusCode() != 200 || deref(ic.JSON200.RemoteLocation) != want {
			t.Errorf("%s: remoteLocation %q, want %q", tt.name, deref(ic.JSON200.RemoteLocation), want)
		}
	}
	if ic, _ := w.c.InterconnectsGetWithResponse(apiCtx, apiProject, "cci-name", nil); ic.JSON200.RemoteLocation == nil {
		t.Fatal("no remoteLocation")
	}
	w.interconnect("plain", "iad-zone1-1")
	if ic, _ := w.c.InterconnectsGetWithResponse(apiCtx, apiProject, "plain", nil); ic.JSON200.RemoteLocation != nil {
		t.Errorf("an interconnect without one reads with remoteLocation %q", *ic.JSON200.RemoteLocation)
	}

	for _, tt := range []struct {
		name, location, remote, linkType string
		links                            int32
		field, words                     string
	}{
		{"unknown", "iad-zone1-1", "aws-xyz-1", tenG, 1, "resource.remoteLocation", "'aws-xyz-1'. Unknown interconnect remote location."},
		{"malformed", "iad-zone1-1", "global/interconnectLocations/iad-zone1-1", tenG, 1, "resource.remoteLocation", "The URL is malformed."},
		{"closed", "sjc-zone1-6", "azure-sjc-1", tenG, 1, "resource.remoteLocation", "closed for provisioning new Cross-Cloud Interconnects"},
		{"not permitted", "lax-zone1-8", "aws-iad-1", tenG, 1, "resource.location", "Remote location 'aws-iad-1' does not permit connections from interconnect location 'lax-zone1-8'."},
		{"above maxLagSize10Gbps", "iad-zone1-1", "aws-iad-1", tenG, 9, "resource.requestedLinkCount", "'9'. Remote location 'aws-iad-1' takes at most 8 LINK_TYPE_ETHERNET_10G_LR links in a bundle (maxLagSize10Gbps)."},
		{"no 400G", "iad-zone1-1", "aws-iad-1", fourHundredG, 1, "resource.requestedLinkCount", "takes at most 0 LINK_TYPE_ETHERNET_400G_LR4 links"},
		{"no LACP", "iad-zone1-1", "azure-iad-1", hundredG, 2, "resource.requestedLinkCount", "takes at most 1 LINK_TYPE_ETHERNET_100G_LR links in a bundle (maxLagSize100Gbps)"},
	} {
		r := insert("cci-bad", tt.location, tt.remote, tt.linkType, tt.links)
		if e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid"); e.Errors[0].Location != tt.field || !strings.Contains(e.Message, tt.words) ||
			!strings.HasPrefix(e.Message, "Invalid value for field '"+tt.field+"': ") {
			t.Errorf("%s: %s %q", tt.name, e.Errors[0].Location, e.Message)
		}
	}
	if got, _ := w.c.InterconnectsGetWithResponse(apiCtx, apiProject, "cci-bad", nil); got.StatusCode() != 404 {
		t.Errorf("a refused insert made the interconnect: %d", got.StatusCode())
	}

	patch := func(name, body string) (int, []byte) {
		t.Helper()
		return w.raw(http.MethodPatch, "global/interconnects/"+name, body)
	}
	// The remote location sent back, in any form, changes nothing; another, or one for an
	// interconnect without, is refused.
	for _, same := range []string{`"aws-iad-1"`, `"global/interconnectRemoteLocations/aws-iad-1"`, `"` + w.url("global/interconnectRemoteLocations/aws-iad-1") + `"`} {
		if status, body := patch("cci-name", `{"remoteLocation":`+same+`,"description":"same"}`); status != 200 {
			t.Errorf("patch with %s: %d %s", same, status, body)
		}
	}
	for name, body := range map[string]string{"cci-name": `{"remoteLocation":"azure-iad-1"}`, "plain": `{"remoteLocation":"aws-iad-1"}`} {
		status, got := patch(name, body)
		if e := wantGoogleError(t, status, got, 400, "invalid"); e.Errors[0].Location != "resource.remoteLocation" || !strings.Contains(e.Message, "cannot be changed by patch") {
			t.Errorf("patch %s with %s: %+v", name, body, e)
		}
	}
	// The bundle grows up to what the remote location takes.
	if status, body := patch("cci-name", `{"requestedLinkCount":8}`); status != 200 {
		t.Errorf("patch to 8 links: %d %s", status, body)
	}
	status, body := patch("cci-name", `{"requestedLinkCount":9}`)
	if e := wantGoogleError(t, status, body, 400, "invalid"); e.Errors[0].Location != "resource.requestedLinkCount" {
		t.Errorf("patch to 9 links: %+v", e)
	}
	status, body = patch("cci-url", `{"requestedLinkCount":2}`)
	if e := wantGoogleError(t, status, body, 400, "invalid"); !strings.Contains(e.Message, "azure-iad-1") {
		t.Errorf("patch of an interconnect to Azure to 2 links: %+v", e)
	}
	if ic, _ := w.c.InterconnectsGetWithResponse(apiCtx, apiProject, "cci-name", nil); ic.JSON200.RequestedLinkCount != 8 || *ic.JSON200.Description != "same" {
		t.Errorf("after the patches: %s", ic.Body)
	}
}
