package compute_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	compute "google.golang.org/api/compute/v1"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/understudytest"
)

// These tests drive the methods beyond the seeds (patch, setTarget, setLabels and setName
// of interconnects and attachments, diagnostics, the IAM methods, interconnect groups) and
// the state that moves with them through the vendor's own Go client.

// vmWorld is a server, the vendor's client on it, and helpers that build a topology.
type vmWorld struct {
	t   *testing.T
	srv *understudytest.Server
	svc *compute.Service
	ctx context.Context
}

func newVMWorld(t *testing.T) *vmWorld {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{Delay: 20 * time.Millisecond})
	return &vmWorld{t: t, srv: srv, svc: vendorService(t, srv, vendorToken(vendorEmail)), ctx: context.Background()}
}

func (w *vmWorld) url(path string) string {
	return w.srv.URL + "/compute/v1/projects/" + vendorProject + "/" + path
}

// done waits for op (global or regional) and fails if it ended with an error.
func (w *vmWorld) done(what string, op *compute.Operation, err error) *compute.Operation {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("%s: %v", what, err)
	}
	if op.Region != "" {
		op = vicWaitRegion(w.t, w.svc, op.Region[strings.LastIndexByte(op.Region, '/')+1:], op.Name)
	} else {
		op = vendorWait(w.t, w.svc, op.Name)
	}
	vicNoOpError(w.t, what, op)
	return op
}

func (w *vmWorld) interconnect(name, location string) *compute.Interconnect {
	w.t.Helper()
	op, err := w.svc.Interconnects.Insert(vendorProject, &compute.Interconnect{Name: name, Location: w.url("global/interconnectLocations/" + location),
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 2, InterconnectType: "DEDICATED"}).Do()
	w.done("insert "+name, op, err)
	return w.getInterconnect(name)
}

func (w *vmWorld) getInterconnect(name string) *compute.Interconnect {
	w.t.Helper()
	ic, err := w.svc.Interconnects.Get(vendorProject, name).Do()
	if err != nil {
		w.t.Fatalf("Interconnects.Get(%s): %v", name, err)
	}
	return ic
}

func (w *vmWorld) attachment(region, name, ic string) *compute.InterconnectAttachment {
	w.t.Helper()
	op, err := w.svc.InterconnectAttachments.Insert(vendorProject, region, &compute.InterconnectAttachment{Name: name, Interconnect: w.url("global/interconnects/" + ic), Type: "DEDICATED"}).Do()
	w.done("insert "+name, op, err)
	return w.getAttachment(region, name)
}

func (w *vmWorld) getAttachment(region, name string) *compute.InterconnectAttachment {
	w.t.Helper()
	a, err := w.svc.InterconnectAttachments.Get(vendorProject, region, name).Do()
	if err != nil {
		w.t.Fatalf("InterconnectAttachments.Get(%s): %v", name, err)
	}
	return a
}

