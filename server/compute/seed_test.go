package compute

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

func seedInterconnectEntry(name, location string) map[string]any {
	return map[string]any{"name": name, "location": location, "linkType": "LINK_TYPE_ETHERNET_10G_LR", "requestedLinkCount": int64(1), "interconnectType": "DEDICATED"}
}

// seedWorld is two interconnects in iad with an attachment each, in us-east4, and one in
// sjc with an attachment of the same name in us-west1.
func seedWorld() SeedProject {
	return SeedProject{
		Project: "my-project-123",
		Interconnects: []map[string]any{
			seedInterconnectEntry("ic1", "iad-zone1-1"), seedInterconnectEntry("ic2", "iad-zone2-1"), seedInterconnectEntry("ic3", "sjc-zone1-6"),
		},
		Attachments: []map[string]any{
			{"name": "a1", "region": "us-east4", "interconnect": "ic1"},
			{"name": "a2", "region": "us-east4", "interconnect": "ic2", "vlanTag8021q": int64(7)},
			{"name": "a1", "region": "us-west1", "interconnect": "ic3"},
		},
	}
}

func seeded(t *testing.T, cfg Config) (*Server, *store.DB, error) {
	t.Helper()
	db := store.New(store.NewMemory())
	s := New(cfg, db)
	return s, db, db.Replace(context.Background(), func(tx *store.Tx) error { return s.Seed(tx, cfg) })
}

