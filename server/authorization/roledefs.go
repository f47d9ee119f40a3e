package authorization

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/authorization/builtin"
)

// RoleDefinition is a role as the permission checks read it: what it allows and where it may
// be assigned. Built-in roles come from the vendor's catalog (package builtin); a custom
// role is stored as its object (gen.RoleDefinition), which roleOf reads.
type RoleDefinition struct {
	GUID             string
	Name             string
	Description      string
	Type             string // BuiltInRole or CustomRole
	Actions          []string
	NotActions       []string
	DataActions      []string
	NotDataActions   []string
	AssignableScopes []string
}

// Ids of the built-in roles this package names, as in ARM.
const (
	OwnerRoleID                    = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
	ContributorRoleID              = "b24988ac-6180-42a0-ab88-20f7382dd24c"
	ReaderRoleID                   = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
	UserAccessAdministratorRoleID  = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
	RBACAdministratorRoleID        = "f58310d9-a9f6-439a-9e8d-f62e7b41a168"
	actionRoleAssignmentsWrite     = "Vendor.Authorization/roleAssignments/write"
	actionRoleAssignmentsRead      = "Vendor.Authorization/roleAssignments/read"
	actionRoleAssignmentsDelete    = "Vendor.Authorization/roleAssignments/delete"
	actionRoleDefinitionsRead      = "Vendor.Authorization/roleDefinitions/read"
	actionRoleDefinitionsWrite     = "Vendor.Authorization/roleDefinitions/write"
	actionRoleDefinitionsDelete    = "Vendor.Authorization/roleDefinitions/delete"
	roleDefinitionsPrefix          = "/providers/Vendor.Authorization/roleDefinitions/"
	roleAssignmentType             = "Vendor.Authorization/roleAssignments"
	roleDefinitionType             = "Vendor.Authorization/roleDefinitions"
	providerSegment                = "/providers/Vendor.Authorization/"
	builtInRole, customRole        = "BuiltInRole", "CustomRole"
	everywhere                     = "/"
	defaultPrincipalType           = "User"
	conditionVersion2              = "2.0"
	maxRoleAssignmentsPerSubscript = 4000
)

// BuiltInRoles returns the built-in role definitions: the vendor's published catalog, with
// the vendor's own authorization namespace renamed in actions and assignable scopes as
// everywhere else in this API (other namespaces keep their real names).
var BuiltInRoles = sync.OnceValue(func() []RoleDefinition {
	var out []RoleDefinition
	for _, r := range builtin.Roles() {
		out = append(out, RoleDefinition{
			GUID: r.ID, Name: r.Name, Description: r.Description, Type: builtInRole,
			Actions: renamed(r.Actions), NotActions: renamed(r.NotActions),
			DataActions: renamed(r.DataActions), NotDataActions: renamed(r.NotDataActions),
			AssignableScopes: renamed(r.AssignableScopes),
		})
	}
	return out
})

// renamed is list with the vendor's namespace Microsoft.Authorization spelled as this API
// spells it.
func renamed(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		if j := strings.Index(strings.ToLower(s), "microsoft.authorization"); j >= 0 && (j == 0 || s[j-1] == '/') {
			s = s[:j] + "Vendor.Authorization" + s[j+len("microsoft.authorization"):]
		}
		out[i] = s
	}
	return out
}

// Allows reports whether the role grants the control-plane action: some action pattern
// matches it and no not-action does. Patterns use * as a wildcard and compare
// case-insensitively.
func (r RoleDefinition) Allows(action string) bool {
	return matchesAny(r.Actions, action) && !matchesAny(r.NotActions, action)
}

// AllowsData reports whether the role grants the data action: dataActions minus
// notDataActions, as Allows. Control-plane actions never grant data actions.
func (r RoleDefinition) AllowsData(action string) bool {
	return matchesAny(r.DataActions, action) && !matchesAny(r.NotDataActions, action)
}

func matchesAny(patterns []string, action string) bool {
	for _, p := range patterns {
		if wildcardMatch(strings.ToLower(p), strings.ToLower(action)) {
			return true
		}
	}
	return false
}

