package authorization_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// The x-ms-examples of the 2022-04-01 role-assignment and role-definition operations
// (testdata/examples, namespace renamed), each replayed against a fresh server.
var replayOps = []struct {
	file, method, path string
}{
	{"PutRoleDefinition.json", http.MethodPut, "/{scope}/providers/Vendor.Authorization/roleDefinitions/{roleDefinitionId}"},
	{"GetRoleDefinitionByName.json", http.MethodGet, "/{scope}/providers/Vendor.Authorization/roleDefinitions/{roleDefinitionId}"},
	{"GetRoleDefinitionById.json", http.MethodGet, "/{roleId}"},
	{"DeleteRoleDefinition.json", http.MethodDelete, "/{scope}/providers/Vendor.Authorization/roleDefinitions/{roleDefinitionId}"},
	{"RoleAssignments_CreateForSubscription.json", http.MethodPut, "/{scope}/providers/Vendor.Authorization/roleAssignments/{roleAssignmentName}"},
	{"RoleAssignments_CreateForResourceGroup.json", http.MethodPut, "/{scope}/providers/Vendor.Authorization/roleAssignments/{roleAssignmentName}"},
	{"RoleAssignments_CreateForResource.json", http.MethodPut, "/{scope}/providers/Vendor.Authorization/roleAssignments/{roleAssignmentName}"},
	{"RoleAssignments_CreateById.json", http.MethodPut, "/{roleAssignmentId}"},
	{"RoleAssignments_Get.json", http.MethodGet, "/{scope}/providers/Vendor.Authorization/roleAssignments/{roleAssignmentName}"},
	{"RoleAssignments_GetById.json", http.MethodGet, "/{roleAssignmentId}"},
	{"RoleAssignments_Delete.json", http.MethodDelete, "/{scope}/providers/Vendor.Authorization/roleAssignments/{roleAssignmentName}"},
	{"RoleAssignments_DeleteById.json", http.MethodDelete, "/{roleAssignmentId}"},
	{"RoleAssignments_ListForScope.json", http.MethodGet, "/{scope}/providers/Vendor.Authorization/roleAssignments"},
	{"RoleAssignments_ListForResourceGroup.json", http.MethodGet, "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Vendor.Authorization/roleAssignments"},
}

// The role-definition examples use placeholders where ids go. They are replaced by the
// example subscription and by the role every role-assignment example assigns, which is no
// built-in role: the replay makes it with the documented PUT first.
const (
	exampleSub  = "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	exampleRole = "0b5fe924-9a61-425c-96af-cfe6e287ca2d"
)

var placeholders = map[string]string{
	"scope":                "subscriptions/" + exampleSub,
	"roleDefinitionId":     exampleRole,
	"/subscriptions/subId": "/subscriptions/" + exampleSub,
}

type example struct {
	Parameters map[string]any `json:"parameters"`
	Responses  map[string]struct {
		Body map[string]any `json:"body"`
	} `json:"responses"`
}

func loadExample(t *testing.T, file string) example {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	var ex example
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return ex
}

// request is the example's method, path and body, placeholders replaced.
func (ex example) request(method, template string) (path, body string) {
	path = template
	for name, v := range ex.Parameters {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if name == "roleId" && s == "roleDefinitionId" {
			s = "providers/Vendor.Authorization/roleDefinitions/" + exampleRole
		} else if r, ok := placeholders[s]; ok {
			s = r
		}
		path = strings.ReplaceAll(path, "{"+name+"}", s)
	}
	path += "?api-version=" + ex.Parameters["api-version"].(string)
	if b, ok := ex.Parameters["parameters"]; ok { // a role assignment's body
		out, _ := json.Marshal(b)
		return path, string(out)
	}
	if b, ok := ex.Parameters["body"].(map[string]any); ok {
		// The role definition's body is written in the SDK's flattened model
		// (x-ms-client-flatten); on the wire its members are under properties, as in the
		// documented response.
		rd := b["roleDefinition"].(map[string]any)
		props := map[string]any{}
		for _, k := range []string{"roleName", "description", "permissions"} {
			props[k] = rd[k]
		}
		var scopes []any
		for _, s := range rd["assignableScopes"].([]any) {
			if r, ok := placeholders[s.(string)]; ok {
				s = r
			}
			scopes = append(scopes, s)
		}
		props["assignableScopes"] = scopes
		out, _ := json.Marshal(map[string]any{"properties": props, "id": rd["id"], "name": rd["name"], "type": rd["type"]})
		return path, string(out)
	}
	return path, ""
}

func replay(t *testing.T, base, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+jwt("6f8bbbb4-9e2b-4b35-a3ad-0c0b0a5a8d27"))
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

