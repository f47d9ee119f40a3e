package builtin

import (
	"regexp"
	"strings"
	"testing"
)

var guid = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// action is an Azure operation name as the vendor writes them: a namespace, then segments,
// with * wildcards.
var action = regexp.MustCompile(`^(\*|[A-Za-z0-9.*]+(/[A-Za-z0-9._*:-]+)*)$`)

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
			continue
		}
		defined++
		if len(r.Actions)+len(r.DataActions) == 0 {
			t.Errorf("%q: a transcribed role grants nothing", r.Name)
		}
		for _, list := range [][]string{r.Actions, r.NotActions, r.DataActions, r.NotDataActions} {
			for _, a := range list {
				if !action.MatchString(a) {
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
	if defined < 40 {
		t.Errorf("only %d roles carry their permissions", defined)
	}
}

func TestParseRejectsMalformedData(t *testing.T) {
	tests := []struct{ name, txt, perms string }{
		{"a line without three fields", "8e3af657-a8ff-443c-a75c-2fe8c4bcb635|Owner\n", "{}"},
		{"permissions of a role not listed", "", `{"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": {"actions": ["*"]}}`},
		{"an unknown member", "", `{"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": {"action": ["*"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parse(tt.txt, []byte(tt.perms)); err == nil {
				t.Error("parse accepted it")
			}
		})
	}
}
