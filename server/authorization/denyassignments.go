package authorization

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// Deny assignments deny actions to principals at a scope, whatever their role assignments
// grant. ARM serves them read-only: the platform makes them (Blueprints, managed
// applications, deployment stacks). Here the seed file and the admin API make them
// (putDeny), and the API reads and lists them as ARM does. They are not part of the
// permission checks of --authz-enforce nor of the permissions operation
// (docs/authorization.md says why).

const (
	actionDenyAssignmentsRead = "Vendor.Authorization/denyAssignments/read"
	denyAssignmentType        = "Vendor.Authorization/denyAssignments"
	// allPrincipals is the id of All Principals: every user, group and service principal.
	allPrincipals = "00000000-0000-0000-0000-000000000000"
	systemDefined = "SystemDefined" // All Principals' type
)

// DenyAssignmentsGet reads one deny assignment: by name at its own scope. ARM's
// DenyAssignments_GetById is the same path.
func (s *Server) DenyAssignmentsGet(ctx context.Context, req gen.DenyAssignmentsGetRequestObject) (gen.DenyAssignmentsGetResponseObject, error) {
	scope, serr := parseScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionDenyAssignmentsRead, func() string { return scope.ID() + providerSegment + "denyAssignments/" + req.DenyAssignmentId }); err != nil {
		return nil, err
	}
	var d gen.DenyAssignment
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		d, found = s.tables.Denies.Get(tx, asciiLower(req.DenyAssignmentId))
		return nil
	}); err != nil {
		return nil, err
	}
	// A name that is no GUID names none.
	if !found || scopeKeyOf(deref(d.Properties.Scope)) != scope.Key {
		return nil, errDenyAssignmentNotFound(req.DenyAssignmentId)
	}
	return gen.DenyAssignmentsGet200JSONResponse(renderDeny(apiVersion(ctx), d)), nil
}

// DenyAssignmentsListForScope lists deny assignments at, above and below a scope, narrowed
// by $filter, a page at a time. ARM's lists for a subscription, a resource group and a
// resource are this operation at those scopes. Scope lists walk the scope index over the
// scope's ancestors and subtree, as role-assignment lists do; principal lists read that
// principal's deny assignments.
func (s *Server) DenyAssignmentsListForScope(ctx context.Context, req gen.DenyAssignmentsListForScopeRequestObject) (gen.DenyAssignmentsListForScopeResponseObject, error) {
	scope, serr := parseListScope(req.Scope)
	if serr != nil {
		return nil, serr
	}
	if err := s.authorize(ctx, scope, actionDenyAssignmentsRead, func() string { return scope.ID() + providerSegment + "denyAssignments" }); err != nil {
		return nil, err
	}
	filter, ok := parseDenyFilter(deref(req.Params.Filter))
	if !ok {
		return nil, errUnsupportedDenyFilter(deref(req.Params.Filter))
	}
	if scope.Root() && strings.TrimSpace(deref(req.Params.Filter)) == "" {
		return nil, errRootListUnfiltered("deny assignments")
	}
	after, limit, err := s.page(req.Params.SkipToken, req.Params.Top)
	if err != nil {
		return nil, err
	}

	var page []gen.DenyAssignment
	var last store.Cursor
	more := false
	visit := func(c store.Cursor, d gen.DenyAssignment) bool {
		if !s.denyListed(d, scope.Key, filter) {
			return true
		}
		if len(page) == limit {
			more = true
			return false
		}
		page = append(page, d)
		last = c
		return true
	}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		page, more = page[:0], false
		if filter.Principal != "" {
			for _, d := range s.principalDenies(tx, filter) {
				// Cursors as the scope index has them: its key is unique.
				c := store.Cursor{Key: denyKey(d), PK: asciiLower(deref(d.Name))}
				if after != nil && c.Key <= after.Key {
					continue
				}
				if !visit(c, d) {
					break
				}
			}
			return nil
		}
		scanRanges(tx, s.tables.DeniesByScope, s.scopeRanges(scope.Key, filter.AtOrAbove), after, visit)
		return nil
	}); err != nil {
		return nil, err
	}
	v := apiVersion(ctx)
	out := gen.DenyAssignmentsListForScope200JSONResponse{Value: make([]gen.DenyAssignment, 0, len(page))}
	for _, d := range page {
		r := renderDeny(v, d)
		if filter.GDPR {
			// gdprExportPrincipalId returns only the name and the description.
			r.Properties = gen.DenyAssignmentProperties{DenyAssignmentName: r.Properties.DenyAssignmentName, Description: r.Properties.Description}
		}
		out.Value = append(out.Value, r)
	}
	if more {
		out.NextLink = ptr(s.nextLink(ctx, "denyAssignments", scope.Path, req.Params.Filter, req.Params.Top, encodeSkipToken(last)))
	}
	return out, nil
}

