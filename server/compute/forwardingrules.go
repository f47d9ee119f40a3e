package compute

import (
	"context"
	"fmt"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// Operation kinds whose finishers apply forwarding-rule changes.
const (
	kindRuleInsert = "forwardingRules.insert"
	kindRuleDelete = "forwardingRules.delete"
)

func rulePath(project, name string) string { return globalScope(project) + "/forwardingRules/" + name }

// GlobalForwardingRulesInsert reserves the name at once (a second insert of it is 409, also
// while the first runs); the rule is readable when the operation is DONE.
func (s *Server) GlobalForwardingRulesInsert(ctx context.Context, req gen.GlobalForwardingRulesInsertRequestObject) (gen.GlobalForwardingRulesInsertResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	rule, err := newRule(req.Project, *req.Body, s.newID(), s.cfg.Now())
	if err != nil {
		return nil, err
	}
	var draw func(int) string // the rule's address, when the body gives none
	if rule.IPAddress == nil {
		version := *rule.IpVersion
		draw = func(int) string { return s.ephemeralIP(version) }
	}
	pending := !s.ops.FinishesAtAccept()
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		if _, taken := s.tables.rules.Get(tx, *rule.SelfLink); taken {
			return operations.Start{}, alreadyExists(*rule.SelfLink)
		}
		if err := s.placeAddress(tx, &rule, draw); err != nil {
			return operations.Start{}, err
		}
		if err := s.tables.rules.Put(tx, *rule.SelfLink, RuleRecord{Rule: rule, Lifecycle: s.born(tx, pending)}); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "insert", TargetLink: *rule.SelfLink, TargetID: *rule.Id, Settled: !pending}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// GlobalForwardingRulesDelete accepts a delete; the rule stays readable until it is DONE.
func (s *Server) GlobalForwardingRulesDelete(ctx context.Context, req gen.GlobalForwardingRulesDeleteRequestObject) (gen.GlobalForwardingRulesDeleteResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.readableRule(tx, req.Project, req.ForwardingRule)
		if err != nil {
			return operations.Start{}, err
		}
		path := *rec.Rule.SelfLink
		if err := beginDelete(s, tx, s.tables.rules, path, rec); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "delete", TargetLink: path, TargetID: *rec.Rule.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

// GlobalForwardingRulesGet reads a rule by name or id.
func (s *Server) GlobalForwardingRulesGet(ctx context.Context, req gen.GlobalForwardingRulesGetRequestObject) (gen.GlobalForwardingRulesGetResponseObject, error) {
	var rec RuleRecord
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		rec, err = s.readableRule(tx, req.Project, req.ForwardingRule)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesGet200JSONResponse(s.links(ctx).rule(rec.Rule)), nil
}

// GlobalForwardingRulesList lists a project's readable rules.
func (s *Server) GlobalForwardingRulesList(ctx context.Context, req gen.GlobalForwardingRulesListRequestObject) (gen.GlobalForwardingRulesListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.ForwardingRule](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := globalScope(req.Project) + "/forwardingRules"
	l := s.links(ctx)
	out := gen.ForwardingRuleList{Kind: gen.ForwardingRuleListKindComputeForwardingRuleList, Id: path, SelfLink: l.url(path)}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.rules, path+"/", q, func(r RuleRecord) gen.ForwardingRule { return l.rule(r.Rule) })
		return err
	}); err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesList200JSONResponse(out), nil
}

// GlobalForwardingRulesSetLabels replaces a rule's labels if the caller's fingerprint is the
// current one (compare-and-set at accept; missing or empty counts as stale) and returns a
// DONE operation, as the real service does for label changes.
func (s *Server) GlobalForwardingRulesSetLabels(ctx context.Context, req gen.GlobalForwardingRulesSetLabelsRequestObject) (gen.GlobalForwardingRulesSetLabelsResponseObject, error) {
	labels := labelsOf(req.Body.Labels)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", "", func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableRule(tx, req.Project, req.Resource)
		if err != nil {
			return operations.Start{}, err
		}
		r := &rec.Rule
		if err := checkLabelFingerprint(req.Body.LabelFingerprint, r.LabelFingerprint); err != nil {
			return operations.Start{}, err
		}
		relabel(&r.Labels, &r.LabelFingerprint, labels)
		r.Fingerprint = nextFingerprint(r.Fingerprint, string(r.LabelFingerprint))
		if err := s.tables.rules.Put(tx, *r.SelfLink, rec); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "setLabels", Done: true, TargetLink: *r.SelfLink, TargetID: *r.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesSetLabels200JSONResponse(s.renderOperation(ctx, op)), nil
}

