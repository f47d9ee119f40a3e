package console

import (
	"context"
	"net/http"
	"slices"
	"strings"

	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	gen "github.com/understudy-dev/understudy/gen/console"
	"github.com/understudy-dev/understudy/server/authorization"
)

// node is a scope of the tree: the tenant root, a management group, a subscription, a
// resource group or a resource.
type node struct {
	Scope    string // as ids spell it ("/" for the root)
	Label    string
	Kind     string
	Direct   int  // assignments made here
	On       bool // the scope shown
	Children []*node
}

// assignmentRow is an assignment as the page lists it.
type assignmentRow struct {
	authzgen.RoleAssignment
	Role      string // the role's name
	Principal string // the principal's display name, when the directory knows it
	Inherited bool   // made above the scope shown
}

// denyRow is a deny assignment as the page lists it.
type denyRow struct {
	authzgen.DenyAssignment
	Principals, Excluded []namedPrincipal
	Inherited            bool // made above the scope shown
	HereOnly             bool // not applied below its scope (doNotApplyToChildScopes)
}

// namedPrincipal is a principal a deny assignment names, with its display name when the
// directory knows it.
type namedPrincipal struct {
	ID, Name string
	All      bool // All Principals
}

type authorizationData struct {
	Root              *node
	Scope             string
	Assignments       []assignmentRow // at and inherited by Scope, or all when Scope is ""
	Denies            []denyRow       // that apply at Scope, or all when Scope is ""
	Roles             []authzgen.RoleDefinition
	RoleQuery         string
	RolesTotal        int
	Principals        []principalRow
	Principal, Action string
	Access            *authorization.Access
	AccessError       string
}

type principalRow struct {
	authorization.DirectoryEntry
	Assignments int
	Known       bool // in the directory (else only named by assignments)
}

// maxRoles is how many role definitions the page lists at once (the built-in catalog has
// hundreds): search for the others.
const maxRoles = 15

