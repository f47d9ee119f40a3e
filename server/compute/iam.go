package compute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store/compat"
)

// The IAM methods of attachment groups and interconnect groups: a policy stored per
// resource, read and replaced as IAM does it (etag compare-and-set, version rules, merged
// bindings), and testIamPermissions. IAM is not enforced, so the caller holds every
// permission of the resource's type.

// emptyPolicyEtag is the etag IAM gives a policy that was never set ("ACAB").
var emptyPolicyEtag = []byte{0x00, 0x20, 0x01}

// policyOf is the resource's policy, the empty one when none was set.
func (s *Server) policyOf(tx *store.Tx, key string) IAMPolicy {
	p, ok := s.tables.Policies.Get(tx, key)
	if !ok {
		return IAMPolicy{Resource: key, Version: 1}
	}
	return p
}

func policyEtag(p IAMPolicy) []byte {
	if p.Generation == 0 {
		return emptyPolicyEtag
	}
	sum := sha256.Sum256([]byte(p.Resource + "|" + strconv.FormatUint(p.Generation, 10)))
	etag := append([]byte{0x07, 0x05}, sum[:6]...)
	etag[2] |= 0xc0 // so that it starts BwX, as IAM's do
	return etag
}

func policyKey(project, collection, id string) string { return project + "|" + collection + "|" + id }

// dropPolicy forgets the policy of a deleted resource.
func (s *Server) dropPolicy(tx *store.Tx, project, collection, id string) error {
	_, _, err := s.tables.Policies.Delete(tx, policyKey(project, collection, id))
	return err
}

// iamTarget finds the resource of an IAM method: its policy key, or not found.
type iamTarget func(tx *store.Tx, project, nameOrID string) (string, error)

func (s *Server) attachmentGroupTarget(tx *store.Tx, project, nameOrID string) (string, error) {
	g, err := s.readableGroup(tx, project, nameOrID)
	return policyKey(project, "interconnectAttachmentGroups", g.ID), err
}

func (s *Server) interconnectGroupTarget(tx *store.Tx, project, nameOrID string) (string, error) {
	g, err := s.readableInterconnectGroup(tx, project, nameOrID)
	return policyKey(project, "interconnectGroups", g.ID), err
}

// getPolicy reads a policy for a caller that understands requested (0, 1 or 3).
func (s *Server) getPolicy(target iamTarget, project, resource string, requested *int32) (gen.Policy, error) {
	want := 0
	if requested != nil {
		want = int(*requested)
	}
	if want != 0 && want != 1 && want != 3 {
		return gen.Policy{}, invalidField("optionsRequestedPolicyVersion", fmt.Sprintf("Invalid value for field 'optionsRequestedPolicyVersion': '%d'. Valid values are 0, 1 and 3.", want))
	}
	var p IAMPolicy
	err := s.db.View(func(tx *store.Tx) error {
		key, err := target(tx, project, resource)
		if err != nil {
			return err
		}
		p = s.policyOf(tx, key)
		return nil
	})
	if err != nil {
		return gen.Policy{}, err
	}
	return renderPolicy(p, want), nil
}

// renderPolicy is p as a caller understanding version want sees it: below 3, a conditional
// binding comes without its condition and with "_withcond_" and a hash after its role, as
// IAM returns it, and the version is 1.
func renderPolicy(p IAMPolicy, want int) gen.Policy {
	version := int32(p.Version)
	out := gen.Policy{Etag: policyEtag(p), Version: &version}
	for _, b := range p.Bindings {
		gb := gen.Binding{Role: ptr(b.Role), Members: slices.Clone(b.Members)}
		if c := b.Condition; c != nil {
			if want < 3 {
				sum := sha256.Sum256([]byte(c.Title + "\x00" + c.Description + "\x00" + c.Expression))
				gb.Role = ptr(b.Role + "_withcond_" + hex.EncodeToString(sum[:10]))
				version = 1
			} else {
				gb.Condition = &gen.Expr{Title: optional(c.Title), Description: optional(c.Description), Expression: ptr(c.Expression), Location: optional(c.Location)}
			}
		}
		out.Bindings = append(out.Bindings, gb)
	}
	for _, a := range p.AuditConfigs {
		ga := gen.AuditConfig{Service: ptr(a.Service)}
		for _, l := range a.Logs {
			ga.AuditLogConfigs = append(ga.AuditLogConfigs, gen.AuditLogConfig{LogType: ptr(gen.AuditLogConfigLogType(l.LogType)), ExemptedMembers: l.ExemptedMembers})
		}
		out.AuditConfigs = append(out.AuditConfigs, ga)
	}
	return out
}