func TestSeedProject(t *testing.T) {
	p := seedWorld()
	p.ForwardingRules = []map[string]any{{"name": "fr", "labels": map[string]any{"env": "prod"}}, {"name": "fr6", "ipVersion": "IPV6"}}
	p.Groups = []map[string]any{{"name": "g", "intent": map[string]any{"availabilitySla": "PRODUCTION_NON_CRITICAL"}, "attachments": []any{"a2", "us-east4/a1"}}}
	cfg := Config{Projects: []SeedProject{p}}
	s, db, err := seeded(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	read := func() (RuleRecord, GroupRecord, AttachmentRecord) {
		var r RuleRecord
		var g GroupRecord
		var a AttachmentRecord
		_ = db.View(context.Background(), func(tx *store.Tx) error {
			r, _ = s.tables.rules.Get(tx, "projects/my-project-123/global/forwardingRules/fr")
			g, _ = s.tables.groups.Get(tx, "projects/my-project-123/global/interconnectAttachmentGroups/g")
			a, _ = s.tables.attachments.Get(tx, "projects/my-project-123/regions/us-east4/interconnectAttachments/a1")
			return nil
		})
		return r, g, a
	}
	r, g, a := read()
	if r.Pending || (*r.Rule.Labels)["env"] != "prod" || !strings.HasPrefix(deref(r.Rule.IPAddress), "34.") || deref(r.Rule.Id) == "" || deref(r.Rule.IPProtocol) != "TCP" {
		t.Errorf("rule: %+v", r)
	}
	_ = db.View(context.Background(), func(tx *store.Tx) error {
		// An IPv6 rule's address is an IPv6 one.
		if r6, _ := s.tables.rules.Get(tx, "projects/my-project-123/global/forwardingRules/fr6"); !strings.HasPrefix(deref(r6.Rule.IPAddress), "2600:1901:0:") {
			t.Errorf("IPv6 rule's address %q", deref(r6.Rule.IPAddress))
		}
		return nil
	})
	if g.Pending || len(g.Group.Attachments) != 2 || deref(g.Group.Attachments["us-east4/a1"].Attachment) != *a.Attachment.SelfLink ||
		deref(a.Attachment.AttachmentGroup) != *g.Group.SelfLink || a.Pending || deref(a.Attachment.VlanTag8021q) != 2 {
		t.Errorf("group %+v, attachment %+v", g, a)
	}
	if ops := s.ops.Count(context.Background()); ops != 0 {
		t.Errorf("seeding left %d operations", ops)
	}
	// A reset seeds the very same resources.
	if err := db.Replace(context.Background(), func(tx *store.Tx) error { return s.Seed(tx, cfg) }); err != nil {
		t.Fatal(err)
	}
	r2, g2, a2 := read()
	if *r2.Rule.Id != *r.Rule.Id || *r2.Rule.IPAddress != *r.Rule.IPAddress || *g2.Group.Id != *g.Group.Id || *a2.Attachment.Id != *a.Attachment.Id {
		t.Errorf("ids changed across reset: %s/%s %s/%s %s/%s", *r.Rule.Id, *r2.Rule.Id, *g.Group.Id, *g2.Group.Id, *a.Attachment.Id, *a2.Attachment.Id)
	}
}

func TestSeedGroupRules(t *testing.T) {
	group := func(attachments ...any) map[string]any {
		return map[string]any{"name": "g2", "intent": map[string]any{"availabilitySla": "NO_SLA"}, "attachments": attachments}
	}
	tests := []struct {
		name       string
		groups     []map[string]any
		perGroup   int
		field, msg string
	}{
		{"missing", []map[string]any{group("a2", "nope")}, 0, "attachments.1", "RESOURCE_NOT_FOUND"},
		{"missing in a region", []map[string]any{group("us-west1/a2")}, 0, "attachments.0", "RESOURCE_NOT_FOUND"},
		{"ambiguous name", []map[string]any{group("a1")}, 0, "attachments.0", "us-east4, us-west1"},
		{"held by another group", []map[string]any{{"name": "g1", "intent": map[string]any{"availabilitySla": "NO_SLA"}, "attachments": []any{"a2"}}, group("us-east4/a1", "a2")}, 0,
			"attachments.1", "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE"},
		{"listed twice", []map[string]any{group("a2", "a2")}, 0, "attachments.1", "listed twice"},
		{"quota", []map[string]any{group("a2", "us-east4/a1")}, 1, "attachments", "QUOTA_EXCEEDED"},
		{"not a list", []map[string]any{{"name": "g2", "intent": map[string]any{"availabilitySla": "NO_SLA"}, "attachments": "a2"}}, 0, "attachments", "list"},
		{"a key to no attachment", []map[string]any{{"name": "g2", "intent": map[string]any{"availabilitySla": "NO_SLA"}, "attachments": map[string]any{"k": "nope"}}}, 0, "attachments.k", "RESOURCE_NOT_FOUND"},
		{"a key to a number", []map[string]any{{"name": "g2", "intent": map[string]any{"availabilitySla": "NO_SLA"}, "attachments": map[string]any{"k": int64(2)}}}, 0, "attachments.k", "name or region/name"},
		{"intent", []map[string]any{{"name": "g2", "intent": map[string]any{"availabilitySla": "BEST"}}}, 0, "intent.availabilitySla", "allowed values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := seedWorld()
			p.Groups = tt.groups
			_, _, err := seeded(t, Config{Projects: []SeedProject{p}, AttachmentsPerGroup: tt.perGroup})
			var se *SeedError
			last := len(tt.groups) - 1
			if !errors.As(err, &se) || se.Collection != SeedGroups || se.Index != last || se.Field != tt.field || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want one at interconnectAttachmentGroups[%d].%s mentioning %q", err, last, tt.field, tt.msg)
			}
		})
	}
}

