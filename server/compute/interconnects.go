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

// catalogCreated is when the built-in catalog "was created": fixed, so outputs are stable.
var catalogCreated = time.Date(2017, 6, 1, 0, 0, 0, 0, time.UTC)

// InterconnectLocationsGet reads a location of the catalog.
func (s *Server) InterconnectLocationsGet(ctx context.Context, req gen.InterconnectLocationsGetRequestObject) (gen.InterconnectLocationsGetResponseObject, error) {
	l, ok := s.locations.byName[req.InterconnectLocation]
	if !ok {
		return nil, notFound(locationPath(req.Project, req.InterconnectLocation))
	}
	return gen.InterconnectLocationsGet200JSONResponse(s.renderLocation(ctx, req.Project, l)), nil
}

// InterconnectLocationsList lists the catalog.
func (s *Server) InterconnectLocationsList(ctx context.Context, req gen.InterconnectLocationsListRequestObject) (gen.InterconnectLocationsListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.InterconnectLocation](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	items := make([]listItem, len(s.locations.names))
	for i, n := range s.locations.names {
		items[i] = listItem{name: n, created: catalogCreated, seq: uint64(i)}
	}
	path := globalScope(req.Project) + "/interconnectLocations"
	out := gen.InterconnectLocationList{Kind: gen.InterconnectLocationListKindComputeInterconnectLocationList, Id: path, SelfLink: s.link(ctx, path)}
	var next string
	out.Items, next, err = page(items, q, func(i int) gen.InterconnectLocation {
		return s.renderLocation(ctx, req.Project, s.locations.byName[s.locations.names[i]])
	})
	if err != nil {
		return nil, err
	}
	if next != "" {
		out.NextPageToken = &next
	}
	return gen.InterconnectLocationsList200JSONResponse(out), nil
}

