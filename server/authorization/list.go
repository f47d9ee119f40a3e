package authorization

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/jsonout"
	"github.com/understudy-dev/understudy/internal/store"
)

// RoleAssignmentsListForScope lists assignments at, above and below a scope, narrowed by
// $filter, a page at a time. It costs what it returns: scope lists walk the scope index over
// the scope's ancestors and subtree only, principal lists walk that principal's assignments.
func (s *Server) RoleAssignmentsListForScope(ctx context.Context, req gen.RoleAssignmentsListForScopeRequestObject) (gen.RoleAssignmentsListForScopeResponseObject, error) {
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionRoleAssignmentsRead, "/"+scope.Path+providerSegment+"roleAssignments"); err != nil {
		return nil, err
	}
	filter, ok := parseAssignmentFilter(deref(req.Params.Filter))
	if !ok {
		return nil, errUnsupportedFilter(deref(req.Params.Filter))
	}
	var after *store.Cursor
	if tok := deref(req.Params.SkipToken); tok != "" {
		c, ok := decodeSkipToken(tok)
		if !ok {
			return nil, errInvalidSkipToken()
		}
		after = &c
	}
	limit := s.cfg.PageSize
	if req.Params.Top != nil && int(*req.Params.Top) < limit {
		limit = int(*req.Params.Top)
	}

	page := newAssignmentPage()
	var last store.Cursor
	more := false
	visit := func(c store.Cursor, r RoleAssignment) bool {
		if len(page.items) == limit {
			more = true
			return false
		}
		page.items = append(page.items, r)
		last = c
		return true
	}
	if err := s.db.View(func(tx *store.Tx) error {
		if filter.Principal != "" {
			// One principal: walk its assignments, keeping those that relate to the scope.
			s.tables.ByPrincipal.Scan(tx, filter.Principal, filter.Principal+"\x01", after, func(c store.Cursor, r RoleAssignment) bool {
				if !Covers(r.ScopeKey, scope.Key) && (filter.AtOrAbove || !Covers(scope.Key, r.ScopeKey)) {
					return true
				}
				return visit(c, r)
			})
			return nil
		}
		// Ancestors, the scope itself, then (without atScope()) its subtree: disjoint key
		// ranges in ascending order, so one cursor pages across all of them.
		ranges := [][2]string{}
		for _, a := range Ancestors(scope.Key) {
			ranges = append(ranges, [2]string{a, a + "\x01"})
		}
		below := scopeAndBelow(scope.Key)
		ranges = append(ranges, below[0])
		if !filter.AtOrAbove {
			ranges = append(ranges, below[1])
		}
		for _, rg := range ranges {
			if after != nil && rg[1] <= after.Key {
				continue
			}
			s.tables.ByScope.Scan(tx, rg[0], rg[1], after, visit)
			if more {
				break
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if more {
		next := s.nextLink(ctx, scope.Path, req.Params.Filter, req.Params.Top, encodeSkipToken(last))
		page.nextLink = &next
	}
	return page, nil
}

// assignmentPage is RoleAssignmentsListForScope's 200 answer, written as the generated
// response type writes it (TestAssignmentPageMatchesGenerated), but assignment by
// assignment from the store's records, and sent in pieces of about pageChunk bytes. Through
// encoding/json a page of 1,000 assignments (900 KB) left 2.4 MB of garbage (now 0.24 MB):
// the wire form of each assignment, every time's MarshalJSON, the body in a buffer growing
// to its size.
// A store of a million assignments sits near the memory limit, where garbage is paid for
// in collections that every request then helps with.
type assignmentPage struct {
	items    []RoleAssignment
	nextLink *string
}

// pageChunk is how much of a page is sent at a time.
const pageChunk = 32 << 10

// A page is visited once, by the generated strict handler, and nothing keeps it or its
// records afterwards: it goes back to a pool once written, as does the buffer it is written
// through.
var (
	pages    = sync.Pool{New: func() any { return &assignmentPage{items: make([]RoleAssignment, 0, 16)} }}
	pageBufs = sync.Pool{New: func() any { b := make([]byte, 0, pageChunk+4<<10); return &b }}
)

func newAssignmentPage() *assignmentPage { return pages.Get().(*assignmentPage) }

func (p *assignmentPage) VisitRoleAssignmentsListForScopeResponse(w http.ResponseWriter) error {
	defer p.release()
	for i := range p.items {
		if r := &p.items[i]; !jsonout.TimeOK(r.CreatedOn) || !jsonout.TimeOK(r.UpdatedOn) {
			// Neither can encoding/json write such a time: its error, as before.
			return p.generated().VisitRoleAssignmentsListForScopeResponse(w)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	buf := pageBufs.Get().(*[]byte)
	wire := wires.Get().(*wireAssignment)
	defer func() {
		releaseWire(wire)
		if cap(*buf) <= 2*pageChunk {
			pageBufs.Put(buf)
		}
	}()
	o := jsonout.Open((*buf)[:0])
	o.OptString("nextLink", p.nextLink)
	o.Key("value")
	o.B = append(o.B, '[')
	for i := range p.items {
		if i > 0 {
			o.B = append(o.B, ',')
		}
		o.B, _ = appendRoleAssignment(o.B, &newWireInto(wire, p.items[i]).RoleAssignment) // times checked above
		if len(o.B) >= pageChunk {
			if _, err := w.Write(o.B); err != nil {
				return err
			}
			o.B = o.B[:0]
		}
	}
	o.B = append(o.B, ']')
	*buf = append(o.Close(), '\n')
	_, err := w.Write(*buf)
	return err
}

// generated is p as the generated response type.
func (p *assignmentPage) generated() gen.RoleAssignmentsListForScope200JSONResponse {
	out := gen.RoleAssignmentsListForScope200JSONResponse{Value: make([]gen.RoleAssignment, 0, len(p.items)), NextLink: p.nextLink}
	for _, r := range p.items {
		out.Value = append(out.Value, toWire(r))
	}
	return out
}

func (p *assignmentPage) release() {
	if cap(p.items) > 2048 { // appending grows ARM's largest page, 1,000, to about 1,024
		return
	}
	clear(p.items) // no record kept alive by the pool
	*p = assignmentPage{items: p.items[:0]}
	pages.Put(p)
}

// nextLink is the URL of the page after token: the same list, filter and page size ($top,
// as ARM keeps it across pages; without it the next page would be of the default size).
func (s *Server) nextLink(ctx context.Context, scopePath string, filter *string, top *int32, token string) string {
	q := url.Values{}
	q.Set("api-version", APIVersion)
	if filter != nil && *filter != "" {
		q.Set("$filter", *filter)
	}
	if top != nil {
		q.Set("$top", strconv.Itoa(int(*top)))
	}
	q.Set("$skipToken", token)
	return s.baseURL(ctx) + "/" + scopePath + providerSegment + "roleAssignments?" + q.Encode()
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