func TestSeedResourceRules(t *testing.T) {
	tests := []struct {
		name                  string
		change                func(p *SeedProject)
		collection, field, in string
	}{
		{"duplicate interconnect", func(p *SeedProject) {
			p.Interconnects = append(p.Interconnects, seedInterconnectEntry("ic1", "iad-zone1-1"))
		}, SeedInterconnects, "name", "alreadyExists"},
		{"vlan tag taken", func(p *SeedProject) {
			p.Attachments = append(p.Attachments, map[string]any{"name": "a3", "region": "us-east4", "interconnect": "ic2", "vlanTag8021q": int64(7)})
		}, SeedAttachments, "vlanTag8021q", "already used"},
		{"L2 attachment", func(p *SeedProject) {
			p.Attachments = append(p.Attachments, map[string]any{"name": "a3", "region": "us-east4", "interconnect": "ic2", "type": "L2_DEDICATED"})
		}, SeedAttachments, "type", "DEDICATED, PARTNER and PARTNER_PROVIDER"},
		{"partner attachment on an interconnect", func(p *SeedProject) {
			p.Attachments = append(p.Attachments, map[string]any{"name": "a3", "region": "us-east4", "interconnect": "ic2", "type": "PARTNER", "router": "r"})
		}, SeedAttachments, "interconnect", "set by its partner"},
		{"partner attachment in a state of the provider's", func(p *SeedProject) {
			p.Attachments = append(p.Attachments, map[string]any{"name": "a3", "region": "us-east4", "type": "PARTNER_PROVIDER", "interconnect": "ic2", "pairingKey": "k",
				"bandwidth": "BPS_1G", "partnerMetadata": map[string]any{"partnerName": "P", "interconnectName": "I", "portalUrl": "https://p"}, "state": "PENDING_PARTNER"})
		}, SeedAttachments, "state", "PENDING_PARTNER"},
		{"mtu", func(p *SeedProject) {
			p.Attachments = append(p.Attachments, map[string]any{"name": "a3", "region": "us-east4", "interconnect": "ic2", "mtu": int64(1450)})
		}, SeedAttachments, "mtu", "1440"},
		{"bad region", func(p *SeedProject) {
			p.Attachments = append(p.Attachments, map[string]any{"name": "a3", "region": "east", "interconnect": "ic2"})
		}, SeedAttachments, "region", "regular expression"},
		{"interconnect of another project", func(p *SeedProject) {
			p.Attachments = append(p.Attachments, map[string]any{"name": "a3", "region": "us-east4", "interconnect": "projects/other-project/global/interconnects/ic1"})
		}, SeedAttachments, "interconnect", "must name an interconnect of project"},
		{"duplicate rule", func(p *SeedProject) {
			p.ForwardingRules = []map[string]any{{"name": "fr"}, {"name": "fr"}}
		}, SeedForwardingRules, "name", "alreadyExists"},
		{"unknown member", func(p *SeedProject) {
			p.ForwardingRules = []map[string]any{{"name": "fr", "port": "80"}}
		}, SeedForwardingRules, "port", "unknown field"},
		{"missing name", func(p *SeedProject) {
			p.ForwardingRules = []map[string]any{{"portRange": "80-80"}}
		}, SeedForwardingRules, "name", "required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := seedWorld()
			tt.change(&p)
			_, _, err := seeded(t, Config{Projects: []SeedProject{p}})
			var se *SeedError
			if !errors.As(err, &se) || se.Collection != tt.collection || se.Field != tt.field || !strings.Contains(err.Error(), tt.in) {
				t.Fatalf("err = %v, want one at %s[].%s mentioning %q", err, tt.collection, tt.field, tt.in)
			}
		})
	}
}

