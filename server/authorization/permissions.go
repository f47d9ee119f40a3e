package authorization

import (
	"context"

	"github.com/understudy-dev/understudy/internal/store"
)

// authorize checks, when enforcement is on, that the caller holds at the scope or above an
// assignment whose role grants action. target names the resource in the 403 message.
func (s *Server) authorize(ctx context.Context, scope Scope, action, target string) error {
	if !s.cfg.Enforce {
		return nil
	}
	caller := callerFrom(ctx)
	if s.owners[caller.PrincipalID] {
		return nil
	}
	allowed := false
	if err := s.db.View(func(tx *store.Tx) error {
		allowed = s.grants(tx, caller.PrincipalID, scope.Key, action, false)
		return nil
	}); err != nil {
		return err
	}
	if !allowed {
		return errAuthorizationFailed(caller, action, target)
	}
	return nil
}

// grants reports whether principal holds, at the scope key or above, an assignment whose
// role (built-in or custom, as it is now) grants the action, or the data action when data
// is set: the one place where assignments and roles make a permission.
func (s *Server) grants(tx *store.Tx, principal, scopeKey, action string, data bool) bool {
	allowed := false
	s.tables.ByPrincipal.Scan(tx, principal, principal+"\x01", nil, func(_ store.Cursor, r RoleAssignment) bool {
		if !Covers(r.ScopeKey, scopeKey) {
			return true
		}
		role, ok := s.role(tx, r.RoleDefinitionGUID)
		if ok && (!data && role.Allows(action) || data && role.AllowsData(action)) {
			allowed = true
			return false
		}
		return true
	})
	return allowed
}

// role is the role definition with the GUID (any case): built-in, or custom as stored.
func (s *Server) role(tx *store.Tx, guid string) (RoleDefinition, bool) {
	key := asciiLower(guid)
	if r, ok := builtInByID()[key]; ok {
		return r, true
	}
	return s.tables.CustomRoles.Get(tx, key)
}
