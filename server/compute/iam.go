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
	"github.com/understudy-dev/understudy/internal/store"
)

// The IAM methods of attachment groups and interconnect groups: a policy stored per
// resource, read and replaced as IAM does it (etag compare-and-set, version rules, merged
// bindings), and testIamPermissions. IAM is not enforced, so the caller holds every
// permission of the resource's type.

// emptyPolicyEtag is the etag IAM gives a policy that was never set ("ACAB").
var emptyPolicyEtag = []byte{0x00, 0x20, 0x01}

// policyOf is the policy stored under key, the empty one when none was set.
func (s *Server) policyOf(tx *store.Tx, key string) gen.Policy {
	p, ok := s.tables.policies.Get(tx, key)
	if !ok {
		return gen.Policy{Version: ptr(int32(1)), Etag: emptyPolicyEtag}
	}
	return p
}

// policyEtag is the etag of a policy of the resource at key after the one whose etag was
// previous; generatedEtag the one the count of setIamPolicy calls gave in seed files written
// by earlier versions. Each starts BwX, as IAM's do.
func policyEtag(key string, previous []byte) []byte {
	sum := sha256.Sum256(append([]byte(key+"|"), previous...))
	return iamEtag(sum)
}

func generatedEtag(key string, generation uint64) []byte {
	return iamEtag(sha256.Sum256([]byte(key + "|" + strconv.FormatUint(generation, 10))))
}

func iamEtag(sum [32]byte) []byte {
	etag := append([]byte{0x07, 0x05}, sum[:6]...)
	etag[2] |= 0xc0
	return etag
}

// policyKey is where the policy of a resource of collection with the id is kept: the
// resource's path with its id, so that a policy does not pass to a later resource of the
// same name.
func policyKey(project, collection, id string) string {
	return globalScope(project) + "/" + collection + "/" + id
}

// iamTarget finds the resource of an IAM method: its policy key, or not found.
type iamTarget func(tx *store.Tx, project, nameOrID string) (string, error)

func (s *Server) attachmentGroupTarget(tx *store.Tx, project, nameOrID string) (string, error) {
	rec, err := s.readableGroup(tx, project, nameOrID)
	return policyKey(project, "interconnectAttachmentGroups", deref(rec.Group.Id)), err
}

func (s *Server) interconnectGroupTarget(tx *store.Tx, project, nameOrID string) (string, error) {
	rec, err := s.readableInterconnectGroup(tx, project, nameOrID)
	return policyKey(project, "interconnectGroups", deref(rec.Group.Id)), err
}

