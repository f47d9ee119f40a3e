package compute

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// What the changes after an insert share (patch, setTarget, setName, the setLabels of
// interconnects and attachments: here and in interconnects_change.go and
// attachments_change.go), and a rule's patch and setTarget. Each is decided and applied at
// accept, in one transaction, and returns an Operation already DONE, as setLabels and the
// attachment group patch do.

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
