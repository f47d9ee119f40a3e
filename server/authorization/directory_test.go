package authorization_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	admingen "github.com/understudy-dev/understudy/gen/admin"
	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/authorization"
)

// TestDirectoryAdmin: principals added, replaced and removed through the admin API change
// what role assignments see, and the admin API refuses what the directory cannot hold.
func TestDirectoryAdmin(t *testing.T) {
	e := newEnv(t)
	adm := e.srv.Admin
	c := e.client("t", true)

	putP := func(id string, p admingen.Principal, want int) *admingen.PutPrincipalResponse {
		t.Helper()
		r, err := adm.PutPrincipalWithResponse(ctx, id, p)
		if err != nil || r.StatusCode() != want {
			t.Fatalf("PUT principal %s: %v %d %s, want %d", id, err, r.StatusCode(), r.Body, want)
		}
		return r
	}
	putP(principal1, admingen.Principal{Type: admingen.PrincipalTypeServicePrincipal, DisplayName: ptr("robot")}, 201)
	r := putP(principal2, admingen.Principal{Type: admingen.PrincipalTypeGroup, Members: []string{principal1}}, 201)
	if got := r.JSON201; got == nil || *got.Id != principal2 || len(got.Members) != 1 || got.Members[0] != principal1 {
		t.Errorf("created group = %s", r.Body)
	}
	putP(principal2, admingen.Principal{Type: admingen.PrincipalTypeGroup, Members: []string{principal1}}, 200)

	// The directory's type wins; another one sent is refused in ARM's words.
	ra := mustPut(t, c, subScope, name1, props(principal1, readerID), http.StatusCreated)
	if *ra.Properties.PrincipalType != gen.PrincipalTypeServicePrincipal {
		t.Errorf("principalType = %s, want ServicePrincipal from the directory", *ra.Properties.PrincipalType)
	}
	p := props(principal2, readerID)
	p.PrincipalType = ptr(gen.PrincipalTypeUser)
	resp := put(t, c, rgScope, name2, p)
	d := wantError(t, resp.StatusCode(), resp.Body, http.StatusBadRequest, "UnmatchedPrincipalType")
	want := "The PrincipalId '" + strings.ReplaceAll(principal2, "-", "") + "' has type 'Group' , which is different from specified PrinciaplType 'User'."
	if d.Message != want {
		t.Errorf("message = %q, want %q", d.Message, want)
	}

	// assignedTo(principal1) finds the group's assignment once the group holds it.
	mustPut(t, c, rgScope, name2, props(principal2, readerID), http.StatusCreated)
	list, err := c.RoleAssignmentsListForScopeWithResponse(ctx, subScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Filter: ptr("assignedTo('" + principal1 + "')")})
	if err != nil || list.JSON200 == nil || len(list.JSON200.Value) != 2 {
		t.Fatalf("assignedTo(member): %v %s, want its own and its group's", err, list.Body)
	}

	for _, tt := range []struct {
		name string
		id   string
		p    admingen.Principal
		want int
	}{
		{"a member not in the directory", name1, admingen.Principal{Type: admingen.PrincipalTypeGroup, Members: []string{name2}}, 400},
		{"members of a user", name1, admingen.Principal{Type: admingen.PrincipalTypeUser, Members: []string{principal1}}, 400},
		{"a group in itself", principal2, admingen.Principal{Type: admingen.PrincipalTypeGroup, Members: []string{principal2}}, 400},
		{"an unknown type", name1, admingen.Principal{Type: "Robot"}, 400},
		{"an id that is no GUID", "nope", admingen.Principal{Type: admingen.PrincipalTypeUser}, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := adm.PutPrincipalWithResponse(ctx, tt.id, tt.p)
			if err != nil || r.StatusCode() != tt.want || !strings.Contains(string(r.Body), `"error"`) {
				t.Errorf("PUT: %v %d %s, want %d in the admin envelope", err, r.StatusCode(), r.Body, tt.want)
			}
		})
	}

	// A removed member leaves the group: assignedTo no longer finds the group's assignment.
	if r, err := adm.DeletePrincipalWithResponse(ctx, principal1); err != nil || r.StatusCode() != 204 {
		t.Fatalf("DELETE principal: %v %d %s", err, r.StatusCode(), r.Body)
	}
	if r, err := adm.DeletePrincipalWithResponse(ctx, principal1); err != nil || r.StatusCode() != 404 {
		t.Fatalf("DELETE again: %v %d %s, want 404", err, r.StatusCode(), r.Body)
	}
	lr, err := adm.ListPrincipalsWithResponse(ctx)
	if err != nil || lr.JSON200 == nil || len(lr.JSON200.Value) != 1 || len(lr.JSON200.Value[0].Members) != 0 {
		t.Fatalf("directory after the delete: %v %s, want the group alone, without members", err, lr.Body)
	}
	list, _ = c.RoleAssignmentsListForScopeWithResponse(ctx, subScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Filter: ptr("assignedTo('" + principal1 + "')")})
	if list.JSON200 == nil || len(list.JSON200.Value) != 1 {
		t.Errorf("assignedTo(removed member): %s, want its own only", list.Body)
	}

	// A reset goes back to the seeded directory (none here).
	if r, err := adm.ResetWithResponse(ctx); err != nil || r.StatusCode() != 200 {
		t.Fatal(err)
	}
	if lr, _ := adm.ListPrincipalsWithResponse(ctx); lr.JSON200 == nil || len(lr.JSON200.Value) != 0 {
		t.Errorf("directory after a reset: %s, want empty", lr.Body)
	}
}

