package compute

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

const (
	kindAttachmentInsert = "interconnectAttachments.insert"
	kindAttachmentDelete = "interconnectAttachments.delete"
)

func attachmentPath(project, region, name string) string {
	return regionScope(project, region) + "/interconnectAttachments/" + name
}

// validMTUs are the MTUs the real service offers for dedicated attachments.
var validMTUs = map[int]bool{1440: true, 1460: true, 1500: true, 8896: true}

// InterconnectAttachmentsInsert accepts an attachment: a dedicated one on an existing
// interconnect of the project (its region, metro, facility and zone come from the
// interconnect's location), a customer's PARTNER one, which gets a pairing key and waits for
// its partner, or a partner's PARTNER_PROVIDER one, which provisions the PARTNER attachment
// of the pairing key it names (partner.go).
func (s *Server) InterconnectAttachmentsInsert(ctx context.Context, req gen.InterconnectAttachmentsInsertRequestObject) (gen.InterconnectAttachmentsInsertResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	a, addrs, err := newAttachment(req.Project, req.Region, b, s.newID(), s.cfg.Now())
	if err != nil {
		return nil, err
	}
	place := s.placeAttachment
	switch *a.Type {
	case gen.InterconnectAttachmentTypePARTNER:
		a.PairingKey = ptr(pairingKey(s.newUUID(), a))
	case gen.InterconnectAttachmentTypePARTNERPROVIDER:
		place = s.placeProvider
	}
	pending := !s.ops.FinishesAtAccept()
	run := s.mutate
	if deref(req.Params.ValidateOnly) {
		run = s.validateOnly
	}
	op, err := run(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		rec := AttachmentRecord{Attachment: a, Lifecycle: s.born(tx, pending)}
		if err := place(tx, &rec, b.VlanTag8021q, addrs); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "insert", TargetLink: *a.SelfLink, TargetID: *a.Id, Settled: !pending}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// newAttachment checks an insert body and makes the attachment it asks for in project and
// region, with the id and creation time given, and what it asks of the addresses: the body
// is the attachment, every member it gives kept, and the members the server sets filled in
// (the defaults, its links); members a client sends back from a read are ignored. Its VLAN
// tag, addresses and edge availability domain are placeAttachment's; a PARTNER attachment's
// pairing key is its caller's. Inserts and the seed share it.
func newAttachment(project, region string, b gen.InterconnectAttachment, id string, created time.Time) (gen.InterconnectAttachment, addressRequest, error) {
	if err := checkName(b.Name); err != nil {
		return b, addressRequest{}, err
	}
	typ := orDefault(b.Type, gen.InterconnectAttachmentTypeDEDICATED)
	var err error
	switch *typ {
	case gen.InterconnectAttachmentTypeDEDICATED:
		err = checkDedicatedMembers(b)
	case gen.InterconnectAttachmentTypePARTNER:
		err = checkPartnerMembers(b)
	case gen.InterconnectAttachmentTypePARTNERPROVIDER:
		err = checkProviderMembers(b)
	default:
		err = invalidField("resource.type", fmt.Sprintf("Invalid value for field 'resource.type': '%s'. understudy models DEDICATED, PARTNER and PARTNER_PROVIDER attachments.", *typ))
	}
	if err != nil {
		return b, addressRequest{}, err
	}
	// Every type but PARTNER is on an interconnect of the project (a PARTNER attachment's is
	// its partner's, which its checks refuse).
	var icRef ref
	if *typ != gen.InterconnectAttachmentTypePARTNER {
		if b.Interconnect == nil || *b.Interconnect == "" {
			return b, addressRequest{}, requiredField("resource.interconnect")
		}
		var ok bool
		if icRef, ok = parseRef(*b.Interconnect, "interconnects", project); !ok || icRef.Project != project {
			return b, addressRequest{}, invalidField("resource.interconnect", fmt.Sprintf("Invalid value for field 'resource.interconnect': '%s'. It must name an interconnect of project %s.", *b.Interconnect, project))
		}
	}
	if b.Mtu != nil && !validMTUs[int(*b.Mtu)] {
		return b, addressRequest{}, invalidField("resource.mtu", fmt.Sprintf("Invalid value for field 'resource.mtu': '%d'. Supported values are 1440, 1460, 1500 and 8896.", *b.Mtu))
	}
	labels := labelsOf(b.Labels)
	if err := validateLabels(labels); err != nil {
		return b, addressRequest{}, err
	}
	a := b
	// Output members: derived (fillAttachment, placeAttachment), the group's (claim), the
	// pair's (partner.go), or assigned (assignAddresses); subnetLength and params are input
	// only, not kept.
	a.AttachmentGroup, a.EdgeAvailabilityDomain, a.VlanTag8021q, a.RemoteService, a.SubnetLength, a.Params = nil, nil, nil, nil, nil, nil
	a.CloudRouterIpAddress, a.CustomerRouterIpAddress, a.CloudRouterIpv6Address, a.CustomerRouterIpv6Address = nil, nil, nil, nil
	a.State, a.OperationalStatus = nil, nil
	a.Id, a.CreationTimestamp = &id, ptr(timestamp(created))
	a.Labels, a.Type = (*gen.Labels)(&labels), typ
	if *typ != gen.InterconnectAttachmentTypePARTNER {
		a.Interconnect = ptr(interconnectPath(project, icRef.Name))
	}
	a.Mtu = orDefault(a.Mtu, 1440)
	a.StackType = orDefault(a.StackType, gen.InterconnectAttachmentStackTypeIPV4ONLY)
	switch *typ {
	case gen.InterconnectAttachmentTypeDEDICATED:
		a.AdminEnabled = orDefault(a.AdminEnabled, true)
		a.Bandwidth = orDefault(a.Bandwidth, gen.InterconnectAttachmentBandwidthBPS10G)
		a.Encryption = orDefault(a.Encryption, gen.InterconnectAttachmentEncryptionNONE)
	case gen.InterconnectAttachmentTypePARTNER:
		newPartner(&a, b)
	}
	unsetEmpty(&a.Description, &a.Router, &a.CandidateCloudRouterIpAddress, &a.CandidateCustomerRouterIpAddress, &a.CandidateCloudRouterIpv6Address, &a.CandidateCustomerRouterIpv6Address, &a.CloudRouterIpv6InterfaceId, &a.CustomerRouterIpv6InterfaceId)
	a.LabelFingerprint = labelFingerprint(labels, 0)
	fillAttachment(project, region, &a)
	addrs, err := checkAddressRequest(b, *a.StackType == gen.InterconnectAttachmentStackTypeIPV4IPV6)
	return a, addrs, err
}

// fillAttachment sets what an attachment's other members, its project and its region
// decide: its links, and fixed values where the real service documents no rule
// (docs/compute.md): the current dataplane, no BGP MD5 requirement, no PZS; a dedicated
// attachment is ACTIVE (a partner one's state is its pair's, partner.go) and has its VLAN
// in privateInterconnectInfo, which the real service fills in for dedicated interconnects.
func fillAttachment(project, region string, a *gen.InterconnectAttachment) {
	a.Kind = ptr("compute#interconnectAttachment")
	a.SelfLink, a.Region = ptr(attachmentPath(project, region, a.Name)), ptr(regionScope(project, region))
	a.DataplaneVersion, a.SatisfiesPzs, a.GoogleReferenceId = ptr(int32(2)), ptr(false), ptr(stableID("attachment-reference|"+*a.Id))
	a.ConfigurationConstraints = &gen.InterconnectAttachmentConfigurationConstraints{BgpMd5: ptr(gen.InterconnectAttachmentConfigurationConstraintsBgpMd5MD5OPTIONAL)}
	if *a.Type != gen.InterconnectAttachmentTypeDEDICATED {
		return
	}
	setState(a, gen.InterconnectAttachmentStateACTIVE)
	if a.VlanTag8021q != nil {
		a.PrivateInterconnectInfo = &gen.InterconnectAttachmentPrivateInfo{Tag8021q: ptr(uint32(*a.VlanTag8021q))}
	}
}

// refused is a member an insert of some type of attachment may not give: set when the body
// gives it, value as its error quotes it, and why.
type refused struct {
	member, value string
	set           bool
	why           string
}

// refuse is the error of the first member of ms that is set, if any.
func refuse(ms ...refused) error {
	for _, m := range ms {
		if m.set {
			return invalidField("resource."+m.member, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. %s", m.member, m.value, m.why))
		}
	}
	return nil
}

// otherTypesMembers are the members of types of attachment understudy does not model (an
// L2 attachment's l2Forwarding), and IPsec addresses on an attachment that is not
// encrypted: refused on every type.
func otherTypesMembers(b gen.InterconnectAttachment) []refused {
	return []refused{
		{"l2Forwarding", "", b.L2Forwarding != nil, "l2Forwarding is only for L2_DEDICATED attachments."},
		{"ipsecInternalAddresses", strings.Join(b.IpsecInternalAddresses, ","), len(b.IpsecInternalAddresses) > 0 && deref(b.Encryption) != "IPSEC",
			"IPsec internal addresses are only for attachments with encryption IPSEC."},
	}
}

// checkDedicatedMembers refuses the members the real service documents for other types of
// attachment only: a partner's (pairingKey, partnerAsn, partnerMetadata: "not available for
// DEDICATED") and those otherTypesMembers says.
func checkDedicatedMembers(b gen.InterconnectAttachment) error {
	return refuse(append([]refused{
		{"pairingKey", deref(b.PairingKey), b.PairingKey != nil, "A pairing key is only for PARTNER and PARTNER_PROVIDER attachments."},
		{"partnerAsn", deref(b.PartnerAsn), b.PartnerAsn != nil, "partnerAsn is not available for DEDICATED attachments."},
		{"partnerMetadata", "", b.PartnerMetadata != nil, "partnerMetadata is only for PARTNER_PROVIDER attachments."},
	}, otherTypesMembers(b)...)...)
}

// placeAttachment stores a new attachment inside tx: its name must be free, and one on an
// interconnect (every type but PARTNER, whose partner's interconnect carries it) is placed
// on it (onInterconnect).
func (s *Server) placeAttachment(tx *store.Tx, rec *AttachmentRecord, vlan *int32, addrs addressRequest) error {
	a := &rec.Attachment
	if _, taken := s.tables.attachments.Get(tx, *a.SelfLink); taken {
		e := alreadyExists(*a.SelfLink)
		e.Location = "resource.name"
		return e
	}
	if a.Interconnect != nil {
		if err := s.onInterconnect(tx, a, vlan, addrs); err != nil {
			return err
		}
	}
	return s.tables.attachments.Put(tx, *a.SelfLink, *rec)
}

// onInterconnect places a new attachment on its interconnect: the interconnect must be
// there, serve the attachment's region, and have the VLAN tag free (or the lowest free one
// is taken) and the BGP addresses free (or free ones are picked, see attachmentaddr.go);
// the edge availability domain is its location's zone.
func (s *Server) onInterconnect(tx *store.Tx, a *gen.InterconnectAttachment, vlan *int32, addrs addressRequest) error {
	project, region := projectOf(*a.SelfLink), regionOf(*a.Region)
	icRec, err := s.readableInterconnect(tx, project, nameOf(*a.Interconnect))
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Location = "resource.interconnect"
		}
		return err
	}
	ic := icRec.Interconnect
	if icRec.Deleting {
		e := notReady(*ic.SelfLink)
		e.Location = "resource.interconnect"
		return e
	}
	// An attachment is made in a region its interconnect's location serves (the location's
	// regionInfos); any other region, real or not, would put the metro somewhere it is not
	// and change what the SLA analysis of a group sees.
	l, ok := s.locations.byName[nameOf(ic.Location)]
	if ok && !slices.Contains(l.Regions, region) {
		return invalidField("resource.interconnect", fmt.Sprintf("Invalid value for field 'resource.interconnect': '%s'. The interconnect's location '%s' does not serve region '%s'; it serves %s.",
			*ic.SelfLink, l.Name, region, strings.Join(l.Regions, ", ")))
	}
	if ok {
		domain := gen.InterconnectAttachmentEdgeAvailabilityDomain("AVAILABILITY_DOMAIN_1")
		if l.Zone == "zone2" {
			domain = "AVAILABILITY_DOMAIN_2"
		}
		a.EdgeAvailabilityDomain = &domain
	}
	tag, err := s.vlanTag(tx, ic, vlan)
	if err != nil {
		return err
	}
	a.VlanTag8021q = &tag
	fillAttachment(project, region, a)
	return s.assignAddresses(tx, ic, a, addrs)
}