// getPolicy reads a policy for a caller that understands requested (0, 1 or 3).
func (s *Server) getPolicy(ctx context.Context, target iamTarget, project, resource string, requested *int32) (gen.Policy, error) {
	want := 0
	if requested != nil {
		want = int(*requested)
	}
	if want != 0 && want != 1 && want != 3 {
		return gen.Policy{}, invalidField("optionsRequestedPolicyVersion", fmt.Sprintf("Invalid value for field 'optionsRequestedPolicyVersion': '%d'. Valid values are 0, 1 and 3.", want))
	}
	var p gen.Policy
	err := s.db.View(ctx, func(tx *store.Tx) error {
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
func renderPolicy(p gen.Policy, want int) gen.Policy {
	if want >= 3 {
		return p
	}
	bindings := make([]gen.Binding, len(p.Bindings))
	for i, b := range p.Bindings {
		if c := b.Condition; c != nil {
			sum := sha256.Sum256([]byte(deref(c.Title) + "\x00" + deref(c.Description) + "\x00" + deref(c.Expression)))
			b.Role, b.Condition = ptr(deref(b.Role)+"_withcond_"+hex.EncodeToString(sum[:10])), nil
			p.Version = ptr(int32(1))
		}
		bindings[i] = b
	}
	if len(bindings) > 0 {
		p.Bindings = bindings
	}
	return p
}

// setPolicy replaces a resource's policy; a given etag must be the current one.
func (s *Server) setPolicy(ctx context.Context, target iamTarget, project, resource string, b gen.GlobalSetPolicyRequest) (gen.Policy, error) {
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
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		key, err := target(tx, project, resource)
		if err != nil {
			return err
		}
		current := s.policyOf(tx, key)
		if len(sent.Etag) > 0 && string(sent.Etag) != string(current.Etag) {
			return &Error{Status: http.StatusConflict, Reason: "aborted",
				Message: "There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff."}
		}
		// The discovery document's Policy.version: a write with the etag that affects a
		// policy with conditions must be version 3 (only one without may overwrite it).
		conditional := slices.ContainsFunc(current.Bindings, func(b gen.Binding) bool { return b.Condition != nil })
		if len(sent.Etag) > 0 && conditional && deref(next.Version) < 3 {
			return &Error{Status: http.StatusBadRequest, Reason: "badRequest", Message: fmt.Sprintf("Specified policy version (%d) cannot be less than "+
				"the existing policy version (3). For more information, please refer to https://cloud.google.com/iam/docs/policies#versions.", deref(next.Version))}
		}
		next.Etag = policyEtag(key, current.Etag)
		return s.tables.policies.Put(tx, key, next)
	})
	if err != nil {
		return gen.Policy{}, err
	}
	return next, nil
}

// memberPattern is the principals IAM takes in a binding.
var memberPattern = regexp.MustCompile(`^(allUsers|allAuthenticatedUsers|(user|serviceAccount|group):[^@\s]+@[^@\s]+|domain:[a-z0-9.-]+\.[a-z]+|deleted:(user|serviceAccount|group):[^@\s]+@[^@\s]+\?uid=[0-9]+|principal(Set)?://\S+|project(Owner|Editor|Viewer):[a-z][-a-z0-9]{4,28}[a-z0-9])$`)

// rolePattern is a predefined role or a custom role of a project or organization.
var rolePattern = regexp.MustCompile(`^(roles/[A-Za-z0-9_.]+|(projects/[a-z][-a-z0-9]{4,28}[a-z0-9]|organizations/[0-9]+)/roles/[A-Za-z0-9_.]+)$`)

// policyFromRequest checks a sent policy and normalizes it as IAM does: bindings of one
// role and condition merged, members deduplicated, bindings without members dropped, and
// the version 1 unless it is 3. Its etag is the caller's to set.
func policyFromRequest(p gen.Policy) (gen.Policy, error) {
	version := int32(1)
	if p.Version != nil {
		version = *p.Version
		if version != 0 && version != 1 && version != 3 {
			return gen.Policy{}, invalidField("policy.version", fmt.Sprintf("Invalid value for field 'policy.version': '%d'. Valid values are 0, 1 and 3.", version))
		}
		version = max(version, 1)
	}
	out := gen.Policy{Version: &version}
	index := map[string]int{}
	for i, b := range p.Bindings {
		field := fmt.Sprintf("policy.bindings[%d]", i)
		role := deref(b.Role)
		if role == "" {
			return gen.Policy{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s.role' not specified", field), Location: field + ".role"}
		}
		if !rolePattern.MatchString(role) {
			return gen.Policy{}, invalidField(field+".role", fmt.Sprintf("Invalid value for field '%s.role': '%s'. Role names have the form roles/{role} or {projects|organizations}/{id}/roles/{role}.", field, role))
		}
		var cond *gen.Expr
		if c := b.Condition; c != nil {
			if deref(c.Expression) == "" {
				return gen.Policy{}, &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s.condition.expression' not specified", field), Location: field + ".condition.expression"}
			}
			if version != 3 {
				return gen.Policy{}, invalidField("policy.version", fmt.Sprintf("Invalid value for field 'policy.version': '%d'. A policy with conditional role bindings must have version 3.", version))
			}
			cond = &gen.Expr{Title: optional(deref(c.Title)), Description: optional(deref(c.Description)), Expression: c.Expression, Location: optional(deref(c.Location))}
		}
		for j, m := range b.Members {
			if !memberPattern.MatchString(m) {
				return gen.Policy{}, invalidField(fmt.Sprintf("%s.members[%d]", field, j), fmt.Sprintf("Invalid value for field '%s.members[%d]': '%s'. Invalid principal.", field, j, m))
			}
		}
		id := role
		if cond != nil {
			id += "\x00" + deref(cond.Title) + "\x00" + deref(cond.Description) + "\x00" + *cond.Expression
		}
		at, ok := index[id]
		if !ok {
			at = len(out.Bindings)
			index[id] = at
			out.Bindings = append(out.Bindings, gen.Binding{Role: ptr(role), Condition: cond})
		}
		for _, m := range b.Members {
			if !slices.Contains(out.Bindings[at].Members, m) {
				out.Bindings[at].Members = append(out.Bindings[at].Members, m)
			}
		}
	}
	out.Bindings = slices.DeleteFunc(out.Bindings, func(b gen.Binding) bool { return len(b.Members) == 0 })
	slices.SortStableFunc(out.Bindings, func(a, b gen.Binding) int { return strings.Compare(*a.Role, *b.Role) })
	for _, a := range p.AuditConfigs {
		ac := gen.AuditConfig{Service: ptr(deref(a.Service))}
		for _, l := range a.AuditLogConfigs {
			lt := gen.AuditLogConfigLogType("LOG_TYPE_UNSPECIFIED")
			if l.LogType != nil {
				lt = *l.LogType
			}
			ac.AuditLogConfigs = append(ac.AuditLogConfigs, gen.AuditLogConfig{LogType: &lt, ExemptedMembers: l.ExemptedMembers})
		}
		out.AuditConfigs = append(out.AuditConfigs, ac)
	}
	return out, nil
}

// testPermissions answers testIamPermissions for a resource of collection: the caller has
// every permission of that type and none of any other.
func (s *Server) testPermissions(ctx context.Context, target iamTarget, collection, project, resource string, b gen.TestPermissionsRequest) (gen.TestPermissionsResponse, error) {
	for i, p := range b.Permissions {
		if strings.Contains(p, "*") {
			return gen.TestPermissionsResponse{}, invalidField(fmt.Sprintf("permissions[%d]", i), fmt.Sprintf("Invalid value for field 'permissions[%d]': '%s'. Permissions with wildcards (such as '*' or 'compute.*') are not allowed.", i, p))
		}
	}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
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
	p, err := s.getPolicy(ctx, s.attachmentGroupTarget, req.Project, req.Resource, req.Params.OptionsRequestedPolicyVersion)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsGetIamPolicy200JSONResponse(p), nil
}

// InterconnectAttachmentGroupsSetIamPolicy replaces a group's IAM policy.
func (s *Server) InterconnectAttachmentGroupsSetIamPolicy(ctx context.Context, req gen.InterconnectAttachmentGroupsSetIamPolicyRequestObject) (gen.InterconnectAttachmentGroupsSetIamPolicyResponseObject, error) {
	p, err := s.setPolicy(ctx, s.attachmentGroupTarget, req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsSetIamPolicy200JSONResponse(p), nil
}

// InterconnectAttachmentGroupsTestIamPermissions answers which permissions the caller has.
func (s *Server) InterconnectAttachmentGroupsTestIamPermissions(ctx context.Context, req gen.InterconnectAttachmentGroupsTestIamPermissionsRequestObject) (gen.InterconnectAttachmentGroupsTestIamPermissionsResponseObject, error) {
	out, err := s.testPermissions(ctx, s.attachmentGroupTarget, "interconnectAttachmentGroups", req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsTestIamPermissions200JSONResponse(out), nil
}

// InterconnectGroupsGetIamPolicy reads a group's IAM policy.
func (s *Server) InterconnectGroupsGetIamPolicy(ctx context.Context, req gen.InterconnectGroupsGetIamPolicyRequestObject) (gen.InterconnectGroupsGetIamPolicyResponseObject, error) {
	p, err := s.getPolicy(ctx, s.interconnectGroupTarget, req.Project, req.Resource, req.Params.OptionsRequestedPolicyVersion)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsGetIamPolicy200JSONResponse(p), nil
}

// InterconnectGroupsSetIamPolicy replaces a group's IAM policy.
func (s *Server) InterconnectGroupsSetIamPolicy(ctx context.Context, req gen.InterconnectGroupsSetIamPolicyRequestObject) (gen.InterconnectGroupsSetIamPolicyResponseObject, error) {
	p, err := s.setPolicy(ctx, s.interconnectGroupTarget, req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsSetIamPolicy200JSONResponse(p), nil
}

// InterconnectGroupsTestIamPermissions answers which permissions the caller has.
func (s *Server) InterconnectGroupsTestIamPermissions(ctx context.Context, req gen.InterconnectGroupsTestIamPermissionsRequestObject) (gen.InterconnectGroupsTestIamPermissionsResponseObject, error) {
	out, err := s.testPermissions(ctx, s.interconnectGroupTarget, "interconnectGroups", req.Project, req.Resource, *req.Body)
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsTestIamPermissions200JSONResponse(out), nil
}
