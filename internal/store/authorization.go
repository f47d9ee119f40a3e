package store

import (
	"strings"
	"time"
	"unique"
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
	t.SetCanonical(canonicalAssignment(Interner{}))
	return &Authorization{
		Assignments: t,
		ByTriple:    t.AddUnique("triple", func(r RoleAssignment) (string, bool) { return r.Triple(), true }),
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

// canonicalAssignment shares what assignments repeat (a scope key equal to the scope, and
// the ids of subscriptions, roles and callers) and keeps only the strings it needs: a
// million assignments then hold each repeated string once instead of a million times.
func canonicalAssignment(in Interner) func(RoleAssignment) RoleAssignment {
	return func(r RoleAssignment) RoleAssignment {
		// The name and scope usually come as parts of the request path: copies let the
		// path go, instead of keeping all of it alive for as long as the assignment.
		// Scopes repeat (assignments at one resource group are usually made together), so
		// they are shared through unique.Make, whose table forgets values nobody holds a
		// handle to: scopes made close together share one string, and nothing is kept for
		// scopes no longer used.
		r.Name = strings.Clone(r.Name)
		r.Scope = unique.Make(r.Scope).Value()
		if r.ScopeKey == r.Scope {
			r.ScopeKey = r.Scope
		} else {
			r.ScopeKey = unique.Make(r.ScopeKey).Value()
		}
		r.Subscription = in.Intern(r.Subscription)
		r.RoleDefinitionGUID = in.Intern(r.RoleDefinitionGUID)
		r.PrincipalType = in.Intern(r.PrincipalType)
		r.ConditionVersion = in.Intern(r.ConditionVersion)
		r.CreatedBy, r.UpdatedBy = in.Intern(r.CreatedBy), in.Intern(r.UpdatedBy)
		r.CreatedByType, r.UpdatedByType = in.Intern(r.CreatedByType), in.Intern(r.UpdatedByType)
		return r
	}
}
