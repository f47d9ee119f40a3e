package authorization

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// A custom role is stored as its object: the gen.RoleDefinition api-version
// 2022-05-01-preview returns (the fullest), with its computed members filled in when it is
// written (properties.type, one permissions entry, the created and updated members), without id and type, which a read derives from its name (renderRole).

// putRole creates or replaces the custom role guid, with the properties a request or a seed
// entry gives, inside tx: the one place where the rules of custom roles live and its
// computed members are filled in, used by PUT and by the seed. The properties' members are
// kept as they are (so that a member the spec gains is stored without code of its own);
// read-only ones are replaced. by is the caller's principal id. recorded, from a seed entry
// (nil for a request), gives the created and updated members it has (the history a state
// export writes), which the role takes instead of by and the time of now.
func (s *Server) putRole(tx *store.Tx, guid string, want *gen.RoleDefinitionProperties, by string, recorded *gen.RoleDefinitionProperties) (gen.RoleDefinition, error) {
	if want == nil {
		return gen.RoleDefinition{}, errRoleNameMissing()
	}
	p := *want
	// A custom role has one permission block; ARM's model allows a list, whose other
	// entries (conditional ones) only built-in roles have.
	switch len(p.Permissions) {
	case 0:
		p.Permissions = []gen.Permission{{}}
	case 1:
		p.Permissions = []gen.Permission{p.Permissions[0]}
	default:
		e := newError(http.StatusBadRequest, "InvalidPermissions", "A custom role definition has one permissions entry; this one has %d.", len(p.Permissions))
		e.Target = "properties.permissions"
		return gen.RoleDefinition{}, e
	}
	if isBuiltIn(guid) {
		return gen.RoleDefinition{}, errBuiltInRoleReadOnly(guid)
	}
	p.Type, p.Description = ptr(customRole), ptr(deref(p.Description))
	out := gen.RoleDefinition{Name: &guid, Properties: &p}
	if err := checkRole(roleOf(out)); err != nil {
		return out, err
	}
	// ARM refuses the root as a custom role's assignable scope. A seed entry (recorded) may
	// give it, as one without assignableScopes does: the seed is state, not a request.
	if recorded == nil && slices.Contains(p.AssignableScopes, everywhere) {
		return out, errRootAssignableScope()
	}
	now := s.cfg.Now().UTC().Truncate(100 * time.Nanosecond) // ARM's 7 fractional digits, as assignments
	p.CreatedOn, p.CreatedBy = &now, optional(by)
	if old, exists := s.tables.CustomRoles.Get(tx, guid); exists {
		if err := s.keepsAssignments(tx, guid, roleOf(old), roleOf(out)); err != nil {
			return out, err
		}
		p.CreatedOn, p.CreatedBy = old.Properties.CreatedOn, old.Properties.CreatedBy
	}
	p.UpdatedOn, p.UpdatedBy = &now, optional(by)
	if recorded != nil {
		p.CreatedOn, p.CreatedBy = or(recorded.CreatedOn, p.CreatedOn), or(recorded.CreatedBy, p.CreatedBy)
		p.UpdatedOn, p.UpdatedBy = or(recorded.UpdatedOn, p.UpdatedOn), or(recorded.UpdatedBy, p.UpdatedBy)
	}
	if err := s.tables.CustomRoles.Put(tx, guid, out); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return out, errRoleNameExists() // another custom role has the name
		}
		return out, fmt.Errorf("role definition %q: %w", guid, err)
	}
	return out, nil
}

// keepsAssignments refuses a change of custom role guid's assignable scopes that would leave
// one of its assignments where the role no longer exists, as ARM refuses it, naming the
// assignable scope being removed: no assignment outlives its role, in part either. A role's
// update reads every assignment only when the role has some.
func (s *Server) keepsAssignments(tx *store.Tx, guid string, was, now RoleDefinition) error {
	if s.tables.PerCustomRole.Count(tx, guid) == 0 {
		return nil
	}
	orphan, found := "", false
	s.tables.Assignments.Each(tx, func(_ string, a Assignment) bool {
		if a.roleGUID() == guid && !s.hier.assignableAt(now, a.scopeKey()) {
			orphan, found = a.scopeKey(), true
		}
		return !found
	})
	if !found {
		return nil
	}
	removed := "/" + orphan
	for _, sc := range was.AssignableScopes {
		if s.hier.covers(assignableKey(sc), orphan) {
			removed = sc
			break
		}
	}
	return errScopeHasAssignments(removed)
}

