package authorization

import (
	"cmp"
	"context"
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
	if req.Body == nil {
		return nil, newError(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: a request body is required.")
	}
	want, err := propertiesFromRequest(req.Body.Properties)
	if err != nil {
		return nil, err
	}
	var out Assignment
	created := false
	v := apiVersion(ctx)
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		if !since(v, "2018-01-01") {
			role, ok := s.role(tx, strings.TrimPrefix(want.RoleDefinitionId, roleDefinitionsPrefix))
			if ok && (len(role.DataActions) > 0 || len(role.NotDataActions) > 0) {
				return errDataActionsVersion(v)
			}
		}
		out, created, err = s.apply(tx, scope, req.RoleAssignmentName, want, callerFrom(ctx), nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	// An update is 200 only in the versions that define it; the others answer 201.
	if created || !s.answers(ctx, "RoleAssignments_Create", http.StatusOK) {
		return gen.RoleAssignmentsCreate201JSONResponse(render(v, out)), nil
	}
	return gen.RoleAssignmentsCreate200JSONResponse(render(v, out)), nil
}

// apply creates or updates the assignment name at scope inside tx, with the properties a
// request gives (propertiesFromRequest): the one place where the create-versus-update rules
// live and the computed members are filled in, used by PUT and by the seed. recorded, from
// a seed entry, gives the computed members it has (the history a state export writes),
// which a created assignment takes instead of the caller and the time of now.
func (s *Server) apply(tx *store.Tx, scope Scope, name string, want gen.RoleAssignmentProperties, caller Caller, recorded *Assignment) (out Assignment, created bool, err error) {
	// The store keeps its own copy of the key (the name is the tail of the request's path).
	nameKey := asciiLower(name)
	guid := strings.TrimPrefix(want.RoleDefinitionId, roleDefinitionsPrefix)
	// ARM's times have 7 fractional digits at most (.NET's ticks of 100 ns:
	// 2022-01-15T21:08:45.4904312Z); Go's clock gives 9.
	now := s.cfg.Now().UTC().Truncate(100 * time.Nanosecond)
	// A custom role exists only where it is assignable (as its GET and the list show: at its
	// assignable scopes and below them in the hierarchy), so a role used elsewhere is one
	// that does not exist there. Looked up in the transaction, so that a role deleted
	// meanwhile is not assigned.
	role, ok := s.role(tx, guid)
	if !ok || !s.hier.assignableAt(role, scope.Key) {
		e := errRoleDefinitionDoesNotExist(http.StatusBadRequest, guid)
		e.Target = "properties.roleDefinitionId"
		return out, false, e
	}
	// ARM's custom role limits: a custom role with dataActions is assigned below a
	// management group, not at one.
	if role.Type == customRole && len(role.DataActions) > 0 && scope.ManagementGroup() {
		return out, false, errCustomDataRoleAtManagementGroup()
	}
	principalType, err := s.principalType(tx, want.PrincipalId, string(deref(want.PrincipalType)), caller.Tenant)
	if err != nil {
		return out, false, err
	}
	by := optional(caller.PrincipalID) // createdBy and updatedBy share it
	old, exists := s.tables.Assignments.Get(tx, nameKey)
	switch {
	case exists:
		// Names are unique across all scopes; only the mutable members may change.
		if old.scopeKey() != scope.Key || old.Properties.PrincipalId != want.PrincipalId || old.roleGUID() != guid {
			return out, false, errUpdateNotPermitted()
		}
		want.Scope, want.CreatedOn, want.CreatedBy = old.Properties.Scope, old.Properties.CreatedOn, old.Properties.CreatedBy
		out.CreatedByType = old.CreatedByType
		out.Name = old.full(nameKey).Name
	case scope.Subscription != "" && s.tables.PerSubscription.Count(tx, scope.Subscription) >= s.cfg.MaxPerSubscription:
		return out, false, errLimitExceeded(s.cfg.MaxPerSubscription)
	case s.holds(tx, scope.Key, guid, want.PrincipalId):
		// Another name already binds this (scope, role, principal).
		return out, false, errAssignmentExists()
	default:
		created = true
		want.Scope = ptr("/" + scope.Path)
		want.CreatedOn, want.CreatedBy, out.CreatedByType = &now, by, caller.Type
		out.Name = &name
	}
	want.PrincipalType = ptr(gen.PrincipalType(principalType))
	want.UpdatedOn, want.UpdatedBy, out.UpdatedByType = &now, by, caller.Type
	if created && recorded != nil {
		// The history the seed entry gives, as a state export writes it.
		r := recorded.Properties
		want.CreatedOn, want.CreatedBy = or(r.CreatedOn, want.CreatedOn), or(r.CreatedBy, want.CreatedBy)
		want.UpdatedOn, want.UpdatedBy = or(r.UpdatedOn, want.UpdatedOn), or(r.UpdatedBy, want.UpdatedBy)
		out.CreatedByType = cmp.Or(recorded.CreatedByType, out.CreatedByType)
		out.UpdatedByType = cmp.Or(recorded.UpdatedByType, out.UpdatedByType)
	}
	out.Properties = want
	if err := s.tables.Assignments.Put(tx, nameKey, out.lean(nameKey)); err != nil {
		return out, false, fmt.Errorf("role assignment %q: %w", nameKey, err)
	}
	return out, created, nil
}

// holds reports whether principal holds the role guid at the scope key, under any name.
func (s *Server) holds(tx *store.Tx, scopeKey, guid, principal string) bool {
	key := assignmentKey(scopeKey, principal)
	if s.tables.ByScope.Count(tx, key) == 0 {
		return false // the usual case, told without reading a row
	}
	found := false
	s.tables.ByScope.Scan(tx, key, key+keySep, nil, func(_ store.Cursor, a Assignment) bool {
		found = a.roleGUID() == guid
		return !found
	})
	return found
}

// RoleAssignmentsGet reads one assignment.
func (s *Server) RoleAssignmentsGet(ctx context.Context, req gen.RoleAssignmentsGetRequestObject) (gen.RoleAssignmentsGetResponseObject, error) {
	scope, nameKey, err := s.target(ctx, req.Scope, req.RoleAssignmentName, actionRoleAssignmentsRead)
	if err != nil {
		return nil, err
	}
	var a Assignment
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		a, found = s.tables.Assignments.Get(tx, nameKey)
		return nil
	}); err != nil {
		return nil, err
	}
	if !found || a.scopeKey() != scope.Key {
		return nil, errAssignmentNotFound(req.RoleAssignmentName)
	}
	return gen.RoleAssignmentsGet200JSONResponse(render(apiVersion(ctx), a.full(nameKey))), nil
}