// TestSeedTakesWhatAReadReturns: an entry may be a resource as a read (or a state export)
// returns it: the members the server derives (selfLink, kind, statuses) are made again,
// whatever the entry says of them; its own recorded ones (id, fingerprints) are kept; and
// references may be paths, a group's attachments its own entries.
func TestSeedTakesWhatAReadReturns(t *testing.T) {
	p := seedWorld()
	p.ForwardingRules = []map[string]any{{"name": "fr", "kind": "compute#somethingElse", "selfLink": "x", "id": "42",
		"labelFingerprint": "AAAAAAAAAAE=", "fingerprint": "AAAAAAAAAAI=", "sequence": int64(7)}}
	p.Groups = []map[string]any{{"name": "g", "intent": map[string]any{"availabilitySla": "NO_SLA"}, "etag": "v1", "configured": map[string]any{},
		"attachments": map[string]any{"k": map[string]any{"attachment": "projects/my-project-123/regions/us-east4/interconnectAttachments/a2"}}}}
	s, db, err := seeded(t, Config{Projects: []SeedProject{p}})
	if err != nil {
		t.Fatal(err)
	}
	var r RuleRecord
	var g GroupRecord
	_ = db.View(context.Background(), func(tx *store.Tx) error {
		r, _ = s.tables.rules.Get(tx, "projects/my-project-123/global/forwardingRules/fr")
		g, _ = s.tables.groups.Get(tx, "projects/my-project-123/global/interconnectAttachmentGroups/g")
		return nil
	})
	if deref(r.Rule.Kind) != "compute#forwardingRule" || deref(r.Rule.SelfLink) != "projects/my-project-123/global/forwardingRules/fr" ||
		deref(r.Rule.SelfLinkWithId) != "projects/my-project-123/global/forwardingRules/42" || r.Seq != 7 ||
		fingerprintString(r.Rule.LabelFingerprint) != "AAAAAAAAAAE=" || fingerprintString(r.Rule.Fingerprint) != "AAAAAAAAAAI=" {
		t.Errorf("rule: %+v", r)
	}
	if deref(g.Group.Etag) != "v1" || g.Group.Configured != nil || deref(g.Group.Attachments["k"].Attachment) != "projects/my-project-123/regions/us-east4/interconnectAttachments/a2" {
		t.Errorf("group: %+v", g)
	}
}

