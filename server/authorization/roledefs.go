package authorization

import (
	"fmt"
	"sort"
	"strings"
)

// RoleDefinition is a role: what it allows and where it may be assigned.
type RoleDefinition struct {
	GUID             string   `yaml:"id"`
	Name             string   `yaml:"roleName"`
	Description      string   `yaml:"description,omitempty"`
	Type             string   `yaml:"type,omitempty"` // BuiltInRole or CustomRole (the default for seeded roles)
	Actions          []string `yaml:"actions,omitempty"`
	NotActions       []string `yaml:"notActions,omitempty"`
	DataActions      []string `yaml:"dataActions,omitempty"`
	NotDataActions   []string `yaml:"notDataActions,omitempty"`
	AssignableScopes []string `yaml:"assignableScopes,omitempty"`
}

// The built-in roles, with ARM's ids. Their actions follow ARM's, with Microsoft.* renamed
// to Vendor.*; only the parts that matter for Vendor.Authorization are kept.
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

// BuiltInRoles returns the built-in role definitions.
func BuiltInRoles() []RoleDefinition {
	all := []string{everywhere}
	return []RoleDefinition{
		{GUID: OwnerRoleID, Name: "Owner", Type: builtInRole, AssignableScopes: all,
			Description: "Grants full access to manage all resources, including the ability to assign roles in Azure RBAC.",
			Actions:     []string{"*"}},
		{GUID: ContributorRoleID, Name: "Contributor", Type: builtInRole, AssignableScopes: all,
			Description: "Grants full access to manage all resources, but does not allow you to assign roles in Azure RBAC.",
			Actions:     []string{"*"},
			NotActions:  []string{"Vendor.Authorization/*/Delete", "Vendor.Authorization/*/Write", "Vendor.Authorization/elevateAccess/Action"}},
		{GUID: ReaderRoleID, Name: "Reader", Type: builtInRole, AssignableScopes: all,
			Description: "View all resources, but does not allow you to make any changes.",
			Actions:     []string{"*/read"}},
		{GUID: UserAccessAdministratorRoleID, Name: "User Access Administrator", Type: builtInRole, AssignableScopes: all,
			Description: "Lets you manage user access to Azure resources.",
			Actions:     []string{"*/read", "Vendor.Authorization/*", "Vendor.Support/*"}},
		{GUID: RBACAdministratorRoleID, Name: "Role Based Access Control Administrator", Type: builtInRole, AssignableScopes: all,
			Description: "Manage access to Azure resources by assigning roles using Azure RBAC.",
			Actions:     []string{actionRoleAssignmentsWrite, actionRoleAssignmentsDelete, "*/read", "Vendor.Support/*"}},
	}
}

// Allows reports whether the role grants action: some action pattern matches it and no
// not-action does. Patterns use * as a wildcard and compare case-insensitively.
func (r RoleDefinition) Allows(action string) bool {
	return matchesAny(r.Actions, action) && !matchesAny(r.NotActions, action)
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

// AssignableAt reports whether the role may be used at the scope key.
func (r RoleDefinition) AssignableAt(scopeKey string) bool {
	for _, a := range r.AssignableScopes {
		a = asciiLower(strings.Trim(a, "/"))
		if a == "" || Covers(a, scopeKey) {
			return true
		}
	}
	return false
}

// AssignableBelow reports whether one of the role's assignable scopes lies below the scope
// key (what atScopeAndBelow() adds to a list).
func (r RoleDefinition) AssignableBelow(scopeKey string) bool {
	for _, a := range r.AssignableScopes {
		if a = asciiLower(strings.Trim(a, "/")); a != scopeKey && (scopeKey == "" || Covers(scopeKey, a)) {
			return true
		}
	}
	return false
}

// checkCustomRoles holds seeded roles to what ARM lets a custom role be: a GUID of its own
// (a built-in's would silently replace the built-in, and with it what every assignment of
// the built-in grants), a name no other role has (RoleDefinitionWithSameNameExists), the
// CustomRole type, and assignable scopes that are scopes ("/", the root, or what a role
// assignment may name). The first one that breaks a rule is reported.
func checkCustomRoles(custom []RoleDefinition) error {
	ids, names := map[string]string{}, map[string]bool{}
	for _, r := range BuiltInRoles() {
		ids[strings.ToLower(r.GUID)] = "the built-in role " + r.Name
		names[strings.ToLower(r.Name)] = true
	}
	for _, r := range custom {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("authorization: role definition %q: "+format, append([]any{r.Name}, args...)...)
		}
		if _, ok := parseGUID(r.GUID); !ok {
			return fail("id %q is not a GUID", r.GUID)
		}
		if owner, taken := ids[strings.ToLower(r.GUID)]; taken {
			return fail("id %q is already %s", r.GUID, owner)
		}
		ids[strings.ToLower(r.GUID)] = fmt.Sprintf("the role %q", r.Name)
		switch key := strings.ToLower(strings.TrimSpace(r.Name)); {
		case key == "":
			return fail("roleName is required")
		case names[key]:
			return fail("another role has that name (role names are unique, whatever their case)")
		default:
			names[key] = true
		}
		if r.Type != "" && r.Type != customRole {
			return fail("type %q: a seeded role is a %s (the built-in roles are understudy's)", r.Type, customRole)
		}
		for _, a := range r.AssignableScopes {
			if a == everywhere {
				continue
			}
			if _, err := parseScope(a); err != nil {
				return fail("assignableScopes: %q is not a scope (\"/\", or one such as /subscriptions/{id})", a)
			}
		}
	}
	return nil
}

// roleCatalog is the read-only set of role definitions, by lower-case GUID.
type roleCatalog struct {
	byID  map[string]RoleDefinition
	order []string // GUIDs sorted by role name
}

func newRoleCatalog(custom []RoleDefinition) *roleCatalog {
	c := &roleCatalog{byID: map[string]RoleDefinition{}}
	for _, r := range append(BuiltInRoles(), custom...) {
		r.GUID = strings.ToLower(r.GUID)
		if r.Type == "" {
			r.Type = customRole
		}
		if len(r.AssignableScopes) == 0 {
			r.AssignableScopes = []string{everywhere}
		}
		c.byID[r.GUID] = r
	}
	for id := range c.byID {
		c.order = append(c.order, id)
	}
	sort.Slice(c.order, func(i, j int) bool {
		a, b := c.byID[c.order[i]], c.byID[c.order[j]]
		return a.Name < b.Name || (a.Name == b.Name && a.GUID < b.GUID)
	})
	return c
}

func (c *roleCatalog) get(guid string) (RoleDefinition, bool) {
	r, ok := c.byID[asciiLower(guid)]
	return r, ok
}
