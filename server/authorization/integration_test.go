package authorization_test

// Custom roles together with the scope tree and the directory, through the vendor's SDK:
// what one engineer built for custom roles and another for management groups, the root and
// groups, working as one.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// allClients are the SDK's three clients acting as one principal.
type allClients struct {
	assignments *armauthorization.RoleAssignmentsClient
	definitions *armauthorization.RoleDefinitionsClient
	permissions *armauthorization.PermissionsClient
}

func newAllClients(t *testing.T, baseURL, oid string) allClients {
	t.Helper()
	opts := &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: "https://login.understudy.local/",
				Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
					cloud.ResourceManager: {Endpoint: baseURL, Audience: "https://management.understudy.local"},
				},
			},
			InsecureAllowCredentialWithHTTP: true,
			Retry:                           policy.RetryOptions{MaxRetries: -1},
			Telemetry:                       policy.TelemetryOptions{Disabled: true},
			PerCallPolicies:                 []policy.Policy{sdkNamespacePolicy{}},
		},
		DisableRPRegistration: true,
	}
	cred := sdkStaticToken(sdkUnsignedJWT(map[string]any{"oid": oid, "tid": sdkTenant, "aud": "https://management.understudy.local"}))
	a, err := armauthorization.NewRoleAssignmentsClient(dirSub, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := armauthorization.NewRoleDefinitionsClient(cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := armauthorization.NewPermissionsClient(dirSub, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	return allClients{assignments: a, definitions: d, permissions: p}
}

// sdkCode is the ARM error code of an SDK call's error, "" when there is none.
func sdkCode(t *testing.T, err error) (int, string) {
	t.Helper()
	if err == nil {
		return 0, ""
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("not a response error: %v", err)
	}
	return re.StatusCode, re.ErrorCode
}

func customRole(name string, scopes []string, actions, notActions, dataActions []string) armauthorization.RoleDefinition {
	var ptrs []*string
	for _, s := range scopes {
		ptrs = append(ptrs, to.Ptr(s))
	}
	return armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName:         to.Ptr(name),
		AssignableScopes: ptrs,
		Permissions: []*armauthorization.Permission{{
			Actions: to.SliceOfPtrs(actions...), NotActions: to.SliceOfPtrs(notActions...), DataActions: to.SliceOfPtrs(dataActions...),
		}},
	}}
}

