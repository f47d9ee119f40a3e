package sla

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

var (
	propRegions = []string{"us-east4", "us-west2", "europe-west3", "asia-east1"}
	propMetros  = []string{"iad", "lax", "fra", "tpe"}
	propZones   = []string{"zone1", "zone2", "zone9"} // zone9 is not an edge availability domain
	intents     = []Level{NoSLA, ProductionNonCritical, ProductionCritical}
)

// randomAttachment returns attachment number i drawn from small alphabets.
func randomAttachment(r *rand.Rand, i int) Attachment {
	metro := propMetros[r.IntN(len(propMetros))]
	return Attachment{
		URL:      fmt.Sprintf("https://example.test/attachments/a%03d", i),
		Region:   propRegions[r.IntN(len(propRegions))],
		Metro:    metro,
		Facility: fmt.Sprintf("%s-%d", metro, 1+r.IntN(2)),
		Zone:     propZones[r.IntN(len(propZones))],
		Active:   r.IntN(3) > 0,
	}
}

func randomTopology(r *rand.Rand, max int) []Attachment {
	atts := make([]Attachment, r.IntN(max+1))
	for i := range atts {
		atts[i] = randomAttachment(r, i)
	}
	return atts
}

func allActive(atts []Attachment) []Attachment {
	out := slices.Clone(atts)
	for i := range out {
		out[i].Active = true
	}
	return out
}

// firstCut is the rule before the monotonicity adjustment (see the package
// documentation): at least two metros, at least two regions, every metro
// used has attachments in both zones.
func firstCut(atts []Attachment) bool {
	metros, regions := map[string][2]bool{}, map[string]bool{}
	for _, a := range atts {
		z := metros[a.Metro]
		z[0] = z[0] || a.Zone == Zone1
		z[1] = z[1] || a.Zone == Zone2
		metros[a.Metro] = z
		regions[a.Region] = true
	}
	for _, z := range metros {
		if !z[0] || !z[1] {
			return false
		}
	}
	return len(metros) >= 2 && len(regions) >= 2
}

