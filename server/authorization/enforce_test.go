package authorization_test

import (
	"net/http"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/authorization"
)

const (
	ownerOID    = "0b5e1c2d-3f40-4a51-8b62-7c83d94ea5f6"
	callerOID   = "6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d"
	strangerOID = "f0e1d2c3-b4a5-4968-8776-a5b4c3d2e1f0"
	resScope    = rgScope + "/providers/Vendor.Storage/storageAccounts/acct1"
	rg2Scope    = subScope + "/resourceGroups/rg2"
	mgScope     = "providers/Vendor.Management/managementGroups/mg1"
)

// roleID is the id of a role definition as assignments carry it.
func roleID(guid string) string {
	return "/providers/Vendor.Authorization/roleDefinitions/" + guid
}

// newEnforcedEnv runs a server that checks permissions, with ownerOID as bootstrap owner.
func newEnforcedEnv(t *testing.T) *env {
	t.Helper()
	return newEnv(t, func(c *authorization.Config) {
		c.Enforce = true
		c.BootstrapOwners = []string{ownerOID}
	})
}

// grant makes the bootstrap owner assign role to principal at scope, and returns the
// assignment's name.
func grant(t *testing.T, owner *gen.ClientWithResponses, scope, principal, role string) string {
	t.Helper()
	name := newGUID()
	mustPut(t, owner, scope, name, props(principal, roleID(role)), http.StatusCreated)
	return name
}

// op is one request against a role assignment, or a list when name is "".
type op struct {
	method string // PUT, GET, DELETE or LIST
	scope  string
	name   string
}

func (o op) action() string {
	switch o.method {
	case http.MethodPut:
		return "Vendor.Authorization/roleAssignments/write"
	case http.MethodDelete:
		return "Vendor.Authorization/roleAssignments/delete"
	}
	return "Vendor.Authorization/roleAssignments/read"
}

func (o op) target() string {
	if o.method == "LIST" {
		return "/" + o.scope + "/providers/Vendor.Authorization/roleAssignments"
	}
	return "/" + o.scope + "/providers/Vendor.Authorization/roleAssignments/" + o.name
}

