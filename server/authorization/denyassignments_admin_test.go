package authorization_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	admingen "github.com/understudy-dev/understudy/gen/admin"
)

// TestDenyAssignmentsAdmin: the admin API makes, replaces and removes deny assignments as
// the platform does, by the seed's rules, until a reset.
func TestDenyAssignmentsAdmin(t *testing.T) {
	e := newEnv(t, denyFixture)
	adm := e.srv.Admin
	c := e.client("t", true)
	body := func(display string, more map[string]any) admingen.DenyAssignment {
		return admingen.DenyAssignment(denySeed(0, "/"+rgScope, display, []string{denySP}, nil, more)["properties"].(map[string]any))
	}
	wrap := func(p admingen.DenyAssignment) admingen.DenyAssignment {
		return admingen.DenyAssignment{"properties": map[string]any(p)}
	}

	r, err := adm.PutDenyAssignmentWithResponse(ctx, denyName(7), wrap(body("Admin deny", nil)))
	if err != nil || r.JSON201 == nil {
		t.Fatalf("PUT: %v %d %s", err, r.StatusCode(), r.Body)
	}
	if (*r.JSON201)["id"] != "/"+rgScope+"/providers/Vendor.Authorization/denyAssignments/"+denyName(7) || !strings.Contains(string(r.Body), `"createdBy":"understudy-admin"`) ||
		!strings.Contains(string(r.Body), `"denyAssignmentEffect":"enforced"`) {
		t.Errorf("created = %s", r.Body)
	}
	if got := denyNames(t, c, rgScope, "atScope()"); !slices.Contains(got, denyName(7)) {
		t.Errorf("list after the PUT: %v", got)
	}

	// Replaced: its history kept, what it denies to whom changed.
	r, err = adm.PutDenyAssignmentWithResponse(ctx, strings.ToUpper(denyName(7)), admingen.DenyAssignment{"name": denyName(7), "properties": map[string]any(body("Admin deny, again", map[string]any{"principals": denyPrincipals(denyUser)}))})
	if err != nil || r.JSON200 == nil || !strings.Contains(string(r.Body), `"createdBy":"understudy-admin"`) || !strings.Contains(string(r.Body), `"createdOn":"`+denyClock.Format(time.RFC3339)) {
		t.Fatalf("PUT again: %v %d %s", err, r.StatusCode(), r.Body)
	}
	if got := denyNames(t, c, subScope, "principalId eq '"+denySP+"'"); slices.Contains(got, denyName(7)) {
		t.Errorf("the replaced principal still lists it: %v", got)
	}
	if got := denyNames(t, c, subScope, "principalId eq '"+denyUser+"'"); !slices.Contains(got, denyName(7)) {
		t.Errorf("the new principal does not list it: %v", got)
	}

	for _, tt := range []struct {
		name, id string
		body     admingen.DenyAssignment
		want     string
	}{
		{"another name in the body", denyName(8), admingen.DenyAssignment{"name": denyName(9), "properties": map[string]any(body("x", nil))}, "name: "},
		{"a rule", denyName(8), wrap(body("RG deny", nil)), "properties.denyAssignmentName: "},
		{"an unknown member", denyName(8), admingen.DenyAssignment{"props": map[string]any{}}, "props: unknown field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := adm.PutDenyAssignmentWithResponse(ctx, tt.id, tt.body)
			if err != nil || r.StatusCode() != 400 || !strings.Contains(string(r.Body), `"code":"InvalidRequest"`) || !strings.Contains(string(r.Body), tt.want) {
				t.Errorf("PUT: %v %d %s, want 400 naming %s", err, r.StatusCode(), r.Body, tt.want)
			}
		})
	}

	if r, err := adm.DeleteDenyAssignmentWithResponse(ctx, denyName(4)); err != nil || r.StatusCode() != 204 {
		t.Fatalf("DELETE: %v %d %s", err, r.StatusCode(), r.Body)
	}
	if r, err := adm.DeleteDenyAssignmentWithResponse(ctx, denyName(4)); err != nil || r.StatusCode() != 404 {
		t.Fatalf("DELETE again: %v %d %s, want 404", err, r.StatusCode(), r.Body)
	}
	if got := denyNames(t, c, subScope, "gdprExportPrincipalId eq '"+denyGroup+"'"); !slices.Equal(got, []string{denyName(2)}) {
		t.Errorf("after the delete: %v", got)
	}

	// A reset goes back to the seeded ones.
	if r, err := adm.ResetWithResponse(ctx); err != nil || r.StatusCode() != 200 {
		t.Fatal(err)
	}
	if got := denyNames(t, c, rgScope, "atScope()"); !slices.Equal(got, []string{denyName(1), denyName(2), denyName(4)}) {
		t.Errorf("after a reset: %v", got)
	}
}