// vlanTag checks a requested VLAN tag is free on the interconnect, or picks the lowest free one.
func (s *Server) vlanTag(tx *store.Tx, ic gen.Interconnect, want *int32) (int32, error) {
	used := map[int32]bool{}
	for _, a := range s.attachmentsOn(tx, *ic.SelfLink) {
		used[deref(a.Attachment.VlanTag8021q)] = true
	}
	if want != nil {
		if used[*want] {
			return 0, invalidField("resource.vlanTag8021q", fmt.Sprintf("Invalid value for field 'resource.vlanTag8021q': '%d'. The VLAN tag is already used on interconnect '%s'.", *want, ic.Name))
		}
		return *want, nil
	}
	for tag := int32(2); tag <= 4093; tag++ {
		if !used[tag] {
			return tag, nil
		}
	}
	return 0, invalidField("resource.vlanTag8021q", "Invalid value for field 'resource.vlanTag8021q': no VLAN tag is free on interconnect '"+ic.Name+"'.")
}

// projectOf, regionOf and nameOf read a resource path: projects/{p}/..., the region of
// projects/{p}/regions/{r}[/...], and the last segment.
func projectOf(path string) string {
	project, _, _ := strings.Cut(strings.TrimPrefix(path, "projects/"), "/")
	return project
}