// deleteRole deletes the custom role guid, when it is visible at scope (assignable there, or
// anywhere when scope is the root), inside tx. A built-in role cannot be deleted; a role
// still assigned anywhere cannot either.
func (s *Server) deleteRole(tx *store.Tx, scope Scope, guid string) (gen.RoleDefinition, bool, error) {
	if isBuiltIn(guid) {
		return gen.RoleDefinition{}, false, errBuiltInRoleReadOnly(guid)
	}
	// At the root every custom role is found, as a GET there (by id) finds it.
	r, ok := s.tables.CustomRoles.Get(tx, guid)
	if !ok || scope.Key != "" && !s.hier.assignableAt(roleOf(r), scope.Key) {
		return r, false, nil
	}
	if s.tables.PerCustomRole.Count(tx, guid) > 0 {
		return r, false, errRoleDefinitionHasAssignments(guid)
	}
	s.tables.CustomRoles.Delete(tx, guid)
	return r, true, nil
}

// SeedRole is a custom role that exists at start and again after every reset, as the seed
// file gives it and the state export writes it: the object a GET returns with api-version
// 2022-05-01-preview (name, the GUID, and properties: roleName, description, permissions,
// assignableScopes, and the computed members), without id and type (ignored when given).
// The created and updated members an entry gives are taken, as an export writes them; the
// others are made as a PUT by the seed would make them. A role without assignableScopes is
// assignable everywhere. The form of earlier seed files is read too: id (the GUID),
// roleName, description, type, actions, notActions, dataActions, notDataActions,
// assignableScopes and the created and updated members side by side, without properties.
type SeedRole map[string]any

// GUID is the role's id as the entry spells it.
func (r SeedRole) GUID() string {
	key := "name"
	if r.flat() {
		key = "id"
	}
	s, _ := r[key].(string)
	return s
}

func (r SeedRole) flat() bool { return r["properties"] == nil }

// permissionMember reports whether k is a member of a role's permissions entry, which an
// entry in the earlier form has beside its other members.
func permissionMember(k string) bool {
	switch k {
	case "actions", "notActions", "dataActions", "notDataActions":
		return true
	}
	return false
}

// object is the entry in the object's form.
func (r SeedRole) object() map[string]any {
	if !r.flat() {
		return r
	}
	props, perm := map[string]any{}, map[string]any{}
	out := map[string]any{"properties": props}
	for k, v := range r {
		switch {
		case k == "id":
			out["name"] = v
		case permissionMember(k):
			perm[k] = v
		default:
			props[k] = v
		}
	}
	if len(perm) > 0 {
		props["permissions"] = []any{perm}
	}
	return out
}

// field is the member at fault, as the entry spells it.
func (r SeedRole) field(f string) string {
	if !r.flat() {
		return f
	}
	if f == "name" {
		return "id"
	}
	f = strings.TrimPrefix(f, "properties.")
	return strings.TrimPrefix(f, "permissions.0.")
}

// SeedRoles is the list of custom roles, as SeedError names it.
const SeedRoles = "roleDefinitions"

// decodeRoles reads the configured custom roles, strictly, and holds them to the rules of
// custom roles (checkCustomRoles).
func decodeRoles(entries []SeedRole) ([]gen.RoleDefinition, error) {
	out := make([]gen.RoleDefinition, len(entries))
	for i, entry := range entries {
		raw, err := json.Marshal(entry.object())
		if err == nil {
			var field string
			if field, err = decodeStrict(raw, &out[i]); err != nil {
				return nil, &SeedError{Collection: SeedRoles, Index: i, Field: entry.field(field), Err: err}
			}
		}
		if err != nil {
			return nil, &SeedError{Collection: SeedRoles, Index: i, Err: err}
		}
		if out[i].Properties == nil {
			out[i].Properties = &gen.RoleDefinitionProperties{}
		}
		if len(out[i].Properties.AssignableScopes) == 0 {
			out[i].Properties.AssignableScopes = []string{everywhere} // a seeded role without them is assignable everywhere
		}
	}
	var se *SeedError
	if err := checkCustomRoles(out); errors.As(err, &se) {
		se.Field = entries[se.Index].field(se.Field)
		return nil, se
	} else if err != nil {
		return nil, err
	}
	return out, nil
}

// seedRoles loads the seed's custom roles into tx, as PUTs by the seed would make them,
// keeping the history a state export recorded.
func (s *Server) seedRoles(tx *store.Tx, entries []SeedRole) error {
	roles, err := decodeRoles(entries)
	if err != nil {
		return err
	}
	for i, r := range roles {
		if _, err := s.putRole(tx, asciiLower(deref(r.Name)), r.Properties, seedCaller.PrincipalID, r.Properties); err != nil {
			return &SeedError{Collection: SeedRoles, Index: i, Field: entries[i].field("name"), Err: err}
		}
	}
	return nil
}

// ExportRoles is every custom role as seed entries (its object, as stored), in id order:
// loaded back, each is the role it was, history included.
func (s *Server) ExportRoles(tx *store.Tx) ([]SeedRole, error) {
	var out []SeedRole
	var err error
	s.tables.CustomRoles.Each(tx, func(_ string, r gen.RoleDefinition) bool {
		var raw []byte
		var entry SeedRole
		if raw, err = json.Marshal(r); err == nil {
			err = json.Unmarshal(raw, &entry)
		}
		out = append(out, entry)
		return err == nil
	})
	return out, err
}
