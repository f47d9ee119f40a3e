package authorization

import (
	"strings"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// Assignment is a role assignment: the object api-version 2022-04-01 returns (name and
// properties, with their computed members: the scope as first sent, the canonical
// roleDefinitionId, the lower-case principalId, the principalType, the created and updated
// members), without what a read derives from it (id, type, systemData: render), beside the
// identity types of its creator and last updater, which only systemData shows. It is what a
// seed file and the state export give for an assignment (SeedAssignment).
//
// It is stored lean: without its name when the name is its primary key (the name
// lower-cased, as most are spelled), and without the updated members that equal the
// created ones (as they do until an assignment is updated). full fills them in again.
type Assignment struct {
	gen.RoleAssignment
	CreatedByType string `json:"createdByType,omitempty"`
	UpdatedByType string `json:"updatedByType,omitempty"`
}

// lean is a as stored under pk.
func (a Assignment) lean(pk string) Assignment {
	p := &a.Properties
	if deref(a.Name) == pk {
		a.Name = nil
	}
	if p.UpdatedOn != nil && p.CreatedOn != nil && p.UpdatedOn.Equal(*p.CreatedOn) {
		p.UpdatedOn = nil
	}
	if p.UpdatedBy != nil && p.CreatedBy != nil && *p.UpdatedBy == *p.CreatedBy {
		p.UpdatedBy = nil
	}
	if a.UpdatedByType == a.CreatedByType {
		a.UpdatedByType = ""
	}
	return a
}

// full is the assignment stored under pk, whole.
func (a Assignment) full(pk string) Assignment {
	p := &a.Properties
	if a.Name == nil {
		a.Name = &pk
	}
	if p.UpdatedOn == nil {
		p.UpdatedOn = p.CreatedOn
	}
	if p.UpdatedBy == nil {
		p.UpdatedBy = p.CreatedBy
	}
	if a.UpdatedByType == "" {
		a.UpdatedByType = a.CreatedByType
	}
	return a
}

// The index keys of an assignment are derived from its object, lower-cased so that lookups
// are case-insensitive as in ARM.

// scopeKey is the assignment's Scope.Key.
func (a Assignment) scopeKey() string { return scopeKeyOf(deref(a.Properties.Scope)) }

// roleGUID is the GUID of the assignment's role definition (stored canonical: lower-case,
// after roleDefinitionsPrefix).
func (a Assignment) roleGUID() string {
	return strings.TrimPrefix(a.Properties.RoleDefinitionId, roleDefinitionsPrefix)
}

// DirectoryObject is a principal of the directory: a user, group, service principal or
// managed identity (or a foreign group or device), by lower-case object id.
type DirectoryObject struct {
	ID          string `json:"id"`
	Type        string `json:"type"` // a DirectoryType
	DisplayName string `json:"displayName,omitempty"`
}

// Membership says that Member (a principal's lower-case id) is directly in Group.
type Membership struct {
	Group  string `json:"group"`
	Member string `json:"member"`
}

// tables are the authorization API's tables and their indexes.
type tables struct {
	// Assignments is keyed by the lower-case name.
	Assignments *store.Table[Assignment]
	// ByScope orders assignments by scope key, then principal (assignmentKey): lists at,
	// above and below a scope walk it, and a principal's assignments at a scope are found
	// in it (one per role definition: holds).
	ByScope *store.Index[Assignment]
	// ByPrincipal orders assignments by principal id.
	ByPrincipal *store.Index[Assignment]
	// PerSubscription counts assignments by subscription, for the per-subscription limit.
	PerSubscription *store.Index[Assignment]
	// PerCustomRole counts assignments by custom role definition: a role still assigned
	// cannot be deleted (built-in roles cannot be deleted at all, so they are not counted).
	PerCustomRole *store.Index[Assignment]

	// CustomRoles is keyed by the lower-case GUID; built-in roles are not stored.
	CustomRoles *store.Table[gen.RoleDefinition]
	// RoleNames makes custom role names unique in the tenant, whatever their case.
	RoleNames *store.Index[gen.RoleDefinition]

	// Directory holds the principals, by lower-case id.
	Directory *store.Table[DirectoryObject]
	// Memberships is keyed by group|member.
	Memberships *store.Table[Membership]
	// ByMember orders memberships by member: the groups a principal is directly in.
	ByMember *store.Index[Membership]
	// ByGroup orders memberships by group: a group's direct members.
	ByGroup *store.Index[Membership]

	// Denies holds the deny assignments, by lower-case name.
	Denies *store.Table[gen.DenyAssignment]
	// DeniesByScope orders deny assignments by scope key, then name (denyKey): lists at,
	// above and below a scope walk it as role-assignment lists walk ByScope.
	DeniesByScope *store.Index[gen.DenyAssignment]
	// DenyPrincipals is keyed by principal|name (denyPrincipalKey): one row for each
	// principal a deny assignment names, so that a principal's deny assignments are a range
	// of keys. A row has one key per index, and a deny assignment names many principals.
	DenyPrincipals *store.Table[DenyPrincipal]
}

// DenyPrincipal says that a deny assignment names a principal (a lower-case id, the zero
// GUID for All Principals) in its principals, or in its excludePrincipals.
type DenyPrincipal struct {
	Principal string `json:"principal"`
	Deny      string `json:"deny"` // the deny assignment's lower-case name
	Excluded  bool   `json:"excluded,omitempty"`
}

func newTables(db *store.DB) *tables {
	t := &tables{
		ByScope: store.OrderedIndex("scope", func(a Assignment) (string, bool) {
			return a.byScopeKey(), true
		}),
		ByPrincipal: store.OrderedIndex("principal", func(a Assignment) (string, bool) { return a.Properties.PrincipalId, true }),
		PerSubscription: store.CountedIndex("subscription", func(a Assignment) (string, bool) {
			sub := subscriptionOfPath(deref(a.Properties.Scope))
			return sub, sub != ""
		}),
		PerCustomRole: store.CountedIndex("customRole", func(a Assignment) (string, bool) {
			guid := a.roleGUID()
			return guid, !isBuiltIn(guid)
		}),
		RoleNames: store.UniqueIndex("roleName", func(r gen.RoleDefinition) (string, bool) {
			return roleNameKey(deref(r.Properties.RoleName)), true
		}),
		ByMember: store.OrderedIndex("member", func(m Membership) (string, bool) { return m.Member, true }),
		ByGroup:  store.OrderedIndex("group", func(m Membership) (string, bool) { return m.Group, true }),
		DeniesByScope: store.OrderedIndex("scope", func(d gen.DenyAssignment) (string, bool) {
			return denyKey(d), true
		}),
	}
	t.Assignments = store.NewCompactTable(db, "roleAssignments", t.ByScope, t.ByPrincipal, t.PerSubscription, t.PerCustomRole)
	t.CustomRoles = store.NewTable(db, "roleDefinitions", t.RoleNames)
	t.Directory = store.NewTable[DirectoryObject](db, "directory")
	t.Memberships = store.NewTable(db, "memberships", t.ByMember, t.ByGroup)
	t.Denies = store.NewTable(db, "denyAssignments", t.DeniesByScope)
	t.DenyPrincipals = store.NewTable[DenyPrincipal](db, "denyAssignmentPrincipals")
	return t
}

// keySep separates the parts of an assignment's ByScope key. It sorts before every byte a
// scope key holds ('/' among them: names hold no control characters), so the assignments at
// a scope come before those below it.
const keySep = "\x01"

// assignmentKey is an assignment's ByScope key: its scope's key and principal.
func assignmentKey(scopeKey, principal string) string {
	return scopeKey + keySep + principal
}

// byScopeKey is assignmentKey(a.scopeKey(), principal), built in one string: every Put
// derives it.
func (a Assignment) byScopeKey() string {
	path := strings.Trim(deref(a.Properties.Scope), "/")
	principal := a.Properties.PrincipalId
	if hasProvidersPrefix(path) {
		return assignmentKey(scopeKeyOf(path), principal) // a management group
	}
	var b strings.Builder
	b.Grow(len(path) + len(keySep) + len(principal))
	for i := 0; i < len(path); i++ {
		b.WriteByte(asciiLowerByte(path[i]))
	}
	b.WriteString(keySep)
	b.WriteString(principal)
	return b.String()
}

// atScope is the [lo, hi) range of ByScope that holds the assignments at exactly the scope
// key.
func atScope(scopeKey string) [2]string {
	return [2]string{scopeKey + keySep, scopeKey + "\x02"}
}

// scopeAndBelow gives the [lo, hi) ranges of ByScope that hold the assignments at a scope
// key and at every scope below it.
func scopeAndBelow(scopeKey string) [][2]string {
	scopeKey = strings.TrimSuffix(scopeKey, "/")
	return [][2]string{
		atScope(scopeKey),
		{scopeKey + "/", scopeKey + "0"}, // below it ('0' follows '/')
	}
}

// subscriptionOfPath is the lower-cased subscription id in a scope path (the scope as sent,
// slashes and all), "" for scopes outside subscriptions; it lowers only the id.
func subscriptionOfPath(path string) string {
	path = strings.TrimLeft(path, "/")
	const word = "subscriptions/"
	if len(path) < len(word) || !asciiEqualFold(path[:len(word)], word) {
		return ""
	}
	sub, _, _ := strings.Cut(path[len(word):], "/")
	return asciiLower(sub)
}

func membershipKey(group, member string) string { return group + "|" + member }

// denyKey is a deny assignment's DeniesByScope key: its scope's key and lower-case name, so
// that the ranges of atScope, hierarchy.above and hierarchy.below hold deny assignments as
// they hold role assignments.
func denyKey(d gen.DenyAssignment) string {
	return scopeKeyOf(deref(d.Properties.Scope)) + keySep + asciiLower(deref(d.Name))
}

// denyPrincipalKey is the DenyPrincipals key of a principal named by the deny assignment
// name (both lower-case).
func denyPrincipalKey(principal, name string) string { return principal + keySep + name }