// TestCustomRolesAcrossTheHierarchy: a custom role assignable at a management group is read,
// listed and assigned in the subscriptions under it and nowhere else; assigned to a group at
// the management group, it lets the group's members do what its actions (minus notActions)
// say under it, under enforcement, and the permissions operation shows the same; custom
// roles are made, read, listed and deleted at the tenant root and at management groups.
func TestCustomRolesAcrossTheHierarchy(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) { dirConfig(&c.Authorization) }))
	admin := newAllClients(t, srv.URL, dirAdmin)
	alice := newAllClients(t, srv.URL, dirAlice) // in team, in outer
	bob := newAllClients(t, srv.URL, dirBob)     // in no group
	ctx := context.Background()

	const (
		mgRole   = "c0570000-0000-4000-8000-000000000001" // assignable at mg-parent
		subRole  = "c0570000-0000-4000-8000-000000000002" // assignable in dirSub only
		rootRole = "c0570000-0000-4000-8000-000000000003" // made at the root
		grantMG  = "c0570000-0000-4000-8000-0000000000a1"
	)
	sub, other := "subscriptions/"+dirSub, "subscriptions/"+dirOtherSub

	// Made at the management group, in its real provider's spelling; without data actions,
	// so that it may be assigned there.
	if _, err := admin.definitions.CreateOrUpdate(ctx, mgParent, mgRole, customRole("MG Assignment Reader", []string{"/" + mgParent},
		[]string{"Vendor.Authorization/roleAssignments/*", "Microsoft.Compute/*/read"},
		[]string{"Vendor.Authorization/roleAssignments/write", "Vendor.Authorization/roleAssignments/delete"}, nil), nil); err != nil {
		t.Fatalf("PUT at %s: %v", mgParent, err)
	}
	if _, err := admin.definitions.CreateOrUpdate(ctx, sub, subRole, customRole("Sub Only", []string{"/" + sub}, []string{"*/read"}, nil, nil), nil); err != nil {
		t.Fatalf("PUT at %s: %v", sub, err)
	}

	t.Run("AssignableUnderTheGroup", func(t *testing.T) {
		// mg-parent > mg-child > dirSub > rg1: the role is there at each.
		for _, scope := range []string{mgParent, mgChild, sub, dirRG, dirRG + "/providers/Microsoft.Compute/virtualMachines/vm1"} {
			if _, err := admin.definitions.Get(ctx, scope, mgRole, nil); err != nil {
				t.Errorf("GET at %s: %v", scope, err)
			}
		}
		// dirOtherSub is in no management group: the role does not exist there.
		if _, err := admin.definitions.Get(ctx, other, mgRole, nil); err == nil {
			t.Errorf("GET in a subscription outside the group: found")
		} else if st, code := sdkCode(t, err); st != 404 || code != "RoleDefinitionDoesNotExist" {
			t.Errorf("GET outside: %d %s", st, code)
		}
		_, err := admin.assignments.Create(ctx, other, newGUID(), dirParams(dirBob, mgRole, nil), nil)
		if st, code := sdkCode(t, err); st != 400 || code != "RoleDefinitionDoesNotExist" {
			t.Errorf("assigning outside the group: %d %s", st, code)
		}
		if _, err := admin.assignments.Create(ctx, dirRG, newGUID(), dirParams(dirSP, mgRole, nil), nil); err != nil {
			t.Errorf("assigning in a resource group under the group: %v", err)
		}
	})

	t.Run("Lists", func(t *testing.T) {
		names := func(scope, filter string) []string {
			var out []string
			pager := admin.definitions.NewListPager(scope, &armauthorization.RoleDefinitionsClientListOptions{Filter: to.Ptr(filter)})
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					t.Fatalf("list at %q, %s: %v", scope, filter, err)
				}
				for _, r := range page.Value {
					out = append(out, *r.Name)
				}
			}
			slices.Sort(out)
			return out
		}
		for _, tt := range []struct {
			scope, filter string
			want          []string
		}{
			{sub, "type eq 'CustomRole'", []string{dirWriterGUID, mgRole, subRole}},
			{other, "type eq 'CustomRole'", []string{dirWriterGUID}},
			{mgChild, "type eq 'CustomRole'", []string{dirWriterGUID, mgRole}},
			// atScopeAndBelow() at the group adds the role assignable in a subscription under it.
			{mgParent, "type eq 'CustomRole' and atScopeAndBelow()", []string{dirWriterGUID, mgRole, subRole}},
			{"", "type eq 'CustomRole'", []string{dirWriterGUID, mgRole, subRole}},
		} {
			if got := names(tt.scope, tt.filter); !slices.Equal(got, tt.want) {
				t.Errorf("at %q, %s: %v, want %v", tt.scope, tt.filter, got, tt.want)
			}
		}
	})

	t.Run("EnforcedThroughGroupAndHierarchy", func(t *testing.T) {
		// Bob may not read assignments in rg1 yet; alice neither.
		for who, c := range map[string]allClients{"alice": alice, "bob": bob} {
			_, err := c.assignments.NewListForScopePager(dirRG, nil).NextPage(ctx)
			if st, code := sdkCode(t, err); st != 403 || code != "AuthorizationFailed" {
				t.Errorf("%s before: %d %s", who, st, code)
			}
		}
		// The custom role to outer (which holds team, which holds alice) at mg-parent.
		if _, err := admin.assignments.Create(ctx, mgParent, grantMG, dirParams(dirOuter, mgRole, nil), nil); err != nil {
			t.Fatalf("assigning at %s: %v", mgParent, err)
		}
		if _, err := alice.assignments.NewListForScopePager(dirRG, nil).NextPage(ctx); err != nil {
			t.Errorf("alice reads assignments in rg1 through outer's role at mg-parent: %v", err)
		}
		// notActions: no writes.
		_, err := alice.assignments.Create(ctx, dirRG, newGUID(), dirParams(dirBob, sdkReaderGUID, nil), nil)
		if st, code := sdkCode(t, err); st != 403 || code != "AuthorizationFailed" {
			t.Errorf("alice writes: %d %s, want 403 AuthorizationFailed", st, code)
		}
		// Outside the group's subtree, nothing.
		_, err = alice.assignments.NewListForScopePager(other, nil).NextPage(ctx)
		if st, code := sdkCode(t, err); st != 403 {
			t.Errorf("alice outside the group: %d %s, want 403", st, code)
		}
		// Bob is in no group.
		_, err = bob.assignments.NewListForScopePager(dirRG, nil).NextPage(ctx)
		if st, _ := sdkCode(t, err); st != 403 {
			t.Errorf("bob: %d, want 403", st)
		}

		// The permissions operation shows what the checks allowed, from the same place.
		page, err := alice.permissions.NewListForResourceGroupPager("rg1", nil).NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range page.Value {
			if len(p.Actions) == 2 && *p.Actions[0] == "Vendor.Authorization/roleAssignments/*" && len(p.NotActions) == 2 && len(p.DataActions) == 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("alice's permissions in rg1 lack the custom role's: %+v", page.Value)
		}

		// A role still assigned cannot be deleted, at the scope it was made at either.
		_, err = admin.definitions.Delete(ctx, mgParent, mgRole, nil)
		if st, code := sdkCode(t, err); st != 409 || code != "RoleDefinitionHasAssignments" {
			t.Errorf("deleting an assigned role: %d %s", st, code)
		}
	})

	t.Run("TenantRoot", func(t *testing.T) {
		// Made at the root; assignable at the root it may not be (ARM's custom role limits).
		_, err := admin.definitions.CreateOrUpdate(ctx, "/", rootRole, customRole("Root Reader", []string{"/"}, []string{"*/read"}, nil, nil), nil)
		if st, code := sdkCode(t, err); st != 400 || code != "InvalidAssignableScope" {
			t.Errorf("PUT at / assignable at /: %d %s", st, code)
		}
		if _, err := admin.definitions.CreateOrUpdate(ctx, "/", rootRole, customRole("Root Reader", []string{"/" + mgParent}, []string{"*/read"}, nil, nil), nil); err != nil {
			t.Fatalf("PUT at /: %v", err)
		}
		for _, scope := range []string{"/", mgChild, dirRG} {
			if _, err := admin.definitions.Get(ctx, scope, rootRole, nil); err != nil {
				t.Errorf("GET at %q: %v", scope, err)
			}
		}
		if r, err := admin.definitions.GetByID(ctx, "/providers/Microsoft.Authorization/roleDefinitions/"+rootRole, nil); err != nil || *r.Properties.RoleName != "Root Reader" {
			t.Errorf("GetByID: %v", err)
		}
		// Raw HTTP, as clients spell the root: the empty segment.
		for _, want := range []int{200, 204} {
			req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/providers/Vendor.Authorization/roleDefinitions/"+subRole+"?api-version=2022-04-01", nil)
			req.Header.Set("Authorization", "Bearer "+jwt(dirAdmin))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("DELETE at the root: %d, want %d", resp.StatusCode, want)
			}
		}
		if _, err := admin.definitions.Get(ctx, sub, subRole, nil); err == nil {
			t.Error("the role deleted at the root is still there")
		}
		if _, err := admin.definitions.Delete(ctx, "/", rootRole, nil); err != nil {
			t.Errorf("DELETE at / through the SDK: %v", err)
		}
		if _, err := admin.definitions.GetByID(ctx, "/providers/Microsoft.Authorization/roleDefinitions/"+rootRole, nil); err == nil {
			t.Error("deleted at the root, still read by id")
		}
	})
}

