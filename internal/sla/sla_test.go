package sla

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const base = "https://www.googleapis.com/compute/v1/projects/p/regions/"

// at builds an active attachment named name in region/metro/zone; its
// facility is "<metro>-1".
func at(name, region, metro, zone string) Attachment {
	return Attachment{
		URL:      base + region + "/interconnectAttachments/" + name,
		Region:   region,
		Metro:    metro,
		Facility: metro + "-1",
		Zone:     zone,
		Active:   true,
	}
}

func url(name, region string) string { return base + region + "/interconnectAttachments/" + name }

func inactive(a Attachment) Attachment { a.Active = false; return a }

// pc is a PRODUCTION_CRITICAL topology: two complete metros in two regions.
func pc() []Attachment {
	return []Attachment{
		at("a1", "us-east4", "iad", "zone1"),
		at("a2", "us-east4", "iad", "zone2"),
		at("b1", "us-west2", "lax", "zone1"),
		at("b2", "us-west2", "lax", "zone2"),
	}
}

func blocker(t BlockerType) Blocker { return Blocker{Type: t, DocumentationLink: DocumentationLink} }

func naimz(metros, zones []string, atts ...string) Blocker {
	b := blocker(NoAttachmentsInMetroAndZone)
	b.Metros, b.Zones = metros, zones
	if len(atts) > 0 {
		b.Attachments = atts
	}
	return b
}

func incMetros(m ...string) Blocker  { b := blocker(IncompatibleMetros); b.Metros = m; return b }
func incRegions(r ...string) Blocker { b := blocker(IncompatibleRegions); b.Regions = r; return b }

func s(v ...string) []string { return v }

