package compute_test

import (
	"strings"
	"testing"

	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
)

// The seams between the members every schema has, the methods that change them and the wire
// (filters, fields, system parameters) that every operation goes through.

// A rule's patch changes networkTier and the backend bucket migration (its state, its
// testing percentage, then the scheme), each moving the fingerprint; nothing else changes.
func TestVendorRulePatchMembers(t *testing.T) {
	w := newVMWorld(t)
	op, err := w.svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-mig", PortRange: "80",
		Target: w.url("global/targetHttpProxies/proxy-a")}).Do()
	w.done("insert", op, err)
	get := func() *compute.ForwardingRule {
		t.Helper()
		r, err := w.svc.GlobalForwardingRules.Get(vendorProject, "fr-mig").Do()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	patch := func(what string, r *compute.ForwardingRule) *compute.ForwardingRule {
		t.Helper()
		before := get()
		op, err := w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", r).Do()
		w.done(what, op, err)
		after := get()
		if after.Fingerprint == before.Fingerprint {
			t.Errorf("%s: fingerprint did not move", what)
		}
		return after
	}
	r := get()
	if r.NetworkTier != "PREMIUM" || r.LoadBalancingScheme != "EXTERNAL" || r.PortRange != "80-80" {
		t.Fatalf("inserted rule: tier %q scheme %q portRange %q", r.NetworkTier, r.LoadBalancingScheme, r.PortRange)
	}
	// networkTier: PREMIUM is what a global rule is, so patching it changes nothing; another
	// tier is refused as on insert.
	op, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", &compute.ForwardingRule{NetworkTier: "PREMIUM", PortRange: "80"}).Do()
	w.done("patch networkTier PREMIUM", op, err)
	if after := get(); after.Fingerprint != r.Fingerprint {
		t.Errorf("a patch that changes nothing moved the fingerprint")
	}
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", &compute.ForwardingRule{NetworkTier: "STANDARD"}).Do()
	if e := vendorAPIError(t, err, 400, "invalid"); !strings.Contains(e.Message, "networkTier") {
		t.Errorf("STANDARD tier refused with %q", e.Message)
	}
	// The scheme cannot move before the migration allows it.
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", &compute.ForwardingRule{LoadBalancingScheme: "EXTERNAL_MANAGED"}).Do()
	vendorAPIError(t, err, 400, "invalid")
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", &compute.ForwardingRule{LoadBalancingScheme: "INTERNAL_SELF_MANAGED"}).Do()
	vendorAPIError(t, err, 400, "invalid")
	// A percentage needs TEST_BY_PERCENTAGE, as on insert.
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", &compute.ForwardingRule{ExternalManagedBackendBucketMigrationTestingPercentage: 10}).Do()
	vendorAPIError(t, err, 400, "invalid")

	patch("PREPARE", &compute.ForwardingRule{ExternalManagedBackendBucketMigrationState: "PREPARE"})
	got := patch("TEST_BY_PERCENTAGE", &compute.ForwardingRule{ExternalManagedBackendBucketMigrationState: "TEST_BY_PERCENTAGE", ExternalManagedBackendBucketMigrationTestingPercentage: 25})
	if got.ExternalManagedBackendBucketMigrationTestingPercentage != 25 {
		t.Errorf("percentage %v, want 25", got.ExternalManagedBackendBucketMigrationTestingPercentage)
	}
	got = patch("TEST_ALL_TRAFFIC", &compute.ForwardingRule{ExternalManagedBackendBucketMigrationState: "TEST_ALL_TRAFFIC"})
	if got.ExternalManagedBackendBucketMigrationTestingPercentage != 0 {
		t.Errorf("percentage %v kept past TEST_BY_PERCENTAGE", got.ExternalManagedBackendBucketMigrationTestingPercentage)
	}
	got = patch("scheme EXTERNAL_MANAGED", &compute.ForwardingRule{LoadBalancingScheme: "EXTERNAL_MANAGED"})
	if got.LoadBalancingScheme != "EXTERNAL_MANAGED" {
		t.Errorf("scheme %q after the migration", got.LoadBalancingScheme)
	}
	// Back: only with the state set to TEST_ALL_TRAFFIC in the same patch.
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", &compute.ForwardingRule{LoadBalancingScheme: "EXTERNAL"}).Do()
	vendorAPIError(t, err, 400, "invalid")
	got = patch("scheme back", &compute.ForwardingRule{LoadBalancingScheme: "EXTERNAL", ExternalManagedBackendBucketMigrationState: "TEST_ALL_TRAFFIC"})
	if got.LoadBalancingScheme != "EXTERNAL" {
		t.Errorf("scheme %q after rolling back", got.LoadBalancingScheme)
	}

	// Members the schema has but a patch cannot change are refused by name; the same value
	// (what get returned) is accepted.
	for _, bad := range []*compute.ForwardingRule{
		{Subnetwork: w.url("regions/us-east4/subnetworks/s")},
		{BackendService: w.url("global/backendServices/b")},
		{AllowPscGlobalAccess: true},
		{PortRange: "81"},
		{Description: "changed"},
	} {
		_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", bad).Do()
		if e := vendorAPIError(t, err, 400, "invalid"); !strings.Contains(e.Message, "cannot be changed by patch") {
			t.Errorf("%+v refused with %q", bad, e.Message)
		}
	}
	sent := *get()
	op, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-mig", &sent).Do()
	w.done("patch as read", op, err)
}