func regionOf(path string) string {
	_, rest, _ := strings.Cut(path, "/regions/")
	region, _, _ := strings.Cut(rest, "/")
	return region
}

func nameOf(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// InterconnectAttachmentsGet reads an attachment by name or id.
func (s *Server) InterconnectAttachmentsGet(ctx context.Context, req gen.InterconnectAttachmentsGetRequestObject) (gen.InterconnectAttachmentsGetResponseObject, error) {
	var rec AttachmentRecord
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		rec, err = s.readableAttachment(tx, req.Project, req.Region, req.InterconnectAttachment)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsGet200JSONResponse(s.links(ctx).attachment(rec.Attachment)), nil
}

// InterconnectAttachmentsList lists a project's attachments in a region.
func (s *Server) InterconnectAttachmentsList(ctx context.Context, req gen.InterconnectAttachmentsListRequestObject) (gen.InterconnectAttachmentsListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.InterconnectAttachment](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := regionScope(req.Project, req.Region) + "/interconnectAttachments"
	l := s.links(ctx)
	out := gen.InterconnectAttachmentList{Kind: gen.InterconnectAttachmentListKindComputeInterconnectAttachmentList, Id: path, SelfLink: l.url(path)}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.attachments, path+"/", q, func(r AttachmentRecord) gen.InterconnectAttachment { return l.attachment(r.Attachment) })
		return err
	}); err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsList200JSONResponse(out), nil
}

