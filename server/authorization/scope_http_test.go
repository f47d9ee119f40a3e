package authorization_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server/authorization"
)

// raw sends method to path (already escaped, as on the wire) with a valid body for PUT and
// returns the status and body.
func (e *env) raw(method, path, token string) (int, []byte) {
	e.t.Helper()
	var body io.Reader
	if method == http.MethodPut {
		body = strings.NewReader(`{"properties":{"principalId":"` + principal1 + `","roleDefinitionId":"` + readerID + `"}}`)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// escapeID escapes each segment of a resource id, as clients do when they use an id from
// a response as a path.
func escapeID(id string) string {
	segs := strings.Split(id, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

const assignmentPath = "/providers/Vendor.Authorization/roleAssignments/"

// Scopes with names ARM does not allow are refused on every route that takes a scope, with
// ARM's codes, and nothing is stored (authorization.md, scope.go).
func TestScopeNamesRefusedOnEveryRoute(t *testing.T) {
	e := newEnv(t)
	const v = "?api-version=2022-04-01"
	scopes := []struct {
		name, scope, code string
	}{
		{"invalid UTF-8 subscription", "/subscriptions/%ff%fe", "InvalidSubscriptionId"},
		{"NUL subscription", "/subscriptions/%00", "InvalidSubscriptionId"},
		{"newline in a subscription", "/subscriptions/a%0Ab", "InvalidSubscriptionId"},
		{"subscription not a GUID", "/subscriptions/not-a-guid", "InvalidSubscriptionId"},
		{"subscription not a GUID, resource group", "/subscriptions/not-a-guid/resourceGroups/rg", "InvalidSubscriptionId"},
		{"NUL in a resource group", "/" + subScope + "/resourceGroups/rg%00x", "InvalidResourceGroup"},
		{"newline in a resource group", "/" + subScope + "/resourceGroups/rg%0A", "InvalidResourceGroup"},
		{"invalid UTF-8 resource group", "/" + subScope + "/resourceGroups/rg%ff", "InvalidResourceGroup"},
		{"resource group ending in a period", "/" + subScope + "/resourceGroups/rg.", "InvalidResourceGroup"},
		{"resource group of 91 characters", "/" + subScope + "/resourceGroups/" + strings.Repeat("r", 91), "InvalidResourceGroup"},
		{"NUL in a resource name", "/" + rgScope + "/providers/A.B/t/n%00", "InvalidScope"},
		{"invalid UTF-8 resource name", "/" + rgScope + "/providers/A.B/t/%c3", "InvalidScope"},
		{"newline in a management group", "/providers/Vendor.Management/managementGroups/m%0Ag", "InvalidScope"},
	}
	routes := []struct{ method, suffix string }{
		{http.MethodPut, assignmentPath + name1 + v},
		{http.MethodGet, assignmentPath + name1 + v},
		{http.MethodDelete, assignmentPath + name1 + v},
		{http.MethodGet, "/providers/Vendor.Authorization/roleAssignments" + v},
		{http.MethodGet, "/providers/Vendor.Authorization/roleDefinitions" + v},
		{http.MethodGet, "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7" + v},
	}
	for _, sc := range scopes {
		for _, r := range routes {
			t.Run(sc.name+"/"+r.method+" "+strings.SplitN(r.suffix, "?", 2)[0], func(t *testing.T) {
				status, body := e.raw(r.method, sc.scope+r.suffix, "t")
				d := wantError(t, status, body, http.StatusBadRequest, sc.code)
				if strings.ContainsFunc(d.Message, func(r rune) bool { return r < 0x20 || r == 0xfffd }) {
					t.Errorf("message %q carries control characters or replacement runes", d.Message)
				}
			})
		}
	}
	// The %-escaped id in a message says what was sent.
	_, body := e.raw(http.MethodPut, "/subscriptions/%ff%fe"+assignmentPath+name1+v, "t")
	if d := wantError(t, 400, body, 400, "InvalidSubscriptionId"); d.Message != "The provided subscription identifier '%FF%FE' is malformed or invalid." {
		t.Errorf("message %q", d.Message)
	}
	// Nothing was stored by any of those.
	status, body := e.raw(http.MethodGet, "/"+subScope+"/providers/Vendor.Authorization/roleAssignments"+v, "t")
	var list struct{ Value []json.RawMessage }
	if status != 200 || json.Unmarshal(body, &list) != nil || len(list.Value) != 0 {
		t.Fatalf("list after refused PUTs: %d %s", status, body)
	}
}

// Whatever scope is accepted round-trips: the id a PUT returns, escaped as a client escapes
// a path, reads the assignment back, lists find it, and DELETE by that id removes it.
func TestAcceptedScopesRoundTrip(t *testing.T) {
	e := newEnv(t)
	const v = "?api-version=2022-04-01"
	scopes := []struct{ name, sent, want string }{
		{"Unicode resource group", "/" + subScope + "/resourceGroups/gr%C3%BC%C3%9Fe-%D9%A1-(x)_y.z", "/" + subScope + "/resourceGroups/grüße-١-(x)_y.z"},
		{"resource group of 90 letters", "/" + subScope + "/resourceGroups/" + strings.Repeat("%C3%A9", 90), "/" + subScope + "/resourceGroups/" + strings.Repeat("é", 90)},
		{"upper-case subscription", "/subscriptions/" + strings.ToUpper(sub) + "/resourceGroups/RG-Upper", "/subscriptions/" + strings.ToUpper(sub) + "/resourceGroups/RG-Upper"},
		{"resource name with space, percent and colon", "/" + rgScope + "/providers/A.B/t/n%201%25:%2B", "/" + rgScope + "/providers/A.B/t/n 1%:+"},
		{"management group", "/providers/Vendor.Management/managementGroups/mg-%C3%A9", "/providers/Vendor.Management/managementGroups/mg-é"},
	}
	names := []string{name1, name2, "0a1b2c3d-0000-4000-8000-0000000000a1", "0a1b2c3d-0000-4000-8000-0000000000a2", "0a1b2c3d-0000-4000-8000-0000000000a3"}
	for i, sc := range scopes {
		t.Run(sc.name, func(t *testing.T) {
			status, body := e.raw(http.MethodPut, sc.sent+assignmentPath+names[i]+v, "t")
			var got struct {
				ID         string `json:"id"`
				Properties struct{ Scope string }
			}
			if status != http.StatusCreated || json.Unmarshal(body, &got) != nil {
				t.Fatalf("PUT: %d %s", status, body)
			}
			if want := sc.want + assignmentPath + names[i]; got.ID != want || got.Properties.Scope != sc.want {
				t.Fatalf("id %q, scope %q; want %q, %q", got.ID, got.Properties.Scope, want, sc.want)
			}
			if status, body := e.raw(http.MethodGet, escapeID(got.ID)+v, "t"); status != http.StatusOK || !strings.Contains(string(body), names[i]) {
				t.Fatalf("GET of the returned id %q: %d %s", escapeID(got.ID), status, body)
			}
			if status, body := e.raw(http.MethodGet, escapeID(got.Properties.Scope)+"/providers/Vendor.Authorization/roleAssignments"+v+"&$filter=atScope()", "t"); status != http.StatusOK || !strings.Contains(string(body), names[i]) {
				t.Fatalf("list at the returned scope: %d %s", status, body)
			}
			if status, body := e.raw(http.MethodDelete, escapeID(got.ID)+v, "t"); status != http.StatusOK {
				t.Fatalf("DELETE of the returned id: %d %s", status, body)
			}
			if status, _ := e.raw(http.MethodGet, escapeID(got.ID)+v, "t"); status != http.StatusNotFound {
				t.Fatalf("GET after DELETE: %d", status)
			}
		})
	}
}

// The vendor's list paths name a resource as providers/{ns}/{parentResourcePath}/{type}/{name}
// (Permissions_ListForResource in every version, RoleAssignments_ListForResource before
// 2022-04-01), and its clients send a top-level resource's parentResourcePath empty, so the
// path holds providers/{ns}//{type}/{name}: the Node SDK does (@azure/arm-authorization's
// permissions.listForResource), as do the CLI and the .NET SDK against ARM. The lists read
// that empty segment as no parent; the routes that take a scope whole (a role assignment by
// name) and every other empty segment stay InvalidScope.
func TestListsReadAnEmptyParentResourcePath(t *testing.T) {
	e := newEnv(t, func(c *authorization.Config) { c.PageSize = 1 })
	const v = "?api-version=2022-04-01"
	acct := "/" + rgScope + "/providers/Microsoft.Storage/storageAccounts/acct1"
	emptyParent := "/" + rgScope + "/providers/Microsoft.Storage//storageAccounts/acct1"
	c := e.client("t", true)
	mustPut(t, c, acct[1:], name1, props(principal1, readerID), http.StatusCreated)
	mustPut(t, c, acct[1:], name2, props(principal2, readerID), http.StatusCreated)

	status, body := e.raw(http.MethodGet, emptyParent+"/providers/Vendor.Authorization/roleAssignments"+v+"&$filter=atScope()", "t")
	var page struct {
		Value    []struct{ Name string }
		NextLink string
	}
	if status != http.StatusOK || json.Unmarshal(body, &page) != nil || len(page.Value) != 1 || page.Value[0].Name != name1 {
		t.Fatalf("list with an empty parent: %d %s", status, body)
	}
	// The next page is the resource's, named without the empty segment.
	if !strings.Contains(page.NextLink, "/providers/Microsoft.Storage/storageAccounts/acct1/providers/Vendor.Authorization/roleAssignments?") {
		t.Fatalf("nextLink %q", page.NextLink)
	}
	next := strings.TrimPrefix(page.NextLink, e.srv.URL)
	if status, body := e.raw(http.MethodGet, next, "t"); status != http.StatusOK || !strings.Contains(string(body), name2) {
		t.Fatalf("next page: %d %s", status, body)
	}

	// Permissions (the caller holds nothing here: an empty list, not an error).
	for _, p := range []string{emptyParent, "/" + rgScope + "/providers/Microsoft.Web//sites/site1/providers/Microsoft.Insights//diagnosticSettings/ds1"} {
		if status, body := e.raw(http.MethodGet, p+"/providers/Vendor.Authorization/permissions"+v, "t"); status != http.StatusOK {
			t.Errorf("permissions at %s: %d %s", p, status, body)
		}
	}

	refused := []struct{ method, path string }{
		{http.MethodPut, emptyParent + assignmentPath + name1 + v},
		{http.MethodGet, emptyParent + assignmentPath + name1 + v},
		{http.MethodDelete, emptyParent + assignmentPath + name1 + v},
		{http.MethodGet, "/subscriptions/" + sub + "//resourceGroups/rg1/providers/Vendor.Authorization/roleAssignments" + v},
		{http.MethodGet, "/" + rgScope + "/providers/Microsoft.Storage/storageAccounts//acct1/providers/Vendor.Authorization/permissions" + v},
		{http.MethodGet, "/" + rgScope + "/providers//Microsoft.Storage/storageAccounts/acct1/providers/Vendor.Authorization/permissions" + v},
		{http.MethodGet, "/" + rgScope + "/providers/Microsoft.Storage///storageAccounts/acct1/providers/Vendor.Authorization/permissions" + v},
		{http.MethodGet, "/providers/Microsoft.Management//managementGroups/mg1/providers/Vendor.Authorization/permissions" + v},
	}
	for _, r := range refused {
		status, body := e.raw(r.method, r.path, "t")
		wantError(t, status, body, http.StatusBadRequest, "InvalidScope")
	}
}
