package compute

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/ascii"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/httperr"
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
	rule.Created = s.cfg.Now()
	rule.Pending = !s.ops.FinishesAtAccept()
	// The key and scope are made once, before the transaction: the key serves the lookup,
	// the Put and the operation's target, and nothing is built under the writer lock.
	key, scope := s.newRuleKey(&rule), globalScope(req.Project)
	start := operations.Start{Kind: kindRuleInsert, OperationType: "insert", Target: key, TargetID: rule.ID, Settled: !rule.Pending}
	ts := touchesOfInsert(s.tables.ForwardingRules, key, s.tables.RuleByID, rule.Project, rule.ID)
	op, err := s.mutate(ctx, req.Project, scope, requestID, &ts, func(tx *store.Tx) (operations.Start, error) {
		if _, taken := s.tables.ForwardingRules.Get(tx, key); taken {
			return operations.Start{}, &Error{Status: http.StatusConflict, Reason: "alreadyExists",
				Message: fmt.Sprintf("The resource '%s' already exists", rulePath(req.Project, rule.Name))}
		}
		if err := s.tables.ForwardingRules.Put(tx, key, rule); err != nil {
			return operations.Start{}, err
		}
		return start, nil
	})
	if err != nil {
		return nil, err
	}
	return s.replyOperation(ctx, op), nil
}

