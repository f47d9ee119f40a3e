package authorization

import (
	"context"
	"fmt"
	"slices"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// What the console (server/console) reads of this API, through the code the API itself
// reads and enforces with: no permission check is made for the console, which the admin
// token guards.

// ConsoleAssignments is every role assignment, as a GET of the latest api-version renders
// it, in scope order.
func (s *Server) ConsoleAssignments(ctx context.Context) ([]gen.RoleAssignment, error) {
	var out []gen.RoleAssignment
	err := s.db.View(ctx, func(tx *store.Tx) error {
		out = out[:0]
		for _, rg := range append([][2]string{atScope("")}, s.hier.below("")...) {
			s.tables.ByScope.Scan(tx, rg[0], rg[1], nil, func(c store.Cursor, a Assignment) bool {
				out = append(out, render(APIVersion, a.full(c.PK)))
				return true
			})
		}
		return nil
	})
	return out, err
}

// ConsoleDenyAssignments are the deny assignments that apply at scope (as ids spell it),
// as the API's list with atScope() there finds them (at it, and above it unless they do
// not apply to child scopes), or every one when scope is "" (the list at the root without
// a filter), each as a GET of the latest api-version renders it, in scope order; an error
// when the scope is not one the API accepts (the console checks it first).
func (s *Server) ConsoleDenyAssignments(ctx context.Context, scope string) ([]gen.DenyAssignment, error) {
	key, filter := "", denyFilter{}
	if scope != "" {
		sc, ok := ParseScope(scope)
		if !ok {
			return nil, fmt.Errorf("not a scope: %q", scope)
		}
		key, filter = sc.Key, denyFilter{AtOrAbove: true}
	}
	v := latestVersion("denyAssignments")
	var out []gen.DenyAssignment
	err := s.db.View(ctx, func(tx *store.Tx) error {
		out = out[:0]
		scanRanges(tx, s.tables.DeniesByScope, s.scopeRanges(key, filter.AtOrAbove), nil, func(_ store.Cursor, d gen.DenyAssignment) bool {
			if s.denyListed(d, key, filter) {
				out = append(out, renderDeny(v, d))
			}
			return true
		})
		return nil
	})
	return out, err
}

// AllPrincipals is the principal id by which a deny assignment names every principal.
const AllPrincipals = allPrincipals

// ConsoleRoles is every role definition, built-in and custom, as the tenant's list returns
// them.
func (s *Server) ConsoleRoles(ctx context.Context) ([]gen.RoleDefinition, error) {
	out, err := s.listRoles(ctx, roleDefinitionFilter{AndBelow: true}, "")
	return out.Value, err
}

// ManagementGroups are the management groups the server was seeded with.
func (s *Server) ManagementGroups() []ManagementGroup { return slices.Clone(s.cfg.ManagementGroups) }

// AppliesAt says whether an assignment at scope `at` applies at scope `to` (both as ids
// spell them, "/" for the root): at is to, the root, above it in the path, or a management
// group above it.
func (s *Server) AppliesAt(at, to string) bool {
	a, ok1 := ParseScope(at)
	b, ok2 := ParseScope(to)
	return ok1 && ok2 && s.hier.covers(a.Key, b.Key)
}

// Access is what a principal may do at a scope: each assignment that applies (its own or
// a group's), with its role, in the order the permission check meets them.
type Access struct {
	Grants []Grant
	// Owner says the principal is a bootstrap owner: Owner everywhere, no assignment needed.
	Owner bool
	// Action, when one was asked about, and whether it is allowed (as --authz-enforce decides).
	Action  string
	Allowed bool
}

// Grant is an assignment that applies, with its role.
type Grant struct {
	Assignment string // its id; "" for a bootstrap owner's Owner
	Principal  string // the principal it was made to (the principal, or a group it is in)
	Scope      string // where it was made
	Role       gen.RoleDefinition
}

// ConsoleAccess is what principal may do at scope (as ids spell it), worked out by
// grantsAt, the function the API's permission checks and permissions operation use; with
// an action, whether grants allows it (data actions as such). false when the scope is not
// one the API accepts.
func (s *Server) ConsoleAccess(ctx context.Context, principal, scope, action string) (Access, bool, error) {
	sc, ok := ParseScope(scope)
	if !ok {
		return Access{}, false, nil
	}
	principal = asciiLower(strings.TrimSpace(principal))
	var out Access
	err := s.db.View(ctx, func(tx *store.Tx) error {
		out = Access{Owner: s.owners[principal], Action: action}
		s.grantsAt(tx, principal, sc.Key, func(g grant) bool {
			gr := Grant{Role: renderRole(ctx, objectOf(g.Role))}
			if a := g.Assignment; a.Properties.Scope != nil {
				r := render(APIVersion, a)
				gr.Assignment, gr.Principal, gr.Scope = deref(r.Id), a.Properties.PrincipalId, deref(a.Properties.Scope)
			}
			out.Grants = append(out.Grants, gr)
			return true
		})
		if action != "" {
			out.Allowed = s.grants(tx, principal, sc.Key, action, false) || s.grants(tx, principal, sc.Key, action, true)
		}
		return nil
	})
	return out, true, err
}
