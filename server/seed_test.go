package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

const seededSub = "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"

// startSeeded starts a server with the built-in seed and the seed file at path, as the
// command does.
func startSeeded(t *testing.T, path string) *understudytest.Server {
	t.Helper()
	seed, err := server.LoadSeed(path)
	if err != nil {
		t.Fatal(err)
	}
	return understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		for _, s := range []*server.Seed{server.DefaultSeed(), seed} {
			if err := s.Apply(c, nil); err != nil {
				t.Fatal(err)
			}
		}
	}))
}

func authzClient(t *testing.T, base, token string) *gen.ClientWithResponses {
	t.Helper()
	c, err := gen.NewClientWithResponses(base, gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func listCount(t *testing.T, c *gen.ClientWithResponses, scope string) int {
	t.Helper()
	resp, err := c.RoleAssignmentsListForScopeWithResponse(context.Background(), scope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: "2022-04-01"})
	if err != nil || resp.StatusCode() != 200 {
		t.Fatalf("list: %v %s", err, resp.Body)
	}
	return len(resp.JSON200.Value)
}

func postReset(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Post(base+"/_understudy/reset", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reset: %v %v", err, resp)
	}
	resp.Body.Close()
}

func TestSeedLoadsAndResetRestores(t *testing.T) {
	srv := startSeeded(t, "../testdata/seed-authorization.yaml")
	alice := authzClient(t, srv.URL, "alice-token") // mapped to a principal with the seeded custom role
	ctx := context.Background()

	if n := listCount(t, alice, seededSub); n != 2 {
		t.Fatalf("seeded assignments listed: %d, want 2", n)
	}
	got, err := alice.RoleAssignmentsGetWithResponse(ctx, seededSub+"/resourceGroups/rg1", "55555555-5555-4555-8555-555555555555", &gen.RoleAssignmentsGetParams{ApiVersion: "2022-04-01"})
	if err != nil || got.StatusCode() != 200 || *got.JSON200.Properties.PrincipalType != gen.PrincipalTypeGroup {
		t.Fatalf("seeded assignment: %v %s", err, got.Body)
	}

	// Enforcement is on: alice's custom role lets her write; an unknown token may not.
	body := gen.RoleAssignmentCreateParameters{Properties: gen.RoleAssignmentProperties{
		PrincipalId: "77777777-7777-4777-8777-777777777777", RoleDefinitionId: "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}
	params := &gen.RoleAssignmentsCreateParams{ApiVersion: "2022-04-01"}
	created, err := alice.RoleAssignmentsCreateWithResponse(ctx, seededSub, "88888888-8888-4888-8888-888888888888", params, body)
	if err != nil || created.StatusCode() != http.StatusCreated {
		t.Fatalf("alice create: %v %d %s", err, created.StatusCode(), created.Body)
	}
	if *created.JSON201.Properties.CreatedBy != "22222222-2222-4222-8222-222222222222" {
		t.Errorf("createdBy = %s, want alice's principal", *created.JSON201.Properties.CreatedBy)
	}
	denied, _ := authzClient(t, srv.URL, "stranger").RoleAssignmentsCreateWithResponse(ctx, seededSub, "99999999-9999-4999-8999-999999999999", params, body)
	if denied.StatusCode() != http.StatusForbidden {
		t.Errorf("stranger create: %d, want 403: %s", denied.StatusCode(), denied.Body)
	}

	// Reset: what was created is gone, what was seeded is back.
	if n := listCount(t, alice, seededSub); n != 3 {
		t.Fatalf("before reset: %d assignments, want 3", n)
	}
	postReset(t, srv.URL)
	if n := listCount(t, alice, seededSub); n != 2 {
		t.Errorf("after reset: %d assignments, want the 2 seeded", n)
	}
}

// seedClient makes raw requests and decodes JSON answers.
type seedClient struct {
	t    *testing.T
	base string
}

func (a seedClient) do(method, path string, header map[string]string, body string) (int, map[string]any) {
	a.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// jsonAt reads a member of a decoded JSON document by a dotted path.
func jsonAt(doc any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = m[k]
	}
	return doc
}

func seedAccountsHeaders(key string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + key, "Service-Version": "2026-05-27.dahlia"}
}

var seedComputeHeaders = map[string]string{"Authorization": "Bearer any-token"}

const seedProjectPath = "/compute/v1/projects/my-project-123"

// TestSeedExample starts a server with the complete example seed, reads every seeded object
// back through HTTP, changes things, resets, and finds exactly the seeded state again.
func TestSeedExample(t *testing.T) {
	srv := startSeeded(t, "../testdata/seed-example.yaml")
	a := seedClient{t: t, base: srv.URL}
	acme, acmeLive := seedAccountsHeaders("sk_test_acme123"), seedAccountsHeaders("sk_live_acme123")
	alice := map[string]string{"Authorization": "Bearer alice-token"}
	assignment := "/" + seededSub + "/providers/Vendor.Authorization/roleAssignments/44444444-4444-4444-8444-444444444444?api-version=2022-04-01"

	var liveID string
	checkSeeded := func(when string) {
		t.Helper()
		// authorization: the assignment, read by alice through the seeded token and role.
		if code, doc := a.do("GET", assignment, alice, ""); code != 200 || jsonAt(doc, "properties.principalId") != "22222222-2222-4222-8222-222222222222" {
			t.Errorf("%s: seeded assignment: %d %v", when, code, doc)
		}
		// accounts: by the id given, on its platform, onboarded: its capability is active.
		code, doc := a.do("GET", "/v2/core/accounts/acct_1SeedFurever0001?include=configuration.recipient&include=identity", acme, "")
		if code != 200 || doc["display_name"] != "Furever Pet Supplies" || jsonAt(doc, "identity.country") != "US" ||
			jsonAt(doc, "configuration.recipient.capabilities.stripe_balance.stripe_transfers.status") != "active" || jsonAt(doc, "metadata.order_id") != "6735" {
			t.Errorf("%s: seeded account: %d %v", when, code, doc)
		}
		// Other platforms and modes do not see it.
		if code, _ := a.do("GET", "/v2/core/accounts/acct_1SeedFurever0001", seedAccountsHeaders("sk_test_other"), ""); code != 404 {
			t.Errorf("%s: the default platform sees acme's account: %d", when, code)
		}
		if code, _ := a.do("GET", "/v2/core/accounts/acct_1SeedDefault00001", seedAccountsHeaders("sk_test_other"), ""); code != 200 {
			t.Errorf("%s: the default platform's account: %d", when, code)
		}
		// The live account without an id: one was derived, the same after a reset.
		code, doc = a.do("GET", "/v2/core/accounts", acmeLive, "")
		data, _ := doc["data"].([]any)
		if code != 200 || len(data) != 1 || jsonAt(data[0], "display_name") != "Rocket Rides" {
			t.Fatalf("%s: acme's live accounts: %d %v", when, code, doc)
		}
		id, _ := jsonAt(data[0], "id").(string)
		if liveID == "" {
			liveID = id
		}
		if !strings.HasPrefix(id, "acct_") || len(id) != len("acct_")+16 || id != liveID {
			t.Errorf("%s: derived id %q (first %q)", when, id, liveID)
		}
		if code, doc := a.do("GET", "/v2/core/accounts", seedAccountsHeaders("sk_test_legacy123"), ""); code != 400 || jsonAt(doc, "error.code") != "accounts_v2_access_blocked" {
			t.Errorf("%s: legacy platform: %d %v", when, code, doc)
		}
		// compute: the group's configured SLA, the rule's labels, an attachment, a location.
		code, doc = a.do("GET", seedProjectPath+"/global/interconnectAttachmentGroups/prod-critical", seedComputeHeaders, "")
		if code != 200 || jsonAt(doc, "configured.availabilitySla.effectiveSla") != "PRODUCTION_CRITICAL" || len(doc["attachments"].(map[string]any)) != 4 {
			t.Errorf("%s: seeded group: %d %v", when, code, doc)
		}
		code, doc = a.do("GET", seedProjectPath+"/global/forwardingRules/fr-web", seedComputeHeaders, "")
		if code != 200 || jsonAt(doc, "labels.env") != "prod" || jsonAt(doc, "labels.team") != "web" || doc["IPAddress"] != "34.117.59.12" || doc["labelFingerprint"] == "42WmSpB8rSM=" {
			t.Errorf("%s: seeded rule: %d %v", when, code, doc)
		}
		code, doc = a.do("GET", seedProjectPath+"/regions/us-east4/interconnectAttachments/att-iad-z1", seedComputeHeaders, "")
		if code != 200 || doc["vlanTag8021q"] != float64(100) || !strings.HasSuffix(fmt.Sprint(doc["attachmentGroup"]), "/prod-critical") || doc["edgeAvailabilityDomain"] != "AVAILABILITY_DOMAIN_1" {
			t.Errorf("%s: seeded attachment: %d %v", when, code, doc)
		}
		if code, doc := a.do("GET", seedProjectPath+"/global/interconnects/ic-ams-z1", seedComputeHeaders, ""); code != 200 || !strings.HasSuffix(fmt.Sprint(doc["location"]), "/ams-zone1-2") {
			t.Errorf("%s: interconnect at the seeded location: %d %v", when, code, doc)
		}
		// Seeded resources have no operations.
		if code, doc := a.do("GET", seedProjectPath+"/global/operations", seedComputeHeaders, ""); code != 200 || doc["items"] != nil {
			t.Errorf("%s: operations: %d %v", when, code, doc)
		}
	}
	checkSeeded("at start")

	// Change the world: create in each API, delete and relabel seeded things.
	if code, doc := a.do("PUT", "/"+seededSub+"/providers/Vendor.Authorization/roleAssignments/88888888-8888-4888-8888-888888888888?api-version=2022-04-01", alice,
		`{"properties":{"principalId":"77777777-7777-4777-8777-777777777777","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`); code != 201 {
		t.Fatalf("create assignment: %d %v", code, doc)
	}
	code, doc := a.do("POST", "/v2/core/accounts", acme, `{"display_name":"Created later"}`)
	if code != 200 {
		t.Fatalf("create account: %d %v", code, doc)
	}
	createdAccount := doc["id"].(string)
	// The operation mode comes from the seed: immediate, so the rule is there at once.
	if code, doc := a.do("POST", seedProjectPath+"/global/forwardingRules", seedComputeHeaders, `{"name":"fr-new"}`); code != 200 || doc["status"] != "DONE" {
		t.Fatalf("insert rule: %d %v", code, doc)
	}
	if code, doc := a.do("DELETE", seedProjectPath+"/global/interconnectAttachmentGroups/prod-critical", seedComputeHeaders, ""); code != 200 || doc["status"] != "DONE" {
		t.Fatalf("delete group: %d %v", code, doc)
	}
	_, rule := a.do("GET", seedProjectPath+"/global/forwardingRules/fr-web", seedComputeHeaders, "")
	if code, doc := a.do("POST", seedProjectPath+"/global/forwardingRules/fr-web/setLabels", seedComputeHeaders,
		fmt.Sprintf(`{"labels":{},"labelFingerprint":%q}`, rule["labelFingerprint"])); code != 200 {
		t.Fatalf("setLabels: %d %v", code, doc)
	}
	if code, _ := a.do("GET", seedProjectPath+"/global/interconnectAttachmentGroups/prod-critical", seedComputeHeaders, ""); code != 404 {
		t.Fatalf("deleted group: %d", code)
	}

	postReset(t, srv.URL)

	if code, _ := a.do("GET", "/"+seededSub+"/providers/Vendor.Authorization/roleAssignments/88888888-8888-4888-8888-888888888888?api-version=2022-04-01", alice, ""); code != 404 {
		t.Errorf("created assignment after reset: %d", code)
	}
	if code, _ := a.do("GET", "/v2/core/accounts/"+createdAccount, acme, ""); code != 404 {
		t.Errorf("created account after reset: %d", code)
	}
	if code, _ := a.do("GET", seedProjectPath+"/global/forwardingRules/fr-new", seedComputeHeaders, ""); code != 404 {
		t.Errorf("created rule after reset: %d", code)
	}
	checkSeeded("after reset")
	_, again := a.do("GET", seedProjectPath+"/global/forwardingRules/fr-web", seedComputeHeaders, "")
	if again["id"] != rule["id"] || again["labelFingerprint"] != rule["labelFingerprint"] {
		t.Errorf("the rule after reset is not the seeded one: %v, was %v", again, rule)
	}
}

// writeSeedFile writes content to a seed file in a temporary directory.
func writeSeedFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seed.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadAndApply is what the command does with a seed file: parse, then apply (and check).
func loadAndApply(path string) error {
	seed, err := server.LoadSeed(path)
	if err != nil {
		return err
	}
	return seed.Apply(&server.Config{}, nil)
}

// Every error names the file, the line and the field.
func TestSeedErrors(t *testing.T) {
	const group = `compute:
  projects:
    my-project-123:
      interconnects:
        - {name: ic1, location: iad-zone1-1, linkType: LINK_TYPE_ETHERNET_10G_LR, requestedLinkCount: 1, interconnectType: DEDICATED}
      interconnectAttachments:
        - {name: att1, region: us-east4, interconnect: ic1}
      interconnectAttachmentGroups:
        - name: g
          intent: {availabilitySla: NO_SLA}
          attachments:
            - att1
            - att-missing
`
	tests := []struct {
		name, yaml  string
		line        int
		field, want string
	}{
		{"unknown field", "authorization:\n  enforce: true\n  enforcement: true\n",
			3, "authorization.enforcement", "unknown field (known: enforce, defaultPrincipal"},
		{"unknown section", "billing: {}\n", 1, "billing", "unknown field (known: authorization, accounts, compute)"},
		{"wrong type", "authorization:\n  maxPerSubscription: many\n", 2, "authorization.maxPerSubscription", `want an integer, got the string "many"`},
		{"a list where a mapping goes", "accounts:\n  platforms:\n    - [a]\n", 3, "accounts.platforms[0]", "want a mapping, got a list"},
		{"a key given twice", "compute:\n  operationMode: manual\n  operationMode: immediate\n", 3, "compute.operationMode", "given twice (first at line 2)"},
		{"a YAML syntax error", "authorization:\n  enforce: true\n  bootstrapOwners: a: b\n", 3, "", "mapping value is not allowed"},
		{"a role assignment breaking a rule", `authorization:
  roleAssignments:
    - scope: subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2
      name: not-a-guid
      principalId: 77777777-7777-4777-8777-777777777777
      roleDefinitionId: /providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
`, 4, "authorization.roleAssignments[0].name", "InvalidRoleAssignmentId"},
		{"a role assignment to a missing role", `authorization:
  roleAssignments:
    - {scope: subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2, name: 44444444-4444-4444-8444-444444444444, principalId: 77777777-7777-4777-8777-777777777777, roleDefinitionId: /providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7}
    - scope: subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2
      name: 55555555-5555-4555-8555-555555555555
      principalId: 77777777-7777-4777-8777-777777777777
      roleDefinitionId: /providers/Vendor.Authorization/roleDefinitions/99999999-9999-4999-8999-999999999999
`, 7, "authorization.roleAssignments[1].roleDefinitionId", "RoleDefinitionDoesNotExist"},
		{"a role definition with a bad id", "authorization:\n  roleDefinitions:\n    - id: nope\n      roleName: x\n", 3, "authorization.roleDefinitions[0].id", "is not a GUID"},
		{"a custom role with a built-in's id", "authorization:\n  roleDefinitions:\n    - id: 8e3af657-a8ff-443c-a75c-2fe8c4bcb635\n      roleName: Not Owner\n", 3, "authorization.roleDefinitions[0].id", "is already the built-in role Owner"},
		{"two custom roles with one id", "authorization:\n  roleDefinitions:\n    - {id: 33333333-3333-4333-8333-333333333333, roleName: a}\n    - id: 33333333-3333-4333-8333-333333333333\n      roleName: b\n", 4, "authorization.roleDefinitions[1].id", `is already the role "a"`},
		{"a custom role named as a built-in", "authorization:\n  roleDefinitions:\n    - id: 33333333-3333-4333-8333-333333333333\n      roleName: reader\n", 3, "authorization.roleDefinitions[0].id", "another role has that name"},
		{"a custom role typed as built-in", "authorization:\n  roleDefinitions:\n    - id: 33333333-3333-4333-8333-333333333333\n      roleName: x\n      type: BuiltInRole\n", 3, "authorization.roleDefinitions[0].id", "a seeded role is a CustomRole"},
		{"an assignable scope that is no scope", "authorization:\n  roleDefinitions:\n    - id: 33333333-3333-4333-8333-333333333333\n      roleName: x\n      assignableScopes: [/subscriptions/not-a-guid]\n", 3, "authorization.roleDefinitions[0].id", "is not a scope"},
		{"a management group under an undeclared parent", "authorization:\n  managementGroups:\n    - {id: a}\n    - {id: b, parent: c}\n", 4, "authorization.managementGroups[1]", `parent "c" is not a declared management group`},
		{"a subscription in two management groups", "authorization:\n  managementGroups:\n    - {id: a, subscriptions: [a925f2f7-5c63-4b7b-8799-25a5f97bc3b2]}\n    - {id: b, subscriptions: [a925f2f7-5c63-4b7b-8799-25a5f97bc3b2]}\n", 4, "authorization.managementGroups[1]", "is in two management groups"},
		{"a group member not in the directory", "authorization:\n  directory:\n    - {id: 22222222-2222-4222-8222-222222222222, type: User}\n    - {id: 55555555-5555-4555-8555-555555555555, type: Group, members: [66666666-6666-4666-8666-666666666666]}\n", 4, "authorization.directory[1]", "is not in the directory"},
		{"a principal of an unknown type", "authorization:\n  directory:\n    - {id: 22222222-2222-4222-8222-222222222222, type: Robot}\n", 3, "authorization.directory[0]", `type "Robot" is not one of`},
		{"an assignment to a principal outside the directory, strict", `authorization:
  strictPrincipals: true
  roleAssignments:
    - scope: subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2
      name: 44444444-4444-4444-8444-444444444444
      principalId: 22222222-2222-4222-8222-222222222222
      roleDefinitionId: /providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
`, 4, "authorization.roleAssignments[0]", "PrincipalNotFound"},
		{"a custom role with two management groups", "authorization:\n  roleDefinitions:\n    - id: 33333333-3333-4333-8333-333333333333\n      roleName: x\n      assignableScopes: [/providers/Microsoft.Management/managementGroups/a, /providers/Microsoft.Management/managementGroups/b]\n", 3, "authorization.roleDefinitions[0].id", "only one management group"},
		{"a custom role action with two wildcards", "authorization:\n  roleDefinitions:\n    - id: 33333333-3333-4333-8333-333333333333\n      roleName: x\n      actions: ['Microsoft.Compute/*/read/*']\n", 3, "authorization.roleDefinitions[0].id", "contains multiple wildcards"},
		{"a custom role with data actions assigned at a management group", `authorization:
  roleDefinitions:
    - {id: 33333333-3333-4333-8333-333333333333, roleName: x, actions: ['*/read'], dataActions: ['Microsoft.Storage/*/read']}
  roleAssignments:
    - scope: providers/Microsoft.Management/managementGroups/mg
      name: 44444444-4444-4444-8444-444444444444
      principalId: 77777777-7777-4777-8777-777777777777
      roleDefinitionId: /providers/Vendor.Authorization/roleDefinitions/33333333-3333-4333-8333-333333333333
`, 5, "authorization.roleAssignments[0]", "InvalidCreateRoleAssignmentRequest"},
		{"an empty assignable scope", "authorization:\n  roleDefinitions:\n    - id: 33333333-3333-4333-8333-333333333333\n      roleName: x\n      assignableScopes: ['//']\n", 3, "authorization.roleDefinitions[0].id", "is not a scope"},
		{"a platform key that is no secret key", "accounts:\n  platforms:\n    - id: p\n      keys: [xk_test_abc]\n", 4, "accounts.platforms[0].keys", "is not a secret, restricted or publishable key"},
		{"a group referencing a missing attachment", group, 13,
			"compute.projects.my-project-123.interconnectAttachmentGroups[0].attachments[1]", "RESOURCE_NOT_FOUND"},
		{"a duplicate account id", `accounts:
  accounts:
    - id: acct_1Twice
      display_name: First
    - display_name: Second
      id: acct_1Twice
`, 6, "accounts.accounts[1].id", "account acct_1Twice is declared twice"},
		{"an account body the spec refuses", `accounts:
  accounts:
    - display_name: Furever
      configuration:
        recipient:
          capabilities:
            stripe_balance:
              stripe_transferz: {requested: true}
`, 8, "accounts.accounts[0].configuration.recipient.capabilities.stripe_balance.stripe_transferz", "unknown field"},
		{"an account of an unknown platform", "accounts:\n  accounts:\n    - {display_name: x, platform: nope}\n", 3, "accounts.accounts[0].platform", `no platform "nope"`},
		{"an account of a platform without Accounts v2", "accounts:\n  platforms:\n    - {id: legacy, accounts_v2: false}\n  accounts:\n    - display_name: x\n      platform: legacy\n", 6, "accounts.accounts[0].platform", "accounts_v2_access_blocked"},
		{"an onboarded account that lacks what the form collects", "accounts:\n  accounts:\n    - display_name: x\n      configuration: {merchant: {capabilities: {card_payments: {requested: true}}}}\n      onboarded: true\n", 5, "accounts.accounts[0].onboarded", "contact_email"},
		{"an account mode", "accounts:\n  accounts:\n    - {display_name: x, mode: staging}\n", 3, "accounts.accounts[0].mode", "neither test nor live"},
		{"a forwarding rule with an invalid label", `compute:
  projects:
    my-project-123:
      forwardingRules:
        - name: fr-web
          labels:
            env: prod
            Env: prod
`, 8, "compute.projects.my-project-123.forwardingRules[0].labels.Env", "Label key 'Env' violates format constraints."},
		{"two forwarding rules on one address and port", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - {name: a, IPAddress: 203.0.113.9, portRange: '80'}\n        - {name: b, IPAddress: 203.0.113.9, portRange: '80-81'}\n", 6,
			"compute.projects.my-project-123.forwardingRules[1].IPAddress", "Specified IP address is in-use and would result in a conflict."},
		{"a forwarding rule with a bad name", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - name: Web\n", 5,
			"compute.projects.my-project-123.forwardingRules[0].name", "name"},
		{"a fingerprint that is not base64", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - {name: web, fingerprint: 'not base64!'}\n", 5,
			"compute.projects.my-project-123.forwardingRules[0].fingerprint", "base64"},
		{"an enum", "compute:\n  projects:\n    my-project-123:\n      interconnects:\n        - name: ic1\n          location: iad-zone1-1\n          linkType: LINK_TYPE_ETHERNET_1G\n          requestedLinkCount: 1\n          interconnectType: DEDICATED\n", 7,
			"compute.projects.my-project-123.interconnects[0].linkType", "value is not one of the allowed values"},
		{"an unknown location", "compute:\n  projects:\n    my-project-123:\n      interconnects:\n        - {name: ic1, location: xyz-zone1-1, linkType: LINK_TYPE_ETHERNET_10G_LR, requestedLinkCount: 1, interconnectType: DEDICATED}\n", 5,
			"compute.projects.my-project-123.interconnects[0].location", "notFound"},
		{"an attachment on a missing interconnect", "compute:\n  projects:\n    my-project-123:\n      interconnectAttachments:\n        - name: att1\n          region: us-east4\n          interconnect: nope\n", 7,
			"compute.projects.my-project-123.interconnectAttachments[0].interconnect", "notFound"},
		{"an attachment without a region", "compute:\n  projects:\n    my-project-123:\n      interconnectAttachments:\n        - {name: att1, interconnect: ic1}\n", 5,
			"compute.projects.my-project-123.interconnectAttachments[0].region", "required"},
		{"a bad project id", "compute:\n  projects:\n    P:\n      forwardingRules: []\n", 3, "compute.projects.P", "project id"},
		{"a bad operation mode", "compute:\n  operationMode: sometimes\n", 2, "compute.operationMode", "want immediate, manual or a duration"},
		// What a state export records.
		{"a creation time that is no time", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - {name: web, creationTimestamp: yesterday}\n", 5,
			"compute.projects.my-project-123.forwardingRules[0].creationTimestamp", "not an RFC 3339 time"},
		{"an id that is no number", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - {name: web, id: abc}\n", 5,
			"compute.projects.my-project-123.forwardingRules[0].id", "string of digits"},
		{"an unquoted id", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - {name: web, id: 12}\n", 5,
			"compute.projects.my-project-123.forwardingRules[0].id", "quoted"},
		{"two rules with one id", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - {name: web, id: '12'}\n        - {name: api, id: '12'}\n", 6,
			"compute.projects.my-project-123.forwardingRules[1].id", "another resource's"},
		{"a negative label generation", "compute:\n  projects:\n    my-project-123:\n      forwardingRules:\n        - {name: web, labelGeneration: -1}\n", 5,
			"compute.projects.my-project-123.forwardingRules[0].labelGeneration", "count of changes"},
		{"a running operation", "compute:\n  projects:\n    my-project-123:\n      operations:\n        - {name: op-1, id: '1', operationType: insert, status: RUNNING, insertTime: '2026-11-21T10:00:00Z', endTime: '2026-11-21T10:00:01Z'}\n", 5,
			"compute.projects.my-project-123.operations[0].status", "only finished (DONE)"},
		{"two operations with one requestId", `compute:
  projects:
    my-project-123:
      operations:
        - {name: op-1, id: '1', operationType: insert, status: DONE, clientOperationId: 5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a01, insertTime: '2026-11-21T10:00:00Z', endTime: '2026-11-21T10:00:01Z'}
        - name: op-2
          id: '2'
          operationType: insert
          status: DONE
          clientOperationId: 5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a01
          insertTime: '2026-11-21T10:00:00Z'
          endTime: '2026-11-21T10:00:01Z'
`, 10, "compute.projects.my-project-123.operations[1].clientOperationId", "another operation's"},
		{"an operation's target that is a URL", "compute:\n  projects:\n    my-project-123:\n      operations:\n        - {name: op-1, id: '1', operationType: insert, status: DONE, targetLink: 'https://x/compute/v1/projects/p', insertTime: '2026-11-21T10:00:00Z', endTime: '2026-11-21T10:00:01Z'}\n", 5,
			"compute.projects.my-project-123.operations[0].targetLink", "path under /compute/v1/"},
		{"a group's key to no attachment", "compute:\n  projects:\n    my-project-123:\n      interconnectAttachmentGroups:\n        - name: g\n          intent: {availabilitySla: NO_SLA}\n          attachments: {first: us-east4/nope}\n", 7,
			"compute.projects.my-project-123.interconnectAttachmentGroups[0].attachments.first", "RESOURCE_NOT_FOUND"},
		{"an assignment's creation time", `authorization:
  roleAssignments:
    - scope: subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2
      name: 44444444-4444-4444-8444-444444444444
      principalId: 77777777-7777-4777-8777-777777777777
      roleDefinitionId: /providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
      createdOn: soon
`, 7, "authorization.roleAssignments[0].createdOn", "not an RFC 3339 time"},
		{"an account's creation time", "accounts:\n  accounts:\n    - {display_name: x, created: '21/11/2026'}\n", 3, "accounts.accounts[0].created", "not an RFC 3339 time"},
		{"two accounts in one place", "accounts:\n  accounts:\n    - {display_name: x, sequence: 4}\n    - display_name: y\n      sequence: 4\n", 5, "accounts.accounts[1].sequence", "each account has its own place"},
		{"an onboarded configuration the account lacks", "accounts:\n  accounts:\n    - display_name: x\n      onboarded_configurations: [merchant]\n", 4, "accounts.accounts[0].onboarded_configurations[0]", "the account has none"},
		{"an event destination of an event type not emitted", `accounts:
  event_destinations:
    - {name: h, type: webhook_endpoint, event_payload: thin, enabled_events: [v2.core.nothing], webhook_endpoint: {url: 'https://p.example/h'}}
`, 3, "accounts.event_destinations[0]", "not a thin event type"},
		{"an event destination whose id is of the other mode", `accounts:
  event_destinations:
    - id: ed_0123456789
      name: h
      type: webhook_endpoint
      event_payload: thin
      enabled_events: [v2.core.account.created]
      webhook_endpoint: {url: 'https://p.example/h'}
`, 3, "accounts.event_destinations[0].id", "test mode"},
		{"a link to no account", `accounts:
  account_links:
    - account: acct_nope
      use_case: {type: account_onboarding, account_onboarding: {configurations: [recipient], refresh_url: 'https://p.example/r'}}
`, 3, "accounts.account_links[0].account", "no account acct_nope"},
		{"a link whose token is of the other mode", `accounts:
  accounts:
    - {id: acct_1Link, display_name: x, configuration: {recipient: {}}}
  account_links:
    - token: alu_0123456789abcdefABCDEF
      account: acct_1Link
      use_case: {type: account_onboarding, account_onboarding: {configurations: [recipient], refresh_url: 'https://p.example/r'}}
`, 5, "accounts.account_links[0].token", "test mode"},
		{"a link body the spec refuses", `accounts:
  accounts:
    - {id: acct_1Link, display_name: x, configuration: {recipient: {}}}
  account_links:
    - account: acct_1Link
      use_case: {type: account_onboarding, account_onboarding: {configurations: [recipient], refresh_url: 'not a url'}}
`, 6, "accounts.account_links[0].use_case.account_onboarding.refresh_url", "doesn't match"},
		{"a link whose page could not be opened", `accounts:
  accounts:
    - {id: acct_1Link, display_name: x, configuration: {recipient: {}}}
  account_links:
    - token: alu_test_short
      account: acct_1Link
      use_case: {type: account_onboarding, account_onboarding: {configurations: [recipient], refresh_url: 'https://p.example/r'}}
`, 6, "accounts.account_links[0].account", "could not be opened"},
		{"an idempotency key to nothing", `accounts:
  idempotency_keys:
    - {operation: createAccount, key: k, request_hash: c6fca2670a71564eb197e57bfe5a96d09920e518505c32293525284b796ae7f7, ref: acct_nope, expires_at: '2026-12-26T06:07:56Z'}
`, 3, "accounts.idempotency_keys[0].ref", "a retry would find nothing"},
		{"an idempotency key of an operation that takes none", `accounts:
  idempotency_keys:
    - {operation: retrieveAccount, key: k, request_hash: c6fca2670a71564eb197e57bfe5a96d09920e518505c32293525284b796ae7f7, ref: acct_nope, expires_at: '2026-12-26T06:07:56Z'}
`, 3, "accounts.idempotency_keys[0].operation", "does not take an Idempotency-Key"},
		{"a bad location", "compute:\n  interconnectLocations:\n    - {name: x-1, metro: amsterdam, availabilityZone: zone1, peeringdbFacilityId: '1', regions: [r]}\n", 3,
			"compute.interconnectLocations[0].metro", "three lowercase letters"},
		{"a remote location permitting no location of the catalog", "compute:\n  interconnectRemoteLocations:\n    - name: aws-ams-1\n      remoteService: Amazon Web Services\n      maxLagSize10Gbps: 4\n      permittedConnections: [iad-zone1-1, ams-zone1-2]\n", 6,
			"compute.interconnectRemoteLocations[0].permittedConnections[1]", `"ams-zone1-2" is not an interconnect location of the catalog`},
		{"a remote location's nested member", "compute:\n  interconnectRemoteLocations:\n    - name: aws-ams-1\n      remoteService: Amazon Web Services\n      maxLagSize10Gbps: 4\n      permittedConnections: [iad-zone1-1]\n      constraints:\n        portPairVlan: MATCHING\n", 8,
			"compute.interconnectRemoteLocations[0].constraints.portPairVlan", "must be one of"},
		{"a remote location without LACP bundling links", "compute:\n  interconnectRemoteLocations:\n    - {name: azure-ams-1, remoteService: Microsoft Azure, lacp: LACP_UNSUPPORTED, maxLagSize10Gbps: 2, permittedConnections: [iad-zone1-1]}\n", 3,
			"compute.interconnectRemoteLocations[0].lacp", "one link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSeedFile(t, tt.yaml)
			err := loadAndApply(path)
			prefix := fmt.Sprintf("seed %s:%d: ", path, tt.line)
			if tt.field != "" {
				prefix += tt.field + ": "
			}
			if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant one starting %q and mentioning %q", err, prefix, tt.want)
			}
			t.Log(err)
		})
	}
	t.Run("the first problem of shape is reported", func(t *testing.T) {
		_, err := server.ParseSeed("s.yaml", []byte("authorization:\n  enforcement: true\naccounts:\n  account_concurrency: x\n"))
		if err == nil || !strings.Contains(err.Error(), "s.yaml:2: authorization.enforcement") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a missing file", func(t *testing.T) {
		if _, err := server.LoadSeed("no-such-seed.yaml"); err == nil || !strings.Contains(err.Error(), "no-such-seed.yaml") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the same error stops the start", func(t *testing.T) {
		seed, err := server.ParseSeed("g.yaml", []byte(group))
		if err != nil {
			t.Fatal(err)
		}
		var cfg server.Config
		if err := seed.Apply(&cfg, nil); err == nil {
			t.Fatal("Apply took the bad group")
		}
		if _, err := server.New(cfg); err == nil || !strings.Contains(err.Error(), "interconnectAttachmentGroups[0].attachments.1") {
			t.Fatalf("New: %v", err)
		}
	})
}

