package sla

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Attachment is what the analysis needs to know of one attachment.
type Attachment struct {
	URL      string // the attachment's selfLink; identifies it
	Region   string // e.g. "us-central1"
	Metro    string // three-letter lowercase metro, e.g. "iad"
	Facility string // e.g. "iad-1234" (the interconnect location's facility)
	Zone     string // "zone1" or "zone2" (the edge availability domain)
	Active   bool   // for the operational analysis only
}

// Level is an availability SLA level, as in intent.availabilitySla and
// configured.availabilitySla.effectiveSla.
type Level string

// The SLA levels, lowest first.
const (
	NoSLA                 Level = "NO_SLA"
	ProductionNonCritical Level = "PRODUCTION_NON_CRITICAL"
	ProductionCritical    Level = "PRODUCTION_CRITICAL"
)

// Valid reports whether l is one of NoSLA, ProductionNonCritical and
// ProductionCritical.
func (l Level) Valid() bool { return rank(l) >= 0 }

// rank orders the levels: NO_SLA < PRODUCTION_NON_CRITICAL <
// PRODUCTION_CRITICAL; -1 for anything else.
func rank(l Level) int {
	switch l {
	case NoSLA:
		return 0
	case ProductionNonCritical:
		return 1
	case ProductionCritical:
		return 2
	}
	return -1
}

// BlockerType is the blockerType of an intendedSlaBlockers entry.
type BlockerType string

// The blocker types the emulator reports.
const (
	NoAttachments               BlockerType = "NO_ATTACHMENTS"
	NoAttachmentsInMetroAndZone BlockerType = "NO_ATTACHMENTS_IN_METRO_AND_ZONE"
	IncompatibleMetros          BlockerType = "INCOMPATIBLE_METROS"
	IncompatibleRegions         BlockerType = "INCOMPATIBLE_REGIONS"
)

// DocumentationLink is the documentationLink of every blocker.
const DocumentationLink = "https://cloud.google.com/network-connectivity/docs/interconnect/support/fix-sla"

// The edge availability domains.
const (
	Zone1 = "zone1"
	Zone2 = "zone2"
)

// Blocker is one reason the intended SLA is not met.
type Blocker struct {
	Type              BlockerType
	Explanation       string // always set, human-readable
	DocumentationLink string // always set
	// Set only where the type uses them; sorted; nil otherwise.
	Regions, Metros, Zones, Attachments []string
	// Facilities is set by the interconnect group analysis only.
	Facilities []string
}

// Analysis is the result of an SLA analysis.
type Analysis struct {
	Effective Level
	// Blockers is non-nil; it is empty exactly when Effective equals the
	// intent.
	Blockers []Blocker
}

// metroInfo is what the analysis gathers about one metro.
type metroInfo struct {
	zone1, zone2 bool
	regions      map[string]bool
	urls         []string
}

func (m *metroInfo) complete() bool { return m.zone1 && m.zone2 }

// missing returns the zones m lacks, sorted.
func (m *metroInfo) missing() []string {
	var z []string
	if !m.zone1 {
		z = append(z, Zone1)
	}
	if !m.zone2 {
		z = append(z, Zone2)
	}
	return z
}