// TestStrictPrincipalsMessage: ARM's words, with the ids as ARM writes them and the caller's
// tenant (the tid claim).
func TestStrictPrincipalsMessage(t *testing.T) {
	e := newEnv(t, func(c *authorization.Config) { c.StrictPrincipals = true })
	tenant := "9e1f2d3c-4b5a-4678-8912-3456789abcde"
	c := e.client(sdkUnsignedJWT(map[string]any{"oid": principal2, "tid": tenant}), true)
	resp := put(t, c, subScope, name1, props(principal1, readerID))
	d := wantError(t, resp.StatusCode(), resp.Body, http.StatusBadRequest, "PrincipalNotFound")
	want := "Principal " + strings.ReplaceAll(principal1, "-", "") + " does not exist in the directory " + tenant + ". Check that you have the correct principal ID."
	if !strings.HasPrefix(d.Message, want) {
		t.Errorf("message = %q, want it to start %q", d.Message, want)
	}
	// Off (the default), any principal is taken, with the type sent or User.
	e2 := newEnv(t)
	if ra := mustPut(t, e2.client("t", true), subScope, name1, props(principal1, readerID), http.StatusCreated); *ra.Properties.PrincipalType != gen.PrincipalTypeUser {
		t.Errorf("principalType = %s, want User", *ra.Properties.PrincipalType)
	}
}