// ConsoleAuthorization shows the authorization API's state.
func (c *Console) ConsoleAuthorization(ctx context.Context, req gen.ConsoleAuthorizationRequestObject) (gen.ConsoleAuthorizationResponseObject, error) {
	az := c.d.Authorization
	p := req.Params
	assignments, err := az.ConsoleAssignments(ctx)
	if err != nil {
		return nil, err
	}
	roles, err := az.ConsoleRoles(ctx)
	if err != nil {
		return nil, err
	}
	directory, err := az.Principals()
	if err != nil {
		return nil, err
	}
	roleNames := map[string]string{}
	for _, r := range roles {
		roleNames[strings.ToLower(deref(r.Id))] = deref(r.Properties.RoleName)
	}
	names := map[string]string{}
	for _, e := range directory {
		names[e.ID] = e.DisplayName
	}
	// The tree names every scope holding a role or deny assignment, so that each can be shown.
	allDenies, err := az.ConsoleDenyAssignments(ctx, "")
	if err != nil {
		return nil, err
	}
	assigned, denied := make([]string, len(assignments)), make([]string, len(allDenies))
	for i, a := range assignments {
		assigned[i] = deref(a.Properties.Scope)
	}
	for i, a := range allDenies {
		denied[i] = deref(a.Properties.Scope)
	}
	d := authorizationData{Root: tree(az.ManagementGroups(), assigned, denied, deref(p.Scope)), Scope: deref(p.Scope), RoleQuery: strings.TrimSpace(deref(p.Role)),
		Principal: strings.TrimSpace(deref(p.Principal)), Action: strings.TrimSpace(deref(p.Action))}
	if d.Scope != "" {
		if _, ok := authorization.ParseScope(d.Scope); !ok {
			return nil, &pageError{Status: http.StatusBadRequest, Message: "Not a scope the API accepts: " + d.Scope}
		}
	}
	for _, a := range assignments {
		row := assignmentRow{RoleAssignment: a, Role: roleNames[strings.ToLower(a.Properties.RoleDefinitionId)], Principal: names[a.Properties.PrincipalId]}
		at := deref(a.Properties.Scope)
		switch {
		case d.Scope == "":
		case strings.EqualFold(at, d.Scope):
		case az.AppliesAt(at, d.Scope):
			row.Inherited = true
		default:
			continue
		}
		d.Assignments = append(d.Assignments, row)
	}
	denies := allDenies // without a scope, every one
	if d.Scope != "" {
		if denies, err = az.ConsoleDenyAssignments(ctx, d.Scope); err != nil {
			return nil, err
		}
	}
	shown, _ := authorization.ParseScope(d.Scope)
	for _, a := range denies {
		at, _ := authorization.ParseScope(deref(a.Properties.Scope))
		d.Denies = append(d.Denies, denyRow{DenyAssignment: a, Principals: named(a.Properties.Principals, names), Excluded: named(a.Properties.ExcludePrincipals, names),
			Inherited: d.Scope != "" && at.Key != shown.Key, HereOnly: deref(a.Properties.DoNotApplyToChildScopes)})
	}
	q := strings.ToLower(d.RoleQuery)
	for _, r := range roles {
		if q == "" && deref(r.Properties.Type) != "CustomRole" && len(d.Roles) >= maxRoles {
			d.RolesTotal++
			continue
		}
		if q == "" || roleMatches(r, q) {
			d.Roles = append(d.Roles, r)
		}
		d.RolesTotal++
	}
	slices.SortStableFunc(d.Roles, func(a, b authzgen.RoleDefinition) int { // custom roles first
		return strings.Compare(deref(b.Properties.Type), deref(a.Properties.Type))
	})
	d.Principals = principals(directory, assignments)
	if d.Principal != "" {
		scope := d.Scope
		if scope == "" {
			scope = "/"
		}
		access, ok, err := az.ConsoleAccess(ctx, d.Principal, scope, d.Action)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			d.AccessError = "Not a scope the API accepts: " + scope
		default:
			d.Access = &access
		}
	}
	body, err := pageResponse(ctx, "authorization", c.page("Authorization", "authorization", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleAuthorization200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

// named gives each principal its display name from the directory (names).
func named(principals []authzgen.DenyAssignmentPrincipal, names map[string]string) []namedPrincipal {
	var out []namedPrincipal
	for _, p := range principals {
		id := deref(p.Id)
		out = append(out, namedPrincipal{ID: id, Name: names[id], All: id == authorization.AllPrincipals})
	}
	return out
}

func roleMatches(r authzgen.RoleDefinition, q string) bool {
	p := r.Properties
	if strings.Contains(strings.ToLower(deref(p.RoleName)), q) || strings.Contains(strings.ToLower(deref(r.Name)), q) ||
		strings.Contains(strings.ToLower(deref(p.Description)), q) {
		return true
	}
	for _, perm := range p.Permissions {
		for _, list := range [][]string{perm.Actions, perm.DataActions} {
			for _, a := range list {
				if strings.Contains(strings.ToLower(a), q) {
					return true
				}
			}
		}
	}
	return false
}

// principals are the directory's principals and those only assignments name, with how many
// assignments each holds.
func principals(directory []authorization.DirectoryEntry, assignments []authzgen.RoleAssignment) []principalRow {
	count := map[string]int{}
	for _, a := range assignments {
		count[a.Properties.PrincipalId]++
	}
	var out []principalRow
	for _, e := range directory {
		out = append(out, principalRow{DirectoryEntry: e, Assignments: count[e.ID], Known: true})
		delete(count, e.ID)
	}
	var others []string
	for id := range count {
		others = append(others, id)
	}
	slices.Sort(others)
	for _, a := range assignments {
		if _, ok := count[a.Properties.PrincipalId]; ok {
			typ := ""
			if a.Properties.PrincipalType != nil {
				typ = string(*a.Properties.PrincipalType)
			}
			out = append(out, principalRow{DirectoryEntry: authorization.DirectoryEntry{ID: a.Properties.PrincipalId, Type: typ}, Assignments: count[a.Properties.PrincipalId]})
			delete(count, a.Properties.PrincipalId)
		}
	}
	return out
}

// tree is the scope tree: the root, the management groups as seeded (subscriptions in
// them), then every scope a role assignment (assigned, one count each) or a deny
// assignment (denied) is at, under its parent (a resource under its resource group, a
// resource group under its subscription, a subscription under its management group or the
// root).
func tree(groups []authorization.ManagementGroup, assigned, denied []string, shown string) *node {
	root := &node{Scope: "/", Label: "Tenant root", Kind: "root"}
	byKey := map[string]*node{"/": root}
	var get func(scope string) *node
	mgOf := map[string]string{} // subscription key -> management group scope
	mgParent := map[string]string{}
	for _, g := range groups {
		scope := "/providers/Microsoft.Management/managementGroups/" + g.ID
		if g.Parent != "" {
			mgParent[strings.ToLower(scope)] = "/providers/Microsoft.Management/managementGroups/" + g.Parent
		}
		for _, s := range g.Subscriptions {
			mgOf["/subscriptions/"+strings.ToLower(s)] = scope
		}
	}
	get = func(scope string) *node {
		key := strings.ToLower(strings.TrimRight(scope, "/"))
		if key == "" {
			return root
		}
		if n, ok := byKey[key]; ok {
			return n
		}
		n := &node{Scope: scope}
		segs := strings.Split(strings.Trim(scope, "/"), "/")
		parent := "/"
		switch {
		case strings.HasPrefix(key, "/providers/microsoft.management/managementgroups/"):
			n.Kind, n.Label = "management group", segs[len(segs)-1]
			if p, ok := mgParent[key]; ok {
				parent = p
			}
		case len(segs) == 2:
			n.Kind, n.Label = "subscription", segs[1]
			if p, ok := mgOf[key]; ok {
				parent = p
			}
		case len(segs) == 4 && strings.EqualFold(segs[2], "resourceGroups"):
			n.Kind, n.Label, parent = "resource group", segs[3], "/"+strings.Join(segs[:2], "/")
		case len(segs) > 4:
			n.Kind, n.Label, parent = "resource", strings.Join(segs[4:], "/"), "/"+strings.Join(segs[:4], "/")
		default:
			n.Kind, n.Label = "scope", scope
		}
		byKey[key] = n
		p := get(parent)
		p.Children = append(p.Children, n)
		return n
	}
	for _, g := range groups {
		get("/providers/Microsoft.Management/managementGroups/" + g.ID)
		for _, s := range g.Subscriptions {
			get("/subscriptions/" + s)
		}
	}
	for _, scope := range assigned {
		get(scope).Direct++
	}
	for _, scope := range denied {
		get(scope)
	}
	if shown != "" {
		get(shown).On = true
	}
	var sortTree func(n *node)
	sortTree = func(n *node) {
		slices.SortFunc(n.Children, func(a, b *node) int { return strings.Compare(strings.ToLower(a.Scope), strings.ToLower(b.Scope)) })
		for _, c := range n.Children {
			sortTree(c)
		}
	}
	sortTree(root)
	return root
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
