package authorization

import (
	"context"
	"net/http"

	gen "github.com/understudy-dev/understudy/gen/authorization"
)

// RoleDefinitionsGet reads a role definition at a scope.
func (s *Server) RoleDefinitionsGet(ctx context.Context, req gen.RoleDefinitionsGetRequestObject) (gen.RoleDefinitionsGetResponseObject, error) {
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleDefinitionsRead, "/"+scope.Path+providerSegment+"roleDefinitions/"+req.RoleDefinitionId); err != nil {
		return nil, err
	}
	// A custom role exists at the scopes it can be assigned at, as the list shows it.
	r, ok := s.roles.get(req.RoleDefinitionId)
	if !ok || !r.AssignableAt(scope.Key) {
		return nil, errRoleDefinitionDoesNotExist(http.StatusNotFound, req.RoleDefinitionId)
	}
	return gen.RoleDefinitionsGet200JSONResponse(roleToWire(r)), nil
}

// RoleDefinitionsGetById reads a role definition through the id assignments return. Role
// definitions are readable by every authenticated caller at this tenant-level path.
func (s *Server) RoleDefinitionsGetById(ctx context.Context, req gen.RoleDefinitionsGetByIdRequestObject) (gen.RoleDefinitionsGetByIdResponseObject, error) {
	r, ok := s.roles.get(req.RoleDefinitionId)
	if !ok {
		return nil, errRoleDefinitionDoesNotExist(http.StatusNotFound, req.RoleDefinitionId)
	}
	return gen.RoleDefinitionsGetById200JSONResponse(roleToWire(r)), nil
}

// RoleDefinitionsList lists the role definitions assignable at a scope.
func (s *Server) RoleDefinitionsList(ctx context.Context, req gen.RoleDefinitionsListRequestObject) (gen.RoleDefinitionsListResponseObject, error) {
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleDefinitionsRead, "/"+scope.Path+providerSegment+"roleDefinitions"); err != nil {
		return nil, err
	}
	filter, ok := parseRoleDefinitionFilter(deref(req.Params.Filter))
	if !ok {
		return nil, errUnsupportedRoleDefinitionFilter(deref(req.Params.Filter))
	}
	return gen.RoleDefinitionsList200JSONResponse(s.listRoles(filter, scope.Key)), nil
}

// RoleDefinitionsListAtTenant lists every role definition: at the tenant root each custom
// role is below the scope, wherever it is assignable (ARM lists a tenant's custom roles so).
func (s *Server) RoleDefinitionsListAtTenant(ctx context.Context, req gen.RoleDefinitionsListAtTenantRequestObject) (gen.RoleDefinitionsListAtTenantResponseObject, error) {
	filter, ok := parseRoleDefinitionFilter(deref(req.Params.Filter))
	if !ok {
		return nil, errUnsupportedRoleDefinitionFilter(deref(req.Params.Filter))
	}
	filter.AndBelow = true
	return gen.RoleDefinitionsListAtTenant200JSONResponse(s.listRoles(filter, "")), nil
}

// listRoles is the list of the roles filter keeps at the scope key, in name order.
func (s *Server) listRoles(filter roleDefinitionFilter, scopeKey string) gen.RoleDefinitionListResult {
	out := gen.RoleDefinitionListResult{Value: []gen.RoleDefinition{}}
	for _, id := range s.roles.order {
		if r := s.roles.byID[id]; filter.keeps(r, scopeKey) {
			out.Value = append(out.Value, roleToWire(r))
		}
	}
	return out
}

func roleToWire(r RoleDefinition) gen.RoleDefinition {
	id := roleDefinitionsPrefix + r.GUID
	name, typ := r.GUID, roleDefinitionType
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	perm := gen.Permission{
		Actions: nonNil(r.Actions), NotActions: nonNil(r.NotActions),
		DataActions: nonNil(r.DataActions), NotDataActions: nonNil(r.NotDataActions),
	}
	return gen.RoleDefinition{
		Id: &id, Name: &name, Type: &typ,
		Properties: gen.RoleDefinitionProperties{
			RoleName:         &r.Name,
			Type:             &r.Type,
			Description:      &r.Description,
			Permissions:      []gen.Permission{perm},
			AssignableScopes: r.AssignableScopes,
		},
	}
}
