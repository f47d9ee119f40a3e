package authorization_test

// The tenant root and management-group scopes, the directory (principal types, groups,
// strict principals) and the permissions operation, driven by the vendor's Go SDK
// (armauthorization/v2) through the same namespace policy as sdk_test.go.

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/understudytest"
)

const (
	dirSub       = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	dirOtherSub  = "8e2d3c4b-5f6a-4b7c-9d8e-0f1a2b3c4d5e"
	dirAlice     = "a11ce000-0000-4000-8000-000000000001"
	dirBob       = "b0b00000-0000-4000-8000-000000000002"
	dirTeam      = "7ea70000-0000-4000-8000-000000000003" // group: alice
	dirOuter     = "0d7e0000-0000-4000-8000-000000000004" // group: team
	dirSP        = "5e7f0000-0000-4000-8000-000000000005"
	dirMI        = "3a1d0000-0000-4000-8000-000000000006"
	dirAdmin     = "ad300000-0000-4000-8000-000000000007" // bootstrap owner
	dirUnknown   = "00000000-dead-4000-8000-000000000008"
	dirOwnerGUID = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
	dirUAAGUID   = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
	// dirWriterGUID is a custom role that writes role assignments. It has no data actions,
	// so that it may be assigned at a management group.
	dirWriterGUID = "99999999-0000-4000-8000-00000000f00d"
)

var (
	mgParent = "providers/Microsoft.Management/managementGroups/mg-parent"
	mgChild  = "providers/Microsoft.Management/managementGroups/mg-child"
	dirRG    = "subscriptions/" + dirSub + "/resourceGroups/rg1"
)

func dirConfig(c *authorization.Config) {
	c.Enforce = true
	c.BootstrapOwners = []string{dirAdmin}
	c.StrictPrincipals = true
	c.ManagementGroups = []authorization.ManagementGroup{
		{ID: "mg-parent"},
		{ID: "mg-child", Parent: "mg-parent", Subscriptions: []string{dirSub}},
	}
	c.Directory = []authorization.DirectoryEntry{
		{ID: dirOuter, Type: "Group", DisplayName: "outer", Members: []string{dirTeam}}, // members declared later
		{ID: dirTeam, Type: "Group", DisplayName: "team", Members: []string{dirAlice}},
		{ID: dirAlice, Type: "User", DisplayName: "alice"},
		{ID: dirBob, Type: "User"},
		{ID: dirSP, Type: "ServicePrincipal"},
		{ID: dirMI, Type: "ManagedIdentity"},
		{ID: dirAdmin, Type: "User"},
	}
	c.RoleDefinitions = []authorization.SeedRole{{
		"id": dirWriterGUID, "roleName": "Assignment Writer",
		"actions":    []string{"Vendor.Authorization/roleAssignments/*", "*/read"},
		"notActions": []string{"Vendor.Authorization/roleAssignments/delete"},
	}}
}

// dirClients are the SDK's clients acting as one principal.
type dirClients struct {
	assignments *armauthorization.RoleAssignmentsClient
	permissions *armauthorization.PermissionsClient
}

func newDirClients(t *testing.T, baseURL, oid string) dirClients {
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
	p, err := armauthorization.NewPermissionsClient(dirSub, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	return dirClients{assignments: a, permissions: p}
}

func dirParams(principal, roleGUID string, principalType *armauthorization.PrincipalType) armauthorization.RoleAssignmentCreateParameters {
	return armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID:      to.Ptr(principal),
		RoleDefinitionID: to.Ptr("/providers/Microsoft.Authorization/roleDefinitions/" + roleGUID),
		PrincipalType:    principalType,
	}}
}