// circuit sets a circuit through the admin API: path is interconnects/<name> or
// regions/<r>/interconnectAttachments/<name>.
func (w *vmWorld) circuit(path, state string) {
	w.t.Helper()
	scope := "global/"
	if strings.HasPrefix(path, "regions/") {
		scope = ""
	}
	req, _ := http.NewRequest(http.MethodPut, w.srv.URL+"/_understudy/compute/projects/"+vendorProject+"/"+scope+path+"/circuit", strings.NewReader(`{"state":"`+state+`"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		w.t.Fatalf("circuit %s %s: HTTP %d", path, state, resp.StatusCode)
	}
}

func TestVendorRulePatchAndSetTarget(t *testing.T) {
	w := newVMWorld(t)
	op, err := w.svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-t", PortRange: "80-80",
		Target: w.url("global/targetHttpProxies/proxy-a"), LoadBalancingScheme: "EXTERNAL_MANAGED"}).Do()
	w.done("insert", op, err)
	get := func() *compute.ForwardingRule {
		t.Helper()
		r, err := w.svc.GlobalForwardingRules.Get(vendorProject, "fr-t").Do()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	before := get()

	// What get returned, sent back: accepted, and nothing changes.
	sent := *before
	op, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-t", &sent).Do()
	if op = w.done("patch as read", op, err); op.OperationType != "patch" || op.TargetId != before.Id {
		t.Errorf("patch operation: type %q target %d", op.OperationType, op.TargetId)
	}
	if after := get(); after.Fingerprint != before.Fingerprint {
		t.Errorf("fingerprint moved on an empty patch: %s -> %s", before.Fingerprint, after.Fingerprint)
	}
	// Anything but networkTier is refused.
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-t", &compute.ForwardingRule{IPProtocol: "UDP"}).Do()
	vendorAPIError(t, err, 400, "invalid")
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-t", &compute.ForwardingRule{Labels: map[string]string{"a": "b"}}).Do()
	vendorAPIError(t, err, 400, "invalid")

	// setTarget: same kind of target only; the fingerprint moves; a stale one is then 412.
	op, err = w.svc.GlobalForwardingRules.SetTarget(vendorProject, "fr-t", &compute.TargetReference{Target: w.url("global/targetHttpProxies/proxy-b")}).RequestId(vendorUUID(t)).Do()
	if op = w.done("setTarget", op, err); op.OperationType != "setTarget" {
		t.Errorf("setTarget operationType %q", op.OperationType)
	}
	after := get()
	if !strings.HasSuffix(after.Target, "/targetHttpProxies/proxy-b") || after.Fingerprint == before.Fingerprint {
		t.Errorf("after setTarget: target %q, fingerprint %s (was %s)", after.Target, after.Fingerprint, before.Fingerprint)
	}
	_, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-t", &compute.ForwardingRule{Fingerprint: before.Fingerprint}).Do()
	vendorAPIError(t, err, 412, "conditionNotMet")
	op, err = w.svc.GlobalForwardingRules.Patch(vendorProject, "fr-t", &compute.ForwardingRule{Fingerprint: after.Fingerprint}).Do()
	w.done("patch with the current fingerprint", op, err)
	_, err = w.svc.GlobalForwardingRules.SetTarget(vendorProject, "fr-t", &compute.TargetReference{Target: w.url("global/targetSslProxies/ssl")}).Do()
	vendorAPIError(t, err, 400, "invalid")
	_, err = w.svc.GlobalForwardingRules.SetTarget(vendorProject, "fr-t", &compute.TargetReference{}).Do()
	vendorAPIError(t, err, 400, "required")
	_, err = w.svc.GlobalForwardingRules.SetTarget(vendorProject, "fr-none", &compute.TargetReference{Target: w.url("global/targetHttpProxies/p")}).Do()
	vendorAPIError(t, err, 404, "notFound")
}

func TestVendorInterconnectMethods(t *testing.T) {
	w := newVMWorld(t)
	ic := w.interconnect("ic-m", "iad-zone1-1")
	w.attachment("us-east4", "att-m", "ic-m")

	// patch: drain it; the rest stays; a member that cannot change is refused.
	op, err := w.svc.Interconnects.Patch(vendorProject, "ic-m", &compute.Interconnect{AdminEnabled: false, Description: "drained", ForceSendFields: []string{"AdminEnabled"}}).Do()
	w.done("patch", op, err)
	got := w.getInterconnect("ic-m")
	if got.AdminEnabled || got.Description != "drained" || got.LinkType != ic.LinkType || got.RequestedLinkCount != 2 {
		t.Errorf("after patch: adminEnabled %v description %q linkType %q links %d", got.AdminEnabled, got.Description, got.LinkType, got.RequestedLinkCount)
	}
	_, err = w.svc.Interconnects.Patch(vendorProject, "ic-m", &compute.Interconnect{LinkType: "LINK_TYPE_ETHERNET_100G_LR"}).Do()
	vendorAPIError(t, err, 400, "invalid")
	sent := *got // what get returned, sent back
	op, err = w.svc.Interconnects.Patch(vendorProject, "ic-m", &sent).Do()
	w.done("patch as read", op, err)

	// Diagnostics follow the state: links down while drained, up once enabled.
	diag, err := w.svc.Interconnects.GetDiagnostics(vendorProject, "ic-m").Do()
	if err != nil {
		t.Fatal(err)
	}
	if d := diag.Result; len(d.Links) != 2 || d.BundleOperationalStatus != "BUNDLE_OPERATIONAL_STATUS_DOWN" || d.Links[0].OperationalStatus != "LINK_OPERATIONAL_STATUS_DOWN" {
		t.Errorf("diagnostics while drained: %+v", d)
	}
	op, err = w.svc.Interconnects.Patch(vendorProject, "ic-m", &compute.Interconnect{AdminEnabled: true}).Do()
	w.done("enable", op, err)
	diag, _ = w.svc.Interconnects.GetDiagnostics(vendorProject, "ic-m").Do()
	if d := diag.Result; d.BundleOperationalStatus != "BUNDLE_OPERATIONAL_STATUS_UP" || d.Links[1].LacpStatus.State != "ACTIVE" || len(d.ArpCaches) != 1 {
		t.Errorf("diagnostics when enabled: %+v", d)
	}
	w.circuit("interconnects/ic-m", "DOWN")
	if diag, _ = w.svc.Interconnects.GetDiagnostics(vendorProject, "ic-m").Do(); diag.Result.BundleOperationalStatus != "BUNDLE_OPERATIONAL_STATUS_DOWN" {
		t.Errorf("diagnostics with the circuit down: %s", diag.Result.BundleOperationalStatus)
	}
	if got := w.getInterconnect("ic-m"); !got.AdminEnabled {
		t.Errorf("the circuit control changed adminEnabled")
	}
	w.circuit("interconnects/ic-m", "UP")

	macsec, err := w.svc.Interconnects.GetMacsecConfig(vendorProject, "ic-m").Do()
	if err != nil || macsec.Etag == "" || macsec.Result == nil || len(macsec.Result.PreSharedKeys) != 0 {
		t.Errorf("getMacsecConfig: %+v %v", macsec, err)
	}

	// setLabels: the fingerprint must be current.
	cur := w.getInterconnect("ic-m")
	op, err = w.svc.Interconnects.SetLabels(vendorProject, "ic-m", &compute.GlobalSetLabelsRequest{Labels: map[string]string{"site": "iad"}, LabelFingerprint: cur.LabelFingerprint}).Do()
	w.done("setLabels", op, err)
	if got := w.getInterconnect("ic-m"); got.Labels["site"] != "iad" || got.LabelFingerprint == cur.LabelFingerprint {
		t.Errorf("after setLabels: %v %s", got.Labels, got.LabelFingerprint)
	}
	_, err = w.svc.Interconnects.SetLabels(vendorProject, "ic-m", &compute.GlobalSetLabelsRequest{Labels: map[string]string{}, LabelFingerprint: cur.LabelFingerprint}).Do()
	vendorAPIError(t, err, 412, "conditionNotMet")

	// setName: the attachment follows; the old name is gone, the id stays.
	op, err = w.svc.Interconnects.SetName(vendorProject, "ic-m", &compute.InterconnectsSetNameRequest{CurrentName: "ic-m", Name: "ic-renamed"}).Do()
	if op = w.done("setName", op, err); op.OperationType != "setName" || !strings.HasSuffix(op.TargetLink, "/interconnects/ic-renamed") {
		t.Errorf("setName operation: %s %s", op.OperationType, op.TargetLink)
	}
	if _, err = w.svc.Interconnects.Get(vendorProject, "ic-m").Do(); err == nil {
		t.Errorf("the old name still reads")
	}
	if got := w.getInterconnect("ic-renamed"); got.Id != ic.Id || len(got.InterconnectAttachments) != 1 {
		t.Errorf("renamed: id %d (was %d), attachments %v", got.Id, ic.Id, got.InterconnectAttachments)
	}
	if a := w.getAttachment("us-east4", "att-m"); !strings.HasSuffix(a.Interconnect, "/interconnects/ic-renamed") {
		t.Errorf("attachment's interconnect after setName: %s", a.Interconnect)
	}
	w.interconnect("ic-other", "iad-zone2-1")
	_, err = w.svc.Interconnects.SetName(vendorProject, "ic-renamed", &compute.InterconnectsSetNameRequest{Name: "ic-other"}).Do()
	vendorAPIError(t, err, 409, "alreadyExists")
	_, err = w.svc.Interconnects.SetName(vendorProject, "ic-renamed", &compute.InterconnectsSetNameRequest{CurrentName: "ic-m", Name: "ic-x"}).Do()
	vendorAPIError(t, err, 400, "invalid")
	_, err = w.svc.Interconnects.SetName(vendorProject, "ic-renamed", &compute.InterconnectsSetNameRequest{}).Do()
	vendorAPIError(t, err, 400, "required")
}

func TestVendorAttachmentPatchAndLabels(t *testing.T) {
	w := newVMWorld(t)
	w.interconnect("ic-a", "iad-zone1-1")
	before := w.attachment("us-east4", "att-p", "ic-a")
	op, err := w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", &compute.InterconnectAttachment{Description: "patched", Mtu: 1500, Bandwidth: "BPS_1G"}).Do()
	if op = w.done("patch", op, err); !strings.HasSuffix(op.Region, "/regions/us-east4") {
		t.Errorf("patch operation region %q", op.Region)
	}
	got := w.getAttachment("us-east4", "att-p")
	if got.Description != "patched" || got.Mtu != 1500 || got.Bandwidth != "BPS_1G" || got.VlanTag8021q != before.VlanTag8021q {
		t.Errorf("after patch: %q mtu %d bandwidth %s vlan %d", got.Description, got.Mtu, got.Bandwidth, got.VlanTag8021q)
	}
	sent := *got // what get returned, sent back: nothing changes
	op, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", &sent).Do()
	w.done("patch as read", op, err)
	if again := w.getAttachment("us-east4", "att-p"); again.LabelFingerprint != got.LabelFingerprint || again.Description != got.Description {
		t.Errorf("patch as read changed the attachment")
	}
	_, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", &compute.InterconnectAttachment{Mtu: 1234}).Do()
	vendorAPIError(t, err, 400, "invalid")
	_, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-p", &compute.InterconnectAttachment{Interconnect: w.url("global/interconnects/other")}).Do()
	vendorAPIError(t, err, 400, "invalid")

	// setLabels takes a requestId: a retry is the same operation and changes nothing more.
	id := vendorUUID(t)
	first, err := w.svc.InterconnectAttachments.SetLabels(vendorProject, "us-east4", "att-p", &compute.RegionSetLabelsRequest{Labels: map[string]string{"env": "prod"}, LabelFingerprint: got.LabelFingerprint}).RequestId(id).Do()
	w.done("setLabels", first, err)
	after := w.getAttachment("us-east4", "att-p")
	again, err := w.svc.InterconnectAttachments.SetLabels(vendorProject, "us-east4", "att-p", &compute.RegionSetLabelsRequest{Labels: map[string]string{"env": "dev"}, LabelFingerprint: after.LabelFingerprint}).RequestId(id).Do()
	if err != nil || again.Name != first.Name || again.ClientOperationId != id {
		t.Fatalf("retry: %v %v", again, err)
	}
	if got := w.getAttachment("us-east4", "att-p"); got.Labels["env"] != "prod" || got.LabelFingerprint != after.LabelFingerprint {
		t.Errorf("after the retry: %v %s", got.Labels, got.LabelFingerprint)
	}
	_, err = w.svc.InterconnectAttachments.SetLabels(vendorProject, "us-east4", "att-p", &compute.RegionSetLabelsRequest{Labels: map[string]string{}, LabelFingerprint: got.LabelFingerprint}).Do()
	vendorAPIError(t, err, 412, "conditionNotMet")
}

// TestVendorAttachmentGroupStatusMoves: draining an attachment or its interconnect, or a
// circuit going down, shows in the group's operational status and SLA at once.
func TestVendorAttachmentGroupStatusMoves(t *testing.T) {
	w := newVMWorld(t)
	w.interconnect("ic-1", "iad-zone1-1")
	w.interconnect("ic-2", "iad-zone2-1")
	a1, a2 := w.attachment("us-east4", "att-1", "ic-1"), w.attachment("us-east4", "att-2", "ic-2")
	op, err := w.svc.InterconnectAttachmentGroups.Insert(vendorProject, vicGroupRequest("grp", "PRODUCTION_NON_CRITICAL", a1.SelfLink, a2.SelfLink)).Do()
	w.done("insert group", op, err)

	type want struct {
		group, effective string
		statuses         map[string]string // attachment name -> status
	}
	lastEtag := ""
	check := func(step string, wt want) {
		t.Helper()
		st, err := w.svc.InterconnectAttachmentGroups.GetOperationalStatus(vendorProject, "grp").Do()
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		r := st.Result
		if r.GroupStatus != wt.group || r.Operational.AvailabilitySla.EffectiveSla != wt.effective || r.Configured.AvailabilitySla.EffectiveSla != "PRODUCTION_NON_CRITICAL" {
			t.Errorf("%s: groupStatus %s operational %s configured %s, want %s %s PRODUCTION_NON_CRITICAL", step, r.GroupStatus,
				r.Operational.AvailabilitySla.EffectiveSla, r.Configured.AvailabilitySla.EffectiveSla, wt.group, wt.effective)
		}
		if wt.effective != "PRODUCTION_NON_CRITICAL" && len(r.Operational.AvailabilitySla.IntendedSlaBlockers) == 0 {
			t.Errorf("%s: no operational blockers", step)
		}
		for _, s := range r.AttachmentStatuses {
			name := s.Attachment[strings.LastIndexByte(s.Attachment, '/')+1:]
			if s.Status != wt.statuses[name] || (s.IsActive == "ACTIVE") != (s.Status == "CONNECTION_UP") {
				t.Errorf("%s: %s is %s/%s, want %s", step, name, s.Status, s.IsActive, wt.statuses[name])
			}
		}
		if st.Etag == lastEtag {
			t.Errorf("%s: the etag did not change", step)
		}
		lastEtag = st.Etag
	}
	up := "CONNECTION_UP"
	check("all up", want{"FULLY_UP", "PRODUCTION_NON_CRITICAL", map[string]string{"att-1": up, "att-2": up}})

	op, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-2", &compute.InterconnectAttachment{AdminEnabled: false, ForceSendFields: []string{"AdminEnabled"}}).Do()
	w.done("disable att-2", op, err)
	check("att-2 disabled", want{"DEGRADED", "NO_SLA", map[string]string{"att-1": up, "att-2": "CONNECTION_DISABLED"}})

	op, err = w.svc.Interconnects.Patch(vendorProject, "ic-1", &compute.Interconnect{AdminEnabled: false, ForceSendFields: []string{"AdminEnabled"}}).Do()
	w.done("drain ic-1", op, err)
	check("ic-1 drained too", want{"FULLY_DOWN", "NO_SLA", map[string]string{"att-1": "CONNECTION_DOWN", "att-2": "CONNECTION_DISABLED"}})

	op, err = w.svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "att-2", &compute.InterconnectAttachment{AdminEnabled: true}).Do()
	w.done("enable att-2", op, err)
	op, err = w.svc.Interconnects.Patch(vendorProject, "ic-1", &compute.Interconnect{AdminEnabled: true}).Do()
	w.done("enable ic-1", op, err)
	check("enabled again", want{"FULLY_UP", "PRODUCTION_NON_CRITICAL", map[string]string{"att-1": up, "att-2": up}})

	w.circuit("regions/us-east4/interconnectAttachments/att-1", "DOWN")
	check("att-1 circuit down", want{"DEGRADED", "NO_SLA", map[string]string{"att-1": "CONNECTION_DOWN", "att-2": up}})
	w.circuit("interconnects/ic-2", "DOWN")
	check("ic-2 circuit down too", want{"FULLY_DOWN", "NO_SLA", map[string]string{"att-1": "CONNECTION_DOWN", "att-2": "CONNECTION_DOWN"}})
	w.circuit("regions/us-east4/interconnectAttachments/att-1", "UP")
	w.circuit("interconnects/ic-2", "UP")
	check("circuits up", want{"FULLY_UP", "PRODUCTION_NON_CRITICAL", map[string]string{"att-1": up, "att-2": up}})
}

func TestVendorInterconnectGroups(t *testing.T) {
	w := newVMWorld(t)
	w.interconnect("ic-z1", "iad-zone1-1")
	w.interconnect("ic-z2", "iad-zone2-1")
	group := func(name, intent string, members ...string) *compute.InterconnectGroup {
		g := &compute.InterconnectGroup{Name: name, Intent: &compute.InterconnectGroupIntent{TopologyCapability: intent}, Interconnects: map[string]compute.InterconnectGroupInterconnect{}}
		for _, m := range members {
			g.Interconnects[m] = compute.InterconnectGroupInterconnect{Interconnect: w.url("global/interconnects/" + m)}
		}
		return g
	}
	get := func() *compute.InterconnectGroup {
		t.Helper()
		g, err := w.svc.InterconnectGroups.Get(vendorProject, "icg").Do()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	status := func() *compute.InterconnectGroupsOperationalStatus {
		t.Helper()
		st, err := w.svc.InterconnectGroups.GetOperationalStatus(vendorProject, "icg").Do()
		if err != nil {
			t.Fatal(err)
		}
		return st.Result
	}

	op, err := w.svc.InterconnectGroups.Insert(vendorProject, group("icg", "PRODUCTION_NON_CRITICAL", "ic-z1")).RequestId(vendorUUID(t)).Do()
	w.done("insert", op, err)
	g := get()
	tc := g.Configured.TopologyCapability
	if g.Kind != "compute#InterconnectGroup" || tc.SupportedSla != "NO_SLA" || len(tc.IntendedCapabilityBlockers) != 1 ||
		tc.IntendedCapabilityBlockers[0].BlockerType != "NO_INTERCONNECTS_IN_METRO_AND_ZONE" || !slices.Equal(tc.IntendedCapabilityBlockers[0].Zones, []string{"zone2"}) {
		t.Errorf("one zone: %+v", tc)
	}

	// Add the other zone by a merge patch: the intent is met.
	op, err = w.svc.InterconnectGroups.Patch(vendorProject, "icg", &compute.InterconnectGroup{Etag: g.Etag,
		Interconnects: map[string]compute.InterconnectGroupInterconnect{"ic-z2": {Interconnect: w.url("global/interconnects/ic-z2")}}}).Do()
	w.done("patch", op, err)
	g2 := get()
	if tc := g2.Configured.TopologyCapability; tc.SupportedSla != "PRODUCTION_NON_CRITICAL" || len(tc.IntendedCapabilityBlockers) != 0 || len(g2.Interconnects) != 2 {
		t.Errorf("both zones: %+v, %d interconnects", tc, len(g2.Interconnects))
	}
	if ps := g2.PhysicalStructure; len(ps.Metros) != 1 || ps.Metros[0].Metro != "iad" || len(ps.Metros[0].Facilities) != 1 || len(ps.Metros[0].Facilities[0].Zones) != 2 {
		t.Errorf("physicalStructure: %+v", ps)
	}
	_, err = w.svc.InterconnectGroups.Patch(vendorProject, "icg", &compute.InterconnectGroup{Etag: g.Etag, Description: "stale"}).Do()
	vendorAPIError(t, err, 412, "conditionNotMet")

	if st := status(); st.GroupStatus != "FULLY_UP" || len(st.InterconnectStatuses) != 2 || st.Operational.TopologyCapability.SupportedSla != "PRODUCTION_NON_CRITICAL" || st.InterconnectStatuses[0].Diagnostics == nil {
		t.Errorf("all up: %+v", st)
	}
	// A circuit down, then a member drained, then deleted: the status follows.
	w.circuit("interconnects/ic-z1", "DOWN")
	if st := status(); st.GroupStatus != "DEGRADED" || st.Operational.TopologyCapability.SupportedSla != "NO_SLA" || st.Configured.TopologyCapability.SupportedSla != "PRODUCTION_NON_CRITICAL" {
		t.Errorf("ic-z1 down: %s operational %s", st.GroupStatus, st.Operational.TopologyCapability.SupportedSla)
	}
	w.circuit("interconnects/ic-z1", "UP")
	op, err = w.svc.Interconnects.Patch(vendorProject, "ic-z2", &compute.Interconnect{AdminEnabled: false, ForceSendFields: []string{"AdminEnabled"}}).Do()
	w.done("drain ic-z2", op, err)
	if st := status(); st.GroupStatus != "DEGRADED" {
		t.Errorf("ic-z2 drained: %s", st.GroupStatus)
	}
	op, err = w.svc.Interconnects.Delete(vendorProject, "ic-z2").Do()
	w.done("delete ic-z2", op, err)
	st := status()
	var gone *compute.InterconnectGroupsOperationalStatusInterconnectStatus
	for _, s := range st.InterconnectStatuses {
		if strings.HasSuffix(s.Interconnect, "/ic-z2") {
			gone = s
		}
	}
	if st.GroupStatus != "DEGRADED" || gone == nil || gone.IsActive != "INACTIVE" || gone.AdminEnabled || st.Configured.TopologyCapability.SupportedSla != "NO_SLA" {
		t.Errorf("ic-z2 deleted: %s, %+v, configured %s", st.GroupStatus, gone, st.Configured.TopologyCapability.SupportedSla)
	}

	// createMembers: two interconnects in facility iad-1 spread over its two zones.
	op, err = w.svc.InterconnectGroups.CreateMembers(vendorProject, "icg", &compute.InterconnectGroupsCreateMembersRequest{Request: &compute.InterconnectGroupsCreateMembers{
		TemplateInterconnect: &compute.InterconnectGroupsCreateMembersInterconnectInput{Facility: "iad-1", LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"},
		Interconnects:        []*compute.InterconnectGroupsCreateMembersInterconnectInput{{Name: "ic-new-1"}, {Name: "ic-new-2"}},
	}}).Do()
	if op = w.done("createMembers", op, err); op.OperationType != "createMembers" {
		t.Errorf("createMembers operationType %q", op.OperationType)
	}
	zones := map[string]bool{}
	for _, n := range []string{"ic-new-1", "ic-new-2"} {
		ic := w.getInterconnect(n)
		zones[ic.Location[strings.LastIndexByte(ic.Location, '/')+1:]] = true
	}
	if !zones["iad-zone1-1"] || !zones["iad-zone2-1"] {
		t.Errorf("createMembers locations: %v", zones)
	}
	if g := get(); len(g.Interconnects) != 4 || g.Configured.TopologyCapability.SupportedSla != "PRODUCTION_NON_CRITICAL" {
		t.Errorf("after createMembers: %d interconnects, %s", len(g.Interconnects), g.Configured.TopologyCapability.SupportedSla)
	}
	// REJECT: a PRODUCTION_CRITICAL group with one metro would not meet its intent.
	op, err = w.svc.InterconnectGroups.Insert(vendorProject, group("icg-crit", "PRODUCTION_CRITICAL")).Do()
	w.done("insert icg-crit", op, err)
	_, err = w.svc.InterconnectGroups.CreateMembers(vendorProject, "icg-crit", &compute.InterconnectGroupsCreateMembersRequest{Request: &compute.InterconnectGroupsCreateMembers{
		IntentMismatchBehavior: "REJECT",
		Interconnects:          []*compute.InterconnectGroupsCreateMembersInterconnectInput{{Name: "ic-rej", Facility: "iad-1", LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"}},
	}}).Do()
	vendorAPIError(t, err, 400, "invalid")
	if _, err := w.svc.Interconnects.Get(vendorProject, "ic-rej").Do(); err == nil {
		t.Errorf("a rejected createMembers created its interconnect")
	}
	// A Cross-Cloud Interconnect is not made by createMembers, which chooses the location.
	_, err = w.svc.InterconnectGroups.CreateMembers(vendorProject, "icg", &compute.InterconnectGroupsCreateMembersRequest{Request: &compute.InterconnectGroupsCreateMembers{
		Interconnects: []*compute.InterconnectGroupsCreateMembersInterconnectInput{{Name: "ic-cc", Facility: "iad-1", LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1,
			InterconnectType: "DEDICATED", RemoteLocation: "aws-iad-1"}},
	}}).Do()
	if e := vendorAPIError(t, err, 400, "invalid"); !strings.Contains(e.Message, "insert a Cross-Cloud Interconnect with interconnects.insert") {
		t.Errorf("createMembers with a remote location: %q", e.Message)
	}

	// A missing interconnect fails the insert's operation; list; delete.
	op, err = w.svc.InterconnectGroups.Insert(vendorProject, group("icg-bad", "NO_SLA", "nope")).Do()
	if err != nil {
		t.Fatal(err)
	}
	if op = vendorWait(t, w.svc, op.Name); op.Error == nil || op.Error.Errors[0].Code != "RESOURCE_NOT_FOUND" {
		t.Errorf("insert with a missing interconnect: %+v", op.Error)
	}
	list, err := w.svc.InterconnectGroups.List(vendorProject).MaxResults(1).Do()
	if err != nil || len(list.Items) != 1 || list.NextPageToken == "" {
		t.Errorf("list: %+v %v", list, err)
	}
	op, err = w.svc.InterconnectGroups.Delete(vendorProject, "icg-crit").Do()
	w.done("delete", op, err)
	if _, err := w.svc.InterconnectGroups.Get(vendorProject, "icg-crit").Do(); err == nil {
		t.Errorf("a deleted group still reads")
	}
}

// TestVendorIAM: the IAM methods of both kinds of group keep a policy as IAM does.
func TestVendorIAM(t *testing.T) {
	w := newVMWorld(t)
	op, err := w.svc.InterconnectAttachmentGroups.Insert(vendorProject, vicGroupRequest("ag", "NO_SLA")).Do()
	w.done("insert ag", op, err)
	op, err = w.svc.InterconnectGroups.Insert(vendorProject, &compute.InterconnectGroup{Name: "ig", Intent: &compute.InterconnectGroupIntent{TopologyCapability: "NO_SLA"}}).Do()
	w.done("insert ig", op, err)

	type iam struct {
		get  func(version int64) (*compute.Policy, error)
		set  func(*compute.GlobalSetPolicyRequest) (*compute.Policy, error)
		test func(...string) (*compute.TestPermissionsResponse, error)
		kind string
	}
	for _, k := range []iam{
		{func(v int64) (*compute.Policy, error) {
			return w.svc.InterconnectAttachmentGroups.GetIamPolicy(vendorProject, "ag").OptionsRequestedPolicyVersion(v).Do()
		}, func(r *compute.GlobalSetPolicyRequest) (*compute.Policy, error) {
			return w.svc.InterconnectAttachmentGroups.SetIamPolicy(vendorProject, "ag", r).Do()
		}, func(p ...string) (*compute.TestPermissionsResponse, error) {
			return w.svc.InterconnectAttachmentGroups.TestIamPermissions(vendorProject, "ag", &compute.TestPermissionsRequest{Permissions: p}).Do()
		}, "interconnectAttachmentGroups"},
		{func(v int64) (*compute.Policy, error) {
			return w.svc.InterconnectGroups.GetIamPolicy(vendorProject, "ig").OptionsRequestedPolicyVersion(v).Do()
		}, func(r *compute.GlobalSetPolicyRequest) (*compute.Policy, error) {
			return w.svc.InterconnectGroups.SetIamPolicy(vendorProject, "ig", r).Do()
		}, func(p ...string) (*compute.TestPermissionsResponse, error) {
			return w.svc.InterconnectGroups.TestIamPermissions(vendorProject, "ig", &compute.TestPermissionsRequest{Permissions: p}).Do()
		}, "interconnectGroups"},
	} {
		t.Run(k.kind, func(t *testing.T) {
			empty, err := k.get(0)
			if err != nil || empty.Etag != "ACAB" || empty.Version != 1 || len(empty.Bindings) != 0 {
				t.Fatalf("empty policy: %+v %v", empty, err)
			}
			cond := &compute.Expr{Title: "weekdays", Expression: "request.time.getDayOfWeek() < 5"}
			set, err := k.set(&compute.GlobalSetPolicyRequest{Policy: &compute.Policy{Version: 3, Etag: empty.Etag, Bindings: []*compute.Binding{
				{Role: "roles/compute.networkViewer", Members: []string{"user:ana@example.com", "user:ana@example.com"}},
				{Role: "roles/compute.networkAdmin", Members: []string{"group:ops@example.com"}, Condition: cond},
				{Role: "roles/compute.networkViewer", Members: []string{"serviceAccount:bot@p.iam.gserviceaccount.com"}},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(set.Etag, "BwX") || set.Version != 3 || len(set.Bindings) != 2 || len(set.Bindings[1].Members) != 2 {
				t.Errorf("set: %+v", set)
			}
			// A read for version 1 hides the condition in the role; one for 3 shows it.
			v1, _ := k.get(1)
			v3, _ := k.get(3)
			if v1.Version != 1 || !strings.HasPrefix(v1.Bindings[0].Role, "roles/compute.networkAdmin_withcond_") || v1.Bindings[0].Condition != nil {
				t.Errorf("version 1 read: %+v", v1.Bindings[0])
			}
			if v3.Etag != set.Etag || v3.Bindings[0].Condition == nil || v3.Bindings[0].Condition.Expression != cond.Expression {
				t.Errorf("version 3 read: %+v", v3)
			}
			// The stale etag is refused; a conditional binding needs version 3; bad principals.
			_, err = k.set(&compute.GlobalSetPolicyRequest{Policy: &compute.Policy{Etag: empty.Etag}})
			vendorAPIError(t, err, 409, "aborted")
			_, err = k.set(&compute.GlobalSetPolicyRequest{Policy: &compute.Policy{Version: 1, Bindings: []*compute.Binding{{Role: "roles/viewer", Members: []string{"user:a@example.com"}, Condition: cond}}}})
			vendorAPIError(t, err, 400, "invalid")
			_, err = k.set(&compute.GlobalSetPolicyRequest{Policy: &compute.Policy{Bindings: []*compute.Binding{{Role: "roles/viewer", Members: []string{"ana"}}}}})
			vendorAPIError(t, err, 400, "invalid")
			_, err = k.get(2)
			vendorAPIError(t, err, 400, "invalid")
			// A version 1 write with the etag over conditions would lose them (the
			// version 1 read sent back, as a client unaware of conditions does).
			v1.Etag = set.Etag
			_, err = k.set(&compute.GlobalSetPolicyRequest{Policy: v1})
			vendorAPIError(t, err, 400, "badRequest")
			if now, _ := k.get(3); now.Etag != set.Etag || now.Bindings[0].Condition == nil {
				t.Errorf("after a refused version 1 write: %+v", now)
			}
			// Without an etag the write is unconditional.
			p, err := k.set(&compute.GlobalSetPolicyRequest{Policy: &compute.Policy{}})
			if err != nil || len(p.Bindings) != 0 || p.Etag == set.Etag {
				t.Errorf("unconditional clear: %+v %v", p, err)
			}
			// Without conditions, any version may write with the etag.
			v3set, err := k.set(&compute.GlobalSetPolicyRequest{Policy: &compute.Policy{Version: 3, Etag: p.Etag, Bindings: []*compute.Binding{{Role: "roles/viewer", Members: []string{"user:a@example.com"}}}}})
			if err == nil {
				_, err = k.set(&compute.GlobalSetPolicyRequest{Policy: &compute.Policy{Version: 1, Etag: v3set.Etag}})
			}
			if err != nil {
				t.Errorf("version 1 over a policy without conditions: %v", err)
			}

			perms, err := k.test("compute."+k.kind+".get", "compute.instances.list", "compute."+k.kind+".setIamPolicy")
			if err != nil || !slices.Equal(perms.Permissions, []string{"compute." + k.kind + ".get", "compute." + k.kind + ".setIamPolicy"}) {
				t.Errorf("testIamPermissions: %+v %v", perms, err)
			}
			_, err = k.test("compute.*")
			vendorAPIError(t, err, 400, "invalid")
		})
	}
	_, err = w.svc.InterconnectGroups.GetIamPolicy(vendorProject, "nope").Do()
	vendorAPIError(t, err, 404, "notFound")
}

// TestVendorIAMRace: of racing setIamPolicy calls with the same etag, exactly one wins.
func TestVendorIAMRace(t *testing.T) {
	w := newVMWorld(t)
	op, err := w.svc.InterconnectGroups.Insert(vendorProject, &compute.InterconnectGroup{Name: "ig", Intent: &compute.InterconnectGroupIntent{TopologyCapability: "NO_SLA"}}).Do()
	w.done("insert", op, err)
	const n = 8
	var wg sync.WaitGroup
	results := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.svc.InterconnectGroups.SetIamPolicy(vendorProject, "ig", &compute.GlobalSetPolicyRequest{Policy: &compute.Policy{Etag: "ACAB",
				Bindings: []*compute.Binding{{Role: "roles/viewer", Members: []string{"user:u" + string(rune('a'+i)) + "@example.com"}}}}}).Do()
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		if err == nil {
			won++
		} else if !bytes.Contains([]byte(err.Error()), []byte("409")) {
			t.Errorf("a loser got %v, want 409", err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d racing setIamPolicy calls won, want 1", won, n)
	}
}

// TestVendorRaces: racing changes decided at accept — patches of one interconnect group
// with the same etag, renames of two interconnects to one name, inserts of one group name —
// have exactly one winner; the others get the real service's refusal.
func TestVendorRaces(t *testing.T) {
	w := newVMWorld(t)
	w.interconnect("ic-a", "iad-zone1-1")
	w.interconnect("ic-b", "iad-zone2-1")
	op, err := w.svc.InterconnectGroups.Insert(vendorProject, &compute.InterconnectGroup{Name: "ig", Intent: &compute.InterconnectGroupIntent{TopologyCapability: "NO_SLA"}}).Do()
	w.done("insert", op, err)
	g, err := w.svc.InterconnectGroups.Get(vendorProject, "ig").Do()
	if err != nil {
		t.Fatal(err)
	}
	race := func(name string, n int, call func(i int) error, loser int) {
		t.Helper()
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- call(i)
			}()
		}
		wg.Wait()
		close(errs)
		won := 0
		for err := range errs {
			if err == nil {
				won++
				continue
			}
			vendorAPIError(t, err, loser, map[int]string{409: "alreadyExists", 412: "conditionNotMet"}[loser])
		}
		if won != 1 {
			t.Errorf("%s: %d of %d won, want 1", name, won, n)
		}
	}
	race("patch with one etag", 6, func(i int) error {
		_, err := w.svc.InterconnectGroups.Patch(vendorProject, "ig", &compute.InterconnectGroup{Etag: g.Etag, Description: "writer " + string(rune('a'+i))}).Do()
		return err
	}, 412)
	race("two renames to one name", 2, func(i int) error {
		_, err := w.svc.Interconnects.SetName(vendorProject, []string{"ic-a", "ic-b"}[i], &compute.InterconnectsSetNameRequest{Name: "ic-x"}).Do()
		return err
	}, 409)
	race("inserts of one group name", 6, func(int) error {
		_, err := w.svc.InterconnectGroups.Insert(vendorProject, &compute.InterconnectGroup{Name: "ig-race", Intent: &compute.InterconnectGroupIntent{TopologyCapability: "NO_SLA"}}).Do()
		return err
	}, 409)
}

// TestVendorInterconnectGroupsOnTheirInterconnects: an interconnect's interconnectGroups
// lists the groups that hold it, through inserts, patches, deletes and renames, and a group
// holding a deleted interconnect holds the one made again under its name.
func TestVendorInterconnectGroupsOnTheirInterconnects(t *testing.T) {
	w := newVMWorld(t)
	w.interconnect("ic-a", "iad-zone1-1")
	w.interconnect("ic-b", "iad-zone2-1")
	insert := func(name string, members ...string) {
		t.Helper()
		g := &compute.InterconnectGroup{Name: name, Intent: &compute.InterconnectGroupIntent{TopologyCapability: "NO_SLA"}, Interconnects: map[string]compute.InterconnectGroupInterconnect{}}
		for _, m := range members {
			g.Interconnects[m] = compute.InterconnectGroupInterconnect{Interconnect: w.url("global/interconnects/" + m)}
		}
		op, err := w.svc.InterconnectGroups.Insert(vendorProject, g).Do()
		w.done("insert "+name, op, err)
	}
	groupsOf := func(ic string, want ...string) {
		t.Helper()
		var urls []string
		for _, g := range want {
			urls = append(urls, w.url("global/interconnectGroups/"+g))
		}
		if got := w.getInterconnect(ic).InterconnectGroups; !slices.Equal(got, urls) {
			t.Errorf("%s: interconnectGroups %q, want %q", ic, got, urls)
		}
	}
	insert("g1", "ic-a", "ic-b")
	insert("g2", "ic-a")
	groupsOf("ic-a", "g1", "g2")
	groupsOf("ic-b", "g1")

	op, err := w.svc.InterconnectGroups.Patch(vendorProject, "g1", &compute.InterconnectGroup{ForceSendFields: []string{"Interconnects"}, NullFields: []string{"Interconnects.ic-b"}}).Do()
	w.done("remove ic-b from g1", op, err)
	groupsOf("ic-b")
	op, err = w.svc.InterconnectGroups.Delete(vendorProject, "g2").Do()
	w.done("delete g2", op, err)
	groupsOf("ic-a", "g1")

	op, err = w.svc.Interconnects.SetName(vendorProject, "ic-a", &compute.InterconnectsSetNameRequest{Name: "ic-c"}).Do()
	w.done("rename ic-a", op, err)
	groupsOf("ic-c", "g1")
	op, err = w.svc.Interconnects.Delete(vendorProject, "ic-c").Do()
	w.done("delete ic-c", op, err)
	w.interconnect("ic-c", "iad-zone1-1")
	groupsOf("ic-c", "g1")
	// Renamed to the name of a deleted member: it is the member now.
	w.interconnect("ic-d", "iad-zone1-1")
	insert("g3", "ic-d")
	op, err = w.svc.Interconnects.Delete(vendorProject, "ic-d").Do()
	w.done("delete ic-d", op, err)
	op, err = w.svc.Interconnects.SetName(vendorProject, "ic-b", &compute.InterconnectsSetNameRequest{Name: "ic-d"}).Do()
	w.done("rename ic-b", op, err)
	groupsOf("ic-d", "g3")
}