// readableRule and changeableRule find a rule by name or id (see readable).
func (s *Server) readableRule(tx *store.Tx, project, nameOrID string) (RuleRecord, error) {
	return readable(tx, s.tables.rules, s.tables.ruleByID, rulePath(project, nameOrID))
}

func (s *Server) changeableRule(tx *store.Tx, project, nameOrID string) (RuleRecord, error) {
	return changeable(tx, s.tables.rules, s.tables.ruleByID, rulePath(project, nameOrID))
}

func (s *Server) finishRuleInsert(tx *store.Tx, op operations.Record) error {
	return finishInsert(tx, s.tables.rules, op.Op.TargetLink, "forwarding rule")
}

func (s *Server) finishRuleDelete(tx *store.Tx, op operations.Record) error {
	s.tables.rules.Delete(tx, op.Op.TargetLink)
	return nil
}

// newRule checks an insert body and makes the rule it asks for in project, with the id
// and creation time given: the body is the rule, every member it gives kept, and the
// members the server sets filled in (the defaults, the normalized port range, the
// fingerprints); members a client sends back from a read are ignored. It has no IPAddress
// when the body gives none: the caller assigns one. Inserts and the seed share it.
func newRule(project string, b gen.ForwardingRule, id string, created time.Time) (gen.ForwardingRule, error) {
	if err := checkName(b.Name); err != nil {
		return b, err
	}
	labels := labelsOf(b.Labels)
	if err := validateLabels(labels); err != nil {
		return b, err
	}
	if err := checkGlobalRule(b); err != nil {
		return b, err
	}
	// Checked here, not on a patch, which cannot change the address: a rule stored before
	// addresses were checked stays patchable.
	if err := checkIPAddress(deref(b.IPAddress), deref(b.IpVersion)); err != nil {
		return b, err
	}
	portRange, err := normalizePortRange(deref(b.PortRange))
	if err != nil {
		return b, err
	}
	r := b
	// Members of regional products only, accepted when empty or false (checkGlobalRule), and
	// output members of products not modelled, which a rule here never has.
	r.Ports, r.AllPorts, r.AllowGlobalAccess, r.SourceIpRanges, r.ServiceLabel, r.IsMirroringCollector = nil, nil, nil, nil, nil, nil
	r.AttachedExtensions, r.BaseForwardingRule, r.PscConnectionId, r.PscConnectionStatus, r.Region, r.ServiceName = nil, nil, nil, nil, nil, nil
	r.Kind, r.Id, r.CreationTimestamp = ptr("compute#forwardingRule"), &id, ptr(timestamp(created))
	r.SelfLink, r.SelfLinkWithId = ptr(rulePath(project, b.Name)), ptr(rulePath(project, id))
	r.PortRange = optional(portRange)
	unsetEmpty(&r.Description, &r.Target, &r.Network, &r.Subnetwork, &r.BackendService, &r.IpCollection, &r.IPAddress)
	for _, m := range []**bool{&r.AllowPscGlobalAccess, &r.NoAutomateDnsZone} {
		if !deref(*m) {
			*m = nil
		}
	}
	r.IPProtocol = orDefault(r.IPProtocol, gen.ForwardingRuleIPProtocolTCP)
	r.LoadBalancingScheme = orDefault(r.LoadBalancingScheme, gen.ForwardingRuleLoadBalancingSchemeEXTERNAL)
	r.IpVersion = orDefault(r.IpVersion, ipVersionOf(deref(r.IPAddress)))
	r.NetworkTier = orDefault(r.NetworkTier, gen.ForwardingRuleNetworkTierPREMIUM)
	r.Labels = (*gen.Labels)(&labels)
	r.LabelFingerprint, r.Fingerprint = labelFingerprint(labels, 0), firstFingerprint("forwardingRule", id)
	return r, nil
}

