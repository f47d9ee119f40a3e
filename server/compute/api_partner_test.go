package compute_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// Partner Interconnect over HTTP, through the generated client: a customer's PARTNER
// attachment, the partner's PARTNER_PROVIDER attachment that provisions it by its pairing
// key, the customer's activation, and what deleting either side leaves of the other.

// partnerKey is the documented form of a pairing key: "XXXXX/region/domain".
var partnerKey = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/us-east4/(1|2|any)$`)

// partnerInterconnect makes an interconnect of the partner's (type PARTNER) at location.
func (w *world) partnerInterconnect(name, location string) {
	w.t.Helper()
	resp, err := w.c.InterconnectsInsertWithResponse(apiCtx, apiProject, nil, gen.Interconnect{Name: name, Location: w.url("global/interconnectLocations/" + location),
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "PARTNER"})
	if err != nil || resp.StatusCode() != 200 {
		w.t.Fatalf("interconnect %s: %v %s", name, err, resp.Body)
	}
}

// insertAttachment inserts a in us-east4.
func (w *world) insertAttachment(a gen.InterconnectAttachment) *gen.InterconnectAttachmentsInsertResponse {
	w.t.Helper()
	resp, err := w.c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, "us-east4", nil, a)
	if err != nil {
		w.t.Fatal(err)
	}
	return resp
}

// customer makes a PARTNER attachment in us-east4 with a router, in domain, and reads it.
func (w *world) customer(name string, domain gen.InterconnectAttachmentEdgeAvailabilityDomain, adminEnabled *bool) gen.InterconnectAttachment {
	w.t.Helper()
	a := gen.InterconnectAttachment{Name: name, Type: ptr(gen.InterconnectAttachmentTypePARTNER), Router: ptr(w.url("regions/us-east4/routers/r1")), AdminEnabled: adminEnabled}
	if domain != "" {
		a.EdgeAvailabilityDomain = &domain
	}
	if r := w.insertAttachment(a); r.StatusCode() != 200 {
		w.t.Fatalf("PARTNER %s: %s", name, r.Body)
	}
	return w.read(name)
}

// providerBody is a PARTNER_PROVIDER attachment on the interconnect ic naming key.
func (w *world) providerBody(name, key, ic string) gen.InterconnectAttachment {
	return gen.InterconnectAttachment{Name: name, Type: ptr(gen.InterconnectAttachmentTypePARTNERPROVIDER), PairingKey: &key,
		Interconnect: ptr(w.url("global/interconnects/" + ic)), Bandwidth: ptr(gen.InterconnectAttachmentBandwidthBPS1G), PartnerAsn: ptr("64512"),
		PartnerMetadata: &gen.InterconnectAttachmentPartnerMetadata{PartnerName: ptr("Example Networks"), InterconnectName: ptr("Ashburn 1"), PortalUrl: ptr("https://portal.example.net/a/1")}}
}

// read gets an attachment of us-east4.
func (w *world) read(name string) gen.InterconnectAttachment {
	w.t.Helper()
	r, err := w.c.InterconnectAttachmentsGetWithResponse(apiCtx, apiProject, "us-east4", name, nil)
	if err != nil || r.StatusCode() != 200 {
		w.t.Fatalf("get %s: %v %s", name, err, r.Body)
	}
	return *r.JSON200
}

// patchAttachment patches an attachment of us-east4.
func (w *world) patchAttachment(name string, b gen.InterconnectAttachment) *gen.InterconnectAttachmentsPatchResponse {
	w.t.Helper()
	r, err := w.c.InterconnectAttachmentsPatchWithResponse(apiCtx, apiProject, "us-east4", name, nil, b)
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

func (w *world) deleteAttachment(name string) {
	w.t.Helper()
	if r, err := w.c.InterconnectAttachmentsDeleteWithResponse(apiCtx, apiProject, "us-east4", name, nil); err != nil || r.StatusCode() != 200 {
		w.t.Fatalf("delete %s: %v %s", name, err, r.Body)
	}
}

// wantState checks an attachment's state and operational status.
func wantState(t *testing.T, a gen.InterconnectAttachment, state gen.InterconnectAttachmentState) {
	t.Helper()
	os := gen.InterconnectAttachmentOperationalStatusOSUNPROVISIONED
	if state == gen.InterconnectAttachmentStateACTIVE {
		os = gen.InterconnectAttachmentOperationalStatusOSACTIVE
	}
	if deref(a.State) != state || deref(a.OperationalStatus) != os {
		t.Errorf("%s: state %s, operationalStatus %s; want %s, %s", a.Name, deref(a.State), deref(a.OperationalStatus), state, os)
	}
}

func TestPartnerAttachmentLifecycle(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.partnerInterconnect("ic-p1", "iad-zone1-1")
	w.partnerInterconnect("ic-p2", "iad-zone2-1")

	// The customer's attachment waits for its partner, with a pairing key and nothing of
	// what the partner sets.
	c := w.customer("pa-1", gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAIN1, nil)
	key := deref(c.PairingKey)
	wantState(t, c, gen.InterconnectAttachmentStatePENDINGPARTNER)
	if !partnerKey.MatchString(key) || !strings.HasSuffix(key, "/1") || *c.Type != "PARTNER" || deref(c.AdminEnabled) || c.AdminEnabled == nil ||
		deref(c.EdgeAvailabilityDomain) != "AVAILABILITY_DOMAIN_1" || c.Interconnect != nil || c.VlanTag8021q != nil || c.Bandwidth != nil ||
		c.CloudRouterIpAddress != nil || c.PartnerMetadata != nil || c.PrivateInterconnectInfo != nil || deref(c.Encryption) != "NONE" {
		t.Fatalf("new PARTNER attachment: %+v", c)
	}

	// The partner provisions it with the key.
	if r := w.insertAttachment(w.providerBody("pp-1", key, "ic-p1")); r.StatusCode() != 200 || *r.JSON200.Status != "DONE" {
		t.Fatalf("PARTNER_PROVIDER: %s", r.Body)
	}
	c, p := w.read("pa-1"), w.read("pp-1")
	wantState(t, c, gen.InterconnectAttachmentStatePENDINGCUSTOMER)
	wantState(t, p, gen.InterconnectAttachmentStatePENDINGCUSTOMER)
	if deref(c.Bandwidth) != "BPS_1G" || deref(c.PartnerAsn) != "64512" || deref(deref(c.PartnerMetadata).PortalUrl) != "https://portal.example.net/a/1" ||
		c.VlanTag8021q == nil || *c.VlanTag8021q != deref(p.VlanTag8021q) || c.CloudRouterIpAddress == nil ||
		*c.CloudRouterIpAddress != deref(p.CloudRouterIpAddress) || deref(c.CustomerRouterIpAddress) != deref(p.CustomerRouterIpAddress) ||
		c.Interconnect != nil || deref(c.PairingKey) != key {
		t.Errorf("provisioned PARTNER attachment %+v\nits provider %+v", c, p)
	}
	if p.PairingKey != nil || p.AdminEnabled != nil || !strings.HasSuffix(deref(p.Interconnect), "/global/interconnects/ic-p1") ||
		deref(p.EdgeAvailabilityDomain) != "AVAILABILITY_DOMAIN_1" || *p.Type != "PARTNER_PROVIDER" || p.PrivateInterconnectInfo != nil {
		t.Errorf("PARTNER_PROVIDER attachment: %+v", p)
	}
	again := w.insertAttachment(w.providerBody("pp-2", key, "ic-p1"))
	if e := wantGoogleError(t, again.StatusCode(), again.Body, 400, "invalid"); e.Errors[0].Location != "resource.pairingKey" || !strings.Contains(e.Message, "PENDING_CUSTOMER") {
		t.Errorf("a second provider for one key: %+v", e)
	}

	// What each side may change: the partner's bandwidth and metadata show on the
	// customer's; the customer's bandwidth is the partner's; the provider has no adminEnabled.
	r := w.patchAttachment("pa-1", gen.InterconnectAttachment{Bandwidth: ptr(gen.InterconnectAttachmentBandwidthBPS10G)})
	if e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid"); e.Errors[0].Location != "resource.bandwidth" {
		t.Errorf("the customer's bandwidth: %+v", e)
	}
	r = w.patchAttachment("pp-1", gen.InterconnectAttachment{AdminEnabled: ptr(true)})
	if e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid"); e.Errors[0].Location != "resource.adminEnabled" {
		t.Errorf("the provider's adminEnabled: %+v", e)
	}
	metadata := gen.InterconnectAttachmentPartnerMetadata{PartnerName: ptr("Example Networks"), InterconnectName: ptr("Ashburn 2"), PortalUrl: ptr("https://portal.example.net/a/2")}
	if r := w.patchAttachment("pp-1", gen.InterconnectAttachment{Bandwidth: ptr(gen.InterconnectAttachmentBandwidthBPS2G), PartnerMetadata: &metadata}); r.StatusCode() != 200 {
		t.Fatalf("the provider's patch: %s", r.Body)
	}
	if c := w.read("pa-1"); deref(c.Bandwidth) != "BPS_2G" || deref(deref(c.PartnerMetadata).InterconnectName) != "Ashburn 2" {
		t.Errorf("the customer's after the provider's patch: %+v", c)
	}

	// The customer activates it: both are ACTIVE.
	if r := w.patchAttachment("pa-1", gen.InterconnectAttachment{AdminEnabled: ptr(true)}); r.StatusCode() != 200 {
		t.Fatalf("activate: %s", r.Body)
	}
	wantState(t, w.read("pa-1"), gen.InterconnectAttachmentStateACTIVE)
	wantState(t, w.read("pp-1"), gen.InterconnectAttachmentStateACTIVE)
	// Dual stack: the customer's choice, its IPv6 addresses on the partner's interconnect,
	// on both sides.
	if r := w.patchAttachment("pa-1", gen.InterconnectAttachment{StackType: ptr(gen.InterconnectAttachmentStackTypeIPV4IPV6)}); r.StatusCode() != 200 {
		t.Fatalf("dual stack: %s", r.Body)
	}
	if c, p := w.read("pa-1"), w.read("pp-1"); c.CloudRouterIpv6Address == nil || deref(c.CloudRouterIpv6Address) != deref(p.CloudRouterIpv6Address) ||
		deref(p.StackType) != "IPV4_IPV6" || deref(c.CloudRouterIpAddress) != deref(p.CloudRouterIpAddress) {
		t.Errorf("dual stack: the customer's %+v\nthe partner's %+v", c, p)
	}
	// Draining it keeps it ACTIVE, disabled, as a dedicated attachment's adminEnabled does.
	w.patchAttachment("pa-1", gen.InterconnectAttachment{AdminEnabled: ptr(false)})
	if c := w.read("pa-1"); deref(c.State) != "ACTIVE" || deref(c.AdminEnabled) {
		t.Errorf("drained: %+v", c)
	}

	// Lists and filters see both types as they see dedicated attachments.
	names := func(filter string) []string {
		l, err := w.c.InterconnectAttachmentsListWithResponse(apiCtx, apiProject, "us-east4", &gen.InterconnectAttachmentsListParams{Filter: &filter})
		if err != nil || l.StatusCode() != 200 {
			t.Fatalf("list %s: %v %s", filter, err, l.Body)
		}
		var out []string
		for _, a := range l.JSON200.Items {
			out = append(out, a.Name)
		}
		return out
	}
	if got := names(`type = "PARTNER"`); !slices.Equal(got, []string{"pa-1"}) {
		t.Errorf(`type = "PARTNER": %v`, got)
	}
	if got := names(`state = ACTIVE`); !slices.Equal(got, []string{"pa-1", "pp-1"}) {
		t.Errorf(`state = ACTIVE: %v`, got)
	}
	agg, err := w.c.InterconnectAttachmentsAggregatedListWithResponse(apiCtx, apiProject, &gen.InterconnectAttachmentsAggregatedListParams{Filter: ptr(`type = PARTNER_PROVIDER`)})
	if err != nil || agg.StatusCode() != 200 {
		t.Fatalf("aggregatedList: %v %s", err, agg.Body)
	}
	if got := agg.JSON200.Items["regions/us-east4"].InterconnectAttachments; len(got) != 1 || got[0].Name != "pp-1" || got[0].PairingKey != nil {
		t.Errorf("aggregatedList of PARTNER_PROVIDER: %+v", got)
	}
	// The partner's interconnect carries the partner's attachment, not the customer's.
	if ic, _ := w.c.InterconnectsGetWithResponse(apiCtx, apiProject, "ic-p1", nil); len(ic.JSON200.InterconnectAttachments) != 1 ||
		!strings.HasSuffix(ic.JSON200.InterconnectAttachments[0], "/interconnectAttachments/pp-1") {
		t.Errorf("ic-p1's attachments: %v", ic.JSON200.InterconnectAttachments)
	}

	// The partner deletes its side: the customer's is DEFUNCT, and its key is spent.
	w.deleteAttachment("pp-1")
	wantState(t, w.read("pa-1"), gen.InterconnectAttachmentStateDEFUNCT)
	spent := w.insertAttachment(w.providerBody("pp-3", key, "ic-p1"))
	wantGoogleError(t, spent.StatusCode(), spent.Body, 400, "invalid")

	// Activated in advance, in either domain: ACTIVE as soon as the partner provisions it;
	// the customer deletes it, and the partner's side is DEFUNCT.
	pre := w.customer("pa-2", "", ptr(true))
	if !partnerKey.MatchString(deref(pre.PairingKey)) || !strings.HasSuffix(*pre.PairingKey, "/any") || deref(pre.EdgeAvailabilityDomain) != "AVAILABILITY_DOMAIN_ANY" {
		t.Fatalf("PARTNER attachment in any domain: %+v", pre)
	}
	if r := w.insertAttachment(w.providerBody("pp-4", *pre.PairingKey, "ic-p2")); r.StatusCode() != 200 {
		t.Fatalf("PARTNER_PROVIDER of pa-2: %s", r.Body)
	}
	wantState(t, w.read("pa-2"), gen.InterconnectAttachmentStateACTIVE)
	wantState(t, w.read("pp-4"), gen.InterconnectAttachmentStateACTIVE)
	w.deleteAttachment("pa-2")
	wantState(t, w.read("pp-4"), gen.InterconnectAttachmentStateDEFUNCT)
}

func TestPartnerAttachmentRefusals(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.partnerInterconnect("ic-p1", "iad-zone1-1")
	w.partnerInterconnect("ic-p2", "iad-zone2-1")
	w.interconnect("ic-d", "iad-zone1-1")
	key := *w.customer("pa-1", gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAIN1, nil).PairingKey

	partner := func(change func(*gen.InterconnectAttachment)) gen.InterconnectAttachment {
		a := gen.InterconnectAttachment{Name: "pa-x", Type: ptr(gen.InterconnectAttachmentTypePARTNER), Router: ptr("regions/us-east4/routers/r1")}
		change(&a)
		return a
	}
	provider := func(change func(*gen.InterconnectAttachment)) gen.InterconnectAttachment {
		a := w.providerBody("pp-x", key, "ic-p1")
		change(&a)
		return a
	}
	for _, tt := range []struct {
		name             string
		a                gen.InterconnectAttachment
		reason, location string
	}{
		{"PARTNER: an interconnect", partner(func(a *gen.InterconnectAttachment) { a.Interconnect = ptr("global/interconnects/ic-p1") }), "invalid", "resource.interconnect"},
		{"PARTNER: a VLAN", partner(func(a *gen.InterconnectAttachment) { a.VlanTag8021q = ptr(int32(100)) }), "invalid", "resource.vlanTag8021q"},
		{"PARTNER: a bandwidth", partner(func(a *gen.InterconnectAttachment) { a.Bandwidth = ptr(gen.InterconnectAttachmentBandwidthBPS1G) }), "invalid", "resource.bandwidth"},
		{"PARTNER: a pairing key", partner(func(a *gen.InterconnectAttachment) { a.PairingKey = &key }), "invalid", "resource.pairingKey"},
		{"PARTNER: a partner ASN", partner(func(a *gen.InterconnectAttachment) { a.PartnerAsn = ptr("64512") }), "invalid", "resource.partnerAsn"},
		{"PARTNER: partner metadata", partner(func(a *gen.InterconnectAttachment) { a.PartnerMetadata = &gen.InterconnectAttachmentPartnerMetadata{} }), "invalid", "resource.partnerMetadata"},
		{"PARTNER: no router", partner(func(a *gen.InterconnectAttachment) { a.Router = nil }), "required", "resource.router"},
		{"PARTNER_PROVIDER: an unknown key", provider(func(a *gen.InterconnectAttachment) { a.PairingKey = ptr("nope/us-east4/1") }), "invalid", "resource.pairingKey"},
		{"PARTNER_PROVIDER: no key", provider(func(a *gen.InterconnectAttachment) { a.PairingKey = nil }), "required", "resource.pairingKey"},
		{"PARTNER_PROVIDER: no bandwidth", provider(func(a *gen.InterconnectAttachment) { a.Bandwidth = nil }), "required", "resource.bandwidth"},
		{"PARTNER_PROVIDER: no portal", provider(func(a *gen.InterconnectAttachment) { a.PartnerMetadata.PortalUrl = nil }), "required", "resource.partnerMetadata.portalUrl"},
		{"PARTNER_PROVIDER: no interconnect", provider(func(a *gen.InterconnectAttachment) { a.Interconnect = nil }), "required", "resource.interconnect"},
		{"PARTNER_PROVIDER: adminEnabled", provider(func(a *gen.InterconnectAttachment) { a.AdminEnabled = ptr(true) }), "invalid", "resource.adminEnabled"},
		{"PARTNER_PROVIDER: encryption", provider(func(a *gen.InterconnectAttachment) { a.Encryption = ptr(gen.InterconnectAttachmentEncryptionNONE) }), "invalid", "resource.encryption"},
		{"PARTNER_PROVIDER: ASN 0", provider(func(a *gen.InterconnectAttachment) { a.PartnerAsn = ptr("0") }), "invalid", "resource.partnerAsn"},
		{"PARTNER_PROVIDER: a dedicated interconnect", provider(func(a *gen.InterconnectAttachment) { a.Interconnect = ptr("global/interconnects/ic-d") }), "invalid", "resource.interconnect"},
		{"PARTNER_PROVIDER: the other domain", provider(func(a *gen.InterconnectAttachment) { a.Interconnect = ptr("global/interconnects/ic-p2") }), "invalid", "resource.interconnect"},
		{"L2_DEDICATED", gen.InterconnectAttachment{Name: "l2", Type: ptr(gen.InterconnectAttachmentTypeL2DEDICATED), Interconnect: ptr("global/interconnects/ic-d")}, "invalid", "resource.type"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := w.insertAttachment(tt.a)
			if e := wantGoogleError(t, r.StatusCode(), r.Body, map[string]int{"invalid": 400, "required": 400}[tt.reason], tt.reason); e.Errors[0].Location != tt.location {
				t.Errorf("location %q, want %q (%s)", e.Errors[0].Location, tt.location, e.Message)
			}
		})
	}
	// The key is for its own region.
	r, err := w.c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, "us-east1", nil, provider(func(*gen.InterconnectAttachment) {}))
	if err != nil {
		t.Fatal(err)
	}
	if e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid"); e.Errors[0].Location != "resource.pairingKey" || !strings.Contains(e.Message, "us-east4") {
		t.Errorf("another region: %+v", e)
	}
	// Nothing refused was stored, and the customer's attachment still waits.
	wantState(t, w.read("pa-1"), gen.InterconnectAttachmentStatePENDINGPARTNER)
	if l, _ := w.c.InterconnectAttachmentsListWithResponse(apiCtx, apiProject, "us-east4", nil); len(l.JSON200.Items) != 1 {
		t.Errorf("attachments after the refusals: %s", l.Body)
	}
}

// TestPartnerRequestReceived: while the partner's insert runs the customer's attachment is
// PARTNER_REQUEST_RECEIVED; when it is DONE, PENDING_CUSTOMER, or ACTIVE if the customer
// activated it in the meantime.
func TestPartnerRequestReceived(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{Delay: time.Second})
	w := &world{t: t, srv: srv, c: apiClient(t, srv, "net@example.com")}
	w.partnerInterconnect("ic-p1", "iad-zone1-1")
	clk.Advance(2 * time.Second)
	keys := map[string]string{}
	for _, name := range []string{"pa-1", "pa-2"} {
		w.insertAttachment(gen.InterconnectAttachment{Name: name, Type: ptr(gen.InterconnectAttachmentTypePARTNER), Router: ptr("regions/us-east4/routers/r1")})
	}
	clk.Advance(2 * time.Second)
	for _, name := range []string{"pa-1", "pa-2"} {
		keys[name] = *w.read(name).PairingKey
	}
	for i, name := range []string{"pa-1", "pa-2"} {
		if r := w.insertAttachment(w.providerBody("pp-"+string(rune('1'+i)), keys[name], "ic-p1")); r.StatusCode() != 200 || *r.JSON200.Status == "DONE" {
			t.Fatalf("provider of %s: %s", name, r.Body)
		}
		wantState(t, w.read(name), gen.InterconnectAttachmentStatePARTNERREQUESTRECEIVED)
	}
	if r := w.patchAttachment("pa-2", gen.InterconnectAttachment{AdminEnabled: ptr(true)}); r.StatusCode() != 200 {
		t.Fatalf("activate pa-2: %s", r.Body)
	}
	wantState(t, w.read("pa-2"), gen.InterconnectAttachmentStatePARTNERREQUESTRECEIVED)
	clk.Advance(2 * time.Second)
	wantState(t, w.read("pa-1"), gen.InterconnectAttachmentStatePENDINGCUSTOMER)
	wantState(t, w.read("pp-1"), gen.InterconnectAttachmentStatePENDINGCUSTOMER)
	wantState(t, w.read("pa-2"), gen.InterconnectAttachmentStateACTIVE)
	wantState(t, w.read("pp-2"), gen.InterconnectAttachmentStateACTIVE)
}

// TestPartnerAttachmentsInGroups: an attachment group may hold partner attachments (its
// status knows their states). One its partner has not provisioned is nowhere yet: the
// analysis leaves it out and its status is its state; provisioned and activated, it counts
// where its partner's interconnect is.
func TestPartnerAttachmentsInGroups(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-d", "iad-zone1-1")
	w.partnerInterconnect("ic-p2", "iad-zone2-1")
	dedicated := w.attachment("us-east4", "att-1", "ic-d", true)
	c := w.customer("pa-1", gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAIN2, nil)
	partner := w.url("regions/us-east4/interconnectAttachments/pa-1")
	if op := w.insertGroup("g", "PRODUCTION_NON_CRITICAL", dedicated, partner); op.Error != nil {
		t.Fatalf("group: %+v", op.Error)
	}
	status := func() (gen.InterconnectAttachmentGroupsOperationalStatus, map[string]gen.InterconnectAttachmentGroupsOperationalStatusAttachmentStatus) {
		r, err := w.c.InterconnectAttachmentGroupsGetOperationalStatusWithResponse(apiCtx, apiProject, "g", nil)
		if err != nil || r.StatusCode() != 200 {
			t.Fatalf("getOperationalStatus: %v %s", err, r.Body)
		}
		byURL := map[string]gen.InterconnectAttachmentGroupsOperationalStatusAttachmentStatus{}
		for _, s := range r.JSON200.Result.AttachmentStatuses {
			byURL[s.Attachment] = s
		}
		return r.JSON200.Result, byURL
	}
	g, err := w.group("g")
	if err != nil || g.StatusCode() != 200 {
		t.Fatalf("get group: %v %s", err, g.Body)
	}
	if eff := *g.JSON200.Configured.AvailabilitySla.EffectiveSla; eff != "NO_SLA" || len(g.JSON200.LogicalStructure.Regions) != 1 ||
		len(g.JSON200.LogicalStructure.Regions[0].Metros[0].Facilities[0].Zones) != 1 {
		t.Errorf("with a PENDING_PARTNER attachment: %s", g.Body)
	}
	result, byURL := status()
	if result.GroupStatus != "DEGRADED" || byURL[partner].Status != "PENDING_PARTNER" || byURL[partner].IsActive != "INACTIVE" || byURL[dedicated].Status != "CONNECTION_UP" {
		t.Errorf("status with a PENDING_PARTNER attachment: %+v", result)
	}

	if r := w.insertAttachment(w.providerBody("pp-1", *c.PairingKey, "ic-p2")); r.StatusCode() != 200 {
		t.Fatalf("provider: %s", r.Body)
	}
	if _, byURL := status(); byURL[partner].Status != "PENDING_CUSTOMER" {
		t.Errorf("status of a PENDING_CUSTOMER attachment: %+v", byURL[partner])
	}
	w.patchAttachment("pa-1", gen.InterconnectAttachment{AdminEnabled: ptr(true)})
	g, _ = w.group("g")
	if eff := *g.JSON200.Configured.AvailabilitySla.EffectiveSla; eff != "PRODUCTION_NON_CRITICAL" {
		t.Errorf("with the partner attachment ACTIVE in zone2: %s", g.Body)
	}
	if result, byURL := status(); result.GroupStatus != "FULLY_UP" || byURL[partner].Status != "CONNECTION_UP" {
		t.Errorf("status once ACTIVE: %+v", result)
	}
	// Its partner's interconnect drained: the partner attachment is down.
	if r, _ := w.c.InterconnectsPatchWithResponse(apiCtx, apiProject, "ic-p2", nil, gen.Interconnect{AdminEnabled: ptr(false)}); r.StatusCode() != 200 {
		t.Fatalf("drain ic-p2: %s", r.Body)
	}
	if result, byURL := status(); result.GroupStatus != "DEGRADED" || byURL[partner].Status != "CONNECTION_DOWN" {
		t.Errorf("status with the partner's interconnect drained: %+v", result)
	}
}
