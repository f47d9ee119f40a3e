package sla

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Interconnect is what the topology analysis of an interconnect group needs to know of one
// of its interconnects.
type Interconnect struct {
	URL      string // the interconnect's selfLink; identifies it
	Metro    string // three-letter lowercase metro
	Facility string // e.g. "iad-1"
	Zone     string // "zone1" or "zone2"
	Active   bool   // for the operational analysis only
}

// The blocker types of an interconnect group's topologyCapability.
const (
	NoInterconnects               BlockerType = "NO_INTERCONNECTS"
	NoInterconnectsInMetroAndZone BlockerType = "NO_INTERCONNECTS_IN_METRO_AND_ZONE"
)

// TopologyDocumentationLink is the documentationLink of every interconnect group blocker.
const TopologyDocumentationLink = "https://cloud.google.com/network-connectivity/docs/interconnect/concepts/best-practices"

// Capability is the analysis of an interconnect group: the supported level (capped at the
// intent) and the blockers that keep it from the intent. Blocker.Attachments holds the URLs
// of interconnects and Blocker.Facilities their facilities.
type Capability struct {
	Supported Level
	Blockers  []Blocker
}

// AnalyzeInterconnects is the topology capability of interconnects for the intended level,
// by the rules of Analyze with interconnects in place of attachments and without regions
// (interconnects are global): PRODUCTION_NON_CRITICAL needs one metro with interconnects in
// both zones, PRODUCTION_CRITICAL two such metros. Blockers: NO_INTERCONNECTS when there are
// none; for PRODUCTION_NON_CRITICAL one NO_INTERCONNECTS_IN_METRO_AND_ZONE over all metros;
// for PRODUCTION_CRITICAL INCOMPATIBLE_METROS when fewer than two metros are used, then one
// NO_INTERCONNECTS_IN_METRO_AND_ZONE per incomplete metro.
func AnalyzeInterconnects(intent Level, interconnects []Interconnect) Capability {
	res := Capability{Supported: NoSLA, Blockers: []Blocker{}}
	if rank(intent) <= 0 {
		return res
	}
	if len(interconnects) == 0 {
		res.Blockers = append(res.Blockers, Blocker{Type: NoInterconnects, DocumentationLink: TopologyDocumentationLink,
			Explanation: fmt.Sprintf("The group has no interconnects; %s requires %s.", intent, icRequirement(intent))})
		return res
	}
	type metro struct {
		zone1, zone2 bool
		facilities   map[string]bool
		urls         []string
	}
	metros := map[string]*metro{}
	for _, ic := range interconnects {
		m := metros[ic.Metro]
		if m == nil {
			m = &metro{facilities: map[string]bool{}}
			metros[ic.Metro] = m
		}
		m.zone1 = m.zone1 || ic.Zone == Zone1
		m.zone2 = m.zone2 || ic.Zone == Zone2
		m.facilities[ic.Facility] = true
		m.urls = append(m.urls, ic.URL)
	}
	names := slices.Sorted(maps.Keys(metros))
	complete := 0
	for _, m := range metros {
		if m.zone1 && m.zone2 {
			complete++
		}
	}
	switch {
	case intent == ProductionCritical && complete >= 2:
		res.Supported = ProductionCritical
	case complete >= 1:
		res.Supported = ProductionNonCritical
	}
	if res.Supported == intent {
		return res
	}
	missing := func(m *metro) []string {
		var z []string
		if !m.zone1 {
			z = append(z, Zone1)
		}
		if !m.zone2 {
			z = append(z, Zone2)
		}
		return z
	}
	if intent == ProductionNonCritical {
		var zones, facilities, urls, details []string
		for _, n := range names {
			m := metros[n]
			zones = append(zones, missing(m)...)
			facilities = append(facilities, slices.Collect(maps.Keys(m.facilities))...)
			urls = append(urls, m.urls...)
			details = append(details, fmt.Sprintf("metro %s has none in %s", show(n), list(missing(m))))
		}
		slices.Sort(zones)
		slices.Sort(facilities)
		slices.Sort(urls)
		res.Blockers = append(res.Blockers, Blocker{Type: NoInterconnectsInMetroAndZone, DocumentationLink: TopologyDocumentationLink,
			Explanation: fmt.Sprintf("No metro has interconnects in both %s and %s (%s); %s requires %s.", Zone1, Zone2, strings.Join(details, "; "), intent, icRequirement(intent)),
			Metros:      names, Zones: slices.Compact(zones), Facilities: slices.Compact(facilities), Attachments: slices.Compact(urls)})
		return res
	}
	if len(names) < 2 {
		res.Blockers = append(res.Blockers, Blocker{Type: IncompatibleMetros, DocumentationLink: TopologyDocumentationLink,
			Explanation: fmt.Sprintf("All interconnects are in metro %s; %s requires interconnects in at least two metros.", list(names), intent),
			Metros:      names})
	}
	for _, n := range names {
		m := metros[n]
		if m.zone1 && m.zone2 {
			continue
		}
		urls := slices.Clone(m.urls)
		slices.Sort(urls)
		res.Blockers = append(res.Blockers, Blocker{Type: NoInterconnectsInMetroAndZone, DocumentationLink: TopologyDocumentationLink,
			Explanation: fmt.Sprintf("Metro %s has no interconnects in %s; %s requires interconnects in both %s and %s of every metro used.", show(n), list(missing(m)), intent, Zone1, Zone2),
			Metros:      []string{n}, Zones: missing(m), Facilities: slices.Sorted(maps.Keys(m.facilities)), Attachments: slices.Compact(urls)})
	}
	return res
}

