package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
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

// labelsGiven are the labels a patch body sends (l) and whether it sends any: empty labels
// without a labelFingerprint (fingerprint) send none, and with one they are the labels.
// In the proto3 JSON the API is transcoded from, an empty map is no map at all, so
// "labels": {} and no labels member read alike: Google's Node client writes every map of
// the resource, empty ones included, into each patch body, and its GAPIC Go client leaves
// them out. Clearing labels through a patch takes the fingerprint, as `gcloud beta compute
// interconnects update --clear-labels` sends it.
func labelsGiven(l *gen.Labels, fingerprint []byte) (map[string]string, bool) {
	var m map[string]string
	if l != nil {
		m = *l
	}
	if len(m) == 0 && len(fingerprint) == 0 {
		return nil, false
	}
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
func checkLabelFingerprint(sent, current []byte) error {
	if len(sent) == 0 || !bytes.Equal(sent, current) {
		return staleLabels()
	}
	return nil
}

// GlobalForwardingRulesPatch applies a JSON merge patch to a rule. The real method says it
// patches networkTier only; its discovery document also has the backend bucket migration
// moved through states on the rule (externalManagedBackendBucketMigrationState, its
// testing percentage, and then loadBalancingScheme between EXTERNAL and EXTERNAL_MANAGED),
// so those change here too. Every other member must be sent as it is (or not at all). The
// patched rule is held to the insert's rules (checkGlobalRule): a global rule is PREMIUM.
func (s *Server) GlobalForwardingRulesPatch(ctx context.Context, req gen.GlobalForwardingRulesPatchRequestObject) (gen.GlobalForwardingRulesPatchResponseObject, error) {
	op, err := s.patchRule(ctx, req.Project, "", req.ForwardingRule, req.Params.RequestId, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesPatch200JSONResponse(op), nil
}

// ForwardingRulesPatch is GlobalForwardingRulesPatch in a region, held to the regional
// insert's rules (checkRegionalRule); an INTERNAL rule's allowGlobalAccess changes too.
func (s *Server) ForwardingRulesPatch(ctx context.Context, req gen.ForwardingRulesPatchRequestObject) (gen.ForwardingRulesPatchResponseObject, error) {
	op, err := s.patchRule(ctx, req.Project, req.Region, req.ForwardingRule, req.Params.RequestId, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.ForwardingRulesPatch200JSONResponse(op), nil
}

func (s *Server) patchRule(ctx context.Context, project, region, name string, reqID *gen.RequestIdQuery, b gen.ForwardingRule) (gen.Operation, error) {
	requestID, err := checkRequestID(reqID)
	if err != nil {
		return gen.Operation{}, err
	}
	sent, err := sentMembers(b)
	if err != nil {
		return gen.Operation{}, err
	}
	sent = withNulls(sent, nullMembers(ctx))
	scope := ruleScope(project, region)
	op, err := s.mutate(ctx, project, scope, requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableRule(tx, scope, name)
		if err != nil {
			return operations.Start{}, err
		}
		r := rec.Rule
		if len(b.Fingerprint) > 0 && !bytes.Equal(b.Fingerprint, r.Fingerprint) {
			return operations.Start{}, staleFingerprint()
		}
		next, err := patchedRule(s.links(ctx).rule(r), r, b, sent, region)
		if err != nil {
			return operations.Start{}, err
		}
		if change := ruleChange(r, next); change != "" {
			next.Fingerprint = nextFingerprint(r.Fingerprint, change)
			rec.Rule = next
			if err := s.tables.rules.Put(tx, *r.SelfLink, rec); err != nil {
				return operations.Start{}, err
			}
		}
		return operations.Start{OperationType: "patch", Done: true, TargetLink: *r.SelfLink, TargetID: *r.Id}, nil
	})
	if err != nil {
		return gen.Operation{}, err
	}
	return s.renderOperation(ctx, op), nil
}

// sentMembers are the members a patch body gives, by their wire names, as JSON.
func sentMembers(b gen.ForwardingRule) (map[string]json.RawMessage, error) { return jsonMembers(b) }

// rulePatchable are the members a rule's patch may change; rulePatchIgnored are output
// members (ignored when sent back, as on insert) and those with their own checks.
var (
	rulePatchable = map[string]bool{"networkTier": true, "externalManagedBackendBucketMigrationState": true,
		"externalManagedBackendBucketMigrationTestingPercentage": true, "loadBalancingScheme": true}
	rulePatchIgnored = map[string]bool{"kind": true, "id": true, "creationTimestamp": true, "selfLink": true,
		"selfLinkWithId": true, "attachedExtensions": true, "baseForwardingRule": true, "pscConnectionId": true,
		"pscConnectionStatus": true, "region": true, "serviceName": true, "fingerprint": true, "labelFingerprint": true, "labels": true}
)

// patchedRule is r, a rule of region ("" for global), with the patch b applied: cur is r
// as a read returns it, sent the members b gives.
func patchedRule(cur, r, b gen.ForwardingRule, sent map[string]json.RawMessage, region string) (gen.ForwardingRule, error) {
	if labels, ok := labelsGiven(b.Labels, b.LabelFingerprint); ok && !maps.Equal(labels, labelsOf(r.Labels)) && !(len(labels) == 0 && len(labelsOf(r.Labels)) == 0) {
		return r, invalidField("resource.labels", "Invalid value for field 'resource.labels'. Labels of a forwarding rule change only through setLabels.")
	}
	// The merge patch: the sent members over the rule as get returns it, decoded into a
	// copy that shares no memory with cur (or with r, which cur points into).
	curJSON, _ := sentMembers(cur)
	var merged gen.ForwardingRule
	whole, _ := json.Marshal(cur)
	raw, _ := json.Marshal(b)
	if err := json.Unmarshal(whole, &merged); err != nil {
		return r, err
	}
	merged.Labels = nil
	if err := json.Unmarshal(raw, &merged); err != nil {
		return r, err
	}
	// Members given as null are removed; a removed networkTier or loadBalancingScheme is
	// what an insert without it gets.
	var nulls []string
	for k, v := range sent {
		if string(v) == "null" {
			nulls = append(nulls, k)
		}
	}
	merged, err := removeMembers(merged, nulls)
	if err != nil {
		return r, err
	}
	merged.NetworkTier = orDefault(merged.NetworkTier, gen.ForwardingRuleNetworkTierPREMIUM)
	merged.LoadBalancingScheme = orDefault(merged.LoadBalancingScheme, gen.ForwardingRuleLoadBalancingSchemeEXTERNAL)
	if b.PortRange != nil {
		pr, err := normalizePortRange(*b.PortRange)
		if err != nil {
			return r, err
		}
		merged.PortRange = &pr
	}
	// A migration state other than TEST_BY_PERCENTAGE, sent without a percentage, ends the
	// percentage the rule had.
	if _, ok := sent["externalManagedBackendBucketMigrationTestingPercentage"]; !ok &&
		deref(merged.ExternalManagedBackendBucketMigrationState) != gen.ForwardingRuleExternalManagedBackendBucketMigrationStateTESTBYPERCENTAGE {
		merged.ExternalManagedBackendBucketMigrationTestingPercentage = nil
	}
	keys := make([]string, 0, len(sent))
	for k := range sent {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	mergedJSON, _ := sentMembers(merged)
	// allowGlobalAccess of an INTERNAL rule can change after it is created (the discovery
	// document says an INTERNAL_MANAGED rule's cannot).
	globalAccess := region != "" && deref(r.LoadBalancingScheme) == gen.ForwardingRuleLoadBalancingSchemeINTERNAL
	for _, k := range keys {
		if rulePatchable[k] || rulePatchIgnored[k] || bytes.Equal(curJSON[k], mergedJSON[k]) || globalAccess && k == "allowGlobalAccess" {
			continue
		}
		return r, invalidField("resource."+k, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. The field cannot be changed by patch.", k, strings.Trim(string(sent[k]), `"`)))
	}
	if err := checkRule(region, merged); err != nil {
		return r, err
	}
	next := r
	if globalAccess {
		next.AllowGlobalAccess = merged.AllowGlobalAccess
		unsetFalse(&next.AllowGlobalAccess)
	}
	next.NetworkTier = merged.NetworkTier
	next.ExternalManagedBackendBucketMigrationState = merged.ExternalManagedBackendBucketMigrationState
	next.ExternalManagedBackendBucketMigrationTestingPercentage = merged.ExternalManagedBackendBucketMigrationTestingPercentage
	next.LoadBalancingScheme = merged.LoadBalancingScheme
	if deref(next.LoadBalancingScheme) != deref(r.LoadBalancingScheme) {
		if err := checkSchemeMigration(r, next, sent); err != nil {
			return r, err
		}
	}
	return next, nil
}

// checkSchemeMigration allows the scheme changes of a backend bucket migration, as the
// discovery document describes them: EXTERNAL to EXTERNAL_MANAGED once the state is
// TEST_ALL_TRAFFIC, and back with the state set to TEST_ALL_TRAFFIC in the same patch.
func checkSchemeMigration(r, next gen.ForwardingRule, sent map[string]json.RawMessage) error {
	_, stateSent := sent["externalManagedBackendBucketMigrationState"]
	from, to := deref(r.LoadBalancingScheme), deref(next.LoadBalancingScheme)
	external := func(s gen.ForwardingRuleLoadBalancingScheme) bool { return s == "EXTERNAL" || s == "EXTERNAL_MANAGED" }
	switch {
	case from == "EXTERNAL" && to == "EXTERNAL_MANAGED" && deref(r.ExternalManagedBackendBucketMigrationState) == "TEST_ALL_TRAFFIC":
		return nil
	case from == "EXTERNAL_MANAGED" && to == "EXTERNAL" && stateSent && deref(next.ExternalManagedBackendBucketMigrationState) == "TEST_ALL_TRAFFIC":
		return nil
	case external(from) && external(to):
		return invalidField("resource.loadBalancingScheme", fmt.Sprintf("Invalid value for field 'resource.loadBalancingScheme': '%s'. The loadBalancingScheme can change from EXTERNAL to EXTERNAL_MANAGED only when externalManagedBackendBucketMigrationState is TEST_ALL_TRAFFIC, and back only with externalManagedBackendBucketMigrationState set to TEST_ALL_TRAFFIC in the same request.", to))
	}
	return invalidField("resource.loadBalancingScheme", fmt.Sprintf("Invalid value for field 'resource.loadBalancingScheme': '%s'. The field cannot be changed by patch.", to))
}

// ruleChange says what a patch changed of what the rule stores ("" for nothing).
func ruleChange(a, b gen.ForwardingRule) string {
	pa, pb := a.ExternalManagedBackendBucketMigrationTestingPercentage, b.ExternalManagedBackendBucketMigrationTestingPercentage
	samePct := (pa == nil && pb == nil) || (pa != nil && pb != nil && *pa == *pb)
	if deref(a.NetworkTier) == deref(b.NetworkTier) && deref(a.ExternalManagedBackendBucketMigrationState) == deref(b.ExternalManagedBackendBucketMigrationState) &&
		deref(a.LoadBalancingScheme) == deref(b.LoadBalancingScheme) && samePct && deref(a.AllowGlobalAccess) == deref(b.AllowGlobalAccess) {
		return ""
	}
	pct := "none"
	if pb != nil {
		pct = fmt.Sprint(*pb)
	}
	change := fmt.Sprintf("patch|%s|%s|%s|%s", deref(b.NetworkTier), deref(b.ExternalManagedBackendBucketMigrationState), deref(b.LoadBalancingScheme), pct)
	if deref(b.AllowGlobalAccess) { // only a regional rule's; a global rule's changes read as before
		change += "|globalAccess"
	}
	return change
}

func staleFingerprint() *Error {
	return &Error{Status: http.StatusPreconditionFailed, Reason: "conditionNotMet",
		Message: "Supplied fingerprint does not match current fingerprint.", Location: "resource.fingerprint"}
}

// GlobalForwardingRulesSetTarget points a rule at a target of the same type as its current
// one (any type when it has none).
func (s *Server) GlobalForwardingRulesSetTarget(ctx context.Context, req gen.GlobalForwardingRulesSetTargetRequestObject) (gen.GlobalForwardingRulesSetTargetResponseObject, error) {
	op, err := s.setRuleTarget(ctx, req.Project, "", req.ForwardingRule, req.Params.RequestId, deref(req.Body.Target))
	if err != nil {
		return nil, err
	}
	return gen.GlobalForwardingRulesSetTarget200JSONResponse(op), nil
}

// ForwardingRulesSetTarget is GlobalForwardingRulesSetTarget in a region: the target is in
// the rule's region, as on insert.
func (s *Server) ForwardingRulesSetTarget(ctx context.Context, req gen.ForwardingRulesSetTargetRequestObject) (gen.ForwardingRulesSetTargetResponseObject, error) {
	op, err := s.setRuleTarget(ctx, req.Project, req.Region, req.ForwardingRule, req.Params.RequestId, deref(req.Body.Target))
	if err != nil {
		return nil, err
	}
	return gen.ForwardingRulesSetTarget200JSONResponse(op), nil
}

func (s *Server) setRuleTarget(ctx context.Context, project, region, name string, reqID *gen.RequestIdQuery, target string) (gen.Operation, error) {
	requestID, err := checkRequestID(reqID)
	if err != nil {
		return gen.Operation{}, err
	}
	if target == "" {
		return gen.Operation{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'target' not specified", Location: "target"}
	}
	kind := targetKind(target)
	if kind == "" {
		return gen.Operation{}, invalidField("target", fmt.Sprintf("Invalid value for field 'target': '%s'. The URL is malformed.", target))
	}
	if in := targetRegion(target); region != "" && in != "" && in != region {
		return gen.Operation{}, invalidField("target", fmt.Sprintf("Invalid value for field 'target': '%s'. The target of a regional forwarding rule must be in its region, '%s'.", target, region))
	}
	scope := ruleScope(project, region)
	op, err := s.mutate(ctx, project, scope, requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableRule(tx, scope, name)
		if err != nil {
			return operations.Start{}, err
		}
		r := &rec.Rule
		if current := targetKind(deref(r.Target)); current != "" && current != kind {
			return operations.Start{}, invalidField("target", fmt.Sprintf("Invalid value for field 'target': '%s'. The new target must be of the same type as the current target (%s).", target, current))
		}
		if deref(r.Target) != target {
			r.Target, r.Fingerprint = &target, nextFingerprint(r.Fingerprint, "setTarget|"+target)
			if err := s.tables.rules.Put(tx, *r.SelfLink, rec); err != nil {
				return operations.Start{}, err
			}
		}
		return operations.Start{OperationType: "setTarget", Done: true, TargetLink: *r.SelfLink, TargetID: *r.Id}, nil
	})
	if err != nil {
		return gen.Operation{}, err
	}
	return s.renderOperation(ctx, op), nil
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

// readOnlyMember says whether the spec marks member k of schema readOnly (readOnlyOf).
func (s *Server) readOnlyMember(schema, k string) bool {
	p, err := s.parsed()
	return err == nil && p.readOnly[schema][k]
}

// readOnlyOf are, by schema, the members the spec marks readOnly: sent back in a patch,
// they are ignored, as on insert.
func readOnlyOf(doc *openapi3.T) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for name, ref := range doc.Components.Schemas {
		out[name] = map[string]bool{}
		for member, p := range ref.Value.Properties {
			if p.Value != nil && p.Value.ReadOnly {
				out[name][member] = true
			}
		}
	}
	return out
}

// fixedMembers refuses a patch that sends a member it cannot change (any of schema's but
// those in handled, which the caller applies or checks itself, and the readOnly ones) with
// a value other than the resource's current one, cur (its wire form). A member absent from
// cur is its zero value, so sending back false, 0 or "" is accepted.
func (s *Server) fixedMembers(ctx context.Context, schema string, cur, body any, handled ...string) error {
	sent, err := jsonMembers(body)
	if err != nil {
		return err
	}
	// A member given as null is removed, which leaves one the resource does not have as it
	// is; removing one it has is refused, a member the patch changes included (where we
	// decided: these patches take a member's new value, not its removal).
	sent = withNulls(sent, nullMembers(ctx))
	have, err := jsonMembers(cur)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(sent))
	for k := range sent {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if string(sent[k]) == "null" && slices.Contains(handled, k) && !sameJSON(sent[k], have[k]) {
			return invalidField("resource."+k, fmt.Sprintf("Invalid value for field 'resource.%s': 'null'. The field cannot be removed by patch here: send its new value.", k))
		}
		if slices.Contains(handled, k) || s.readOnlyMember(schema, k) || sameJSON(sent[k], have[k]) {
			continue
		}
		return invalidField("resource."+k, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. The field cannot be changed by patch.", k, strings.Trim(string(sent[k]), `"`)))
	}
	return nil
}

func jsonMembers(v any) (map[string]json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	err = json.Unmarshal(raw, &m)
	return m, err
}

// sameJSON compares two JSON values, an absent one (nil) being equal to any zero value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if len(a) > 0 {
		_ = json.Unmarshal(a, &x)
	}
	if len(b) > 0 {
		_ = json.Unmarshal(b, &y)
	}
	return reflect.DeepEqual(x, y) || (isZeroJSON(x) && isZeroJSON(y))
}

func isZeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case float64:
		return v == 0
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
