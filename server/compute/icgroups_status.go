package compute

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/sla"
	"github.com/understudy-dev/understudy/internal/store/compat"
)

// What an interconnect group reads as: its members as the analysis sees them, its etag,
// its wire form and its operational status.

// member is one interconnect of a group as the analysis and the status report see it.
type member struct {
	sla.Interconnect
	ic     Interconnect
	exists bool
}

// members describes g's interconnects, sorted by URL; one that no longer exists is there
// with exists false.
func (s *Server) members(ctx context.Context, tx *store.Tx, g InterconnectGroup) []member {
	out := make([]member, 0, len(g.Interconnects))
	seen := map[string]bool{}
	for _, name := range g.Interconnects {
		if seen[name] {
			continue
		}
		seen[name] = true
		m := member{Interconnect: sla.Interconnect{URL: s.link(ctx, interconnectPath(g.Project, name))}}
		if ic, ok := s.tables.Interconnects.Get(tx, g.Project+"|"+name); ok && !ic.Pending {
			m.ic, m.exists = ic, true
			if l, ok := s.locations.byName[ic.Location]; ok {
				m.Metro, m.Facility, m.Zone = l.Metro, zoneFree(l.Name), l.Zone
			}
			m.Active = ic.AdminEnabled && !ic.CircuitDown
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// zoneFree is a location's zone-free name, the facility an interconnect group shows and
// createMembers takes: iad-zone1-1 -> iad-1. A name without a zone part is its own.
func zoneFree(location string) string {
	metro, rest, ok := strings.Cut(location, "-zone")
	if !ok {
		return location
	}
	if _, suffix, ok := strings.Cut(rest, "-"); ok {
		return metro + "-" + suffix
	}
	return location
}

func existing(ms []member) []sla.Interconnect {
	var out []sla.Interconnect
	for _, m := range ms {
		if m.exists {
			out = append(out, m.Interconnect)
		}
	}
	return out
}

// icGroupEtag changes whenever the group or one of its interconnects changes.
func (s *Server) icGroupEtag(tx *store.Tx, g InterconnectGroup) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%d", g.Key(), g.ID, g.Generation)
	for _, k := range slices.Sorted(maps.Keys(g.Interconnects)) {
		ic, ok := s.tables.Interconnects.Get(tx, g.Project+"|"+g.Interconnects[k])
		fmt.Fprintf(h, "|%s=%s:%t:%s:%d:%t", k, g.Interconnects[k], ok, ic.ID, ic.Generation, ic.CircuitDown)
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)[:12])
}

func (s *Server) renderInterconnectGroup(ctx context.Context, tx *store.Tx, g InterconnectGroup) gen.InterconnectGroup {
	ms := s.members(ctx, tx, g)
	configured := renderCapability(sla.AnalyzeInterconnects(sla.Level(g.Intent), existing(ms)))
	intent := gen.InterconnectGroupIntentTopologyCapability(g.Intent)
	out := gen.InterconnectGroup{
		Kind: ptr("compute#InterconnectGroup"), Id: ptr(g.ID), Name: g.Name, Description: optional(g.Description),
		SelfLink: ptr(s.link(ctx, icGroupPath(g.Project, g.Name))), CreationTimestamp: ptr(timestamp(g.Created)),
		Etag: ptr(s.icGroupEtag(tx, g)), Intent: &gen.InterconnectGroupIntent{TopologyCapability: &intent},
		Configured: &configured, PhysicalStructure: renderPhysical(sla.PhysicalStructure(existing(ms))),
		Interconnects: map[string]gen.InterconnectGroupInterconnect{},
	}
	for k, name := range g.Interconnects {
		out.Interconnects[k] = gen.InterconnectGroupInterconnect{Interconnect: ptr(s.link(ctx, interconnectPath(g.Project, name)))}
	}
	return out
}

func renderCapability(c sla.Capability) gen.InterconnectGroupConfigured {
	supported := gen.InterconnectGroupConfiguredTopologyCapabilitySupportedSla(c.Supported)
	tc := gen.InterconnectGroupConfiguredTopologyCapability{SupportedSla: &supported,
		IntendedCapabilityBlockers: []gen.InterconnectGroupConfiguredTopologyCapabilityIntendedCapabilityBlockers{}}
	for _, b := range c.Blockers {
		typ := gen.InterconnectGroupConfiguredTopologyCapabilityIntendedCapabilityBlockersBlockerType(b.Type)
		tc.IntendedCapabilityBlockers = append(tc.IntendedCapabilityBlockers, gen.InterconnectGroupConfiguredTopologyCapabilityIntendedCapabilityBlockers{
			BlockerType: &typ, Explanation: ptr(b.Explanation), DocumentationLink: ptr(b.DocumentationLink),
			Metros: b.Metros, Zones: b.Zones, Facilities: b.Facilities, Interconnects: b.Attachments,
		})
	}
	return gen.InterconnectGroupConfigured{TopologyCapability: &tc}
}

func renderPhysical(metros []sla.PhysicalMetro) *gen.InterconnectGroupPhysicalStructure {
	out := &gen.InterconnectGroupPhysicalStructure{Metros: []gen.InterconnectGroupPhysicalStructureMetros{}}
	for _, m := range metros {
		gm := gen.InterconnectGroupPhysicalStructureMetros{Metro: ptr(m.Metro)}
		for _, f := range m.Facilities {
			gf := gen.InterconnectGroupPhysicalStructureMetrosFacilities{Facility: ptr(f.Facility)}
			for _, z := range f.Zones {
				gf.Zones = append(gf.Zones, gen.InterconnectGroupPhysicalStructureMetrosFacilitiesZones{Zone: ptr(z.Zone), Interconnects: z.Attachments})
			}
			gm.Facilities = append(gm.Facilities, gf)
		}
		out.Metros = append(out.Metros, gm)
	}
	return out
}

// InterconnectGroupsGetOperationalStatus reports each interconnect's status, the configured
// capability over the existing interconnects and the operational one over the active ones.
func (s *Server) InterconnectGroupsGetOperationalStatus(ctx context.Context, req gen.InterconnectGroupsGetOperationalStatusRequestObject) (gen.InterconnectGroupsGetOperationalStatusResponseObject, error) {
	var out gen.InterconnectGroupsGetOperationalStatusResponseBody
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return err
		}
		ms := s.members(ctx, tx, g)
		intent, live := sla.Level(g.Intent), existing(ms)
		configured, operational := renderCapability(sla.AnalyzeInterconnects(intent, live)), renderCapability(sla.OperationalInterconnects(intent, live))
		topology := gen.InterconnectGroupIntentTopologyCapability(g.Intent)
		result := gen.InterconnectGroupsOperationalStatus{
			Intent: &gen.InterconnectGroupIntent{TopologyCapability: &topology}, Configured: &configured, Operational: &operational,
			InterconnectStatuses: []gen.InterconnectGroupsOperationalStatusInterconnectStatus{},
		}
		active := 0
		for _, m := range ms {
			st := gen.InterconnectGroupsOperationalStatusInterconnectStatus{Interconnect: ptr(m.URL), AdminEnabled: ptr(m.exists && m.ic.AdminEnabled),
				IsActive: ptr(gen.InterconnectGroupsOperationalStatusInterconnectStatusIsActive("INACTIVE"))}
			if m.Active {
				active++
				st.IsActive = ptr(gen.InterconnectGroupsOperationalStatusInterconnectStatusIsActive("ACTIVE"))
			}
			if m.exists {
				d := s.diagnostics(tx, m.ic)
				st.Diagnostics = &d
			}
			result.InterconnectStatuses = append(result.InterconnectStatuses, st)
		}
		result.GroupStatus = ptr(gen.InterconnectGroupsOperationalStatusGroupStatus(sla.InterconnectsStatus(active, len(ms))))
		out = gen.InterconnectGroupsGetOperationalStatusResponseBody{Etag: ptr(s.icGroupEtag(tx, g)), Result: &result}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsGetOperationalStatus200JSONResponse(out), nil
}