// wildcardMatch matches s against p, where * stands for any run of characters.
func wildcardMatch(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, last)
}

// assignableAt reports whether role r may be used at the scope key: one of its assignable
// scopes is the scope or above it in the hierarchy (the root, a management group above
// the subscription, a path prefix).
func (h *hierarchy) assignableAt(r RoleDefinition, scopeKey string) bool {
	for _, a := range r.AssignableScopes {
		if h.covers(assignableKey(a), scopeKey) {
			return true
		}
	}
	return false
}

// assignableBelow reports whether one of role r's assignable scopes lies below the scope
// key in the hierarchy (what atScopeAndBelow() adds to a list).
func (h *hierarchy) assignableBelow(r RoleDefinition, scopeKey string) bool {
	for _, a := range r.AssignableScopes {
		if k := assignableKey(a); k != scopeKey && h.covers(scopeKey, k) {
			return true
		}
	}
	return false
}

// assignableKey is the scope key of an assignable scope as a role carries it: "/", a scope
// as a role assignment names it (either management-group provider spelling), or a path no
// assignment names, compared as a path (the catalog's Reservations Administrator is
// assignable under /providers/Microsoft.Capacity).
func assignableKey(a string) string {
	if strings.Trim(a, "/") == "" {
		return ""
	}
	if sc, ok := ParseScope(a); ok {
		return sc.Key
	}
	return asciiLower(strings.Trim(a, "/"))
}

// checkCustomRoles holds seeded roles to the rules a PUT holds custom roles to (checkRole),
// and to one id and one name each among themselves. The first one that breaks a rule is
// reported, at its id.
func checkCustomRoles(custom []gen.RoleDefinition) error {
	ids, names := map[string]string{}, map[string]bool{}
	for i, obj := range custom {
		r := roleOf(obj)
		fail := func(format string, args ...any) error {
			return &SeedError{Collection: SeedRoles, Index: i, Field: "name", Err: fmt.Errorf("role definition %q: "+format, append([]any{r.Name}, args...)...)}
		}
		if _, ok := parseGUID(r.GUID); !ok {
			return fail("id %q is not a GUID", r.GUID)
		}
		if name, ok := builtin.Names()[asciiLower(r.GUID)]; ok {
			return fail("id %q is already the built-in role %s", r.GUID, name)
		}
		if owner, taken := ids[asciiLower(r.GUID)]; taken {
			return fail("id %q is already %s", r.GUID, owner)
		}
		ids[asciiLower(r.GUID)] = fmt.Sprintf("the role %q", r.Name)
		if r.Type != "" && r.Type != customRole {
			return fail("type %q: a seeded role is a %s (the built-in roles are the vendor's catalog)", r.Type, customRole)
		}
		key := roleNameKey(r.Name)
		if builtInNames()[key] || names[key] {
			return fail("another role has that name (role names are unique, whatever their case)")
		}
		if err := checkRole(r); err != nil {
			return fail("%s", err.Message)
		}
		names[key] = true
	}
	return nil
}

// checkRole is what a custom role must be, whoever makes it: a name that no built-in role
// has, action strings with one wildcard at most, and assignable scopes that are scopes ("/",
// or what a role assignment may name), at most one of them a management group (the last
// two are ARM's custom role limits). Whether "/" may be one is putRole's to say.
func checkRole(r RoleDefinition) *Error {
	key := roleNameKey(r.Name)
	if key == "" {
		return errRoleNameMissing()
	}
	if builtInNames()[key] {
		return errRoleNameExists()
	}
	for _, a := range slices.Concat(r.Actions, r.NotActions) {
		if strings.Count(a, "*") > 1 {
			return errMultipleWildcards("InvalidActionOrNotAction", a)
		}
	}
	for _, a := range slices.Concat(r.DataActions, r.NotDataActions) {
		if strings.Count(a, "*") > 1 {
			return errMultipleWildcards("InvalidDataActionOrNotDataAction", a)
		}
	}
	if len(r.AssignableScopes) == 0 {
		return errAssignableScopesMissing()
	}
	var groups []string // the management groups, each as first spelled
	seen := map[string]bool{}
	for _, a := range r.AssignableScopes {
		if a == everywhere {
			continue
		}
		sc, ok := ParseScope(a)
		if !ok || !strings.HasPrefix(a, "/") {
			return errInvalidAssignableScope(a)
		}
		if sc.ManagementGroup() && !seen[sc.Key] {
			seen[sc.Key] = true
			groups = append(groups, a)
		}
	}
	if len(groups) > 1 {
		return errTwoManagementGroups(groups[0], groups[1])
	}
	return nil
}

