package authorization_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/authorization"
)

// The deny assignments of these tests, and the scopes and principals they name.
const (
	denyUser     = principal1                             // a user, in denyGroup
	denyGroup    = principal2                             // a group
	denySP       = "e2f3a4b5-c6d7-4e8f-9a0b-1c2d3e4f5a6b" // a service principal
	denyEveryone = "00000000-0000-0000-0000-000000000000"
	denyOtherSub = "subscriptions/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
	denyMG       = "providers/Microsoft.Management/managementGroups/mg-deny"
	denySite     = rgScope + "/providers/Microsoft.Web/sites/site1"
)

var denyClock = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// denyName is the name of the i-th deny assignment.
func denyName(i int) string { return fmt.Sprintf("da000000-0000-4000-8000-%012d", i) }

func denyPrincipals(ids ...string) []any {
	var out []any
	for _, id := range ids {
		out = append(out, map[string]any{"id": id})
	}
	return out
}

// denySeed is one deny assignment of the fixture, at scope, denying to principals except
// excluded.
func denySeed(i int, scope, display string, principals, excluded []string, more map[string]any) authorization.SeedDenyAssignment {
	p := map[string]any{"scope": scope, "denyAssignmentName": display, "description": display + ", described",
		"permissions": []any{map[string]any{"actions": []any{"*/write"}, "notActions": []any{"Microsoft.Web/sites/restart/action"}}},
		"principals":  denyPrincipals(principals...)}
	if excluded != nil {
		p["excludePrincipals"] = denyPrincipals(excluded...)
	}
	for k, v := range more {
		p[k] = v
	}
	return authorization.SeedDenyAssignment{"name": denyName(i), "properties": p}
}

// denyFixture: a deny assignment at the root (1), a management group above the subscription
// (2), the subscription, not below it (3), the resource group, with conditions (4), a
// resource in it (5) and another subscription (6).
func denyFixture(c *authorization.Config) {
	c.Now = func() time.Time { return denyClock }
	c.ManagementGroups = []authorization.ManagementGroup{{ID: "mg-deny", Subscriptions: []string{sub}}}
	c.Directory = []authorization.DirectoryEntry{
		{ID: denyUser, Type: "User"}, {ID: denyGroup, Type: "Group", Members: []string{denyUser}}, {ID: denySP, Type: "ManagedIdentity"}}
	c.DenyAssignments = []authorization.SeedDenyAssignment{
		denySeed(1, "/", "Root deny", []string{denyEveryone}, []string{denySP}, nil),
		denySeed(2, denyMG, "MG deny", []string{denyGroup}, nil, nil),
		denySeed(3, subScope, "Sub deny", []string{denyUser}, nil, map[string]any{"doNotApplyToChildScopes": true}),
		denySeed(4, "/"+rgScope, "RG deny", []string{denyEveryone}, []string{denyGroup}, map[string]any{
			"condition": "@Resource[Microsoft.Storage/storageAccounts:name] StringEquals 'logs'", "conditionVersion": "2.0",
			"permissions": []any{map[string]any{"dataActions": []any{"Microsoft.Storage/*"}, "condition": "true", "conditionVersion": "2.0"}}}),
		denySeed(5, denySite, "Site deny", []string{denySP}, nil, map[string]any{"denyAssignmentEffect": "audit", "isSystemProtected": false}),
		denySeed(6, denyOtherSub, "Other deny", []string{denyUser}, nil, nil),
	}
}

// denyNames lists at scope with filter (any "", every page) and returns the names listed.
func denyNames(t *testing.T, c *gen.ClientWithResponses, scope, filter string) []string {
	t.Helper()
	params := &gen.DenyAssignmentsListForScopeParams{ApiVersion: apiVersion}
	if filter != "" {
		params.Filter = &filter
	}
	r, err := c.DenyAssignmentsListForScopeWithResponse(ctx, scope, params)
	if err != nil || r.JSON200 == nil {
		t.Fatalf("list at %s, %q: %v %d %s", scope, filter, err, r.StatusCode(), r.Body)
	}
	var out []string
	for _, d := range r.JSON200.Value {
		out = append(out, *d.Name)
	}
	return out
}