func dirList(t *testing.T, c dirClients, scope, filter string) []string {
	t.Helper()
	var opts *armauthorization.RoleAssignmentsClientListForScopeOptions
	if filter != "" {
		opts = &armauthorization.RoleAssignmentsClientListForScopeOptions{Filter: to.Ptr(filter)}
	}
	var names []string
	pager := c.assignments.NewListForScopePager(scope, opts)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list %s %q: %v", scope, filter, err)
		}
		for _, ra := range page.Value {
			names = append(names, *ra.Name)
		}
	}
	sort.Strings(names)
	return names
}

func TestScopesAndDirectorySDK(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) { dirConfig(&c.Authorization) }))
	admin := newDirClients(t, srv.URL, dirAdmin)
	alice := newDirClients(t, srv.URL, dirAlice)
	bob := newDirClients(t, srv.URL, dirBob)
	ctx := context.Background()
	readerGUID := sdkReaderGUID

	const (
		nameRoot   = "10000000-0000-4000-8000-000000000001" // Reader for bob at the root
		nameMG     = "10000000-0000-4000-8000-000000000002" // Writer for outer at mg-parent
		nameSP     = "10000000-0000-4000-8000-000000000003" // Reader for the service principal at rg1
		nameMI     = "10000000-0000-4000-8000-000000000004" // Reader for the managed identity at mg-child
		nameOther  = "10000000-0000-4000-8000-000000000005" // Reader for alice in a subscription in no group
		nameByTeam = "10000000-0000-4000-8000-000000000006" // made by alice through outer's role
	)

	t.Run("RootScope", func(t *testing.T) {
		resp, err := admin.assignments.Create(ctx, "/", nameRoot, dirParams(dirBob, readerGUID, nil), nil)
		if err != nil {
			t.Fatalf("Create at /: %v", err)
		}
		if got, want := *resp.ID, "/providers/Vendor.Authorization/roleAssignments/"+nameRoot; got != want {
			t.Errorf("id = %q, want %q", got, want)
		}
		if got := *resp.Properties.Scope; got != "/" {
			t.Errorf("scope = %q, want /", got)
		}
		got, err := admin.assignments.Get(ctx, "/", nameRoot, nil)
		if err != nil || *got.Properties.PrincipalID != dirBob {
			t.Fatalf("Get at /: %v %+v", err, got)
		}
		byID, err := admin.assignments.GetByID(ctx, *resp.ID, nil)
		if err != nil || *byID.Name != nameRoot {
			t.Fatalf("GetByID(%s): %v", *resp.ID, err)
		}
	})

	t.Run("ManagementGroupScope", func(t *testing.T) {
		resp, err := admin.assignments.Create(ctx, mgParent, nameMG, dirParams(dirOuter, dirWriterGUID, nil), nil)
		if err != nil {
			t.Fatalf("Create at %s: %v", mgParent, err)
		}
		if got, want := *resp.ID, "/"+mgParent+"/providers/Vendor.Authorization/roleAssignments/"+nameMG; got != want {
			t.Errorf("id = %q, want %q", got, want)
		}
		// principalType comes from the directory.
		if got := *resp.Properties.PrincipalType; got != armauthorization.PrincipalTypeGroup {
			t.Errorf("principalType = %q, want Group", got)
		}
		if _, err := admin.assignments.Create(ctx, mgChild, nameMI, dirParams(dirMI, readerGUID, nil), nil); err != nil {
			t.Fatalf("Create at %s: %v", mgChild, err)
		}
		if _, err := admin.assignments.Create(ctx, dirRG, nameSP, dirParams(dirSP, readerGUID, to.Ptr(armauthorization.PrincipalTypeServicePrincipal)), nil); err != nil {
			t.Fatalf("Create at %s: %v", dirRG, err)
		}
		if _, err := admin.assignments.Create(ctx, "subscriptions/"+dirOtherSub, nameOther, dirParams(dirAlice, readerGUID, nil), nil); err != nil {
			t.Fatalf("Create in another subscription: %v", err)
		}
		mi, err := admin.assignments.Get(ctx, mgChild, nameMI, nil)
		if err != nil || *mi.Properties.PrincipalType != armauthorization.PrincipalTypeServicePrincipal {
			t.Errorf("a managed identity's principalType: %v %v, want ServicePrincipal", err, mi.Properties)
		}
	})

	t.Run("PrincipalRules", func(t *testing.T) {
		_, err := admin.assignments.Create(ctx, dirRG, "10000000-0000-4000-8000-0000000000f1", dirParams(dirUnknown, readerGUID, nil), nil)
		sdkWantError(t, err, http.StatusBadRequest, "PrincipalNotFound")
		// Strict: a principalType does not stand in for the directory.
		_, err = admin.assignments.Create(ctx, dirRG, "10000000-0000-4000-8000-0000000000f2", dirParams(dirUnknown, readerGUID, to.Ptr(armauthorization.PrincipalTypeUser)), nil)
		sdkWantError(t, err, http.StatusBadRequest, "PrincipalNotFound")
		_, err = admin.assignments.Create(ctx, dirRG, "10000000-0000-4000-8000-0000000000f3", dirParams(dirAlice, readerGUID, to.Ptr(armauthorization.PrincipalTypeServicePrincipal)), nil)
		sdkWantError(t, err, http.StatusBadRequest, "UnmatchedPrincipalType")
	})

	t.Run("Lists", func(t *testing.T) {
		sub := "subscriptions/" + dirSub
		// assignedTo follows alice into team and team into outer; principalId eq does not.
		// (The SDK sends $filter unescaped: a filter with spaces is escaped here, as against
		// ARM; see sdk_test.go.)
		if got, want := dirList(t, admin, sub, "assignedTo('"+dirAlice+"')"), []string{nameMG}; !slices.Equal(got, want) {
			t.Errorf("assignedTo(alice) at the subscription = %v, want %v", got, want)
		}
		if got := dirList(t, admin, sub, "principalId%20eq%20'"+dirAlice+"'"); len(got) != 0 {
			t.Errorf("principalId eq alice at the subscription = %v, want none", got)
		}
		if got, want := dirList(t, admin, "/", "assignedTo('"+dirAlice+"')"), []string{nameMG, nameOther}; !slices.Equal(got, want) {
			t.Errorf("assignedTo(alice) at the root = %v, want %v", got, want)
		}
		// At the subscription: the root and the groups above it, and what is below it.
		if got, want := dirList(t, admin, sub, ""), []string{nameRoot, nameMG, nameSP, nameMI}; !slices.Equal(got, sorted(want)) {
			t.Errorf("list at the subscription = %v, want %v", got, sorted(want))
		}
		if got, want := dirList(t, admin, dirRG, "atScope()"), []string{nameRoot, nameMG, nameSP, nameMI}; !slices.Equal(got, sorted(want)) {
			t.Errorf("atScope() at rg1 = %v, want %v", got, sorted(want))
		}
		// At mg-parent: itself and the root above, mg-child and the subscription below.
		if got, want := dirList(t, admin, mgParent, ""), []string{nameRoot, nameMG, nameSP, nameMI}; !slices.Equal(got, sorted(want)) {
			t.Errorf("list at mg-parent = %v, want %v", got, sorted(want))
		}
		if got, want := dirList(t, admin, mgChild, "atScope()"), []string{nameRoot, nameMG, nameMI}; !slices.Equal(got, sorted(want)) {
			t.Errorf("atScope() at mg-child = %v, want %v", got, sorted(want))
		}
		if got, want := dirList(t, admin, "/", "atScope()"), []string{nameRoot}; !slices.Equal(got, want) {
			t.Errorf("atScope() at the root = %v, want %v", got, want)
		}
		if got, want := dirList(t, admin, "/", "principalId%20eq%20'"+dirAlice+"'"), []string{nameOther}; !slices.Equal(got, want) {
			t.Errorf("principalId eq alice at the root = %v, want %v (hers, not her group's)", got, want)
		}
		// Unfiltered at the root, ARM refuses: every assignment of the tenant is no query.
		_, err := admin.assignments.NewListForScopePager("/", nil).NextPage(ctx)
		sdkWantError(t, err, http.StatusBadRequest, "BadRequest")
	})

	t.Run("EnforcementFollowsGroupsAndHierarchy", func(t *testing.T) {
		// alice writes assignments in the subscription through outer's role at mg-parent.
		if _, err := alice.assignments.Create(ctx, dirRG, nameByTeam, dirParams(dirBob, readerGUID, nil), nil); err != nil {
			t.Fatalf("alice's Create through her group's role: %v", err)
		}
		// Its notActions hold: no delete.
		_, err := alice.assignments.Delete(ctx, dirRG, nameByTeam, nil)
		sdkWantError(t, err, http.StatusForbidden, "AuthorizationFailed")
		// Outside mg-parent, the role does not apply.
		_, err = alice.assignments.Create(ctx, "subscriptions/"+dirOtherSub, "10000000-0000-4000-8000-0000000000f4", dirParams(dirBob, readerGUID, nil), nil)
		sdkWantError(t, err, http.StatusForbidden, "AuthorizationFailed")
		// bob reads everywhere (Reader at the root) but writes nowhere.
		if _, err := bob.assignments.Get(ctx, dirRG, nameByTeam, nil); err != nil {
			t.Errorf("bob's Get through Reader at the root: %v", err)
		}
		_, err = bob.assignments.Create(ctx, dirRG, "10000000-0000-4000-8000-0000000000f5", dirParams(dirAlice, readerGUID, nil), nil)
		sdkWantError(t, err, http.StatusForbidden, "AuthorizationFailed")
	})

	t.Run("Permissions", func(t *testing.T) {
		perms := func(c dirClients, resource bool) []*armauthorization.Permission {
			t.Helper()
			var out []*armauthorization.Permission
			if resource {
				pager := c.permissions.NewListForResourcePager("rg1", "Microsoft.Storage", "", "storageAccounts", "acct1", nil)
				for pager.More() {
					page, err := pager.NextPage(ctx)
					if err != nil {
						t.Fatalf("ListForResource: %v", err)
					}
					out = append(out, page.Value...)
				}
				return out
			}
			pager := c.permissions.NewListForResourceGroupPager("rg1", nil)
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					t.Fatalf("ListForResourceGroup: %v", err)
				}
				out = append(out, page.Value...)
			}
			return out
		}
		for _, resource := range []bool{false, true} {
			got := perms(alice, resource)
			if len(got) != 1 {
				t.Fatalf("alice's permissions (resource %v): %d entries, want 1 (her group's role)", resource, len(got))
			}
			p := got[0]
			if a := vals(p.Actions); !slices.Equal(a, []string{"Vendor.Authorization/roleAssignments/*", "*/read"}) {
				t.Errorf("actions = %v", a)
			}
			if a := vals(p.NotActions); !slices.Equal(a, []string{"Vendor.Authorization/roleAssignments/delete"}) {
				t.Errorf("notActions = %v", a)
			}
			if len(p.DataActions) != 0 {
				t.Errorf("dataActions = %v", vals(p.DataActions))
			}
		}
		// bob: Reader at the root. The admin, a bootstrap owner: Owner.
		if got := perms(bob, false); len(got) != 1 || !slices.Equal(vals(got[0].Actions), []string{"*/read"}) {
			t.Errorf("bob's permissions = %v, want Reader's", got)
		}
		if got := perms(admin, false); len(got) != 1 || !slices.Equal(vals(got[0].Actions), []string{"*"}) {
			t.Errorf("the bootstrap owner's permissions = %v, want Owner's", got)
		}
	})
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

func vals(p []*string) []string {
	out := make([]string, 0, len(p))
	for _, s := range p {
		out = append(out, *s)
	}
	return out
}
