package compute_test

import (
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