// RoleAssignmentsDelete deletes one assignment: 200 with what was deleted, 204 when there
// was nothing to delete.
func (s *Server) RoleAssignmentsDelete(ctx context.Context, req gen.RoleAssignmentsDeleteRequestObject) (gen.RoleAssignmentsDeleteResponseObject, error) {
	scope, nameKey, err := s.target(ctx, req.Scope, req.RoleAssignmentName, actionRoleAssignmentsDelete)
	if err != nil {
		return nil, err
	}
	var a Assignment
	deleted := false
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		old, ok := s.tables.Assignments.Get(tx, nameKey)
		if !ok || old.scopeKey() != scope.Key {
			deleted = false
			return nil
		}
		a, deleted = old.full(nameKey), s.tables.Assignments.Delete(tx, nameKey)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !deleted {
		return gen.RoleAssignmentsDelete204Response{}, nil
	}
	return gen.RoleAssignmentsDelete200JSONResponse(render(apiVersion(ctx), a)), nil
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
	target := func() string { return scope.ID() + providerSegment + "roleAssignments/" + name }
	if err := s.authorize(ctx, scope, action, target); err != nil {
		return Scope{}, "", err
	}
	return scope, nameKey, nil
}

// propertiesFromRequest checks the properties of a create-or-update body and returns them as
// an assignment stores them: the body's members as they are (so that a member the spec
// gains is kept without code of its own), the ids in their canonical form, an empty string
// as an absent member, conditionVersion's default. Read-only members (scope, createdBy,
// ...) are dropped: apply sets them. Whether the role exists is apply's to say, in the
// transaction.
func propertiesFromRequest(p gen.RoleAssignmentProperties) (gen.RoleAssignmentProperties, error) {
	principal, ok := parseGUID(p.PrincipalId)
	if !ok {
		return p, errInvalidPrincipalID(p.PrincipalId)
	}
	guid, ok := parseRoleDefinitionID(p.RoleDefinitionId)
	if !ok {
		return p, errInvalidRoleDefinitionID(p.RoleDefinitionId)
	}
	p.PrincipalId, p.RoleDefinitionId = principal, roleDefinitionsPrefix+guid
	p.Scope, p.CreatedOn, p.CreatedBy, p.UpdatedOn, p.UpdatedBy = nil, nil, nil, nil, nil
	for _, m := range []**string{&p.Description, &p.Condition, &p.ConditionVersion, &p.DelegatedManagedIdentityResourceId} {
		if *m != nil && **m == "" {
			*m = nil
		}
	}
	switch {
	case p.Condition == nil && p.ConditionVersion != nil:
		return p, errInvalidCondition("conditionVersion is set but there is no condition.")
	case p.Condition == nil:
	case p.ConditionVersion == nil:
		p.ConditionVersion = ptr(conditionVersion2)
		fallthrough
	default:
		if *p.ConditionVersion != conditionVersion2 {
			return p, errInvalidCondition(fmt.Sprintf("conditionVersion '%s' is not supported; the only accepted value is '2.0'.", *p.ConditionVersion))
		}
		if _, err := condition.Parse(*p.Condition); err != nil {
			return p, errInvalidCondition(err.Error())
		}
	}
	return p, nil
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

// render is the wire form of an assignment (full) in the shape of api-version v: its object
// with the members a read derives (id, type, systemData).
func render(v string, a Assignment) gen.RoleAssignment {
	out := a.RoleAssignment
	p := &out.Properties
	out.Id = ptr(resourceID(deref(p.Scope), "roleAssignments", deref(out.Name)))
	out.Type = ptr(roleAssignmentType)
	createdType, modifiedType := optionalType(a.CreatedByType), optionalType(a.UpdatedByType)
	if a.UpdatedByType == a.CreatedByType {
		modifiedType = createdType // one value, encoded twice
	}
	out.SystemData = &gen.SystemData{
		CreatedAt: p.CreatedOn, CreatedBy: p.CreatedBy, CreatedByType: createdType,
		LastModifiedAt: p.UpdatedOn, LastModifiedBy: p.UpdatedBy, LastModifiedByType: modifiedType,
	}
	return shapeAssignment(v, out)
}

func optionalType(t string) *gen.CreatedByType {
	if t == "" {
		return nil
	}
	return ptr(gen.CreatedByType(t))
}
