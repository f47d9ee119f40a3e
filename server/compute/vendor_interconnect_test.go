package compute_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	compute "google.golang.org/api/compute/v1"

	"github.com/understudy-dev/understudy/internal/operations"
)

// These tests build an interconnect topology with the vendor's own generated Go client
// (google.golang.org/api/compute/v1) and read back an attachment group's SLA analysis at
// each level. Helpers shared with vendor_client_test.go: vendorIsolate, vendorStart,
// vendorService, vendorToken, vendorWait, vendorAPIError, vendorUUID.

// vicDocLink is where every SLA blocker points.
const vicDocLink = "https://cloud.google.com/network-connectivity/docs/interconnect/support/fix-sla"

// vicWaitRegion waits on a regional operation with regionOperations.wait until it is DONE.
func vicWaitRegion(t *testing.T, svc *compute.Service, region, name string) *compute.Operation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		op, err := svc.RegionOperations.Wait(vendorProject, region, name).Context(ctx).Do()
		if err != nil {
			t.Fatalf("RegionOperations.Wait(%s, %s): %v", region, name, err)
		}
		if op.Status == "DONE" {
			return op
		}
		if ctx.Err() != nil {
			t.Fatalf("operation %s: got status %s after 30s, want DONE", name, op.Status)
		}
	}
}

// vicNoOpError fails when a DONE operation carries an error.
func vicNoOpError(t *testing.T, what string, op *compute.Operation) {
	t.Helper()
	if op.Error != nil && len(op.Error.Errors) > 0 {
		e := op.Error.Errors[0]
		t.Fatalf("%s: operation %s ended with %s %q (HTTP %d %s), want success", what, op.Name, e.Code, e.Message, op.HttpErrorStatusCode, op.HttpErrorMessage)
	}
	if op.HttpErrorStatusCode != 0 {
		t.Fatalf("%s: operation %s has httpErrorStatusCode %d, want none", what, op.Name, op.HttpErrorStatusCode)
	}
}

// vicGroupRequest is an insert body: intent and attachment URLs under keys k0, k1, ...
func vicGroupRequest(name, intent string, urls ...string) *compute.InterconnectAttachmentGroup {
	g := &compute.InterconnectAttachmentGroup{
		Name:   name,
		Intent: &compute.InterconnectAttachmentGroupIntent{AvailabilitySla: intent},
	}
	if len(urls) > 0 {
		g.Attachments = map[string]compute.InterconnectAttachmentGroupAttachment{}
		for i, u := range urls {
			g.Attachments[fmt.Sprintf("k%d", i)] = compute.InterconnectAttachmentGroupAttachment{Attachment: u}
		}
	}
	return g
}

// vicInsertGroupOp inserts a group and returns its DONE operation, error or not.
func vicInsertGroupOp(t *testing.T, svc *compute.Service, g *compute.InterconnectAttachmentGroup) *compute.Operation {
	t.Helper()
	op, err := svc.InterconnectAttachmentGroups.Insert(vendorProject, g).Context(context.Background()).Do()
	if err != nil {
		t.Fatalf("InterconnectAttachmentGroups.Insert(%s): %v", g.Name, err)
	}
	if got, want := op.OperationType, "insert"; got != want {
		t.Errorf("insert %s: operationType %q, want %q", g.Name, got, want)
	}
	if got, want := op.TargetLink, "/global/interconnectAttachmentGroups/"+g.Name; !strings.HasSuffix(got, want) {
		t.Errorf("insert %s: targetLink %q, want a URL ending with %q", g.Name, got, want)
	}
	return vendorWait(t, svc, op.Name)
}

// vicGroup inserts a group, waits for it and reads it back.
func vicGroup(t *testing.T, svc *compute.Service, g *compute.InterconnectAttachmentGroup) *compute.InterconnectAttachmentGroup {
	t.Helper()
	vicNoOpError(t, "insert "+g.Name, vicInsertGroupOp(t, svc, g))
	got, err := svc.InterconnectAttachmentGroups.Get(vendorProject, g.Name).Context(context.Background()).Do()
	if err != nil {
		t.Fatalf("InterconnectAttachmentGroups.Get(%s): %v", g.Name, err)
	}
	if got.Kind != "compute#interconnectAttachmentGroup" || got.Name != g.Name || got.Id == 0 || got.Etag == "" {
		t.Errorf("group %s: got kind %q name %q id %d etag %q, want compute#interconnectAttachmentGroup, the name, an id and an etag",
			g.Name, got.Kind, got.Name, got.Id, got.Etag)
	}
	if got.Intent == nil || got.Intent.AvailabilitySla != g.Intent.AvailabilitySla {
		t.Errorf("group %s: intent %+v, want %s", g.Name, got.Intent, g.Intent.AvailabilitySla)
	}
	if len(got.Attachments) != len(g.Attachments) {
		t.Errorf("group %s: %d attachments, want %d", g.Name, len(got.Attachments), len(g.Attachments))
	}
	for k, a := range g.Attachments {
		if got.Attachments[k].Attachment != a.Attachment {
			t.Errorf("group %s: attachments[%s] = %q, want %q", g.Name, k, got.Attachments[k].Attachment, a.Attachment)
		}
	}
	return got
}

// vicDeleteGroup deletes a group and waits until it is gone.
func vicDeleteGroup(t *testing.T, svc *compute.Service, name string) {
	t.Helper()
	ctx := context.Background()
	op, err := svc.InterconnectAttachmentGroups.Delete(vendorProject, name).Context(ctx).Do()
	if err != nil {
		t.Fatalf("InterconnectAttachmentGroups.Delete(%s): %v", name, err)
	}
	vicNoOpError(t, "delete "+name, vendorWait(t, svc, op.Name))
	_, err = svc.InterconnectAttachmentGroups.Get(vendorProject, name).Context(ctx).Do()
	vendorAPIError(t, err, http.StatusNotFound, "notFound")
}