// isBuiltIn says whether the lower-case GUID is a built-in role's.
func isBuiltIn(guid string) bool {
	_, ok := builtin.Names()[guid]
	return ok
}

// roleNameKey is the form role names are compared in: trimmed, any case.
func roleNameKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// builtInByID indexes the catalog by lower-case GUID; builtInNames are the catalog's names
// by roleNameKey. What only tells a built-in role from a custom one (isBuiltIn,
// builtInNames) reads the catalog's names alone, so that a server whose seed makes custom
// roles or assignments does not parse the permissions before a request asks for a role.
var (
	builtInByID = sync.OnceValue(func() map[string]RoleDefinition {
		m := map[string]RoleDefinition{}
		for _, r := range BuiltInRoles() {
			m[r.GUID] = r
		}
		return m
	})
	builtInNames = sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, name := range builtin.Names() {
			m[roleNameKey(name)] = true
		}
		return m
	})
	// builtInOrder is the catalog sorted by name, as lists show it.
	builtInOrder = sync.OnceValue(func() []RoleDefinition {
		out := append([]RoleDefinition(nil), BuiltInRoles()...)
		slices.SortFunc(out, func(a, b RoleDefinition) int {
			return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.GUID, b.GUID))
		})
		return out
	})
)

// sortRoles puts roles in the order lists show them: by name, then id.
func sortRoles(roles []gen.RoleDefinition) {
	slices.SortFunc(roles, func(a, b gen.RoleDefinition) int {
		return cmp.Or(strings.Compare(deref(a.Properties.RoleName), deref(b.Properties.RoleName)), strings.Compare(deref(a.Name), deref(b.Name)))
	})
}

// roleOf reads a role definition object (stored, or from a seed) as the checks read it.
func roleOf(obj gen.RoleDefinition) RoleDefinition {
	r := RoleDefinition{GUID: deref(obj.Name)}
	if p := obj.Properties; p != nil {
		r.Name, r.Description, r.Type, r.AssignableScopes = deref(p.RoleName), deref(p.Description), deref(p.Type), p.AssignableScopes
		if len(p.Permissions) > 0 {
			perm := p.Permissions[0]
			r.Actions, r.NotActions, r.DataActions, r.NotDataActions = perm.Actions, perm.NotActions, perm.DataActions, perm.NotDataActions
		}
	}
	return r
}

// builtInTime is a built-in role's createdOn and updatedOn: the catalog has neither, so
// every built-in role carries the day the catalog was taken, which stays put from run to
// run. ARM's createdBy and updatedBy for them are null; they are left out.
var builtInTime, _ = time.Parse(time.DateOnly, builtin.Taken)

// objectOf is a built-in role's object, as a GET returns it (id and type aside, which
// renderRole adds).
func objectOf(r RoleDefinition) gen.RoleDefinition {
	guid := r.GUID
	created, updated := builtInTime, builtInTime
	return gen.RoleDefinition{Name: &guid, Properties: &gen.RoleDefinitionProperties{
		RoleName: &r.Name, Type: &r.Type, Description: &r.Description,
		CreatedOn: &created, UpdatedOn: &updated,
		Permissions: []gen.Permission{{
			Actions: nonNil(r.Actions), NotActions: nonNil(r.NotActions),
			DataActions: nonNil(r.DataActions), NotDataActions: nonNil(r.NotDataActions),
		}},
		AssignableScopes: r.AssignableScopes,
	}}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
