package server_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

const exampleRoleID = "0b5fe924-9a61-425c-96af-cfe6e287ca2d"

// exampleDo sends one ARM request to srv and decodes its JSON answer.
func exampleDo(t *testing.T, srv *understudytest.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	return exampleDoAs(t, srv, "example-token", method, path, body)
}

// exampleDoAs is exampleDo with the bearer token given.
func exampleDoAs(t *testing.T, srv *understudytest.Server, token, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %s", method, path, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, out
}

// TestVendorCreateExampleOnADefaultServer: on a server started as the binary starts (the
// built-in seed), the vendor's role-assignment Create example, sent as it is, creates the
// assignment: the role it names, 0b5fe924-..., is the built-in seed's read-only custom role,
// assignable everywhere. Without the built-in seed it does not exist.
func TestVendorCreateExampleOnADefaultServer(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("authorization", "testdata", "examples", "RoleAssignments_CreateForSubscription.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Parameters struct {
			Scope      string          `json:"scope"`
			Name       string          `json:"roleAssignmentName"`
			APIVersion string          `json:"api-version"`
			Body       json.RawMessage `json:"parameters"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatal(err)
	}
	p := ex.Parameters
	path := "/" + p.Scope + "/providers/Vendor.Authorization/roleAssignments/" + p.Name + "?api-version=" + p.APIVersion

	bare := understudytest.Start(t)
	if st, got := exampleDo(t, bare, http.MethodPut, path, string(p.Body)); st != 400 || got["error"].(map[string]any)["code"] != "RoleDefinitionDoesNotExist" {
		t.Errorf("without the built-in seed: %d %v, want 400 RoleDefinitionDoesNotExist", st, got)
	}

	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		if err := server.DefaultSeed().Apply(c, nil); err != nil {
			t.Fatal(err)
		}
	}))
	st, got := exampleDo(t, srv, http.MethodPut, path, string(p.Body))
	if st != 201 {
		t.Fatalf("the vendor's example: %d %v, want 201", st, got)
	}
	if rd := got["properties"].(map[string]any)["roleDefinitionId"]; rd != "/providers/Vendor.Authorization/roleDefinitions/"+exampleRoleID {
		t.Errorf("roleDefinitionId %v", rd)
	}
	if st, _ := exampleDo(t, srv, http.MethodPut, path, string(p.Body)); st != 200 {
		t.Errorf("the example again: %d, want 200 (documented)", st)
	}

	// The role: a custom role, assignable at /, that only reads.
	st, role := exampleDo(t, srv, http.MethodGet, "/providers/Vendor.Authorization/roleDefinitions/"+exampleRoleID+"?api-version=2022-04-01", "")
	if st != 200 {
		t.Fatalf("the example role: %d %v", st, role)
	}
	props := role["properties"].(map[string]any)
	perms, _ := json.Marshal(props["permissions"])
	scopes, _ := json.Marshal(props["assignableScopes"])
	if props["roleName"] != "Example Role (vendor REST examples)" || props["type"] != "CustomRole" ||
		string(perms) != `[{"actions":["*/read"]}]` || string(scopes) != `["/"]` {
		t.Errorf("the example role: %v %s %s", props, perms, scopes)
	}
	st, list := exampleDo(t, srv, http.MethodGet, "/"+p.Scope+"/providers/Vendor.Authorization/roleDefinitions?api-version=2022-04-01&$filter=type%20eq%20'CustomRole'", "")
	if vals, _ := list["value"].([]any); st != 200 || len(vals) != 1 || vals[0].(map[string]any)["name"] != exampleRoleID {
		t.Errorf("custom roles of a default server: %d %v", st, list)
	}
	// What the assignment grants its principal: reads, there and below.
	var body struct {
		Properties struct {
			PrincipalID string `json:"principalId"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(p.Body, &body); err != nil {
		t.Fatal(err)
	}
	claims, _ := json.Marshal(map[string]string{"oid": body.Properties.PrincipalID})
	token := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + base64.RawURLEncoding.EncodeToString(claims) + ".x"
	st, perm := exampleDoAs(t, srv, token, http.MethodGet, "/"+p.Scope+"/resourceGroups/rg1/providers/Vendor.Authorization/permissions?api-version=2022-04-01", "")
	if b, _ := json.Marshal(perm["value"]); st != 200 || string(b) != `[{"actions":["*/read"]}]` {
		t.Errorf("the example principal's permissions: %d %s", st, b)
	}
}
