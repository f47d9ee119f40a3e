package authorization

import (
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
)

// RoleAssignment is a stored role assignment. Keys (ScopeKey, PrincipalID, RoleDefinitionGUID)
// are lower-cased so that lookups are case-insensitive as in ARM; Scope keeps the spelling of
// the first request.
type RoleAssignment struct {
	Name                               string // lower-case GUID: the primary key
	Scope                              string // without leading slash, as first stored
	ScopeKey                           string // lower-cased Scope
	Subscription                       string // lower-cased subscription id, "" outside subscriptions
	RoleDefinitionGUID                 string // lower-case GUID
	PrincipalID                        string // lower-case GUID
	PrincipalType                      string
	Description                        string
	Condition                          string
	ConditionVersion                   string
	DelegatedManagedIdentityResourceID string
	CreatedBy, UpdatedBy               string
	CreatedByType, UpdatedByType       string
	CreatedOn, UpdatedOn               time.Time
}

// Triple is the (scope, role definition, principal) key that may hold one assignment only.
func (r RoleAssignment) Triple() string {
	return r.ScopeKey + "|" + r.RoleDefinitionGUID + "|" + r.PrincipalID
}

// DirectoryObject is a principal of the directory: a user, group, service principal or
// managed identity (or a foreign group or device), by lower-case object id.
type DirectoryObject struct {
	ID          string
	Type        string // a DirectoryType
	DisplayName string
}

// Membership says that Member (a principal's lower-case id) is directly in Group.
type Membership struct {
	Group, Member string
}

// tables are the authorization API's tables and their indexes.
type tables struct {
	// Assignments is keyed by the lower-case name.
	Assignments *store.Table[RoleAssignment]
	// ByTriple enforces one assignment per (scope, role definition, principal).
	ByTriple *store.Index[RoleAssignment]
	// ByScope orders assignments by scope key, for lists at, above and below a scope.
	ByScope *store.Index[RoleAssignment]
	// ByPrincipal orders assignments by principal id.
	ByPrincipal *store.Index[RoleAssignment]
	// PerSubscription counts assignments by subscription, for the per-subscription limit.
	PerSubscription *store.Index[RoleAssignment]
	// PerRole counts assignments by role definition: a role still assigned cannot be deleted.
	PerRole *store.Index[RoleAssignment]

	// CustomRoles is keyed by the lower-case GUID; built-in roles are not stored.
	CustomRoles *store.Table[RoleDefinition]
	// RoleNames makes custom role names unique in the tenant, whatever their case.
	RoleNames *store.Index[RoleDefinition]

	// Directory holds the principals, by lower-case id.
	Directory *store.Table[DirectoryObject]
	// Memberships is keyed by group|member.
	Memberships *store.Table[Membership]
	// ByMember orders memberships by member: the groups a principal is directly in.
	ByMember *store.Index[Membership]
	// ByGroup orders memberships by group: a group's direct members.
	ByGroup *store.Index[Membership]
}

func newTables(db *store.DB) *tables {
	t := &tables{
		ByTriple:        store.UniqueIndex("triple", func(r RoleAssignment) (string, bool) { return r.Triple(), true }),
		ByScope:         store.OrderedIndex("scope", func(r RoleAssignment) (string, bool) { return r.ScopeKey, true }),
		ByPrincipal:     store.OrderedIndex("principal", func(r RoleAssignment) (string, bool) { return r.PrincipalID, true }),
		PerSubscription: store.CountedIndex("subscription", func(r RoleAssignment) (string, bool) { return r.Subscription, r.Subscription != "" }),
		PerRole:         store.CountedIndex("role", func(r RoleAssignment) (string, bool) { return r.RoleDefinitionGUID, true }),
		RoleNames:       store.UniqueIndex("roleName", func(r RoleDefinition) (string, bool) { return roleNameKey(r.Name), true }),
		ByMember:        store.OrderedIndex("member", func(r Membership) (string, bool) { return r.Member, true }),
		ByGroup:         store.OrderedIndex("group", func(r Membership) (string, bool) { return r.Group, true }),
	}
	t.Assignments = store.NewTable(db, "roleAssignments", t.ByTriple, t.ByScope, t.ByPrincipal, t.PerSubscription, t.PerRole)
	t.CustomRoles = store.NewTable(db, "roleDefinitions", t.RoleNames)
	t.Directory = store.NewTable[DirectoryObject](db, "directory")
	t.Memberships = store.NewTable(db, "memberships", t.ByMember, t.ByGroup)
	return t
}

func membershipKey(group, member string) string { return group + "|" + member }

// scopeAndBelow gives the [lo, hi) ranges of ByScope that hold a scope key and every scope
// below it.
func scopeAndBelow(scopeKey string) [][2]string {
	scopeKey = strings.TrimSuffix(scopeKey, "/")
	return [][2]string{
		{scopeKey, scopeKey + "\x01"},    // exactly the scope ("\x01" is the next key after it)
		{scopeKey + "/", scopeKey + "0"}, // below it ('0' follows '/')
	}
}
