package compute

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

const (
	kindInterconnectInsert = "interconnects.insert"
	kindInterconnectDelete = "interconnects.delete"
)

func locationPath(project, name string) string {
	return globalScope(project) + "/interconnectLocations/" + name
}
func interconnectPath(project, name string) string {
	return globalScope(project) + "/interconnects/" + name
}

// InterconnectLocationsGet reads a location of the catalog.
func (s *Server) InterconnectLocationsGet(ctx context.Context, req gen.InterconnectLocationsGetRequestObject) (gen.InterconnectLocationsGetResponseObject, error) {
	l, err := s.locations.get(req.InterconnectLocation, locationPath(req.Project, req.InterconnectLocation))
	if err != nil {
		return nil, err
	}
	return gen.InterconnectLocationsGet200JSONResponse(s.renderLocation(ctx, req.Project, l)), nil
}

// InterconnectLocationsList lists the catalog.
func (s *Server) InterconnectLocationsList(ctx context.Context, req gen.InterconnectLocationsListRequestObject) (gen.InterconnectLocationsListResponseObject, error) {
	p := req.Params
	path := globalScope(req.Project) + "/interconnectLocations"
	out := gen.InterconnectLocationList{Kind: gen.InterconnectLocationListKindComputeInterconnectLocationList, Id: path, SelfLink: s.link(ctx, path)}
	var err error
	out.Items, out.NextPageToken, err = catalogPage(s.locations.catalog, p.Filter, p.PageToken, p.OrderBy, p.MaxResults, func(l Location) gen.InterconnectLocation {
		return s.renderLocation(ctx, req.Project, l)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectLocationsList200JSONResponse(out), nil
}

func (s *Server) renderLocation(ctx context.Context, project string, l Location) gen.InterconnectLocation {
	kind, created, self, id := "compute#interconnectLocation", timestamp(s.locations.created), s.link(ctx, locationPath(project, l.Name)), stableID(l.Name)
	zone, status, continent := l.Zone, gen.InterconnectLocationStatus("AVAILABLE"), gen.InterconnectLocationContinent(l.Continent)
	desc := l.Description
	if desc == "" {
		desc = fmt.Sprintf("%s (%s), %s", l.FacilityProvider, l.FacilityProviderFacilityID, l.City)
	}
	out := gen.InterconnectLocation{
		Kind: &kind, Id: &id, Name: &l.Name, Description: &desc, SelfLink: &self, CreationTimestamp: &created,
		Address: optional(l.Address), AvailabilityZone: &zone, City: optional(l.City), Continent: &continent,
		FacilityProvider: optional(l.FacilityProvider), FacilityProviderFacilityId: optional(l.FacilityProviderFacilityID),
		PeeringdbFacilityId: optional(l.PeeringDBFacilityID), Status: &status, SupportsPzs: ptr(false),
	}
	for _, f := range locationFeatures {
		out.AvailableFeatures = append(out.AvailableFeatures, gen.InterconnectLocationAvailableFeatures(f))
	}
	for _, t := range locationLinkTypes {
		out.AvailableLinkTypes = append(out.AvailableLinkTypes, gen.InterconnectLocationAvailableLinkTypes(t))
	}
	// Single-region 99.99%: the locations of the same metro in the other edge availability
	// domain pair up with this one.
	for _, name := range s.locations.names {
		if peer := s.locations.byName[name]; peer.Metro == l.Metro && peer.Zone != l.Zone {
			out.SingleRegionProductionCriticalPeerLocations = append(out.SingleRegionProductionCriticalPeerLocations, s.link(ctx, locationPath(project, name)))
		}
	}
	presence := gen.InterconnectLocationRegionInfoLocationPresence("LOCAL_REGION")
	for _, r := range l.Regions {
		rtt, region := "2", s.link(ctx, "projects/"+project+"/regions/"+r)
		out.RegionInfos = append(out.RegionInfos, gen.InterconnectLocationRegionInfo{Region: &region, ExpectedRttMs: &rtt, LocationPresence: &presence,
			L2ForwardingEnabled: ptr(false)})
	}
	return out
}

// What every location of the catalog offers: MACsec-capable ports and cross-site
// networks (no L2 forwarding: L2_DEDICATED attachments are not modelled), and every link type.
var (
	locationFeatures  = []string{"IF_CROSS_SITE_NETWORK", "IF_MACSEC"}
	locationLinkTypes = []string{"LINK_TYPE_ETHERNET_100G_LR", "LINK_TYPE_ETHERNET_10G_LR", "LINK_TYPE_ETHERNET_400G_LR4"}
)

// stableID is a uint64 id derived from a name, for catalog entries.
func stableID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return strconv.FormatUint(binary.BigEndian.Uint64(sum[:8])>>1|1, 10)
}

// InterconnectsInsert reserves the name at accept; the interconnect is readable (and
// ACTIVE) once its operation is DONE.
func (s *Server) InterconnectsInsert(ctx context.Context, req gen.InterconnectsInsertRequestObject) (gen.InterconnectsInsertResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	ic, err := s.newInterconnect(req.Project, *req.Body, s.newID(), s.cfg.Now())
	if err != nil {
		return nil, err
	}
	pending := !s.ops.FinishesAtAccept()
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		if err := s.putNewInterconnect(tx, ic, s.born(tx, pending)); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "insert", TargetLink: *ic.SelfLink, TargetID: *ic.Id, Settled: !pending}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// putNewInterconnect stores a new interconnect if its name is free. Interconnect groups
// that held an interconnect of that name, deleted since, hold this one.
func (s *Server) putNewInterconnect(tx *store.Tx, ic gen.Interconnect, l Lifecycle) error {
	path := *ic.SelfLink
	if _, taken := s.tables.interconnects.Get(tx, path); taken {
		return alreadyExists(path)
	}
	for _, g := range s.interconnectGroupsOf(tx, path) {
		ic.InterconnectGroups = append(ic.InterconnectGroups, *g.Group.SelfLink)
	}
	return s.tables.interconnects.Put(tx, path, InterconnectRecord{Interconnect: ic, Lifecycle: l})
}

// newInterconnect checks an insert body and makes the interconnect it asks for in
// project, with the id and creation time given: the body is the interconnect, every member
// it gives kept, and the members the server sets filled in; members a client sends back
// from a read are ignored. Inserts, createMembers and the seed share it.
func (s *Server) newInterconnect(project string, b gen.Interconnect, id string, created time.Time) (gen.Interconnect, error) {
	if err := checkName(b.Name); err != nil {
		return b, err
	}
	// The schema requires none of these, as patch sends part of an interconnect; an insert
	// needs them all.
	for _, f := range []struct {
		name    string
		missing bool
	}{{"location", b.Location == ""}, {"linkType", b.LinkType == ""}, {"requestedLinkCount", b.RequestedLinkCount == 0}, {"interconnectType", b.InterconnectType == ""}} {
		if f.missing {
			return b, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'resource." + f.name + "' not specified", Location: "resource." + f.name}
		}
	}
	loc, ok := parseRef(b.Location, "interconnectLocations", project)
	if !ok {
		return b, invalidField("resource.location", fmt.Sprintf("Invalid value for field 'resource.location': '%s'. The URL is malformed.", b.Location))
	}
	if _, known := s.locations.byName[loc.Name]; !known {
		e := notFound(locationPath(project, loc.Name))
		e.Location = "resource.location"
		return b, e
	}
	remote, err := s.remoteLocationOf(project, b, loc.Name)
	if err != nil {
		return b, err
	}
	labels := labelsOf(b.Labels)
	if err := validateLabels(labels); err != nil {
		return b, err
	}
	var features []gen.InterconnectRequestedFeatures
	for _, f := range b.RequestedFeatures {
		if !slices.Contains(locationFeatures, string(f)) {
			return b, invalidField("resource.requestedFeatures", fmt.Sprintf("Invalid value for field 'resource.requestedFeatures': '%s'. The feature is not available at location '%s'.", f, loc.Name))
		}
		if !slices.Contains(features, f) {
			features = append(features, f)
		}
	}
	if deref(b.MacsecEnabled) && b.Macsec == nil {
		return b, invalidField("resource.macsecEnabled", "Invalid value for field 'resource.macsecEnabled': 'true'. MACsec cannot be enabled without a macsec configuration.")
	}
	ic := b
	// Output members that are derived (fillInterconnect), or absent here (outages, wire
	// groups); params are input only, not kept.
	ic.InterconnectAttachments, ic.InterconnectGroups, ic.ExpectedOutages, ic.WireGroups, ic.Params = nil, nil, nil, nil, nil
	ic.Id, ic.CreationTimestamp = &id, ptr(timestamp(created))
	ic.Location, ic.RemoteLocation, ic.RequestedFeatures, ic.Labels = locationPath(project, loc.Name), remote, features, (*gen.Labels)(&labels)
	ic.AdminEnabled = orDefault(ic.AdminEnabled, true)
	unsetEmpty(&ic.Description, &ic.CustomerName, &ic.NocContactEmail)
	for _, m := range []**bool{&ic.MacsecEnabled, &ic.AaiEnabled} {
		if !deref(*m) {
			*m = nil
		}
	}
	if deref(ic.Subzone) == "" {
		ic.Subzone = nil
	}
	ic.LabelFingerprint = labelFingerprint(labels, 0)
	s.fillInterconnect(project, &ic)
	return ic, nil
}

// fillInterconnect sets what an interconnect's other members, its project and its
// location decide: its links, and what the real service learns from the physical world
// (circuits, link addresses, reference ids), made up and stable for the interconnect
// (docs/compute.md lists them). The ports are provisioned with what was asked for:
// requested features are available, the links requested are there, and it is ACTIVE.
func (s *Server) fillInterconnect(project string, ic *gen.Interconnect) {
	id := *ic.Id
	ic.Kind = ptr("compute#interconnect")
	ic.SelfLink, ic.SelfLinkWithId = ptr(interconnectPath(project, ic.Name)), ptr(interconnectPath(project, id))
	ic.EffectiveLocation = &ic.Location
	ic.OperationalStatus, ic.State = ptr(gen.InterconnectOperationalStatus("OS_ACTIVE")), ptr(gen.InterconnectState("ACTIVE"))
	ic.ProvisionedLinkCount, ic.SatisfiesPzs = ptr(ic.RequestedLinkCount), ptr(false)
	ic.GoogleReferenceId = ptr(stableID("interconnect-reference|" + id))
	ic.AvailableFeatures = nil
	for _, f := range ic.RequestedFeatures {
		ic.AvailableFeatures = append(ic.AvailableFeatures, gen.InterconnectAvailableFeatures(f))
	}
	// The link addresses for ping tests: a link-local /30 of the interconnect's own.
	sum := sha256.Sum256([]byte("interconnect-link|" + id))
	n := binary.BigEndian.Uint16(sum[:2])
	ic.GoogleIpAddress = ptr(fmt.Sprintf("169.254.%d.%d", n>>6&0xff, (n&0x3f)<<2|1))
	ic.PeerIpAddress = ptr(fmt.Sprintf("169.254.%d.%d", n>>6&0xff, (n&0x3f)<<2|2))
	ic.CircuitInfos = s.circuitInfos(id, nameOf(ic.Location), int(ic.RequestedLinkCount))
}

// InterconnectsGet reads an interconnect by name or id.
func (s *Server) InterconnectsGet(ctx context.Context, req gen.InterconnectsGetRequestObject) (gen.InterconnectsGetResponseObject, error) {
	var out gen.Interconnect
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rec, err := s.readableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return err
		}
		out = s.renderInterconnect(s.links(ctx), tx, rec.Interconnect)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsGet200JSONResponse(out), nil
}

