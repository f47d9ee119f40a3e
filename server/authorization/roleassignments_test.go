package authorization_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server/authorization"
)

func TestCreateThenUpdate(t *testing.T) {
	e := newEnv(t)
	caller := "6f8bbbb4-9e2b-4b35-a3ad-0c0b0a5a8d27"
	c := e.client(jwt(caller), true)

	p := props(principal1, readerID)
	p.Description = ptr("first")
	got := mustPut(t, c, rgScope, name1, p, http.StatusCreated)

	wantID := "/" + rgScope + "/providers/Vendor.Authorization/roleAssignments/" + name1
	checks := []struct{ field, got, want string }{
		{"id", *got.Id, wantID},
		{"name", *got.Name, name1},
		{"type", *got.Type, "Vendor.Authorization/roleAssignments"},
		{"properties.scope", *got.Properties.Scope, "/" + rgScope},
		{"properties.roleDefinitionId", got.Properties.RoleDefinitionId, "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID},
		{"properties.principalId", got.Properties.PrincipalId, principal1},
		{"properties.principalType", string(*got.Properties.PrincipalType), "User"},
		{"properties.description", *got.Properties.Description, "first"},
		{"properties.createdBy", *got.Properties.CreatedBy, caller},
		{"properties.updatedBy", *got.Properties.UpdatedBy, caller},
		{"systemData.createdBy", *got.SystemData.CreatedBy, caller},
		{"systemData.createdByType", string(*got.SystemData.CreatedByType), "User"},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s = %q, want %q", ck.field, ck.got, ck.want)
		}
	}
	if got.Properties.CreatedOn == nil || time.Since(*got.Properties.CreatedOn) > time.Minute {
		t.Errorf("createdOn = %v, want about now", got.Properties.CreatedOn)
	}

	// Same name, scope, principal and role: the mutable fields change, createdOn stays.
	time.Sleep(2 * time.Millisecond)
	p.Description = ptr("second")
	p.PrincipalType = ptr(gen.PrincipalTypeGroup)
	p.Condition = ptr("@Resource[Vendor.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'")
	updated := mustPut(t, c, rgScope, name1, p, http.StatusOK)
	if *updated.Properties.Description != "second" || *updated.Properties.PrincipalType != gen.PrincipalTypeGroup {
		t.Errorf("update did not apply: %+v", updated.Properties)
	}
	if v := updated.Properties.ConditionVersion; v == nil || *v != "2.0" {
		t.Errorf("conditionVersion = %v, want the default 2.0", v)
	}
	if !updated.Properties.CreatedOn.Equal(*got.Properties.CreatedOn) {
		t.Errorf("createdOn changed on update: %v -> %v", got.Properties.CreatedOn, updated.Properties.CreatedOn)
	}
	if !updated.Properties.UpdatedOn.After(*got.Properties.UpdatedOn) {
		t.Errorf("updatedOn did not move: %v -> %v", got.Properties.UpdatedOn, updated.Properties.UpdatedOn)
	}

	// A PUT that changes nothing is still 200.
	mustPut(t, c, rgScope, name1, p, http.StatusOK)

	// Get returns what was stored.
	resp, err := c.RoleAssignmentsGetWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("get: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	if *resp.JSON200.Properties.Description != "second" || *resp.JSON200.Id != wantID {
		t.Errorf("get returned %+v", resp.JSON200)
	}
}

