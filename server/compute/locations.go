package compute

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"time"
)

var (
	locationName = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	metroName    = regexp.MustCompile(`^[a-z]{3}$`)
)

// Check reports what is wrong with a location declared in the seed: a *SeedError naming
// the member (its collection is SeedLocations).
func (l Location) Check() error {
	bad := func(field, format string, args ...any) error {
		return &SeedError{Collection: SeedLocations, Field: field, Err: fmt.Errorf(format, args...)}
	}
	switch {
	case !locationName.MatchString(l.Name):
		return bad("name", "name %q is not a valid resource name", l.Name)
	case !metroName.MatchString(l.Metro):
		return bad("metro", "location %s: metro %q must be three lowercase letters", l.Name, l.Metro)
	case l.Zone != "zone1" && l.Zone != "zone2":
		return bad("availabilityZone", "location %s: availabilityZone %q must be zone1 or zone2", l.Name, l.Zone)
	case l.PeeringDBFacilityID == "":
		return bad("peeringdbFacilityId", "location %s: peeringdbFacilityId is required (it names the facility)", l.Name)
	case len(l.Regions) == 0:
		return bad("regions", "location %s: regions must name at least one region", l.Name)
	}
	return nil
}

// Location is an interconnect location: a colocation facility in a metro, in one edge
// availability domain (zone1 or zone2). The catalog is read-only; the seed file can add to it.
type Location struct {
	Name        string `json:"name" yaml:"name"` // e.g. iad-zone1-1
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	Metro       string `json:"metro,omitempty" yaml:"metro,omitempty"` // three lowercase letters, e.g. iad
	Zone        string `json:"availabilityZone,omitempty" yaml:"availabilityZone,omitempty"`
	Site        `yaml:",inline"`
	Regions     []string `json:"regions,omitempty" yaml:"regions,omitempty"` // regions reachable from it
}

// Site is where a location or a remote location is, in the members both schemas give it.
type Site struct {
	City                       string `json:"city,omitempty" yaml:"city,omitempty"`
	Continent                  string `json:"continent,omitempty" yaml:"continent,omitempty"`
	Address                    string `json:"address,omitempty" yaml:"address,omitempty"`
	FacilityProvider           string `json:"facilityProvider,omitempty" yaml:"facilityProvider,omitempty"`
	FacilityProviderFacilityID string `json:"facilityProviderFacilityId,omitempty" yaml:"facilityProviderFacilityId,omitempty"`
	PeeringDBFacilityID        string `json:"peeringdbFacilityId,omitempty" yaml:"peeringdbFacilityId,omitempty"`
}

// Facility names the building, as logicalStructure shows it: the metro and the facility's
// PeeringDB id (the real API's facility names look like iad-1234).
func (l Location) Facility() string { return l.Metro + "-" + l.PeeringDBFacilityID }

// locationsCreated is when the built-in catalog "was created": fixed, so outputs are stable.
var locationsCreated = time.Date(2017, 6, 1, 0, 0, 0, 0, time.UTC)

