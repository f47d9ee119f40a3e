package compute

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
)

// RemoteLocation is a Cross-Cloud Interconnect remote location: another cloud's point of
// presence, in a metro of the interconnect locations, that an interconnect at one of the
// locations it permits can connect to. The catalog is read-only; the seed file can add to
// it. Members left out read as the real service's defaults: status AVAILABLE, lacp
// LACP_SUPPORTED, unconstrained port pairs, subnet lengths 29 to 30, bgpMd5 MD5_OPTIONAL.
type RemoteLocation struct {
	Name          string `json:"name" yaml:"name"` // e.g. aws-iad-1
	Description   string `json:"description,omitempty" yaml:"description,omitempty"`
	RemoteService string `json:"remoteService,omitempty" yaml:"remoteService,omitempty"` // e.g. Amazon Web Services
	Site          `yaml:",inline"`
	Status        string `json:"status,omitempty" yaml:"status,omitempty"` // AVAILABLE or CLOSED
	Lacp          string `json:"lacp,omitempty" yaml:"lacp,omitempty"`     // LACP_SUPPORTED or LACP_UNSUPPORTED
	// The most links of each speed a bundle may have; 0: the remote location takes none.
	MaxLagSize10Gbps                   int32                       `json:"maxLagSize10Gbps,omitempty" yaml:"maxLagSize10Gbps,omitempty"`
	MaxLagSize100Gbps                  int32                       `json:"maxLagSize100Gbps,omitempty" yaml:"maxLagSize100Gbps,omitempty"`
	MaxLagSize400Gbps                  int32                       `json:"maxLagSize400Gbps,omitempty" yaml:"maxLagSize400Gbps,omitempty"`
	Constraints                        RemoteLocationConstraints   `json:"constraints,omitzero" yaml:"constraints,omitempty"`
	AttachmentConfigurationConstraints RemoteAttachmentConstraints `json:"attachmentConfigurationConstraints,omitzero" yaml:"attachmentConfigurationConstraints,omitempty"`
	// PermittedConnections name the interconnect locations an interconnect to it may be at.
	PermittedConnections []string `json:"permittedConnections,omitempty" yaml:"permittedConnections,omitempty"`
}

// RemoteLocationConstraints are a remote location's constraints, as the API names them.
type RemoteLocationConstraints struct {
	PortPairRemoteLocation string `json:"portPairRemoteLocation,omitempty" yaml:"portPairRemoteLocation,omitempty"`
	PortPairVlan           string `json:"portPairVlan,omitempty" yaml:"portPairVlan,omitempty"`
	SubnetLengthRange      Range  `json:"subnetLengthRange,omitzero" yaml:"subnetLengthRange,omitempty"`
}

// RemoteAttachmentConstraints are a remote location's attachmentConfigurationConstraints.
type RemoteAttachmentConstraints struct {
	BgpMd5           string  `json:"bgpMd5,omitempty" yaml:"bgpMd5,omitempty"`
	BgpPeerAsnRanges []Range `json:"bgpPeerAsnRanges,omitempty" yaml:"bgpPeerAsnRanges,omitempty"`
}

// Range is an inclusive range of numbers (subnet lengths, ASNs).
type Range struct {
	Min uint32 `json:"min" yaml:"min"`
	Max uint32 `json:"max" yaml:"max"`
}

func (r RemoteLocation) key() string { return r.Name }

