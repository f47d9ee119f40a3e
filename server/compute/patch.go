package compute

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// The patches, setTarget, setName and the setLabels of interconnects and attachments. Each
// is decided and applied at accept, in one transaction, and returns an Operation already
// DONE, as setLabels and the attachment group patch do.

// fixed collects, for a patch, the members sent that may not change: sending back what
// get returned is accepted, a different value is refused with the first such member named.
type fixed struct{ err error }

// same refuses field when sent (non-nil) with a value other than current.
func same[T comparable](f *fixed, field string, sent *T, current T) {
	if f.err == nil && sent != nil && *sent != current {
		f.err = invalidField("resource."+field, fmt.Sprintf("Invalid value for field 'resource.%s': '%v'. The field cannot be changed by patch.", field, *sent))
	}
}

// sameName refuses a name other than the resource's; a patch does not rename.
func sameName(f *fixed, sent, current string) {
	if sent != "" {
		same(f, "name", &sent, current)
	}
}

func labelsGiven(l *gen.Labels) (map[string]string, bool) {
	if l == nil {
		return nil, false
	}
	m := map[string]string(*l)
	if m == nil {
		m = map[string]string{}
	}
	return m, true
}

// staleLabels is setLabels' answer to a missing, empty or stale labelFingerprint.
func staleLabels() *Error {
	return &Error{Status: http.StatusPreconditionFailed, Reason: "conditionNotMet",
		Message: "Labels fingerprint either invalid or resource labels have changed", Location: "If-Match", LocationType: gen.GoogleErrorItemLocationTypeHeader}
}

// checkLabelFingerprint is setLabels' compare: sent must be the current fingerprint.
func checkLabelFingerprint(sent []byte, labels map[string]string, generation uint64) error {
	if len(sent) == 0 || !bytes.Equal(sent, labelFingerprint(labels, generation)) {
		return staleLabels()
	}
	return nil
}

