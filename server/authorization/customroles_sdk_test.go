package authorization_test

// Custom role definitions and the built-in catalog through the vendor's own Go SDK
// (armauthorization/v2's RoleDefinitionsClient, api-version 2022-04-01), with the namespace
// policy of sdk_test.go.

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	"github.com/understudy-dev/understudy/understudytest"
)

func TestCustomRolesSDK(t *testing.T) {
	srv := understudytest.Start(t)
	sdk := newSDKEnv(t, srv.URL)
	ctx := context.Background()

	const (
		roleID    = "5d6e7f80-1a2b-4c3d-8e4f-a0b1c2d3e4f5"
		otherID   = "5d6e7f80-1a2b-4c3d-8e4f-a0b1c2d3e4f6"
		acrPullID = "7f951dda-4ed3-4680-a7ca-43fe172d538d"
		nameA     = "6e7f8091-2b3c-4d4e-8f50-b1c2d3e4f5a1"
		nameB     = "6e7f8091-2b3c-4d4e-8f50-b1c2d3e4f5a2"
	)
	subScopeID := "/" + sdkSubScope
	role := func(name, description string, scopes ...string) armauthorization.RoleDefinition {
		return armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
			RoleName: to.Ptr(name), Description: to.Ptr(description), RoleType: to.Ptr("CustomRole"),
			Permissions: []*armauthorization.Permission{{
				Actions:     to.SliceOfPtrs("Microsoft.Storage/storageAccounts/*/read", "Microsoft.Authorization/*/read"),
				NotActions:  to.SliceOfPtrs("Microsoft.Storage/storageAccounts/listKeys/action"),
				DataActions: to.SliceOfPtrs("Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"),
			}},
			AssignableScopes: to.SliceOfPtrs(scopes...),
		}}
	}

	t.Run("Create", func(t *testing.T) {
		resp, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, roleID, role("Blob Auditor", "reads blobs", subScopeID), nil)
		if err != nil {
			t.Fatalf("CreateOrUpdate: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
		p := resp.Properties
		if sdkDeref(resp.Name) != roleID || sdkDeref(resp.ID) != "/providers/"+sdkVendorNamespace+"/roleDefinitions/"+roleID ||
			sdkDeref(p.RoleName) != "Blob Auditor" || sdkDeref(p.RoleType) != "CustomRole" || sdkDeref(p.Description) != "reads blobs" ||
			len(p.Permissions) != 1 || sdkDeref(p.Permissions[0].Actions[1]) != sdkVendorNamespace+"/*/read" ||
			sdkDeref(p.Permissions[0].DataActions[0]) != "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read" ||
			len(p.AssignableScopes) != 1 || sdkDeref(p.AssignableScopes[0]) != subScopeID {
			t.Errorf("created role: %+v", *p)
		}
	})
	t.Run("UpdateIs201Too", func(t *testing.T) {
		resp, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, roleID, role("Blob Auditor", "reads blobs, v2", subScopeID), nil)
		if err != nil {
			t.Fatalf("CreateOrUpdate (update): %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
		if sdkDeref(resp.Properties.Description) != "reads blobs, v2" {
			t.Errorf("description = %q", sdkDeref(resp.Properties.Description))
		}
	})
	t.Run("GetAndGetByID", func(t *testing.T) {
		got, err := sdk.definitions.Get(ctx, sdkRGScope, roleID, nil)
		if err != nil || sdkDeref(got.Properties.Description) != "reads blobs, v2" {
			t.Fatalf("Get below its assignable scope: %v", err)
		}
		byID, err := sdk.definitions.GetByID(ctx, "/"+sdkSubScope+"/providers/"+sdkMSNamespace+"/roleDefinitions/"+roleID, nil)
		if err != nil || sdkDeref(byID.Properties.RoleName) != "Blob Auditor" {
			t.Fatalf("GetByID: %v", err)
		}
		_, err = sdk.definitions.Get(ctx, "subscriptions/0b1e2d3c-4a5b-4c6d-8e7f-901a2b3c4d5e", roleID, nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleDefinitionDoesNotExist")
	})
	t.Run("ListByNameAndType", func(t *testing.T) {
		for filter, want := range map[string][]string{
			"roleName eq 'blob auditor'": {"Blob Auditor"},
			"type eq 'CustomRole'":       {"Blob Auditor"},
			"roleName eq 'AcrPull'":      {"AcrPull"},
			"roleName eq 'Key Vault Secrets User' and type eq 'BuiltInRole'": {"Key Vault Secrets User"},
		} {
			var got []string
			pager := sdk.definitions.NewListPager(sdkSubScope, &armauthorization.RoleDefinitionsClientListOptions{Filter: to.Ptr(filter)})
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					t.Fatalf("%s: %v", filter, err)
				}
				for _, r := range page.Value {
					got = append(got, sdkDeref(r.Properties.RoleName))
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: %v, want %v", filter, got, want)
			}
		}
	})
	t.Run("SameNameOtherID", func(t *testing.T) {
		_, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, otherID, role("BLOB AUDITOR", "a copy", subScopeID), nil)
		sdkWantError(t, err, http.StatusConflict, "RoleDefinitionWithSameNameExists")
		_, err = sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, otherID, role("reader", "a built-in's name", subScopeID), nil)
		sdkWantError(t, err, http.StatusConflict, "RoleDefinitionWithSameNameExists")
	})
	t.Run("BuiltInIsReadOnly", func(t *testing.T) {
		_, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, acrPullID, role("AcrPull", "mine now", subScopeID), nil)
		sdkWantError(t, err, http.StatusBadRequest, "BuiltInRoleDefinitionCannotBeModified")
		_, err = sdk.definitions.Delete(ctx, sdkSubScope, acrPullID, nil)
		sdkWantError(t, err, http.StatusBadRequest, "BuiltInRoleDefinitionCannotBeModified")
	})
	t.Run("AssignableScopesMustBeScopes", func(t *testing.T) {
		_, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, otherID, role("Nowhere", "", "/subscriptions/not-a-guid"), nil)
		sdkWantError(t, err, http.StatusBadRequest, "InvalidAssignableScope")
		_, err = sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, otherID, role("Nowhere", ""), nil)
		sdkWantError(t, err, http.StatusBadRequest, "InvalidAssignableScopes")
	})
	t.Run("AssignCustomAndCatalogRoles", func(t *testing.T) {
		for name, guid := range map[string]string{nameA: roleID, nameB: acrPullID} {
			p := sdkCreateParams(sdkPrincipal1, "")
			p.Properties.RoleDefinitionID = to.Ptr("/" + sdkSubScope + "/providers/" + sdkMSNamespace + "/roleDefinitions/" + guid)
			if _, err := sdk.assignments.Create(ctx, sdkRGScope, name, p, nil); err != nil {
				t.Fatalf("assign %s: %v", guid, err)
			}
		}
	})
	t.Run("DeleteWhileAssigned", func(t *testing.T) {
		_, err := sdk.definitions.Delete(ctx, sdkSubScope, roleID, nil)
		sdkWantError(t, err, http.StatusConflict, "RoleDefinitionHasAssignments")
	})
	t.Run("NarrowWhileAssigned", func(t *testing.T) {
		// The role is assigned in rg-sdk: a scope list that leaves it out is refused, naming
		// the scope being removed, and the role is as it was; one that keeps it is taken.
		_, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, roleID, role("Blob Auditor", "reads blobs", subScopeID+"/resourceGroups/other"), nil)
		sdkWantError(t, err, http.StatusConflict, "RoleScopeBeingRemovedContainsAssignments")
		if err == nil || !strings.Contains(err.Error(), "Role assignments found under scope '"+subScopeID+"' which is being removed.") {
			t.Errorf("message: %v", err)
		}
		got, err := sdk.definitions.Get(ctx, sdkSubScope, roleID, nil)
		if err != nil || len(got.Properties.AssignableScopes) != 1 || sdkDeref(got.Properties.AssignableScopes[0]) != subScopeID {
			t.Fatalf("after the refusal: %v %+v", err, got)
		}
		for _, scopes := range [][]string{{"/" + sdkRGScope}, {subScopeID}} {
			if _, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, roleID, role("Blob Auditor", "reads blobs", scopes...), nil); err != nil {
				t.Fatalf("assignable at %v: %v", scopes, err)
			}
		}
	})
	t.Run("Delete", func(t *testing.T) {
		if _, err := sdk.assignments.Delete(ctx, sdkRGScope, nameA, nil); err != nil {
			t.Fatal(err)
		}
		resp, err := sdk.definitions.Delete(ctx, sdkSubScope, roleID, nil)
		if err != nil || sdkDeref(resp.Properties.RoleName) != "Blob Auditor" {
			t.Fatalf("Delete: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusOK)
		if _, err := sdk.definitions.Delete(ctx, sdkSubScope, roleID, nil); err != nil {
			t.Fatalf("Delete again: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusNoContent)
		_, err = sdk.definitions.GetByID(ctx, "/providers/"+sdkMSNamespace+"/roleDefinitions/"+roleID, nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleDefinitionDoesNotExist")
		// The name is free again.
		if _, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, otherID, role("Blob Auditor", "again", subScopeID), nil); err != nil {
			t.Fatalf("reuse the name: %v", err)
		}
	})
}

// sdkVersionPolicy sends every request with its api-version, as clients built on other
// versions of the REST specification do (a widely used infrastructure tool reads role
// definitions with 2022-05-01-preview).
type sdkVersionPolicy string

func (v sdkVersionPolicy) Do(req *policy.Request) (*http.Response, error) {
	q := req.Raw().URL.Query()
	q.Set("api-version", string(v))
	req.Raw().URL.RawQuery = q.Encode()
	return req.Next()
}

// TestSDKOtherAPIVersions: the SDK's clients, made to send other api-versions, read what
// the server answers in each version's shape.
func TestSDKOtherAPIVersions(t *testing.T) {
	srv := understudytest.Start(t)
	ctx := context.Background()
	base := newSDKEnv(t, srv.URL)
	const roleID = "5d6e7f80-1a2b-4c3d-8e4f-a0b1c2d3e4f7"
	if _, err := base.definitions.CreateOrUpdate(ctx, sdkSubScope, roleID, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr("Versioned Reader"), AssignableScopes: to.SliceOfPtrs("/" + sdkSubScope),
		Permissions: []*armauthorization.Permission{{Actions: to.SliceOfPtrs("*/read"), DataActions: to.SliceOfPtrs("Microsoft.Storage/*/read")}},
	}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := base.assignments.Create(ctx, sdkRGScope, "6e7f8091-2b3c-4d4e-8f50-b1c2d3e4f5b1", sdkCreateParams(sdkPrincipal1, "described"), nil); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"2015-07-01", "2018-01-01-preview", "2022-05-01-preview"} {
		t.Run(v, func(t *testing.T) {
			sdk := newSDKEnvWith(t, srv.URL, sdkVersionPolicy(v))
			rd, err := sdk.definitions.GetByID(ctx, "/providers/"+sdkMSNamespace+"/roleDefinitions/"+roleID, nil)
			if err != nil {
				t.Fatalf("GetByID: %v", err)
			}
			if got := len(rd.Properties.Permissions[0].DataActions) > 0; got != (v != "2015-07-01") {
				t.Errorf("dataActions present = %v", got)
			}
			ra, err := sdk.assignments.Get(ctx, sdkRGScope, "6e7f8091-2b3c-4d4e-8f50-b1c2d3e4f5b1", nil)
			if err != nil {
				t.Fatalf("Get assignment: %v", err)
			}
			if got := ra.Properties.Description != nil; got != (v == "2022-05-01-preview") {
				t.Errorf("description present = %v", got)
			}
			if sdkDeref(ra.Properties.PrincipalID) != sdkPrincipal1 {
				t.Errorf("principalId = %q", sdkDeref(ra.Properties.PrincipalID))
			}
		})
	}
}