// denyListed reports whether the deny assignment d is listed at the scope key under f: at
// the scope; above it where it reaches the scope (one that does not apply to child scopes
// does not); below it, unless f keeps to the scope and above; and of f's display name.
func (s *Server) denyListed(d gen.DenyAssignment, scopeKey string, f denyFilter) bool {
	if f.ByName && !strings.EqualFold(deref(d.Properties.DenyAssignmentName), f.Name) {
		return false
	}
	at := scopeKeyOf(deref(d.Properties.Scope))
	switch {
	case at == scopeKey:
		return true
	case s.hier.covers(at, scopeKey):
		return !deref(d.Properties.DoNotApplyToChildScopes)
	}
	return !f.AtOrAbove && s.hier.covers(scopeKey, at)
}

// principalDenies is what f's principal term names, wherever it is (denyListed then looks
// at the scope), in scope index order: with principalId, the deny assignments whose
// principals name the principal; with gdprExportPrincipalId, those whose principals or
// excludePrincipals do; with assignedTo(), those whose principals name it, a group it is
// in (transitively) or All Principals, unless their excludePrincipals name any of these.
func (s *Server) principalDenies(tx *store.Tx, f denyFilter) []gen.DenyAssignment {
	who := []string{f.Principal}
	if f.Applies {
		who = append(s.principalAndGroups(tx, f.Principal), allPrincipals)
	}
	listed, excluded := map[string]bool{}, map[string]bool{}
	for _, p := range who {
		s.tables.DenyPrincipals.Scan(tx, p+keySep, p+"\x02", nil, func(_ store.Cursor, r DenyPrincipal) bool {
			excluded[r.Deny] = excluded[r.Deny] || r.Excluded
			listed[r.Deny] = listed[r.Deny] || !r.Excluded || f.GDPR
			return true
		})
	}
	var out []gen.DenyAssignment
	for name, ok := range listed {
		if !ok || f.Applies && excluded[name] {
			continue
		}
		if d, found := s.tables.Denies.Get(tx, name); found {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b gen.DenyAssignment) int { return strings.Compare(denyKey(a), denyKey(b)) })
	return out
}

// renderDeny is the wire form of a stored deny assignment in the shape of api-version v: its
// object with the members a read derives (id, type).
func renderDeny(v string, d gen.DenyAssignment) gen.DenyAssignment {
	d.Id = ptr(resourceID(deref(d.Properties.Scope), "denyAssignments", deref(d.Name)))
	d.Type = ptr(denyAssignmentType)
	return shapeDeny(v, d)
}

// resourceID is the id of the kind's resource name at scope ("/" and the path, or "/" for
// the root, whose ids start at /providers).
func resourceID(scope, kind, name string) string {
	if scope == "/" {
		scope = ""
	}
	return scope + providerSegment + kind + "/" + name
}

// SeedDenyAssignment is a deny assignment that exists at start and again after every
// reset, as the seed file gives it, the state export writes it and the admin API takes it:
// the object a GET with api-version 2024-07-01-preview returns (name, and properties with
// the scope), without what a read derives (id and type, ignored when given).
type SeedDenyAssignment map[string]any

