package sla

import (
	"reflect"
	"testing"
)

func ic(name, metro, zone string) Interconnect {
	return Interconnect{URL: "u/" + name, Metro: metro, Facility: metro + "-1", Zone: zone, Active: true}
}

func TestAnalyzeInterconnects(t *testing.T) {
	type blocker struct {
		typ                                      BlockerType
		metros, zones, facilities, interconnects []string
	}
	tests := []struct {
		name      string
		intent    Level
		ics       []Interconnect
		supported Level
		blockers  []blocker
	}{
		{"no sla", NoSLA, nil, NoSLA, nil},
		{"none", ProductionNonCritical, nil, NoSLA, []blocker{{typ: NoInterconnects}}},
		{"one zone", ProductionNonCritical, []Interconnect{ic("a", "iad", Zone1)}, NoSLA,
			[]blocker{{NoInterconnectsInMetroAndZone, s("iad"), s(Zone2), s("iad-1"), s("u/a")}}},
		{"both zones", ProductionNonCritical, []Interconnect{ic("a", "iad", Zone1), ic("b", "iad", Zone2)}, ProductionNonCritical, nil},
		{"capped at the intent", ProductionNonCritical, []Interconnect{ic("a", "iad", Zone1), ic("b", "iad", Zone2), ic("c", "sjc", Zone1), ic("d", "sjc", Zone2)}, ProductionNonCritical, nil},
		{"critical, one metro", ProductionCritical, []Interconnect{ic("a", "iad", Zone1), ic("b", "iad", Zone2)}, ProductionNonCritical,
			[]blocker{{typ: IncompatibleMetros, metros: s("iad")}}},
		{"critical, a metro incomplete", ProductionCritical, []Interconnect{ic("a", "iad", Zone1), ic("b", "iad", Zone2), ic("c", "sjc", Zone2)}, ProductionNonCritical,
			[]blocker{{NoInterconnectsInMetroAndZone, s("sjc"), s(Zone1), s("sjc-1"), s("u/c")}}},
		{"critical", ProductionCritical, []Interconnect{ic("a", "iad", Zone1), ic("b", "iad", Zone2), ic("c", "sjc", Zone1), ic("d", "sjc", Zone2)}, ProductionCritical, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AnalyzeInterconnects(tt.intent, tt.ics)
			if got.Supported != tt.supported {
				t.Errorf("supported %s, want %s", got.Supported, tt.supported)
			}
			var bs []blocker
			for _, b := range got.Blockers {
				if b.Explanation == "" || b.DocumentationLink != TopologyDocumentationLink {
					t.Errorf("%s: explanation %q, link %q", b.Type, b.Explanation, b.DocumentationLink)
				}
				bs = append(bs, blocker{b.Type, b.Metros, b.Zones, b.Facilities, b.Attachments})
			}
			if !reflect.DeepEqual(bs, tt.blockers) {
				t.Errorf("blockers %+v, want %+v", bs, tt.blockers)
			}
			if got.Blockers == nil {
				t.Errorf("blockers are nil, want a list")
			}
		})
	}
}

func TestOperationalInterconnectsAndStatus(t *testing.T) {
	down := ic("b", "iad", Zone2)
	down.Active = false
	ics := []Interconnect{ic("a", "iad", Zone1), down}
	if got := OperationalInterconnects(ProductionNonCritical, ics).Supported; got != NoSLA {
		t.Errorf("operational with zone2 down: %s", got)
	}
	for _, tt := range []struct {
		active, total int
		want          string
	}{{0, 0, FullyDown}, {0, 2, FullyDown}, {1, 2, Degraded}, {2, 2, FullyUp}} {
		if got := InterconnectsStatus(tt.active, tt.total); got != tt.want {
			t.Errorf("%d of %d active: %s, want %s", tt.active, tt.total, got, tt.want)
		}
	}
}

func TestPhysicalStructure(t *testing.T) {
	got := PhysicalStructure([]Interconnect{ic("b", "sjc", Zone2), ic("a", "iad", Zone1), ic("c", "iad", Zone1)})
	want := []PhysicalMetro{
		{Metro: "iad", Facilities: []PhysicalFacility{{Facility: "iad-1", Zones: []Zone{{Zone: Zone1, Attachments: s("u/a", "u/c")}}}}},
		{Metro: "sjc", Facilities: []PhysicalFacility{{Facility: "sjc-1", Zones: []Zone{{Zone: Zone2, Attachments: s("u/b")}}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
