package authorization

import (
	"context"
	"slices"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// PermissionsListForScope lists what the caller may do at a scope: one entry per role that
// applies to it there (grantsAt), in the order the grants come, a role given twice once.
// Everyone may read their own permissions, so there is no permission check.
func (s *Server) PermissionsListForScope(ctx context.Context, req gen.PermissionsListForScopeRequestObject) (gen.PermissionsListForScopeResponseObject, error) {
	scope, serr := parseListScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	caller := callerFrom(ctx)
	// 2015-07-01 predates data actions: its Permission has actions and notActions only.
	withData := req.Params.ApiVersion != "2015-07-01"
	out := gen.PermissionsListForScope200JSONResponse{Value: []gen.Permission{}}
	seen := map[string]bool{}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		s.grantsAt(tx, caller.PrincipalID, scope.Key, func(g grant) bool {
			if !seen[g.Role.GUID] {
				seen[g.Role.GUID] = true
				out.Value = append(out.Value, permissionOf(g.Role, withData))
			}
			return true
		})
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// permissionOf is a role's permissions as the permissions operation lists them.
func permissionOf(r RoleDefinition, withData bool) gen.Permission {
	list := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return slices.Clone(s)
	}
	p := gen.Permission{Actions: list(r.Actions), NotActions: list(r.NotActions)}
	if withData {
		p.DataActions, p.NotDataActions = list(r.DataActions), list(r.NotDataActions)
	}
	return p
}