// SeedDenyAssignments is the seed file's list of deny assignments, as SeedError names it.
const SeedDenyAssignments = "denyAssignments"

// seedDeny creates the deny assignment entry gives, and returns the member at fault with
// the error.
func (s *Server) seedDeny(tx *store.Tx, entry SeedDenyAssignment) (string, error) {
	d, field, err := decodeDeny(entry)
	if err != nil {
		return field, err
	}
	_, _, field, err = s.putDeny(tx, deref(d.Name), d, seedCaller.PrincipalID, false)
	return field, err
}

// decodeDeny reads a seed entry strictly (its members are DenyAssignment's).
func decodeDeny(entry SeedDenyAssignment) (gen.DenyAssignment, string, error) {
	var d gen.DenyAssignment
	raw, err := json.Marshal(entry)
	if err != nil {
		return d, "", err
	}
	field, err := decodeStrict(raw, &d)
	return d, field, err
}

// putDeny checks the deny assignment d named name and stores it in tx, creating it, or with
// replace replacing the one of that name: the one place its rules live and its computed
// members are filled in, for the seed and the admin API. by made it (createdBy and
// updatedBy, unless d gives them). It returns what was stored, whether it was created,
// and when d is refused the member at fault (dotted, as the seed's fields are).
func (s *Server) putDeny(tx *store.Tx, name string, d gen.DenyAssignment, by string, replace bool) (gen.DenyAssignment, bool, string, error) {
	key, ok := parseGUID(name)
	if !ok {
		return d, false, "name", fmt.Errorf("%q is not a GUID", name)
	}
	d.Name, d.Id, d.Type = &name, nil, nil
	p := &d.Properties
	if p.Scope == nil {
		return d, false, "properties.scope", errors.New("required: where the deny assignment is (/ for the tenant root)")
	}
	scope, serr := parseScope(*p.Scope)
	if serr != nil {
		return d, false, "properties.scope", serr
	}
	p.Scope = ptr("/" + scope.Path)
	if strings.TrimSpace(deref(p.DenyAssignmentName)) == "" {
		return d, false, "properties.denyAssignmentName", errors.New("required: the deny assignment's display name, unique at its scope")
	}
	if other := s.denyNamed(tx, scope.Key, *p.DenyAssignmentName, key); other != "" {
		return d, false, "properties.denyAssignmentName", fmt.Errorf("deny assignment %s at this scope has the name %q: names are unique at a scope", other, *p.DenyAssignmentName)
	}
	if len(p.Permissions) == 0 {
		return d, false, "properties.permissions", errors.New("required: at least one permission")
	}
	for i, perm := range p.Permissions {
		if len(perm.Actions) == 0 && len(perm.DataActions) == 0 {
			return d, false, fmt.Sprintf("properties.permissions.%d", i), errors.New("a permission denies at least one action or data action")
		}
	}
	if len(p.Principals) == 0 {
		return d, false, "properties.principals", fmt.Errorf("required: at least one principal, or All Principals (%s, type %s)", allPrincipals, systemDefined)
	}
	named := map[string]bool{}
	for _, list := range []struct {
		field    string
		members  []gen.DenyAssignmentPrincipal
		excluded bool
	}{{"properties.principals", p.Principals, false}, {"properties.excludePrincipals", p.ExcludePrincipals, true}} {
		for i := range list.members {
			field, err := s.denyPrincipal(tx, &list.members[i], list.excluded)
			if err == nil && named[*list.members[i].Id] {
				field, err = "id", fmt.Errorf("%s is named twice", *list.members[i].Id)
			}
			if err != nil {
				return d, false, fmt.Sprintf("%s.%d.%s", list.field, i, field), err
			}
			named[*list.members[i].Id] = true
		}
	}
	if p.DenyAssignmentEffect == nil {
		p.DenyAssignmentEffect = ptr(gen.DenyAssignmentPropertiesDenyAssignmentEffectEnforced)
	} else if !p.DenyAssignmentEffect.Valid() {
		return d, false, "properties.denyAssignmentEffect", fmt.Errorf("%q is neither enforced nor audit", *p.DenyAssignmentEffect)
	}
	// The platform's deny assignments apply below their scope unless they say otherwise, and
	// are all system protected (the vendor's deny assignments article).
	p.DoNotApplyToChildScopes = or(p.DoNotApplyToChildScopes, ptr(false))
	if p.IsSystemProtected == nil {
		p.IsSystemProtected = ptr(true)
	}

	old, exists := s.tables.Denies.Get(tx, key)
	if exists && !replace {
		return d, false, "name", fmt.Errorf("deny assignment %s is declared twice", name)
	}
	// The history given is kept (as a state export writes it); otherwise it is made now.
	now := s.cfg.Now().UTC().Truncate(100 * time.Nanosecond) // ARM's 7 fractional digits, as apply
	for _, t := range []*time.Time{p.CreatedOn, p.UpdatedOn} {
		if t != nil {
			*t = t.UTC()
		}
	}
	if exists {
		d.Name = old.Name // spelled as when it was made, as a role assignment's name
		p.CreatedOn, p.CreatedBy = or(p.CreatedOn, old.Properties.CreatedOn), or(p.CreatedBy, old.Properties.CreatedBy)
		p.UpdatedOn, p.UpdatedBy = or(p.UpdatedOn, &now), or(p.UpdatedBy, &by)
		s.dropDenyPrincipals(tx, key, old)
	} else {
		p.CreatedOn, p.CreatedBy = or(p.CreatedOn, &now), or(p.CreatedBy, &by)
		p.UpdatedOn, p.UpdatedBy = or(p.UpdatedOn, p.CreatedOn), or(p.UpdatedBy, p.CreatedBy)
	}
	if err := s.tables.Denies.Put(tx, key, d); err != nil {
		return d, false, "", fmt.Errorf("deny assignment %q: %w", key, err)
	}
	for _, pr := range p.Principals {
		if err := s.tables.DenyPrincipals.Put(tx, denyPrincipalKey(*pr.Id, key), DenyPrincipal{Principal: *pr.Id, Deny: key}); err != nil {
			return d, false, "", err
		}
	}
	for _, pr := range p.ExcludePrincipals {
		if err := s.tables.DenyPrincipals.Put(tx, denyPrincipalKey(*pr.Id, key), DenyPrincipal{Principal: *pr.Id, Deny: key, Excluded: true}); err != nil {
			return d, false, "", err
		}
	}
	return d, !exists, "", nil
}

