package store

import (
	"strings"
	"time"
)

// RoleAssignment is a stored role assignment. Keys (ScopeKey, PrincipalKey, RoleDefinitionGUID)
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

// Authorization holds the authorization API's tables.
type Authorization struct {
	Assignments *Table[RoleAssignment]
	// ByTriple enforces one assignment per (scope, role definition, principal).
	ByTriple *Unique[RoleAssignment]
	// ByScope orders assignments by scope key, for lists at, above and below a scope.
	ByScope *Ordered[RoleAssignment]
	// ByPrincipal orders assignments by principal id.
	ByPrincipal *Ordered[RoleAssignment]
	// PerSubscription counts assignments by subscription, for the per-subscription limit.
	PerSubscription *Counter[RoleAssignment]
}

// NewAuthorization adds the authorization tables to db.
func NewAuthorization(db *DB) *Authorization {
	t := NewTable[RoleAssignment](db, "roleAssignments", nil)
	t.canonical = canonicalAssignment
	// The key is the lower-cased name; canonicalAssignment has copied the name already.
	t.keyIn = func(r RoleAssignment) string { return r.Name }
	return &Authorization{
		Assignments: t,
		ByTriple: t.AddUnique("triple", func(b []byte, r RoleAssignment) ([]byte, bool) {
			return appendKey(b, r.ScopeKey, r.RoleDefinitionGUID, r.PrincipalID), true // r.Triple()
		}),
		ByScope:     t.AddOrdered(func(r RoleAssignment) (string, bool) { return r.ScopeKey, true }),
		ByPrincipal: t.AddOrdered(func(r RoleAssignment) (string, bool) { return r.PrincipalID, true }),
		PerSubscription: t.AddCounter(func(r RoleAssignment) (string, bool) {
			return r.Subscription, r.Subscription != ""
		}),
	}
}

// ScopeAndBelow gives the [lo, hi) ranges of ByScope that hold a scope key and every scope
// below it.
func ScopeAndBelow(scopeKey string) [][2]string {
	scopeKey = strings.TrimSuffix(scopeKey, "/")
	return [][2]string{
		{scopeKey, scopeKey + "\x01"},    // exactly the scope ("\x01" is the next key after it)
		{scopeKey + "/", scopeKey + "0"}, // below it ('0' follows '/')
	}
}

// canonicalAssignment shares what assignments repeat (the scope, its key, and the ids of
// subscriptions, roles and callers) and keeps only the strings it needs: the name and scope
// usually come as parts of the request path, and copies let the path go instead of keeping
// all of it alive for as long as the assignment.
func canonicalAssignment(r RoleAssignment, s *sharer) RoleAssignment {
	r.Name = strings.Clone(r.Name)
	r.Scope = s.share(0, r.Scope)
	if r.ScopeKey == r.Scope {
		r.ScopeKey = r.Scope
	} else {
		r.ScopeKey = s.share(1, r.ScopeKey)
	}
	r.Subscription = s.share(2, r.Subscription)
	r.RoleDefinitionGUID = s.share(3, r.RoleDefinitionGUID)
	r.PrincipalType = s.share(4, r.PrincipalType)
	r.ConditionVersion = s.share(5, r.ConditionVersion)
	r.CreatedBy, r.UpdatedBy = s.share(6, r.CreatedBy), s.share(7, r.UpdatedBy)
	r.CreatedByType, r.UpdatedByType = s.share(8, r.CreatedByType), s.share(9, r.UpdatedByType)
	return r
}
