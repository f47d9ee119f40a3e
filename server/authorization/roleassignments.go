package authorization

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/ascii"
	"github.com/understudy-dev/understudy/internal/condition"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/httperr"
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
	err = s.db.Update(func(tx *store.Tx) error {
		out, created, err = s.apply(tx, scope, req.RoleAssignmentName, want, callerFrom(ctx))
		return err
	})
	if err != nil {
		return nil, err
	}
	if created {
		return (*assignmentCreated)(pooledWire(out)), nil
	}
	return (*assignmentUpdated)(pooledWire(out)), nil
}

// apply creates or updates the assignment name at scope inside tx: the one place where the
// create-versus-update rules live, used by PUT and by the seed.
func (s *Server) apply(tx *store.Tx, scope Scope, name string, want RoleAssignment, caller Caller) (out RoleAssignment, created bool, err error) {
	nameKey := ascii.Lower(name)
	// ARM's times have 7 fractional digits at most (.NET's ticks of 100 ns:
	// 2022-01-15T21:08:45.4904312Z); Go's clock gives 9.
	now := s.cfg.Now().UTC().Truncate(100 * time.Nanosecond)
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
	out.PrincipalType = want.PrincipalType
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
	if err := s.db.View(func(tx *store.Tx) error {
		r, found = s.tables.Assignments.Get(tx, nameKey)
		return nil
	}); err != nil {
		return nil, err
	}
	if !found || r.ScopeKey != scope.Key {
		return nil, errAssignmentNotFound(req.RoleAssignmentName)
	}
	return (*assignmentRead)(pooledWire(r)), nil
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
	err = s.db.Update(func(tx *store.Tx) error {
		old, ok := s.tables.Assignments.Get(tx, nameKey)
		if !ok || old.ScopeKey != scope.Key {
			return nil
		}
		r, deleted, err = s.tables.Assignments.Delete(tx, nameKey)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !deleted {
		return gen.RoleAssignmentsDelete204Response{}, nil
	}
	return (*assignmentDeleted)(pooledWire(r)), nil
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
	target := "/" + scope.Path + providerSegment + "roleAssignments/" + name
	if err := s.authorize(ctx, scope, action, target); err != nil {
		return Scope{}, "", err
	}
	return scope, nameKey, nil
}

// assignmentFromRequest checks a create-or-update body and returns the fields it sets.
// Read-only members (scope, createdBy, ...) are ignored: the server sets them. A custom
// role exists only where it is assignable (as its GET and the list show), so a role used
// outside its assignableScopes is one that does not exist there.
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
	if role, exists := s.roles.get(guid); !exists || !role.AssignableAt(scope.Key) {
		e := errRoleDefinitionDoesNotExist(http.StatusBadRequest, guid)
		e.Target = "properties.roleDefinitionId"
		return r, e
	}
	r.RoleDefinitionGUID = guid
	r.PrincipalType = defaultPrincipalType
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
		if _, ok := ParseScope(prefix); !ok || !strings.HasPrefix(prefix, "/") {
			return "", false
		}
	}
	return parseGUID(id[i+len(roleDefinitionsPrefix):])
}

func toWire(r RoleAssignment) gen.RoleAssignment { return newWire(r).RoleAssignment }

// wireAssignment is a role assignment in its wire form together with every value its
// pointers point to, so that converting one allocates once rather than once per field.
type wireAssignment struct {
	gen.RoleAssignment
	systemData                        gen.SystemData
	id, name, typ, scope              string
	description, condition, condVer   string
	delegatedID, createdBy, updatedBy string
	principalType                     gen.PrincipalType
	createdByType, updatedByType      gen.CreatedByType
	created, updated                  time.Time
}

func newWire(r RoleAssignment) *wireAssignment { return newWireInto(new(wireAssignment), r) }