// denyPrincipal checks a principal of a deny assignment (excluded: in its
// excludePrincipals), making its id lower-case and giving it its type, and returns the
// member at fault with the error. All Principals is SystemDefined, and cannot be excluded
// (the vendor's deny assignments article); any other principal's type follows the rules of
// a role assignment's principalType (the directory's, ...).
func (s *Server) denyPrincipal(tx *store.Tx, pr *gen.DenyAssignmentPrincipal, excluded bool) (string, error) {
	id, ok := parseGUID(deref(pr.Id))
	if !ok {
		return "id", fmt.Errorf("%q is not a GUID (a principal's object id)", deref(pr.Id))
	}
	pr.Id = &id
	sent := deref(pr.Type)
	switch {
	case id == allPrincipals && excluded:
		return "id", errors.New("All Principals cannot be excluded")
	case id == allPrincipals && sent != "" && sent != systemDefined:
		return "type", fmt.Errorf("All Principals' type is %s, not %q", systemDefined, sent)
	case id == allPrincipals:
		pr.Type = ptr(systemDefined)
		return "", nil
	case sent == systemDefined:
		return "type", fmt.Errorf("%s is the type of All Principals (%s) only", systemDefined, allPrincipals)
	case sent != "" && !gen.PrincipalType(sent).Valid():
		return "type", fmt.Errorf("%q is not a principal type (User, Group, ServicePrincipal, ForeignGroup or Device)", sent)
	}
	t, err := s.principalType(tx, id, sent, "")
	if err != nil {
		return "type", err
	}
	pr.Type = &t
	return "", nil
}

