package authorization_test

// The vendor's Go SDK for deny assignments (armauthorization/v2's DenyAssignmentsClient,
// api-version 2022-04-01) against a server seeded with some, as a program that checks
// effective access calls it: every method, its pagers following nextLink (pages of
// sdkPageSize), its filters, and its error for one that is not there. The namespace policy
// and the paging helpers are sdk_test.go's and sdk_coverage_test.go's.

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/understudytest"
)

// sdkDenyName is the name of the i-th deny assignment of the SDK test.
func sdkDenyName(i int) string { return fmt.Sprintf("d0d0d0d0-aaaa-4bbb-8ccc-%012d", i) }

func TestDenyAssignmentsSDK(t *testing.T) {
	created := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	deny := func(i int, scope string, principal string, excluded ...string) authorization.SeedDenyAssignment {
		p := map[string]any{"scope": "/" + scope, "denyAssignmentName": fmt.Sprintf("SDK deny %d", i), "description": "made by a managed application",
			"permissions": []any{map[string]any{"actions": []any{"*"}, "notActions": []any{"*/read"}, "dataActions": []any{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete"}}},
			"principals":  []any{map[string]any{"id": principal}}}
		if len(excluded) > 0 {
			var list []any
			for _, x := range excluded {
				list = append(list, map[string]any{"id": x})
			}
			p["excludePrincipals"] = list
		}
		return authorization.SeedDenyAssignment{"name": sdkDenyName(i), "properties": p}
	}
	const everyone = "00000000-0000-0000-0000-000000000000"
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Now = func() time.Time { return created }
		c.Authorization.PageSize = sdkPageSize
		c.Authorization.Directory = []authorization.DirectoryEntry{{ID: sdkPrincipal1, Type: "User"}, {ID: sdkPrincipal2, Type: "ServicePrincipal"}}
		c.Authorization.DenyAssignments = []authorization.SeedDenyAssignment{
			deny(1, sdkSubScope, everyone, sdkPrincipal2),
			deny(2, sdkRGScope, sdkPrincipal1),
			deny(3, sdkRGScope, everyone, sdkPrincipal1, sdkPrincipal2),
			deny(4, sdkResourceScope, sdkPrincipal2),
			deny(5, sdkRGScope+"/providers/Microsoft.Web/sites/site1/slots/staging", sdkPrincipal1),
			deny(6, sdkSubScope+"/resourceGroups/rg-other", everyone),
		}
	}))
	sdk := newSDKEnv(t, srv.URL)
	ctx := context.Background()
	names := func(values []*armauthorization.DenyAssignment) []string {
		var out []string
		for _, d := range values {
			out = append(out, sdkDeref(d.Name))
		}
		return out
	}

	t.Run("Get", func(t *testing.T) {
		resp, err := sdk.denies.Get(ctx, sdkRGScope, sdkDenyName(3), nil)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodGet, http.StatusOK)
		d := resp.DenyAssignment
		p := d.Properties
		if sdkDeref(d.ID) != "/"+sdkRGScope+"/providers/"+sdkVendorNamespace+"/denyAssignments/"+sdkDenyName(3) || sdkDeref(d.Name) != sdkDenyName(3) ||
			sdkDeref(d.Type) != sdkVendorNamespace+"/denyAssignments" || p == nil || sdkDeref(p.Scope) != "/"+sdkRGScope || sdkDeref(p.DenyAssignmentName) != "SDK deny 3" ||
			sdkDeref(p.Description) != "made by a managed application" || sdkDeref(p.DoNotApplyToChildScopes) || !sdkDeref(p.IsSystemProtected) {
			t.Fatalf("Get = %+v %+v", d, p)
		}
		if len(p.Permissions) != 1 || len(p.Permissions[0].Actions) != 1 || *p.Permissions[0].Actions[0] != "*" || *p.Permissions[0].NotActions[0] != "*/read" || len(p.Permissions[0].DataActions) != 1 {
			t.Errorf("permissions = %+v", p.Permissions)
		}
		if len(p.Principals) != 1 || sdkDeref(p.Principals[0].ID) != everyone || sdkDeref(p.Principals[0].Type) != "SystemDefined" ||
			len(p.ExcludePrincipals) != 2 || sdkDeref(p.ExcludePrincipals[0].Type) != "User" || sdkDeref(p.ExcludePrincipals[1].Type) != "ServicePrincipal" {
			t.Errorf("principals = %+v, excluded %+v", p.Principals, p.ExcludePrincipals)
		}

		// By id, as returned and as a client spells it.
		for _, id := range []string{sdkDeref(d.ID), "/" + sdkResourceScope + "/providers/" + sdkMSNamespace + "/denyAssignments/" + sdkDenyName(4)} {
			byID, err := sdk.denies.GetByID(ctx, id, nil)
			if err != nil || sdkDeref(byID.Name) == "" {
				t.Errorf("GetByID(%s): %v", id, err)
			}
		}

		_, err = sdk.denies.Get(ctx, sdkSubScope, sdkDenyName(3), nil) // not at its scope
		sdkWantError(t, err, http.StatusNotFound, "DenyAssignmentNotFound")
		_, err = sdk.denies.GetByID(ctx, "/"+sdkRGScope+"/providers/"+sdkMSNamespace+"/denyAssignments/"+sdkDenyName(99), nil)
		sdkWantError(t, err, http.StatusNotFound, "DenyAssignmentNotFound")
	})

	t.Run("Lists", func(t *testing.T) {
		got, pages := covPages(t, sdk.denies.NewListPager(nil), func(p armauthorization.DenyAssignmentsClientListResponse) []string { return names(p.Value) })
		covWantList(t, "subscription", got, pages, sdkDenyName(1), sdkDenyName(2), sdkDenyName(3), sdkDenyName(4), sdkDenyName(5), sdkDenyName(6))
		got, pages = covPages(t, sdk.denies.NewListForResourceGroupPager("rg-sdk", nil), func(p armauthorization.DenyAssignmentsClientListForResourceGroupResponse) []string {
			return names(p.Value)
		})
		covWantList(t, "resource group", got, pages, sdkDenyName(1), sdkDenyName(2), sdkDenyName(3), sdkDenyName(4), sdkDenyName(5))
		// A top-level resource: the SDK sends its parentResourcePath empty.
		got, pages = covPages(t, sdk.denies.NewListForResourcePager("rg-sdk", "Microsoft.Storage", "", "storageAccounts", "acct1", nil),
			func(p armauthorization.DenyAssignmentsClientListForResourceResponse) []string { return names(p.Value) })
		covWantList(t, "resource", got, pages, sdkDenyName(1), sdkDenyName(2), sdkDenyName(3), sdkDenyName(4))
		got, pages = covPages(t, sdk.denies.NewListForResourcePager("rg-sdk", "Microsoft.Web", "sites/site1", "slots", "staging", nil),
			func(p armauthorization.DenyAssignmentsClientListForResourceResponse) []string { return names(p.Value) })
		covWantList(t, "nested resource", got, pages, sdkDenyName(1), sdkDenyName(2), sdkDenyName(3), sdkDenyName(5))
		got, pages = covPages(t, sdk.denies.NewListForScopePager(sdkRGScope, &armauthorization.DenyAssignmentsClientListForScopeOptions{Filter: to.Ptr("atScope()")}),
			func(p armauthorization.DenyAssignmentsClientListForScopeResponse) []string { return names(p.Value) })
		covWantList(t, "atScope()", got, pages, sdkDenyName(1), sdkDenyName(2), sdkDenyName(3))
	})

	t.Run("Filters", func(t *testing.T) {
		list := func(filter string) ([]string, int) {
			return covPages(t, sdk.denies.NewListPager(&armauthorization.DenyAssignmentsClientListOptions{Filter: to.Ptr(filter)}),
				func(p armauthorization.DenyAssignmentsClientListResponse) []string { return names(p.Value) })
		}
		got, pages := list("principalId eq '" + sdkPrincipal1 + "'")
		covWantList(t, "principalId", got, pages, sdkDenyName(2), sdkDenyName(5))
		got, pages = list("gdprExportPrincipalId eq '" + sdkPrincipal1 + "'")
		covWantList(t, "gdprExportPrincipalId", got, pages, sdkDenyName(2), sdkDenyName(3), sdkDenyName(5))
		// What applies to principal 2: All Principals' but where it is excluded, and its own.
		got, pages = list("assignedTo('" + sdkPrincipal2 + "')")
		covWantList(t, "assignedTo", got, pages, sdkDenyName(4), sdkDenyName(6))
		got, pages = list("denyAssignmentName eq 'SDK deny 1'")
		covWantList(t, "denyAssignmentName", got, pages, sdkDenyName(1))

		_, err := sdk.denies.NewListPager(&armauthorization.DenyAssignmentsClientListOptions{Filter: to.Ptr("roleName eq 'Reader'")}).NextPage(ctx)
		sdkWantError(t, err, http.StatusBadRequest, "UnsupportedQuery")
	})
}