// Check reports what is wrong with a remote location declared in the seed: a *SeedError
// naming the member (its collection is SeedRemoteLocations). Its permitted connections
// must be locations of the built-in catalog or of locations (those the seed adds).
func (r RemoteLocation) Check(locations []Location) error {
	bad := func(field, format string, args ...any) error {
		return &SeedError{Collection: SeedRemoteLocations, Field: field, Err: fmt.Errorf(format, args...)}
	}
	oneOf := func(field, v string, allowed ...string) error {
		if v != "" && !slices.Contains(allowed, v) {
			return bad(field, "remote location %s: %s %q must be one of %v", r.Name, field, v, allowed)
		}
		return nil
	}
	c, a := r.Constraints, r.AttachmentConfigurationConstraints
	switch {
	case !locationName.MatchString(r.Name):
		return bad("name", "name %q is not a valid resource name", r.Name)
	case r.RemoteService == "":
		return bad("remoteService", "remote location %s: remoteService is required (it names the other cloud, such as Amazon Web Services)", r.Name)
	case r.MaxLagSize10Gbps < 0 || r.MaxLagSize100Gbps < 0 || r.MaxLagSize400Gbps < 0 || r.MaxLagSize10Gbps+r.MaxLagSize100Gbps+r.MaxLagSize400Gbps == 0:
		return bad("maxLagSize10Gbps", "remote location %s: maxLagSize10Gbps, maxLagSize100Gbps and maxLagSize400Gbps are not negative, and one is positive (the links it takes)", r.Name)
	case r.Lacp == "LACP_UNSUPPORTED" && max(r.MaxLagSize10Gbps, r.MaxLagSize100Gbps, r.MaxLagSize400Gbps) > 1:
		return bad("lacp", "remote location %s: without LACP a bundle has one link, so no maxLagSize may be above 1", r.Name)
	case c.SubnetLengthRange != (Range{}) && (c.SubnetLengthRange.Min < 29 || c.SubnetLengthRange.Max > 30 || c.SubnetLengthRange.Min > c.SubnetLengthRange.Max):
		return bad("constraints.subnetLengthRange", "remote location %s: subnetLengthRange must lie within 29 to 30, min first", r.Name)
	case len(r.PermittedConnections) == 0:
		return bad("permittedConnections", "remote location %s: permittedConnections must name at least one interconnect location", r.Name)
	}
	for _, err := range []error{
		oneOf("continent", r.Continent, "AFRICA", "ASIA_PAC", "EUROPE", "NORTH_AMERICA", "SOUTH_AMERICA"),
		oneOf("status", r.Status, "AVAILABLE", "CLOSED"),
		oneOf("lacp", r.Lacp, "LACP_SUPPORTED", "LACP_UNSUPPORTED"),
		oneOf("constraints.portPairRemoteLocation", c.PortPairRemoteLocation, "PORT_PAIR_MATCHING_REMOTE_LOCATION", "PORT_PAIR_UNCONSTRAINED_REMOTE_LOCATION"),
		oneOf("constraints.portPairVlan", c.PortPairVlan, "PORT_PAIR_MATCHING_VLAN", "PORT_PAIR_UNCONSTRAINED_VLAN"),
		oneOf("attachmentConfigurationConstraints.bgpMd5", a.BgpMd5, "MD5_OPTIONAL", "MD5_REQUIRED", "MD5_UNSUPPORTED"),
	} {
		if err != nil {
			return err
		}
	}
	for i, asn := range a.BgpPeerAsnRanges {
		if asn.Min == 0 || asn.Min > asn.Max {
			return bad("attachmentConfigurationConstraints.bgpPeerAsnRanges."+strconv.Itoa(i), "remote location %s: an ASN range is min to max, from 1", r.Name)
		}
	}
	known := newCatalog(time.Time{}, builtinLocations, locations)
	for i, l := range r.PermittedConnections {
		if _, ok := known.byName[l]; !ok {
			return bad("permittedConnections."+strconv.Itoa(i), "remote location %s: %q is not an interconnect location of the catalog", r.Name, l)
		}
	}
	return nil
}

// remoteLocationsCreated is when the built-in catalog of remote locations "was created".
var remoteLocationsCreated = time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC)