// newWireInto renders r into w (whatever w held before).
func newWireInto(w *wireAssignment, r RoleAssignment) *wireAssignment {
	*w = wireAssignment{
		id:            "/" + r.Scope + providerSegment + "roleAssignments/" + r.Name,
		name:          r.Name,
		typ:           roleAssignmentType,
		description:   r.Description,
		condition:     r.Condition,
		condVer:       r.ConditionVersion,
		delegatedID:   r.DelegatedManagedIdentityResourceID,
		createdBy:     r.CreatedBy,
		updatedBy:     r.UpdatedBy,
		principalType: gen.PrincipalType(r.PrincipalType),
		createdByType: gen.CreatedByType(r.CreatedByType),
		updatedByType: gen.CreatedByType(r.UpdatedByType),
		created:       r.CreatedOn,
		updated:       r.UpdatedOn,
	}
	w.scope = w.id[:1+len(r.Scope)] // "/" + r.Scope
	w.RoleAssignment = gen.RoleAssignment{
		Id:   &w.id,
		Name: &w.name,
		Type: &w.typ,
		Properties: gen.RoleAssignmentProperties{
			Scope:                              &w.scope,
			RoleDefinitionId:                   roleDefinitionsPrefix + r.RoleDefinitionGUID,
			PrincipalId:                        r.PrincipalID,
			PrincipalType:                      &w.principalType,
			Description:                        optionalIn(&w.description),
			Condition:                          optionalIn(&w.condition),
			ConditionVersion:                   optionalIn(&w.condVer),
			DelegatedManagedIdentityResourceId: optionalIn(&w.delegatedID),
			CreatedOn:                          &w.created,
			UpdatedOn:                          &w.updated,
			CreatedBy:                          optionalIn(&w.createdBy),
			UpdatedBy:                          optionalIn(&w.updatedBy),
		},
		SystemData: &w.systemData,
	}
	w.systemData = gen.SystemData{
		CreatedAt:          &w.created,
		CreatedBy:          optionalIn(&w.createdBy),
		CreatedByType:      &w.createdByType,
		LastModifiedAt:     &w.updated,
		LastModifiedBy:     optionalIn(&w.updatedBy),
		LastModifiedByType: &w.updatedByType,
	}
	return w
}

// The responses that carry one assignment, written as the generated response types write
// themselves (same type, so the same JSON) without copying the assignment into an interface
// or encoding into a new buffer.
type (
	assignmentCreated wireAssignment
	assignmentUpdated wireAssignment
	assignmentRead    wireAssignment
	assignmentDeleted wireAssignment
)

func (a *assignmentCreated) VisitRoleAssignmentsCreateResponse(w http.ResponseWriter) error {
	return replyWire((*wireAssignment)(a), w, http.StatusCreated, (*gen.RoleAssignmentsCreate201JSONResponse)(&a.RoleAssignment))
}

func (a *assignmentUpdated) VisitRoleAssignmentsCreateResponse(w http.ResponseWriter) error {
	return replyWire((*wireAssignment)(a), w, http.StatusOK, (*gen.RoleAssignmentsCreate200JSONResponse)(&a.RoleAssignment))
}

func (a *assignmentRead) VisitRoleAssignmentsGetResponse(w http.ResponseWriter) error {
	return replyWire((*wireAssignment)(a), w, http.StatusOK, (*gen.RoleAssignmentsGet200JSONResponse)(&a.RoleAssignment))
}

func (a *assignmentDeleted) VisitRoleAssignmentsDeleteResponse(w http.ResponseWriter) error {
	return replyWire((*wireAssignment)(a), w, http.StatusOK, (*gen.RoleAssignmentsDelete200JSONResponse)(&a.RoleAssignment))
}

// A reply is visited once, by the generated strict handler, and nothing keeps it or what
// it points to afterwards: its wireAssignment goes back to a pool once written.
var wires = sync.Pool{New: func() any { return new(wireAssignment) }}

func pooledWire(r RoleAssignment) *wireAssignment {
	return newWireInto(wires.Get().(*wireAssignment), r)
}

// replyWire writes v (a's assignment as one of the generated types) and recycles a. The
// body is written by appendRoleAssignment when it can, else by encoding/json.
func replyWire(a *wireAssignment, w http.ResponseWriter, status int, v any) error {
	err := httperr.WriteAppended(w, status, v, func(b []byte) ([]byte, bool) { return appendRoleAssignment(b, &a.RoleAssignment) })
	releaseWire(a)
	return err
}

// releaseWire returns a to the pool, holding nothing of the assignment it was.
func releaseWire(a *wireAssignment) {
	*a = wireAssignment{}
	wires.Put(a)
}

// optionalIn is optional for a string that already lives where the pointer may point.
func optionalIn(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}

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