// builtinLocations are realistic locations in five metros, each metro with facilities in
// both edge availability domains, so that every SLA level can be built from them.
var builtinLocations = []Location{
	{Name: "iad-zone1-1", Metro: "iad", Zone: "zone1", Site: Site{City: "Ashburn", Continent: "NORTH_AMERICA", Address: "21715 Filigree Court, Ashburn, VA 20147", FacilityProvider: "Equinix", FacilityProviderFacilityID: "DC2", PeeringDBFacilityID: "1"}, Regions: []string{"us-east4", "us-east1"}},
	{Name: "iad-zone2-1", Metro: "iad", Zone: "zone2", Site: Site{City: "Ashburn", Continent: "NORTH_AMERICA", Address: "21830 UUNet Way, Ashburn, VA 20147", FacilityProvider: "Equinix", FacilityProviderFacilityID: "DC6", PeeringDBFacilityID: "2"}, Regions: []string{"us-east4", "us-east1"}},
	{Name: "iad-zone1-2", Metro: "iad", Zone: "zone1", Site: Site{City: "Ashburn", Continent: "NORTH_AMERICA", Address: "44470 Chilum Place, Ashburn, VA 20147", FacilityProvider: "CoreSite", FacilityProviderFacilityID: "VA1", PeeringDBFacilityID: "3"}, Regions: []string{"us-east4", "us-east1"}},
	{Name: "lax-zone1-8", Metro: "lax", Zone: "zone1", Site: Site{City: "Los Angeles", Continent: "NORTH_AMERICA", Address: "600 West 7th Street, Los Angeles, CA 90017", FacilityProvider: "Equinix", FacilityProviderFacilityID: "LA1", PeeringDBFacilityID: "8"}, Regions: []string{"us-west2"}},
	{Name: "lax-zone2-19", Metro: "lax", Zone: "zone2", Site: Site{City: "Los Angeles", Continent: "NORTH_AMERICA", Address: "624 South Grand Avenue, Los Angeles, CA 90017", FacilityProvider: "CoreSite", FacilityProviderFacilityID: "LA1", PeeringDBFacilityID: "19"}, Regions: []string{"us-west2"}},
	{Name: "sjc-zone1-6", Metro: "sjc", Zone: "zone1", Site: Site{City: "San Jose", Continent: "NORTH_AMERICA", Address: "11 Great Oaks Boulevard, San Jose, CA 95119", FacilityProvider: "Equinix", FacilityProviderFacilityID: "SV1", PeeringDBFacilityID: "6"}, Regions: []string{"us-west1", "us-west2"}},
	{Name: "sjc-zone2-6", Metro: "sjc", Zone: "zone2", Site: Site{City: "San Jose", Continent: "NORTH_AMERICA", Address: "9 Great Oaks Boulevard, San Jose, CA 95119", FacilityProvider: "Equinix", FacilityProviderFacilityID: "SV5", PeeringDBFacilityID: "16"}, Regions: []string{"us-west1", "us-west2"}},
	{Name: "fra-zone1-4", Metro: "fra", Zone: "zone1", Site: Site{City: "Frankfurt", Continent: "EUROPE", Address: "Kruppstrasse 121-127, 60388 Frankfurt am Main", FacilityProvider: "Equinix", FacilityProviderFacilityID: "FR5", PeeringDBFacilityID: "4"}, Regions: []string{"europe-west3"}},
	{Name: "fra-zone2-4", Metro: "fra", Zone: "zone2", Site: Site{City: "Frankfurt", Continent: "EUROPE", Address: "Weismuellerstrasse 19, 60314 Frankfurt am Main", FacilityProvider: "Interxion", FacilityProviderFacilityID: "FRA3", PeeringDBFacilityID: "57"}, Regions: []string{"europe-west3"}},
	{Name: "lhr-zone1-47", Metro: "lhr", Zone: "zone1", Site: Site{City: "London", Continent: "EUROPE", Address: "Sovereign House, 227 Marsh Wall, London E14 9SD", FacilityProvider: "Telehouse", FacilityProviderFacilityID: "North", PeeringDBFacilityID: "47"}, Regions: []string{"europe-west2"}},
	{Name: "lhr-zone2-34", Metro: "lhr", Zone: "zone2", Site: Site{City: "London", Continent: "EUROPE", Address: "8-9 Harbour Exchange Square, London E14 9GE", FacilityProvider: "Equinix", FacilityProviderFacilityID: "LD8", PeeringDBFacilityID: "34"}, Regions: []string{"europe-west2"}},
}

// catalog is a read-only set of entries by name (locations, remote locations), made when
// the API starts: the built-in ones and those the seed adds, an added entry of a built-in
// name replacing it.
type catalog[T interface{ key() string }] struct {
	byName  map[string]T
	names   []string  // sorted
	created time.Time // when the catalog "was created": every entry's creationTimestamp
}

func newCatalog[T interface{ key() string }](created time.Time, builtin, extra []T) catalog[T] {
	c := catalog[T]{byName: map[string]T{}, created: created}
	for _, e := range append(slices.Clone(builtin), extra...) {
		if _, dup := c.byName[e.key()]; !dup {
			c.names = append(c.names, e.key())
		}
		c.byName[e.key()] = e
	}
	sort.Strings(c.names)
	return c
}

// get is the entry called name, or the real service's 404 for path, the entry's own.
func (c catalog[T]) get(name, path string) (T, error) {
	e, ok := c.byName[name]
	if !ok {
		return e, notFound(path)
	}
	return e, nil
}

// catalogPage is the page a list of c asks for (its filter, pageToken, orderBy and
// maxResults), each entry rendered; next is nil on the last page.
func catalogPage[T interface{ key() string }, W any](c catalog[T], filter, pageToken, orderBy *string, maxResults *uint32, render func(T) W) (out []W, next *string, err error) {
	q, err := parseListQuery[W](deref(filter), deref(pageToken), deref(orderBy), maxResultsOf(maxResults))
	if err != nil {
		return nil, nil, err
	}
	items := make([]listItem, len(c.names))
	for i, n := range c.names {
		items[i] = listItem{name: n, created: c.created, seq: uint64(i)}
	}
	out, token, err := page(items, q, func(i int) W { return render(c.byName[c.names[i]]) })
	if err != nil || token == "" {
		return out, nil, err
	}
	return out, &token, nil
}

func (l Location) key() string { return l.Name }

// locationCatalog is the catalog of interconnect locations.
type locationCatalog struct{ catalog[Location] }

// facility lists the locations of a zone-free location (iad-1: iad-zone1-1 and
// iad-zone2-1), zone1 first; a location's own name stands for itself alone.
func (c locationCatalog) facility(name string) []string {
	if _, ok := c.byName[name]; ok {
		return []string{name}
	}
	var out []string
	for _, n := range c.names {
		if zoneFree(n) == name {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return c.byName[out[i]].Zone < c.byName[out[j]].Zone })
	return out
}
