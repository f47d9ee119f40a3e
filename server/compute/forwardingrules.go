package compute

import (
	"context"
	"fmt"
	"slices"
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

// ruleScope is where a rule is: the project's global scope when region is "", else that
// region's. A rule's path and its operations' scope are under it.
func ruleScope(project, region string) string {
	if region == "" {
		return globalScope(project)
	}
	return regionScope(project, region)
}

func rulePath(scope, name string) string { return scope + "/forwardingRules/" + name }

// The methods of globalForwardingRules and forwardingRules share one implementation each
// (insertRule, ...), given the rule's region ("" for a global rule).

// GlobalForwardingRulesInsert reserves the name at once (a second insert of it is 409, also
// while the first runs); the rule is readable when the operation is DONE.
func (s *Server) GlobalForwardingRulesInsert(ctx context.Context, req gen.GlobalForwardingRulesInsertRequestObject) (gen.GlobalForwardingRulesInsertResponseObject, error) {
	op, err := s.insertRule(ctx, req.Project, "", req.Params.RequestId, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesInsert200JSONResponse(op), nil
}

// ForwardingRulesInsert is GlobalForwardingRulesInsert in a region of the catalog.
func (s *Server) ForwardingRulesInsert(ctx context.Context, req gen.ForwardingRulesInsertRequestObject) (gen.ForwardingRulesInsertResponseObject, error) {
	op, err := s.insertRule(ctx, req.Project, req.Region, req.Params.RequestId, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.ForwardingRulesInsert200JSONResponse(op), nil
}

func (s *Server) insertRule(ctx context.Context, project, region string, reqID *gen.RequestIdQuery, body gen.ForwardingRule) (gen.Operation, error) {
	requestID, err := checkRequestID(reqID)
	if err != nil {
		return gen.Operation{}, err
	}
	if err := s.checkRuleRegion(region); err != nil {
		return gen.Operation{}, err
	}
	rule, err := newRule(project, region, body, s.newID(), s.cfg.Now())
	if err != nil {
		return gen.Operation{}, err
	}
	var draw func(int) string // the rule's address, when the body gives none
	if rule.IPAddress == nil {
		version, internal := *rule.IpVersion, internalAddress(rule)
		draw = func(int) string { return s.ephemeralIP(version, internal) }
	}
	pending := !s.ops.FinishesAtAccept()
	op, err := s.mutate(ctx, project, ruleScope(project, region), requestID, func(tx *store.Tx) (operations.Start, error) {
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
		return gen.Operation{}, err
	}
	return s.renderOperation(ctx, op), nil
}

// checkRuleRegion refuses a region outside the interconnect location catalog's, which are
// the regions this server has: a rule there could be listed by no aggregated list.
func (s *Server) checkRuleRegion(region string) error {
	if region == "" {
		return nil
	}
	for _, l := range s.locations.byName {
		if slices.Contains(l.Regions, region) {
			return nil
		}
	}
	return invalidField("region", fmt.Sprintf("Invalid value for field 'region': '%s'. Unknown region.", region))
}

// GlobalForwardingRulesDelete accepts a delete; the rule stays readable until it is DONE.
func (s *Server) GlobalForwardingRulesDelete(ctx context.Context, req gen.GlobalForwardingRulesDeleteRequestObject) (gen.GlobalForwardingRulesDeleteResponseObject, error) {
	op, err := s.deleteRule(ctx, req.Project, "", req.ForwardingRule, req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesDelete200JSONResponse(op), nil
}

// ForwardingRulesDelete is GlobalForwardingRulesDelete in a region.
func (s *Server) ForwardingRulesDelete(ctx context.Context, req gen.ForwardingRulesDeleteRequestObject) (gen.ForwardingRulesDeleteResponseObject, error) {
	op, err := s.deleteRule(ctx, req.Project, req.Region, req.ForwardingRule, req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	return gen.ForwardingRulesDelete200JSONResponse(op), nil
}

func (s *Server) deleteRule(ctx context.Context, project, region, name string, reqID *gen.RequestIdQuery) (gen.Operation, error) {
	requestID, err := checkRequestID(reqID)
	if err != nil {
		return gen.Operation{}, err
	}
	scope := ruleScope(project, region)
	op, err := s.mutate(ctx, project, scope, requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.readableRule(tx, scope, name)
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
		return gen.Operation{}, err
	}
	return s.renderOperation(ctx, op), nil
}

// GlobalForwardingRulesGet reads a rule by name or id.
func (s *Server) GlobalForwardingRulesGet(ctx context.Context, req gen.GlobalForwardingRulesGetRequestObject) (gen.GlobalForwardingRulesGetResponseObject, error) {
	r, err := s.getRule(ctx, globalScope(req.Project), req.ForwardingRule)
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesGet200JSONResponse(r), nil
}

// ForwardingRulesGet reads a regional rule by name or id.
func (s *Server) ForwardingRulesGet(ctx context.Context, req gen.ForwardingRulesGetRequestObject) (gen.ForwardingRulesGetResponseObject, error) {
	r, err := s.getRule(ctx, regionScope(req.Project, req.Region), req.ForwardingRule)
	if err != nil {
		return nil, err
	}
	return gen.ForwardingRulesGet200JSONResponse(r), nil
}

func (s *Server) getRule(ctx context.Context, scope, name string) (gen.ForwardingRule, error) {
	var rec RuleRecord
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		rec, err = s.readableRule(tx, scope, name)
		return err
	})
	if err != nil {
		return gen.ForwardingRule{}, err
	}
	return s.links(ctx).rule(rec.Rule), nil
}

// GlobalForwardingRulesList lists a project's readable global rules.
func (s *Server) GlobalForwardingRulesList(ctx context.Context, req gen.GlobalForwardingRulesListRequestObject) (gen.GlobalForwardingRulesListResponseObject, error) {
	p := req.Params
	out, err := s.listRules(ctx, globalScope(req.Project), p.Filter, p.PageToken, p.OrderBy, p.MaxResults)
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesList200JSONResponse(out), nil
}

// ForwardingRulesList lists a project's readable rules in a region (none in a region
// outside the catalog, where no rule can be made).
func (s *Server) ForwardingRulesList(ctx context.Context, req gen.ForwardingRulesListRequestObject) (gen.ForwardingRulesListResponseObject, error) {
	p := req.Params
	out, err := s.listRules(ctx, regionScope(req.Project, req.Region), p.Filter, p.PageToken, p.OrderBy, p.MaxResults)
	if err != nil {
		return nil, err
	}
	return gen.ForwardingRulesList200JSONResponse(out), nil
}

func (s *Server) listRules(ctx context.Context, scope string, filter, pageToken, orderBy *string, maxResults *uint32) (gen.ForwardingRuleList, error) {
	q, err := parseListQuery[gen.ForwardingRule](deref(filter), deref(pageToken), deref(orderBy), maxResultsOf(maxResults))
	if err != nil {
		return gen.ForwardingRuleList{}, err
	}
	path := scope + "/forwardingRules"
	l := s.links(ctx)
	out := gen.ForwardingRuleList{Kind: gen.ForwardingRuleListKindComputeForwardingRuleList, Id: path, SelfLink: l.url(path)}
	err = s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.rules, path+"/", q, func(r RuleRecord) gen.ForwardingRule { return l.rule(r.Rule) })
		return err
	})
	return out, err
}

// GlobalForwardingRulesSetLabels replaces a rule's labels if the caller's fingerprint is the
// current one (compare-and-set at accept; missing or empty counts as stale) and returns a
// DONE operation, as the real service does for label changes. It takes no requestId.
func (s *Server) GlobalForwardingRulesSetLabels(ctx context.Context, req gen.GlobalForwardingRulesSetLabelsRequestObject) (gen.GlobalForwardingRulesSetLabelsResponseObject, error) {
	op, err := s.setRuleLabels(ctx, req.Project, "", req.Resource, nil, req.Body.Labels, req.Body.LabelFingerprint)
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesSetLabels200JSONResponse(op), nil
}

// ForwardingRulesSetLabels is GlobalForwardingRulesSetLabels in a region, with a requestId.
func (s *Server) ForwardingRulesSetLabels(ctx context.Context, req gen.ForwardingRulesSetLabelsRequestObject) (gen.ForwardingRulesSetLabelsResponseObject, error) {
	op, err := s.setRuleLabels(ctx, req.Project, req.Region, req.Resource, req.Params.RequestId, req.Body.Labels, req.Body.LabelFingerprint)
	if err != nil {
		return nil, err
	}
	return gen.ForwardingRulesSetLabels200JSONResponse(op), nil
}

func (s *Server) setRuleLabels(ctx context.Context, project, region, name string, reqID *gen.RequestIdQuery, sent *gen.Labels, fingerprint []byte) (gen.Operation, error) {
	requestID, err := checkRequestID(reqID)
	if err != nil {
		return gen.Operation{}, err
	}
	labels := labelsOf(sent)
	if err := validateLabels(labels); err != nil {
		return gen.Operation{}, err
	}
	scope := ruleScope(project, region)
	op, err := s.mutate(ctx, project, scope, requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableRule(tx, scope, name)
		if err != nil {
			return operations.Start{}, err
		}
		r := &rec.Rule
		if err := checkLabelFingerprint(fingerprint, r.LabelFingerprint); err != nil {
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
		return gen.Operation{}, err
	}
	return s.renderOperation(ctx, op), nil
}

// readableRule and changeableRule find a rule of scope (ruleScope) by name or id (see
// readable).
func (s *Server) readableRule(tx *store.Tx, scope, nameOrID string) (RuleRecord, error) {
	return readable(tx, s.tables.rules, s.tables.ruleByID, rulePath(scope, nameOrID))
}

func (s *Server) changeableRule(tx *store.Tx, scope, nameOrID string) (RuleRecord, error) {
	return changeable(tx, s.tables.rules, s.tables.ruleByID, rulePath(scope, nameOrID))
}

func (s *Server) finishRuleInsert(tx *store.Tx, op operations.Record) error {
	return finishInsert(tx, s.tables.rules, deref(op.Op.TargetLink), "forwarding rule")
}

func (s *Server) finishRuleDelete(tx *store.Tx, op operations.Record) error {
	s.tables.rules.Delete(tx, deref(op.Op.TargetLink))
	return nil
}

// newRule checks an insert body and makes the rule it asks for in project and region ("":
// a global rule), with the id and creation time given: the body is the rule, every member
// it gives kept, and the members the server sets filled in (the defaults, the normalized
// port range, the fingerprints); members a client sends back from a read are ignored. It
// has no IPAddress when the body gives none: the caller assigns one. Inserts and the seed
// share it.
func newRule(project, region string, b gen.ForwardingRule, id string, created time.Time) (gen.ForwardingRule, error) {
	if err := checkName(b.Name); err != nil {
		return b, err
	}
	labels := labelsOf(b.Labels)
	if err := validateLabels(labels); err != nil {
		return b, err
	}
	if err := checkRule(region, b); err != nil {
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
	if region == "" {
		// Members of regional products only, accepted when empty or false (checkGlobalRule).
		r.Ports, r.AllPorts, r.AllowGlobalAccess, r.SourceIpRanges, r.ServiceLabel, r.IsMirroringCollector, r.Region = nil, nil, nil, nil, nil, nil, nil
	} else {
		r.Region = ptr(regionScope(project, region))
		unsetFalse(&r.AllPorts, &r.AllowGlobalAccess, &r.IsMirroringCollector)
		unsetEmpty(&r.ServiceLabel)
		if len(r.Ports) == 0 {
			r.Ports = nil
		}
		if len(r.SourceIpRanges) == 0 {
			r.SourceIpRanges = nil
		}
	}
	// Output members of products not modelled, which a rule here never has.
	r.AttachedExtensions, r.BaseForwardingRule, r.PscConnectionId, r.PscConnectionStatus, r.ServiceName = nil, nil, nil, nil, nil
	scope := ruleScope(project, region)
	r.Kind, r.Id, r.CreationTimestamp = ptr("compute#forwardingRule"), &id, ptr(timestamp(created))
	r.SelfLink, r.SelfLinkWithId = ptr(rulePath(scope, b.Name)), ptr(rulePath(scope, id))
	r.PortRange = optional(portRange)
	unsetEmpty(&r.Description, &r.Target, &r.Network, &r.Subnetwork, &r.BackendService, &r.IpCollection, &r.IPAddress)
	unsetFalse(&r.AllowPscGlobalAccess, &r.NoAutomateDnsZone)
	r.IPProtocol = orDefault(r.IPProtocol, gen.ForwardingRuleIPProtocolTCP)
	r.LoadBalancingScheme = orDefault(r.LoadBalancingScheme, gen.ForwardingRuleLoadBalancingSchemeEXTERNAL)
	r.IpVersion = orDefault(r.IpVersion, ipVersionOf(deref(r.IPAddress)))
	r.NetworkTier = orDefault(r.NetworkTier, gen.ForwardingRuleNetworkTierPREMIUM)
	r.Labels = (*gen.Labels)(&labels)
	r.LabelFingerprint, r.Fingerprint = labelFingerprint(labels, 0), firstFingerprint("forwardingRule", id)
	r.ServiceName = serviceName(project, region, r)
	return r, nil
}

// serviceName is the internal DNS name of a regional internal rule with a serviceLabel, in
// the form the real service documents: <label>.<rule>.il4.<region>.lb.<project>.internal
// (il7 for INTERNAL_MANAGED); nil for any other rule.
func serviceName(project, region string, r gen.ForwardingRule) *string {
	if r.ServiceLabel == nil || region == "" {
		return nil
	}
	layer := "il4"
	if *r.LoadBalancingScheme == gen.ForwardingRuleLoadBalancingSchemeINTERNALMANAGED {
		layer = "il7"
	}
	return ptr(*r.ServiceLabel + "." + r.Name + "." + layer + "." + region + ".lb." + project + ".internal")
}

// unsetFalse makes each false member absent, as the real service leaves them out.
func unsetFalse(members ...**bool) {
	for _, m := range members {
		if !deref(*m) {
			*m = nil
		}
	}
}

// rule is the rule as a read returns it: its links URLs. Members of products understudy
// does not model (PSC connections, attached extensions) are absent, as on a rule that does
// not use them.
func (l links) rule(r gen.ForwardingRule) gen.ForwardingRule {
	l.set(&r.SelfLink)
	l.set(&r.SelfLinkWithId)
	l.set(&r.Region)
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
	inUse := false
	s.tables.ruleAddress.Scan(tx, key, key+"\x00", nil, func(_ store.Cursor, o RuleRecord) bool {
		inUse = portsOverlap(rule, o.Rule)
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

// ephemeralIP is the address of a rule inserted without one (addressFrom).
func (s *Server) ephemeralIP(version gen.ForwardingRuleIpVersion, internal bool) string {
	var b [3]byte
	s.read(b[:])
	return addressFrom(version, internal, b)
}

// internalAddress says whether a rule takes an internal address: a regional rule of an
// internal scheme (addresses are not modelled, so a subnet's range is not known).
func internalAddress(r gen.ForwardingRule) bool {
	scheme := deref(r.LoadBalancingScheme)
	return r.Region != nil && (scheme == gen.ForwardingRuleLoadBalancingSchemeINTERNAL || scheme == gen.ForwardingRuleLoadBalancingSchemeINTERNALMANAGED)
}

// addressFrom is an address of the IP version made from three bytes. External ones are
// where the real service's global addresses are: IPv4 in 34.64.0.0/10, IPv6 in
// 2600:1901::/48; internal ones in the default network's auto-mode range 10.128.0.0/9 and,
// for IPv6, in fd20::/20, where the real service's internal IPv6 ranges are.
func addressFrom(version gen.ForwardingRuleIpVersion, internal bool, b [3]byte) string {
	switch v6 := version == gen.ForwardingRuleIpVersionIPV6; {
	case v6 && internal:
		return fmt.Sprintf("fd20:%x:%x::%x", b[0], b[1], b[2])
	case v6:
		return fmt.Sprintf("2600:1901:0:%x::%x", uint16(b[0])<<8|uint16(b[1]), b[2])
	case internal:
		return fmt.Sprintf("10.%d.%d.%d", 128+b[0]%128, b[1], 2+b[2]%253)
	}
	return fmt.Sprintf("34.%d.%d.%d", 64+b[0]%64, b[1], 1+b[2]%254)
}