// vicSLA is the configured availability SLA of a group (never nil after the checks).
func vicSLA(t *testing.T, g *compute.InterconnectAttachmentGroup) *compute.InterconnectAttachmentGroupConfiguredAvailabilitySLA {
	t.Helper()
	if g.Configured == nil || g.Configured.AvailabilitySla == nil {
		t.Fatalf("group %s: configured.availabilitySla missing (configured %+v)", g.Name, g.Configured)
	}
	return g.Configured.AvailabilitySla
}

// vicBlocker is an expected intendedSlaBlockers entry; nil lists must be empty.
type vicBlocker struct {
	Type                                string
	Metros, Regions, Zones, Attachments []string
}

func vicCheckAnalysis(t *testing.T, g *compute.InterconnectAttachmentGroup, effective string, want ...vicBlocker) {
	t.Helper()
	av := vicSLA(t, g)
	if av.EffectiveSla != effective {
		t.Errorf("group %s: effectiveSla %q, want %q", g.Name, av.EffectiveSla, effective)
	}
	vicCheckBlockers(t, g.Name, av.IntendedSlaBlockers, want)
}

func vicCheckBlockers(t *testing.T, name string, got []*compute.InterconnectAttachmentGroupConfiguredAvailabilitySLAIntendedSlaBlockers, want []vicBlocker) {
	t.Helper()
	types := make([]string, len(got))
	for i, b := range got {
		types[i] = b.BlockerType
	}
	wantTypes := make([]string, len(want))
	for i, b := range want {
		wantTypes[i] = b.Type
	}
	if !slices.Equal(types, wantTypes) {
		t.Errorf("group %s: blockers %q, want %q", name, types, wantTypes)
		return
	}
	for i, b := range got {
		w := want[i]
		for _, f := range []struct {
			field     string
			got, want []string
		}{
			{"metros", b.Metros, w.Metros},
			{"regions", b.Regions, w.Regions},
			{"zones", b.Zones, w.Zones},
			{"attachments", b.Attachments, w.Attachments},
		} {
			if !slices.Equal(f.got, f.want) {
				t.Errorf("group %s: blocker %d (%s) %s: got %q, want %q", name, i, b.BlockerType, f.field, f.got, f.want)
			}
		}
		if strings.TrimSpace(b.Explanation) == "" {
			t.Errorf("group %s: blocker %d (%s): explanation empty", name, i, b.BlockerType)
		}
		for _, m := range w.Metros {
			if !strings.Contains(b.Explanation, m) {
				t.Errorf("group %s: blocker %d (%s): explanation %q does not name metro %s", name, i, b.BlockerType, b.Explanation, m)
			}
		}
		for _, r := range w.Regions {
			if !strings.Contains(b.Explanation, r) {
				t.Errorf("group %s: blocker %d (%s): explanation %q does not name region %s", name, i, b.BlockerType, b.Explanation, r)
			}
		}
		if b.DocumentationLink == "" {
			t.Errorf("group %s: blocker %d (%s): documentationLink empty", name, i, b.BlockerType)
		} else if b.DocumentationLink != vicDocLink {
			t.Errorf("group %s: blocker %d (%s): documentationLink %q, want %q", name, i, b.BlockerType, b.DocumentationLink, vicDocLink)
		}
	}
}

// vicPlace is where the logical structure puts an attachment.
type vicPlace struct{ Region, Metro, Zone, URL string }

// vicStructure walks a group's logicalStructure: every list sorted, every attachment exactly
// once, and each attachment's place. It also returns the facilities of each region/metro.
func vicStructure(t *testing.T, g *compute.InterconnectAttachmentGroup) ([]vicPlace, map[string][]string) {
	t.Helper()
	ls := g.LogicalStructure
	if ls == nil {
		if len(g.Attachments) > 0 {
			t.Errorf("group %s: no logicalStructure, want one for %d attachments", g.Name, len(g.Attachments))
		}
		return nil, nil
	}
	sorted := func(what string, names []string) {
		if !slices.IsSorted(names) {
			t.Errorf("group %s: %s not sorted: %q", g.Name, what, names)
		}
		if len(slices.Compact(slices.Clone(names))) != len(names) {
			t.Errorf("group %s: %s has duplicates: %q", g.Name, what, names)
		}
	}
	var places []vicPlace
	facilities := map[string][]string{}
	seen := map[string]int{}
	var regions []string
	for _, r := range ls.Regions {
		regions = append(regions, r.Region)
		var metros []string
		for _, m := range r.Metros {
			metros = append(metros, m.Metro)
			var fs []string
			for _, f := range m.Facilities {
				if f.Facility == "" {
					t.Errorf("group %s: %s/%s has a facility without a name", g.Name, r.Region, m.Metro)
				}
				fs = append(fs, f.Facility)
				var zones []string
				for _, z := range f.Zones {
					zones = append(zones, z.Zone)
					sorted(fmt.Sprintf("attachments of %s/%s/%s/%s", r.Region, m.Metro, f.Facility, z.Zone), z.Attachments)
					if len(z.Attachments) == 0 {
						t.Errorf("group %s: zone %s/%s/%s/%s lists no attachments", g.Name, r.Region, m.Metro, f.Facility, z.Zone)
					}
					for _, a := range z.Attachments {
						seen[a]++
						places = append(places, vicPlace{r.Region, m.Metro, z.Zone, a})
					}
				}
				sorted(fmt.Sprintf("zones of %s/%s/%s", r.Region, m.Metro, f.Facility), zones)
			}
			sorted(fmt.Sprintf("facilities of %s/%s", r.Region, m.Metro), fs)
			facilities[r.Region+"/"+m.Metro] = fs
		}
		sorted("metros of "+r.Region, metros)
	}
	sorted("regions", regions)
	for a, n := range seen {
		if n != 1 {
			t.Errorf("group %s: attachment %s appears %d times in logicalStructure, want once", g.Name, a, n)
		}
	}
	for k, a := range g.Attachments {
		if seen[a.Attachment] == 0 {
			t.Errorf("group %s: attachment %s (%s) missing from logicalStructure", g.Name, k, a.Attachment)
		}
	}
	if len(seen) != len(g.Attachments) {
		t.Errorf("group %s: logicalStructure lists %d attachments, the group has %d", g.Name, len(seen), len(g.Attachments))
	}
	return places, facilities
}

