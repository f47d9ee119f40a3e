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
	t := NewTable(db, "roleAssignments", assignmentCodec)
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

// assignmentCodec keeps an assignment's fields in the order of the struct. What often
// repeats the field before it (the scope key its scope, the updater its creator) takes a
// byte when it does.
var assignmentCodec = Codec[RoleAssignment]{
	Encode: func(e *Enc, r RoleAssignment) {
		e.String(r.Name)
		e.String(r.Scope)
		e.StringOr(r.ScopeKey, r.Scope)
		e.String(r.Subscription)
		e.String(r.RoleDefinitionGUID)
		e.String(r.PrincipalID)
		e.String(r.PrincipalType)
		e.String(r.Description)
		e.String(r.Condition)
		e.String(r.ConditionVersion)
		e.String(r.DelegatedManagedIdentityResourceID)
		e.String(r.CreatedBy)
		e.StringOr(r.UpdatedBy, r.CreatedBy)
		e.String(r.CreatedByType)
		e.StringOr(r.UpdatedByType, r.CreatedByType)
		e.Time(r.CreatedOn)
		e.Time(r.UpdatedOn)
	},
	Decode: func(d *Dec) RoleAssignment {
		r := RoleAssignment{Name: d.String(), Scope: d.String()}
		r.ScopeKey = d.StringOr(r.Scope)
		r.Subscription, r.RoleDefinitionGUID, r.PrincipalID, r.PrincipalType = d.String(), d.String(), d.String(), d.String()
		r.Description, r.Condition, r.ConditionVersion = d.String(), d.String(), d.String()
		r.DelegatedManagedIdentityResourceID, r.CreatedBy = d.String(), d.String()
		r.UpdatedBy = d.StringOr(r.CreatedBy)
		r.CreatedByType = d.String()
		r.UpdatedByType = d.StringOr(r.CreatedByType)
		r.CreatedOn, r.UpdatedOn = d.Time(), d.Time()
		return r
	},
}