// TestPermissionsVersionsAndScopes: the permissions operation at every scope shape, in each
// api-version's shape, and ARM's error for a version it does not define.
func TestPermissionsVersionsAndScopes(t *testing.T) {
	e := newEnv(t)
	c := e.client(jwt(principal1), true)
	// Storage Blob Data Reader: a built-in role with data actions, which (unlike a custom
	// one) may be assigned at a management group.
	mustPut(t, c, "providers/Vendor.Management/managementGroups/mg1", name1,
		props(principal1, "/providers/Vendor.Authorization/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"), http.StatusCreated)
	const (
		blobActions = `"actions":["Microsoft.Storage/storageAccounts/blobServices/containers/read","Microsoft.Storage/storageAccounts/blobServices/generateUserDelegationKey/action"]`
		blobData    = `"dataActions":["Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"]`
	)
	get := func(path, version string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path+"?api-version="+version, nil)
		req.Header.Set("Authorization", "Bearer "+jwt(principal1))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	// (Empty lists are left out, as in role definitions.) The management group's assignment applies there (either provider spelling) and, with
	// no hierarchy declared, nowhere else but below it (nothing is).
	for _, tt := range []struct {
		path, version string
		want          string
	}{
		{"/providers/Microsoft.Management/managementGroups/MG1/providers/Vendor.Authorization/permissions", "2022-04-01",
			`{"value":[{` + blobActions + `,` + blobData + `}]}`},
		{"/providers/Vendor.Management/managementGroups/mg1/providers/Vendor.Authorization/permissions", "2018-01-01-preview",
			`{"value":[{` + blobActions + `,` + blobData + `}]}`},
		{"/providers/Vendor.Management/managementGroups/mg1/providers/Vendor.Authorization/permissions", "2015-07-01",
			`{"value":[{` + blobActions + `}]}`},
		{"/providers/Vendor.Management/managementGroups/mg1/providers/Vendor.Authorization/permissions", "2022-05-01-preview",
			`{"value":[{` + blobActions + `,` + blobData + `}]}`},
		{"/" + rgScope + "/providers/Vendor.Authorization/permissions", "2022-04-01", `{"value":[]}`},
		{"/providers/Vendor.Authorization/permissions", "2022-04-01", `{"value":[]}`},
	} {
		code, body := get(tt.path, tt.version)
		if code != 200 || !jsonEqual(t, body, tt.want) {
			t.Errorf("GET %s (%s): %d %s, want 200 %s", tt.path, tt.version, code, body, tt.want)
		}
	}
	code, body := get("/"+subScope+"/providers/Vendor.Authorization/permissions", "2021-01-01")
	d := wantError(t, code, body, http.StatusBadRequest, "NoRegisteredProviderFound")
	if !strings.Contains(d.Message, "'2015-07-01, 2018-01-01-preview, 2022-04-01, 2022-05-01-preview'") {
		t.Errorf("message = %q, want the supported versions", d.Message)
	}
	// The generated client (scope %2F-escaped) reaches the same operation.
	r, err := c.PermissionsListForScopeWithResponse(ctx, "providers/Vendor.Management/managementGroups/mg1", &gen.PermissionsListForScopeParams{ApiVersion: apiVersion})
	if err != nil || r.JSON200 == nil || len(r.JSON200.Value) != 1 {
		t.Errorf("generated client: %v %s", err, r.Body)
	}
}

// TestRootScopeHTTP: the root as ARM clients spell it (no scope, or an empty one) and as the
// generated client escapes it.
func TestRootScopeHTTP(t *testing.T) {
	e := newEnv(t)
	c := e.client("t", false)
	ra := mustPut(t, c, "/", name1, props(principal1, readerID), http.StatusCreated)
	if *ra.Id != "/providers/Vendor.Authorization/roleAssignments/"+name1 || *ra.Properties.Scope != "/" {
		t.Errorf("id %s, scope %s", *ra.Id, *ra.Properties.Scope)
	}
	for _, path := range []string{"/providers/Vendor.Authorization/roleAssignments/" + name1, "//providers/Vendor.Authorization/roleAssignments/" + name1,
		"/PROVIDERS/vendor.authorization/roleassignments/" + name1} {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path+"?api-version="+apiVersion, nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"scope":"/"`) {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	// An assignment at the root is above every scope.
	list, err := c.RoleAssignmentsListForScopeWithResponse(ctx, rgScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Filter: ptr("atScope()")})
	if err != nil || list.JSON200 == nil || len(list.JSON200.Value) != 1 {
		t.Errorf("atScope() at a resource group: %v %s, want the root's assignment", err, list.Body)
	}
}

// TestDirectoryRaces: racing admin writes to a group and permission checks through it stay
// consistent (run with -race).
func TestDirectoryRaces(t *testing.T) {
	e := newEnv(t, func(c *authorization.Config) {
		c.Enforce = true
		c.Directory = []authorization.DirectoryEntry{{ID: principal1, Type: "User"}, {ID: principal2, Type: "Group", Members: []string{principal1}}}
		c.Assignments = []authorization.SeedAssignment{{"name": name2, "properties": map[string]any{"scope": subScope, "principalId": principal2,
			"roleDefinitionId": "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID}}}
	})
	c := e.client(jwt(principal1), true)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				members := []string{principal1}
				if j%2 == 0 {
					members = nil
				}
				if r, err := e.srv.Admin.PutPrincipalWithResponse(ctx, principal2, admingen.Principal{Type: admingen.PrincipalTypeGroup, Members: members}); err != nil || r.StatusCode() != 200 {
					t.Errorf("PUT group: %v", err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				r, err := c.RoleAssignmentsGetWithResponse(ctx, subScope, name2, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
				if err != nil || (r.StatusCode() != 200 && r.StatusCode() != 403) {
					t.Errorf("GET: %v %d", err, r.StatusCode())
				}
			}
		}()
	}
	wg.Wait()
}

func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
