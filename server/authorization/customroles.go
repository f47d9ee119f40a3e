package authorization

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// roleFromRequest is the custom role a create-or-update body describes. Read-only members
// (id, name, type, properties.type, the created/updated members) are ignored.
func roleFromRequest(body *gen.RoleDefinition, guid string) (RoleDefinition, *Error) {
	r := RoleDefinition{GUID: guid, Type: customRole}
	if body == nil || body.Properties == nil {
		return r, errRoleNameMissing()
	}
	p := body.Properties
	r.Name, r.Description, r.AssignableScopes = deref(p.RoleName), deref(p.Description), p.AssignableScopes
	// A custom role has one permission block; ARM's model allows a list, whose other
	// entries (conditional ones) only built-in roles have.
	switch len(p.Permissions) {
	case 0:
	case 1:
		perm := p.Permissions[0]
		r.Actions, r.NotActions, r.DataActions, r.NotDataActions = perm.Actions, perm.NotActions, perm.DataActions, perm.NotDataActions
	default:
		e := newError(http.StatusBadRequest, "InvalidPermissions", "A custom role definition has one permissions entry; this one has %d.", len(p.Permissions))
		e.Target = "properties.permissions"
		return r, e
	}
	return r, nil
}

// putRole creates or replaces the custom role want inside tx: the one place where the rules
// of custom roles live, used by PUT and by the seed. by is the caller's principal id.
func (s *Server) putRole(tx *store.Tx, want RoleDefinition, by string) (RoleDefinition, error) {
	if _, ok := builtInByID()[want.GUID]; ok {
		return want, errBuiltInRoleReadOnly(want.GUID)
	}
	if err := checkRole(want); err != nil {
		return want, err
	}
	now := timefmt.Exact(s.cfg.Now().UTC().Truncate(100 * time.Nanosecond)) // ARM's 7 fractional digits, as assignments
	want.Type = customRole
	want.CreatedOn, want.CreatedBy = now, by
	if old, exists := s.tables.CustomRoles.Get(tx, want.GUID); exists {
		want.CreatedOn, want.CreatedBy = old.CreatedOn, old.CreatedBy
	}
	want.UpdatedOn, want.UpdatedBy = now, by
	if err := s.tables.CustomRoles.Put(tx, want.GUID, want); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return want, errRoleNameExists() // another custom role has the name
		}
		return want, fmt.Errorf("role definition %q: %w", want.GUID, err)
	}
	return want, nil
}

// deleteRole deletes the custom role guid, when it is visible at scope (assignable there, or
// anywhere when scope is the root), inside tx. A built-in
// role cannot be deleted; a role still assigned anywhere cannot either.
func (s *Server) deleteRole(tx *store.Tx, scope Scope, guid string) (RoleDefinition, bool, error) {
	if _, ok := builtInByID()[guid]; ok {
		return RoleDefinition{}, false, errBuiltInRoleReadOnly(guid)
	}
	// At the root every custom role is found, as a GET there (by id) finds it.
	r, ok := s.tables.CustomRoles.Get(tx, guid)
	if !ok || scope.Key != "" && !s.hier.assignableAt(r, scope.Key) {
		return r, false, nil
	}
	if s.tables.PerCustomRole.Count(tx, guid) > 0 {
		return r, false, errRoleDefinitionHasAssignments(guid)
	}
	s.tables.CustomRoles.Delete(tx, guid)
	return r, true, nil
}

// seedRoles loads the configured custom roles into tx, as PUTs by the seed would make them,
// keeping the history a state export recorded.
func (s *Server) seedRoles(tx *store.Tx) error {
	for i, r := range s.cfg.RoleDefinitions {
		r.GUID = asciiLower(r.GUID)
		if len(r.AssignableScopes) == 0 {
			r.AssignableScopes = []string{everywhere}
		}
		out, err := s.putRole(tx, r, seedCaller.PrincipalID)
		if err != nil {
			return fmt.Errorf("authorization.roleDefinitions[%d] (%s): %w", i, r.Name, err)
		}
		if r.CreatedOn == "" && r.CreatedBy == "" && r.UpdatedOn == "" && r.UpdatedBy == "" {
			continue
		}
		for _, f := range []struct{ from, to *string }{
			{&r.CreatedOn, &out.CreatedOn}, {&r.UpdatedOn, &out.UpdatedOn}, {&r.CreatedBy, &out.CreatedBy}, {&r.UpdatedBy, &out.UpdatedBy},
		} {
			if *f.from != "" {
				*f.to = *f.from
			}
		}
		for _, t := range []*string{&out.CreatedOn, &out.UpdatedOn} {
			when, err := timefmt.Parse(*t)
			if err != nil {
				return fmt.Errorf("authorization.roleDefinitions[%d] (%s): %w", i, r.Name, err)
			}
			*t = timefmt.Exact(when)
		}
		if err := s.tables.CustomRoles.Put(tx, out.GUID, out); err != nil {
			return err
		}
	}
	return nil
}

// ExportRoles is every custom role as seed entries, in id order: loaded back, each is the
// role it was, history included.
func (s *Server) ExportRoles(tx *store.Tx) []RoleDefinition {
	var out []RoleDefinition
	s.tables.CustomRoles.Each(tx, func(_ string, r RoleDefinition) bool {
		r.Type = "" // CustomRole, the default of a seeded role
		out = append(out, r)
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].GUID < out[j].GUID })
	return out
}