// send performs o; a PUT assigns Reader to a fresh principal.
func (o op) send(t *testing.T, c *gen.ClientWithResponses) (int, []byte) {
	t.Helper()
	var (
		status int
		body   []byte
		err    error
	)
	switch o.method {
	case http.MethodPut:
		var r *gen.RoleAssignmentsCreateResponse
		r, err = c.RoleAssignmentsCreateWithResponse(ctx, o.scope, o.name, &gen.RoleAssignmentsCreateParams{ApiVersion: apiVersion},
			gen.RoleAssignmentCreateParameters{Properties: props(newGUID(), roleID(authorization.ReaderRoleID))})
		if err == nil {
			status, body = r.StatusCode(), r.Body
		}
	case http.MethodGet:
		var r *gen.RoleAssignmentsGetResponse
		r, err = c.RoleAssignmentsGetWithResponse(ctx, o.scope, o.name, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		if err == nil {
			status, body = r.StatusCode(), r.Body
		}
	case http.MethodDelete:
		var r *gen.RoleAssignmentsDeleteResponse
		r, err = c.RoleAssignmentsDeleteWithResponse(ctx, o.scope, o.name, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
		if err == nil {
			status, body = r.StatusCode(), r.Body
		}
	case "LIST":
		var r *gen.RoleAssignmentsListForScopeResponse
		r, err = c.RoleAssignmentsListForScopeWithResponse(ctx, o.scope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion})
		if err == nil {
			status, body = r.StatusCode(), r.Body
		}
	default:
		t.Fatalf("unknown method %s", o.method)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", o.method, o.target(), err)
	}
	return status, body
}

// wantForbidden checks a 403 with ARM's AuthorizationFailed message for caller and o.
func wantForbidden(t *testing.T, status int, body []byte, caller string, o op) {
	t.Helper()
	got := wantError(t, status, body, http.StatusForbidden, "AuthorizationFailed")
	for _, part := range []string{
		"The client '",
		"with object id '" + caller + "'",
		"does not have authorization",
		"'" + o.action() + "'",
		"over scope '" + o.target() + "'",
	} {
		if !strings.Contains(got.Message, part) {
			t.Errorf("message %q does not contain %q", got.Message, part)
		}
	}
}

func TestEnforceBootstrapOwner(t *testing.T) {
	e := newEnforcedEnv(t)
	owner := e.client(jwt(ownerOID), true)
	for _, scope := range []string{subScope, rgScope, resScope, rg2Scope, mgScope, "subscriptions/0b1f6471-1bf0-4dda-aec3-0000000000e1"} {
		t.Run(scope, func(t *testing.T) {
			name := newGUID()
			for _, tt := range []struct {
				op   op
				want int
			}{
				{op{http.MethodPut, scope, name}, http.StatusCreated},
				{op{http.MethodGet, scope, name}, http.StatusOK},
				{op{"LIST", scope, ""}, http.StatusOK},
				{op{http.MethodDelete, scope, name}, http.StatusOK},
			} {
				if got, body := tt.op.send(t, owner); got != tt.want {
					t.Errorf("%s %s: got %d, want %d: %s", tt.op.method, tt.op.target(), got, tt.want, body)
				}
			}
		})
	}
	t.Run("owner id in another case", func(t *testing.T) {
		upper := e.client(jwt(strings.ToUpper(ownerOID)), true)
		mustPut(t, upper, rgScope, newGUID(), props(newGUID(), roleID(authorization.ReaderRoleID)), http.StatusCreated)
	})
}

func TestEnforceNoAssignment(t *testing.T) {
	e := newEnforcedEnv(t)
	owner := e.client(jwt(ownerOID), true)
	stranger := e.client(jwt(strangerOID), true)
	existing := grant(t, owner, rgScope, principal1, authorization.ReaderRoleID)
	fresh := newGUID()

	for _, o := range []op{
		{http.MethodPut, rgScope, fresh},
		{http.MethodPut, resScope, fresh},
		{http.MethodPut, subScope, fresh},
		{http.MethodPut, mgScope, fresh},
		{http.MethodGet, rgScope, existing},
		{http.MethodDelete, rgScope, existing},
		{"LIST", rgScope, ""},
	} {
		t.Run(o.method+" "+o.scope, func(t *testing.T) {
			status, body := o.send(t, stranger)
			wantForbidden(t, status, body, strangerOID, o)
		})
	}
	t.Run("the message is ARM's", func(t *testing.T) {
		o := op{http.MethodPut, rgScope, fresh}
		status, body := o.send(t, stranger)
		got := wantError(t, status, body, http.StatusForbidden, "AuthorizationFailed")
		want := "The client 'someone@example.com' with object id '" + strangerOID + "' does not have authorization or an ABAC condition not fulfilled to perform action 'Vendor.Authorization/roleAssignments/write' over scope '/" + rgScope + "/providers/Vendor.Authorization/roleAssignments/" + fresh + "' or the scope is invalid. If access was recently granted, please refresh your credentials."
		if got.Message != want {
			t.Errorf("got %q, want %q", got.Message, want)
		}
	})
	t.Run("nothing was written", func(t *testing.T) {
		resp, err := owner.RoleAssignmentsGetWithResponse(ctx, rgScope, fresh, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, resp.StatusCode(), resp.Body, http.StatusNotFound, "RoleAssignmentNotFound")
		get, err := owner.RoleAssignmentsGetWithResponse(ctx, rgScope, existing, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		if err != nil || get.StatusCode() != http.StatusOK {
			t.Fatalf("the assignment the stranger tried to delete: %v %d %s", err, get.StatusCode(), get.Body)
		}
	})
	t.Run("an unmapped opaque token is the default principal, who holds nothing", func(t *testing.T) {
		o := op{http.MethodPut, rgScope, fresh}
		status, body := o.send(t, e.client("opaque", true))
		wantForbidden(t, status, body, authorization.DefaultConfig().DefaultPrincipal, o)
	})
}

// TestEnforceRoles grants the caller one role at one scope and checks what it may then do.
func TestEnforceRoles(t *testing.T) {
	const (
		mPut, mGet, mDel, mList = http.MethodPut, http.MethodGet, http.MethodDelete, "LIST"
		allowed, forbidden      = true, false
	)
	tests := []struct {
		name    string
		role    string
		grantAt string
		method  string
		at      string
		want    bool
	}{
		{"Reader at the subscription reads below", authorization.ReaderRoleID, subScope, mGet, rgScope, allowed},
		{"Reader at the subscription lists below", authorization.ReaderRoleID, subScope, mList, rgScope, allowed},
		{"Reader at the subscription reads at it", authorization.ReaderRoleID, subScope, mGet, subScope, allowed},
		{"Reader at the subscription reads a resource", authorization.ReaderRoleID, subScope, mGet, resScope, allowed},
		{"Reader cannot write", authorization.ReaderRoleID, subScope, mPut, rgScope, forbidden},
		{"Reader cannot delete", authorization.ReaderRoleID, subScope, mDel, rgScope, forbidden},
		{"Reader at a resource group cannot read above", authorization.ReaderRoleID, rgScope, mGet, subScope, forbidden},

		{"UAA at a resource group writes there", authorization.UserAccessAdministratorRoleID, rgScope, mPut, rgScope, allowed},
		{"UAA at a resource group writes on a resource below", authorization.UserAccessAdministratorRoleID, rgScope, mPut, resScope, allowed},
		{"UAA at a resource group deletes there", authorization.UserAccessAdministratorRoleID, rgScope, mDel, rgScope, allowed},
		{"UAA at a resource group reads there", authorization.UserAccessAdministratorRoleID, rgScope, mGet, rgScope, allowed},
		{"UAA at a resource group cannot write at the subscription", authorization.UserAccessAdministratorRoleID, rgScope, mPut, subScope, forbidden},
		{"UAA at a resource group cannot write at another one", authorization.UserAccessAdministratorRoleID, rgScope, mPut, rg2Scope, forbidden},
		{"UAA at rg1 cannot write at rg10 (shared prefix)", authorization.UserAccessAdministratorRoleID, rgScope, mPut, rgScope + "0", forbidden},
		{"UAA at a resource cannot write at its resource group", authorization.UserAccessAdministratorRoleID, resScope, mPut, rgScope, forbidden},
		{"UAA at a management group does not reach a subscription", authorization.UserAccessAdministratorRoleID, mgScope, mPut, subScope, forbidden},
		{"UAA at a management group writes there", authorization.UserAccessAdministratorRoleID, mgScope, mPut, mgScope, allowed},

		{"Contributor cannot write role assignments", authorization.ContributorRoleID, subScope, mPut, rgScope, forbidden},
		{"Contributor cannot write at its own scope", authorization.ContributorRoleID, subScope, mPut, subScope, forbidden},
		{"Contributor cannot delete role assignments", authorization.ContributorRoleID, subScope, mDel, rgScope, forbidden},
		{"Contributor reads role assignments", authorization.ContributorRoleID, subScope, mGet, rgScope, allowed},
		{"Contributor lists role assignments", authorization.ContributorRoleID, subScope, mList, rgScope, allowed},

		{"RBAC Administrator writes", authorization.RBACAdministratorRoleID, subScope, mPut, rgScope, allowed},
		{"RBAC Administrator deletes", authorization.RBACAdministratorRoleID, subScope, mDel, rgScope, allowed},
		{"RBAC Administrator reads", authorization.RBACAdministratorRoleID, subScope, mGet, resScope, allowed},
		{"RBAC Administrator cannot write above", authorization.RBACAdministratorRoleID, rgScope, mPut, subScope, forbidden},

		{"Owner at a resource group writes below", authorization.OwnerRoleID, rgScope, mPut, resScope, allowed},
		{"Owner at a resource group cannot write above", authorization.OwnerRoleID, rgScope, mPut, subScope, forbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnforcedEnv(t)
			owner := e.client(jwt(ownerOID), true)
			caller := e.client(jwt(callerOID), true)
			grant(t, owner, tt.grantAt, callerOID, tt.role)
			o := op{method: tt.method, scope: tt.at}
			wantStatus := http.StatusOK
			switch tt.method {
			case mPut:
				o.name, wantStatus = newGUID(), http.StatusCreated
			case mGet, mDel:
				o.name = grant(t, owner, tt.at, principal1, authorization.ReaderRoleID)
			}
			status, body := o.send(t, caller)
			if !tt.want {
				wantForbidden(t, status, body, callerOID, o)
				return
			}
			if status != wantStatus {
				t.Fatalf("%s %s: got %d, want %d: %s", o.method, o.target(), status, wantStatus, body)
			}
		})
	}
}

func TestEnforceReaderSeesAssignments(t *testing.T) {
	e := newEnforcedEnv(t)
	owner := e.client(jwt(ownerOID), true)
	reader := e.client(jwt(callerOID), true)
	mine := grant(t, owner, subScope, callerOID, authorization.ReaderRoleID)
	other := grant(t, owner, rgScope, principal1, authorization.ReaderRoleID)

	resp, err := reader.RoleAssignmentsListForScopeWithResponse(ctx, rgScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion})
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("list: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	var got []string
	for _, a := range resp.JSON200.Value {
		got = append(got, *a.Name)
	}
	if len(got) != 2 || !contains(got, mine) || !contains(got, other) {
		t.Errorf("got %v, want [%s %s] in any order", got, mine, other)
	}

	// Failed writes leave everything as it was.
	del, err := reader.RoleAssignmentsDeleteWithResponse(ctx, rgScope, other, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
	if err != nil {
		t.Fatal(err)
	}
	wantForbidden(t, del.StatusCode(), del.Body, callerOID, op{http.MethodDelete, rgScope, other})
	upd := props(principal1, roleID(authorization.ReaderRoleID))
	upd.Description = ptr("changed by a reader")
	resp2 := put(t, reader, rgScope, other, upd)
	wantForbidden(t, resp2.StatusCode(), resp2.Body, callerOID, op{http.MethodPut, rgScope, other})
	get, err := owner.RoleAssignmentsGetWithResponse(ctx, rgScope, other, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
	if err != nil || get.StatusCode() != http.StatusOK {
		t.Fatalf("get: %v %d %s", err, get.StatusCode(), get.Body)
	}
	if d := get.JSON200.Properties.Description; d != nil {
		t.Errorf("description = %q, want none", *d)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestEnforceCaseInsensitive(t *testing.T) {
	e := newEnforcedEnv(t)
	owner := e.client(jwt(ownerOID), true)
	// Granted with the principal and the scope in upper case, used in lower case.
	grant(t, owner, strings.ToUpper(rgScope), strings.ToUpper(callerOID), authorization.UserAccessAdministratorRoleID)
	caller := e.client(jwt(callerOID), true)
	mustPut(t, caller, strings.ToLower(resScope), newGUID(), props(principal1, roleID(authorization.ReaderRoleID)), http.StatusCreated)
	// And the other way round: the token's oid in upper case.
	upper := e.client(jwt(strings.ToUpper(callerOID)), true)
	mustPut(t, upper, rgScope, newGUID(), props(principal2, roleID(authorization.ReaderRoleID)), http.StatusCreated)
}

func TestEnforceRevocation(t *testing.T) {
	e := newEnforcedEnv(t)
	owner := e.client(jwt(ownerOID), true)
	caller := e.client(jwt(callerOID), true)
	granted := grant(t, owner, subScope, callerOID, authorization.RBACAdministratorRoleID)

	mustPut(t, caller, rgScope, newGUID(), props(principal1, roleID(authorization.ReaderRoleID)), http.StatusCreated)

	resp, err := owner.RoleAssignmentsDeleteWithResponse(ctx, subScope, granted, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("delete the grant: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	o := op{http.MethodPut, rgScope, newGUID()}
	status, body := o.send(t, caller)
	wantForbidden(t, status, body, callerOID, o)

	t.Run("a caller may delete the assignment that gives it access, then has none", func(t *testing.T) {
		self := grant(t, owner, subScope, callerOID, authorization.RBACAdministratorRoleID)
		resp, err := caller.RoleAssignmentsDeleteWithResponse(ctx, subScope, self, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
		if err != nil || resp.StatusCode() != http.StatusOK {
			t.Fatalf("delete own grant: %v %d %s", err, resp.StatusCode(), resp.Body)
		}
		o := op{http.MethodPut, rgScope, newGUID()}
		status, body := o.send(t, caller)
		wantForbidden(t, status, body, callerOID, o)
	})
}

func TestEnforceOffByDefault(t *testing.T) {
	e := newEnv(t)
	for _, tk := range []struct{ name, token string }{
		{"JWT", jwt(strangerOID)},
		{"another JWT", jwt(newGUID())},
		{"opaque token", "opaque-token"},
	} {
		token := tk.token
		t.Run(tk.name, func(t *testing.T) {
			c := e.client(token, true)
			for _, scope := range []string{subScope, rgScope, resScope, mgScope} {
				name := newGUID()
				for _, tt := range []struct {
					op   op
					want int
				}{
					{op{http.MethodPut, scope, name}, http.StatusCreated},
					{op{http.MethodGet, scope, name}, http.StatusOK},
					{op{"LIST", scope, ""}, http.StatusOK},
					{op{http.MethodDelete, scope, name}, http.StatusOK},
				} {
					if got, body := tt.op.send(t, c); got != tt.want {
						t.Errorf("%s %s: got %d, want %d: %s", tt.op.method, tt.op.target(), got, tt.want, body)
					}
				}
			}
		})
	}
}