// OperationalInterconnects analyses the active interconnects only.
func OperationalInterconnects(intent Level, interconnects []Interconnect) Capability {
	var active []Interconnect
	for _, ic := range interconnects {
		if ic.Active {
			active = append(active, ic)
		}
	}
	return AnalyzeInterconnects(intent, active)
}

// InterconnectsStatus is GroupStatus for interconnects: FULLY_UP when all of them are
// active, FULLY_DOWN when none is (or there are none), DEGRADED otherwise.
func InterconnectsStatus(active, total int) string {
	switch {
	case active == 0:
		return FullyDown
	case active == total:
		return FullyUp
	}
	return Degraded
}

// PhysicalMetro is one metro of an interconnect group's physicalStructure.
type PhysicalMetro struct {
	Metro      string
	Facilities []PhysicalFacility
}

// PhysicalFacility is one facility of a metro.
type PhysicalFacility struct {
	Facility string
	Zones    []Zone // Zone.Attachments holds interconnect URLs
}

// PhysicalStructure places interconnects by metro, facility and zone, every list sorted.
func PhysicalStructure(interconnects []Interconnect) []PhysicalMetro {
	tree := map[string]map[string]map[string][]string{}
	for _, ic := range interconnects {
		if tree[ic.Metro] == nil {
			tree[ic.Metro] = map[string]map[string][]string{}
		}
		if tree[ic.Metro][ic.Facility] == nil {
			tree[ic.Metro][ic.Facility] = map[string][]string{}
		}
		tree[ic.Metro][ic.Facility][ic.Zone] = append(tree[ic.Metro][ic.Facility][ic.Zone], ic.URL)
	}
	out := []PhysicalMetro{}
	for _, m := range slices.Sorted(maps.Keys(tree)) {
		pm := PhysicalMetro{Metro: m}
		for _, f := range slices.Sorted(maps.Keys(tree[m])) {
			pf := PhysicalFacility{Facility: f}
			for _, z := range slices.Sorted(maps.Keys(tree[m][f])) {
				urls := tree[m][f][z]
				slices.Sort(urls)
				pf.Zones = append(pf.Zones, Zone{Zone: z, Attachments: urls})
			}
			pm.Facilities = append(pm.Facilities, pf)
		}
		out = append(out, pm)
	}
	return out
}

func icRequirement(intent Level) string {
	if intent == ProductionCritical {
		return "interconnects in both " + Zone1 + " and " + Zone2 + " of at least two metros"
	}
	return "interconnects in both " + Zone1 + " and " + Zone2 + " of one metro"
}