func TestCreateRules(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	mustPut(t, c, rgScope, name1, props(principal1, readerID), http.StatusCreated)

	longCondition := "@Resource[a:b] StringEquals '" + strings.Repeat("x", 8200) + "'"
	tests := []struct {
		name       string
		scope      string
		assignment string
		props      gen.RoleAssignmentProperties
		wantStatus int
		wantCode   string
	}{
		{"name not a GUID", rgScope, "not-a-guid", props(principal1, readerID), 400, "InvalidRoleAssignmentId"},
		{"principal not a GUID", rgScope, name2, props("alice", readerID), 400, "InvalidPrincipalId"},
		{"role definition not an id", rgScope, name2, props(principal2, authorization.ReaderRoleID), 400, "InvalidRoleDefinitionId"},
		{"role definition of another provider", rgScope, name2, props(principal2, "/providers/Vendor.Compute/roleDefinitions/"+authorization.ReaderRoleID), 400, "InvalidRoleDefinitionId"},
		{"role definition behind something that is not a scope", rgScope, name2, props(principal2, "/tenants/x/providers/Vendor.Authorization/roleDefinitions/"+authorization.ReaderRoleID), 400, "InvalidRoleDefinitionId"},
		{"scope word spelled with a Unicode look-alike", "\u017fubscriptions/" + sub, name2, props(principal2, readerID), 400, "InvalidScope"},
		{"role definition unknown", rgScope, name2, props(principal2, "/providers/Vendor.Authorization/roleDefinitions/11111111-2222-3333-4444-555555555555"), 400, "RoleDefinitionDoesNotExist"},
		{"principal cannot change", rgScope, name1, props(principal2, readerID), 400, "RoleAssignmentUpdateNotPermitted"},
		{"role cannot change", rgScope, name1, props(principal1, "/providers/Vendor.Authorization/roleDefinitions/"+authorization.OwnerRoleID), 400, "RoleAssignmentUpdateNotPermitted"},
		{"scope cannot change", subScope, name1, props(principal1, readerID), 400, "RoleAssignmentUpdateNotPermitted"},
		{"second name for a triple", rgScope, name2, props(principal1, readerID), 409, "RoleAssignmentExists"},
		{"second name for a triple, with a condition", rgScope, name2, withCondition(props(principal1, readerID), "@Resource[a:b] StringEquals 'x'", ""), 409, "RoleAssignmentExists"},
		{"version without condition", rgScope, name2, withCondition(props(principal2, readerID), "", "2.0"), 400, "InvalidRoleAssignmentCondition"},
		{"version 1.0", rgScope, name2, withCondition(props(principal2, readerID), "@Resource[a:b] StringEquals 'x'", "1.0"), 400, "InvalidRoleAssignmentCondition"},
		{"condition that does not parse", rgScope, name2, withCondition(props(principal2, readerID), "@Resource[a:b] StringEquals", "2.0"), 400, "InvalidRoleAssignmentCondition"},
		{"condition over 8 KiB", rgScope, name2, withCondition(props(principal2, readerID), longCondition, "2.0"), 400, "InvalidRequestContent"},
		{"description over 2048", rgScope, name2, withDescription(props(principal2, readerID), strings.Repeat("d", 2049)), 400, "InvalidRequestContent"},
		{"scope of unknown shape", "tenants/x", name2, props(principal2, readerID), 400, "InvalidScope"},
		{"scope with an empty segment", "subscriptions//resourceGroups/rg", name2, props(principal2, readerID), 400, "InvalidScope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := put(t, c, tt.scope, tt.assignment, tt.props)
			wantError(t, resp.StatusCode(), resp.Body, tt.wantStatus, tt.wantCode)
		})
	}

	t.Run("invalid role definition id in ARM's words", func(t *testing.T) {
		for id, shown := range map[string]string{
			"/" + subScope + "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID + "|": authorization.ReaderRoleID + "|",
			authorization.ReaderRoleID: authorization.ReaderRoleID,
		} {
			resp := put(t, c, rgScope, name2, props(principal2, id))
			e := wantError(t, resp.StatusCode(), resp.Body, 400, "InvalidRoleDefinitionId")
			if want := "The role definition ID '" + shown + "' is not valid."; e.Message != want {
				t.Errorf("%s: message %q, want %q", id, e.Message, want)
			}
		}
	})
	t.Run("condition error says where", func(t *testing.T) {
		resp := put(t, c, rgScope, name2, withCondition(props(principal2, readerID), "@Resource[a:b] StringEquals", ""))
		e := wantError(t, resp.StatusCode(), resp.Body, 400, "InvalidRoleAssignmentCondition")
		if e.Message != "The given role assignment condition is invalid." || len(e.Details) != 1 || !strings.Contains(e.Details[0].Message, "offset") {
			t.Errorf("error = %+v, want ARM's message and a detail naming the offset", e)
		}
	})
	t.Run("nothing was stored by the failures", func(t *testing.T) {
		resp, _ := c.RoleAssignmentsGetWithResponse(ctx, rgScope, name2, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		wantError(t, resp.StatusCode(), resp.Body, 404, "RoleAssignmentNotFound")
		got, _ := c.RoleAssignmentsGetWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		if got.StatusCode() != 200 || got.JSON200.Properties.PrincipalId != principal1 {
			t.Errorf("the first assignment changed: %s", got.Body)
		}
	})
}

