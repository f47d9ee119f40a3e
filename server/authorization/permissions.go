package authorization

import (
	"context"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// The one place where what a principal may do at a scope is worked out: its assignments,
// and those of every group it is in (transitively), at the scope or above it (the path
// prefixes, the management groups above the subscription, the root), each granting what its
// role (built-in, or custom as it is now) allows. authorize (the checks under
// --authz-enforce) and the permissions operation both read grantsAt.

// grant is one assignment that applies to a principal at a scope, with its role.
type grant struct {
	Assignment Assignment
	Role       RoleDefinition
}

// grantsAt calls fn with each assignment that applies to principal at scopeKey, and its
// role, until fn returns false. Bootstrap owners hold Owner everywhere without an
// assignment: for them fn is called first with Owner and a zero assignment.
func (s *Server) grantsAt(tx *store.Tx, principal, scopeKey string, fn func(g grant) bool) {
	if s.owners[principal] {
		if owner, ok := s.role(tx, OwnerRoleID); ok && !fn(grant{Role: owner}) {
			return
		}
	}
	for _, p := range s.principalAndGroups(tx, principal) {
		stop := false
		s.tables.ByPrincipal.Scan(tx, p, p+"\x01", nil, func(c store.Cursor, a Assignment) bool {
			if !s.hier.covers(a.scopeKey(), scopeKey) {
				return true
			}
			role, ok := s.role(tx, a.roleGUID())
			if ok && !fn(grant{Assignment: a.full(c.PK), Role: role}) {
				stop = true
				return false
			}
			return true
		})
		if stop {
			return
		}
	}
}

// grants reports whether principal holds at scopeKey (grantsAt) a role that grants the
// action: the control-plane action (actions minus notActions, with wildcards), or the data
// action when data is set (dataActions minus notDataActions).
func (s *Server) grants(tx *store.Tx, principal, scopeKey, action string, data bool) bool {
	allowed := false
	s.grantsAt(tx, principal, scopeKey, func(g grant) bool {
		allowed = !data && g.Role.Allows(action) || data && g.Role.AllowsData(action)
		return !allowed
	})
	return allowed
}

// authorize checks, when enforcement is on, that the caller holds at the scope or above an
// assignment whose role grants action. target names the resource in the 403 message (built
// only for it).
func (s *Server) authorize(ctx context.Context, scope Scope, action string, target func() string) error {
	if !s.cfg.Enforce {
		return nil
	}
	caller := callerFrom(ctx)
	allowed := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		allowed = s.grants(tx, caller.PrincipalID, scope.Key, action, false)
		return nil
	}); err != nil {
		return err
	}
	if !allowed {
		return errAuthorizationFailed(caller, action, target())
	}
	return nil
}

// role is the role definition with the GUID (any case): built-in, or custom as stored.
func (s *Server) role(tx *store.Tx, guid string) (RoleDefinition, bool) {
	key := asciiLower(guid)
	if r, ok := builtInByID()[key]; ok {
		return r, true
	}
	obj, ok := s.tables.CustomRoles.Get(tx, key)
	return roleOf(obj), ok
}

// roleObject is the object of the role definition with the GUID (any case), as a GET
// returns it but for the members renderRole adds.
func (s *Server) roleObject(tx *store.Tx, guid string) (gen.RoleDefinition, bool) {
	key := asciiLower(guid)
	if r, ok := builtInByID()[key]; ok {
		return objectOf(r), true
	}
	return s.tables.CustomRoles.Get(tx, key)
}
