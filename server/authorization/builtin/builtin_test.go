package builtin

import (
	"regexp"
	"strings"
	"testing"
)

var guid = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// action is an Azure operation name as the vendor writes them: a namespace, then segments,
// with * wildcards (and, in one vendor definition, a literal {operationName} segment).
var action = regexp.MustCompile(`^(\*|[A-Za-z0-9.*]+(/[A-Za-z0-9._*:{}-]+)*)$`)

// withoutPermissions lists the roles of roles.txt whose definitions could not be found in a
// published source; it is empty, and a role missing from permissions.json fails
// TestCatalogShape unless it is named here (with why).
var withoutPermissions = map[string]string{}

// minDefined is how many roles carry their permissions: every role of the catalog.
const minDefined = 498

// TestCatalogShape holds the data files to the catalog's shape: several hundred roles, each
// with a GUID and a name that no other role has (in any case), a description, and
// permissions that are lists of operation names; the date taken is stated in the file.
func TestCatalogShape(t *testing.T) {
	roles := Roles()
	if len(roles) < 450 {
		t.Fatalf("catalog has %d roles, want the several hundred the vendor publishes", len(roles))
	}
	if !strings.Contains(rolesTxt, "# Taken: "+Taken) {
		t.Errorf("roles.txt does not say it was taken on %s", Taken)
	}
	ids, names, defined := map[string]bool{}, map[string]bool{}, 0
	for _, r := range roles {
		if !guid.MatchString(r.ID) {
			t.Errorf("%q: id %q is not a lower-case GUID", r.Name, r.ID)
		}
		if ids[r.ID] {
			t.Errorf("id %s appears twice", r.ID)
		}
		ids[r.ID] = true
		key := strings.ToLower(r.Name)
		if strings.TrimSpace(r.Name) != r.Name || r.Name == "" || names[key] {
			t.Errorf("role name %q is empty, padded or not unique", r.Name)
		}
		names[key] = true
		if strings.TrimSpace(r.Description) == "" {
			t.Errorf("%q has no description", r.Name)
		}
		if len(r.AssignableScopes) == 0 {
			t.Errorf("%q has no assignable scope", r.Name)
		}
		if !r.Defined {
			if _, ok := withoutPermissions[r.ID]; !ok {
				t.Errorf("%q (%s) has no permissions and is not in withoutPermissions", r.Name, r.ID)
			}
			continue
		}
		defined++
		if len(r.Actions)+len(r.DataActions) == 0 {
			t.Errorf("%q: a transcribed role grants nothing", r.Name)
		}
		for _, list := range [][]string{r.Actions, r.NotActions, r.DataActions, r.NotDataActions} {
			for _, a := range list {
				if !action.MatchString(a) || strings.Contains(a, "//") {
					t.Errorf("%q: %q is not an operation name", r.Name, a)
				}
			}
		}
	}
	for _, want := range []string{"owner", "contributor", "reader", "user access administrator", "acrpull", "storage blob data contributor", "key vault secrets user"} {
		if !names[want] {
			t.Errorf("catalog lacks %q", want)
		}
	}
	if defined < minDefined {
		t.Errorf("only %d roles carry their permissions, want at least %d", defined, minDefined)
	}
	if defined+len(withoutPermissions) != len(roles) {
		t.Errorf("%d roles defined and %d listed without permissions, but the catalog has %d", defined, len(withoutPermissions), len(roles))
	}
	for _, s := range Sources() {
		if s.Taken != Taken || s.From == "" || s.Roles <= 0 {
			t.Errorf("permissions.json source %+v does not say what it is and that it was taken on %s", s, Taken)
		}
	}
}