// GlobalForwardingRulesPatch applies a merge patch to a rule. The real service patches
// networkTier only; every other member must be sent as it is (or not at all).
func (s *Server) GlobalForwardingRulesPatch(ctx context.Context, req gen.GlobalForwardingRulesPatchRequestObject) (gen.GlobalForwardingRulesPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		r, err := s.changeableRule(tx, req.Project, req.ForwardingRule)
		if err != nil {
			return operations.Start{}, err
		}
		if len(b.Fingerprint) > 0 && !bytes.Equal(b.Fingerprint, ruleFingerprint(r)) {
			return operations.Start{}, staleFingerprint()
		}
		var f fixed
		sameName(&f, b.Name, r.Name)
		same(&f, "description", b.Description, r.Description)
		same(&f, "IPAddress", b.IPAddress, r.IPAddress)
		same(&f, "IPProtocol", b.IPProtocol, gen.ForwardingRuleIPProtocol(r.IPProtocol))
		same(&f, "portRange", b.PortRange, r.PortRange)
		same(&f, "target", b.Target, r.Target)
		same(&f, "loadBalancingScheme", b.LoadBalancingScheme, gen.ForwardingRuleLoadBalancingScheme(r.LoadBalancingScheme))
		same(&f, "network", b.Network, r.Network)
		same(&f, "ipVersion", b.IpVersion, gen.ForwardingRuleIpVersion(r.IPVersion))
		if labels, ok := labelsGiven(b.Labels); ok && f.err == nil && !maps.Equal(labels, r.Labels) && !(len(labels) == 0 && len(r.Labels) == 0) {
			f.err = invalidField("resource.labels", "Invalid value for field 'resource.labels'. Labels of a forwarding rule change only through setLabels.")
		}
		if f.err != nil {
			return operations.Start{}, f.err
		}
		return operations.Start{OperationType: "patch", Done: true, TargetLink: s.link(ctx, rulePath(r.Project, r.Name)), TargetID: r.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

func staleFingerprint() *Error {
	return &Error{Status: http.StatusPreconditionFailed, Reason: "conditionNotMet",
		Message: "Supplied fingerprint does not match current fingerprint.", Location: "resource.fingerprint"}
}

// changeableRule is a readable rule that no running delete holds.
func (s *Server) changeableRule(tx *store.Tx, project, nameOrID string) (ForwardingRule, error) {
	r, err := s.readableRule(tx, project, nameOrID)
	if err == nil && r.Deleting {
		err = notReady(rulePath(r.Project, r.Name))
	}
	return r, err
}

// GlobalForwardingRulesSetTarget points a rule at a target of the same type as its current
// one (any type when it has none).
func (s *Server) GlobalForwardingRulesSetTarget(ctx context.Context, req gen.GlobalForwardingRulesSetTargetRequestObject) (gen.GlobalForwardingRulesSetTargetResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	target := deref(req.Body.Target)
	if target == "" {
		return nil, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'target' not specified", Location: "target"}
	}
	kind := targetKind(target)
	if kind == "" {
		return nil, invalidField("target", fmt.Sprintf("Invalid value for field 'target': '%s'. The URL is malformed.", target))
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		r, err := s.changeableRule(tx, req.Project, req.ForwardingRule)
		if err != nil {
			return operations.Start{}, err
		}
		if current := targetKind(r.Target); current != "" && current != kind {
			return operations.Start{}, invalidField("target", fmt.Sprintf("Invalid value for field 'target': '%s'. The new target must be of the same type as the current target (%s).", target, current))
		}
		if r.Target != target {
			r.Target, r.Generation = target, r.Generation+1
			if err := s.tables.ForwardingRules.Put(tx, r.Key(), r); err != nil {
				return operations.Start{}, err
			}
		}
		return operations.Start{OperationType: "setTarget", Done: true, TargetLink: s.link(ctx, rulePath(r.Project, r.Name)), TargetID: r.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesSetTarget200JSONResponse(s.renderOperation(ctx, op)), nil
}

// targetKind is the collection of a target URL (targetHttpProxies, ...): the segment
// before its name, "" when there is none.
func targetKind(u string) string {
	parts := strings.Split(strings.TrimRight(refPath(u), "/"), "/")
	if len(parts) < 2 || parts[len(parts)-1] == "" {
		return ""
	}
	return parts[len(parts)-2]
}

// changeableInterconnect is a readable interconnect that no running delete holds.
func (s *Server) changeableInterconnect(tx *store.Tx, project, nameOrID string) (Interconnect, error) {
	ic, err := s.readableInterconnect(tx, project, nameOrID)
	if err == nil && ic.Deleting {
		err = notReady(interconnectPath(ic.Project, ic.Name))
	}
	return ic, err
}

// InterconnectsPatch applies a merge patch to an interconnect: description, adminEnabled,
// nocContactEmail, customerName, requestedLinkCount and labels change; the rest must be
// sent as it is. Draining (adminEnabled false) shows in every group over it.
func (s *Server) InterconnectsPatch(ctx context.Context, req gen.InterconnectsPatchRequestObject) (gen.InterconnectsPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	labels, labelsSent := labelsGiven(b.Labels)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	if b.RequestedLinkCount < 0 {
		return nil, invalidField("resource.requestedLinkCount", fmt.Sprintf("Invalid value for field 'resource.requestedLinkCount': '%d'. Must be greater than 0.", b.RequestedLinkCount))
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		ic, err := s.changeableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		var f fixed
		sameName(&f, b.Name, ic.Name)
		if b.Location != "" {
			loc, _ := parseRef(b.Location, "interconnectLocations", req.Project)
			same(&f, "location", &loc.Name, ic.Location)
		}
		if b.LinkType != "" {
			same(&f, "linkType", ptr(string(b.LinkType)), ic.LinkType)
		}
		if b.InterconnectType != "" {
			same(&f, "interconnectType", ptr(string(b.InterconnectType)), ic.InterconnectType)
		}
		if f.err != nil {
			return operations.Start{}, f.err
		}
		next := ic
		setIf(&next.Description, b.Description)
		setIf(&next.AdminEnabled, b.AdminEnabled)
		setIf(&next.NocContactEmail, b.NocContactEmail)
		setIf(&next.CustomerName, b.CustomerName)
		if b.RequestedLinkCount > 0 {
			next.RequestedLinkCount = int(b.RequestedLinkCount)
		}
		if labelsSent && !maps.Equal(labels, ic.Labels) {
			if len(b.LabelFingerprint) > 0 && !bytes.Equal(b.LabelFingerprint, labelFingerprint(ic.Labels, ic.LabelGeneration)) {
				return operations.Start{}, staleLabels()
			}
			next.Labels, next.LabelGeneration = labels, ic.LabelGeneration+1
		}
		if err := s.putInterconnectIfChanged(tx, ic, next); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "patch", Done: true, TargetLink: s.link(ctx, interconnectPath(ic.Project, ic.Name)), TargetID: ic.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

// putInterconnectIfChanged stores next, with a new generation, when it differs from ic.
func (s *Server) putInterconnectIfChanged(tx *store.Tx, ic, next Interconnect) error {
	if reflect.DeepEqual(ic, next) {
		return nil
	}
	next.Generation = ic.Generation + 1
	return s.tables.Interconnects.Put(tx, next.Key(), next)
}

func setIf[T any](field *T, sent *T) {
	if sent != nil {
		*field = *sent
	}
}

// InterconnectsSetLabels replaces an interconnect's labels, as setLabels of a rule does.
func (s *Server) InterconnectsSetLabels(ctx context.Context, req gen.InterconnectsSetLabelsRequestObject) (gen.InterconnectsSetLabelsResponseObject, error) {
	labels := map[string]string(deref(req.Body.Labels))
	if labels == nil {
		labels = map[string]string{}
	}
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", "", func(tx *store.Tx) (operations.Start, error) {
		ic, err := s.changeableInterconnect(tx, req.Project, req.Resource)
		if err != nil {
			return operations.Start{}, err
		}
		if err := checkLabelFingerprint(req.Body.LabelFingerprint, ic.Labels, ic.LabelGeneration); err != nil {
			return operations.Start{}, err
		}
		ic.Labels, ic.LabelGeneration, ic.Generation = labels, ic.LabelGeneration+1, ic.Generation+1
		if err := s.tables.Interconnects.Put(tx, ic.Key(), ic); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "setLabels", Done: true, TargetLink: s.link(ctx, interconnectPath(ic.Project, ic.Name)), TargetID: ic.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsSetLabels200JSONResponse(s.renderOperation(ctx, op)), nil
}

// InterconnectsSetName renames an interconnect; its attachments and the interconnect groups
// holding it follow.
func (s *Server) InterconnectsSetName(ctx context.Context, req gen.InterconnectsSetNameRequestObject) (gen.InterconnectsSetNameResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	name := deref(req.Body.Name)
	if name == "" {
		return nil, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'name' not specified", Location: "name"}
	}
	if !validName(name) {
		return nil, mustMatch("name", name, nameRegex)
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		ic, err := s.changeableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		if cur := deref(req.Body.CurrentName); cur != "" && cur != ic.Name {
			return operations.Start{}, invalidField("currentName", fmt.Sprintf("Invalid value for field 'currentName': '%s'. The interconnect's name is '%s'.", cur, ic.Name))
		}
		start := operations.Start{OperationType: "setName", Done: true, TargetLink: s.link(ctx, interconnectPath(ic.Project, name)), TargetID: ic.ID}
		if name == ic.Name {
			return start, nil
		}
		if _, taken := s.tables.Interconnects.Get(tx, ic.Project+"|"+name); taken {
			return operations.Start{}, alreadyExists(interconnectPath(ic.Project, name))
		}
		return start, s.rename(tx, ic, name)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsSetName200JSONResponse(s.renderOperation(ctx, op)), nil
}

// rename moves ic to name, with the attachments on it and the groups that hold it.
func (s *Server) rename(tx *store.Tx, ic Interconnect, name string) error {
	users := s.attachmentsOn(tx, ic)
	if _, _, err := s.tables.Interconnects.Delete(tx, ic.Key()); err != nil {
		return err
	}
	old := ic.Name
	ic.Name, ic.Generation = name, ic.Generation+1
	if err := s.tables.Interconnects.Put(tx, ic.Key(), ic); err != nil {
		return err
	}
	for _, a := range users {
		a.Interconnect, a.Generation = name, a.Generation+1
		if err := s.tables.Attachments.Put(tx, a.Key(), a); err != nil {
			return err
		}
	}
	for _, g := range s.interconnectGroupsOf(tx, ic.Project, old) {
		for k, v := range g.Interconnects {
			if v == old {
				g.Interconnects[k] = name
			}
		}
		g.Generation++
		if err := s.tables.InterconnectGroups.Put(tx, g.Key(), g); err != nil {
			return err
		}
	}
	return nil
}

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
		next := a
		setIf(&next.Description, b.Description)
		setIf(&next.AdminEnabled, b.AdminEnabled)
		setIf(&next.Router, b.Router)
		if b.Bandwidth != nil {
			next.Bandwidth = string(*b.Bandwidth)
		}
		if b.StackType != nil {
			next.StackType = string(*b.StackType)
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