// InterconnectsList lists a project's interconnects.
func (s *Server) InterconnectsList(ctx context.Context, req gen.InterconnectsListRequestObject) (gen.InterconnectsListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.Interconnect](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := globalScope(req.Project) + "/interconnects"
	l := s.links(ctx)
	out := gen.InterconnectList{Kind: gen.InterconnectListKindComputeInterconnectList, Id: path, SelfLink: l.url(path)}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.interconnects, path+"/", q, func(r InterconnectRecord) gen.Interconnect {
			return s.renderInterconnect(l, tx, r.Interconnect)
		})
		return err
	}); err != nil {
		return nil, err
	}
	return gen.InterconnectsList200JSONResponse(out), nil
}

// InterconnectsDelete accepts a delete unless attachments use the interconnect.
func (s *Server) InterconnectsDelete(ctx context.Context, req gen.InterconnectsDeleteRequestObject) (gen.InterconnectsDeleteResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.readableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		path := *rec.Interconnect.SelfLink
		if err := beginDelete(s, tx, s.tables.interconnects, path, rec); err != nil {
			return operations.Start{}, err
		}
		if users := s.attachmentsOn(tx, path); len(users) > 0 {
			return operations.Start{}, inUse(path, *users[0].Attachment.SelfLink)
		}
		return operations.Start{OperationType: "delete", TargetLink: path, TargetID: *rec.Interconnect.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

// readableInterconnect and changeableInterconnect find an interconnect by name or id (see
// readable).
func (s *Server) readableInterconnect(tx *store.Tx, project, nameOrID string) (InterconnectRecord, error) {
	return readable(tx, s.tables.interconnects, s.tables.interconnectByID, interconnectPath(project, nameOrID))
}

func (s *Server) changeableInterconnect(tx *store.Tx, project, nameOrID string) (InterconnectRecord, error) {
	return changeable(tx, s.tables.interconnects, s.tables.interconnectByID, interconnectPath(project, nameOrID))
}

// attachmentsOn lists the attachments (accepted ones included) on the interconnect at path.
func (s *Server) attachmentsOn(tx *store.Tx, path string) []AttachmentRecord {
	var out []AttachmentRecord
	s.tables.attachmentsOn.Scan(tx, path, path+"\x00", nil, func(_ store.Cursor, a AttachmentRecord) bool {
		out = append(out, a)
		return true
	})
	return out
}

func (s *Server) finishInterconnectInsert(tx *store.Tx, op operations.Record) error {
	return finishInsert(tx, s.tables.interconnects, deref(op.Op.TargetLink), "interconnect")
}

func (s *Server) finishInterconnectDelete(tx *store.Tx, op operations.Record) error {
	s.tables.interconnects.Delete(tx, deref(op.Op.TargetLink))
	return nil
}

// renderInterconnect is an interconnect as a read returns it: its links URLs, with the
// attachments it carries. Outages and cross-site wire groups never happen here, so those
// lists are absent.
func (s *Server) renderInterconnect(l links, tx *store.Tx, ic gen.Interconnect) gen.Interconnect {
	path := *ic.SelfLink
	l.set(&ic.SelfLink)
	l.set(&ic.SelfLinkWithId)
	ic.Location = l.url(ic.Location)
	ic.EffectiveLocation = &ic.Location
	l.set(&ic.RemoteLocation)
	ic.InterconnectGroups = l.urls(ic.InterconnectGroups)
	ic.Labels = shownLabels(ic.Labels)
	for _, a := range s.attachmentsOn(tx, path) {
		if !a.Pending {
			ic.InterconnectAttachments = append(ic.InterconnectAttachments, l.url(*a.Attachment.SelfLink))
		}
	}
	return ic
}

// notReady is the real service's answer to a change of, or a reference to, a resource
// whose delete is still running.
func notReady(path string) *Error {
	return &Error{Status: http.StatusBadRequest, Reason: "resourceNotReady", Message: fmt.Sprintf("The resource '%s' is not ready", path)}
}

func inUse(resource, user string) *Error {
	return &Error{Status: http.StatusBadRequest, Reason: "resourceInUseByAnotherResource",
		Message: fmt.Sprintf("The resource '%s' is already being used by '%s'", resource, user)}
}

// circuitInfos are the circuits of the interconnect with the id at location, one per
// link, with ids made up and stable for it; getDiagnostics reports its links under the same
// ids.
func (s *Server) circuitInfos(id, location string, links int) []gen.InterconnectCircuitInfo {
	facility := location
	if l, ok := s.locations.byName[location]; ok {
		facility = l.FacilityProviderFacilityID
	}
	var out []gen.InterconnectCircuitInfo
	for i := range links {
		circuit := stableID(fmt.Sprintf("interconnect-circuit|%s|%d", id, i))
		out = append(out, gen.InterconnectCircuitInfo{
			GoogleCircuitId: ptr("GCP-" + circuit[len(circuit)-8:]),
			GoogleDemarcId:  ptr(fmt.Sprintf("%s-%s-%02d", strings.ToUpper(facility), circuit[:6], i+1)),
		})
	}
	return out
}