// withoutExplanations checks that every blocker has an explanation naming
// its metros, regions and zones, then returns a copy with explanations
// cleared so that tables need not spell them out.
func withoutExplanations(t *testing.T, a Analysis) Analysis {
	t.Helper()
	out := Analysis{Effective: a.Effective, Blockers: slices.Clone(a.Blockers)}
	for i, b := range out.Blockers {
		if b.Explanation == "" {
			t.Errorf("blocker %d (%s): empty explanation", i, b.Type)
		}
		for _, name := range slices.Concat(b.Metros, b.Regions, b.Zones) {
			if !strings.Contains(b.Explanation, name) {
				t.Errorf("blocker %d (%s): explanation %q does not name %q", i, b.Type, b.Explanation, name)
			}
		}
		out.Blockers[i].Explanation = ""
	}
	return out
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name   string
		intent Level
		atts   []Attachment
		want   Analysis
	}{
		{"no SLA, no attachments", NoSLA, nil, Analysis{NoSLA, []Blocker{}}},
		{"no SLA caps a critical topology", NoSLA, pc(), Analysis{NoSLA, []Blocker{}}},
		{"non-critical, no attachments", ProductionNonCritical, nil,
			Analysis{NoSLA, []Blocker{blocker(NoAttachments)}}},
		{"non-critical, empty non-nil slice", ProductionNonCritical, []Attachment{},
			Analysis{NoSLA, []Blocker{blocker(NoAttachments)}}},
		{"critical, no attachments", ProductionCritical, nil,
			Analysis{NoSLA, []Blocker{blocker(NoAttachments)}}},
		{"non-critical, one metro lacking zone2", ProductionNonCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), at("a3", "us-east4", "iad", "zone1")},
			Analysis{NoSLA, []Blocker{naimz(s("iad"), s("zone2"))}}},
		{"non-critical, one metro lacking zone1", ProductionNonCritical,
			[]Attachment{at("a2", "us-east4", "iad", "zone2")},
			Analysis{NoSLA, []Blocker{naimz(s("iad"), s("zone1"))}}},
		{"non-critical, two metros with one zone each", ProductionNonCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), at("b2", "us-west2", "lax", "zone2")},
			Analysis{NoSLA, []Blocker{naimz(s("iad", "lax"), s("zone1", "zone2"))}}},
		{"non-critical, two metros both lacking zone2", ProductionNonCritical,
			[]Attachment{at("b1", "us-west2", "lax", "zone1"), at("a1", "us-east4", "iad", "zone1")},
			Analysis{NoSLA, []Blocker{naimz(s("iad", "lax"), s("zone2"))}}},
		{"non-critical, unknown zone counts as neither", ProductionNonCritical,
			[]Attachment{at("a9", "us-east4", "iad", "zone3"), at("a0", "us-east4", "iad", "")},
			Analysis{NoSLA, []Blocker{naimz(s("iad"), s("zone1", "zone2"))}}},
		{"non-critical, zones split across metros do not count", ProductionNonCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), at("c2", "us-east4", "ash", "zone2")},
			Analysis{NoSLA, []Blocker{naimz(s("ash", "iad"), s("zone1", "zone2"))}}},
		{"non-critical met by one complete metro", ProductionNonCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), at("a2", "us-east4", "iad", "zone2")},
			Analysis{ProductionNonCritical, []Blocker{}}},
		{"non-critical met despite an incomplete metro", ProductionNonCritical,
			append(pc()[:2:2], at("c1", "us-west1", "sjc", "zone1")),
			Analysis{ProductionNonCritical, []Blocker{}}},
		{"non-critical caps two complete metros in two regions", ProductionNonCritical, pc(),
			Analysis{ProductionNonCritical, []Blocker{}}},
		{"critical met", ProductionCritical, pc(), Analysis{ProductionCritical, []Blocker{}}},
		{"critical, one complete metro in one region", ProductionCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), at("a2", "us-east4", "iad", "zone2")},
			Analysis{ProductionNonCritical, []Blocker{incMetros("iad"), incRegions("us-east4")}}},
		{"critical, one complete metro in two regions", ProductionCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), at("a2", "us-east1", "iad", "zone2")},
			Analysis{ProductionNonCritical, []Blocker{incMetros("iad")}}},
		{"critical, two complete metros in one region", ProductionCritical,
			[]Attachment{
				at("a1", "us-east4", "iad", "zone1"), at("a2", "us-east4", "iad", "zone2"),
				at("b1", "us-east4", "lax", "zone1"), at("b2", "us-east4", "lax", "zone2"),
			},
			Analysis{ProductionNonCritical, []Blocker{incRegions("us-east4")}}},
		{"critical, two metros two regions, one lacking zone2", ProductionCritical,
			[]Attachment{
				at("a1", "us-east4", "iad", "zone1"), at("a2", "us-east4", "iad", "zone2"),
				at("b1", "us-west2", "lax", "zone1"), at("b3", "us-west2", "lax", "zone1"),
			},
			Analysis{ProductionNonCritical, []Blocker{
				naimz(s("lax"), s("zone2"), url("b1", "us-west2"), url("b3", "us-west2")),
			}}},
		{"critical, one incomplete metro in one region: every blocker", ProductionCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1")},
			Analysis{NoSLA, []Blocker{
				incMetros("iad"), incRegions("us-east4"),
				naimz(s("iad"), s("zone2"), url("a1", "us-east4")),
			}}},
		{"critical, two incomplete metros: one blocker per metro in metro order", ProductionCritical,
			[]Attachment{
				at("b2", "us-west2", "lax", "zone2"), at("a1", "us-east4", "iad", "zone1"),
				at("c9", "us-west1", "sjc", "zone9"),
			},
			Analysis{NoSLA, []Blocker{
				naimz(s("iad"), s("zone2"), url("a1", "us-east4")),
				naimz(s("lax"), s("zone1"), url("b2", "us-west2")),
				naimz(s("sjc"), s("zone1", "zone2"), url("c9", "us-west1")),
			}}},
		{"critical, unknown zones listed among the metro's attachments", ProductionCritical,
			[]Attachment{
				at("a1", "us-east4", "iad", "zone1"), at("a9", "us-east1", "iad", "zone3"),
				at("b1", "us-west2", "lax", "zone1"), at("b2", "us-west2", "lax", "zone2"),
			},
			Analysis{ProductionNonCritical, []Blocker{
				naimz(s("iad"), s("zone2"), url("a9", "us-east1"), url("a1", "us-east4")),
			}}},
		{"critical, unknown-zone attachment adds a region to a complete metro", ProductionCritical,
			[]Attachment{
				at("a1", "us-east4", "iad", "zone1"), at("a2", "us-east4", "iad", "zone2"),
				at("a9", "us-east1", "iad", "zone3"),
				at("b1", "us-east4", "lax", "zone1"), at("b2", "us-east4", "lax", "zone2"),
			},
			Analysis{ProductionCritical, []Blocker{}}},
		{"critical, extra incomplete metro does not lower it (adjusted rule)", ProductionCritical,
			append(pc(), at("c1", "us-west1", "sjc", "zone1")),
			Analysis{ProductionCritical, []Blocker{}}},
		{"critical, two complete metros in one region plus an incomplete one elsewhere", ProductionCritical,
			[]Attachment{
				at("a1", "us-east4", "iad", "zone1"), at("a2", "us-east4", "iad", "zone2"),
				at("b1", "us-east4", "lax", "zone1"), at("b2", "us-east4", "lax", "zone2"),
				at("c1", "us-west1", "sjc", "zone1"),
			},
			Analysis{ProductionNonCritical, []Blocker{naimz(s("sjc"), s("zone2"), url("c1", "us-west1"))}}},
		{"unrecognised intent treated as NO_SLA", "AVAILABILITY_SLA_UNSPECIFIED", pc(),
			Analysis{NoSLA, []Blocker{}}},
		{"empty intent treated as NO_SLA", "", nil, Analysis{NoSLA, []Blocker{}}},
		{"Analyze ignores Active", ProductionCritical,
			[]Attachment{inactive(pc()[0]), inactive(pc()[1]), pc()[2], inactive(pc()[3])},
			Analysis{ProductionCritical, []Blocker{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.atts)
			full := Analyze(tc.intent, tc.atts)
			if !reflect.DeepEqual(tc.atts, in) {
				t.Errorf("Analyze modified its input:\ngot  %+v\nwant %+v", tc.atts, in)
			}
			if got := withoutExplanations(t, full); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Analyze(%s):\ngot  %+v\nwant %+v", tc.intent, got, tc.want)
			}
			if full.Blockers == nil {
				t.Errorf("Blockers is nil")
			}
			if tc.intent.Valid() && (len(full.Blockers) == 0) != (full.Effective == tc.intent) {
				t.Errorf("invariant: Effective %s, intent %s, %d blockers", full.Effective, tc.intent, len(full.Blockers))
			}
			// Any order of the same attachments gives an identical result.
			r := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			for i := range 8 {
				sh := slices.Clone(tc.atts)
				if i == 0 {
					slices.Reverse(sh)
				} else {
					r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
				}
				if got := Analyze(tc.intent, sh); !reflect.DeepEqual(got, full) {
					t.Errorf("order %d:\ngot  %+v\nwant %+v", i, got, full)
				}
			}
		})
	}
}