// TestSeedRuleAddressDrawnAgain: a seeded rule without an address whose first address a
// rule before it already uses on every port gets another, the same at every reset.
func TestSeedRuleAddressDrawnAgain(t *testing.T) {
	first := seedIP("my-project-123|a", "IPV4", false)
	p := SeedProject{Project: "my-project-123", ForwardingRules: []map[string]any{
		{"name": "b", "IPAddress": first},
		{"name": "a"},
	}}
	cfg := Config{Projects: []SeedProject{p}}
	s, db, err := seeded(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	addr := func() string {
		var r RuleRecord
		_ = db.View(context.Background(), func(tx *store.Tx) error {
			r, _ = s.tables.rules.Get(tx, "projects/my-project-123/global/forwardingRules/a")
			return nil
		})
		return deref(r.Rule.IPAddress)
	}
	got := addr()
	if got == "" || got == first {
		t.Fatalf("a's address %q, want one other than b's %q", got, first)
	}
	if err := db.Replace(context.Background(), func(tx *store.Tx) error { return s.Seed(tx, cfg) }); err != nil {
		t.Fatal(err)
	}
	if again := addr(); again != got {
		t.Errorf("after a reset %q, want %q", again, got)
	}
}

// TestSeedPartnerAttachments: a seed may hold both sides of a partner pair, in one project
// or two, in either order: the PARTNER attachment waiting for its partner is provisioned as
// the partner's insert would provision it. One without a recorded pairing key gets the same
// key at every start; one recorded provisioned keeps its key and state.
func TestSeedPartnerAttachments(t *testing.T) {
	const key = "0f0e0d0c-0b0a-4908-8706-050403020100/us-east4/1"
	customer := SeedProject{Project: "customer-proj", Attachments: []map[string]any{
		{"name": "pa-1", "region": "us-east4", "type": "PARTNER", "router": "regions/us-east4/routers/r1", "edgeAvailabilityDomain": "AVAILABILITY_DOMAIN_1", "pairingKey": key},
		{"name": "pa-2", "region": "us-east4", "type": "PARTNER", "router": "regions/us-east4/routers/r1"},
		{"name": "pa-3", "region": "us-east4", "type": "PARTNER", "router": "r1", "pairingKey": "k3/us-east4/any", "state": "ACTIVE", "adminEnabled": true,
			"bandwidth": "BPS_2G", "vlanTag8021q": int64(9), "cloudRouterIpAddress": "169.254.3.1/29", "customerRouterIpAddress": "169.254.3.2/29"},
	}}
	provider := SeedProject{Project: "partner-proj",
		Interconnects: []map[string]any{{"name": "ic-p", "location": "iad-zone1-1", "linkType": "LINK_TYPE_ETHERNET_10G_LR", "requestedLinkCount": int64(1), "interconnectType": "PARTNER"}},
		Attachments: []map[string]any{{"name": "pp-1", "region": "us-east4", "type": "PARTNER_PROVIDER", "interconnect": "ic-p", "pairingKey": key, "bandwidth": "BPS_1G",
			"partnerMetadata": map[string]any{"partnerName": "P", "interconnectName": "I", "portalUrl": "https://p.example"}}},
	}
	read := func(s *Server, db *store.DB, path string) gen.InterconnectAttachment {
		var a AttachmentRecord
		_ = db.View(context.Background(), func(tx *store.Tx) error {
			a, _ = s.tables.attachments.Get(tx, path)
			return nil
		})
		return a.Attachment
	}
	for _, order := range [][]SeedProject{{customer, provider}, {provider, customer}} {
		cfg := Config{Projects: order}
		s, db, err := seeded(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		c, p := read(s, db, "projects/customer-proj/regions/us-east4/interconnectAttachments/pa-1"), read(s, db, "projects/partner-proj/regions/us-east4/interconnectAttachments/pp-1")
		if deref(c.State) != "PENDING_CUSTOMER" || deref(p.State) != "PENDING_CUSTOMER" || deref(c.Bandwidth) != "BPS_1G" || c.VlanTag8021q == nil ||
			*c.VlanTag8021q != deref(p.VlanTag8021q) || deref(c.CloudRouterIpAddress) != deref(p.CloudRouterIpAddress) || deref(c.PairingKey) != key {
			t.Errorf("%s first: the customer's %+v\nthe partner's %+v", order[0].Project, c, p)
		}
		waiting := read(s, db, "projects/customer-proj/regions/us-east4/interconnectAttachments/pa-2")
		if deref(waiting.State) != "PENDING_PARTNER" || !strings.HasSuffix(deref(waiting.PairingKey), "/us-east4/any") {
			t.Errorf("a PARTNER attachment without a key: %+v", waiting)
		}
		if err := db.Replace(context.Background(), func(tx *store.Tx) error { return s.Seed(tx, cfg) }); err != nil {
			t.Fatal(err)
		}
		if again := read(s, db, "projects/customer-proj/regions/us-east4/interconnectAttachments/pa-2"); deref(again.PairingKey) != deref(waiting.PairingKey) {
			t.Errorf("its key after a reset %q, want %q", deref(again.PairingKey), deref(waiting.PairingKey))
		}
		recorded := read(s, db, "projects/customer-proj/regions/us-east4/interconnectAttachments/pa-3")
		if deref(recorded.State) != "ACTIVE" || deref(recorded.OperationalStatus) != "OS_ACTIVE" || deref(recorded.PairingKey) != "k3/us-east4/any" ||
			deref(recorded.Bandwidth) != "BPS_2G" || deref(recorded.VlanTag8021q) != 9 || deref(recorded.CloudRouterIpAddress) != "169.254.3.1/29" {
			t.Errorf("a recorded ACTIVE PARTNER attachment: %+v", recorded)
		}
	}

	// Two partners' attachments for one key.
	twice := provider
	twice.Attachments = append(slices.Clone(provider.Attachments), maps.Clone(provider.Attachments[0]))
	twice.Attachments[1]["name"] = "pp-2"
	_, _, err := seeded(t, Config{Projects: []SeedProject{twice}})
	var se *SeedError
	if !errors.As(err, &se) || se.Index != 1 || se.Field != "pairingKey" {
		t.Errorf("err = %v, want one at interconnectAttachments[1].pairingKey", err)
	}
}