// builtinRemoteLocations are realistic remote locations of four clouds in metros of
// builtinLocations, with the constraints each cloud documents (Azure: no LACP, /30
// subnets, paired ports and VLANs, Microsoft's ASN 12076; AWS: Amazon's private ASN
// ranges). azure-sjc-1 is CLOSED.
var builtinRemoteLocations = []RemoteLocation{
	{Name: "aws-iad-1", RemoteService: "Amazon Web Services", Site: Site{City: "Ashburn", Continent: "NORTH_AMERICA", Address: "21715 Filigree Court, Ashburn, VA 20147",
		FacilityProvider: "Equinix", FacilityProviderFacilityID: "DC2", PeeringDBFacilityID: "1"},
		Lacp: "LACP_SUPPORTED", MaxLagSize10Gbps: 8, MaxLagSize100Gbps: 4,
		Constraints:                        unconstrained,
		AttachmentConfigurationConstraints: RemoteAttachmentConstraints{BgpMd5: "MD5_OPTIONAL", BgpPeerAsnRanges: []Range{{64512, 65534}, {4200000000, 4294967294}}},
		PermittedConnections:               []string{"iad-zone1-1", "iad-zone1-2", "iad-zone2-1"}},
	{Name: "azure-iad-1", RemoteService: "Microsoft Azure", Site: Site{City: "Ashburn", Continent: "NORTH_AMERICA", Address: "21830 UUNet Way, Ashburn, VA 20147",
		FacilityProvider: "Equinix", FacilityProviderFacilityID: "DC6", PeeringDBFacilityID: "2"},
		Lacp: "LACP_UNSUPPORTED", MaxLagSize10Gbps: 1, MaxLagSize100Gbps: 1,
		Constraints:                        azurePairs,
		AttachmentConfigurationConstraints: RemoteAttachmentConstraints{BgpMd5: "MD5_OPTIONAL", BgpPeerAsnRanges: []Range{{12076, 12076}}},
		PermittedConnections:               []string{"iad-zone1-1", "iad-zone2-1"}},
	{Name: "aws-lhr-1", RemoteService: "Amazon Web Services", Site: Site{City: "London", Continent: "EUROPE", Address: "Sovereign House, 227 Marsh Wall, London E14 9SD",
		FacilityProvider: "Telehouse", FacilityProviderFacilityID: "North", PeeringDBFacilityID: "47"},
		Lacp: "LACP_SUPPORTED", MaxLagSize10Gbps: 8, MaxLagSize100Gbps: 4, MaxLagSize400Gbps: 2,
		Constraints:                        unconstrained,
		AttachmentConfigurationConstraints: RemoteAttachmentConstraints{BgpMd5: "MD5_OPTIONAL", BgpPeerAsnRanges: []Range{{64512, 65534}, {4200000000, 4294967294}}},
		PermittedConnections:               []string{"lhr-zone1-47", "lhr-zone2-34"}},
	{Name: "oci-fra-1", RemoteService: "Oracle Cloud Infrastructure", Site: Site{City: "Frankfurt", Continent: "EUROPE", Address: "Kruppstrasse 121-127, 60388 Frankfurt am Main",
		FacilityProvider: "Equinix", FacilityProviderFacilityID: "FR5", PeeringDBFacilityID: "4"},
		Lacp: "LACP_SUPPORTED", MaxLagSize10Gbps: 8, MaxLagSize100Gbps: 8,
		Constraints:                        unconstrained,
		AttachmentConfigurationConstraints: RemoteAttachmentConstraints{BgpMd5: "MD5_UNSUPPORTED", BgpPeerAsnRanges: []Range{{31898, 31898}}},
		PermittedConnections:               []string{"fra-zone1-4", "fra-zone2-4"}},
	{Name: "alibaba-fra-1", RemoteService: "Alibaba Cloud", Site: Site{City: "Frankfurt", Continent: "EUROPE", Address: "Weismuellerstrasse 19, 60314 Frankfurt am Main",
		FacilityProvider: "Interxion", FacilityProviderFacilityID: "FRA3", PeeringDBFacilityID: "57"},
		Lacp: "LACP_SUPPORTED", MaxLagSize10Gbps: 4, MaxLagSize100Gbps: 2,
		Constraints:                        unconstrained,
		AttachmentConfigurationConstraints: RemoteAttachmentConstraints{BgpMd5: "MD5_OPTIONAL", BgpPeerAsnRanges: []Range{{45104, 45104}}},
		PermittedConnections:               []string{"fra-zone2-4"}},
	{Name: "azure-sjc-1", RemoteService: "Microsoft Azure", Site: Site{City: "San Jose", Continent: "NORTH_AMERICA", Address: "11 Great Oaks Boulevard, San Jose, CA 95119",
		FacilityProvider: "Equinix", FacilityProviderFacilityID: "SV1", PeeringDBFacilityID: "6"},
		Status: "CLOSED", Lacp: "LACP_UNSUPPORTED", MaxLagSize10Gbps: 1, MaxLagSize100Gbps: 1,
		Constraints:                        azurePairs,
		AttachmentConfigurationConstraints: RemoteAttachmentConstraints{BgpMd5: "MD5_OPTIONAL", BgpPeerAsnRanges: []Range{{12076, 12076}}},
		PermittedConnections:               []string{"sjc-zone1-6", "sjc-zone2-6"}},
}

