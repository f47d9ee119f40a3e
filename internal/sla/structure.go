package sla

import (
	"cmp"
	"slices"
)

// Structure is an attachment group's logicalStructure.
type Structure struct{ Regions []Region }

// Region groups the attachments of one region by metro.
type Region struct {
	Region string
	Metros []Metro
}

// Metro groups the attachments of one region and metro by facility.
type Metro struct {
	Metro      string
	Facilities []Facility
}

// Facility groups the attachments of one facility by zone.
type Facility struct {
	Facility string
	Zones    []Zone
}

// Zone lists the URLs of the attachments of one facility and zone.
type Zone struct {
	Zone        string
	Attachments []string
}

// LogicalStructure groups attachments: regions (sorted by region) -> metros
// (sorted) -> facilities (sorted) -> zones (sorted: zone1, zone2) ->
// attachment URLs (sorted). Every attachment appears exactly once, under its
// region, metro, facility and zone as given (a zone other than zone1/zone2
// is kept and sorted with the others). Regions is non-nil, empty when there
// are no attachments.
func LogicalStructure(attachments []Attachment) Structure {
	sorted := slices.Clone(attachments)
	slices.SortFunc(sorted, func(a, b Attachment) int {
		return cmp.Or(
			cmp.Compare(a.Region, b.Region),
			cmp.Compare(a.Metro, b.Metro),
			cmp.Compare(a.Facility, b.Facility),
			cmp.Compare(a.Zone, b.Zone),
			cmp.Compare(a.URL, b.URL),
		)
	})
	s := Structure{Regions: []Region{}}
	for i, a := range sorted {
		var p *Attachment
		if i > 0 {
			p = &sorted[i-1]
		}
		newRegion := p == nil || p.Region != a.Region
		if newRegion {
			s.Regions = append(s.Regions, Region{Region: a.Region})
		}
		r := &s.Regions[len(s.Regions)-1]
		newMetro := newRegion || p.Metro != a.Metro
		if newMetro {
			r.Metros = append(r.Metros, Metro{Metro: a.Metro})
		}
		m := &r.Metros[len(r.Metros)-1]
		newFacility := newMetro || p.Facility != a.Facility
		if newFacility {
			m.Facilities = append(m.Facilities, Facility{Facility: a.Facility})
		}
		f := &m.Facilities[len(m.Facilities)-1]
		if newFacility || p.Zone != a.Zone {
			f.Zones = append(f.Zones, Zone{Zone: a.Zone})
		}
		z := &f.Zones[len(f.Zones)-1]
		z.Attachments = append(z.Attachments, a.URL)
	}
	return s
}