// checkInvariants checks the properties that must hold for any topology.
func checkInvariants(t testing.TB, intent Level, atts []Attachment) Analysis {
	t.Helper()
	got := Analyze(intent, atts)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("intent %s, attachments %+v:\n%s\nanalysis %+v", intent, atts, fmt.Sprintf(format, args...), got)
	}
	if !got.Effective.Valid() {
		fail("effective level %q not valid", got.Effective)
	}
	if got.Blockers == nil {
		fail("nil Blockers")
	}
	// (a) Blockers empty exactly when Effective == intent.
	if intent.Valid() && (len(got.Blockers) == 0) != (got.Effective == intent) {
		fail("(a) blockers empty = %v, effective == intent = %v", len(got.Blockers) == 0, got.Effective == intent)
	}
	if !intent.Valid() && (got.Effective != NoSLA || len(got.Blockers) != 0) {
		fail("unrecognised intent not treated as NO_SLA")
	}
	// (b) Effective never above intent.
	if intent.Valid() && rank(got.Effective) > rank(intent) {
		fail("(b) effective above intent")
	}
	for i, b := range got.Blockers {
		if b.Explanation == "" || b.DocumentationLink != DocumentationLink {
			fail("blocker %d lacks explanation or documentation link", i)
		}
		for _, l := range [][]string{b.Regions, b.Metros, b.Zones, b.Attachments} {
			if l != nil && (len(l) == 0 || !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l)) {
				fail("blocker %d: list %q not nil, or not sorted and unique", i, l)
			}
		}
	}
	// (c) Adding an attachment never lowers Effective: compare with the
	// result without the last attachment.
	if n := len(atts); n > 0 {
		if prev := Analyze(intent, atts[:n-1:n-1]); rank(prev.Effective) > rank(got.Effective) {
			fail("(c) adding %+v lowered effective from %s", atts[n-1], prev.Effective)
		}
	}
	// (d) LogicalStructure contains every attachment exactly once, under its
	// own region, metro, facility and zone, with every list sorted.
	seen := map[string]int{}
	st := LogicalStructure(atts)
	if !slices.IsSortedFunc(st.Regions, func(a, b Region) int { return cmpStr(a.Region, b.Region) }) {
		fail("(d) regions not sorted")
	}
	for _, r := range st.Regions {
		if len(r.Metros) == 0 || !slices.IsSortedFunc(r.Metros, func(a, b Metro) int { return cmpStr(a.Metro, b.Metro) }) {
			fail("(d) metros of %s empty or not sorted", r.Region)
		}
		for _, m := range r.Metros {
			if len(m.Facilities) == 0 || !slices.IsSortedFunc(m.Facilities, func(a, b Facility) int { return cmpStr(a.Facility, b.Facility) }) {
				fail("(d) facilities empty or not sorted")
			}
			for _, f := range m.Facilities {
				if len(f.Zones) == 0 || !slices.IsSortedFunc(f.Zones, func(a, b Zone) int { return cmpStr(a.Zone, b.Zone) }) {
					fail("(d) zones empty or not sorted")
				}
				for _, z := range f.Zones {
					if len(z.Attachments) == 0 || !slices.IsSorted(z.Attachments) {
						fail("(d) attachments empty or not sorted")
					}
					for _, u := range z.Attachments {
						seen[fmt.Sprint(u, "|", r.Region, "|", m.Metro, "|", f.Facility, "|", z.Zone)]++
					}
				}
			}
		}
	}
	want := map[string]int{}
	for _, a := range atts {
		want[fmt.Sprint(a.URL, "|", a.Region, "|", a.Metro, "|", a.Facility, "|", a.Zone)]++
	}
	if !reflect.DeepEqual(seen, want) {
		fail("(d) structure %+v holds %v, want %v", st, seen, want)
	}
	// (e) Operational with all attachments active equals Analyze.
	if op := Operational(intent, allActive(atts)); !reflect.DeepEqual(op, got) {
		fail("(e) Operational with all active = %+v", op)
	}
	// Operational equals Analyze over the active ones.
	var active []Attachment
	for _, a := range atts {
		if a.Active {
			active = append(active, a)
		}
	}
	if op, an := Operational(intent, atts), Analyze(intent, active); !reflect.DeepEqual(op, an) {
		fail("Operational = %+v, Analyze(active) = %+v", op, an)
	}
	// (f) The result does not depend on input order.
	rev := slices.Clone(atts)
	slices.Reverse(rev)
	if again := Analyze(intent, rev); !reflect.DeepEqual(again, got) {
		fail("(f) reversed input gives %+v", again)
	}
	if again := LogicalStructure(rev); !reflect.DeepEqual(again, st) {
		fail("(f) reversed input gives structure %+v, want %+v", again, st)
	}
	if GroupStatus(rev) != GroupStatus(atts) {
		fail("(f) GroupStatus depends on order")
	}
	return got
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestProperties(t *testing.T) {
	const topologies = 4000
	r := rand.New(rand.NewPCG(20260822, 1))
	levels := map[Level]int{}
	blockerTypes := map[BlockerType]int{}
	for n := range topologies {
		atts := randomTopology(r, 12)
		for _, intent := range append(intents, "AVAILABILITY_SLA_UNSPECIFIED") {
			got := checkInvariants(t, intent, atts)
			levels[got.Effective]++
			for _, b := range got.Blockers {
				blockerTypes[b.Type]++
			}

			// (f) any shuffle, not only the reverse.
			sh := slices.Clone(atts)
			r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
			if again := Analyze(intent, sh); !reflect.DeepEqual(again, got) {
				t.Fatalf("topology %d: shuffled input gives %+v, want %+v", n, again, got)
			}
			// (c) adding any further attachment never lowers Effective.
			for k := range 3 {
				more := append(slices.Clone(atts), randomAttachment(r, 100+k))
				if again := Analyze(intent, more); rank(again.Effective) < rank(got.Effective) {
					t.Fatalf("topology %d: adding %+v lowered %s to %s", n, more[len(more)-1], got.Effective, again.Effective)
				}
			}
			// Effective is the highest satisfied level capped at the
			// intent, where PRODUCTION_CRITICAL is satisfied when some
			// subset meets the first-cut rule (the adjustment documented
			// in the package). Checked exhaustively on small topologies.
			if len(atts) <= 8 && intent.Valid() {
				if want := oracle(intent, atts); got.Effective != want {
					t.Fatalf("topology %d, intent %s: effective %s, oracle %s; attachments %+v", n, intent, got.Effective, want, atts)
				}
			}
		}
	}
	// The generator must reach every level and every blocker type.
	for _, l := range intents {
		if levels[l] == 0 {
			t.Errorf("no topology reached %s", l)
		}
	}
	for _, b := range []BlockerType{NoAttachments, NoAttachmentsInMetroAndZone, IncompatibleMetros, IncompatibleRegions} {
		if blockerTypes[b] == 0 {
			t.Errorf("no topology produced %s", b)
		}
	}
	t.Logf("%d topologies; effective levels %v; blockers %v", topologies, levels, blockerTypes)
}