func TestDenyAssignmentGet(t *testing.T) {
	e := newEnv(t, denyFixture)
	c := e.client("t", true)
	get := func(scope, name, version string) *gen.DenyAssignmentsGetResponse {
		t.Helper()
		r, err := c.DenyAssignmentsGetWithResponse(ctx, scope, name, &gen.DenyAssignmentsGetParams{ApiVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	r := get(rgScope, denyName(4), apiVersion)
	if r.JSON200 == nil {
		t.Fatalf("GET: %d %s", r.StatusCode(), r.Body)
	}
	d := r.JSON200
	p := d.Properties
	if *d.Id != "/"+rgScope+"/providers/Vendor.Authorization/denyAssignments/"+denyName(4) || *d.Name != denyName(4) || *d.Type != "Vendor.Authorization/denyAssignments" ||
		*p.Scope != "/"+rgScope || *p.DenyAssignmentName != "RG deny" || *p.Description != "RG deny, described" ||
		*p.DoNotApplyToChildScopes || !*p.IsSystemProtected || *p.Condition == "" || *p.ConditionVersion != "2.0" ||
		*p.CreatedBy != "understudy-seed" || *p.UpdatedBy != "understudy-seed" || !p.CreatedOn.Equal(denyClock) || !p.UpdatedOn.Equal(denyClock) {
		t.Errorf("GET = %s", r.Body)
	}
	if p.DenyAssignmentEffect != nil || len(p.Permissions) != 1 || p.Permissions[0].Condition == nil || *p.Permissions[0].Condition != "true" {
		t.Errorf("2022-04-01 has the permissions' conditions and no effect: %s", r.Body)
	}
	// Principals' types: All Principals is SystemDefined, the others the directory's.
	if len(p.Principals) != 1 || *p.Principals[0].Id != denyEveryone || *p.Principals[0].Type != "SystemDefined" ||
		len(p.ExcludePrincipals) != 1 || *p.ExcludePrincipals[0].Type != "Group" {
		t.Errorf("principals = %s", r.Body)
	}
	if r := get(denySite, denyName(5), apiVersion); r.JSON200 == nil || *r.JSON200.Properties.Principals[0].Type != "ServicePrincipal" || *r.JSON200.Properties.IsSystemProtected {
		t.Errorf("a managed identity is a service principal; isSystemProtected as given: %s", r.Body)
	}

	// Each version's shape.
	if r := get(rgScope, denyName(4), "2018-07-01-preview"); r.JSON200 == nil || r.JSON200.Properties.Condition != nil ||
		r.JSON200.Properties.Permissions[0].Condition != nil || r.JSON200.Properties.CreatedOn == nil || r.JSON200.Properties.DenyAssignmentEffect != nil {
		t.Errorf("2018-07-01-preview: %s, want no conditions, created members", r.Body)
	}
	if r := get(rgScope, denyName(4), "2024-07-01-Preview"); r.JSON200 == nil || *r.JSON200.Properties.DenyAssignmentEffect != "enforced" || r.JSON200.Properties.Condition == nil {
		t.Errorf("2024-07-01-preview: %s, want the effect", r.Body)
	}
	if r := get(denySite, denyName(5), "2024-07-01-preview"); r.JSON200 == nil || *r.JSON200.Properties.DenyAssignmentEffect != "audit" {
		t.Errorf("the effect given: %s", r.Body)
	}
	r = get(rgScope, denyName(4), "2022-05-01-preview")
	if er := wantError(t, r.StatusCode(), r.Body, http.StatusBadRequest, "NoRegisteredProviderFound"); !strings.Contains(er.Message, "for type 'denyAssignments'. The supported api-versions are '2018-07-01-preview, 2022-04-01, 2024-07-01-preview'") {
		t.Errorf("message = %s", er.Message)
	}

	// Only at its own scope; a name that is not there, or no GUID, is not found.
	for _, tt := range []struct{ scope, name string }{{subScope, denyName(4)}, {denySite, denyName(4)}, {rgScope, denyName(9)}, {rgScope, "not-a-guid"}} {
		r := get(tt.scope, tt.name, apiVersion)
		if er := wantError(t, r.StatusCode(), r.Body, http.StatusNotFound, "DenyAssignmentNotFound"); er.Message != "The deny assignment '"+tt.name+"' is not found." {
			t.Errorf("message = %s", er.Message)
		}
	}
	r = get("subscriptions/not-a-guid", denyName(4), apiVersion)
	wantError(t, r.StatusCode(), r.Body, http.StatusBadRequest, "InvalidSubscriptionId")

	// Read-only: 2024-07-01-preview's PUT and DELETE are not served.
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		code, body := e.send(t, method, "/"+rgScope+"/providers/Vendor.Authorization/denyAssignments/"+denyName(4)+"?api-version=2024-07-01-preview", "t", `{"properties":{}}`)
		wantError(t, code, body, http.StatusMethodNotAllowed, "MethodNotAllowed")
	}

	// By id, as ARM's GetById sends it: the root's too, at /providers/..., any case.
	for path, want := range map[string]string{
		"/providers/Vendor.Authorization/denyAssignments/" + denyName(1):                                                      denyName(1),
		"/providers/vendor.authorization/DENYASSIGNMENTS/" + strings.ToUpper(denyName(1)):                                     denyName(1),
		"/" + denyMG + "/providers/Vendor.Authorization/denyAssignments/" + denyName(2):                                       denyName(2),
		"/providers/Vendor.Management/managementGroups/MG-DENY/providers/Vendor.Authorization/denyAssignments/" + denyName(2): denyName(2),
	} {
		code, body := e.send(t, http.MethodGet, path+"?api-version="+apiVersion, "t", "")
		if code != 200 || !strings.Contains(string(body), `"name":"`+want+`"`) {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}

func TestDenyAssignmentLists(t *testing.T) {
	e := newEnv(t, denyFixture)
	c := e.client("t", true)
	n := denyName
	for _, tt := range []struct {
		scope, filter string
		want          []string
	}{
		// At, above (the root, the management group; not one that stays at its scope) and
		// below.
		{rgScope, "", []string{n(1), n(2), n(4), n(5)}},
		{rgScope, "atScope()", []string{n(1), n(2), n(4)}},
		{subScope, "", []string{n(1), n(2), n(3), n(4), n(5)}},
		{subScope, "ATSCOPE()", []string{n(1), n(2), n(3)}},
		{denyMG, "", []string{n(1), n(2), n(3), n(4), n(5)}},
		{denySite, "", []string{n(1), n(2), n(4), n(5)}},
		{denyOtherSub, "", []string{n(1), n(6)}},
		{"/", "atScope()", []string{n(1)}},
		// By display name, any case, at the scope and above.
		{rgScope, "denyAssignmentName eq 'rg DENY'", []string{n(4)}},
		{rgScope, "denyAssignmentName eq 'Root deny'", []string{n(1)}},
		{subScope, "denyAssignmentName eq 'RG deny'", nil},
		{"/", "denyAssignmentName eq 'Root deny'", []string{n(1)}},
		// A principal named in principals, at, above and below.
		{"/", "principalId eq '" + strings.ToUpper(denyUser) + "'", []string{n(6), n(3)}}, // in scope order
		{subScope, "principalId eq '" + denyUser + "'", []string{n(3)}},
		{subScope, "principalId eq '" + denyGroup + "'", []string{n(2)}},
		{subScope, "principalId eq '" + denyEveryone + "'", []string{n(1), n(4)}},
		{subScope, "principalId eq 'nobody'", nil},
		// In either list.
		{subScope, "gdprExportPrincipalId eq '" + denyGroup + "'", []string{n(2), n(4)}},
		// What applies to a principal: its own, its groups', All Principals', unless it or a
		// group of it is excluded.
		{subScope, "assignedTo('" + denyUser + "')", []string{n(1), n(2), n(3)}},
		{rgScope, "assignedTo('" + denyUser + "')", []string{n(1), n(2)}},
		{subScope, "assignedTo('" + denySP + "')", []string{n(4), n(5)}},
		{"/", "assignedTo('" + denyUser + "')", []string{n(1), n(2), n(6), n(3)}},
		{subScope, "atScope() and assignedTo('" + denyUser + "')", []string{n(1), n(2), n(3)}},
		{subScope, "assignedTo('" + denySP + "') and atScope()", nil},
	} {
		if got := denyNames(t, c, tt.scope, tt.filter); !slices.Equal(got, tt.want) {
			t.Errorf("at %s, %q: %v, want %v", tt.scope, tt.filter, got, tt.want)
		}
	}

	// gdprExportPrincipalId returns the name and description alone.
	r, _ := c.DenyAssignmentsListForScopeWithResponse(ctx, subScope, &gen.DenyAssignmentsListForScopeParams{ApiVersion: apiVersion, Filter: ptr("gdprExportPrincipalId eq '" + denyGroup + "'")})
	if r.JSON200 == nil || len(r.JSON200.Value) != 2 || !strings.Contains(string(r.Body), `"id":"/`+rgScope+`/providers/Vendor.Authorization/denyAssignments/`+n(4)+`","name":"`+n(4)+`","properties":{"denyAssignmentName":"RG deny","description":"RG deny, described"},"type"`) {
		t.Errorf("gdprExportPrincipalId: %s", r.Body)
	}

	for _, tt := range []struct{ scope, filter, code string }{
		{"/", "", "BadRequest"},
		{subScope, "roleName eq 'Reader'", "UnsupportedQuery"},
		{subScope, "principalId eq ''", "UnsupportedQuery"},
		{subScope, "atScope() and principalId eq '" + denyUser + "'", "UnsupportedQuery"},
		{subScope, "atScope() and atScope()", "UnsupportedQuery"},
		{subScope, "denyAssignmentName eq 'a' and atScope()", "UnsupportedQuery"},
	} {
		params := &gen.DenyAssignmentsListForScopeParams{ApiVersion: apiVersion, Filter: &tt.filter}
		r, err := c.DenyAssignmentsListForScopeWithResponse(ctx, tt.scope, params)
		if err != nil {
			t.Fatal(err)
		}
		er := wantError(t, r.StatusCode(), r.Body, http.StatusBadRequest, tt.code)
		if tt.filter == "" && er.Message != "The deny assignments query at '/' scope is not allowed without any filters." {
			t.Errorf("message = %s", er.Message)
		}
	}

	// ARM's lists for a subscription, a resource group and a resource (a top-level one with
	// its empty parentResourcePath) are the same operation.
	for _, path := range []string{"/" + subScope, "/" + subScope + "/resourcegroups/rg1", "/" + subScope + "/resourcegroups/rg1/providers/Microsoft.Web//sites/site1"} {
		code, body := e.send(t, http.MethodGet, path+"/providers/Vendor.Authorization/denyAssignments?api-version=2022-04-01&$filter=atScope()", "t", "")
		if code != 200 || !strings.Contains(string(body), n(1)) {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
}

// TestDenyAssignmentPaging: pages follow nextLink, which keeps the filter, the page size
// and the api-version, until every deny assignment was listed once.
func TestDenyAssignmentPaging(t *testing.T) {
	e := newEnv(t, denyFixture)
	for _, q := range []string{"$top=2", "$top=2&$filter=assignedTo('" + denyUser + "')", "$top=1&$filter=principalId%20eq%20'" + denyEveryone + "'"} {
		var got []string
		next := "/" + subScope + "/providers/Vendor.Authorization/denyAssignments?api-version=2018-07-01-preview&" + q
		for pages := 0; next != ""; pages++ {
			if pages == 10 {
				t.Fatalf("%s: still more after %d pages", q, pages)
			}
			code, body := e.send(t, http.MethodGet, next, "t", "")
			var page gen.DenyAssignmentListResult
			if code != 200 || json.Unmarshal(body, &page) != nil {
				t.Fatalf("%s: %d %s", q, code, body)
			}
			for _, d := range page.Value {
				got = append(got, *d.Name)
			}
			next = ""
			if page.NextLink != nil {
				next = *page.NextLink
			}
			if next != "" && (!strings.Contains(next, "api-version=2018-07-01-preview") || !strings.Contains(next, "%24top=")) {
				t.Errorf("nextLink %s", next)
			}
		}
		want := map[string][]string{
			"$top=2": {denyName(1), denyName(2), denyName(3), denyName(4), denyName(5)},
		}[q]
		if want == nil {
			want = denyNames(t, e.client("t", true), subScope, strings.ReplaceAll(strings.SplitN(q, "$filter=", 2)[1], "%20", " "))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	code, body := e.send(t, http.MethodGet, "/"+subScope+"/providers/Vendor.Authorization/denyAssignments?api-version=2022-04-01&$skipToken=!!", "t", "")
	wantError(t, code, body, http.StatusBadRequest, "InvalidSkipToken")
}

// TestDenyAssignmentsEnforced: reading deny assignments needs denyAssignments/read under
// --authz-enforce (Reader has it).
func TestDenyAssignmentsEnforced(t *testing.T) {
	e := newEnv(t, denyFixture, func(c *authorization.Config) {
		c.Enforce = true
		c.Assignments = []authorization.SeedAssignment{{"name": name1, "scope": rgScope, "principalId": denySP, "roleDefinitionId": readerID}}
	})
	code, body := e.send(t, http.MethodGet, "/"+rgScope+"/providers/Vendor.Authorization/denyAssignments?api-version=2022-04-01", jwt(denySP), "")
	if code != 200 || !strings.Contains(string(body), denyName(4)) {
		t.Errorf("a Reader's list: %d %s", code, body)
	}
	code, body = e.send(t, http.MethodGet, "/"+subScope+"/providers/Vendor.Authorization/denyAssignments/"+denyName(3)+"?api-version=2022-04-01", jwt(denySP), "")
	if er := wantError(t, code, body, http.StatusForbidden, "AuthorizationFailed"); !strings.Contains(er.Message, "'Vendor.Authorization/denyAssignments/read' over scope '/"+subScope+"/providers/Vendor.Authorization/denyAssignments/"+denyName(3)+"'") {
		t.Errorf("message = %s", er.Message)
	}
}

// TestDenySeedErrors: a seeded deny assignment is read strictly and checked, and the member
// at fault is named.
func TestDenySeedErrors(t *testing.T) {
	ok := func(more map[string]any) authorization.SeedDenyAssignment {
		return denySeed(1, subScope, "D", []string{denyUser}, nil, more)
	}
	principals := func(list ...map[string]any) []any {
		out := []any{}
		for _, p := range list {
			out = append(out, p)
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		denies  []authorization.SeedDenyAssignment
		index   int
		field   string
		want    string
		strict  bool
		members []authorization.DirectoryEntry
	}{
		{"an unknown member", []authorization.SeedDenyAssignment{ok(map[string]any{"principalIds": []any{}})}, 0, "properties.principalIds", "unknown field", false, nil},
		{"a wrong type", []authorization.SeedDenyAssignment{ok(map[string]any{"doNotApplyToChildScopes": "yes"})}, 0, "properties.doNotApplyToChildScopes", "want a boolean, got a string", false, nil},
		{"a name that is no GUID", []authorization.SeedDenyAssignment{{"name": "deny-1", "properties": ok(nil)["properties"]}}, 0, "name", "not a GUID", false, nil},
		{"no scope", []authorization.SeedDenyAssignment{ok(map[string]any{"scope": nil})}, 0, "properties.scope", "required", false, nil},
		{"a scope that is none", []authorization.SeedDenyAssignment{ok(map[string]any{"scope": "/subscriptions"})}, 0, "properties.scope", "InvalidScope", false, nil},
		{"no display name", []authorization.SeedDenyAssignment{ok(map[string]any{"denyAssignmentName": " "})}, 0, "properties.denyAssignmentName", "required", false, nil},
		{"a display name twice at a scope", []authorization.SeedDenyAssignment{ok(nil), denySeed(2, "/"+subScope, "d", []string{denyUser}, nil, nil)}, 1, "properties.denyAssignmentName", "unique at a scope", false, nil},
		{"a name twice", []authorization.SeedDenyAssignment{ok(nil), denySeed(1, rgScope, "E", []string{denyUser}, nil, nil)}, 1, "name", "declared twice", false, nil},
		{"no permission", []authorization.SeedDenyAssignment{ok(map[string]any{"permissions": []any{}})}, 0, "properties.permissions", "required", false, nil},
		{"a permission without actions", []authorization.SeedDenyAssignment{ok(map[string]any{"permissions": []any{map[string]any{"notActions": []any{"a"}}}})}, 0, "properties.permissions.0", "at least one action", false, nil},
		{"no principal", []authorization.SeedDenyAssignment{ok(map[string]any{"principals": nil})}, 0, "properties.principals", "required", false, nil},
		{"a principal that is no GUID", []authorization.SeedDenyAssignment{ok(map[string]any{"principals": principals(map[string]any{"id": "alice"})})}, 0, "properties.principals.0.id", "not a GUID", false, nil},
		{"All Principals excluded", []authorization.SeedDenyAssignment{ok(map[string]any{"excludePrincipals": denyPrincipals(denyEveryone)})}, 0, "properties.excludePrincipals.0.id", "cannot be excluded", false, nil},
		{"All Principals of another type", []authorization.SeedDenyAssignment{ok(map[string]any{"principals": principals(map[string]any{"id": denyEveryone, "type": "User"})})}, 0, "properties.principals.0.type", "SystemDefined", false, nil},
		{"SystemDefined for a principal", []authorization.SeedDenyAssignment{ok(map[string]any{"principals": principals(map[string]any{"id": denyUser, "type": "SystemDefined"})})}, 0, "properties.principals.0.type", "All Principals", false, nil},
		{"an unknown type", []authorization.SeedDenyAssignment{ok(map[string]any{"principals": principals(map[string]any{"id": denyUser, "type": "Robot"})})}, 0, "properties.principals.0.type", "not a principal type", false, nil},
		{"not the directory's type", []authorization.SeedDenyAssignment{ok(map[string]any{"principals": principals(map[string]any{"id": denyUser, "type": "Group"})})}, 0, "properties.principals.0.type", "UnmatchedPrincipalType", false,
			[]authorization.DirectoryEntry{{ID: denyUser, Type: "User"}}},
		{"a principal the directory lacks, strictly", []authorization.SeedDenyAssignment{ok(nil)}, 0, "properties.principals.0.type", "PrincipalNotFound", true, nil},
		{"a principal in both lists", []authorization.SeedDenyAssignment{ok(map[string]any{"excludePrincipals": denyPrincipals(denyUser)})}, 0, "properties.excludePrincipals.0.id", "named twice", false, nil},
		{"an effect", []authorization.SeedDenyAssignment{ok(map[string]any{"denyAssignmentEffect": "deny"})}, 0, "properties.denyAssignmentEffect", "neither enforced nor audit", false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			se := seedError(t, authorization.Config{DenyAssignments: tt.denies, StrictPrincipals: tt.strict, Directory: tt.members})
			if se.Collection != authorization.SeedDenyAssignments || se.Index != tt.index || se.Field != tt.field || !strings.Contains(se.Err.Error(), tt.want) {
				t.Errorf("error = %s[%d].%s: %v; want denyAssignments[%d].%s: ...%s...", se.Collection, se.Index, se.Field, se.Err, tt.index, tt.field, tt.want)
			}
		})
	}
}