// TestCatalogKnownDefinitions spot-checks definitions against the vendor's, so a shifted or
// truncated copy fails: a role from each source block, the flattened two-entry roles, and
// the roles with assignable scopes other than "/".
func TestCatalogKnownDefinitions(t *testing.T) {
	byID := map[string]Role{}
	for _, r := range Roles() {
		byID[r.ID] = r
	}
	tests := []struct {
		id, name              string
		actions, dataActions  int
		firstAction, lastData string
		notActions, notData   int
		scopes                []string
	}{
		{"7f951dda-4ed3-4680-a7ca-43fe172d538d", "AcrPull", 1, 0, "Microsoft.ContainerRegistry/registries/pull/read", "", 0, 0, []string{"/"}},
		{"00c29273-979b-4161-815c-10b084fb9324", "Backup Operator", 103, 0, "Microsoft.Authorization/*/read", "", 0, 0, []string{"/"}},
		{"0a5ae4ab-0d65-4eeb-be61-29fc9b54394b", "Cognitive Services Custom Vision Trainer", 1, 1, "Microsoft.CognitiveServices/*/read", "Microsoft.CognitiveServices/accounts/CustomVision/*", 0, 4, []string{"/"}},
		{"1cfa4eac-9a23-481c-a793-bfb6958e836b", "Azure Migrate Execute Expert", 45, 0, "Microsoft.Resources/subscriptions/resourceGroups/read", "", 6, 0, []string{"/"}},
		{"4e50c84c-c78e-4e37-b47e-e60ffea0a775", "Service Group Administrator", 3, 0, "*", "", 2, 0, []string{"/providers/Microsoft.Management/serviceGroups"}},
		{"582fc458-8989-419f-a480-75249bc5db7e", "Reservations Reader", 2, 0, "Microsoft.Capacity/*/read", "", 0, 0, []string{"/providers/Microsoft.Capacity"}},
		{"ffc6bbe0-e443-4c3b-bf54-26581bb2f78e", "App Compliance Automation Reader", 1, 0, "*/read", "", 0, 0, []string{"/"}},
		{"f2dc8367-1007-4938-bd23-fe263f013447", "Cognitive Services Speech User", 3, 19, "Microsoft.CognitiveServices/*/read", "Microsoft.CognitiveServices/accounts/BatchTextToSpeech/*", 0, 2, []string{"/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := byID[tt.id]
			if !ok || r.Name != tt.name || !r.Defined {
				t.Fatalf("role %s: got %+v", tt.id, r)
			}
			if len(r.Actions) != tt.actions || len(r.DataActions) != tt.dataActions || len(r.NotActions) != tt.notActions || len(r.NotDataActions) != tt.notData {
				t.Errorf("counts: actions %d, notActions %d, dataActions %d, notDataActions %d", len(r.Actions), len(r.NotActions), len(r.DataActions), len(r.NotDataActions))
			}
			if r.Actions[0] != tt.firstAction {
				t.Errorf("first action %q, want %q", r.Actions[0], tt.firstAction)
			}
			if tt.lastData != "" && r.DataActions[len(r.DataActions)-1] != tt.lastData {
				t.Errorf("last data action %q, want %q", r.DataActions[len(r.DataActions)-1], tt.lastData)
			}
			if strings.Join(r.AssignableScopes, ",") != strings.Join(tt.scopes, ",") {
				t.Errorf("assignable scopes %v, want %v", r.AssignableScopes, tt.scopes)
			}
			if strings.TrimSpace(r.Description) == "" {
				t.Error("no description")
			}
		})
	}
}

func TestParseRejectsMalformedData(t *testing.T) {
	const owner = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635|Owner|Grants full access.\n"
	const src = `"sources": [{"roles": 1, "from": "x", "taken": "2026-11-26"}]`
	tests := []struct{ name, txt, perms string }{
		{"a line without three fields", "8e3af657-a8ff-443c-a75c-2fe8c4bcb635|Owner\n", `{"sources": [], "roles": {}}`},
		{"permissions of a role not listed", "", `{` + src + `, "roles": {"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": {"actions": ["*"]}}}`},
		{"an unknown member", owner, `{` + src + `, "roles": {"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": {"action": ["*"]}}}`},
		{"definitions no source accounts for", owner, `{"sources": [], "roles": {"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": {"actions": ["*"]}}}`},
		{"no header", owner, `{"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": {"actions": ["*"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := parse(tt.txt, []byte(tt.perms)); err == nil {
				t.Error("parse accepted it")
			}
		})
	}
}

// Names, read from roles.txt alone, names the roles Roles gives.
func TestNamesAreTheCatalogs(t *testing.T) {
	names, roles := Names(), Roles()
	if len(names) != len(roles) {
		t.Fatalf("Names has %d roles, Roles %d", len(names), len(roles))
	}
	for _, r := range roles {
		if names[r.ID] != r.Name {
			t.Errorf("Names()[%s] = %q, Roles has %q", r.ID, names[r.ID], r.Name)
		}
	}
}