func TestExplanations(t *testing.T) {
	tests := []struct {
		name   string
		intent Level
		atts   []Attachment
		want   []string
	}{
		{"no attachments, non-critical", ProductionNonCritical, nil, s(
			"There are no attachments to analyse; PRODUCTION_NON_CRITICAL requires attachments in both zone1 and zone2 of one metro.")},
		{"no attachments, critical", ProductionCritical, nil, s(
			"There are no attachments to analyse; PRODUCTION_CRITICAL requires attachments in both zone1 and zone2 of at least two metros, in at least two regions.")},
		{"non-critical, per-metro detail", ProductionNonCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), at("b9", "us-west2", "lax", "zone9")}, s(
				"No metro has attachments in both zone1 and zone2 (metro iad has none in zone2; metro lax has none in zone1 and zone2); PRODUCTION_NON_CRITICAL requires attachments in both zone1 and zone2 of one metro.")},
		{"critical, every type", ProductionCritical, []Attachment{at("a1", "us-east4", "iad", "zone2")}, s(
			"All attachments are in metro iad; PRODUCTION_CRITICAL requires attachments in at least two metros.",
			"All attachments are in region us-east4; PRODUCTION_CRITICAL requires attachments in at least two regions.",
			"Metro iad has no attachments in zone1; PRODUCTION_CRITICAL requires attachments in both zone1 and zone2 of every metro used.")},
		{"empty metro name is visible", ProductionNonCritical, []Attachment{at("x", "r", "", "zone1")}, s(
			`No metro has attachments in both zone1 and zone2 (metro "" has none in zone2); PRODUCTION_NON_CRITICAL requires attachments in both zone1 and zone2 of one metro.`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, b := range Analyze(tc.intent, tc.atts).Blockers {
				got = append(got, b.Explanation)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("explanations:\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{{nil, ""}, {s("a"), "a"}, {s("a", "b"), "a and b"}, {s("a", "", "c"), `a, "" and c`}} {
		if got := list(tc.in); got != tc.want {
			t.Errorf("list(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLevelValid(t *testing.T) {
	for _, tc := range []struct {
		l    Level
		want bool
	}{{NoSLA, true}, {ProductionNonCritical, true}, {ProductionCritical, true}, {"", false}, {"AVAILABILITY_SLA_UNSPECIFIED", false}, {"no_sla", false}} {
		if got := tc.l.Valid(); got != tc.want {
			t.Errorf("%q.Valid(): got %v, want %v", tc.l, got, tc.want)
		}
	}
}

func TestLogicalStructure(t *testing.T) {
	fac := func(a Attachment, f string) Attachment { a.Facility = f; return a }
	tests := []struct {
		name string
		atts []Attachment
		want Structure
	}{
		{"none", nil, Structure{Regions: []Region{}}},
		{"one", []Attachment{at("a1", "us-east4", "iad", "zone1")}, Structure{[]Region{
			{"us-east4", []Metro{{"iad", []Facility{{"iad-1", []Zone{{"zone1", s(url("a1", "us-east4"))}}}}}}},
		}}},
		{"nesting and sorting at every level", []Attachment{
			fac(at("z", "us-west2", "lax", "zone2"), "lax-7"),
			at("b2", "us-east4", "iad", "zone2"),
			fac(at("c1", "us-east4", "iad", "zone1"), "iad-0"),
			at("b1", "us-east4", "iad", "zone1"),
			at("a1", "us-east4", "iad", "zone1"),
			at("d1", "us-east4", "ash", "zone1"),
			fac(at("y", "us-west2", "lax", "zone1"), "lax-7"),
			at("e9", "europe-west3", "fra", "zone3"),
			at("e1", "europe-west3", "fra", "zone1"),
			at("i1", "us-east1", "iad", "zone1"),
		}, Structure{[]Region{
			{"europe-west3", []Metro{{"fra", []Facility{{"fra-1", []Zone{
				{"zone1", s(url("e1", "europe-west3"))},
				{"zone3", s(url("e9", "europe-west3"))},
			}}}}}},
			{"us-east1", []Metro{{"iad", []Facility{{"iad-1", []Zone{{"zone1", s(url("i1", "us-east1"))}}}}}}},
			{"us-east4", []Metro{
				{"ash", []Facility{{"ash-1", []Zone{{"zone1", s(url("d1", "us-east4"))}}}}},
				{"iad", []Facility{
					{"iad-0", []Zone{{"zone1", s(url("c1", "us-east4"))}}},
					{"iad-1", []Zone{
						{"zone1", s(url("a1", "us-east4"), url("b1", "us-east4"))},
						{"zone2", s(url("b2", "us-east4"))},
					}},
				}},
			}},
			{"us-west2", []Metro{{"lax", []Facility{{"lax-7", []Zone{
				{"zone1", s(url("y", "us-west2"))},
				{"zone2", s(url("z", "us-west2"))},
			}}}}}},
		}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.atts)
			got := LogicalStructure(tc.atts)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LogicalStructure:\ngot  %+v\nwant %+v", got, tc.want)
			}
			if !reflect.DeepEqual(tc.atts, in) {
				t.Errorf("LogicalStructure modified its input")
			}
			sh := slices.Clone(tc.atts)
			slices.Reverse(sh)
			if got := LogicalStructure(sh); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reversed input:\ngot  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestGroupStatus(t *testing.T) {
	a, b := at("a", "r", "m", "zone1"), at("b", "r", "m", "zone2")
	tests := []struct {
		name string
		atts []Attachment
		want string
	}{
		{"none", nil, FullyDown},
		{"one active", []Attachment{a}, FullyUp},
		{"all active", []Attachment{a, b}, FullyUp},
		{"one inactive", []Attachment{inactive(a)}, FullyDown},
		{"all inactive", []Attachment{inactive(a), inactive(b)}, FullyDown},
		{"mixed", []Attachment{a, inactive(b)}, Degraded},
		{"mixed, other order", []Attachment{inactive(a), b}, Degraded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := GroupStatus(tc.atts); got != tc.want {
				t.Errorf("GroupStatus: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOperational(t *testing.T) {
	c1 := at("c1", "us-west1", "sjc", "zone1")
	tests := []struct {
		name   string
		intent Level
		atts   []Attachment
		want   Analysis
	}{
		{"all active equals configured", ProductionCritical, pc(), Analysis{ProductionCritical, []Blocker{}}},
		{"none active", ProductionCritical, []Attachment{inactive(pc()[0]), inactive(pc()[1])},
			Analysis{NoSLA, []Blocker{blocker(NoAttachments)}}},
		{"no attachments", ProductionNonCritical, nil, Analysis{NoSLA, []Blocker{blocker(NoAttachments)}}},
		{"inactive zone2 in one metro degrades critical", ProductionCritical,
			[]Attachment{pc()[0], pc()[1], pc()[2], inactive(pc()[3])},
			Analysis{ProductionNonCritical, []Blocker{naimz(s("lax"), s("zone2"), url("b1", "us-west2"))}}},
		{"inactive attachments do not count for metros or regions", ProductionCritical,
			[]Attachment{pc()[0], pc()[1], inactive(pc()[2]), inactive(pc()[3])},
			Analysis{ProductionNonCritical, []Blocker{incMetros("iad"), incRegions("us-east4")}}},
		{"inactive incomplete metro is ignored entirely", ProductionCritical,
			[]Attachment{at("a1", "us-east4", "iad", "zone1"), inactive(c1)},
			Analysis{NoSLA, []Blocker{incMetros("iad"), incRegions("us-east4"), naimz(s("iad"), s("zone2"), url("a1", "us-east4"))}}},
		{"no SLA", NoSLA, []Attachment{inactive(c1)}, Analysis{NoSLA, []Blocker{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := withoutExplanations(t, Operational(tc.intent, tc.atts)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Operational(%s):\ngot  %+v\nwant %+v", tc.intent, got, tc.want)
			}
		})
	}
}

// A 99.99% intent with one metro still lacking zone2.
func ExampleAnalyze() {
	atts := []Attachment{
		{URL: "a1", Region: "us-east4", Metro: "iad", Facility: "iad-1", Zone: "zone1"},
		{URL: "a2", Region: "us-east4", Metro: "iad", Facility: "iad-2", Zone: "zone2"},
		{URL: "b1", Region: "us-west2", Metro: "lax", Facility: "lax-1", Zone: "zone1"},
	}
	a := Analyze(ProductionCritical, atts)
	fmt.Println(a.Effective)
	for _, b := range a.Blockers {
		fmt.Println(b.Type, b.Metros, b.Zones, b.Attachments)
	}
	// Output:
	// PRODUCTION_NON_CRITICAL
	// NO_ATTACHMENTS_IN_METRO_AND_ZONE [lax] [zone2] [b1]
}