// denyNamed is the name of another deny assignment than key at the scope key whose display
// name is name (any case), "" when there is none.
func (s *Server) denyNamed(tx *store.Tx, scopeKey, name, key string) string {
	other := ""
	rg := atScope(scopeKey)
	s.tables.DeniesByScope.Scan(tx, rg[0], rg[1], nil, func(c store.Cursor, d gen.DenyAssignment) bool {
		if c.PK != key && strings.EqualFold(deref(d.Properties.DenyAssignmentName), name) {
			other = deref(d.Name)
		}
		return other == ""
	})
	return other
}

// dropDenyPrincipals deletes the DenyPrincipals rows of the stored deny assignment d (key).
func (s *Server) dropDenyPrincipals(tx *store.Tx, key string, d gen.DenyAssignment) {
	for _, pr := range append(slices.Clone(d.Properties.Principals), d.Properties.ExcludePrincipals...) {
		s.tables.DenyPrincipals.Delete(tx, denyPrincipalKey(deref(pr.Id), key))
	}
}

// ErrInvalidDenyAssignment is wrapped by every refusal of a deny assignment the admin API
// is given; ErrDenyAssignmentNotFound when there is none to delete.
var (
	ErrInvalidDenyAssignment  = errors.New("invalid deny assignment")
	ErrDenyAssignmentNotFound = errors.New("deny assignment not found")
)

// PutDenyAssignment creates (true) or replaces the deny assignment name from entry, as a
// seed entry gives it (a name in it must be name), and returns it as a GET with the latest
// api-version renders it.
func (s *Server) PutDenyAssignment(name string, entry SeedDenyAssignment) (SeedDenyAssignment, bool, error) {
	d, field, err := decodeDeny(entry)
	if err == nil && d.Name != nil && !strings.EqualFold(*d.Name, name) {
		field, err = "name", fmt.Errorf("%q is not the path's name, %q", *d.Name, name)
	}
	created := false
	if err == nil {
		err = s.db.Update(context.Background(), func(tx *store.Tx) error {
			var ferr error
			d, created, field, ferr = s.putDeny(tx, name, d, adminCaller, true)
			return ferr
		})
	}
	if err != nil {
		if field != "" {
			return nil, false, fmt.Errorf("%w: %s: %v", ErrInvalidDenyAssignment, field, err)
		}
		return nil, false, err
	}
	out, err := seedEntry(renderDeny(latestVersion("denyAssignments"), d))
	return SeedDenyAssignment(out), created, err
}

// adminCaller made what the admin API makes.
const adminCaller = "understudy-admin"

// DeleteDenyAssignment removes the deny assignment name.
func (s *Server) DeleteDenyAssignment(name string) error {
	key := asciiLower(name)
	return s.db.Update(context.Background(), func(tx *store.Tx) error {
		old, ok := s.tables.Denies.Get(tx, key)
		if !ok {
			return fmt.Errorf("%w: %s", ErrDenyAssignmentNotFound, name)
		}
		s.dropDenyPrincipals(tx, key, old)
		s.tables.Denies.Delete(tx, key)
		return nil
	})
}

// ExportDenyAssignments is every deny assignment as seed entries (its object, whole), in
// name order: loaded back, each is the deny assignment it was, history included.
func (s *Server) ExportDenyAssignments(tx *store.Tx) ([]SeedDenyAssignment, error) {
	var out []SeedDenyAssignment
	var err error
	s.tables.Denies.Each(tx, func(_ string, d gen.DenyAssignment) bool {
		var entry map[string]any
		entry, err = seedEntry(d)
		out = append(out, entry)
		return err == nil
	})
	return out, err
}