// oracle computes the effective level by brute force over subsets.
func oracle(intent Level, atts []Attachment) Level {
	pnc := false
	for i, a := range atts {
		for _, b := range atts[i+1:] {
			if a.Metro == b.Metro && a.Zone != b.Zone && (a.Zone == Zone1 || a.Zone == Zone2) && (b.Zone == Zone1 || b.Zone == Zone2) {
				pnc = true
			}
		}
	}
	if intent == ProductionCritical {
		for mask := 1; mask < 1<<len(atts); mask++ {
			var sub []Attachment
			for i, a := range atts {
				if mask&(1<<i) != 0 {
					sub = append(sub, a)
				}
			}
			if firstCut(sub) {
				return ProductionCritical
			}
		}
	}
	if pnc && intent != NoSLA {
		return ProductionNonCritical
	}
	return NoSLA
}

// TestFirstCutBlockersLeadToIntent checks that, when the intent is not met,
// the blockers are those of the first-cut rule: fixing all of them (adding a
// second metro and region, and the missing zones) reaches the intent.
func TestFirstCutBlockersLeadToIntent(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for n := range 2000 {
		atts := randomTopology(r, 10)
		for _, intent := range []Level{ProductionNonCritical, ProductionCritical} {
			got := Analyze(intent, atts)
			if got.Effective == intent {
				continue
			}
			fixed := slices.Clone(atts)
			add := func(region, metro, zone string) {
				fixed = append(fixed, Attachment{URL: fmt.Sprintf("fix%03d", len(fixed)), Region: region, Metro: metro, Facility: metro + "-1", Zone: zone})
			}
			for _, b := range got.Blockers {
				switch b.Type {
				case NoAttachments:
					add("new-region-1", "nm1", Zone1)
					add("new-region-1", "nm1", Zone2)
					if intent == ProductionCritical {
						add("new-region-2", "nm2", Zone1)
						add("new-region-2", "nm2", Zone2)
					}
				case IncompatibleMetros, IncompatibleRegions:
					add("new-region-"+string(b.Type), "new-metro-"+string(b.Type), Zone1)
					add("new-region-"+string(b.Type), "new-metro-"+string(b.Type), Zone2)
				case NoAttachmentsInMetroAndZone:
					if intent == ProductionNonCritical {
						// Zones is the union of the zones the metros
						// lack, so adding them all to any one of the
						// metros completes it.
						for _, z := range b.Zones {
							add(propRegions[0], b.Metros[len(b.Metros)-1], z)
						}
						continue
					}
					if len(b.Metros) != 1 {
						t.Fatalf("critical NO_ATTACHMENTS_IN_METRO_AND_ZONE with metros %q", b.Metros)
					}
					for _, z := range b.Zones {
						add(propRegions[0], b.Metros[0], z)
					}
				}
			}
			if again := Analyze(intent, fixed); again.Effective != intent {
				t.Fatalf("topology %d, intent %s: blockers %+v fixed give %+v", n, intent, got.Blockers, again)
			}
		}
	}
}