// vicCheckPlaces compares places as sets: the traversal order follows facility names, which
// need not follow zones (vicStructure checks the order of every level).
func vicCheckPlaces(t *testing.T, name string, got, want []vicPlace) {
	t.Helper()
	byURL := func(a, b vicPlace) int { return strings.Compare(a.URL, b.URL) }
	got, want = slices.Clone(got), slices.Clone(want)
	slices.SortFunc(got, byURL)
	slices.SortFunc(want, byURL)
	if !slices.Equal(got, want) {
		t.Errorf("group %s: logicalStructure places\n got %+v\nwant %+v", name, got, want)
	}
}

func TestVendorInterconnectTopology(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{Delay: 50 * time.Millisecond})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	base := srv.URL + "/compute/v1/projects/" + vendorProject
	locURL := func(name string) string { return base + "/global/interconnectLocations/" + name }
	icURL := func(name string) string { return base + "/global/interconnects/" + name }
	attURL := func(region, name string) string {
		return base + "/regions/" + region + "/interconnectAttachments/" + name
	}
	groupURL := func(name string) string { return base + "/global/interconnectAttachmentGroups/" + name }

	type icSpec struct{ name, location, metro, zone string }
	ics := []icSpec{
		{"ic-iad-1", "iad-zone1-1", "iad", "zone1"},
		{"ic-iad-2", "iad-zone2-1", "iad", "zone2"},
		{"ic-sjc-1", "sjc-zone1-6", "sjc", "zone1"},
		{"ic-sjc-2", "sjc-zone2-6", "sjc", "zone2"},
	}
	type attSpec struct{ name, region, ic, domain string }
	atts := []attSpec{
		{"att-iad-1", "us-east4", "ic-iad-1", "AVAILABILITY_DOMAIN_1"},
		{"att-iad-2", "us-east4", "ic-iad-2", "AVAILABILITY_DOMAIN_2"},
		{"att-sjc-1", "us-west1", "ic-sjc-1", "AVAILABILITY_DOMAIN_1"},
		{"att-sjc-2", "us-west1", "ic-sjc-2", "AVAILABILITY_DOMAIN_2"},
	}
	iad1, iad2 := attURL("us-east4", "att-iad-1"), attURL("us-east4", "att-iad-2")
	sjc1, sjc2 := attURL("us-west1", "att-sjc-1"), attURL("us-west1", "att-sjc-2")
	spare := attURL("us-east4", "att-spare") // on ic-iad-1, kept out of every group that succeeds

	// attachmentGroup reads which group holds an attachment ("" for none).
	attachmentGroup := func(t *testing.T, region, name string) string {
		t.Helper()
		a, err := svc.InterconnectAttachments.Get(vendorProject, region, name).Context(ctx).Do()
		if err != nil {
			t.Fatalf("InterconnectAttachments.Get(%s, %s): %v", region, name, err)
		}
		return a.AttachmentGroup
	}

	t.Run("Locations", func(t *testing.T) {
		zonesByMetro := map[string]map[string]bool{}
		var names []string
		err := svc.InterconnectLocations.List(vendorProject).MaxResults(4).Pages(ctx, func(l *compute.InterconnectLocationList) error {
			for _, loc := range l.Items {
				names = append(names, loc.Name)
				metro, _, ok := strings.Cut(loc.Name, "-")
				if !ok || len(metro) != 3 {
					t.Errorf("location %q: want a name like iad-zone1-1", loc.Name)
				}
				if zonesByMetro[metro] == nil {
					zonesByMetro[metro] = map[string]bool{}
				}
				zonesByMetro[metro][loc.AvailabilityZone] = true
				if loc.Kind != "compute#interconnectLocation" {
					t.Errorf("location %s: kind %q, want compute#interconnectLocation", loc.Name, loc.Kind)
				}
				if got, want := loc.SelfLink, locURL(loc.Name); got != want {
					t.Errorf("location %s: selfLink %q, want %q", loc.Name, got, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("InterconnectLocations.List: %v", err)
		}
		if len(names) != len(slices.Compact(slices.Clone(names))) {
			t.Errorf("locations listed more than once across pages: %q", names)
		}
		complete := 0
		for metro, zones := range zonesByMetro {
			if zones["zone1"] && zones["zone2"] {
				complete++
			} else {
				t.Errorf("metro %s: zones %v, want both zone1 and zone2", metro, zones)
			}
		}
		if complete < 4 {
			t.Errorf("got %d metros with both zones (%d locations: %q), want at least 4", complete, len(names), names)
		}
		for _, want := range []string{"iad-zone1-1", "iad-zone2-1", "sjc-zone1-6", "sjc-zone2-6"} {
			if !slices.Contains(names, want) {
				t.Errorf("location %s not listed (got %q)", want, names)
			}
		}

		loc, err := svc.InterconnectLocations.Get(vendorProject, "iad-zone2-1").Context(ctx).Do()
		if err != nil {
			t.Fatalf("InterconnectLocations.Get(iad-zone2-1): %v", err)
		}
		if loc.Name != "iad-zone2-1" || loc.AvailabilityZone != "zone2" || loc.SelfLink != locURL("iad-zone2-1") {
			t.Errorf("iad-zone2-1: got name %q availabilityZone %q selfLink %q, want iad-zone2-1, zone2, %s",
				loc.Name, loc.AvailabilityZone, loc.SelfLink, locURL("iad-zone2-1"))
		}
		if loc.City == "" || loc.FacilityProvider == "" || loc.Id == 0 {
			t.Errorf("iad-zone2-1: city %q facilityProvider %q id %d, want all set", loc.City, loc.FacilityProvider, loc.Id)
		}
		_, err = svc.InterconnectLocations.Get(vendorProject, "xyz-zone1-1").Context(ctx).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
	})

	if !t.Run("Interconnects", func(t *testing.T) {
		for _, ic := range ics {
			op, err := svc.Interconnects.Insert(vendorProject, &compute.Interconnect{
				Name:               ic.name,
				Location:           locURL(ic.location),
				LinkType:           "LINK_TYPE_ETHERNET_10G_LR",
				RequestedLinkCount: 1,
				InterconnectType:   "DEDICATED",
				CustomerName:       "Example Corp",
			}).Context(ctx).Do()
			if err != nil {
				t.Fatalf("Interconnects.Insert(%s): %v", ic.name, err)
			}
			if got, want := op.TargetLink, icURL(ic.name); got != want {
				t.Errorf("insert %s: targetLink %q, want %q", ic.name, got, want)
			}
			vicNoOpError(t, "insert "+ic.name, vendorWait(t, svc, op.Name))
			got, err := svc.Interconnects.Get(vendorProject, ic.name).Context(ctx).Do()
			if err != nil {
				t.Fatalf("Interconnects.Get(%s): %v", ic.name, err)
			}
			for _, c := range []struct{ field, got, want string }{
				{"kind", got.Kind, "compute#interconnect"},
				{"state", got.State, "ACTIVE"},
				{"operationalStatus", got.OperationalStatus, "OS_ACTIVE"},
				{"location", got.Location, locURL(ic.location)},
				{"linkType", got.LinkType, "LINK_TYPE_ETHERNET_10G_LR"},
				{"interconnectType", got.InterconnectType, "DEDICATED"},
				{"selfLink", got.SelfLink, icURL(ic.name)},
			} {
				if c.got != c.want {
					t.Errorf("%s %s: got %q, want %q", ic.name, c.field, c.got, c.want)
				}
			}
			if got.RequestedLinkCount != 1 {
				t.Errorf("%s requestedLinkCount: got %d, want 1", ic.name, got.RequestedLinkCount)
			}
		}
		list, err := svc.Interconnects.List(vendorProject).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Interconnects.List: %v", err)
		}
		var names []string
		for _, ic := range list.Items {
			names = append(names, ic.Name)
		}
		if want := []string{"ic-iad-1", "ic-iad-2", "ic-sjc-1", "ic-sjc-2"}; !slices.Equal(names, want) {
			t.Errorf("interconnects: got %q, want %q", names, want)
		}
	}) {
		t.FailNow()
	}

	if !t.Run("Attachments", func(t *testing.T) {
		all := append(slices.Clone(atts), attSpec{"att-spare", "us-east4", "ic-iad-1", "AVAILABILITY_DOMAIN_1"})
		vlans := map[string]int64{}
		for _, a := range all {
			op, err := svc.InterconnectAttachments.Insert(vendorProject, a.region, &compute.InterconnectAttachment{
				Name:         a.name,
				Interconnect: icURL(a.ic),
				Type:         "DEDICATED",
				Router:       base + "/regions/" + a.region + "/routers/router-" + a.region,
			}).Context(ctx).Do()
			if err != nil {
				t.Fatalf("InterconnectAttachments.Insert(%s, %s): %v", a.region, a.name, err)
			}
			if !strings.HasSuffix(op.Region, "/regions/"+a.region) {
				t.Errorf("insert %s: operation region %q, want a URL of %s", a.name, op.Region, a.region)
			}
			vicNoOpError(t, "insert "+a.name, vicWaitRegion(t, svc, a.region, op.Name))
			got, err := svc.InterconnectAttachments.Get(vendorProject, a.region, a.name).Context(ctx).Do()
			if err != nil {
				t.Fatalf("InterconnectAttachments.Get(%s, %s): %v", a.region, a.name, err)
			}
			for _, c := range []struct{ field, got, want string }{
				{"kind", got.Kind, "compute#interconnectAttachment"},
				{"edgeAvailabilityDomain", got.EdgeAvailabilityDomain, a.domain},
				{"interconnect", got.Interconnect, icURL(a.ic)},
				{"type", got.Type, "DEDICATED"},
				{"state", got.State, "ACTIVE"},
				{"selfLink", got.SelfLink, attURL(a.region, a.name)},
				{"attachmentGroup", got.AttachmentGroup, ""},
			} {
				if c.got != c.want {
					t.Errorf("%s %s: got %q, want %q", a.name, c.field, c.got, c.want)
				}
			}
			if !strings.HasSuffix(got.Region, "/regions/"+a.region) {
				t.Errorf("%s region: got %q, want a URL of %s", a.name, got.Region, a.region)
			}
			if got.VlanTag8021q < 2 || got.VlanTag8021q > 4093 {
				t.Errorf("%s vlanTag8021q: got %d, want 2-4093", a.name, got.VlanTag8021q)
			}
			if other, ok := vlans[a.ic]; ok && other == got.VlanTag8021q {
				t.Errorf("%s vlanTag8021q %d is already used on %s", a.name, got.VlanTag8021q, a.ic)
			}
			vlans[a.ic] = got.VlanTag8021q
		}
		ic, err := svc.Interconnects.Get(vendorProject, "ic-iad-1").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Interconnects.Get(ic-iad-1): %v", err)
		}
		if want := []string{iad1, spare}; !slices.Equal(ic.InterconnectAttachments, want) {
			t.Errorf("ic-iad-1 interconnectAttachments: got %q, want %q", ic.InterconnectAttachments, want)
		}
	}) {
		t.FailNow()
	}

	t.Run("GroupNone", func(t *testing.T) {
		g := vicGroup(t, svc, vicGroupRequest("g-none", "PRODUCTION_NON_CRITICAL"))
		defer vicDeleteGroup(t, svc, "g-none")
		vicCheckAnalysis(t, g, "NO_SLA", vicBlocker{Type: "NO_ATTACHMENTS"})
		places, _ := vicStructure(t, g)
		if len(places) != 0 {
			t.Errorf("g-none: logicalStructure places %+v, want none", places)
		}
		if g.LogicalStructure != nil && len(g.LogicalStructure.Regions) != 0 {
			t.Errorf("g-none: logicalStructure regions %d, want 0", len(g.LogicalStructure.Regions))
		}
	})

	t.Run("GroupOneZone", func(t *testing.T) {
		g := vicGroup(t, svc, vicGroupRequest("g-one-zone", "PRODUCTION_NON_CRITICAL", iad1))
		defer vicDeleteGroup(t, svc, "g-one-zone")
		vicCheckAnalysis(t, g, "NO_SLA", vicBlocker{Type: "NO_ATTACHMENTS_IN_METRO_AND_ZONE", Metros: []string{"iad"}, Zones: []string{"zone2"}})
		places, _ := vicStructure(t, g)
		vicCheckPlaces(t, g.Name, places, []vicPlace{{"us-east4", "iad", "zone1", iad1}})
		if got, want := attachmentGroup(t, "us-east4", "att-iad-1"), groupURL("g-one-zone"); got != want {
			t.Errorf("att-iad-1 attachmentGroup while held: got %q, want %q", got, want)
		}
	})

	t.Run("GroupNonCritical", func(t *testing.T) {
		if got := attachmentGroup(t, "us-east4", "att-iad-1"); got != "" {
			t.Errorf("att-iad-1 attachmentGroup after g-one-zone was deleted: got %q, want none", got)
		}
		g := vicGroup(t, svc, vicGroupRequest("g-pnc", "PRODUCTION_NON_CRITICAL", iad1, iad2))
		defer vicDeleteGroup(t, svc, "g-pnc")
		vicCheckAnalysis(t, g, "PRODUCTION_NON_CRITICAL")
		places, facilities := vicStructure(t, g)
		vicCheckPlaces(t, g.Name, places, []vicPlace{
			{"us-east4", "iad", "zone1", iad1},
			{"us-east4", "iad", "zone2", iad2},
		})
		if f := facilities["us-east4/iad"]; len(f) != 2 {
			t.Errorf("g-pnc: facilities of us-east4/iad %q, want two (iad-zone1-1 and iad-zone2-1 are different buildings)", f)
		}
		if ls := g.LogicalStructure; ls != nil && len(ls.Regions) == 1 && len(ls.Regions[0].Metros) == 1 {
			for _, f := range ls.Regions[0].Metros[0].Facilities {
				if len(f.Zones) != 1 {
					t.Errorf("g-pnc: facility %s has %d zones, want 1", f.Facility, len(f.Zones))
				}
			}
		} else {
			t.Errorf("g-pnc: logicalStructure %+v, want one region with one metro", g.LogicalStructure)
		}
	})

	t.Run("GroupCriticalBlocked", func(t *testing.T) {
		g := vicGroup(t, svc, vicGroupRequest("g-pc-blocked", "PRODUCTION_CRITICAL", iad1, iad2))
		defer vicDeleteGroup(t, svc, "g-pc-blocked")
		vicCheckAnalysis(t, g, "PRODUCTION_NON_CRITICAL",
			vicBlocker{Type: "INCOMPATIBLE_METROS", Metros: []string{"iad"}},
			vicBlocker{Type: "INCOMPATIBLE_REGIONS", Regions: []string{"us-east4"}})
		places, _ := vicStructure(t, g)
		vicCheckPlaces(t, g.Name, places, []vicPlace{
			{"us-east4", "iad", "zone1", iad1},
			{"us-east4", "iad", "zone2", iad2},
		})
	})

	t.Run("GroupNoSLA", func(t *testing.T) {
		// sjc alone is a complete metro, but the intent caps the effective level.
		g := vicGroup(t, svc, vicGroupRequest("g-nosla", "NO_SLA", sjc1, sjc2))
		defer vicDeleteGroup(t, svc, "g-nosla")
		vicCheckAnalysis(t, g, "NO_SLA")
		places, _ := vicStructure(t, g)
		vicCheckPlaces(t, g.Name, places, []vicPlace{
			{"us-west1", "sjc", "zone1", sjc1},
			{"us-west1", "sjc", "zone2", sjc2},
		})
	})

	var pc *compute.InterconnectAttachmentGroup
	if !t.Run("GroupCritical", func(t *testing.T) {
		for _, a := range atts {
			if got := attachmentGroup(t, a.region, a.name); got != "" {
				t.Errorf("%s attachmentGroup before g-pc: got %q, want none (its groups were deleted)", a.name, got)
			}
		}
		pc = vicGroup(t, svc, vicGroupRequest("g-pc", "PRODUCTION_CRITICAL", iad1, iad2, sjc1, sjc2))
		vicCheckAnalysis(t, pc, "PRODUCTION_CRITICAL")
		places, facilities := vicStructure(t, pc)
		vicCheckPlaces(t, pc.Name, places, []vicPlace{
			{"us-east4", "iad", "zone1", iad1},
			{"us-east4", "iad", "zone2", iad2},
			{"us-west1", "sjc", "zone1", sjc1},
			{"us-west1", "sjc", "zone2", sjc2},
		})
		var regions []string
		if pc.LogicalStructure != nil {
			for _, r := range pc.LogicalStructure.Regions {
				regions = append(regions, r.Region)
			}
		}
		if want := []string{"us-east4", "us-west1"}; !slices.Equal(regions, want) {
			t.Errorf("g-pc: logicalStructure regions %q, want %q", regions, want)
		}
		for _, k := range []string{"us-east4/iad", "us-west1/sjc"} {
			if len(facilities[k]) != 2 {
				t.Errorf("g-pc: facilities of %s %q, want two", k, facilities[k])
			}
		}
		for _, a := range atts {
			if got, want := attachmentGroup(t, a.region, a.name), groupURL("g-pc"); got != want {
				t.Errorf("%s attachmentGroup: got %q, want %q", a.name, got, want)
			}
		}
		list, err := svc.InterconnectAttachmentGroups.List(vendorProject).Context(ctx).Do()
		if err != nil {
			t.Fatalf("InterconnectAttachmentGroups.List: %v", err)
		}
		var names []string
		for _, g := range list.Items {
			names = append(names, g.Name)
		}
		if want := []string{"g-pc"}; !slices.Equal(names, want) {
			t.Errorf("groups: got %q, want %q (the others were deleted)", names, want)
		}
	}) {
		t.FailNow()
	}

	t.Run("OperationalStatus", func(t *testing.T) {
		resp, err := svc.InterconnectAttachmentGroups.GetOperationalStatus(vendorProject, "g-pc").Context(ctx).Do()
		if err != nil {
			t.Fatalf("GetOperationalStatus: %v", err)
		}
		if resp.Etag != pc.Etag {
			t.Errorf("etag: got %q, want the group's %q", resp.Etag, pc.Etag)
		}
		r := resp.Result
		if r == nil {
			t.Fatalf("result: missing")
		}
		if r.GroupStatus != "FULLY_UP" {
			t.Errorf("groupStatus: got %q, want FULLY_UP", r.GroupStatus)
		}
		if r.Intent == nil || r.Intent.AvailabilitySla != "PRODUCTION_CRITICAL" {
			t.Errorf("intent: got %+v, want PRODUCTION_CRITICAL", r.Intent)
		}
		var urls []string
		for _, st := range r.AttachmentStatuses {
			urls = append(urls, st.Attachment)
			if st.IsActive != "ACTIVE" || st.Status != "CONNECTION_UP" || !st.AdminEnabled {
				t.Errorf("attachment %s: isActive %q status %q adminEnabled %t, want ACTIVE CONNECTION_UP true", st.Attachment, st.IsActive, st.Status, st.AdminEnabled)
			}
		}
		want := []string{iad1, iad2, sjc1, sjc2}
		slices.Sort(want)
		if !slices.Equal(urls, want) {
			t.Errorf("attachmentStatuses: got %q, want %q (sorted by URL)", urls, want)
		}
		if r.Configured == nil || r.Operational == nil {
			t.Fatalf("configured %+v operational %+v: want both", r.Configured, r.Operational)
		}
		if !reflect.DeepEqual(r.Operational, r.Configured) {
			t.Errorf("operational %+v differs from configured %+v with every attachment active", r.Operational.AvailabilitySla, r.Configured.AvailabilitySla)
		}
		if !reflect.DeepEqual(r.Configured, pc.Configured) {
			t.Errorf("configured %+v differs from the group's %+v", r.Configured.AvailabilitySla, pc.Configured.AvailabilitySla)
		}
		if r.Configured.AvailabilitySla == nil || r.Configured.AvailabilitySla.EffectiveSla != "PRODUCTION_CRITICAL" {
			t.Errorf("configured: got %+v, want effective PRODUCTION_CRITICAL", r.Configured.AvailabilitySla)
		}
	})

	t.Run("FailuresInsideOperations", func(t *testing.T) {
		type failure struct {
			name, code, httpMessage string
			status                  int64
			group                   *compute.InterconnectAttachmentGroup
		}
		tooMany := vicGroupRequest("g-too-many", "NO_SLA")
		tooMany.Attachments = map[string]compute.InterconnectAttachmentGroupAttachment{}
		for i := range 17 {
			tooMany.Attachments[fmt.Sprintf("q%02d", i)] = compute.InterconnectAttachmentGroupAttachment{Attachment: attURL("us-east4", fmt.Sprintf("att-none-%02d", i))}
		}
		missing := attURL("us-east4", "att-missing")
		cases := []failure{
			{"g-missing", "RESOURCE_NOT_FOUND", "NOT FOUND", http.StatusNotFound,
				vicGroupRequest("g-missing", "PRODUCTION_NON_CRITICAL", spare, missing)},
			{"g-stolen", "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE", "BAD REQUEST", http.StatusBadRequest,
				vicGroupRequest("g-stolen", "PRODUCTION_NON_CRITICAL", spare, iad1)},
			{"g-too-many", "QUOTA_EXCEEDED", "FORBIDDEN", http.StatusForbidden, tooMany},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				op := vicInsertGroupOp(t, svc, c.group)
				if op.Status != "DONE" {
					t.Fatalf("status %q, want DONE", op.Status)
				}
				if op.Error == nil || len(op.Error.Errors) == 0 {
					t.Fatalf("operation %s: no error, want %s (httpErrorStatusCode %d)", op.Name, c.code, op.HttpErrorStatusCode)
				}
				e := op.Error.Errors[0]
				if e.Code != c.code {
					t.Errorf("error code %q (%q), want %q", e.Code, e.Message, c.code)
				}
				if e.Message == "" {
					t.Errorf("error message empty")
				}
				if op.HttpErrorStatusCode != c.status {
					t.Errorf("httpErrorStatusCode %d, want %d", op.HttpErrorStatusCode, c.status)
				}
				if op.HttpErrorMessage != c.httpMessage {
					t.Errorf("httpErrorMessage %q, want %q", op.HttpErrorMessage, c.httpMessage)
				}
				if op.Progress != 100 || op.EndTime == "" {
					t.Errorf("progress %d endTime %q, want 100 and set", op.Progress, op.EndTime)
				}
				switch c.code {
				case "RESOURCE_NOT_FOUND":
					if !strings.Contains(e.Message, "att-missing") {
						t.Errorf("message %q does not name att-missing", e.Message)
					}
				case "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE":
					if !strings.Contains(e.Message, "att-iad-1") || !strings.Contains(e.Message, "interconnectAttachmentGroups/g-pc") {
						t.Errorf("message %q does not name att-iad-1 and its holder g-pc", e.Message)
					}
				case "QUOTA_EXCEEDED":
					var quota *compute.QuotaExceededInfo
					for _, d := range e.ErrorDetails {
						if d != nil && d.QuotaInfo != nil {
							quota = d.QuotaInfo
						}
					}
					if quota == nil {
						t.Errorf("errorDetails %+v: no quotaInfo", e.ErrorDetails)
					} else {
						if quota.Limit != 16 {
							t.Errorf("quotaInfo.limit %v, want 16", quota.Limit)
						}
						if quota.MetricName == "" || quota.LimitName == "" {
							t.Errorf("quotaInfo metricName %q limitName %q, want both", quota.MetricName, quota.LimitName)
						}
					}
				}
				_, err := svc.InterconnectAttachmentGroups.Get(vendorProject, c.name).Context(ctx).Do()
				vendorAPIError(t, err, http.StatusNotFound, "notFound")
				if got := attachmentGroup(t, "us-east4", "att-spare"); got != "" {
					t.Errorf("att-spare attachmentGroup after the failed %s: got %q, want none", c.name, got)
				}
				if got, want := attachmentGroup(t, "us-east4", "att-iad-1"), groupURL("g-pc"); got != want {
					t.Errorf("att-iad-1 attachmentGroup after the failed %s: got %q, want %q", c.name, got, want)
				}
			})
		}

		// Nothing was reserved: the name of a failed group is free.
		g := vicGroup(t, svc, vicGroupRequest("g-missing", "NO_SLA", spare))
		vicCheckAnalysis(t, g, "NO_SLA")
		vicDeleteGroup(t, svc, "g-missing")
		list, err := svc.InterconnectAttachmentGroups.List(vendorProject).Context(ctx).Do()
		if err != nil {
			t.Fatalf("InterconnectAttachmentGroups.List: %v", err)
		}
		var names []string
		for _, g := range list.Items {
			names = append(names, g.Name)
		}
		if want := []string{"g-pc"}; !slices.Equal(names, want) {
			t.Errorf("groups after the failures: got %q, want %q", names, want)
		}
	})

	t.Run("PatchDescription", func(t *testing.T) {
		before, err := svc.InterconnectAttachmentGroups.Get(vendorProject, "g-pc").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get g-pc: %v", err)
		}
		// The resource read with get, changed and sent back, as a client would.
		changed := *before
		changed.Description = "iad and sjc, 99.99%"
		op, err := svc.InterconnectAttachmentGroups.Patch(vendorProject, "g-pc", &changed).UpdateMask("description").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Patch with the current etag: %v", err)
		}
		if op.Status != "DONE" {
			t.Errorf("patch status %q, want DONE", op.Status)
		}
		if op.OperationType != "patch" {
			t.Errorf("patch operationType %q, want patch", op.OperationType)
		}
		if got, want := op.TargetLink, groupURL("g-pc"); got != want {
			t.Errorf("patch targetLink %q, want %q", got, want)
		}
		vicNoOpError(t, "patch g-pc", op)
		after, err := svc.InterconnectAttachmentGroups.Get(vendorProject, "g-pc").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get g-pc: %v", err)
		}
		if after.Description != changed.Description {
			t.Errorf("description: got %q, want %q", after.Description, changed.Description)
		}
		if after.Etag == before.Etag {
			t.Errorf("etag: got %q unchanged after a patch, want a new one", after.Etag)
		}
		if !reflect.DeepEqual(after.Configured, before.Configured) || !reflect.DeepEqual(after.Attachments, before.Attachments) {
			t.Errorf("a description patch changed the attachments or the analysis")
		}

		stale := &compute.InterconnectAttachmentGroup{Description: "stale write", Etag: before.Etag}
		_, err = svc.InterconnectAttachmentGroups.Patch(vendorProject, "g-pc", stale).UpdateMask("description").Context(ctx).Do()
		vendorAPIError(t, err, http.StatusPreconditionFailed, "conditionNotMet")
		final, err := svc.InterconnectAttachmentGroups.Get(vendorProject, "g-pc").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get g-pc: %v", err)
		}
		if final.Description != changed.Description || final.Etag != after.Etag {
			t.Errorf("after the stale patch: description %q etag %q, want %q %q", final.Description, final.Etag, changed.Description, after.Etag)
		}
	})

	t.Run("PatchRemovesAnEntryInNullFields", func(t *testing.T) {
		// How Google's client removes a map entry in a merge patch: NullFields sends it as
		// null (ForceSendFields sends the map, empty here). It was refused with 400 when the
		// spec allowed no null there.
		vicGroup(t, svc, vicGroupRequest("g-null", "NO_SLA", spare))
		defer vicDeleteGroup(t, svc, "g-null")
		patch := &compute.InterconnectAttachmentGroup{ForceSendFields: []string{"Attachments"}, NullFields: []string{"Attachments.k0"}}
		op, err := svc.InterconnectAttachmentGroups.Patch(vendorProject, "g-null", patch).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Patch with Attachments.k0 in NullFields: %v", err)
		}
		vicNoOpError(t, "patch g-null", op)
		g, err := svc.InterconnectAttachmentGroups.Get(vendorProject, "g-null").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get g-null: %v", err)
		}
		if len(g.Attachments) != 0 {
			t.Errorf("attachments after removing k0: %v", g.Attachments)
		}
		if got := attachmentGroup(t, "us-east4", "att-spare"); got != "" {
			t.Errorf("att-spare still in %q after its entry was removed", got)
		}
	})

	t.Run("PatchClearsFieldsInNullFields", func(t *testing.T) {
		// How Google's client clears a whole field: NullFields sends it as null, which was
		// refused ("must not be null"). Null description and attachments clear them; a null
		// intent is refused, a group needs one.
		req := vicGroupRequest("g-nullf", "NO_SLA", spare)
		req.Description = "to be cleared"
		vicGroup(t, svc, req)
		defer vicDeleteGroup(t, svc, "g-nullf")
		patch := &compute.InterconnectAttachmentGroup{NullFields: []string{"Description", "Attachments"}}
		op, err := svc.InterconnectAttachmentGroups.Patch(vendorProject, "g-nullf", patch).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Patch with Description and Attachments in NullFields: %v", err)
		}
		vicNoOpError(t, "patch g-nullf", op)
		g, err := svc.InterconnectAttachmentGroups.Get(vendorProject, "g-nullf").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get g-nullf: %v", err)
		}
		if g.Description != "" || len(g.Attachments) != 0 || g.Intent == nil || g.Intent.AvailabilitySla != "NO_SLA" {
			t.Errorf("after clearing: description %q, attachments %v, intent %+v", g.Description, g.Attachments, g.Intent)
		}
		if got := attachmentGroup(t, "us-east4", "att-spare"); got != "" {
			t.Errorf("att-spare still in %q after the attachments were cleared", got)
		}
		_, err = svc.InterconnectAttachmentGroups.Patch(vendorProject, "g-nullf", &compute.InterconnectAttachmentGroup{NullFields: []string{"Intent"}}).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusBadRequest, "required")
	})

	t.Run("DeletesRefused", func(t *testing.T) {
		_, err := svc.InterconnectAttachments.Delete(vendorProject, "us-east4", "att-iad-1").Context(ctx).Do()
		ge := vendorAPIError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")
		if !strings.Contains(ge.Message, "g-pc") {
			t.Errorf("message %q does not name g-pc", ge.Message)
		}
		_, err = svc.Interconnects.Delete(vendorProject, "ic-iad-1").Context(ctx).Do()
		ge = vendorAPIError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")
		if !strings.Contains(ge.Message, "ic-iad-1") {
			t.Errorf("message %q does not name ic-iad-1", ge.Message)
		}
		if _, err := svc.InterconnectAttachments.Get(vendorProject, "us-east4", "att-iad-1").Context(ctx).Do(); err != nil {
			t.Errorf("att-iad-1 after the refused delete: %v", err)
		}
		if _, err := svc.Interconnects.Get(vendorProject, "ic-iad-1").Context(ctx).Do(); err != nil {
			t.Errorf("ic-iad-1 after the refused delete: %v", err)
		}
	})

	t.Run("InterconnectRequestID", func(t *testing.T) {
		reqID := vendorUUID(t)
		ic := func() *compute.Interconnect {
			return &compute.Interconnect{Name: "ic-lax-1", Location: locURL("lax-zone1-8"),
				LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"}
		}
		first, err := svc.Interconnects.Insert(vendorProject, ic()).RequestId(reqID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Insert ic-lax-1: %v", err)
		}
		if first.ClientOperationId != reqID {
			t.Errorf("clientOperationId %q, want %q", first.ClientOperationId, reqID)
		}
		retry, err := svc.Interconnects.Insert(vendorProject, ic()).RequestId(reqID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("retried Insert ic-lax-1: %v", err)
		}
		if retry.Name != first.Name || retry.Id != first.Id {
			t.Errorf("retry: got operation %s (%d), want %s (%d)", retry.Name, retry.Id, first.Name, first.Id)
		}
		vicNoOpError(t, "insert ic-lax-1", vendorWait(t, svc, first.Name))
		again, err := svc.Interconnects.Insert(vendorProject, ic()).RequestId(reqID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("retried Insert ic-lax-1 after DONE: %v", err)
		}
		if again.Name != first.Name || again.Status != "DONE" {
			t.Errorf("retry after DONE: got %s %s, want %s DONE", again.Name, again.Status, first.Name)
		}
		_, err = svc.Interconnects.Insert(vendorProject, ic()).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusConflict, "alreadyExists")
		list, err := svc.Interconnects.List(vendorProject).Filter(`name = "ic-lax-1"`).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Interconnects.List: %v", err)
		}
		if len(list.Items) != 1 {
			t.Errorf("interconnects named ic-lax-1: got %d, want 1", len(list.Items))
		}
	})
}
