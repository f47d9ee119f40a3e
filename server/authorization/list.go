package authorization

import (
	"context"
	"encoding/base64"
	"net/url"
	"slices"
	"strconv"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// RoleAssignmentsListForScope lists assignments at, above and below a scope, narrowed by
// $filter, a page at a time. It costs what it returns: scope lists walk the scope index over
// the scope's ancestors and subtree only, principal lists walk that principal's assignments.
func (s *Server) RoleAssignmentsListForScope(ctx context.Context, req gen.RoleAssignmentsListForScopeRequestObject) (gen.RoleAssignmentsListForScopeResponseObject, error) {
	scope, serr := parseListScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleAssignmentsRead, func() string { return scope.ID() + providerSegment + "roleAssignments" }); err != nil {
		return nil, err
	}
	filter, ok := parseAssignmentFilter(deref(req.Params.Filter))
	if !ok {
		return nil, errUnsupportedFilter(deref(req.Params.Filter))
	}
	if scope.Root() && deref(req.Params.Filter) == "" {
		return nil, errRootListUnfiltered("role assignments")
	}
	after, limit, err := s.page(req.Params.SkipToken, req.Params.Top)
	if err != nil {
		return nil, err
	}

	var page []Assignment
	var last store.Cursor
	more := false
	visit := func(c store.Cursor, r Assignment) bool {
		if len(page) == limit {
			more = true
			return false
		}
		page = append(page, r.full(c.PK))
		last = c
		return true
	}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		page, more = page[:0], false
		if filter.Principal != "" {
			// One principal (and, for assignedTo(), every group it is in): walk their
			// assignments, keeping those that relate to the scope. Principals in ascending
			// order, so that one cursor pages across all of them.
			principals := []string{filter.Principal}
			if filter.Groups {
				principals = s.principalAndGroups(tx, filter.Principal)
				slices.Sort(principals)
			}
			for _, p := range principals {
				if after != nil && p+"\x01" <= after.Key {
					continue
				}
				s.tables.ByPrincipal.Scan(tx, p, p+"\x01", after, func(c store.Cursor, a Assignment) bool {
					at := a.scopeKey()
					if !s.hier.covers(at, scope.Key) && (filter.AtOrAbove || !s.hier.covers(scope.Key, at)) {
						return true
					}
					return visit(c, a)
				})
				if more {
					break
				}
			}
			return nil
		}
		scanRanges(tx, s.tables.ByScope, s.scopeRanges(scope.Key, filter.AtOrAbove), after, visit)
		return nil
	}); err != nil {
		return nil, err
	}
	out := gen.RoleAssignmentsListForScope200JSONResponse{Value: make([]gen.RoleAssignment, 0, len(page))}
	for _, a := range page {
		out.Value = append(out.Value, render(apiVersion(ctx), a))
	}
	if more {
		out.NextLink = ptr(s.nextLink(ctx, "roleAssignments", scope.Path, req.Params.Filter, req.Params.Top, encodeSkipToken(last)))
	}
	return out, nil
}

// scopeRanges are the [lo, hi) ranges of a scope index (ByScope, DeniesByScope) that hold
// what is at the scopes above the scope key (the root, management groups, path prefixes),
// at the scope itself, then (unless atOrAbove) below it: disjoint, in ascending order, so
// that one cursor pages across all of them.
func (s *Server) scopeRanges(scopeKey string, atOrAbove bool) [][2]string {
	ranges := [][2]string{atScope(scopeKey)}
	for _, a := range s.hier.above(scopeKey) {
		ranges = append(ranges, atScope(a))
	}
	if !atOrAbove {
		ranges = append(ranges, s.hier.below(scopeKey)...)
	}
	slices.SortFunc(ranges, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return ranges
}

// scanRanges calls visit with the rows of the index in ranges (scopeRanges), after the
// cursor, until visit returns false.
func scanRanges[R any](tx *store.Tx, index *store.Index[R], ranges [][2]string, after *store.Cursor, visit func(store.Cursor, R) bool) {
	stopped := false
	for _, rg := range ranges {
		if after != nil && rg[1] <= after.Key {
			continue
		}
		index.Scan(tx, rg[0], rg[1], after, func(c store.Cursor, r R) bool {
			stopped = !visit(c, r)
			return !stopped
		})
		if stopped {
			return
		}
	}
}

// nextLink is the URL of the page after token of the list of kind (roleAssignments,
// denyAssignments): the same list, filter and page size ($top, as ARM keeps it across
// pages; without it the next page would be of the default size).
func (s *Server) nextLink(ctx context.Context, kind, scopePath string, filter *string, top *int32, token string) string {
	q := url.Values{}
	q.Set("api-version", apiVersion(ctx)) // the next page in the shape of the first
	if filter != nil && *filter != "" {
		q.Set("$filter", *filter)
	}
	if top != nil {
		q.Set("$top", strconv.Itoa(int(*top)))
	}
	q.Set("$skipToken", token)
	// A scope's names may hold what a URL holds only escaped (a space, '#', '?'): raw, '#'
	// and '?' would end the link's path there.
	return s.baseURL(ctx) + escapeSegments(scopeID(scopePath)) + providerSegment + kind + "?" + q.Encode()
}

// page reads a list's $skipToken (the position after which the page starts, nil for the
// first page) and $top (the page size: the configured one, or less).
func (s *Server) page(skipToken *string, top *int32) (*store.Cursor, int, error) {
	var after *store.Cursor
	if tok := deref(skipToken); tok != "" {
		c, ok := decodeSkipToken(tok)
		if !ok {
			return nil, 0, errInvalidSkipToken()
		}
		after = &c
	}
	limit := s.cfg.PageSize
	if top != nil && int(*top) < limit {
		limit = int(*top)
	}
	return after, limit, nil
}

// The skip token is the position of the last entry returned, opaque to clients.
func encodeSkipToken(c store.Cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.String()))
}

func decodeSkipToken(tok string) (store.Cursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return store.Cursor{}, false
	}
	return store.ParseCursor(string(b))
}