// TestTripleIsScopeRolePrincipal: one assignment per (scope, role, principal), and only that:
// a principal holds other roles at the scope, and the role at other scopes.
func TestTripleIsScopeRolePrincipal(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	owner := "/providers/Vendor.Authorization/roleDefinitions/" + authorization.OwnerRoleID
	mustPut(t, c, rgScope, name1, props(principal1, readerID), http.StatusCreated)
	mustPut(t, c, rgScope, name2, props(principal1, owner), http.StatusCreated)
	mustPut(t, c, subScope, "c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f9", props(principal1, readerID), http.StatusCreated)
	mustPut(t, c, rgScope, "c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7fa", props(principal2, readerID), http.StatusCreated)
	resp := put(t, c, strings.ToUpper(rgScope[:1])+rgScope[1:], "c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7fb", props(strings.ToUpper(principal1), owner))
	wantError(t, resp.StatusCode(), resp.Body, 409, "RoleAssignmentExists")
}

func withCondition(p gen.RoleAssignmentProperties, cond, version string) gen.RoleAssignmentProperties {
	if cond != "" {
		p.Condition = &cond
	}
	if version != "" {
		p.ConditionVersion = &version
	}
	return p
}

func withDescription(p gen.RoleAssignmentProperties, d string) gen.RoleAssignmentProperties {
	p.Description = &d
	return p
}

func TestRoleDefinitionIDForms(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	forms := []string{
		"/subscriptions/" + sub + "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID,
		"/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID,
		"/" + rgScope + "/providers/Vendor.Authorization/roleDefinitions/" + strings.ToUpper(authorization.ReaderRoleID),
		"/providers/vendor.authorization/ROLEDEFINITIONS/" + authorization.ReaderRoleID,
	}
	principals := []string{principal1, principal2, "0a1b2c3d-0000-4000-8000-000000000001", "0a1b2c3d-0000-4000-8000-000000000002"}
	names := []string{name1, name2, "0a1b2c3d-0000-4000-8000-0000000000a1", "0a1b2c3d-0000-4000-8000-0000000000a2"}
	for i, form := range forms {
		got := mustPut(t, c, rgScope, names[i], props(principals[i], form), http.StatusCreated)
		if want := "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID; got.Properties.RoleDefinitionId != want {
			t.Errorf("%s returned as %s, want %s", form, got.Properties.RoleDefinitionId, want)
		}
	}
}

