package authorization_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/authorization"
)

// putRole makes the custom role guid through client c at the subscription.
func putRole(t *testing.T, c *gen.ClientWithResponses, guid, name string, perm gen.Permission, scopes ...string) *gen.RoleDefinitionsCreateOrUpdateResponse {
	t.Helper()
	resp, err := c.RoleDefinitionsCreateOrUpdateWithResponse(ctx, subScope, guid, &gen.RoleDefinitionsCreateOrUpdateParams{ApiVersion: apiVersion},
		gen.RoleDefinition{Properties: &gen.RoleDefinitionProperties{RoleName: &name, Permissions: []gen.Permission{perm}, AssignableScopes: scopes}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestEnforceCustomRoles: under enforcement a custom role grants what its actions say, with
// wildcards, minus its notActions; a change to the role changes what its assignments grant,
// and managing custom roles takes roleDefinitions/write and /delete.
func TestEnforceCustomRoles(t *testing.T) {
	e := newEnforcedEnv(t)
	owner := e.client(jwt(ownerOID), true)
	const (
		operator   = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"
		roleGUID   = "4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7a"
		writerGUID = "4d5e6f7a-8b9c-4d0e-8f1a-2b3c4d5e6f7b"
	)
	// Role assignment and definition writes, but not deletes (one wildcard an action string).
	perm := gen.Permission{Actions: []string{"Vendor.Authorization/roleAssignments/*", "Vendor.Authorization/roleDefinitions/*"}, NotActions: []string{"*/delete"}}
	if r := putRole(t, owner, roleGUID, "Assignment Writer", perm, "/"+subScope); r.StatusCode() != 201 {
		t.Fatalf("%d %s", r.StatusCode(), r.Body)
	}
	grant(t, owner, rgScope, operator, roleGUID)
	op := e.client(jwt(operator), true)

	name := newGUID()
	mustPut(t, op, rgScope, name, props(principal2, readerID), http.StatusCreated)
	r, _ := op.RoleAssignmentsGetWithResponse(ctx, rgScope, name, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
	if r.StatusCode() != 200 {
		t.Errorf("read under the role: %d %s", r.StatusCode(), r.Body)
	}
	d, _ := op.RoleAssignmentsDeleteWithResponse(ctx, rgScope, name, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
	wantError(t, d.StatusCode(), d.Body, 403, "AuthorizationFailed")
	// Only in the resource group it was assigned at.
	s := put(t, op, subScope, newGUID(), props(principal2, readerID))
	wantError(t, s.StatusCode(), s.Body, 403, "AuthorizationFailed")
	// The role's actions also cover roleDefinitions/write: it may make roles at the resource group...
	g, _ := op.RoleDefinitionsCreateOrUpdateWithResponse(ctx, rgScope, writerGUID, &gen.RoleDefinitionsCreateOrUpdateParams{ApiVersion: apiVersion},
		gen.RoleDefinition{Properties: &gen.RoleDefinitionProperties{RoleName: ptr("Group Role"), AssignableScopes: []string{"/" + rgScope}}})
	if g.StatusCode() != 201 {
		t.Errorf("role write at the resource group: %d %s", g.StatusCode(), g.Body)
	}
	// ...but not delete them (notActions */delete).
	dr, _ := op.RoleDefinitionsDeleteWithResponse(ctx, rgScope, writerGUID, &gen.RoleDefinitionsDeleteParams{ApiVersion: apiVersion})
	wantError(t, dr.StatusCode(), dr.Body, 403, "AuthorizationFailed")

	// Narrowing the role takes effect at once.
	perm.NotActions = append(perm.NotActions, "Vendor.Authorization/roleAssignments/write")
	if r := putRole(t, owner, roleGUID, "Assignment Writer", perm, "/"+subScope); r.StatusCode() != 201 {
		t.Fatalf("%d %s", r.StatusCode(), r.Body)
	}
	again := put(t, op, rgScope, newGUID(), props(principal2, readerID))
	wantError(t, again.StatusCode(), again.Body, 403, "AuthorizationFailed")

	// A caller without a role cannot make custom roles.
	nobody := e.client(jwt("5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"), true)
	w := putRole(t, nobody, newGUID(), "Nope", gen.Permission{Actions: []string{"*/read"}}, "/"+subScope)
	got := wantError(t, w.StatusCode(), w.Body, 403, "AuthorizationFailed")
	if want := "Vendor.Authorization/roleDefinitions/write"; !strings.Contains(got.Message, want) {
		t.Errorf("message %q does not name %s", got.Message, want)
	}
}

// TestDataActions: dataActions grant data actions, minus notDataActions, and never
// control-plane actions; actions never grant data actions.
func TestDataActions(t *testing.T) {
	blob := authorization.RoleDefinition{DataActions: []string{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/*"},
		NotDataActions: []string{"*/delete"}}
	owner := authorization.RoleDefinition{Actions: []string{"*"}}
	for _, tt := range []struct {
		role       authorization.RoleDefinition
		action     string
		data, ctrl bool
	}{
		{blob, "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read", true, false},
		{blob, "MICROSOFT.STORAGE/storageAccounts/blobServices/containers/blobs/write", true, false},
		{blob, "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete", false, false},
		{owner, "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read", false, true},
	} {
		t.Run(tt.action, func(t *testing.T) {
			if got := tt.role.AllowsData(tt.action); got != tt.data {
				t.Errorf("AllowsData = %v, want %v", got, tt.data)
			}
			if got := tt.role.Allows(tt.action); got != tt.ctrl {
				t.Errorf("Allows = %v, want %v", got, tt.ctrl)
			}
		})
	}
	// The catalog's data roles carry their data actions.
	for _, r := range authorization.BuiltInRoles() {
		if r.Name == "Storage Blob Data Reader" && !r.AllowsData("Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read") {
			t.Error("Storage Blob Data Reader does not read blobs")
		}
		if r.Name == "Key Vault Secrets User" && (!r.AllowsData("Microsoft.KeyVault/vaults/secrets/getSecret/action") || r.AllowsData("Microsoft.KeyVault/vaults/secrets/setSecret/action")) {
			t.Error("Key Vault Secrets User's data actions are wrong")
		}
	}
}

// TestRaceCustomRoleNames: racing creates of one name under different ids make exactly one
// role; racing deletes of a role and assignments of it never leave an assignment of a
// deleted role.
func TestRaceCustomRoleNames(t *testing.T) {
	const n = 32
	e := newEnv(t)
	c := e.client("token", true)
	results := stampede(n, func(i int) func() outcome {
		guid := fmt.Sprintf("9a9a9a9a-0000-4000-8000-%012d", i)
		return func() outcome {
			r := putRole(t, c, guid, "Racer", gen.Permission{Actions: []string{"*/read"}}, "/"+subScope)
			return outcomeOf(r.StatusCode(), r.Body, nil)
		}
	})
	got := tally(t, results)
	if want := map[string]int{"201": 1, "409 RoleDefinitionWithSameNameExists": n - 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}

	for round := range 8 {
		guid := fmt.Sprintf("8b8b8b8b-0000-4000-8000-%012d", round)
		if r := putRole(t, c, guid, fmt.Sprintf("Short-lived %d", round), gen.Permission{Actions: []string{"*/read"}}, "/"+subScope); r.StatusCode() != 201 {
			t.Fatalf("%d %s", r.StatusCode(), r.Body)
		}
		names := make([]string, n)
		results := stampede(n, func(i int) func() outcome {
			names[i] = newGUID()
			if i == 0 {
				return func() outcome {
					r, err := c.RoleDefinitionsDeleteWithResponse(ctx, subScope, guid, &gen.RoleDefinitionsDeleteParams{ApiVersion: apiVersion})
					if err != nil {
						return outcome{err: err}
					}
					return outcomeOf(r.StatusCode(), r.Body, nil)
				}
			}
			return func() outcome {
				r := put(t, c, rgScope, names[i], props(newGUID(), roleID(guid)))
				return outcomeOf(r.StatusCode(), r.Body, nil)
			}
		})
		roleGone := results[0].status == http.StatusOK
		assigned := 0
		for _, r := range results[1:] {
			if r.status == http.StatusCreated {
				assigned++
			}
		}
		if roleGone && assigned > 0 {
			// Each assignment must have come before the delete, which then had to refuse.
			t.Fatalf("round %d: the role was deleted and %d assignments of it were made", round, assigned)
		}
		if !roleGone && results[0].code != "RoleDefinitionHasAssignments" {
			t.Fatalf("round %d: delete: %d %s", round, results[0].status, results[0].code)
		}
	}
}

// TestCustomRoleAssignableScopeLimits: ARM's custom role limits on assignableScopes. A
// request may not make a custom role assignable at the root "/" (a seed may: see
// TestRoleDefinitions), and a custom role has at most one management group there.
func TestCustomRoleAssignableScopeLimits(t *testing.T) {
	e := newEnv(t)
	const guid = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8c"
	mg := func(id string) string { return `"/providers/Microsoft.Management/managementGroups/` + id + `"` }
	for _, tt := range []struct {
		name, scopes string
		want         int
		code, msg    string
	}{
		{"the root", `["/"]`, 400, "InvalidAssignableScope",
			"The assignable scope '/' is not allowed for a custom role definition. Use management groups, subscriptions, resource groups or resources."},
		{"the root beside a subscription", `["/` + subScope + `", "/"]`, 400, "InvalidAssignableScope", ""},
		{"two management groups", `[` + mg("mg1") + `, "/` + subScope + `", ` + mg("mg2") + `]`, 400, "InvalidAssignableScopes",
			"A custom role definition can have only one management group in its assignable scopes; this one has '/providers/Microsoft.Management/managementGroups/mg1' and '/providers/Microsoft.Management/managementGroups/mg2'."},
		{"two management groups, in the other provider spelling", `[` + mg("mg1") + `, "/providers/Vendor.Management/managementGroups/MG3"]`, 400, "InvalidAssignableScopes", ""},
		{"one management group and a subscription", `[` + mg("mg1") + `, "/` + subScope + `"]`, 201, "", ""},
		{"one management group named twice", `[` + mg("mg1") + `, "/providers/Vendor.Management/managementGroups/MG1"]`, 201, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, got := e.do(t, http.MethodPut, "/"+subScope+"/providers/Vendor.Authorization/roleDefinitions/"+guid+"?api-version="+apiVersion,
				`{"properties":{"roleName":"Scoped","permissions":[{"actions":["*/read"]}],"assignableScopes":`+tt.scopes+`}}`)
			if st != tt.want {
				t.Fatalf("%d %v, want %d", st, got, tt.want)
			}
			if tt.want == 400 {
				wantErrorMembers(t, got, tt.code, tt.msg)
				if target, _ := member(got, "error", "target"); target != "properties.assignableScopes" {
					t.Errorf("target %v", target)
				}
			}
		})
	}
}

// TestCustomRoleActionWildcards: an action string of a custom role holds one wildcard at
// most (ARM's custom role limits), refused in ARM's words: InvalidActionOrNotAction for
// actions and notActions, InvalidDataActionOrNotDataAction for the data lists.
func TestCustomRoleActionWildcards(t *testing.T) {
	e := newEnv(t)
	const guid = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8d"
	for _, tt := range []struct {
		list, action string
		want         int
		code         string
	}{
		{"actions", "Microsoft.CostManagement/*/query/*", 400, "InvalidActionOrNotAction"},
		{"notActions", "*/delete/*", 400, "InvalidActionOrNotAction"},
		{"dataActions", "Microsoft.Storage/*/blobs/*", 400, "InvalidDataActionOrNotDataAction"},
		{"notDataActions", "Microsoft.Storage/**", 400, "InvalidDataActionOrNotDataAction"},
		{"actions", "Microsoft.CostManagement/exports/*", 201, ""},
		{"notActions", "*/delete", 201, ""},
		{"dataActions", "*", 201, ""},
	} {
		t.Run(tt.list+" "+tt.action, func(t *testing.T) {
			perm := `"actions":["*/read"],"` + tt.list + `":["Microsoft.Compute/virtualMachines/read","` + tt.action + `"]`
			if tt.list == "actions" {
				perm = `"actions":["Microsoft.Compute/virtualMachines/read","` + tt.action + `"]`
			}
			st, got := e.do(t, http.MethodPut, "/"+subScope+"/providers/Vendor.Authorization/roleDefinitions/"+guid+"?api-version="+apiVersion,
				`{"properties":{"roleName":"Wild","permissions":[{`+perm+`}],"assignableScopes":["/`+subScope+`"]}}`)
			if st != tt.want {
				t.Fatalf("%d %v, want %d", st, got, tt.want)
			}
			if tt.want == 400 {
				wantErrorMembers(t, got, tt.code, "'"+tt.action+"' contains multiple wildcards. Only one is allowed.")
			}
		})
	}
}

// TestCustomDataRoleAtManagementGroup: a custom role with dataActions may be assignable at a
// management group, but is not assigned at one; ARM refuses it in these words
// (netr0m/az-pim-cli#97). Below the group, and for built-in or control-plane roles, it is.
func TestCustomDataRoleAtManagementGroup(t *testing.T) {
	const (
		mgScope  = "providers/Microsoft.Management/managementGroups/mg-data"
		dataRole = "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b90"
		ctrlRole = "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b91"
		notData  = "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b92"
		blobData = "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1" // Storage Blob Data Reader, built in
	)
	e := newEnv(t, func(c *authorization.Config) {
		c.ManagementGroups = []authorization.ManagementGroup{{ID: "mg-data", Subscriptions: []string{sub}}}
	})
	for guid, perm := range map[string]string{
		dataRole: `"actions":["*/read"],"dataActions":["Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"]`,
		ctrlRole: `"actions":["*/read"]`,
		notData:  `"actions":["*/read"],"notDataActions":["Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write"]`,
	} {
		if st, got := e.do(t, http.MethodPut, "/"+mgScope+"/providers/Vendor.Authorization/roleDefinitions/"+guid+"?api-version="+apiVersion,
			`{"properties":{"roleName":"MG `+guid[len(guid)-2:]+`","permissions":[{`+perm+`}],"assignableScopes":["/`+mgScope+`"]}}`); st != 201 {
			t.Fatalf("role %s: %d %v", guid, st, got)
		}
	}
	for i, tt := range []struct {
		scope, role string
		want        int
	}{
		{mgScope, dataRole, 400},
		{"providers/Vendor.Management/managementGroups/MG-DATA", dataRole, 400},
		{subScope, dataRole, 201},
		{rgScope, dataRole, 201},
		{mgScope, ctrlRole, 201},
		{mgScope, notData, 201},
		{mgScope, blobData, 201},
	} {
		t.Run(tt.scope+" "+tt.role, func(t *testing.T) {
			path := "/" + tt.scope + fmt.Sprintf("/providers/Vendor.Authorization/roleAssignments/da7a0000-aaaa-4bbb-8ccc-00000000000%d?api-version=", i) + apiVersion
			st, got := e.do(t, http.MethodPut, path, `{"properties":{"principalId":"`+principal2+`","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/`+tt.role+`"}}`)
			if st != tt.want {
				t.Fatalf("%d %v, want %d", st, got, tt.want)
			}
			if tt.want != 400 {
				return
			}
			if code, _ := member(got, "error", "code"); code != "InvalidCreateRoleAssignmentRequest" {
				t.Errorf("code %v", code)
			}
			if msg, _ := member(got, "error", "message"); msg != "Role assignments to Management Groups can not be made to custom role definitions with DataActions" {
				t.Errorf("message %q", msg)
			}
		})
	}
}

// wantErrorMembers checks an ARM error body's code and, unless msg is empty, its message.
func wantErrorMembers(t *testing.T, got map[string]any, code, msg string) {
	t.Helper()
	if c, _ := member(got, "error", "code"); c != code {
		t.Errorf("code %v, want %s", c, code)
	}
	if m, _ := member(got, "error", "message"); msg != "" && m != msg {
		t.Errorf("message %q,\nwant    %q", m, msg)
	}
}