// rule is the rule as a read returns it: its links URLs. Members of products understudy
// does not model (PSC connections, attached extensions, internal service names) are
// absent, as on a rule that does not use them.
func (l links) rule(r gen.ForwardingRule) gen.ForwardingRule {
	l.set(&r.SelfLink)
	l.set(&r.SelfLinkWithId)
	r.Labels = shownLabels(r.Labels)
	return r
}

// addressInUse reports whether another rule uses rule's address and protocol on one of its
// ports, which the real service refuses.
func (s *Server) addressInUse(tx *store.Tx, rule gen.ForwardingRule) bool {
	key, ok := addressKey(rule)
	if !ok {
		return false
	}
	lo, hi := portBounds(deref(rule.PortRange))
	inUse := false
	s.tables.ruleAddress.Scan(tx, key, key+"\x00", nil, func(_ store.Cursor, o RuleRecord) bool {
		olo, ohi := portBounds(deref(o.Rule.PortRange))
		inUse = lo <= ohi && olo <= hi
		return !inUse
	})
	return inUse
}

// placeAddress makes sure no rule uses rule's address and protocol on its ports, as the
// real service does, in its words. A rule without an address of its own (draw not nil)
// takes the first of draw(0), draw(1), ... that is free: drawn again in the rare case one
// is taken (a few thousand rules make a first collision likely), 16 times at most.
func (s *Server) placeAddress(tx *store.Tx, rule *gen.ForwardingRule, draw func(try int) string) error {
	for try := 0; ; try++ {
		if draw != nil {
			rule.IPAddress = ptr(draw(try))
		}
		if !s.addressInUse(tx, *rule) {
			return nil
		}
		if draw == nil || try == 15 {
			return invalidField("resource.IPAddress", fmt.Sprintf("Invalid value for field 'resource.IPAddress': '%s'. Specified IP address is in-use and would result in a conflict.", *rule.IPAddress))
		}
	}
}

// ephemeralIP is the address of a rule of the IP version inserted without one.
func (s *Server) ephemeralIP(version gen.ForwardingRuleIpVersion) string {
	var b [3]byte
	s.read(b[:])
	return addressFrom(version, b)
}

// addressFrom is an address of the IP version made from three bytes, where the real
// service's global addresses are: IPv4 in 34.64.0.0/10, IPv6 in 2600:1901::/48.
func addressFrom(version gen.ForwardingRuleIpVersion, b [3]byte) string {
	if version == gen.ForwardingRuleIpVersionIPV6 {
		return fmt.Sprintf("2600:1901:0:%x::%x", uint16(b[0])<<8|uint16(b[1]), b[2])
	}
	return fmt.Sprintf("34.%d.%d.%d", 64+b[0]%64, b[1], 1+b[2]%254)
}

// ForwardingRulesList lists a region's forwarding rules: regional rules are not modelled,
// so every region answers as the real service does for one that holds none, an empty list.
// The list's parameters are still held to their rules.
func (s *Server) ForwardingRulesList(ctx context.Context, req gen.ForwardingRulesListRequestObject) (gen.ForwardingRulesListResponseObject, error) {
	p := req.Params
	if _, err := parseListQuery[gen.ForwardingRule](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults)); err != nil {
		return nil, err
	}
	path := "projects/" + req.Project + "/regions/" + req.Region + "/forwardingRules"
	return gen.ForwardingRulesList200JSONResponse(gen.ForwardingRuleList{Kind: gen.ForwardingRuleListKindComputeForwardingRuleList, Id: path, SelfLink: s.link(ctx, path)}), nil
}

// ForwardingRulesGet gets a regional forwarding rule: there are none (ForwardingRulesList).
func (s *Server) ForwardingRulesGet(ctx context.Context, req gen.ForwardingRulesGetRequestObject) (gen.ForwardingRulesGetResponseObject, error) {
	return nil, notFound("projects/" + req.Project + "/regions/" + req.Region + "/forwardingRules/" + req.ForwardingRule)
}