func TestDefaultSeedAndSettings(t *testing.T) {
	var cfg server.Config
	if err := server.DefaultSeed().Apply(&cfg, nil); err != nil {
		t.Fatal(err)
	}
	if cfg.Compute.Operations.Mode != (operations.Mode{Delay: 300 * time.Millisecond}) || cfg.Accounts.AccountConcurrency != 1 ||
		cfg.Authorization.MaxPerSubscription != 4000 || len(cfg.Compute.Projects)+len(cfg.Accounts.Accounts)+len(cfg.Authorization.Assignments) != 0 {
		t.Fatalf("default seed: %+v", cfg)
	}
	file, err := server.ParseSeed("f.yaml", []byte("compute:\n  operationMode: manual\naccounts:\n  account_concurrency: 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	explicit := func(flag string) bool { return flag == "accounts-concurrency" }
	if err := file.Apply(&cfg, explicit); err != nil {
		t.Fatal(err)
	}
	if !cfg.Compute.Operations.Mode.Manual || cfg.Accounts.AccountConcurrency != 1 {
		t.Errorf("the file's mode applies, an explicit flag wins: %+v %d", cfg.Compute.Operations.Mode, cfg.Accounts.AccountConcurrency)
	}
	var kept server.Config
	if err := file.Apply(&kept, func(flag string) bool { return flag == "compute-operation-mode" }); err != nil || kept.Compute.Operations.Mode.Manual {
		t.Errorf("--compute-operation-mode given: the seed's mode applied anyway (%v)", err)
	}
}

func TestSeedAddsInterconnectLocations(t *testing.T) {
	seed, err := server.ParseSeed("loc.yaml", []byte(`
compute:
  interconnectLocations:
    - name: ams-zone1-2
      metro: ams
      availabilityZone: zone1
      city: Amsterdam
      continent: EUROPE
      facilityProvider: Equinix
      peeringdbFacilityId: 2
      regions: [europe-west4]
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		if err := seed.Apply(c, nil); err != nil {
			t.Fatal(err)
		}
	}))
	if code, _ := (seedClient{t: t, base: srv.URL}).do("GET", seedProjectPath+"/global/interconnectLocations/ams-zone1-2", seedComputeHeaders, ""); code != 200 {
		t.Fatalf("seeded location: %d", code)
	}
}

// TestSeedAddsInterconnectRemoteLocations: a seed's remote location, permitting a location
// the same seed adds, is served with the defaults of what it leaves out, and an interconnect
// at that location can name it.
func TestSeedAddsInterconnectRemoteLocations(t *testing.T) {
	srv := startSeeded(t, writeSeedFile(t, `
compute:
  interconnectLocations:
    - {name: ams-zone1-2, metro: ams, availabilityZone: zone1, city: Amsterdam, continent: EUROPE, facilityProvider: Equinix, peeringdbFacilityId: 2, regions: [europe-west4]}
  interconnectRemoteLocations:
    - name: aws-ams-1
      remoteService: Amazon Web Services
      city: Amsterdam
      continent: EUROPE
      maxLagSize10Gbps: 4
      attachmentConfigurationConstraints:
        bgpPeerAsnRanges: [{min: 64512, max: 65534}]
      permittedConnections: [ams-zone1-2]
`))
	a := seedClient{t: t, base: srv.URL}
	code, r := a.do("GET", seedProjectPath+"/global/interconnectRemoteLocations/aws-ams-1", seedComputeHeaders, "")
	if code != 200 || r["status"] != "AVAILABLE" || r["lacp"] != "LACP_SUPPORTED" || r["maxLagSize10Gbps"] != 4.0 || r["maxLagSize100Gbps"] != nil ||
		fmt.Sprint(r["constraints"]) != "map[portPairRemoteLocation:PORT_PAIR_UNCONSTRAINED_REMOTE_LOCATION portPairVlan:PORT_PAIR_UNCONSTRAINED_VLAN subnetLengthRange:map[max:30 min:29]]" ||
		fmt.Sprint(r["attachmentConfigurationConstraints"]) != "map[bgpMd5:MD5_OPTIONAL bgpPeerAsnRanges:[map[max:65534 min:64512]]]" ||
		fmt.Sprint(r["permittedConnections"]) != "[map[interconnectLocation:"+srv.URL+seedProjectPath+"/global/interconnectLocations/ams-zone1-2]]" {
		t.Fatalf("seeded remote location: %d %v", code, r)
	}
	if code, _ := a.do("GET", seedProjectPath+"/global/interconnectRemoteLocations/aws-iad-1", seedComputeHeaders, ""); code != 200 {
		t.Errorf("the built-in catalog beside it: %d", code)
	}
}

// The seed file reference's example (docs/seed.md) is a valid seed.
func TestDocumentedSeedExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/seed.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.HasPrefix(block, "authorization:") {
		t.Fatalf("no example in docs/seed.md")
	}
	seed, err := server.ParseSeed("docs/seed.md", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	var cfg server.Config
	if err := seed.Apply(&cfg, nil); err != nil {
		t.Fatal(err)
	}
	a := cfg.Authorization
	if len(cfg.Accounts.Accounts) != 1 || len(cfg.Compute.Projects) != 1 || len(a.Assignments) != 2 || len(cfg.Accounts.Platforms) != 2 ||
		len(a.ManagementGroups) != 2 || len(a.Directory) != 3 || len(a.DenyAssignments) != 1 {
		t.Errorf("docs/seed.md example: %+v", cfg)
	}
	// What its comments say the compute resources read as.
	file := filepath.Join(t.TempDir(), "seed.yaml")
	if err := os.WriteFile(file, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	c := seedClient{t: t, base: understudytest.Start(t, understudytest.WithSeedFile(file)).URL}
	for path, want := range map[string]string{
		"/global/interconnectAttachmentGroups/prod-critical": "configured.availabilitySla.effectiveSla=PRODUCTION_CRITICAL",
		"/global/interconnectGroups/iad-pair":                "configured.topologyCapability.supportedSla=PRODUCTION_NON_CRITICAL",
	} {
		member, value, _ := strings.Cut(want, "=")
		if code, body := c.do("GET", seedProjectPath+path, seedComputeHeaders, ""); code != 200 || jsonAt(body, member) != value {
			t.Errorf("%s: %d, %s = %v, want %s", path, code, member, jsonAt(body, member), value)
		}
	}
}
