package authorization

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/condition"
	"github.com/understudy-dev/understudy/internal/store"
)

// RoleAssignmentsCreate creates or updates a role assignment (the seed operation).
func (s *Server) RoleAssignmentsCreate(ctx context.Context, req gen.RoleAssignmentsCreateRequestObject) (gen.RoleAssignmentsCreateResponseObject, error) {
	scope, _, err := s.target(ctx, req.Scope, req.RoleAssignmentName, actionRoleAssignmentsWrite)
	if err != nil {
		return nil, err
	}
	want, err := s.assignmentFromRequest(req.Body, scope)
	if err != nil {
		return nil, err
	}
	var out RoleAssignment
	created := false
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		out, created, err = s.apply(tx, scope, req.RoleAssignmentName, want, callerFrom(ctx))
		return err
	})
	if err != nil {
		return nil, err
	}
	if created {
		return gen.RoleAssignmentsCreate201JSONResponse(shapeAssignment(apiVersion(ctx), renderAssignment(out))), nil
	}
	return gen.RoleAssignmentsCreate200JSONResponse(shapeAssignment(apiVersion(ctx), renderAssignment(out))), nil
}

// apply creates or updates the assignment name at scope inside tx: the one place where the
// create-versus-update rules live, used by PUT and by the seed.
func (s *Server) apply(tx *store.Tx, scope Scope, name string, want RoleAssignment, caller Caller) (out RoleAssignment, created bool, err error) {
	nameKey := strings.ToLower(name)
	// ARM's times have 7 fractional digits at most (.NET's ticks of 100 ns:
	// 2022-01-15T21:08:45.4904312Z); Go's clock gives 9.
	now := s.cfg.Now().UTC().Truncate(100 * time.Nanosecond)
	// A custom role exists only where it is assignable (as its GET and the list show: at its
	// assignable scopes and below them in the hierarchy), so a role used elsewhere is one
	// that does not exist there. Looked up in the transaction, so that a role deleted
	// meanwhile is not assigned.
	if role, ok := s.role(tx, want.RoleDefinitionGUID); !ok || !s.hier.assignableAt(role, scope.Key) {
		e := errRoleDefinitionDoesNotExist(http.StatusBadRequest, want.RoleDefinitionGUID)
		e.Target = "properties.roleDefinitionId"
		return out, false, e
	}
	principalType, err := s.principalType(tx, want.PrincipalID, want.PrincipalType, caller.Tenant)
	if err != nil {
		return out, false, err
	}
	old, exists := s.tables.Assignments.Get(tx, nameKey)
	if exists {
		// Names are unique across all scopes; only the mutable fields may change.
		if old.ScopeKey != scope.Key || old.PrincipalID != want.PrincipalID || old.RoleDefinitionGUID != want.RoleDefinitionGUID {
			return out, false, errUpdateNotPermitted()
		}
		out = old
	} else {
		if scope.Subscription != "" && s.tables.PerSubscription.Count(tx, scope.Subscription) >= s.cfg.MaxPerSubscription {
			return out, false, errLimitExceeded(s.cfg.MaxPerSubscription)
		}
		out = RoleAssignment{
			Name: name, Scope: scope.Path, ScopeKey: scope.Key, Subscription: scope.Subscription,
			RoleDefinitionGUID: want.RoleDefinitionGUID, PrincipalID: want.PrincipalID,
			CreatedBy: caller.PrincipalID, CreatedByType: caller.Type, CreatedOn: now,
		}
		created = true
	}
	out.PrincipalType = principalType
	out.Description = want.Description
	out.Condition = want.Condition
	out.ConditionVersion = want.ConditionVersion
	out.DelegatedManagedIdentityResourceID = want.DelegatedManagedIdentityResourceID
	out.UpdatedBy, out.UpdatedByType, out.UpdatedOn = caller.PrincipalID, caller.Type, now
	if err := s.tables.Assignments.Put(tx, nameKey, out); err != nil {
		if errors.Is(err, store.ErrConflict) {
			// Another name already binds this (scope, role, principal).
			return out, false, errAssignmentExists()
		}
		return out, false, fmt.Errorf("role assignment %q: %w", nameKey, err)
	}
	return out, created, nil
}

// RoleAssignmentsGet reads one assignment.
func (s *Server) RoleAssignmentsGet(ctx context.Context, req gen.RoleAssignmentsGetRequestObject) (gen.RoleAssignmentsGetResponseObject, error) {
	scope, nameKey, err := s.target(ctx, req.Scope, req.RoleAssignmentName, actionRoleAssignmentsRead)
	if err != nil {
		return nil, err
	}
	var r RoleAssignment
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		r, found = s.tables.Assignments.Get(tx, nameKey)
		return nil
	}); err != nil {
		return nil, err
	}
	if !found || r.ScopeKey != scope.Key {
		return nil, errAssignmentNotFound(req.RoleAssignmentName)
	}
	return gen.RoleAssignmentsGet200JSONResponse(shapeAssignment(apiVersion(ctx), renderAssignment(r))), nil
}

