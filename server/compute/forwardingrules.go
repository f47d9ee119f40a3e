package compute

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
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
	rule, err := ruleFromRequest(req.Project, *req.Body)
	if err != nil {
		return nil, err
	}
	rule.ID, rule.Created, rule.Pending = s.newID(), s.cfg.Now(), !s.ops.FinishesAtAccept()
	if rule.IPAddress == "" {
		rule.IPAddress = s.ephemeralIP()
	}
	key := rule.Key()
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		if _, taken := s.tables.ForwardingRules.Get(tx, key); taken {
			return operations.Start{}, alreadyExists(rulePath(req.Project, rule.Name))
		}
		if err := s.tables.ForwardingRules.Put(tx, key, rule); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{Kind: kindRuleInsert, OperationType: "insert", Target: key, TargetID: rule.ID, Settled: !rule.Pending}, nil
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
		rule, err := s.readableRule(tx, req.Project, req.ForwardingRule)
		if err != nil {
			return operations.Start{}, err
		}
		if err := beginDelete(s, tx, s.tables.ForwardingRules, rule, rulePath(rule.Project, rule.Name), ruleDeleting); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{Kind: kindRuleDelete, OperationType: "delete", Target: rule.Key(),
			TargetID: rule.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

// GlobalForwardingRulesGet reads a rule by name or id.
func (s *Server) GlobalForwardingRulesGet(ctx context.Context, req gen.GlobalForwardingRulesGetRequestObject) (gen.GlobalForwardingRulesGetResponseObject, error) {
	var rule ForwardingRule
	err := s.db.View(func(tx *store.Tx) error {
		var err error
		rule, err = s.readableRule(tx, req.Project, req.ForwardingRule)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesGet200JSONResponse(s.renderRule(ctx, rule)), nil
}

// GlobalForwardingRulesList lists a project's readable rules.
func (s *Server) GlobalForwardingRulesList(ctx context.Context, req gen.GlobalForwardingRulesListRequestObject) (gen.GlobalForwardingRulesListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.ForwardingRule](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := globalScope(req.Project) + "/forwardingRules"
	out := gen.ForwardingRuleList{Kind: gen.ForwardingRuleListKindComputeForwardingRuleList, Id: path, SelfLink: s.link(ctx, path)}
	if err := s.db.View(func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.RulesByName, req.Project+"|", q, func(r ForwardingRule) gen.ForwardingRule { return s.renderRule(ctx, r) })
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
	labels := map[string]string(deref(req.Body.Labels))
	if labels == nil {
		labels = map[string]string{}
	}
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", "", func(tx *store.Tx) (operations.Start, error) {
		rule, err := s.readableRule(tx, req.Project, req.Resource)
		if err != nil {
			return operations.Start{}, err
		}
		if rule.Deleting {
			return operations.Start{}, notReady(rulePath(rule.Project, rule.Name))
		}
		if len(req.Body.LabelFingerprint) == 0 || !bytes.Equal(req.Body.LabelFingerprint, labelFingerprint(rule.Labels, rule.LabelGeneration)) {
			return operations.Start{}, &Error{Status: http.StatusPreconditionFailed, Reason: "conditionNotMet",
				Message: "Labels fingerprint either invalid or resource labels have changed", Location: "If-Match", LocationType: gen.GoogleErrorItemLocationTypeHeader}
		}
		rule.Labels = labels
		rule.LabelGeneration++
		if err := s.tables.ForwardingRules.Put(tx, rule.Key(), rule); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "setLabels", Done: true,
			TargetLink: s.link(ctx, rulePath(rule.Project, rule.Name)), TargetID: rule.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesSetLabels200JSONResponse(s.renderOperation(ctx, op)), nil
}

// mutate runs a mutation's accept step and starts its operation, in scope (the project's
// global operations when ""), in one transaction. A requestId seen before in the scope
// returns the original operation and changes nothing.
func (s *Server) mutate(ctx context.Context, project, scope, requestID string, accept func(tx *store.Tx) (operations.Start, error)) (operations.Operation, error) {
	if scope == "" {
		scope = globalScope(project)
	}
	var op operations.Operation
	err := s.db.Update(func(tx *store.Tx) error {
		if prior, ok := s.ops.Existing(tx, scope, requestID); ok {
			op = prior
			return nil
		}
		start, err := accept(tx)
		if err != nil {
			return err
		}
		start.Project, start.Scope, start.RequestID, start.User = project, scope, requestID, userFrom(ctx)
		op, err = s.ops.Begin(tx, start)
		return err
	})
	return op, err
}

// errValidateOnly rolls back a mutation that was only to be checked.
var errValidateOnly = errors.New("compute: validateOnly")

// validateOnly decides a mutation as mutate does and then rolls every change back, the
// operation's record and its requestId included (validateOnly=true): the answer is the
// operation the request would have started, DONE, since nothing is left to wait for.
func (s *Server) validateOnly(ctx context.Context, project, scope, _ string, accept func(tx *store.Tx) (operations.Start, error)) (operations.Operation, error) {
	var op operations.Operation
	err := s.db.Update(func(tx *store.Tx) error {
		start, err := accept(tx)
		if err != nil {
			return err
		}
		start.Project, start.Scope, start.User = project, scope, userFrom(ctx)
		if op, err = s.ops.Begin(tx, start); err != nil {
			return err
		}
		return errValidateOnly
	})
	if !errors.Is(err, errValidateOnly) {
		return op, err
	}
	op.Status, op.Progress = "DONE", 100
	if op.StartTime.IsZero() {
		op.StartTime = op.InsertTime
	}
	if op.EndTime.IsZero() {
		op.EndTime = op.InsertTime
	}
	return op, nil
}

// readableRule finds a rule by name or id; one whose insert is still running is not there yet.
func (s *Server) readableRule(tx *store.Tx, project, nameOrID string) (ForwardingRule, error) {
	rule, ok := s.tables.ForwardingRules.Get(tx, project+"|"+nameOrID)
	if !ok {
		_, rule, ok = s.tables.RuleByID.Get(tx, project+"|"+nameOrID)
	}
	if !ok || rule.Pending {
		return rule, notFound(rulePath(project, nameOrID))
	}
	return rule, nil
}

// finishInsert is an insert's finisher: the resource stored under key (what names its kind
// in errors) is no longer pending. One stored finished already, because its operation
// finished at accept, is left as it is.
func finishInsert[R any](tx *store.Tx, t *store.Table[R], key, what string, pending func(*R) *bool) error {
	r, ok := t.Get(tx, key)
	if !ok {
		return fmt.Errorf("%s %s: %w", what, key, store.ErrNotFound)
	}
	if p := pending(&r); *p {
		*p = false
		return t.Put(tx, key, r)
	}
	return nil
}

// beginDelete refuses to delete r, stored in t, while another delete of it runs
// (resourceNotReady, naming path), and marks it as being deleted until its delete's
// operation finishes: deleting is r's Deleting flag. With operations that finish at accept
// the finisher deletes r at once, in the same transaction, so there is nothing to mark. A
// delete refused later in its transaction rolls the mark back.
func beginDelete[R interface{ Key() string }](s *Server, tx *store.Tx, t *store.Table[R], r R, path string, deleting func(*R) *bool) error {
	if *deleting(&r) {
		return notReady(path)
	}
	if s.ops.FinishesAtAccept() {
		return nil
	}
	*deleting(&r) = true
	return t.Put(tx, r.Key(), r)
}

// The lifecycle flags of each kind, for finishInsert and beginDelete.
func rulePending(r *ForwardingRule) *bool                { return &r.Pending }
func ruleDeleting(r *ForwardingRule) *bool               { return &r.Deleting }
func interconnectPending(i *Interconnect) *bool          { return &i.Pending }
func interconnectDeleting(i *Interconnect) *bool         { return &i.Deleting }
func attachmentPending(a *InterconnectAttachment) *bool  { return &a.Pending }
func attachmentDeleting(a *InterconnectAttachment) *bool { return &a.Deleting }
func groupPending(g *AttachmentGroup) *bool              { return &g.Pending }
func groupDeleting(g *AttachmentGroup) *bool             { return &g.Deleting }

func (s *Server) finishRuleInsert(tx *store.Tx, op operations.Operation) error {
	return finishInsert(tx, s.tables.ForwardingRules, op.Target, "forwarding rule", rulePending)
}

func (s *Server) finishRuleDelete(tx *store.Tx, op operations.Operation) error {
	_, _, err := s.tables.ForwardingRules.Delete(tx, op.Target)
	return err
}

// checkRequestID accepts a missing requestId or a UUID other than the nil UUID, and
// returns it in lower case, so that a retry spelling it in upper case is the same request.
// The validator has matched the requestId against the canonical pattern (8-4-4-4-12 hex
// digits), so lower case is the only difference two spellings of one UUID can have.
func checkRequestID(id *gen.RequestIdQuery) (string, error) {
	if id == nil {
		return "", nil
	}
	s := strings.ToLower(*id)
	if s == "00000000-0000-0000-0000-000000000000" {
		return "", invalidField("requestId", fmt.Sprintf("Invalid value for field 'requestId': '%s'. The requestId must be a valid UUID other than the zero UUID.", s))
	}
	return s, nil
}

// ruleFromRequest checks an insert body and builds the rule it asks for (without id or
// creation time); output-only members are ignored. Inserts and the seed share it.
func ruleFromRequest(project string, b gen.ForwardingRule) (ForwardingRule, error) {
	if err := checkName(b.Name); err != nil {
		return ForwardingRule{}, err
	}
	labels := map[string]string(deref(b.Labels))
	if err := validateLabels(labels); err != nil {
		return ForwardingRule{}, err
	}
	if err := checkGlobalRule(b); err != nil {
		return ForwardingRule{}, err
	}
	portRange, err := normalizePortRange(deref(b.PortRange))
	if err != nil {
		return ForwardingRule{}, err
	}
	r := ForwardingRule{
		Project: project, Name: b.Name, Description: deref(b.Description), IPAddress: deref(b.IPAddress),
		PortRange: portRange, Target: deref(b.Target), Network: deref(b.Network),
		IPProtocol: "TCP", LoadBalancingScheme: "EXTERNAL", IPVersion: "IPV4", NetworkTier: "PREMIUM", Labels: labels,
		Subnetwork: deref(b.Subnetwork), BackendService: deref(b.BackendService), IPCollection: deref(b.IpCollection),
		AllowPscGlobalAccess: deref(b.AllowPscGlobalAccess), NoAutomateDNSZone: deref(b.NoAutomateDnsZone),
		MigrationState: string(deref(b.ExternalManagedBackendBucketMigrationState)), MigrationPercentage: b.ExternalManagedBackendBucketMigrationTestingPercentage,
		MetadataFilters: keepJSON(b.MetadataFilters), ServiceDirectoryRegistrations: keepJSON(b.ServiceDirectoryRegistrations),
	}
	if b.IPProtocol != nil {
		r.IPProtocol = string(*b.IPProtocol)
	}
	if b.LoadBalancingScheme != nil {
		r.LoadBalancingScheme = string(*b.LoadBalancingScheme)
	}
	if b.IpVersion != nil {
		r.IPVersion = string(*b.IpVersion)
	}
	return r, nil
}

// renderRule is the wire form of a rule. Members of products understudy does not model
// (PSC connections, attached extensions, internal service names) are absent, as on a rule
// that does not use them.
func (s *Server) renderRule(ctx context.Context, r ForwardingRule) gen.ForwardingRule {
	labels := gen.Labels(r.Labels)
	if labels == nil {
		labels = gen.Labels{}
	}
	out := gen.ForwardingRule{
		Kind: ptr("compute#forwardingRule"), Id: &r.ID, Name: r.Name, CreationTimestamp: ptr(timestamp(r.Created)),
		SelfLink: ptr(s.link(ctx, rulePath(r.Project, r.Name))), SelfLinkWithId: ptr(s.link(ctx, rulePath(r.Project, r.ID))),
		Description: optional(r.Description),
		IPAddress:   &r.IPAddress, IPProtocol: ptr(gen.ForwardingRuleIPProtocol(r.IPProtocol)), PortRange: optional(r.PortRange),
		Target: optional(r.Target), Network: optional(r.Network), Subnetwork: optional(r.Subnetwork),
		BackendService: optional(r.BackendService), IpCollection: optional(r.IPCollection),
		LoadBalancingScheme: ptr(gen.ForwardingRuleLoadBalancingScheme(r.LoadBalancingScheme)), IpVersion: ptr(gen.ForwardingRuleIpVersion(r.IPVersion)),
		NetworkTier: ptr(gen.ForwardingRuleNetworkTier(r.NetworkTier)),
		Labels:      &labels, LabelFingerprint: labelFingerprint(r.Labels, r.LabelGeneration), Fingerprint: ruleFingerprint(r),
		MetadataFilters:               fromJSON[[]gen.MetadataFilter](r.MetadataFilters),
		ServiceDirectoryRegistrations: fromJSON[[]gen.ForwardingRuleServiceDirectoryRegistration](r.ServiceDirectoryRegistrations),
		ExternalManagedBackendBucketMigrationTestingPercentage: r.MigrationPercentage,
	}
	if r.AllowPscGlobalAccess {
		out.AllowPscGlobalAccess = &r.AllowPscGlobalAccess
	}
	if r.NoAutomateDNSZone {
		out.NoAutomateDnsZone = &r.NoAutomateDNSZone
	}
	if r.MigrationState != "" {
		out.ExternalManagedBackendBucketMigrationState = ptr(gen.ForwardingRuleExternalManagedBackendBucketMigrationState(r.MigrationState))
	}
	return out
}

// ruleFingerprint is the rule's whole-resource fingerprint, "a hash of the contents": it is
// derived from every stored member (labels and the generation counters included), so any
// change of the rule changes it (patch, setTarget, setLabels), nothing else does, and a
// change undone (A, B, A again) still yields a new value, as optimistic locking needs.
func ruleFingerprint(r ForwardingRule) []byte {
	// What is not content, or is content in two spellings (no labels), is left out, so that
	// a rule exported and loaded back has the fingerprint it had.
	r.Pending, r.Deleting, r.Created = false, false, time.Time{}
	if len(r.Labels) == 0 {
		r.Labels = nil
	}
	b, _ := json.Marshal(r) // a plain struct: it always encodes, maps in key order
	sum := sha256.Sum256(append([]byte("forwardingRule|"), b...))
	return sum[:8]
}

// ephemeralIP is the address of a rule inserted without one.
func (s *Server) ephemeralIP() string {
	var b [3]byte
	s.read(b[:])
	return fmt.Sprintf("34.%d.%d.%d", 64+b[0]%64, b[1], 1+b[2]%254)
}