func TestReadOnlyFieldsAreIgnored(t *testing.T) {
	e := newEnv(t)
	c := e.client(jwt(principal2), true)
	p := props(principal1, readerID)
	p.Scope = ptr("/subscriptions/somewhere-else")
	p.CreatedBy = ptr("mallory")
	p.CreatedOn = ptr(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
	got := mustPut(t, c, rgScope, name1, p, http.StatusCreated)
	if *got.Properties.Scope != "/"+rgScope || *got.Properties.CreatedBy != principal2 || got.Properties.CreatedOn.Year() == 2000 {
		t.Errorf("read-only fields were taken from the request: %+v", got.Properties)
	}
}

func TestGetAndDelete(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", false)
	mustPut(t, c, rgScope, name1, props(principal1, readerID), http.StatusCreated)

	t.Run("get at another scope is not found", func(t *testing.T) {
		resp, _ := c.RoleAssignmentsGetWithResponse(ctx, subScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		got := wantError(t, resp.StatusCode(), resp.Body, 404, "RoleAssignmentNotFound")
		if got.Message != "The role assignment '"+name1+"' is not found." {
			t.Errorf("message = %q", got.Message)
		}
	})
	t.Run("get of a name that is not a GUID", func(t *testing.T) {
		resp, _ := c.RoleAssignmentsGetWithResponse(ctx, rgScope, "x", &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		wantError(t, resp.StatusCode(), resp.Body, 400, "InvalidRoleAssignmentId")
	})
	t.Run("delete returns the deleted assignment, then 204", func(t *testing.T) {
		resp, err := c.RoleAssignmentsDeleteWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
		if err != nil || resp.StatusCode() != 200 || resp.JSON200.Properties.PrincipalId != principal1 {
			t.Fatalf("delete: %v %d %s", err, resp.StatusCode(), resp.Body)
		}
		again, _ := c.RoleAssignmentsDeleteWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
		if again.StatusCode() != http.StatusNoContent || len(again.Body) != 0 {
			t.Fatalf("second delete: %d %s, want 204 and no body", again.StatusCode(), again.Body)
		}
		get, _ := c.RoleAssignmentsGetWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		wantError(t, get.StatusCode(), get.Body, 404, "RoleAssignmentNotFound")
	})
	t.Run("the triple is free again after a delete", func(t *testing.T) {
		mustPut(t, c, rgScope, name2, props(principal1, readerID), http.StatusCreated)
	})
	t.Run("delete of a name that is not a GUID", func(t *testing.T) {
		resp, _ := c.RoleAssignmentsDeleteWithResponse(ctx, rgScope, "x", &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
		wantError(t, resp.StatusCode(), resp.Body, 400, "InvalidRoleAssignmentId")
	})
}

func TestLimitPerSubscription(t *testing.T) {
	e := newEnv(t, func(c *authorization.Config) { c.MaxPerSubscription = 2 })
	c := e.client("token", true)
	mustPut(t, c, rgScope, name1, props(principal1, readerID), http.StatusCreated)
	mustPut(t, c, subScope, name2, props(principal2, readerID), http.StatusCreated)
	resp := put(t, c, rgScope, "0a1b2c3d-0000-4000-8000-0000000000a1", props("0a1b2c3d-0000-4000-8000-000000000001", readerID))
	wantError(t, resp.StatusCode(), resp.Body, 400, "RoleAssignmentLimitExceeded")
	// Updating an existing assignment is not a new one.
	mustPut(t, c, rgScope, name1, withDescription(props(principal1, readerID), "still fine"), http.StatusOK)
	// Another subscription has its own count.
	mustPut(t, c, "subscriptions/0b1f6471-1bf0-4dda-aec3-0000000000e1", "0a1b2c3d-0000-4000-8000-0000000000a1", props(principal1, readerID), http.StatusCreated)
}

func TestAPIVersionAndAuthentication(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	body := gen.RoleAssignmentCreateParameters{Properties: props(principal1, readerID)}

	t.Run("missing api-version", func(t *testing.T) {
		resp, _ := c.RoleAssignmentsCreateWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsCreateParams{}, body)
		got := wantError(t, resp.StatusCode(), resp.Body, 400, "MissingApiVersionParameter")
		if got.Message != "The api-version query parameter (?api-version=) is required for all requests." {
			t.Errorf("message = %q", got.Message)
		}
	})
	t.Run("unsupported api-version", func(t *testing.T) {
		resp, _ := c.RoleAssignmentsCreateWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsCreateParams{ApiVersion: "2019-01-01"}, body)
		got := wantError(t, resp.StatusCode(), resp.Body, 400, "NoRegisteredProviderFound")
		if !strings.Contains(got.Message, "'2019-01-01'") || !strings.Contains(got.Message, "2022-04-01") {
			t.Errorf("message %q should name the asked and the supported versions", got.Message)
		}
	})
	t.Run("no Authorization header", func(t *testing.T) {
		anon := e.client("", true)
		resp, _ := anon.RoleAssignmentsCreateWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsCreateParams{ApiVersion: apiVersion}, body)
		got := wantError(t, resp.StatusCode(), resp.Body, 401, "AuthenticationFailed")
		if got.Message != "Authentication failed. The 'Authorization' header is missing." {
			t.Errorf("message = %q", got.Message)
		}
	})
	t.Run("not a bearer token", func(t *testing.T) {
		basic, err := gen.NewClientWithResponses(e.srv.URL, gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Basic dXNlcjpwYXNz")
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		resp, _ := basic.RoleAssignmentsGetWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
		wantError(t, resp.StatusCode(), resp.Body, 401, "AuthenticationFailedInvalidHeader")
	})
	t.Run("a token the seed does not know is the default principal", func(t *testing.T) {
		got := mustPut(t, c, rgScope, name1, props(principal1, readerID), http.StatusCreated)
		if *got.Properties.CreatedBy != authorization.DefaultConfig().DefaultPrincipal {
			t.Errorf("createdBy = %s", *got.Properties.CreatedBy)
		}
	})
}

func TestTokenMappedInConfig(t *testing.T) {
	e := newEnv(t, func(c *authorization.Config) {
		c.Tokens = map[string]authorization.Principal{"alice-token": {ID: principal2, Name: "alice@example.com"}}
	})
	got := mustPut(t, e.client("alice-token", true), rgScope, name1, props(principal1, readerID), http.StatusCreated)
	if *got.Properties.CreatedBy != principal2 {
		t.Errorf("createdBy = %s, want the mapped principal %s", *got.Properties.CreatedBy, principal2)
	}
}

// TestLoneSurrogateEscapes: a JSON string may spell characters as escapes, and a UTF-16
// surrogate pair is one character; a lone surrogate is none, and is refused naming the
// member instead of being stored as U+FFFD (what Go's decoder would make of it).
func TestLoneSurrogateEscapes(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: spectest.Transport(t, spec, nil)}
	putRaw := func(name, description string) (int, []byte) {
		t.Helper()
		body := `{"properties":{"principalId":"` + principal2 + `","roleDefinitionId":"` + readerID + `","description":"` + description + `"}}`
		req, _ := http.NewRequest(http.MethodPut, e.srv.URL+"/"+rgScope+"/providers/Vendor.Authorization/roleAssignments/"+name+"?api-version="+apiVersion, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer token")
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, d := range []string{`\ud800`, `tail \udfff`, `\ud83d\u0041`, `\\\ud800`} {
		status, body := putRaw(name1, d)
		got := wantError(t, status, body, http.StatusBadRequest, "InvalidRequestContent")
		if got.Target == nil || *got.Target != "properties.description" || !strings.Contains(got.Message, "surrogate") {
			t.Errorf("%s: target %v, message %q; want properties.description and what is wrong", d, got.Target, got.Message)
		}
	}
	resp, _ := c.RoleAssignmentsGetWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
	wantError(t, resp.StatusCode(), resp.Body, http.StatusNotFound, "RoleAssignmentNotFound")

	// A pair, and the same text sent as \\ud800 (an escaped backslash): both are text.
	if status, body := putRaw(name1, `caf\u00e9 \ud83d\ude00 \\ud800`); status != http.StatusCreated {
		t.Fatalf("%d %s", status, body)
	}
	got, _ := c.RoleAssignmentsGetWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
	if d := got.JSON200.Properties.Description; d == nil || *d != `café 😀 \ud800` {
		t.Errorf("description stored as %q", deref(d))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
