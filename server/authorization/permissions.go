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
		s.tables.ByPrincipal.Scan(tx, caller.PrincipalID, caller.PrincipalID+"\x01", nil, func(_ store.Cursor, r RoleAssignment) bool {
			if !Covers(r.ScopeKey, scope.Key) {
				return true
			}
			if role, ok := s.roles.get(r.RoleDefinitionGUID); ok && role.Allows(action) {
				allowed = true
				return false
			}
			return true
		})
		return nil
	}); err != nil {
		return err
	}
	if !allowed {
		return errAuthorizationFailed(caller, action, target)
	}
	return nil
}