// setPolicy replaces a resource's policy; a given etag must be the current one.
func (s *Server) setPolicy(target iamTarget, project, resource string, b gen.GlobalSetPolicyRequest) (gen.Policy, error) {
	sent := gen.Policy{Bindings: b.Bindings, Etag: b.Etag}
	if b.Policy != nil {
		sent = *b.Policy
		if len(sent.Etag) == 0 {
			sent.Etag = b.Etag
		}
		if sent.Bindings == nil && b.Bindings != nil {
			sent.Bindings = b.Bindings
		}
	} else if b.Bindings == nil && b.Etag == nil {
		return gen.Policy{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'policy' not specified", Location: "policy"}
	}
	next, err := policyFromRequest(sent)
	if err != nil {
		return gen.Policy{}, err
	}
	err = s.db.Update(func(tx *store.Tx) error {
		key, err := target(tx, project, resource)
		if err != nil {
			return err
		}
		current := s.policyOf(tx, key)
		if len(sent.Etag) > 0 && string(sent.Etag) != string(policyEtag(current)) {
			return &Error{Status: http.StatusConflict, Reason: "aborted",
				Message: "There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff."}
		}
		next.Resource, next.Generation = key, current.Generation+1
		return s.tables.Policies.Put(tx, key, next)
	})
	if err != nil {
		return gen.Policy{}, err
	}
	return renderPolicy(next, 3), nil
}

// memberPattern is the principals IAM takes in a binding.
var memberPattern = regexp.MustCompile(`^(allUsers|allAuthenticatedUsers|(user|serviceAccount|group):[^@\s]+@[^@\s]+|domain:[a-z0-9.-]+\.[a-z]+|deleted:(user|serviceAccount|group):[^@\s]+@[^@\s]+\?uid=[0-9]+|principal(Set)?://\S+|project(Owner|Editor|Viewer):[a-z][-a-z0-9]{4,28}[a-z0-9])$`)

// rolePattern is a predefined role or a custom role of a project or organization.
var rolePattern = regexp.MustCompile(`^(roles/[A-Za-z0-9_.]+|(projects/[a-z][-a-z0-9]{4,28}[a-z0-9]|organizations/[0-9]+)/roles/[A-Za-z0-9_.]+)$`)

// policyFromRequest checks a sent policy and normalizes it as IAM does: bindings of one
// role and condition merged, members deduplicated, bindings without members dropped.
func policyFromRequest(p gen.Policy) (IAMPolicy, error) {
	version := 1
	if p.Version != nil {
		version = int(*p.Version)
		if version != 0 && version != 1 && version != 3 {
			return IAMPolicy{}, invalidField("policy.version", fmt.Sprintf("Invalid value for field 'policy.version': '%d'. Valid values are 0, 1 and 3.", version))
		}
		if version == 0 {
			version = 1
		}
	}
	out := IAMPolicy{Version: version}
	index := map[string]int{}
	for i, b := range p.Bindings {
		field := fmt.Sprintf("policy.bindings[%d]", i)
		role := deref(b.Role)
		if role == "" {
			return IAMPolicy{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s.role' not specified", field), Location: field + ".role"}
		}
		if !rolePattern.MatchString(role) {
			return IAMPolicy{}, invalidField(field+".role", fmt.Sprintf("Invalid value for field '%s.role': '%s'. Role names have the form roles/{role} or {projects|organizations}/{id}/roles/{role}.", field, role))
		}
		var cond *PolicyCondition
		if c := b.Condition; c != nil {
			if deref(c.Expression) == "" {
				return IAMPolicy{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s.condition.expression' not specified", field), Location: field + ".condition.expression"}
			}
			if version != 3 {
				return IAMPolicy{}, invalidField("policy.version", fmt.Sprintf("Invalid value for field 'policy.version': '%d'. A policy with conditional role bindings must have version 3.", version))
			}
			cond = &PolicyCondition{Title: deref(c.Title), Description: deref(c.Description), Expression: *c.Expression, Location: deref(c.Location)}
		}
		for j, m := range b.Members {
			if !memberPattern.MatchString(m) {
				return IAMPolicy{}, invalidField(fmt.Sprintf("%s.members[%d]", field, j), fmt.Sprintf("Invalid value for field '%s.members[%d]': '%s'. Invalid principal.", field, j, m))
			}
		}
		id := role
		if cond != nil {
			id += "\x00" + cond.Title + "\x00" + cond.Description + "\x00" + cond.Expression
		}
		at, ok := index[id]
		if !ok {
			at = len(out.Bindings)
			index[id] = at
			out.Bindings = append(out.Bindings, PolicyBinding{Role: role, Condition: cond})
		}
		for _, m := range b.Members {
			if !slices.Contains(out.Bindings[at].Members, m) {
				out.Bindings[at].Members = append(out.Bindings[at].Members, m)
			}
		}
	}
	out.Bindings = slices.DeleteFunc(out.Bindings, func(b PolicyBinding) bool { return len(b.Members) == 0 })
	slices.SortStableFunc(out.Bindings, func(a, b PolicyBinding) int { return strings.Compare(a.Role, b.Role) })
	for _, a := range p.AuditConfigs {
		ac := PolicyAuditConfig{Service: deref(a.Service)}
		for _, l := range a.AuditLogConfigs {
			lt := "LOG_TYPE_UNSPECIFIED"
			if l.LogType != nil {
				lt = string(*l.LogType)
			}
			ac.Logs = append(ac.Logs, PolicyAuditLog{LogType: lt, ExemptedMembers: l.ExemptedMembers})
		}
		out.AuditConfigs = append(out.AuditConfigs, ac)
	}
	return out, nil
}

// testPermissions answers testIamPermissions for a resource of collection: the caller has
// every permission of that type and none of any other.
func (s *Server) testPermissions(target iamTarget, collection, project, resource string, b gen.TestPermissionsRequest) (gen.TestPermissionsResponse, error) {
	for i, p := range b.Permissions {
		if strings.Contains(p, "*") {
			return gen.TestPermissionsResponse{}, invalidField(fmt.Sprintf("permissions[%d]", i), fmt.Sprintf("Invalid value for field 'permissions[%d]': '%s'. Permissions with wildcards (such as '*' or 'compute.*') are not allowed.", i, p))
		}
	}
	if err := s.db.View(func(tx *store.Tx) error {
		_, err := target(tx, project, resource)
		return err
	}); err != nil {
		return gen.TestPermissionsResponse{}, err
	}
	out := gen.TestPermissionsResponse{Permissions: []string{}}
	for _, p := range b.Permissions {
		if strings.HasPrefix(p, "compute."+collection+".") && !slices.Contains(out.Permissions, p) {
			out.Permissions = append(out.Permissions, p)
		}
	}
	return out, nil
}

// InterconnectAttachmentGroupsGetIamPolicy reads a group's IAM policy.
func (s *Server) InterconnectAttachmentGroupsGetIamPolicy(ctx context.Context, req gen.InterconnectAttachmentGroupsGetIamPolicyRequestObject) (gen.InterconnectAttachmentGroupsGetIamPolicyResponseObject, error) {
	p, err := s.getPolicy(s.attachmentGroupTarget, req.Project, req.Resource, req.Params.OptionsRequestedPolicyVersion)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsGetIamPolicy200JSONResponse(p), nil
}

// InterconnectAttachmentGroupsSetIamPolicy replaces a group's IAM policy.
func (s *Server) InterconnectAttachmentGroupsSetIamPolicy(ctx context.Context, req gen.InterconnectAttachmentGroupsSetIamPolicyRequestObject) (gen.InterconnectAttachmentGroupsSetIamPolicyResponseObject, error) {
	p, err := s.setPolicy(s.attachmentGroupTarget, req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsSetIamPolicy200JSONResponse(p), nil
}

// InterconnectAttachmentGroupsTestIamPermissions answers which permissions the caller has.
func (s *Server) InterconnectAttachmentGroupsTestIamPermissions(ctx context.Context, req gen.InterconnectAttachmentGroupsTestIamPermissionsRequestObject) (gen.InterconnectAttachmentGroupsTestIamPermissionsResponseObject, error) {
	out, err := s.testPermissions(s.attachmentGroupTarget, "interconnectAttachmentGroups", req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsTestIamPermissions200JSONResponse(out), nil
}

// InterconnectGroupsGetIamPolicy reads a group's IAM policy.
func (s *Server) InterconnectGroupsGetIamPolicy(ctx context.Context, req gen.InterconnectGroupsGetIamPolicyRequestObject) (gen.InterconnectGroupsGetIamPolicyResponseObject, error) {
	p, err := s.getPolicy(s.interconnectGroupTarget, req.Project, req.Resource, req.Params.OptionsRequestedPolicyVersion)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsGetIamPolicy200JSONResponse(p), nil
}

// InterconnectGroupsSetIamPolicy replaces a group's IAM policy.
func (s *Server) InterconnectGroupsSetIamPolicy(ctx context.Context, req gen.InterconnectGroupsSetIamPolicyRequestObject) (gen.InterconnectGroupsSetIamPolicyResponseObject, error) {
	p, err := s.setPolicy(s.interconnectGroupTarget, req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsSetIamPolicy200JSONResponse(p), nil
}

// InterconnectGroupsTestIamPermissions answers which permissions the caller has.
func (s *Server) InterconnectGroupsTestIamPermissions(ctx context.Context, req gen.InterconnectGroupsTestIamPermissionsRequestObject) (gen.InterconnectGroupsTestIamPermissionsResponseObject, error) {
	out, err := s.testPermissions(s.interconnectGroupTarget, "interconnectGroups", req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsTestIamPermissions200JSONResponse(out), nil
}
