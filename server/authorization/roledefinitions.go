package authorization

import (
	"context"
	"net/http"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// RoleDefinitionsGet reads a role definition at a scope.
func (s *Server) RoleDefinitionsGet(ctx context.Context, req gen.RoleDefinitionsGetRequestObject) (gen.RoleDefinitionsGetResponseObject, error) {
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleDefinitionsRead, func() string { return "/" + scope.Path + providerSegment + "roleDefinitions/" + req.RoleDefinitionId }); err != nil {
		return nil, err
	}
	r, ok, err := s.readRole(ctx, req.RoleDefinitionId)
	if err != nil {
		return nil, err
	}
	// A custom role exists at the scopes it can be assigned at, as the list shows it.
	if !ok || !s.hier.assignableAt(roleOf(r), scope.Key) {
		return nil, errRoleDefinitionDoesNotExist(http.StatusNotFound, req.RoleDefinitionId)
	}
	return gen.RoleDefinitionsGet200JSONResponse(renderRole(ctx, r)), nil
}

// RoleDefinitionsGetById reads a role definition through the id assignments return. Role
// definitions are readable by every authenticated caller at this tenant-level path.
func (s *Server) RoleDefinitionsGetById(ctx context.Context, req gen.RoleDefinitionsGetByIdRequestObject) (gen.RoleDefinitionsGetByIdResponseObject, error) {
	r, ok, err := s.readRole(ctx, req.RoleDefinitionId)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errRoleDefinitionDoesNotExist(http.StatusNotFound, req.RoleDefinitionId)
	}
	return gen.RoleDefinitionsGetById200JSONResponse(renderRole(ctx, r)), nil
}

// RoleDefinitionsCreateOrUpdate creates or replaces a custom role: 201 either way, as ARM
// answers (the vendor's SDKs take no other status).
func (s *Server) RoleDefinitionsCreateOrUpdate(ctx context.Context, req gen.RoleDefinitionsCreateOrUpdateRequestObject) (gen.RoleDefinitionsCreateOrUpdateResponseObject, error) {
	guid, ok := parseGUID(req.RoleDefinitionId)
	if !ok {
		return nil, errInvalidRoleDefinitionGUID(req.RoleDefinitionId)
	}
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleDefinitionsWrite, func() string { return "/" + scope.Path + providerSegment + "roleDefinitions/" + req.RoleDefinitionId }); err != nil {
		return nil, err
	}
	var want *gen.RoleDefinitionProperties
	if req.Body != nil {
		want = req.Body.Properties
	}
	var out gen.RoleDefinition
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		out, err = s.putRole(tx, guid, want, callerFrom(ctx).PrincipalID, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return gen.RoleDefinitionsCreateOrUpdate201JSONResponse(renderRole(ctx, out)), nil
}

// RoleDefinitionsDelete deletes a custom role visible at the scope: 200 with what was
// deleted, 204 when there was none.
func (s *Server) RoleDefinitionsDelete(ctx context.Context, req gen.RoleDefinitionsDeleteRequestObject) (gen.RoleDefinitionsDeleteResponseObject, error) {
	guid, ok := parseGUID(req.RoleDefinitionId)
	if !ok {
		return nil, errInvalidRoleDefinitionGUID(req.RoleDefinitionId)
	}
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleDefinitionsDelete, func() string { return "/" + scope.Path + providerSegment + "roleDefinitions/" + req.RoleDefinitionId }); err != nil {
		return nil, err
	}
	var out gen.RoleDefinition
	deleted := false
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		out, deleted, err = s.deleteRole(tx, scope, guid)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !deleted {
		return gen.RoleDefinitionsDelete204Response{}, nil
	}
	return gen.RoleDefinitionsDelete200JSONResponse(renderRole(ctx, out)), nil
}

// RoleDefinitionsList lists the role definitions assignable at a scope.
func (s *Server) RoleDefinitionsList(ctx context.Context, req gen.RoleDefinitionsListRequestObject) (gen.RoleDefinitionsListResponseObject, error) {
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleDefinitionsRead, func() string { return "/" + scope.Path + providerSegment + "roleDefinitions" }); err != nil {
		return nil, err
	}
	filter, ok := parseRoleDefinitionFilter(deref(req.Params.Filter))
	if !ok {
		return nil, errUnsupportedRoleDefinitionFilter(deref(req.Params.Filter))
	}
	out, err := s.listRoles(ctx, filter, scope.Key)
	if err != nil {
		return nil, err
	}
	return gen.RoleDefinitionsList200JSONResponse(out), nil
}

// RoleDefinitionsListAtTenant lists every role definition: at the tenant root each custom
// role is below the scope, wherever it is assignable (ARM lists a tenant's custom roles so).
func (s *Server) RoleDefinitionsListAtTenant(ctx context.Context, req gen.RoleDefinitionsListAtTenantRequestObject) (gen.RoleDefinitionsListAtTenantResponseObject, error) {
	filter, ok := parseRoleDefinitionFilter(deref(req.Params.Filter))
	if !ok {
		return nil, errUnsupportedRoleDefinitionFilter(deref(req.Params.Filter))
	}
	filter.AndBelow = true
	out, err := s.listRoles(ctx, filter, "")
	if err != nil {
		return nil, err
	}
	return gen.RoleDefinitionsListAtTenant200JSONResponse(out), nil
}

// readRole is the object of the role with the GUID as it is now.
func (s *Server) readRole(ctx context.Context, guid string) (r gen.RoleDefinition, ok bool, err error) {
	err = s.db.View(ctx, func(tx *store.Tx) error {
		r, ok = s.roleObject(tx, guid)
		return nil
	})
	return r, ok, err
}

// listRoles is the list of the roles filter keeps at the scope key, in name order: the
// built-in catalog and the custom roles, read in one transaction.
func (s *Server) listRoles(ctx context.Context, filter roleDefinitionFilter, scopeKey string) (gen.RoleDefinitionListResult, error) {
	var kept []gen.RoleDefinition
	if filter.Type != customRole {
		for _, r := range builtInOrder() {
			if filter.keeps(s.hier, r, scopeKey) {
				kept = append(kept, objectOf(r))
			}
		}
	}
	if filter.Type != builtInRole {
		var custom []gen.RoleDefinition
		err := s.db.View(ctx, func(tx *store.Tx) error {
			custom = nil
			s.tables.CustomRoles.Each(tx, func(_ string, r gen.RoleDefinition) bool {
				if filter.keeps(s.hier, roleOf(r), scopeKey) {
					custom = append(custom, r)
				}
				return true
			})
			return nil
		})
		if err != nil {
			return gen.RoleDefinitionListResult{}, err
		}
		kept = append(kept, custom...)
		sortRoles(kept)
	}
	out := gen.RoleDefinitionListResult{Value: make([]gen.RoleDefinition, 0, len(kept))}
	for _, r := range kept {
		out.Value = append(out.Value, renderRole(ctx, r))
	}
	return out, nil
}

// renderRole is the wire form of a role definition's object, in the shape of the request's
// api-version: with the members a read derives (id, type).
func renderRole(ctx context.Context, r gen.RoleDefinition) gen.RoleDefinition {
	r.Id, r.Type = ptr(roleDefinitionsPrefix+deref(r.Name)), ptr(roleDefinitionType)
	return shapeRole(apiVersion(ctx), r)
}