// TestReplayExamples sends every documented request and checks the documented status and
// shape: every member the documented response has, ours has too, and for role assignments
// (whose examples carry real ids) with the documented value. Create examples document 201
// and 200: the first PUT creates, the same again updates. Delete examples document 200 and
// 204: the first deletes, the second finds nothing.
func TestReplayExamples(t *testing.T) {
	put, putBody := loadExample(t, "PutRoleDefinition.json").request(http.MethodPut, replayOps[0].path)
	for _, op := range replayOps {
		t.Run(strings.TrimSuffix(op.file, ".json"), func(t *testing.T) {
			srv := understudytest.Start(t)
			ex := loadExample(t, op.file)
			path, body := ex.request(op.method, op.path)
			assignments := strings.HasPrefix(op.file, "RoleAssignments_")

			// What the request finds: the example role, and for reads and deletes of
			// assignments the assignments the documented response shows.
			if op.file != "PutRoleDefinition.json" {
				if st, got := replay(t, srv.URL, http.MethodPut, put, putBody); st != 201 {
					t.Fatalf("making the example role: %d %v", st, got)
				}
			}
			if assignments && op.method != http.MethodPut {
				for _, a := range documented(ex.Responses["200"].Body) {
					p := a["properties"].(map[string]any)
					b, _ := json.Marshal(map[string]any{"properties": map[string]any{
						"roleDefinitionId": p["roleDefinitionId"], "principalId": p["principalId"], "principalType": p["principalType"]}})
					if st, got := replay(t, srv.URL, http.MethodPut, a["id"].(string)+"?api-version=2022-04-01", string(b)); st != 201 {
						t.Fatalf("making %s: %d %v", a["id"], st, got)
					}
				}
			}

			var statuses []string
			for s := range ex.Responses {
				statuses = append(statuses, s)
			}
			sort.Strings(statuses)
			first := map[string]string{http.MethodPut: "201", http.MethodGet: "200", http.MethodDelete: "200"}[op.method]
			st, got := replay(t, srv.URL, op.method, path, body)
			if want := ex.Responses[first]; fmt.Sprint(st) != first {
				t.Fatalf("%s %s: %d %v, want %s (documented: %v)", op.method, path, st, got, first, statuses)
			} else {
				compare(t, want.Body, got, assignments)
			}
			// The other documented status, where there is one.
			for _, s := range statuses {
				if s == first {
					continue
				}
				st, got := replay(t, srv.URL, op.method, path, body)
				if fmt.Sprint(st) != s {
					t.Errorf("again: %d %v, want %s", st, got, s)
				}
				compare(t, ex.Responses[s].Body, got, assignments)
			}
		})
	}
}

// documented is the resources of a documented body: the body itself, or its list.
func documented(body map[string]any) []map[string]any {
	if v, ok := body["value"].([]any); ok {
		var out []map[string]any
		for _, e := range v {
			out = append(out, e.(map[string]any))
		}
		return out
	}
	return []map[string]any{body}
}

// compare checks that got has every member of want, with want's value where exact is set,
// and for lists an entry of the same id for each documented one. A 204's empty documented
// body asks for no body.
func compare(t *testing.T, want, got map[string]any, exact bool) {
	t.Helper()
	if len(want) == 0 {
		if len(got) != 0 {
			t.Errorf("a body where the example has none: %v", got)
		}
		return
	}
	if _, list := want["value"]; list {
		byID := map[string]map[string]any{}
		for _, e := range documented(got) {
			byID[strings.ToLower(e["id"].(string))] = e
		}
		for _, w := range documented(want) {
			g, ok := byID[strings.ToLower(w["id"].(string))]
			if !ok {
				t.Errorf("the list lacks %s", w["id"])
				continue
			}
			compareMembers(t, "", w, g, exact)
		}
		return
	}
	compareMembers(t, "", want, got, exact)
}

func compareMembers(t *testing.T, at string, want, got any, exact bool) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: %v, want an object", at, got)
			return
		}
		for k, v := range w {
			gv, ok := g[k]
			if !ok {
				if l, isList := v.([]any); isList && len(l) == 0 {
					continue // an empty list may be left out, as ARM's SDKs read it
				}
				t.Errorf("%s.%s missing", at, k)
				continue
			}
			compareMembers(t, at+"."+k, v, gv, exact || k == "roleName" || k == "description" || k == "permissions")
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Errorf("%s: %v, want %v", at, got, want)
			return
		}
		for i := range w {
			compareMembers(t, fmt.Sprintf("%s[%d]", at, i), w[i], g[i], exact)
		}
	default:
		if exact && !reflect.DeepEqual(want, got) {
			t.Errorf("%s = %v, want %v", at, got, want)
		}
	}
}