// Analyze computes the effective SLA of attachments for the intended level
// and the blockers that keep it from intent. See the package documentation
// for the rules.
func Analyze(intent Level, attachments []Attachment) Analysis {
	res := Analysis{Effective: NoSLA, Blockers: []Blocker{}}
	if rank(intent) <= 0 {
		return res // NO_SLA, or an unrecognised intent treated as NO_SLA
	}
	if len(attachments) == 0 {
		res.Blockers = append(res.Blockers, Blocker{
			Type:              NoAttachments,
			Explanation:       fmt.Sprintf("There are no attachments to analyse; %s requires %s.", intent, requirement(intent)),
			DocumentationLink: DocumentationLink,
		})
		return res
	}

	metros := map[string]*metroInfo{}
	regions := map[string]bool{}
	for _, a := range attachments {
		m := metros[a.Metro]
		if m == nil {
			m = &metroInfo{regions: map[string]bool{}}
			metros[a.Metro] = m
		}
		switch a.Zone {
		case Zone1:
			m.zone1 = true
		case Zone2:
			m.zone2 = true
		}
		m.regions[a.Region] = true
		m.urls = append(m.urls, a.URL)
		regions[a.Region] = true
	}
	metroNames := slices.Sorted(maps.Keys(metros))
	regionNames := slices.Sorted(maps.Keys(regions))

	complete := 0
	completeRegions := map[string]bool{}
	for _, m := range metros {
		if m.complete() {
			complete++
			maps.Copy(completeRegions, m.regions)
		}
	}
	switch {
	case intent == ProductionCritical && complete >= 2 && len(completeRegions) >= 2:
		res.Effective = ProductionCritical
	case complete >= 1:
		res.Effective = ProductionNonCritical
	}
	if res.Effective == intent {
		return res
	}

	if intent == ProductionNonCritical {
		// No metro is complete, so every metro lacks at least one zone.
		var zones, details []string
		for _, name := range metroNames {
			miss := metros[name].missing()
			zones = append(zones, miss...)
			details = append(details, fmt.Sprintf("metro %s has none in %s", show(name), list(miss)))
		}
		slices.Sort(zones)
		res.Blockers = append(res.Blockers, Blocker{
			Type: NoAttachmentsInMetroAndZone,
			Explanation: fmt.Sprintf("No metro has attachments in both %s and %s (%s); %s requires %s.",
				Zone1, Zone2, strings.Join(details, "; "), intent, requirement(intent)),
			DocumentationLink: DocumentationLink,
			Metros:            metroNames,
			Zones:             slices.Compact(zones),
		})
		return res
	}

	// intent == ProductionCritical, not satisfied.
	if len(metroNames) < 2 {
		res.Blockers = append(res.Blockers, Blocker{
			Type: IncompatibleMetros,
			Explanation: fmt.Sprintf("All attachments are in metro %s; %s requires attachments in at least two metros.",
				list(metroNames), intent),
			DocumentationLink: DocumentationLink,
			Metros:            metroNames,
		})
	}
	if len(regionNames) < 2 {
		res.Blockers = append(res.Blockers, Blocker{
			Type: IncompatibleRegions,
			Explanation: fmt.Sprintf("All attachments are in region %s; %s requires attachments in at least two regions.",
				list(regionNames), intent),
			DocumentationLink: DocumentationLink,
			Regions:           regionNames,
		})
	}
	for _, name := range metroNames {
		m := metros[name]
		if m.complete() {
			continue
		}
		miss := m.missing()
		urls := slices.Clone(m.urls)
		slices.Sort(urls)
		res.Blockers = append(res.Blockers, Blocker{
			Type: NoAttachmentsInMetroAndZone,
			Explanation: fmt.Sprintf("Metro %s has no attachments in %s; %s requires attachments in both %s and %s of every metro used.",
				show(name), list(miss), intent, Zone1, Zone2),
			DocumentationLink: DocumentationLink,
			Metros:            []string{name},
			Zones:             miss,
			Attachments:       slices.Compact(urls),
		})
	}
	return res
}

// Operational analyses only the active attachments, as getOperationalStatus
// does for its operational field.
func Operational(intent Level, attachments []Attachment) Analysis {
	active := make([]Attachment, 0, len(attachments))
	for _, a := range attachments {
		if a.Active {
			active = append(active, a)
		}
	}
	return Analyze(intent, active)
}

// The values of GroupStatus.
const (
	FullyUp   = "FULLY_UP"
	Degraded  = "DEGRADED"
	FullyDown = "FULLY_DOWN"
)

// GroupStatus is FULLY_UP when every attachment is active, FULLY_DOWN when
// none is (or there are none), DEGRADED otherwise.
func GroupStatus(attachments []Attachment) string {
	active := 0
	for _, a := range attachments {
		if a.Active {
			active++
		}
	}
	switch {
	case active == 0:
		return FullyDown
	case active == len(attachments):
		return FullyUp
	}
	return Degraded
}

// requirement describes what intent needs, for explanations.
func requirement(intent Level) string {
	if intent == ProductionCritical {
		return "attachments in both " + Zone1 + " and " + Zone2 + " of at least two metros, in at least two regions"
	}
	return "attachments in both " + Zone1 + " and " + Zone2 + " of one metro"
}

// show renders a name for an explanation; an empty name is shown as "".
func show(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// list renders names for an explanation: "a", "a and b", "a, b and c".
func list(names []string) string {
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = show(n)
	}
	if len(shown) <= 1 {
		return strings.Join(shown, "")
	}
	return strings.Join(shown[:len(shown)-1], ", ") + " and " + shown[len(shown)-1]
}
