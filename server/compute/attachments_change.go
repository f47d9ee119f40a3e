package compute

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// An attachment's changes after its insert: patch and setLabels.

// InterconnectAttachmentsPatch applies a merge patch to an attachment: description, router,
// mtu and labels change, and by its type (attachmentPatchable) adminEnabled, bandwidth,
// stackType, vlanTag8021q and partnerMetadata; the rest must be sent as it is. Disabling it
// shows in the group that holds it; a change of one side of a partner pair shows on the
// other (putAttachment).
func (s *Server) InterconnectAttachmentsPatch(ctx context.Context, req gen.InterconnectAttachmentsPatchRequestObject) (gen.InterconnectAttachmentsPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	labels, labelsSent := labelsGiven(b.Labels, b.LabelFingerprint)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	if b.Mtu != nil && !validMTUs[int(*b.Mtu)] {
		return nil, invalidField("resource.mtu", fmt.Sprintf("Invalid value for field 'resource.mtu': '%d'. Supported values are 1440, 1460, 1500 and 8896.", *b.Mtu))
	}
	op, err := s.mutate(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableAttachment(tx, req.Project, req.Region, req.InterconnectAttachment)
		if err != nil {
			return operations.Start{}, err
		}
		a := rec.Attachment
		var f fixed
		sameName(&f, b.Name, a.Name)
		if b.Interconnect != nil {
			r, _ := parseRef(*b.Interconnect, "interconnects", req.Project)
			same(&f, "interconnect", &r.Name, nameOf(deref(a.Interconnect)))
		}
		if b.Type != nil {
			same(&f, "type", b.Type, *a.Type)
		}
		if f.err != nil {
			return operations.Start{}, f.err
		}
		patchable := attachmentPatchable(*a.Type)
		if err := s.fixedMembers(ctx, "InterconnectAttachment", s.links(ctx).attachment(a), b, patchable...); err != nil {
			return operations.Start{}, err
		}
		next := a
		patchText(&next.Description, b.Description)
		patchText(&next.Router, b.Router)
		if b.AdminEnabled != nil && slices.Contains(patchable, "adminEnabled") {
			next.AdminEnabled = b.AdminEnabled
		}
		if b.Bandwidth != nil {
			next.Bandwidth = b.Bandwidth
		}
		if b.PartnerMetadata != nil && slices.Contains(patchable, "partnerMetadata") {
			next.PartnerMetadata = b.PartnerMetadata
		}
		if b.StackType != nil && *b.StackType != *a.StackType {
			// Dual stack takes an IPv6 /125 as an insert would (from the candidates the
			// attachment was made with) on the interconnect it is on; back to IPv4 only gives
			// it up. A PARTNER attachment not yet provisioned gets it when it is.
			next.StackType = b.StackType
			next.CloudRouterIpv6Address, next.CustomerRouterIpv6Address = nil, nil
			ic, onPort := s.port(tx, a)
			if *next.StackType == gen.InterconnectAttachmentStackTypeIPV4IPV6 && onPort {
				req, err := checkAddressRequest(gen.InterconnectAttachment{CandidateIpv6Subnets: a.CandidateIpv6Subnets,
					CandidateCloudRouterIpv6Address: a.CandidateCloudRouterIpv6Address, CandidateCustomerRouterIpv6Address: a.CandidateCustomerRouterIpv6Address}, true)
				if err != nil {
					return operations.Start{}, err
				}
				if err := s.assignAddresses(tx, ic.Interconnect, &next, req); err != nil {
					return operations.Start{}, err
				}
			}
		}
		if b.Mtu != nil {
			next.Mtu = b.Mtu
		}
		if b.VlanTag8021q != nil && *b.VlanTag8021q != deref(a.VlanTag8021q) {
			ic, _ := s.tables.interconnects.Get(tx, *a.Interconnect)
			tag, err := s.vlanTag(tx, ic.Interconnect, b.VlanTag8021q)
			if err != nil {
				return operations.Start{}, err
			}
			next.VlanTag8021q = &tag
			fillAttachment(req.Project, req.Region, &next)
		}
		if labelsSent && !maps.Equal(labels, labelsOf(a.Labels)) {
			// Changing labels takes the current labelFingerprint, missing or stale alike, as
			// the discovery document says (412 conditionNotMet); gcloud sends the one it read.
			if err := checkLabelFingerprint(b.LabelFingerprint, a.LabelFingerprint); err != nil {
				return operations.Start{}, err
			}
			relabel(&next.Labels, &next.LabelFingerprint, labels)
		}
		if !reflect.DeepEqual(a, next) {
			rec.Attachment = next
			if err := s.putAttachment(tx, rec); err != nil {
				return operations.Start{}, err
			}
		}
		return operations.Start{OperationType: "patch", Done: true, TargetLink: *a.SelfLink, TargetID: *a.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

// attachmentPatchable are the members an attachment's patch may change (or that have their
// own checks above), by its type: a PARTNER attachment's bandwidth and VLAN are its
// partner's ("output only for PARTNER"); a PARTNER_PROVIDER one has no adminEnabled (its
// customer activates the pair) and sets the bandwidth and partnerMetadata its customer's
// attachment shows ("mutable for PARTNER_PROVIDER"), but not the customer's stack type.
func attachmentPatchable(t gen.InterconnectAttachmentType) []string {
	common := []string{"name", "interconnect", "type", "labels", "labelFingerprint", "params", "subnetLength", "description", "router", "mtu"}
	switch t {
	case typePartner:
		return append(common, "adminEnabled", "stackType")
	case typeProvider:
		return append(common, "bandwidth", "partnerMetadata")
	}
	return append(common, "adminEnabled", "bandwidth", "stackType", "vlanTag8021q")
}

// InterconnectAttachmentsSetLabels replaces an attachment's labels, as setLabels of a rule
// does; unlike it, it takes a requestId.
func (s *Server) InterconnectAttachmentsSetLabels(ctx context.Context, req gen.InterconnectAttachmentsSetLabelsRequestObject) (gen.InterconnectAttachmentsSetLabelsResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	labels := labelsOf(req.Body.Labels)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableAttachment(tx, req.Project, req.Region, req.Resource)
		if err != nil {
			return operations.Start{}, err
		}
		a := &rec.Attachment
		if err := checkLabelFingerprint(req.Body.LabelFingerprint, a.LabelFingerprint); err != nil {
			return operations.Start{}, err
		}
		relabel(&a.Labels, &a.LabelFingerprint, labels)
		if err := s.tables.attachments.Put(tx, *a.SelfLink, rec); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "setLabels", Done: true, TargetLink: *a.SelfLink, TargetID: *a.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsSetLabels200JSONResponse(s.renderOperation(ctx, op)), nil
}
