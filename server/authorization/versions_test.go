package authorization_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server/authorization"
)

// do sends a raw request with a bearer token and returns the status and the body decoded as
// a JSON object (nil when there is none).
func (e *env) do(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	code, raw := e.send(t, method, path, "token", body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: %d, not JSON: %s", method, path, code, raw)
		}
	}
	return code, out
}

// send sends a raw request to path (on the server, or a whole URL of it) with the bearer
// token and returns the status and the body.
func (e *env) send(t *testing.T, method, path, token, body string) (int, []byte) {
	t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = e.srv.URL + path
	}
	req, err := http.NewRequest(method, path, strings.NewReader(body))
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
	return resp.StatusCode, raw
}

func member(m map[string]any, path ...string) (any, bool) {
	var v any = m
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = o[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// TestAPIVersions: every api-version the REST specification defines answers, in its own
// shape; others are refused with ARM's error naming the supported ones.
func TestAPIVersions(t *testing.T) {
	e := newEnv(t)
	const roleGUID = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"
	assignment := func(v string) string {
		return "/" + rgScope + "/providers/Vendor.Authorization/roleAssignments/" + name1 + "?api-version=" + v
	}
	body := `{"properties":{"principalId":"` + principal1 + `","roleDefinitionId":"` + readerID + `","principalType":"Group","description":"d","condition":"@Resource[Microsoft.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'"}}`
	if st, got := e.do(t, http.MethodPut, assignment("2022-04-01"), body); st != 201 {
		t.Fatalf("create: %d %v", st, got)
	}
	roleBody := `{"properties":{"roleName":"Versioned","permissions":[{"actions":["Microsoft.Compute/*/read"],"dataActions":["Microsoft.Storage/*/read"]}],"assignableScopes":["/` + subScope + `"]}}`
	if st, got := e.do(t, http.MethodPut, "/"+subScope+"/providers/Vendor.Authorization/roleDefinitions/"+roleGUID+"?api-version=2022-04-01", roleBody); st != 201 {
		t.Fatalf("create role: %d %v", st, got)
	}

	assignmentTests := []struct {
		version                            string
		principalType, description, system bool
	}{
		{"2015-07-01", false, false, false},
		{"2017-10-01-preview", false, false, false},
		{"2018-01-01-preview", false, false, false},
		{"2018-09-01-preview", true, false, false},
		{"2020-03-01-preview", true, true, false},
		{"2020-04-01-preview", true, true, false},
		{"2020-08-01-preview", true, true, false},
		{"2020-10-01-preview", true, true, false},
		{"2022-04-01", true, true, true},
		{"2022-05-01-preview", true, true, true},
		{"2022-04-01", true, true, true},
	}
	for _, tt := range assignmentTests {
		t.Run("role assignment "+tt.version, func(t *testing.T) {
			for _, path := range []string{assignment(tt.version), "/" + rgScope + "/providers/Vendor.Authorization/roleAssignments?api-version=" + tt.version} {
				st, got := e.do(t, http.MethodGet, path, "")
				if st != 200 {
					t.Fatalf("GET %s: %d %v", path, st, got)
				}
				if v, ok := got["value"].([]any); ok { // the list: its first entry
					got = v[0].(map[string]any)
				}
				if rd, _ := member(got, "properties", "roleDefinitionId"); rd != "/providers/Vendor.Authorization/roleDefinitions/"+authorization.ReaderRoleID {
					t.Errorf("roleDefinitionId = %v", rd)
				}
				for _, m := range []struct {
					path []string
					want bool
				}{
					{[]string{"properties", "principalType"}, tt.principalType},
					{[]string{"properties", "description"}, tt.description},
					{[]string{"properties", "condition"}, tt.description},
					{[]string{"properties", "createdOn"}, tt.description},
					{[]string{"properties", "updatedBy"}, tt.description},
					{[]string{"systemData"}, tt.system},
				} {
					if _, ok := member(got, m.path...); ok != m.want {
						t.Errorf("%s: %v present = %v, want %v", path, m.path, ok, m.want)
					}
				}
			}
		})
	}

	// Every version carries the created and updated members, as ARM answers them (its
	// documents show 2015-07-01 and 2022-04-01 reads with them).
	for _, tt := range []struct {
		version     string
		dataActions bool
	}{
		{"2015-07-01", false},
		{"2017-10-01-preview", false},
		{"2018-01-01-preview", true},
		{"2022-04-01", true},
		{"2022-05-01-preview", true},
	} {
		t.Run("role definition "+tt.version, func(t *testing.T) {
			for _, path := range []string{"/" + subScope + "/providers/Vendor.Authorization/roleDefinitions/" + roleGUID, "/" + subScope + "/providers/Vendor.Authorization/roleDefinitions"} {
				st, got := e.do(t, http.MethodGet, path+"?api-version="+tt.version+"&$filter=type%20eq%20'CustomRole'", "")
				if st != 200 {
					t.Fatalf("%d %v", st, got)
				}
				if v, ok := got["value"].([]any); ok { // the list: its only entry
					got = v[0].(map[string]any)
				}
				perms, _ := member(got, "properties", "permissions")
				perm := perms.([]any)[0].(map[string]any)
				if _, ok := perm["dataActions"]; ok != tt.dataActions {
					t.Errorf("%s: dataActions present = %v, want %v", path, ok, tt.dataActions)
				}
				for _, m := range []string{"createdOn", "updatedOn", "createdBy", "updatedBy"} {
					if v, _ := member(got, "properties", m); v == nil || v == "" {
						t.Errorf("%s: %s = %v", path, m, v)
					}
				}
			}
			// A built-in role carries the day the catalog was taken, and no principal.
			st, got := e.do(t, http.MethodGet, "/providers/Vendor.Authorization/roleDefinitions/"+authorization.ReaderRoleID+"?api-version="+tt.version, "")
			if st != 200 {
				t.Fatalf("reader: %d %v", st, got)
			}
			for _, m := range []string{"createdOn", "updatedOn"} {
				if v, _ := member(got, "properties", m); v != "2026-11-26T00:00:00Z" {
					t.Errorf("reader: %s = %v, want 2026-11-26T00:00:00Z", m, v)
				}
			}
			for _, m := range []string{"createdBy", "updatedBy"} {
				if v, ok := member(got, "properties", m); ok {
					t.Errorf("reader: %s = %v, want none", m, v)
				}
			}
		})
	}

	// A role with data actions is assigned only through a version that has them; one without
	// is assigned through any.
	for i, tt := range []struct {
		version, role string
		want          int
	}{
		{"2015-07-01", "/" + subScope + "/providers/Vendor.Authorization/roleDefinitions/" + roleGUID, 400},
		{"2017-10-01-preview", "/" + subScope + "/providers/Vendor.Authorization/roleDefinitions/" + roleGUID, 400},
		{"2015-07-01", readerID, 201},
		{"2018-01-01-preview", "/" + subScope + "/providers/Vendor.Authorization/roleDefinitions/" + roleGUID, 201},
	} {
		t.Run("assigning a data-actions role "+tt.version+" "+tt.role[len(tt.role)-8:], func(t *testing.T) {
			path := "/" + subScope + fmt.Sprintf("/providers/Vendor.Authorization/roleAssignments/d47a0000-aaaa-4bbb-8ccc-00000000000%d?api-version=", i) + tt.version
			st, got := e.do(t, http.MethodPut, path, `{"properties":{"principalId":"`+principal2+`","roleDefinitionId":"`+tt.role+`"}}`)
			if st != tt.want {
				t.Fatalf("%d %v, want %d", st, got, tt.want)
			}
			if code, _ := member(got, "error", "code"); st == 400 && code != "UnsupportedApiVersionForRoleDefinitionHasDataActions" {
				t.Errorf("code %v", got)
			}
			if msg, _ := member(got, "error", "message"); st == 400 && msg != "Assignments to roles with DataActions and NotDataActions are not supported on API version '"+tt.version+"'. The minimum required API version for this operations is '2018-01-01-preview'." {
				t.Errorf("message %v", msg)
			}
		})
	}

	t.Run("nextLink keeps the version", func(t *testing.T) {
		small := newEnv(t, func(c *authorization.Config) { c.PageSize = 1 })
		for i := range 2 {
			name := fmt.Sprintf("0000000%d-aaaa-4bbb-8ccc-000000000000", i)
			b := `{"properties":{"principalId":"` + principal1 + `","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/` + []string{authorization.ReaderRoleID, authorization.OwnerRoleID}[i] + `"}}`
			if st, got := small.do(t, http.MethodPut, "/"+subScope+"/providers/Vendor.Authorization/roleAssignments/"+name+"?api-version=2022-04-01", b); st != 201 {
				t.Fatalf("%d %v", st, got)
			}
		}
		_, got := small.do(t, http.MethodGet, "/"+subScope+"/providers/Vendor.Authorization/roleAssignments?api-version=2018-09-01-preview", "")
		if next, _ := got["nextLink"].(string); !strings.Contains(next, "api-version=2018-09-01-preview") {
			t.Errorf("nextLink = %q", next)
		}
	})

	for _, tt := range []struct{ name, path, version, kind string }{
		{"an unknown version for assignments", assignment("2019-01-01"), "2019-01-01", "roleAssignments"},
		{"a role-definition-only date for assignments", assignment("2018-07-01-preview"), "2018-07-01-preview", "roleAssignments"},
		{"an assignment-only version for definitions", "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID + "?api-version=2020-10-01-preview", "2020-10-01-preview", "roleDefinitions"},
		{"nonsense", "/" + subScope + "/providers/Vendor.Authorization/roleDefinitions?api-version=latest", "latest", "roleDefinitions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, got := e.do(t, http.MethodGet, tt.path, "")
			code, _ := member(got, "error", "code")
			msg, _ := member(got, "error", "message")
			m, _ := msg.(string)
			if st != 400 || code != "NoRegisteredProviderFound" || !strings.Contains(m, "'"+tt.version+"'") || !strings.Contains(m, "for type '"+tt.kind+"'") || !strings.Contains(m, "2015-07-01, ") {
				t.Errorf("%d %v", st, got)
			}
		})
	}
	t.Run("versions compare without case", func(t *testing.T) {
		if st, got := e.do(t, http.MethodGet, "/providers/Vendor.Authorization/roleDefinitions/"+authorization.ReaderRoleID+"?api-version=2022-05-01-PREVIEW", ""); st != 200 {
			t.Errorf("%d %v", st, got)
		}
	})
}

// TestNullIsAbsent: a member sent as JSON null is read as one not sent, as ARM reads it.
func TestNullIsAbsent(t *testing.T) {
	e := newEnv(t)
	st, got := e.do(t, http.MethodPut, "/"+rgScope+"/providers/Vendor.Authorization/roleAssignments/"+name1+"?api-version=2022-04-01",
		`{"properties":{"principalId":"`+principal1+`","roleDefinitionId":"`+readerID+`","description":null,"condition":null,"conditionVersion":null,"principalType":null,"delegatedManagedIdentityResourceId":null,"scope":null},"id":null}`)
	if st != 201 {
		t.Fatalf("%d %v", st, got)
	}
	if pt, _ := member(got, "properties", "principalType"); pt != "User" {
		t.Errorf("principalType = %v, want the default", pt)
	}
	if _, ok := member(got, "properties", "description"); ok {
		t.Errorf("description present: %v", got)
	}
	st, got = e.do(t, http.MethodPut, "/"+subScope+"/providers/Vendor.Authorization/roleDefinitions/"+name2+"?api-version=2022-04-01",
		`{"properties":{"roleName":"Nulls","description":null,"type":null,"permissions":[{"actions":["*/read"],"notActions":null,"dataActions":null}],"assignableScopes":["/`+subScope+`"]},"name":null}`)
	if st != 201 {
		t.Fatalf("role: %d %v", st, got)
	}
	// Null stays refused where ARM refuses it: a required member, an array element.
	for _, b := range []string{
		`{"properties":{"principalId":null,"roleDefinitionId":"` + readerID + `"}}`,
		`{"properties":null}`,
	} {
		st, got := e.do(t, http.MethodPut, "/"+rgScope+"/providers/Vendor.Authorization/roleAssignments/"+name2+"?api-version=2022-04-01", b)
		if code, _ := member(got, "error", "code"); st != 400 || code != "InvalidRequestContent" {
			t.Errorf("%s: %d %v", b, st, got)
		}
	}
	st, got = e.do(t, http.MethodPut, "/"+subScope+"/providers/Vendor.Authorization/roleDefinitions/"+name1+"?api-version=2022-04-01",
		`{"properties":{"roleName":"x","permissions":[{"actions":[null]}],"assignableScopes":["/`+subScope+`"]}}`)
	if code, _ := member(got, "error", "code"); st != 400 || code != "InvalidRequestContent" {
		t.Errorf("null array element: %d %v", st, got)
	}
}

// TestUpdateStatusPerVersion: a role-assignment PUT that updates answers 200 in the
// api-versions whose REST specification defines 200 for it, and 201 in those that define
// only 201 (whose SDKs raise on anything else); a create is 201 in every version.
func TestUpdateStatusPerVersion(t *testing.T) {
	e := newEnv(t)
	updates := map[string]int{
		"2015-07-01":         201,
		"2017-10-01-preview": 201,
		"2018-01-01-preview": 201,
		"2018-09-01-preview": 201,
		"2020-03-01-preview": 200,
		"2020-04-01-preview": 201,
		"2020-08-01-preview": 200,
		"2020-10-01-preview": 200,
		"2022-04-01":         200,
		"2022-05-01-preview": 200,
	}
	body := `{"properties":{"principalId":"` + principal1 + `","roleDefinitionId":"` + readerID + `"}}`
	for i, v := range authorization.APIVersions("roleAssignments") {
		want, ok := updates[v]
		if !ok {
			t.Errorf("api-version %s: say here what its update answers", v)
			continue
		}
		// A scope of its own per version: one (scope, role, principal) has one name.
		path := fmt.Sprintf("/%s/providers/Vendor.Authorization/roleAssignments/%08d-0000-4000-8000-000000000000?api-version=%s", rgScope+fmt.Sprintf("/providers/Vendor.Web/sites/s%d", i), i, v)
		for _, step := range []struct {
			name string
			want int
		}{{"create", 201}, {"update", want}} {
			st, got := e.do(t, http.MethodPut, path, body)
			if rd, _ := member(got, "properties", "principalId"); st != step.want || rd != principal1 {
				t.Errorf("%s at %s: %d %v, want %d with the assignment", step.name, v, st, got, step.want)
			}
		}
	}
}
