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
	"github.com/understudy-dev/understudy/internal/store"
)

// What an interconnect group reads as: its members as the analysis sees them, its etag,
// its wire form and its operational status.

// member is one interconnect of a group as the analysis and the status report see it.
type member struct {
	sla.Interconnect
	rec    InterconnectRecord
	exists bool
}

// members describes g's interconnects, sorted by URL; one that no longer exists is there
// with exists false.
func (s *Server) members(l links, tx *store.Tx, g gen.InterconnectGroup) []member {
	out := make([]member, 0, len(g.Interconnects))
	seen := map[string]bool{}
	for _, path := range membersOf(g) {
		if seen[path] {
			continue
		}
		seen[path] = true
		m := member{Interconnect: sla.Interconnect{URL: l.url(path)}}
		if rec, ok := s.tables.interconnects.Get(tx, path); ok && !rec.Pending {
			m.rec, m.exists = rec, true
			if loc, ok := s.locations.byName[nameOf(rec.Interconnect.Location)]; ok {
				m.Metro, m.Facility, m.Zone = loc.Metro, zoneFree(loc.Name), loc.Zone
			}
			m.Active = deref(rec.Interconnect.AdminEnabled) && !rec.CircuitDown
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

// icGroupEtag is the etag a group is read with: its own version (the etag it keeps) and
// the state of each of its interconnects. It changes whenever one of them changes.
func (s *Server) icGroupEtag(tx *store.Tx, g gen.InterconnectGroup) string {
	h := sha256.New()
	h.Write([]byte(deref(g.Etag)))
	members := membersOf(g)
	for _, k := range slices.Sorted(maps.Keys(members)) {
		rec, ok := s.tables.interconnects.Get(tx, members[k])
		fmt.Fprintf(h, "|%s=%s:%t|", k, members[k], ok)
		if ok {
			writeState(h, rec.Interconnect, rec.CircuitDown)
		}
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)[:12])
}

// renderInterconnectGroup is a group as a read returns it: its links URLs, with its
// analysis as of now and its etag.
func (s *Server) renderInterconnectGroup(l links, tx *store.Tx, g gen.InterconnectGroup) gen.InterconnectGroup {
	ms := s.members(l, tx, g)
	configured := renderCapability(sla.AnalyzeInterconnects(sla.Level(deref(g.Intent.TopologyCapability)), existing(ms)))
	g.Configured, g.PhysicalStructure, g.Etag = &configured, renderPhysical(sla.PhysicalStructure(existing(ms))), ptr(s.icGroupEtag(tx, g))
	l.set(&g.SelfLink)
	entries := make(map[string]gen.InterconnectGroupInterconnect, len(g.Interconnects))
	for k, m := range g.Interconnects {
		l.set(&m.Interconnect)
		entries[k] = m
	}
	g.Interconnects = entries
	return g
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
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rec, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return err
		}
		g := rec.Group
		ms := s.members(s.links(ctx), tx, g)
		intent, live := sla.Level(deref(g.Intent.TopologyCapability)), existing(ms)
		configured, operational := renderCapability(sla.AnalyzeInterconnects(intent, live)), renderCapability(sla.OperationalInterconnects(intent, live))
		result := gen.InterconnectGroupsOperationalStatus{
			Intent: g.Intent, Configured: &configured, Operational: &operational,
			InterconnectStatuses: []gen.InterconnectGroupsOperationalStatusInterconnectStatus{},
		}
		active := 0
		for _, m := range ms {
			st := gen.InterconnectGroupsOperationalStatusInterconnectStatus{Interconnect: ptr(m.URL), AdminEnabled: ptr(m.exists && deref(m.rec.Interconnect.AdminEnabled)),
				IsActive: ptr(gen.InterconnectGroupsOperationalStatusInterconnectStatusIsActive("INACTIVE"))}
			if m.Active {
				active++
				st.IsActive = ptr(gen.InterconnectGroupsOperationalStatusInterconnectStatusIsActive("ACTIVE"))
			}
			if m.exists {
				d := s.diagnostics(tx, m.rec)
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