func (s *Server) renderLocation(ctx context.Context, project string, l Location) gen.InterconnectLocation {
	kind, created, self, id := "compute#interconnectLocation", timestamp(catalogCreated), s.link(ctx, locationPath(project, l.Name)), stableID(l.Name)
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
// networks (no L2 forwarding: only DEDICATED attachments are modelled), and every link type.
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
	ic, err := s.interconnectFromRequest(req.Project, *req.Body)
	if err != nil {
		return nil, err
	}
	ic.ID, ic.Created, ic.Pending = s.newID(), s.cfg.Now(), !s.ops.FinishesAtAccept()
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		if _, taken := s.tables.Interconnects.Get(tx, ic.Key()); taken {
			return operations.Start{}, alreadyExists(interconnectPath(req.Project, ic.Name))
		}
		if err := s.tables.Interconnects.Put(tx, ic.Key(), ic); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{Kind: kindInterconnectInsert, OperationType: "insert", Target: ic.Key(),
			TargetID: ic.ID, Settled: !ic.Pending}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// interconnectFromRequest checks an insert body and builds the interconnect it asks for
// (without id or creation time): the rules inserts and the seed share.
func (s *Server) interconnectFromRequest(project string, b gen.Interconnect) (Interconnect, error) {
	if err := checkName(b.Name); err != nil {
		return Interconnect{}, err
	}
	// The schema requires none of these, as patch sends part of an interconnect; an insert
	// needs them all.
	for _, f := range []struct {
		name    string
		missing bool
	}{{"location", b.Location == ""}, {"linkType", b.LinkType == ""}, {"requestedLinkCount", b.RequestedLinkCount == 0}, {"interconnectType", b.InterconnectType == ""}} {
		if f.missing {
			return Interconnect{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'resource." + f.name + "' not specified", Location: "resource." + f.name}
		}
	}
	loc, ok := parseRef(b.Location, "interconnectLocations", project)
	if !ok {
		return Interconnect{}, invalidField("resource.location", fmt.Sprintf("Invalid value for field 'resource.location': '%s'. The URL is malformed.", b.Location))
	}
	if _, known := s.locations.byName[loc.Name]; !known {
		e := notFound(locationPath(project, loc.Name))
		e.Location = "resource.location"
		return Interconnect{}, e
	}
	labels := map[string]string(deref(b.Labels))
	if err := validateLabels(labels); err != nil {
		return Interconnect{}, err
	}
	var features []string
	for _, f := range b.RequestedFeatures {
		if !slices.Contains(locationFeatures, string(f)) {
			return Interconnect{}, invalidField("resource.requestedFeatures", fmt.Sprintf("Invalid value for field 'resource.requestedFeatures': '%s'. The feature is not available at location '%s'.", f, loc.Name))
		}
		if !slices.Contains(features, string(f)) {
			features = append(features, string(f))
		}
	}
	if deref(b.MacsecEnabled) && b.Macsec == nil {
		return Interconnect{}, invalidField("resource.macsecEnabled", "Invalid value for field 'resource.macsecEnabled': 'true'. MACsec cannot be enabled without a macsec configuration.")
	}
	return Interconnect{
		Project: project, Name: b.Name, Description: deref(b.Description), Location: loc.Name,
		LinkType: string(b.LinkType), RequestedLinkCount: int(b.RequestedLinkCount), InterconnectType: string(b.InterconnectType),
		CustomerName: deref(b.CustomerName), NocContactEmail: deref(b.NocContactEmail), AdminEnabled: b.AdminEnabled == nil || *b.AdminEnabled,
		Labels: labels, RequestedFeatures: features, RemoteLocation: deref(b.RemoteLocation), Subzone: string(deref(b.Subzone)),
		MacsecEnabled: deref(b.MacsecEnabled), AAIEnabled: deref(b.AaiEnabled),
		Macsec: keepJSON(b.Macsec), ApplicationAwareInterconnect: keepJSON(b.ApplicationAwareInterconnect),
	}, nil
}

// InterconnectsGet reads an interconnect by name or id.
func (s *Server) InterconnectsGet(ctx context.Context, req gen.InterconnectsGetRequestObject) (gen.InterconnectsGetResponseObject, error) {
	var out gen.Interconnect
	err := s.db.View(func(tx *store.Tx) error {
		ic, err := s.readableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return err
		}
		out = s.renderInterconnect(ctx, tx, ic)
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
	out := gen.InterconnectList{Kind: gen.InterconnectListKindComputeInterconnectList, Id: path, SelfLink: s.link(ctx, path)}
	if err := s.db.View(func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.InterconnectsByName, req.Project+"|", q, func(r Interconnect) gen.Interconnect { return s.renderInterconnect(ctx, tx, r) })
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
		ic, err := s.readableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		if err := beginDelete(s, tx, s.tables.Interconnects, ic, interconnectPath(ic.Project, ic.Name), interconnectDeleting); err != nil {
			return operations.Start{}, err
		}
		if users := s.attachmentsOn(tx, ic); len(users) > 0 {
			a := users[0]
			return operations.Start{}, inUse(interconnectPath(ic.Project, ic.Name), attachmentPath(a.Project, a.Region, a.Name))
		}
		return operations.Start{Kind: kindInterconnectDelete, OperationType: "delete", Target: ic.Key(),
			TargetID: ic.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

func (s *Server) readableInterconnect(tx *store.Tx, project, nameOrID string) (Interconnect, error) {
	ic, ok := s.tables.Interconnects.Get(tx, project+"|"+nameOrID)
	if !ok {
		_, ic, ok = s.tables.InterconnectID.Get(tx, project+"|"+nameOrID)
	}
	if !ok || ic.Pending {
		return ic, notFound(interconnectPath(project, nameOrID))
	}
	return ic, nil
}

// attachmentsOn lists the attachments (accepted ones included) on an interconnect.
func (s *Server) attachmentsOn(tx *store.Tx, ic Interconnect) []InterconnectAttachment {
	var out []InterconnectAttachment
	key := ic.Project + "|" + ic.Name
	s.tables.AttachmentsByInterconnect.Scan(tx, key, key+"\x01", nil, func(_ store.Cursor, a InterconnectAttachment) bool {
		out = append(out, a)
		return true
	})
	return out
}

func (s *Server) finishInterconnectInsert(tx *store.Tx, op operations.Operation) error {
	return finishInsert(tx, s.tables.Interconnects, op.Target, "interconnect", interconnectPending)
}

func (s *Server) finishInterconnectDelete(tx *store.Tx, op operations.Operation) error {
	_, _, err := s.tables.Interconnects.Delete(tx, op.Target)
	return err
}

// renderInterconnect is the wire form of an interconnect. What the real service learns
// from the physical world (circuits, link addresses, reference ids) is made up, stable for
// the interconnect (docs/compute.md lists it); outages and cross-site wire groups never
// happen here, so those lists are absent.
func (s *Server) renderInterconnect(ctx context.Context, tx *store.Tx, ic Interconnect) gen.Interconnect {
	kind, created, self := "compute#interconnect", timestamp(ic.Created), s.link(ctx, interconnectPath(ic.Project, ic.Name))
	opStatus, state, links := gen.InterconnectOperationalStatus("OS_ACTIVE"), gen.InterconnectState("ACTIVE"), int32(ic.RequestedLinkCount)
	admin := ic.AdminEnabled
	labels := gen.Labels(ic.Labels)
	if labels == nil {
		labels = gen.Labels{}
	}
	location := s.link(ctx, locationPath(ic.Project, ic.Location))
	out := gen.Interconnect{
		Kind: &kind, Id: &ic.ID, Name: ic.Name, Description: optional(ic.Description), SelfLink: &self, CreationTimestamp: &created,
		SelfLinkWithId: ptr(s.link(ctx, interconnectPath(ic.Project, ic.ID))),
		Location:       location, EffectiveLocation: &location, LinkType: gen.InterconnectLinkType(ic.LinkType),
		RequestedLinkCount: int32(ic.RequestedLinkCount), InterconnectType: gen.InterconnectInterconnectType(ic.InterconnectType),
		CustomerName: optional(ic.CustomerName), NocContactEmail: optional(ic.NocContactEmail), AdminEnabled: &admin,
		OperationalStatus: &opStatus, State: &state, ProvisionedLinkCount: &links,
		Labels: &labels, LabelFingerprint: labelFingerprint(ic.Labels, ic.LabelGeneration),
		RemoteLocation: optional(ic.RemoteLocation), SatisfiesPzs: ptr(false),
		GoogleReferenceId:            ptr(stableID("interconnect-reference|" + ic.ID)),
		Macsec:                       fromJSON[*gen.InterconnectMacsec](ic.Macsec),
		ApplicationAwareInterconnect: fromJSON[*gen.InterconnectApplicationAwareInterconnect](ic.ApplicationAwareInterconnect),
	}
	if ic.Subzone != "" {
		out.Subzone = ptr(gen.InterconnectSubzone(ic.Subzone))
	}
	if ic.MacsecEnabled {
		out.MacsecEnabled = &ic.MacsecEnabled
	}
	if ic.AAIEnabled {
		out.AaiEnabled = &ic.AAIEnabled
	}
	for _, f := range ic.RequestedFeatures {
		// The ports are provisioned with what was asked for: requested features are available.
		out.RequestedFeatures = append(out.RequestedFeatures, gen.InterconnectRequestedFeatures(f))
		out.AvailableFeatures = append(out.AvailableFeatures, gen.InterconnectAvailableFeatures(f))
	}
	// The link addresses for ping tests: a link-local /30 of the interconnect's own.
	sum := sha256.Sum256([]byte("interconnect-link|" + ic.ID))
	n := binary.BigEndian.Uint16(sum[:2])
	out.GoogleIpAddress = ptr(fmt.Sprintf("169.254.%d.%d", n>>6&0xff, (n&0x3f)<<2|1))
	out.PeerIpAddress = ptr(fmt.Sprintf("169.254.%d.%d", n>>6&0xff, (n&0x3f)<<2|2))
	out.CircuitInfos = s.circuitInfos(ic)
	for _, a := range s.attachmentsOn(tx, ic) {
		if !a.Pending {
			out.InterconnectAttachments = append(out.InterconnectAttachments, s.link(ctx, attachmentPath(a.Project, a.Region, a.Name)))
		}
	}
	return out
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

// circuitInfos are the interconnect's circuits, one per link, with ids made up and stable
// for it; getDiagnostics reports its links under the same ids.
func (s *Server) circuitInfos(ic Interconnect) []gen.InterconnectCircuitInfo {
	facility := ic.Location
	if l, ok := s.locations.byName[ic.Location]; ok {
		facility = l.FacilityProviderFacilityID
	}
	var out []gen.InterconnectCircuitInfo
	for i := range ic.RequestedLinkCount {
		circuit := stableID(fmt.Sprintf("interconnect-circuit|%s|%d", ic.ID, i))
		out = append(out, gen.InterconnectCircuitInfo{
			GoogleCircuitId: ptr("GCP-" + circuit[len(circuit)-8:]),
			GoogleDemarcId:  ptr(fmt.Sprintf("%s-%s-%02d", strings.ToUpper(facility), circuit[:6], i+1)),
		})
	}
	return out
}
