package console

import (
	"maps"
	"path"
	"slices"
	"strings"

	computegen "github.com/understudy-dev/understudy/gen/compute"
)

// picture is an SLA analysis drawn: the metros side by side, in each its zones (a
// facility's edge availability domains) with the members placed in them, the zones the
// blockers say are missing drawn empty and red, every metro a blocker names (one without
// members drawn as missing), what the intent needs and the blockers.
type picture struct {
	Kind                string // "attachment group" or "interconnect group"
	Name                string
	Intended, Effective string
	Met                 bool
	Needs               string
	Metros              []picMetro
	Blockers            []picBlocker
	Width, Height       int
}

type picMetro struct {
	Name, Region string
	Blocked      bool
	Missing      bool // no member is in it: only a blocker names it
	X, Width     int
	Zones        []picZone
}

type picZone struct {
	Label   string
	Missing bool
	Members []string
	Y, H    int
}

type picBlocker struct {
	Type, Explanation, Link string
}

// What each level needs, as internal/sla decides it.
var slaNeeds = map[string]string{
	"NO_SLA":                  "No SLA: nothing is needed.",
	"PRODUCTION_NON_CRITICAL": "99.9%: one metro with members in both of its zones (zone1 and zone2).",
	"PRODUCTION_CRITICAL":     "99.99%: two metros, each with members in both zones, spanning two regions.",
}

const (
	metroWidth = 250
	metroGap   = 24
	zoneHead   = 22
	memberH    = 22
	picTop     = 16
)

// attachmentGroupPicture draws an attachment group from what its GET returns: the intent,
// configured.availabilitySla (effective level and blockers) and logicalStructure.
func attachmentGroupPicture(g computegen.InterconnectAttachmentGroup) picture {
	p := picture{Kind: "attachment group", Name: g.Name, Intended: string(g.Intent.AvailabilitySla)}
	blockedMetros := map[string]bool{}
	missing := map[string][]string{} // metro -> zones the blockers say it lacks
	if c := g.Configured; c != nil && c.AvailabilitySla != nil {
		if e := c.AvailabilitySla.EffectiveSla; e != nil {
			p.Effective = string(*e)
		}
		for _, b := range c.AvailabilitySla.IntendedSlaBlockers {
			pb := picBlocker{Explanation: deref(b.Explanation), Link: deref(b.DocumentationLink)}
			if b.BlockerType != nil {
				pb.Type = string(*b.BlockerType)
			}
			p.Blockers = append(p.Blockers, pb)
			for _, m := range b.Metros {
				blockedMetros[m] = true
				if pb.Type == "NO_ATTACHMENTS_IN_METRO_AND_ZONE" {
					missing[m] = append(missing[m], b.Zones...)
				}
			}
		}
	}
	if s := g.LogicalStructure; s != nil {
		for _, r := range s.Regions {
			for _, m := range r.Metros {
				pm := picMetro{Name: deref(m.Metro), Region: deref(r.Region), Blocked: blockedMetros[deref(m.Metro)]}
				for _, f := range m.Facilities {
					for _, z := range f.Zones {
						var names []string
						for _, a := range z.Attachments {
							names = append(names, path.Base(a))
						}
						pm.Zones = append(pm.Zones, picZone{Label: deref(f.Facility) + " · " + deref(z.Zone), Members: names})
					}
				}
				p.Metros = append(p.Metros, pm)
			}
		}
	}
	addMissing(&p, blockedMetros, missing)
	return p.finish()
}

// interconnectGroupPicture draws an interconnect group from what its GET returns: the
// intent, configured.topologyCapability and physicalStructure.
func interconnectGroupPicture(g computegen.InterconnectGroup) picture {
	p := picture{Kind: "interconnect group", Name: g.Name}
	if g.Intent != nil && g.Intent.TopologyCapability != nil {
		p.Intended = string(*g.Intent.TopologyCapability)
	}
	blockedMetros := map[string]bool{}
	missing := map[string][]string{}
	if c := g.Configured; c != nil && c.TopologyCapability != nil {
		if s := c.TopologyCapability.SupportedSla; s != nil {
			p.Effective = string(*s)
		}
		for _, b := range c.TopologyCapability.IntendedCapabilityBlockers {
			pb := picBlocker{Explanation: deref(b.Explanation), Link: deref(b.DocumentationLink)}
			if b.BlockerType != nil {
				pb.Type = string(*b.BlockerType)
			}
			p.Blockers = append(p.Blockers, pb)
			for _, m := range b.Metros {
				blockedMetros[m] = true
				if len(b.Zones) > 0 {
					missing[m] = append(missing[m], b.Zones...)
				}
			}
		}
	}
	if s := g.PhysicalStructure; s != nil {
		for _, m := range s.Metros {
			pm := picMetro{Name: deref(m.Metro), Blocked: blockedMetros[deref(m.Metro)]}
			for _, f := range m.Facilities {
				for _, z := range f.Zones {
					var names []string
					for _, ic := range z.Interconnects {
						names = append(names, path.Base(ic))
					}
					pm.Zones = append(pm.Zones, picZone{Label: deref(f.Facility) + " · " + deref(z.Zone), Members: names})
				}
			}
			p.Metros = append(p.Metros, pm)
		}
	}
	addMissing(&p, blockedMetros, missing)
	return p.finish()
}

// addMissing adds a column for each metro a blocker names that no member is in (an
// INCOMPATIBLE_METROS blocker's metros, say), and to each metro the zones the blockers say
// it lacks.
func addMissing(p *picture, named map[string]bool, missing map[string][]string) {
	for _, m := range slices.Sorted(maps.Keys(named)) {
		i := slices.IndexFunc(p.Metros, func(pm picMetro) bool { return pm.Name == m })
		if i < 0 {
			p.Metros = append(p.Metros, picMetro{Name: m, Blocked: true, Missing: true})
			i = len(p.Metros) - 1
		}
		zones := slices.Clone(missing[m])
		slices.Sort(zones)
		for _, z := range slices.Compact(zones) {
			has := slices.ContainsFunc(p.Metros[i].Zones, func(pz picZone) bool { return strings.HasSuffix(pz.Label, " "+z) })
			if !has {
				p.Metros[i].Zones = append(p.Metros[i].Zones, picZone{Label: z + " (no member)", Missing: true})
			}
		}
	}
}

// finish lays the picture out.
func (p picture) finish() picture {
	p.Met = p.Effective == p.Intended || len(p.Blockers) == 0
	p.Needs = slaNeeds[p.Intended]
	if p.Needs == "" {
		p.Needs = p.Intended
	}
	tallest := 0
	for i := range p.Metros {
		m := &p.Metros[i]
		// zone1 above zone2, whatever the facilities' order
		slices.SortStableFunc(m.Zones, func(a, b picZone) int { return strings.Compare(zoneOf(a.Label), zoneOf(b.Label)) })
		m.X, m.Width = metroGap/2+i*(metroWidth+metroGap), metroWidth
		y := picTop + 40
		for j := range m.Zones {
			z := &m.Zones[j]
			z.Y, z.H = y, zoneHead+max(1, len(z.Members))*memberH+6
			y += z.H + 8
		}
		tallest = max(tallest, y)
	}
	p.Width = max(metroWidth+metroGap, len(p.Metros)*(metroWidth+metroGap))
	p.Height = max(tallest+24, picTop+80)
	return p
}

// zoneOf is the zone a zone's label names ("iad-1 · zone1", "zone2 (no member)").
func zoneOf(label string) string {
	if _, z, ok := strings.Cut(label, " · "); ok {
		return z
	}
	z, _, _ := strings.Cut(label, " ")
	return z
}