var (
	// unconstrained are the constraints of a cloud that puts none on port pairs and takes
	// both subnet lengths Interconnect offers.
	unconstrained = RemoteLocationConstraints{PortPairRemoteLocation: "PORT_PAIR_UNCONSTRAINED_REMOTE_LOCATION", PortPairVlan: "PORT_PAIR_UNCONSTRAINED_VLAN", SubnetLengthRange: Range{29, 30}}
	// azurePairs are Azure's: ports allocated in pairs with matching VLANs, /30 subnets.
	azurePairs = RemoteLocationConstraints{PortPairRemoteLocation: "PORT_PAIR_MATCHING_REMOTE_LOCATION", PortPairVlan: "PORT_PAIR_MATCHING_VLAN", SubnetLengthRange: Range{30, 30}}
)

func remoteLocationPath(project, name string) string {
	return globalScope(project) + "/interconnectRemoteLocations/" + name
}

// InterconnectRemoteLocationsGet reads a remote location of the catalog.
func (s *Server) InterconnectRemoteLocationsGet(ctx context.Context, req gen.InterconnectRemoteLocationsGetRequestObject) (gen.InterconnectRemoteLocationsGetResponseObject, error) {
	r, err := s.remoteLocations.get(req.InterconnectRemoteLocation, remoteLocationPath(req.Project, req.InterconnectRemoteLocation))
	if err != nil {
		return nil, err
	}
	return gen.InterconnectRemoteLocationsGet200JSONResponse(s.renderRemoteLocation(ctx, req.Project, r)), nil
}

