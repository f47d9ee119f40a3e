package compute

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"reflect"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// An attachment's changes after its insert: patch and setLabels.

// changeableAttachment is a readable attachment that no running delete holds.
func (s *Server) changeableAttachment(tx *store.Tx, project, region, nameOrID string) (InterconnectAttachment, error) {
	a, err := s.readableAttachment(tx, project, region, nameOrID)
	if err == nil && a.Deleting {
		err = notReady(attachmentPath(a.Project, a.Region, a.Name))
	}
	return a, err
}

// InterconnectAttachmentsPatch applies a merge patch to an attachment: description,
// adminEnabled, bandwidth, mtu, router, stackType, vlanTag8021q and labels change; the rest
// must be sent as it is. Disabling it shows in the group that holds it.
func (s *Server) InterconnectAttachmentsPatch(ctx context.Context, req gen.InterconnectAttachmentsPatchRequestObject) (gen.InterconnectAttachmentsPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	labels, labelsSent := labelsGiven(b.Labels)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	if b.Mtu != nil && !validMTUs[int(*b.Mtu)] {
		return nil, invalidField("resource.mtu", fmt.Sprintf("Invalid value for field 'resource.mtu': '%d'. Supported values are 1440, 1460, 1500 and 8896.", *b.Mtu))
	}
	op, err := s.mutate(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		a, err := s.changeableAttachment(tx, req.Project, req.Region, req.InterconnectAttachment)
		if err != nil {
			return operations.Start{}, err
		}
		var f fixed
		sameName(&f, b.Name, a.Name)
		if b.Interconnect != nil {
			r, _ := parseRef(*b.Interconnect, "interconnects", req.Project)
			same(&f, "interconnect", &r.Name, a.Interconnect)
		}
		if b.Type != nil {
			same(&f, "type", ptr(string(*b.Type)), a.Type)
		}
		if f.err != nil {
			return operations.Start{}, f.err
		}
		if err := s.fixedMembers("InterconnectAttachment", s.renderAttachment(ctx, tx, a), b, "name", "interconnect", "type",
			"labels", "labelFingerprint", "params", "subnetLength", "description", "adminEnabled", "router", "bandwidth", "stackType", "mtu", "vlanTag8021q"); err != nil {
			return operations.Start{}, err
		}
		next := a
		setIf(&next.Description, b.Description)
		setIf(&next.AdminEnabled, b.AdminEnabled)
		setIf(&next.Router, b.Router)
		if b.Bandwidth != nil {
			next.Bandwidth = string(*b.Bandwidth)
		}
		if b.StackType != nil && string(*b.StackType) != a.StackType {
			// Dual stack takes an IPv6 /125 as an insert would (from the candidates the
			// attachment was made with); back to IPv4 only gives it up.
			next.StackType = string(*b.StackType)
			next.CloudRouterIPv6, next.CustomerRouterIPv6 = "", ""
			if next.StackType == "IPV4_IPV6" {
				req, err := checkAddressRequest(gen.InterconnectAttachment{CandidateIpv6Subnets: a.CandidateIPv6Subnets,
					CandidateCloudRouterIpv6Address: optional(a.CandidateCloudRouterIPv6), CandidateCustomerRouterIpv6Address: optional(a.CandidateCustomerRouterIPv6)}, true)
				if err != nil {
					return operations.Start{}, err
				}
				ic, _ := s.tables.Interconnects.Get(tx, a.Project+"|"+a.Interconnect)
				if err := s.assignAddresses(tx, ic, &next, req); err != nil {
					return operations.Start{}, err
				}
			}
		}
		if b.Mtu != nil {
			next.Mtu = int(*b.Mtu)
		}
		if b.VlanTag8021q != nil && int(*b.VlanTag8021q) != a.VlanTag {
			ic, _ := s.tables.Interconnects.Get(tx, a.Project+"|"+a.Interconnect)
			if next.VlanTag, err = s.vlanTag(tx, ic, b.VlanTag8021q); err != nil {
				return operations.Start{}, err
			}
		}
		if labelsSent && !maps.Equal(labels, a.Labels) {
			if len(b.LabelFingerprint) > 0 && !bytes.Equal(b.LabelFingerprint, labelFingerprint(a.Labels, a.LabelGeneration)) {
				return operations.Start{}, staleLabels()
			}
			next.Labels, next.LabelGeneration = labels, a.LabelGeneration+1
		}
		if err := s.putAttachmentIfChanged(tx, a, next); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "patch", Done: true, TargetLink: s.link(ctx, attachmentPath(a.Project, a.Region, a.Name)), TargetID: a.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

// putAttachmentIfChanged stores next, with a new generation, when it differs from a.
func (s *Server) putAttachmentIfChanged(tx *store.Tx, a, next InterconnectAttachment) error {
	if reflect.DeepEqual(a, next) {
		return nil
	}
	next.Generation = a.Generation + 1
	return s.tables.Attachments.Put(tx, next.Key(), next)
}

// InterconnectAttachmentsSetLabels replaces an attachment's labels, as setLabels of a rule
// does; unlike it, it takes a requestId.
func (s *Server) InterconnectAttachmentsSetLabels(ctx context.Context, req gen.InterconnectAttachmentsSetLabelsRequestObject) (gen.InterconnectAttachmentsSetLabelsResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	labels := map[string]string(deref(req.Body.Labels))
	if labels == nil {
		labels = map[string]string{}
	}
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, regionScope(req.Project, req.Region), requestID, func(tx *store.Tx) (operations.Start, error) {
		a, err := s.changeableAttachment(tx, req.Project, req.Region, req.Resource)
		if err != nil {
			return operations.Start{}, err
		}
		if err := checkLabelFingerprint(req.Body.LabelFingerprint, a.Labels, a.LabelGeneration); err != nil {
			return operations.Start{}, err
		}
		a.Labels, a.LabelGeneration, a.Generation = labels, a.LabelGeneration+1, a.Generation+1
		if err := s.tables.Attachments.Put(tx, a.Key(), a); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "setLabels", Done: true, TargetLink: s.link(ctx, attachmentPath(a.Project, a.Region, a.Name)), TargetID: a.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsSetLabels200JSONResponse(s.renderOperation(ctx, op)), nil
}
