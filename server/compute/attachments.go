package compute

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store/compat"
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

// InterconnectAttachmentsInsert accepts a dedicated attachment on an existing interconnect of
// the project; its region, metro, facility and zone come from the interconnect's location.
// Only DEDICATED attachments are modelled.
func (s *Server) InterconnectAttachmentsInsert(ctx context.Context, req gen.InterconnectAttachmentsInsertRequestObject) (gen.InterconnectAttachmentsInsertResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	a, addrs, err := attachmentFromRequest(req.Project, req.Region, b)
	if err != nil {
		return nil, err
	}
	a.ID, a.Created, a.Pending = s.newID(), s.cfg.Now(), !s.ops.FinishesAtAccept()
	run := s.mutate
	if deref(req.Params.ValidateOnly) {
		run = s.validateOnly
	}
	op, err := run(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		if err := s.placeAttachment(tx, &a, b.VlanTag8021q, addrs); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{Kind: kindAttachmentInsert, OperationType: "insert", Target: a.Key(),
			TargetID: a.ID, Settled: !a.Pending}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// attachmentFromRequest checks an insert body and builds the attachment it asks for
// (without id, creation time, VLAN tag or addresses, which placeAttachment gives it), with
// what it asks of the addresses: the rules inserts and the seed share.
func attachmentFromRequest(project, region string, b gen.InterconnectAttachment) (InterconnectAttachment, addressRequest, error) {
	var none InterconnectAttachment
	if err := checkName(b.Name); err != nil {
		return none, addressRequest{}, err
	}
	if t := deref(b.Type); t != "" && t != "DEDICATED" {
		return none, addressRequest{}, invalidField("resource.type", fmt.Sprintf("Invalid value for field 'resource.type': '%s'. understudy models DEDICATED attachments only.", t))
	}
	if err := checkDedicatedMembers(b); err != nil {
		return none, addressRequest{}, err
	}
	if b.Interconnect == nil || *b.Interconnect == "" {
		return none, addressRequest{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'resource.interconnect' not specified", Location: "resource.interconnect"}
	}
	icRef, ok := parseRef(*b.Interconnect, "interconnects", project)
	if !ok || icRef.Project != project {
		return none, addressRequest{}, invalidField("resource.interconnect", fmt.Sprintf("Invalid value for field 'resource.interconnect': '%s'. It must name an interconnect of project %s.", *b.Interconnect, project))
	}
	mtu := 1440
	if b.Mtu != nil {
		mtu = int(*b.Mtu)
		if !validMTUs[mtu] {
			return none, addressRequest{}, invalidField("resource.mtu", fmt.Sprintf("Invalid value for field 'resource.mtu': '%d'. Supported values are 1440, 1460, 1500 and 8896.", mtu))
		}
	}
	labels := map[string]string(deref(b.Labels))
	if err := validateLabels(labels); err != nil {
		return none, addressRequest{}, err
	}
	a := InterconnectAttachment{
		Project: project, Region: region, Name: b.Name, Description: deref(b.Description),
		Interconnect: icRef.Name, Type: "DEDICATED", Router: deref(b.Router), AdminEnabled: b.AdminEnabled == nil || *b.AdminEnabled,
		Bandwidth: "BPS_10G", Mtu: mtu, StackType: "IPV4_ONLY", Encryption: "NONE", Labels: labels,
		IpsecInternalAddresses: b.IpsecInternalAddresses, CandidateSubnets: b.CandidateSubnets, CandidateIPv6Subnets: b.CandidateIpv6Subnets,
		CandidateCloudRouterIP: deref(b.CandidateCloudRouterIpAddress), CandidateCustomerRouterIP: deref(b.CandidateCustomerRouterIpAddress),
		CandidateCloudRouterIPv6: deref(b.CandidateCloudRouterIpv6Address), CandidateCustomerRouterIPv6: deref(b.CandidateCustomerRouterIpv6Address),
		CloudRouterIPv6InterfaceID: deref(b.CloudRouterIpv6InterfaceId), CustomerRouterIPv6InterfaceID: deref(b.CustomerRouterIpv6InterfaceId),
	}
	if b.Bandwidth != nil {
		a.Bandwidth = string(*b.Bandwidth)
	}
	if b.StackType != nil {
		a.StackType = string(*b.StackType)
	}
	if b.Encryption != nil {
		a.Encryption = string(*b.Encryption)
	}
	addrs, err := checkAddressRequest(b, a.StackType == "IPV4_IPV6")
	return a, addrs, err
}

// checkDedicatedMembers refuses the members the real service documents for other types of
// attachment only: a partner's (pairingKey, partnerAsn, partnerMetadata: "not available for
// DEDICATED") and an L2 attachment's (l2Forwarding), and IPsec addresses on an attachment
// that is not encrypted.
func checkDedicatedMembers(b gen.InterconnectAttachment) error {
	for _, m := range []struct {
		member, value string
		set           bool
		why           string
	}{
		{"pairingKey", deref(b.PairingKey), b.PairingKey != nil, "A pairing key is only for PARTNER and PARTNER_PROVIDER attachments."},
		{"partnerAsn", deref(b.PartnerAsn), b.PartnerAsn != nil, "partnerAsn is not available for DEDICATED attachments."},
		{"partnerMetadata", "", b.PartnerMetadata != nil, "partnerMetadata is only for PARTNER_PROVIDER attachments."},
		{"l2Forwarding", "", b.L2Forwarding != nil, "l2Forwarding is only for L2_DEDICATED attachments."},
		{"ipsecInternalAddresses", strings.Join(b.IpsecInternalAddresses, ","), len(b.IpsecInternalAddresses) > 0 && deref(b.Encryption) != "IPSEC",
			"IPsec internal addresses are only for attachments with encryption IPSEC."},
	} {
		if m.set {
			return invalidField("resource."+m.member, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. %s", m.member, m.value, m.why))
		}
	}
	return nil
}

// placeAttachment stores a new attachment inside tx: its name must be free, its
// interconnect there, its VLAN tag free on it (or the lowest free one is taken), and its
// BGP addresses free on it (or free ones are picked, see attachmentaddr.go).
func (s *Server) placeAttachment(tx *store.Tx, a *InterconnectAttachment, vlan *int32, addrs addressRequest) error {
	if _, taken := s.tables.Attachments.Get(tx, a.Key()); taken {
		e := alreadyExists(attachmentPath(a.Project, a.Region, a.Name))
		e.Location = "resource.name"
		return e
	}
	ic, err := s.readableInterconnect(tx, a.Project, a.Interconnect)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Location = "resource.interconnect"
		}
		return err
	}
	if ic.Deleting {
		e := notReady(interconnectPath(ic.Project, ic.Name))
		e.Location = "resource.interconnect"
		return e
	}
	// An attachment is made in a region its interconnect's location serves (the location's
	// regionInfos); any other region, real or not, would put the metro somewhere it is not
	// and change what the SLA analysis of a group sees.
	if l, ok := s.locations.byName[ic.Location]; ok && !slices.Contains(l.Regions, a.Region) {
		return invalidField("resource.interconnect", fmt.Sprintf("Invalid value for field 'resource.interconnect': '%s'. The interconnect's location '%s' does not serve region '%s'; it serves %s.",
			interconnectPath(ic.Project, ic.Name), l.Name, a.Region, strings.Join(l.Regions, ", ")))
	}
	if a.VlanTag, err = s.vlanTag(tx, ic, vlan); err != nil {
		return err
	}
	if err := s.assignAddresses(tx, ic, a, addrs); err != nil {
		return err
	}
	return s.tables.Attachments.Put(tx, a.Key(), *a)
}

// vlanTag checks a requested VLAN tag is free on the interconnect, or picks the lowest free one.
func (s *Server) vlanTag(tx *store.Tx, ic Interconnect, want *int32) (int, error) {
	used := map[int]bool{}
	for _, a := range s.attachmentsOn(tx, ic) {
		used[a.VlanTag] = true
	}
	if want != nil {
		if used[int(*want)] {
			return 0, invalidField("resource.vlanTag8021q", fmt.Sprintf("Invalid value for field 'resource.vlanTag8021q': '%d'. The VLAN tag is already used on interconnect '%s'.", *want, ic.Name))
		}
		return int(*want), nil
	}
	for tag := 2; tag <= 4093; tag++ {
		if !used[tag] {
			return tag, nil
		}
	}
	return 0, invalidField("resource.vlanTag8021q", "Invalid value for field 'resource.vlanTag8021q': no VLAN tag is free on interconnect '"+ic.Name+"'.")
}

// InterconnectAttachmentsGet reads an attachment by name or id.
func (s *Server) InterconnectAttachmentsGet(ctx context.Context, req gen.InterconnectAttachmentsGetRequestObject) (gen.InterconnectAttachmentsGetResponseObject, error) {
	var out gen.InterconnectAttachment
	err := s.db.View(func(tx *store.Tx) error {
		a, err := s.readableAttachment(tx, req.Project, req.Region, req.InterconnectAttachment)
		if err != nil {
			return err
		}
		out = s.renderAttachment(ctx, tx, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsGet200JSONResponse(out), nil
}

// InterconnectAttachmentsList lists a project's attachments in a region.
func (s *Server) InterconnectAttachmentsList(ctx context.Context, req gen.InterconnectAttachmentsListRequestObject) (gen.InterconnectAttachmentsListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.InterconnectAttachment](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := regionScope(req.Project, req.Region) + "/interconnectAttachments"
	out := gen.InterconnectAttachmentList{Kind: gen.InterconnectAttachmentListKindComputeInterconnectAttachmentList, Id: path, SelfLink: s.link(ctx, path)}
	if err := s.db.View(func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.AttachmentsByName, req.Project+"|"+req.Region+"|", q, func(r InterconnectAttachment) gen.InterconnectAttachment { return s.renderAttachment(ctx, tx, r) })
		return err
	}); err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsList200JSONResponse(out), nil
}

// InterconnectAttachmentsDelete accepts a delete unless a group uses the attachment.
func (s *Server) InterconnectAttachmentsDelete(ctx context.Context, req gen.InterconnectAttachmentsDeleteRequestObject) (gen.InterconnectAttachmentsDeleteResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		a, err := s.readableAttachment(tx, req.Project, req.Region, req.InterconnectAttachment)
		if err != nil {
			return operations.Start{}, err
		}
		if err := beginDelete(s, tx, s.tables.Attachments, a, attachmentPath(a.Project, a.Region, a.Name), attachmentDeleting); err != nil {
			return operations.Start{}, err
		}
		if a.Group != "" {
			return operations.Start{}, inUse(attachmentPath(a.Project, a.Region, a.Name), groupPath(a.Project, a.Group))
		}
		return operations.Start{Kind: kindAttachmentDelete, OperationType: "delete", Target: a.Key(),
			TargetID: a.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

func (s *Server) readableAttachment(tx *store.Tx, project, region, nameOrID string) (InterconnectAttachment, error) {
	a, ok := s.tables.Attachments.Get(tx, AttachmentKey(project, region, nameOrID))
	if !ok {
		_, a, ok = s.tables.AttachmentID.Get(tx, project+"|"+region+"|"+nameOrID)
	}
	if !ok || a.Pending {
		return a, notFound(attachmentPath(project, region, nameOrID))
	}
	return a, nil
}

func (s *Server) finishAttachmentInsert(tx *store.Tx, op operations.Operation) error {
	return finishInsert(tx, s.tables.Attachments, op.Target, "attachment", attachmentPending)
}

func (s *Server) finishAttachmentDelete(tx *store.Tx, op operations.Operation) error {
	_, _, err := s.tables.Attachments.Delete(tx, op.Target)
	return err
}

// attachmentLocation is where an attachment's interconnect is, if it can be found.
func (s *Server) attachmentLocation(tx *store.Tx, a InterconnectAttachment) (Location, Interconnect, bool) {
	ic, ok := s.tables.Interconnects.Get(tx, a.Project+"|"+a.Interconnect)
	if !ok {
		return Location{}, ic, false
	}
	l, ok := s.locations.byName[ic.Location]
	return l, ic, ok
}

// renderAttachment is the wire form of an attachment. Members of partner, L2 and
// cross-cloud attachments are absent, as on the real service's dedicated ones.
func (s *Server) renderAttachment(ctx context.Context, tx *store.Tx, a InterconnectAttachment) gen.InterconnectAttachment {
	kind, created, self := "compute#interconnectAttachment", timestamp(a.Created), s.link(ctx, attachmentPath(a.Project, a.Region, a.Name))
	region, ic := s.link(ctx, "projects/"+a.Project+"/regions/"+a.Region), s.link(ctx, interconnectPath(a.Project, a.Interconnect))
	typ, bw, stack := gen.InterconnectAttachmentType(a.Type), gen.InterconnectAttachmentBandwidth(a.Bandwidth), gen.InterconnectAttachmentStackType(a.StackType)
	opStatus, state := gen.InterconnectAttachmentOperationalStatus("OS_ACTIVE"), gen.InterconnectAttachmentState("ACTIVE")
	admin, vlan, mtu := a.AdminEnabled, int32(a.VlanTag), int32(a.Mtu)
	labels := gen.Labels(a.Labels)
	if labels == nil {
		labels = gen.Labels{}
	}
	out := gen.InterconnectAttachment{
		Kind: &kind, Id: &a.ID, Name: a.Name, Description: optional(a.Description), SelfLink: &self, CreationTimestamp: &created,
		Region: &region, Interconnect: &ic, Type: &typ, Router: optional(a.Router), AdminEnabled: &admin, VlanTag8021q: &vlan,
		Bandwidth: &bw, StackType: &stack, Mtu: &mtu, OperationalStatus: &opStatus, State: &state,
		Labels: &labels, LabelFingerprint: labelFingerprint(a.Labels, a.LabelGeneration),
		Encryption: ptr(gen.InterconnectAttachmentEncryption(a.Encryption)), IpsecInternalAddresses: a.IpsecInternalAddresses,
		CandidateSubnets: a.CandidateSubnets, CandidateIpv6Subnets: a.CandidateIPv6Subnets,
		CandidateCloudRouterIpAddress: optional(a.CandidateCloudRouterIP), CandidateCustomerRouterIpAddress: optional(a.CandidateCustomerRouterIP),
		CandidateCloudRouterIpv6Address: optional(a.CandidateCloudRouterIPv6), CandidateCustomerRouterIpv6Address: optional(a.CandidateCustomerRouterIPv6),
		CloudRouterIpv6InterfaceId: optional(a.CloudRouterIPv6InterfaceID), CustomerRouterIpv6InterfaceId: optional(a.CustomerRouterIPv6InterfaceID),
		CloudRouterIpAddress: optional(a.CloudRouterIP), CustomerRouterIpAddress: optional(a.CustomerRouterIP),
		CloudRouterIpv6Address: optional(a.CloudRouterIPv6), CustomerRouterIpv6Address: optional(a.CustomerRouterIPv6),
		// Fixed values where the real service documents no rule (docs/compute.md): the
		// current dataplane, no BGP MD5 requirement, no PZS.
		DataplaneVersion: ptr(int32(2)), SatisfiesPzs: ptr(false), GoogleReferenceId: ptr(stableID("attachment-reference|" + a.ID)),
		ConfigurationConstraints: &gen.InterconnectAttachmentConfigurationConstraints{BgpMd5: ptr(gen.InterconnectAttachmentConfigurationConstraintsBgpMd5MD5OPTIONAL)},
		PrivateInterconnectInfo:  &gen.InterconnectAttachmentPrivateInfo{Tag8021q: ptr(uint32(a.VlanTag))},
	}
	if l, _, ok := s.attachmentLocation(tx, a); ok {
		domain := gen.InterconnectAttachmentEdgeAvailabilityDomain("AVAILABILITY_DOMAIN_1")
		if l.Zone == "zone2" {
			domain = "AVAILABILITY_DOMAIN_2"
		}
		out.EdgeAvailabilityDomain = &domain
	}
	if a.Group != "" {
		g := s.link(ctx, groupPath(a.Project, a.Group))
		out.AttachmentGroup = &g
	}
	return out
}
