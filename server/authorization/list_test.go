package authorization_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/spectest"
)

// fixture assignments at several levels of one subscription, and one elsewhere.
var listFixture = []struct{ scope, name, principal string }{
	{subScope, "00000000-0000-4000-8000-000000000001", principal1},
	{rgScope, "00000000-0000-4000-8000-000000000002", principal1},
	{rgScope, "00000000-0000-4000-8000-000000000003", principal2},
	{rgScope + "/providers/Vendor.Storage/storageAccounts/acct1", "00000000-0000-4000-8000-000000000004", principal2},
	{subScope + "/resourceGroups/rg2", "00000000-0000-4000-8000-000000000005", principal1},
	{"subscriptions/0b1f6471-1bf0-4dda-aec3-0000000000e1", "00000000-0000-4000-8000-000000000006", principal1},
	{rgScope + "0", "00000000-0000-4000-8000-000000000007", principal1}, // a sibling whose key shares the prefix (rg10)
}

func loadListFixture(t *testing.T, c *gen.ClientWithResponses) {
	t.Helper()
	for _, f := range listFixture {
		mustPut(t, c, f.scope, f.name, props(f.principal, readerID), http.StatusCreated)
	}
}

func listNames(t *testing.T, c *gen.ClientWithResponses, scope, filter string) []string {
	t.Helper()
	params := &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion}
	if filter != "" {
		params.Filter = &filter
	}
	resp, err := c.RoleAssignmentsListForScopeWithResponse(ctx, scope, params)
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("list %s %q: %v %d %s", scope, filter, err, resp.StatusCode(), resp.Body)
	}
	var names []string
	for _, a := range resp.JSON200.Value {
		names = append(names, (*a.Name)[len(*a.Name)-1:])
	}
	sort.Strings(names)
	return names
}

func TestListFilters(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", false)
	loadListFixture(t, c)
	tests := []struct {
		name, scope, filter string
		want                string // last digits of the names
	}{
		{"subscription: at and below", subScope, "", "1 2 3 4 5 7"},
		{"resource group: above, at and below", rgScope, "", "1 2 3 4"},
		{"resource: above and at", rgScope + "/providers/Vendor.Storage/storageAccounts/acct1", "", "1 2 3 4"},
		{"atScope at the resource group", rgScope, "atScope()", "1 2 3"},
		{"atScope at the subscription", subScope, "atScope()", "1"},
		{"principal at, above and below", rgScope, "principalId eq '" + principal1 + "'", "1 2"},
		{"principal across the subscription", subScope, "principalId eq '" + strings.ToUpper(principal1) + "'", "1 2 5 7"},
		{"assignedTo", subScope, "assignedTo('" + principal2 + "')", "3 4"},
		{"atScope and assignedTo", rgScope, "atScope() and assignedTo('" + principal1 + "')", "1 2"},
		{"assignedTo and atScope, any case", rgScope, "ASSIGNEDTO('" + principal2 + "') AND atscope()", "3"},
		{"case-insensitive scope words", "SUBSCRIPTIONS/" + strings.ToUpper(sub) + "/resourcegroups/RG1", "atScope()", "1 2 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(listNames(t, c, tt.scope, tt.filter), " "); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"roleDefinitionId eq 'x'", "principalId eq x", "atScope() or assignedTo('x')", "atScope() and atScope()"} {
		t.Run("unsupported "+bad, func(t *testing.T) {
			resp, _ := c.RoleAssignmentsListForScopeWithResponse(ctx, subScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Filter: &bad})
			got := wantError(t, resp.StatusCode(), resp.Body, 400, "UnsupportedQuery")
			if !strings.Contains(got.Message, bad) {
				t.Errorf("message %q does not name the filter", got.Message)
			}
		})
	}
}

func TestListPaging(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	loadListFixture(t, c)
	for _, filter := range []string{"", "principalId eq '" + principal1 + "'"} {
		t.Run("filter "+filter, func(t *testing.T) {
			want := listNames(t, c, subScope, filter)
			top := int32(2)
			params := &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Top: &top}
			if filter != "" {
				params.Filter = &filter
			}
			var got []string
			pages := 0
			for {
				resp, err := c.RoleAssignmentsListForScopeWithResponse(ctx, subScope, params)
				if err != nil || resp.StatusCode() != 200 {
					t.Fatalf("page %d: %v %s", pages, err, resp.Body)
				}
				pages++
				if len(resp.JSON200.Value) > 2 {
					t.Fatalf("page of %d, want at most 2", len(resp.JSON200.Value))
				}
				for _, a := range resp.JSON200.Value {
					got = append(got, (*a.Name)[len(*a.Name)-1:])
				}
				if resp.JSON200.NextLink == nil {
					break
				}
				next, err := url.Parse(*resp.JSON200.NextLink)
				if err != nil || !strings.HasPrefix(*resp.JSON200.NextLink, e.srv.URL+"/"+subScope+"/providers/Vendor.Authorization/roleAssignments?") {
					t.Fatalf("nextLink %q does not point back at the list", *resp.JSON200.NextLink)
				}
				q := next.Query()
				if q.Get("api-version") != apiVersion || q.Get("$filter") != filter || q.Get("$skipToken") == "" {
					t.Fatalf("nextLink query %v", q)
				}
				tok := q.Get("$skipToken")
				params.SkipToken = &tok
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(want, " ") || pages != (len(want)+1)/2 {
				t.Errorf("paged %v in %d pages, want %v", got, pages, want)
			}
		})
	}
	t.Run("bad skip token", func(t *testing.T) {
		tok := "!!!"
		resp, _ := c.RoleAssignmentsListForScopeWithResponse(ctx, subScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, SkipToken: &tok})
		wantError(t, resp.StatusCode(), resp.Body, 400, "InvalidSkipToken")
	})
	t.Run("$top out of range", func(t *testing.T) {
		top := int32(1001)
		resp, _ := c.RoleAssignmentsListForScopeWithResponse(ctx, subScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Top: &top})
		got := wantError(t, resp.StatusCode(), resp.Body, 400, "InvalidParameter")
		if got.Target == nil || *got.Target != "$top" {
			t.Errorf("target = %v, want $top", got.Target)
		}
	})
}