// InterconnectAttachmentsDelete accepts a delete unless a group uses the attachment. The
// other side of a partner pair is DEFUNCT once it is done (finishAttachmentDelete).
func (s *Server) InterconnectAttachmentsDelete(ctx context.Context, req gen.InterconnectAttachmentsDeleteRequestObject) (gen.InterconnectAttachmentsDeleteResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.readableAttachment(tx, req.Project, req.Region, req.InterconnectAttachment)
		if err != nil {
			return operations.Start{}, err
		}
		path := *rec.Attachment.SelfLink
		if err := beginDelete(s, tx, s.tables.attachments, path, rec); err != nil {
			return operations.Start{}, err
		}
		if g := rec.Attachment.AttachmentGroup; g != nil {
			return operations.Start{}, inUse(path, *g)
		}
		return operations.Start{OperationType: "delete", TargetLink: path, TargetID: *rec.Attachment.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

// readableAttachment and changeableAttachment find an attachment by name or id (see
// readable).
func (s *Server) readableAttachment(tx *store.Tx, project, region, nameOrID string) (AttachmentRecord, error) {
	return readable(tx, s.tables.attachments, s.tables.attachmentByID, attachmentPath(project, region, nameOrID))
}

func (s *Server) changeableAttachment(tx *store.Tx, project, region, nameOrID string) (AttachmentRecord, error) {
	return changeable(tx, s.tables.attachments, s.tables.attachmentByID, attachmentPath(project, region, nameOrID))
}

func (s *Server) finishAttachmentInsert(tx *store.Tx, op operations.Record) error {
	if err := finishInsert(tx, s.tables.attachments, deref(op.Op.TargetLink), "attachment"); err != nil {
		return err
	}
	return s.providerReady(tx, deref(op.Op.TargetLink))
}

func (s *Server) finishAttachmentDelete(tx *store.Tx, op operations.Record) error {
	rec, ok := s.tables.attachments.Get(tx, deref(op.Op.TargetLink))
	s.tables.attachments.Delete(tx, deref(op.Op.TargetLink))
	if !ok {
		return nil
	}
	return s.defunctPair(tx, rec.Attachment)
}

// attachmentLocation is where an attachment's interconnect (port) is, if it can be found.
func (s *Server) attachmentLocation(tx *store.Tx, a gen.InterconnectAttachment) (Location, InterconnectRecord, bool) {
	ic, ok := s.port(tx, a)
	if !ok {
		return Location{}, ic, false
	}
	l, ok := s.locations.byName[nameOf(ic.Interconnect.Location)]
	return l, ic, ok
}

// attachment is an attachment as a read returns it: its links URLs, without a
// PARTNER_PROVIDER attachment's pairing key ("input only for PARTNER_PROVIDER"). Members of
// L2 and cross-cloud attachments are absent.
func (l links) attachment(a gen.InterconnectAttachment) gen.InterconnectAttachment {
	if deref(a.Type) == gen.InterconnectAttachmentTypePARTNERPROVIDER {
		a.PairingKey = nil
	}
	l.set(&a.SelfLink)
	l.set(&a.Region)
	l.set(&a.Interconnect)
	l.set(&a.AttachmentGroup)
	a.Labels = shownLabels(a.Labels)
	return a
}
