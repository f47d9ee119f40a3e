package authorization_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/authorization"
)

func TestRoleDefinitions(t *testing.T) {
	custom := authorization.SeedRole{"id": "33333333-3333-4333-8333-333333333333", "roleName": "Storage Reader",
		"actions": []string{"Vendor.Storage/*/read"}, "assignableScopes": []string{"/" + rgScope}}
	e := newEnv(t, func(c *authorization.Config) { c.RoleDefinitions = []authorization.SeedRole{custom} })
	c := e.client("token", true)

	t.Run("get by id, the form assignments return", func(t *testing.T) {
		resp, err := c.RoleDefinitionsGetByIdWithResponse(ctx, authorization.ReaderRoleID, &gen.RoleDefinitionsGetByIdParams{ApiVersion: apiVersion})
		if err != nil || resp.StatusCode() != http.StatusOK {
			t.Fatalf("%v %d %s", err, resp.StatusCode(), resp.Body)
		}
		got := resp.JSON200
		if *got.Id != "/providers/Vendor.Authorization/roleDefinitions/"+authorization.ReaderRoleID || *got.Type != "Vendor.Authorization/roleDefinitions" ||
			*got.Properties.RoleName != "Reader" || *got.Properties.Type != "BuiltInRole" || got.Properties.Permissions[0].Actions[0] != "*/read" {
			t.Errorf("reader = %s", resp.Body)
		}
	})
	t.Run("get at a scope", func(t *testing.T) {
		resp, _ := c.RoleDefinitionsGetWithResponse(ctx, subScope, authorization.OwnerRoleID, &gen.RoleDefinitionsGetParams{ApiVersion: apiVersion})
		if resp.StatusCode() != 200 || *resp.JSON200.Properties.RoleName != "Owner" {
			t.Errorf("owner: %d %s", resp.StatusCode(), resp.Body)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		resp, _ := c.RoleDefinitionsGetByIdWithResponse(ctx, "11111111-2222-3333-4444-555555555555", &gen.RoleDefinitionsGetByIdParams{ApiVersion: apiVersion})
		got := wantError(t, resp.StatusCode(), resp.Body, 404, "RoleDefinitionDoesNotExist")
		if got.Message != "The specified role definition with ID '11111111-2222-3333-4444-555555555555' does not exist." {
			t.Errorf("message = %q", got.Message)
		}
	})
	names := func(scope, filter string) []string {
		resp, err := c.RoleDefinitionsListWithResponse(ctx, scope, &gen.RoleDefinitionsListParams{ApiVersion: apiVersion, Filter: &filter})
		if err != nil || resp.StatusCode() != 200 {
			t.Fatalf("%q: %v %s", filter, err, resp.Body)
		}
		var out []string
		for _, r := range resp.JSON200.Value {
			out = append(out, *r.Properties.RoleName)
		}
		return out
	}
	// Every built-in role assignable at "/" is assignable in a subscription; the few the
	// vendor makes assignable elsewhere only (Reservations under /providers/Microsoft.Capacity,
	// Service Group roles under /providers/Microsoft.Management/serviceGroups) are not.
	builtIns := 0
	for _, r := range authorization.BuiltInRoles() {
		if slices.Contains(r.AssignableScopes, "/") {
			builtIns++
		}
	}
	below := rgScope + "/providers/Vendor.Storage/storageAccounts/a"
	t.Run("list: built-ins everywhere, a custom role only where assignable", func(t *testing.T) {
		if got := names(subScope, ""); len(got) != builtIns || slices.Contains(got, "Storage Reader") || !slices.Contains(got, "AcrPull") {
			t.Errorf("at the subscription: %d roles, want the %d built-ins", len(got), builtIns)
		}
		if got := names(below, ""); len(got) != builtIns+1 || !slices.Contains(got, "Storage Reader") {
			t.Errorf("below the custom role's scope: %d roles, want %d", len(got), builtIns+1)
		}
		if got := names(subScope, ""); !slices.IsSorted(got) {
			t.Error("the list is not in name order")
		}
	})
	t.Run("list filtered by role name, any case", func(t *testing.T) {
		for _, name := range []string{"contributor", "ACRPULL", "Reader and Data Access"} {
			f := "roleName eq '" + name + "'"
			resp, _ := c.RoleDefinitionsListWithResponse(ctx, subScope, &gen.RoleDefinitionsListParams{ApiVersion: apiVersion, Filter: &f})
			if resp.StatusCode() != 200 || len(resp.JSON200.Value) != 1 || !strings.EqualFold(*resp.JSON200.Value[0].Properties.RoleName, name) {
				t.Errorf("%s: %d %.300s", f, resp.StatusCode(), resp.Body)
			}
		}
	})
	t.Run("list filtered by type, and below the scope", func(t *testing.T) {
		if got := names(below, "type eq 'CustomRole'"); len(got) != 1 || got[0] != "Storage Reader" {
			t.Errorf("custom roles below the role's scope: %v", got)
		}
		if got := names(subScope, "type eq 'CustomRole'"); len(got) != 0 {
			t.Errorf("custom roles at the subscription: %v, want none (assignable only in the resource group)", got)
		}
		if got := names(below, "type eq 'builtinrole'"); len(got) != builtIns || slices.Contains(got, "Storage Reader") {
			t.Errorf("built-in roles: %d, want the %d", len(got), builtIns)
		}
		if got := names(subScope, "atScopeAndBelow()"); len(got) != builtIns+1 || !slices.Contains(got, "Storage Reader") {
			t.Errorf("at the subscription and below: %d, want the built-ins and the custom role", len(got))
		}
		if got := names("subscriptions/0b1e2d3c-4a5b-4c6d-8e7f-901a2b3c4d5e", "atScopeAndBelow()"); len(got) != builtIns {
			t.Errorf("another subscription and below: %d, want the built-ins", len(got))
		}
		if got := names(below, "roleName eq 'storage reader' and type eq 'CustomRole'"); !slices.Equal(got, []string{"Storage Reader"}) {
			t.Errorf("name and type: %v", got)
		}
		if got := names(below, "roleName eq 'Storage Reader' and type eq 'BuiltInRole'"); len(got) != 0 {
			t.Errorf("a custom role's name with the built-in type: %v", got)
		}
	})
	t.Run("the tenant root lists every role, custom ones wherever assignable", func(t *testing.T) {
		for filter, want := range map[string][]string{
			"type eq 'CustomRole'": {"Storage Reader"},
			"roleName eq 'reader'": {"Reader"},
			"roleName eq ''":       nil, // a name no role has, not no filter
		} {
			params := &gen.RoleDefinitionsListAtTenantParams{ApiVersion: apiVersion}
			if filter != "" {
				params.Filter = &filter
			}
			resp, err := c.RoleDefinitionsListAtTenantWithResponse(ctx, params)
			if err != nil || resp.StatusCode() != 200 {
				t.Fatalf("%q: %v %s", filter, err, resp.Body)
			}
			var got []string
			for _, r := range resp.JSON200.Value {
				got = append(got, *r.Properties.RoleName)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q: %v, want %v", filter, got, want)
			}
		}
		resp, err := c.RoleDefinitionsListAtTenantWithResponse(ctx, &gen.RoleDefinitionsListAtTenantParams{ApiVersion: apiVersion})
		if err != nil || resp.StatusCode() != 200 || len(resp.JSON200.Value) != len(authorization.BuiltInRoles())+1 {
			t.Errorf("every role: %v %d", err, len(resp.JSON200.Value))
		}
	})
	t.Run("unsupported filter", func(t *testing.T) {
		f := "roleName eq 'Reader' and roleName eq 'Owner'"
		resp, _ := c.RoleDefinitionsListWithResponse(ctx, subScope, &gen.RoleDefinitionsListParams{ApiVersion: apiVersion, Filter: &f})
		wantError(t, resp.StatusCode(), resp.Body, 400, "UnsupportedQuery")
	})
	t.Run("a custom role does not exist outside its assignable scopes", func(t *testing.T) {
		resp, _ := c.RoleDefinitionsGetWithResponse(ctx, subScope, custom.GUID(), &gen.RoleDefinitionsGetParams{ApiVersion: apiVersion})
		wantError(t, resp.StatusCode(), resp.Body, 404, "RoleDefinitionDoesNotExist")
		resp, _ = c.RoleDefinitionsGetWithResponse(ctx, rgScope, custom.GUID(), &gen.RoleDefinitionsGetParams{ApiVersion: apiVersion})
		if resp.StatusCode() != 200 {
			t.Errorf("in its resource group: %d %s", resp.StatusCode(), resp.Body)
		}
		put := put(t, c, subScope, name2, props(principal1, "/providers/Vendor.Authorization/roleDefinitions/"+custom.GUID()))
		if got := wantError(t, put.StatusCode(), put.Body, 400, "RoleDefinitionDoesNotExist"); got.Target == nil || *got.Target != "properties.roleDefinitionId" {
			t.Errorf("target = %v", got.Target)
		}
	})
	t.Run("a custom role can be assigned where assignable", func(t *testing.T) {
		mustPut(t, c, rgScope, name1, props(principal1, "/providers/Vendor.Authorization/roleDefinitions/"+custom.GUID()), http.StatusCreated)
	})
}