func TestScopeShapes(t *testing.T) {
	e := newEnv(t)
	raw, escaped := e.client("token", true), e.client("token", false)
	scopes := []string{
		subScope,
		rgScope,
		rgScope + "/providers/Vendor.Storage/storageAccounts/acct1",
		rgScope + "/providers/Vendor.Network/virtualNetworks/vnet/subnets/default",
		rgScope + "/providers/Vendor.Storage/storageAccounts/acct1/providers/Vendor.Insights/diagnosticSettings/ds",
		"providers/Vendor.Management/managementGroups/mg1",
	}
	for i, scope := range scopes {
		t.Run(scope, func(t *testing.T) {
			name := fmt.Sprintf("00000000-0000-4000-8000-%012d", 100+i)
			created := mustPut(t, raw, scope, name, props(principal1, readerID), http.StatusCreated)
			if *created.Properties.Scope != "/"+scope {
				t.Errorf("scope = %s, want /%s", *created.Properties.Scope, scope)
			}
			// The escaped form, and the scope words in another case, reach the same assignment.
			for _, c := range []*gen.ClientWithResponses{raw, escaped} {
				resp, err := c.RoleAssignmentsGetWithResponse(ctx, strings.ToLower(scope), name, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
				if err != nil || resp.StatusCode() != 200 || *resp.JSON200.Id != *created.Id {
					t.Fatalf("get: %v %d %s", err, resp.StatusCode(), resp.Body)
				}
			}
		})
	}
}

func TestRawPathsLikeARMClients(t *testing.T) {
	// What an ARM client sends: raw slashes, provider words in any case.
	e := newEnv(t)
	c := e.client("token", true)
	mustPut(t, c, rgScope, name1, props(principal1, readerID), http.StatusCreated)
	for _, path := range []string{
		"/" + rgScope + "/providers/Vendor.Authorization/roleAssignments/" + name1,
		"/" + strings.ToUpper(rgScope) + "/PROVIDERS/vendor.authorization/roleassignments/" + strings.ToUpper(name1),
		"/" + url.PathEscape(rgScope) + "/providers/Vendor.Authorization/roleAssignments/" + name1,
	} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path+"?api-version="+apiVersion, nil)
		req.Header.Set("Authorization", "Bearer x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
}

// TestListNextLinkKeepsTop follows nextLink as it is, as ARM clients do: every page keeps
// the page size $top asked for on the first.
func TestListNextLinkKeepsTop(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	scope := subScope + "/resourceGroups/paged"
	want := map[string]bool{}
	for i := range 6 {
		name := fmt.Sprintf("00000000-0000-4000-8000-%012d", 100+i)
		principal := fmt.Sprintf("ce2ce14e-85d7-4629-bdbc-%012d", i) // one triple each
		mustPut(t, c, scope, name, props(principal, readerID), http.StatusCreated)
		want[name] = true
	}
	top := int32(2)
	resp, err := c.RoleAssignmentsListForScopeWithResponse(ctx, scope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Top: &top})
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("first page: %v %s", err, resp.Body)
	}
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: spectest.Transport(t, spec, nil)}
	var sizes []int
	for {
		sizes = append(sizes, len(resp.JSON200.Value))
		for _, a := range resp.JSON200.Value {
			delete(want, *a.Name)
		}
		if resp.JSON200.NextLink == nil {
			break
		}
		if len(sizes) > 6 {
			t.Fatalf("still paging after %v", sizes)
		}
		if next, err := url.Parse(*resp.JSON200.NextLink); err != nil || next.Query().Get("$top") != "2" {
			t.Errorf("nextLink %q does not carry $top=2", *resp.JSON200.NextLink)
		}
		req, _ := http.NewRequest(http.MethodGet, *resp.JSON200.NextLink, nil)
		req.Header.Set("Authorization", "Bearer token")
		raw, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err = gen.ParseRoleAssignmentsListForScopeResponse(raw); err != nil || resp.StatusCode() != http.StatusOK {
			t.Fatalf("GET nextLink: %v %s", err, resp.Body)
		}
	}
	if fmt.Sprint(sizes) != "[2 2 2]" || len(want) != 0 {
		t.Errorf("page sizes %v, not listed %v; want pages of 2 covering all six", sizes, want)
	}
}