// TestAPIVersionTablePerResource: each resource type's api-versions are its own, told by
// the word after the last provider segment, whatever the scope before it holds (a resource
// group may be called roleDefinitions).
func TestAPIVersionTablePerResource(t *testing.T) {
	srv := understudytest.Start(t)
	rg := "/subscriptions/" + dirSub + "/resourceGroups/roleDefinitions/providers/Vendor.Authorization/"
	for _, tt := range []struct {
		path, version string
		want          int
		typ           string
	}{
		{rg + "roleAssignments", "2020-03-01-preview", 200, ""}, // an assignments-only version
		{rg + "roleDefinitions", "2020-03-01-preview", 400, "roleDefinitions"},
		{rg + "permissions", "2015-07-01", 200, ""},
		{rg + "permissions", "2017-10-01-preview", 400, "permissions"}, // assignments and definitions have it; permissions do not
		{"/providers/Vendor.Authorization/roleDefinitions", "2022-05-01-preview", 200, ""},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tt.path+"?api-version="+tt.version, nil)
		req.Header.Set("Authorization", "Bearer "+jwt(dirAdmin))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s: %d %+v, want %d", tt.path, tt.version, resp.StatusCode, body, tt.want)
		}
		if tt.typ != "" && (body.Error.Code != "NoRegisteredProviderFound" || !strings.Contains(body.Error.Message, "for type '"+tt.typ+"'")) {
			t.Errorf("%s %s: %+v", tt.path, tt.version, body.Error)
		}
	}
}