// The newer methods go through the same wire as the rest: interconnectGroups.list filters
// and pages, fields trims every method's answer, system parameters are taken, and every
// member of a resource can be filtered on.
func TestVendorNewMethodsOnTheWire(t *testing.T) {
	w := newVMWorld(t)
	for _, n := range []string{"ic-a", "ic-b"} {
		w.interconnect(n, "iad-zone1-1")
	}
	for i, n := range []string{"ig-one", "ig-two", "ig-three"} {
		level := []string{"NO_SLA", "PRODUCTION_NON_CRITICAL", "NO_SLA"}[i]
		op, err := w.svc.InterconnectGroups.Insert(vendorProject, &compute.InterconnectGroup{Name: n, Description: "group " + n,
			Intent:        &compute.InterconnectGroupIntent{TopologyCapability: level},
			Interconnects: map[string]compute.InterconnectGroupInterconnect{"a": {Interconnect: w.url("global/interconnects/ic-a")}}}).Do()
		w.done("insert "+n, op, err)
	}
	// Filters: a nested member, !=, the regular expression form; a field the resource has not is 400.
	l, err := w.svc.InterconnectGroups.List(vendorProject).Filter(`intent.topologyCapability = "NO_SLA"`).Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Items[0].Name != "ig-one" || l.Items[1].Name != "ig-three" {
		t.Errorf("filter on intent: %d items", len(l.Items))
	}
	l, err = w.svc.InterconnectGroups.List(vendorProject).Filter(`name eq "ig-t.*"`).Do()
	if err != nil || len(l.Items) != 2 {
		t.Errorf("regular expression filter: %v, %d items", err, len(l.Items))
	}
	_, err = w.svc.InterconnectGroups.List(vendorProject).Filter(`nosuch = "x"`).Do()
	vendorAPIError(t, err, 400, "invalid")
	// Paging.
	var names []string
	token := ""
	for pages := 0; ; pages++ {
		call := w.svc.InterconnectGroups.List(vendorProject).MaxResults(2)
		if token != "" {
			call = call.PageToken(token)
		}
		l, err := call.Do()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range l.Items {
			names = append(names, g.Name)
		}
		if token = l.NextPageToken; token == "" {
			if pages != 1 {
				t.Errorf("%d pages, want 2", pages+1)
			}
			break
		}
	}
	if strings.Join(names, ",") != "ig-one,ig-three,ig-two" {
		t.Errorf("paged names %v", names)
	}
	// fields trims the new methods' answers.
	g, err := w.svc.InterconnectGroups.Get(vendorProject, "ig-one").Fields("name,intent").Do()
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "ig-one" || g.Intent == nil || g.Description != "" || g.SelfLink != "" {
		t.Errorf("fields=name,intent: %+v", g)
	}
	st, err := w.svc.InterconnectGroups.GetOperationalStatus(vendorProject, "ig-one").Fields("result/groupStatus").Do()
	if err != nil {
		t.Fatal(err)
	}
	if st.Etag != "" || st.Result == nil || st.Result.GroupStatus == "" || st.Result.Intent != nil {
		t.Errorf("fields=result/groupStatus: %+v", st)
	}
	pol, err := w.svc.InterconnectGroups.GetIamPolicy(vendorProject, "ig-one").Fields("etag").Do(googleapi.QueryParameter("quotaUser", "someone"))
	if err != nil {
		t.Fatal(err)
	}
	if pol.Etag == "" || pol.Version != 0 {
		t.Errorf("fields=etag on getIamPolicy: %+v", pol)
	}
	diag, err := w.svc.Interconnects.GetDiagnostics(vendorProject, "ic-a").Fields("result/bundleOperationalStatus").Do()
	if err != nil {
		t.Fatal(err)
	}
	if diag.Result == nil || diag.Result.BundleOperationalStatus == "" || len(diag.Result.Links) != 0 {
		t.Errorf("fields on getDiagnostics: %+v", diag.Result)
	}
	_, err = w.svc.InterconnectGroups.Get(vendorProject, "ig-one").Fields("nosuch").Do()
	vendorAPIError(t, err, 400, "invalidParameter")
	// A new method's operation trimmed, with a system parameter the generated client does not send.
	op, err := w.svc.Interconnects.SetLabels(vendorProject, "ic-b", &compute.GlobalSetLabelsRequest{
		Labels: map[string]string{"env": "prod"}, LabelFingerprint: w.getInterconnect("ic-b").LabelFingerprint}).
		Fields("status,operationType").Do(googleapi.QueryParameter("userIp", "10.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	if op.OperationType != "setLabels" || op.Name != "" {
		t.Errorf("fields on setLabels: %+v", op)
	}
	// Output members and labels set by setLabels are filterable.
	il, err := w.svc.Interconnects.List(vendorProject).Filter(`labels.env = "prod"`).Do()
	if err != nil || len(il.Items) != 1 || il.Items[0].Name != "ic-b" {
		t.Errorf("labels filter after setLabels: %v %v", err, il)
	}
	il, err = w.svc.Interconnects.List(vendorProject).Filter(`circuitInfos:*`).Do()
	if err != nil || len(il.Items) != 2 {
		t.Errorf("has filter on circuitInfos: %v", err)
	}
}

// An interconnect's members and its reports agree: getDiagnostics names the
// circuits of circuitInfos, and getMacsecConfig has a key per configured pre-shared key.
func TestVendorInterconnectReportsMatchMembers(t *testing.T) {
	w := newVMWorld(t)
	op, err := w.svc.Interconnects.Insert(vendorProject, &compute.Interconnect{Name: "ic-sec", Location: w.url("global/interconnectLocations/iad-zone1-1"),
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 2, InterconnectType: "DEDICATED",
		RequestedFeatures: []string{"IF_MACSEC"}, MacsecEnabled: true,
		Macsec: &compute.InterconnectMacsec{PreSharedKeys: []*compute.InterconnectMacsecPreSharedKey{{Name: "key-1", StartTime: "2026-01-01T00:00:00Z"}}}}).Do()
	w.done("insert", op, err)
	ic := w.getInterconnect("ic-sec")
	diag, err := w.svc.Interconnects.GetDiagnostics(vendorProject, "ic-sec").Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(ic.CircuitInfos) != 2 || len(diag.Result.Links) != 2 {
		t.Fatalf("%d circuits, %d links", len(ic.CircuitInfos), len(diag.Result.Links))
	}
	for i, l := range diag.Result.Links {
		if c := ic.CircuitInfos[i]; l.CircuitId != c.GoogleCircuitId || l.GoogleDemarc != c.GoogleDemarcId {
			t.Errorf("link %d: circuit %q demarc %q; circuitInfos %q %q", i, l.CircuitId, l.GoogleDemarc, c.GoogleCircuitId, c.GoogleDemarcId)
		}
	}
	cfg, err := w.svc.Interconnects.GetMacsecConfig(vendorProject, "ic-sec").Do()
	if err != nil {
		t.Fatal(err)
	}
	if k := cfg.Result.PreSharedKeys; len(k) != 1 || k[0].Name != "key-1" || k[0].StartTime != "2026-01-01T00:00:00Z" || len(k[0].Cak) != 32 || len(k[0].Ckn) != 64 {
		t.Errorf("MACsec keys %+v", cfg.Result.PreSharedKeys)
	}
}

// The patches of interconnects and attachments and their newer members: MACsec and
// application awareness change in place, the stack type takes (or gives up) IPv6
// addresses, and any other member sent with a new value is refused by name.
func TestVendorPatchesAndNewMembers(t *testing.T) {
	w := newVMWorld(t)
	w.interconnect("ic-p", "iad-zone1-1")
	_, err := w.svc.Interconnects.Patch(vendorProject, "ic-p", &compute.Interconnect{MacsecEnabled: true}).Do()
	vendorAPIError(t, err, 400, "invalid")
	op, err := w.svc.Interconnects.Patch(vendorProject, "ic-p", &compute.Interconnect{MacsecEnabled: true, AaiEnabled: true,
		Macsec: &compute.InterconnectMacsec{FailOpen: true, PreSharedKeys: []*compute.InterconnectMacsecPreSharedKey{{Name: "k", StartTime: "2026-02-01T00:00:00Z"}}}}).Do()
	w.done("patch MACsec", op, err)
	ic := w.getInterconnect("ic-p")
	if !ic.MacsecEnabled || !ic.AaiEnabled || ic.Macsec == nil || !ic.Macsec.FailOpen {
		t.Errorf("after patch: macsecEnabled %v aaiEnabled %v macsec %+v", ic.MacsecEnabled, ic.AaiEnabled, ic.Macsec)
	}
	cfg, err := w.svc.Interconnects.GetMacsecConfig(vendorProject, "ic-p").Do()
	if err != nil || len(cfg.Result.PreSharedKeys) != 1 {
		t.Errorf("MACsec keys after patch: %v %+v", err, cfg)
	}
	for _, bad := range []*compute.Interconnect{{RequestedFeatures: []string{"IF_CROSS_SITE_NETWORK"}}, {RemoteLocation: "somewhere"}} {
		_, err = w.svc.Interconnects.Patch(vendorProject, "ic-p", bad).Do()
		if e := vendorAPIError(t, err, 400, "invalid"); !strings.Contains(e.Message, "cannot be changed by patch") {
			t.Errorf("%+v refused with %q", bad, e.Message)
		}
	}
	sent := *ic
	op, err = w.svc.Interconnects.Patch(vendorProject, "ic-p", &sent).Do()
	w.done("interconnect patch as read", op, err)

	a := w.attachment("us-east4", "att-p", "ic-p")
	if a.CloudRouterIpAddress == "" || a.CloudRouterIpv6Address != "" {
		t.Fatalf("inserted attachment: %q %q", a.CloudRouterIpAddress, a.CloudRouterIpv6Address)
	}
	op, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", &compute.InterconnectAttachment{StackType: "IPV4_IPV6"}).Do()
	w.done("dual stack", op, err)
	got := w.getAttachment("us-east4", "att-p")
	if !strings.HasPrefix(got.CloudRouterIpv6Address, "2600:2d00:0:2::") || got.CustomerRouterIpv6Address == "" || got.CloudRouterIpAddress != a.CloudRouterIpAddress {
		t.Errorf("dual stack: v6 %q/%q v4 %q", got.CloudRouterIpv6Address, got.CustomerRouterIpv6Address, got.CloudRouterIpAddress)
	}
	op, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", &compute.InterconnectAttachment{StackType: "IPV4_ONLY"}).Do()
	w.done("IPv4 only", op, err)
	if got = w.getAttachment("us-east4", "att-p"); got.CloudRouterIpv6Address != "" {
		t.Errorf("IPv4 only keeps %q", got.CloudRouterIpv6Address)
	}
	for _, bad := range []*compute.InterconnectAttachment{{Encryption: "IPSEC"}, {CandidateSubnets: []string{"169.254.100.0/29"}}} {
		_, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", bad).Do()
		if e := vendorAPIError(t, err, 400, "invalid"); !strings.Contains(e.Message, "cannot be changed by patch") {
			t.Errorf("%+v refused with %q", bad, e.Message)
		}
	}
	sentA := *got
	op, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", &sentA).Do()
	w.done("attachment patch as read", op, err)
}