// InterconnectRemoteLocationsList lists the catalog of remote locations.
func (s *Server) InterconnectRemoteLocationsList(ctx context.Context, req gen.InterconnectRemoteLocationsListRequestObject) (gen.InterconnectRemoteLocationsListResponseObject, error) {
	p := req.Params
	path := globalScope(req.Project) + "/interconnectRemoteLocations"
	out := gen.InterconnectRemoteLocationList{Kind: gen.InterconnectRemoteLocationListKindComputeInterconnectRemoteLocationList, Id: path, SelfLink: s.link(ctx, path)}
	var err error
	out.Items, out.NextPageToken, err = catalogPage(s.remoteLocations, p.Filter, p.PageToken, p.OrderBy, p.MaxResults, func(r RemoteLocation) gen.InterconnectRemoteLocation {
		return s.renderRemoteLocation(ctx, req.Project, r)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectRemoteLocationsList200JSONResponse(out), nil
}

// renderRemoteLocation is a remote location as the API shows it, with the defaults of the
// members it leaves out.
func (s *Server) renderRemoteLocation(ctx context.Context, project string, r RemoteLocation) gen.InterconnectRemoteLocation {
	kind, created, self, id := "compute#interconnectRemoteLocation", timestamp(s.remoteLocations.created), s.link(ctx, remoteLocationPath(project, r.Name)), stableID(r.Name)
	desc := cmp.Or(r.Description, fmt.Sprintf("%s, %s (%s), %s", r.RemoteService, r.FacilityProvider, r.FacilityProviderFacilityID, r.City))
	c, a := r.Constraints, r.AttachmentConfigurationConstraints
	subnets := cmp.Or(c.SubnetLengthRange, Range{29, 30})
	out := gen.InterconnectRemoteLocation{
		Kind: &kind, Id: &id, Name: &r.Name, Description: &desc, SelfLink: &self, CreationTimestamp: &created,
		RemoteService: optional(r.RemoteService), Address: optional(r.Address), City: optional(r.City),
		Continent:        (*gen.InterconnectRemoteLocationContinent)(optional(r.Continent)),
		FacilityProvider: optional(r.FacilityProvider), FacilityProviderFacilityId: optional(r.FacilityProviderFacilityID),
		PeeringdbFacilityId: optional(r.PeeringDBFacilityID),
		Status:              ptr(gen.InterconnectRemoteLocationStatus(cmp.Or(r.Status, "AVAILABLE"))),
		Lacp:                ptr(gen.InterconnectRemoteLocationLacp(cmp.Or(r.Lacp, "LACP_SUPPORTED"))),
		Constraints: &gen.InterconnectRemoteLocationConstraints{
			PortPairRemoteLocation: ptr(gen.InterconnectRemoteLocationConstraintsPortPairRemoteLocation(cmp.Or(c.PortPairRemoteLocation, "PORT_PAIR_UNCONSTRAINED_REMOTE_LOCATION"))),
			PortPairVlan:           ptr(gen.InterconnectRemoteLocationConstraintsPortPairVlan(cmp.Or(c.PortPairVlan, "PORT_PAIR_UNCONSTRAINED_VLAN"))),
			SubnetLengthRange:      &gen.InterconnectRemoteLocationConstraintsSubnetLengthRange{Min: ptr(int32(subnets.Min)), Max: ptr(int32(subnets.Max))},
		},
		AttachmentConfigurationConstraints: &gen.InterconnectAttachmentConfigurationConstraints{
			BgpMd5: ptr(gen.InterconnectAttachmentConfigurationConstraintsBgpMd5(cmp.Or(a.BgpMd5, "MD5_OPTIONAL"))),
		},
	}
	for _, m := range []struct {
		member **int32
		size   int32
	}{{&out.MaxLagSize10Gbps, r.MaxLagSize10Gbps}, {&out.MaxLagSize100Gbps, r.MaxLagSize100Gbps}, {&out.MaxLagSize400Gbps, r.MaxLagSize400Gbps}} {
		if m.size > 0 {
			*m.member = ptr(m.size)
		}
	}
	for _, asn := range a.BgpPeerAsnRanges {
		out.AttachmentConfigurationConstraints.BgpPeerAsnRanges = append(out.AttachmentConfigurationConstraints.BgpPeerAsnRanges,
			gen.InterconnectAttachmentConfigurationConstraintsBgpPeerASNRange{Min: ptr(asn.Min), Max: ptr(asn.Max)})
	}
	for _, l := range r.PermittedConnections {
		out.PermittedConnections = append(out.PermittedConnections, gen.InterconnectRemoteLocationPermittedConnections{InterconnectLocation: ptr(s.link(ctx, locationPath(project, l)))})
	}
	return out
}

// remoteLocationOf checks the remoteLocation of an interconnect to insert at location (a
// Cross-Cloud Interconnect's, given by URL or by name): a remote location of the catalog,
// open to new interconnects, that permits connections from location and takes the links
// asked for. It returns the remote location's path, nil for an interconnect without one.
// The real service's words for these refusals are not published: the messages are ours.
func (s *Server) remoteLocationOf(project string, b gen.Interconnect, location string) (*string, error) {
	sent := deref(b.RemoteLocation)
	if sent == "" {
		return nil, nil
	}
	invalid := func(reason string) error {
		return invalidField("resource.remoteLocation", fmt.Sprintf("Invalid value for field 'resource.remoteLocation': '%s'. %s", sent, reason))
	}
	ref, ok := refOrName(sent, "interconnectRemoteLocations", project)
	if !ok {
		return nil, invalid("The URL is malformed.")
	}
	r, known := s.remoteLocations.byName[ref.Name]
	switch {
	case !known:
		return nil, invalid("Unknown interconnect remote location.")
	case r.Status == "CLOSED":
		return nil, invalid("The remote location is closed for provisioning new Cross-Cloud Interconnects.")
	case !slices.Contains(r.PermittedConnections, location):
		return nil, invalidField("resource.location", fmt.Sprintf("Invalid value for field 'resource.location': '%s'. Remote location '%s' does not permit connections from interconnect location '%s'.", b.Location, r.Name, location))
	}
	if err := r.checkLinks(b.LinkType, b.RequestedLinkCount); err != nil {
		return nil, err
	}
	return ptr(remoteLocationPath(project, r.Name)), nil
}

// checkLinks refuses a bundle of more links of linkType than the remote location takes:
// its maxLagSize of that speed (none, where it gives none), and one without LACP.
func (r RemoteLocation) checkLinks(linkType gen.InterconnectLinkType, links int32) error {
	limit, why := r.MaxLagSize10Gbps, "maxLagSize10Gbps"
	switch linkType {
	case gen.InterconnectLinkTypeLINKTYPEETHERNET100GLR:
		limit, why = r.MaxLagSize100Gbps, "maxLagSize100Gbps"
	case gen.InterconnectLinkTypeLINKTYPEETHERNET400GLR4:
		limit, why = r.MaxLagSize400Gbps, "maxLagSize400Gbps"
	}
	if r.Lacp == "LACP_UNSUPPORTED" && limit > 1 {
		limit, why = 1, "without LACP"
	}
	if links <= limit {
		return nil
	}
	return invalidField("resource.requestedLinkCount", fmt.Sprintf("Invalid value for field 'resource.requestedLinkCount': '%d'. Remote location '%s' takes at most %d %s links in a bundle (%s).", links, r.Name, limit, linkType, why))
}