// GlobalForwardingRulesDelete accepts a delete; the rule stays readable until it is DONE.
func (s *Server) GlobalForwardingRulesDelete(ctx context.Context, req gen.GlobalForwardingRulesDeleteRequestObject) (gen.GlobalForwardingRulesDeleteResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, nil, func(tx *store.Tx) (operations.Start, error) {
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
	return s.replyOperation(ctx, op), nil
}

// GlobalForwardingRulesGet reads a rule by name or id.
func (s *Server) GlobalForwardingRulesGet(ctx context.Context, req gen.GlobalForwardingRulesGetRequestObject) (gen.GlobalForwardingRulesGetResponseObject, error) {
	var rule store.ForwardingRule
	err := s.db.View(func(tx *store.Tx) error {
		var err error
		rule, err = s.readableRule(tx, req.Project, req.ForwardingRule)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.replyRule(ctx, rule), nil
}

// GlobalForwardingRulesList lists a project's readable rules.
func (s *Server) GlobalForwardingRulesList(ctx context.Context, req gen.GlobalForwardingRulesListRequestObject) (gen.GlobalForwardingRulesListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery(deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	var rules []store.ForwardingRule
	if err := s.db.View(func(tx *store.Tx) error {
		prefix := req.Project + "|"
		s.tables.RulesByName.Scan(tx, prefix, prefix+"\xff", nil, func(_ store.Cursor, r store.ForwardingRule) bool {
			if !r.Pending {
				rules = append(rules, r)
			}
			return true
		})
		return nil
	}); err != nil {
		return nil, err
	}
	items := make([]listItem, len(rules))
	for i, r := range rules {
		items[i] = listItem{name: r.Name, created: r.Created}
	}
	idx, next := page(items, q)
	path := globalScope(req.Project) + "/forwardingRules"
	out := gen.ForwardingRuleList{Kind: gen.ForwardingRuleListKindComputeForwardingRuleList, Id: path, SelfLink: s.link(ctx, path)}
	for _, i := range idx {
		out.Items = append(out.Items, s.renderRule(ctx, rules[i]))
	}
	if next != "" {
		out.NextPageToken = &next
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
	scope := globalScope(req.Project) // once: the operation's scope and the target's link
	op, err := s.mutate(ctx, req.Project, scope, "", nil, func(tx *store.Tx) (operations.Start, error) {
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
			TargetLink: s.link3(ctx, scope, "/forwardingRules/", rule.Name), TargetID: rule.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return s.replyOperation(ctx, op), nil
}

// mutate runs a mutation's accept step and starts its operation, in scope (the project's
// global operations when ""), in one transaction. A requestId seen before in the scope
// returns the original operation and changes nothing. ts, if not nil, holds the keys
// accept will look up: with the requestId's and the new operation's (made before the
// transaction), they are read together before any lookup (store.Touches), and wait for
// memory once.
func (s *Server) mutate(ctx context.Context, project, scope, requestID string, ts *store.Touches, accept func(tx *store.Tx) (operations.Start, error)) (store.Operation, error) {
	if scope == "" {
		scope = globalScope(project)
	}
	var ident operations.Identity
	if ts != nil {
		ident = s.ops.Prepare(ts, scope, requestID) // made and hashed before the writer lock is taken
	}
	var op store.Operation
	err := s.db.Update(func(tx *store.Tx) error {
		if ts != nil {
			ts.Read(tx)
		}
		if prior, ok := s.ops.Existing(tx, scope, requestID); ok {
			op = prior
			return nil
		}
		start, err := accept(tx)
		if err != nil {
			return err
		}
		start.Project, start.Scope, start.RequestID, start.User = project, scope, requestID, userFrom(ctx)
		start.Identity = ident
		op, err = s.ops.Begin(tx, start)
		return err
	})
	return op, err
}

// touchesOfInsert is what an insert of a resource under key, with the new id in project,
// looks up: its key in t (taken?) and its id in ids (the index of project and id, keyed
// as store.AppendKey joins them).
func touchesOfInsert[R any](t *store.Table[R], key string, ids *store.Unique[R], project, id string) store.Touches {
	var ts store.Touches
	store.TouchKey(&ts, t, key)
	var buf [128]byte
	store.TouchUnique(&ts, ids, store.AppendKey(buf[:0], project, id))
	return ts
}

// readableRule finds a rule by name or id; one whose insert is still running is not there yet.
func (s *Server) readableRule(tx *store.Tx, project, nameOrID string) (store.ForwardingRule, error) {
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
// in errors) is no longer pending (settle clears the flag and says whether it was set). One
// stored finished already, because its operation finished at accept, is left as it is.
func finishInsert[R any](tx *store.Tx, t *store.Table[R], key, what string, settle func(R) (R, bool)) error {
	r, ok := t.Get(tx, key)
	if !ok {
		return fmt.Errorf("%s %s: %w", what, key, store.ErrNotFound)
	}
	if r, changed := settle(r); changed {
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

func ruleDeleting(r *store.ForwardingRule) *bool               { return &r.Deleting }
func interconnectDeleting(i *store.Interconnect) *bool         { return &i.Deleting }
func attachmentDeleting(a *store.InterconnectAttachment) *bool { return &a.Deleting }
func groupDeleting(g *store.AttachmentGroup) *bool             { return &g.Deleting }

// settleRule, settleInterconnect, settleAttachment and settleGroup are finishInsert's
// settle for each kind: the resource with Pending cleared, and whether it was set. (They
// take and return values: a pointer handed to a function value would move the resource to
// the heap on every insert.)
func settleRule(r store.ForwardingRule) (store.ForwardingRule, bool) {
	p := r.Pending
	r.Pending = false
	return r, p
}

func settleInterconnect(i store.Interconnect) (store.Interconnect, bool) {
	p := i.Pending
	i.Pending = false
	return i, p
}

func settleAttachment(a store.InterconnectAttachment) (store.InterconnectAttachment, bool) {
	p := a.Pending
	a.Pending = false
	return a, p
}

func settleGroup(g store.AttachmentGroup) (store.AttachmentGroup, bool) {
	p := g.Pending
	g.Pending = false
	return g, p
}

func (s *Server) finishRuleInsert(tx *store.Tx, op store.Operation) error {
	return finishInsert(tx, s.tables.ForwardingRules, op.Target, "forwarding rule", settleRule)
}

func (s *Server) finishRuleDelete(tx *store.Tx, op store.Operation) error {
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
	s := ascii.Lower(*id)
	if s == "00000000-0000-0000-0000-000000000000" {
		return "", invalidField("requestId", fmt.Sprintf("Invalid value for field 'requestId': '%s'. The requestId must be a valid UUID other than the zero UUID.", s))
	}
	return s, nil
}

// ruleFromRequest checks an insert body and builds the rule it asks for (without id or
// creation time); output-only members are ignored. Inserts and the seed share it.
func ruleFromRequest(project string, b gen.ForwardingRule) (store.ForwardingRule, error) {
	if err := checkName(b.Name); err != nil {
		return store.ForwardingRule{}, err
	}
	labels := map[string]string(deref(b.Labels))
	if err := validateLabels(labels); err != nil {
		return store.ForwardingRule{}, err
	}
	r := store.ForwardingRule{
		Project: project, Name: b.Name, Description: deref(b.Description), IPAddress: deref(b.IPAddress),
		PortRange: deref(b.PortRange), Target: deref(b.Target), Network: deref(b.Network),
		IPProtocol: "TCP", LoadBalancingScheme: "EXTERNAL", IPVersion: "IPV4", Labels: labels,
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

func (s *Server) renderRule(ctx context.Context, r store.ForwardingRule) gen.ForwardingRule {
	return s.wireRule(ctx, r).ForwardingRule
}

// ruleWire is a rule in its wire form together with every value its pointers point to, so
// that rendering one allocates once rather than once per field.
type ruleWire struct {
	gen.ForwardingRule
	r                   store.ForwardingRule
	kind, created, self string
	proto               gen.ForwardingRuleIPProtocol
	scheme              gen.ForwardingRuleLoadBalancingScheme
	version             gen.ForwardingRuleIpVersion
	labels              gen.Labels
}

func (s *Server) wireRule(ctx context.Context, rule store.ForwardingRule) *ruleWire {
	return s.wireRuleInto(new(ruleWire), ctx, rule)
}

// wireRuleInto renders rule into w (whatever w held before).
func (s *Server) wireRuleInto(w *ruleWire, ctx context.Context, rule store.ForwardingRule) *ruleWire {
	*w = ruleWire{r: rule, kind: "compute#forwardingRule", created: timestamp(rule.Created),
		proto: gen.ForwardingRuleIPProtocol(rule.IPProtocol), scheme: gen.ForwardingRuleLoadBalancingScheme(rule.LoadBalancingScheme),
		version: gen.ForwardingRuleIpVersion(rule.IPVersion), labels: gen.Labels(rule.Labels)}
	r := &w.r
	w.self = s.link3(ctx, globalScope(r.Project), "/forwardingRules/", r.Name) // rulePath
	if w.labels == nil {
		w.labels = gen.Labels{}
	}
	w.ForwardingRule = gen.ForwardingRule{
		Kind: &w.kind, Id: &r.ID, Name: r.Name, CreationTimestamp: &w.created, SelfLink: &w.self,
		IPAddress: &r.IPAddress, IPProtocol: &w.proto, LoadBalancingScheme: &w.scheme, IpVersion: &w.version,
		Labels: &w.labels, LabelFingerprint: labelFingerprint(r.Labels, r.LabelGeneration),
		Fingerprint: ruleFingerprint(*r),
		Description: optionalIn(&r.Description), PortRange: optionalIn(&r.PortRange), Target: optionalIn(&r.Target), Network: optionalIn(&r.Network),
	}
	return w
}

// ruleReply is gen.GlobalForwardingRulesGet200JSONResponse, the same JSON written from a
// pooled buffer. It is visited once, by the generated strict handler, and nothing keeps it
// or what it points to afterwards: it goes back to a pool once written.
type ruleReply ruleWire

var ruleReplies = sync.Pool{New: func() any { return new(ruleReply) }}

func (s *Server) replyRule(ctx context.Context, rule store.ForwardingRule) *ruleReply {
	return (*ruleReply)(s.wireRuleInto((*ruleWire)(ruleReplies.Get().(*ruleReply)), ctx, rule))
}

func (r *ruleReply) VisitGlobalForwardingRulesGetResponse(w http.ResponseWriter) error {
	err := httperr.WriteJSON(w, http.StatusOK, (*gen.GlobalForwardingRulesGet200JSONResponse)(&r.ForwardingRule))
	*r = ruleReply{}
	ruleReplies.Put(r)
	return err
}

// ruleFingerprint is the rule's whole-resource fingerprint. Nothing but labels can change on
// a rule here (there is no patch), and labels have their own fingerprint, so it is stable.
func ruleFingerprint(r store.ForwardingRule) []byte {
	var buf [128]byte
	b := append(append(append(append(buf[:0], "forwardingRule|"...), r.Project...), '|'), r.ID...)
	sum := sha256.Sum256(b)
	return sum[:8]
}

// appendEphemeralIP appends the address made from 3 random bytes b, for a rule inserted
// without one: as fmt.Sprintf("34.%d.%d.%d", ...), without boxing three numbers.
func appendEphemeralIP(ip, b []byte) []byte {
	ip = append(ip, "34."...)
	ip = strconv.AppendUint(ip, uint64(64+b[0]%64), 10)
	ip = strconv.AppendUint(append(ip, '.'), uint64(b[1]), 10)
	return strconv.AppendUint(append(ip, '.'), uint64(1+b[2]%254), 10)
}

// newRuleKey gives a new rule its id, and its ephemeral address if it has none, and
// returns its key (ForwardingRule.Key), all pieces of one string (see keyAndID).
func (s *Server) newRuleKey(rule *store.ForwardingRule) string {
	ephemeral := rule.IPAddress == ""
	all, k, i := s.keyAndID(rule.Project, rule.Name, ephemeral)
	rule.Name, rule.ID = all[len(rule.Project)+1:k], all[k:i]
	if ephemeral {
		rule.IPAddress = all[i:]
	}
	return all[:k]
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optionalIn is optional for a string that already lives where the pointer may point.
func optionalIn(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}