// RoleAssignmentsDelete deletes one assignment: 200 with what was deleted, 204 when there
// was nothing to delete.
func (s *Server) RoleAssignmentsDelete(ctx context.Context, req gen.RoleAssignmentsDeleteRequestObject) (gen.RoleAssignmentsDeleteResponseObject, error) {
	scope, nameKey, err := s.target(ctx, req.Scope, req.RoleAssignmentName, actionRoleAssignmentsDelete)
	if err != nil {
		return nil, err
	}
	var r RoleAssignment
	deleted := false
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		old, ok := s.tables.Assignments.Get(tx, nameKey)
		if !ok || old.ScopeKey != scope.Key {
			return nil
		}
		r, deleted = old, s.tables.Assignments.Delete(tx, nameKey)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !deleted {
		return gen.RoleAssignmentsDelete204Response{}, nil
	}
	return gen.RoleAssignmentsDelete200JSONResponse(shapeAssignment(apiVersion(ctx), renderAssignment(r))), nil
}

// target checks the parts every single-assignment operation shares, in ARM's order: the
// name is a GUID, the scope has a known shape, and the caller may perform the action.
func (s *Server) target(ctx context.Context, rawScope, name, action string) (Scope, string, error) {
	nameKey, ok := parseGUID(name)
	if !ok {
		return Scope{}, "", errInvalidAssignmentName(name)
	}
	scope, serr := parseScope(rawScope)
	if serr != nil {
		return Scope{}, "", serr
	}
	target := scope.ID() + providerSegment + "roleAssignments/" + name
	if err := s.authorize(ctx, scope, action, target); err != nil {
		return Scope{}, "", err
	}
	return scope, nameKey, nil
}

// assignmentFromRequest checks a create-or-update body and returns the fields it sets.
// Read-only members (scope, createdBy, ...) are ignored: the server sets them. Whether the
// role exists is apply's to say, in the transaction.
func (s *Server) assignmentFromRequest(body *gen.RoleAssignmentsCreateJSONRequestBody, scope Scope) (RoleAssignment, error) {
	if body == nil {
		return RoleAssignment{}, newError(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: a request body is required.")
	}
	p := body.Properties
	var r RoleAssignment
	var ok bool
	if r.PrincipalID, ok = parseGUID(p.PrincipalId); !ok {
		return r, errInvalidPrincipalID(p.PrincipalId)
	}
	guid, ok := parseRoleDefinitionID(p.RoleDefinitionId)
	if !ok {
		return r, errInvalidRoleDefinitionID(p.RoleDefinitionId)
	}
	r.RoleDefinitionGUID = guid
	// Left empty when not sent: apply resolves it from the directory.
	if p.PrincipalType != nil {
		r.PrincipalType = string(*p.PrincipalType)
	}
	r.Description = deref(p.Description)
	r.DelegatedManagedIdentityResourceID = deref(p.DelegatedManagedIdentityResourceId)
	r.Condition, r.ConditionVersion = deref(p.Condition), deref(p.ConditionVersion)
	switch {
	case r.Condition == "" && r.ConditionVersion != "":
		return r, errInvalidCondition("conditionVersion is set but there is no condition.")
	case r.Condition == "":
	case r.ConditionVersion == "":
		r.ConditionVersion = conditionVersion2
		fallthrough
	default:
		if r.ConditionVersion != conditionVersion2 {
			return r, errInvalidCondition(fmt.Sprintf("conditionVersion '%s' is not supported; the only accepted value is '2.0'.", r.ConditionVersion))
		}
		if _, err := condition.Parse(r.Condition); err != nil {
			return r, errInvalidCondition(err.Error())
		}
	}
	return r, nil
}

// parseRoleDefinitionID accepts [/{scope}]/providers/Vendor.Authorization/roleDefinitions/{guid},
// where the optional prefix is a valid scope, and returns the GUID.
func parseRoleDefinitionID(id string) (string, bool) {
	i := lastIndexFold(id, roleDefinitionsPrefix)
	if i < 0 {
		return "", false
	}
	if prefix := id[:i]; prefix != "" {
		if sc, ok := ParseScope(prefix); !ok || sc.Root() || !strings.HasPrefix(prefix, "/") {
			return "", false
		}
	}
	return parseGUID(id[i+len(roleDefinitionsPrefix):])
}

// renderAssignment is the wire form of a role assignment.
func renderAssignment(r RoleAssignment) gen.RoleAssignment {
	scope := "/" + r.Scope
	return gen.RoleAssignment{
		Id:   ptr(scopeID(r.Scope) + providerSegment + "roleAssignments/" + r.Name),
		Name: &r.Name,
		Type: ptr(roleAssignmentType),
		Properties: gen.RoleAssignmentProperties{
			Scope:                              &scope,
			RoleDefinitionId:                   roleDefinitionsPrefix + r.RoleDefinitionGUID,
			PrincipalId:                        r.PrincipalID,
			PrincipalType:                      ptr(gen.PrincipalType(r.PrincipalType)),
			Description:                        optional(r.Description),
			Condition:                          optional(r.Condition),
			ConditionVersion:                   optional(r.ConditionVersion),
			DelegatedManagedIdentityResourceId: optional(r.DelegatedManagedIdentityResourceID),
			CreatedOn:                          &r.CreatedOn,
			UpdatedOn:                          &r.UpdatedOn,
			CreatedBy:                          optional(r.CreatedBy),
			UpdatedBy:                          optional(r.UpdatedBy),
		},
		SystemData: &gen.SystemData{
			CreatedAt:          &r.CreatedOn,
			CreatedBy:          optional(r.CreatedBy),
			CreatedByType:      ptr(gen.CreatedByType(r.CreatedByType)),
			LastModifiedAt:     &r.UpdatedOn,
			LastModifiedBy:     optional(r.UpdatedBy),
			LastModifiedByType: ptr(gen.CreatedByType(r.UpdatedByType)),
		},
	}
}

func ptr[T any](v T) *T { return &v }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
