package authorization_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/authorization"
)

// seedError loads cfg's seed into a new store and returns the SeedError it fails with.
func seedError(t *testing.T, cfg authorization.Config) *authorization.SeedError {
	t.Helper()
	db := store.New(store.NewMemory())
	s, err := authorization.New(cfg, db)
	if err == nil {
		err = db.Replace(context.Background(), func(tx *store.Tx) error { return s.Seed(tx, cfg) })
	}
	var se *authorization.SeedError
	if !errors.As(err, &se) {
		t.Fatalf("seed error = %v, want a SeedError", err)
	}
	return se
}

// TestSeedEntryErrors: a seed entry is read as the object it is (or in the shorter form),
// checked by the spec and the rules of a PUT, and the member at fault is named as the entry
// spells it.
func TestSeedEntryErrors(t *testing.T) {
	reader := "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID
	object := func(props map[string]any) authorization.SeedAssignment {
		p := map[string]any{"scope": "/" + subScope, "principalId": principal1, "roleDefinitionId": reader}
		for k, v := range props {
			p[k] = v
		}
		return authorization.SeedAssignment{"name": name1, "properties": p}
	}
	flat := func(members map[string]any) authorization.SeedAssignment {
		a := authorization.SeedAssignment{"name": name1, "scope": subScope, "principalId": principal1, "roleDefinitionId": reader}
		for k, v := range members {
			a[k] = v
		}
		return a
	}
	tests := []struct {
		name        string
		assignments []authorization.SeedAssignment
		roles       []authorization.SeedRole
		collection  string
		index       int
		field, want string
	}{
		{"an unknown member", []authorization.SeedAssignment{object(map[string]any{"principalTyp": "User"})}, nil,
			authorization.SeedAssignments, 0, "properties.principalTyp", "unknown field"},
		{"an unknown member, shorter form", []authorization.SeedAssignment{flat(map[string]any{"principalTyp": "User"})}, nil,
			authorization.SeedAssignments, 0, "principalTyp", "unknown field"},
		{"a value of the wrong type", []authorization.SeedAssignment{object(map[string]any{"description": []any{"a"}})}, nil,
			authorization.SeedAssignments, 0, "properties.description", "want a string, got a list"},
		{"the spec's checks", []authorization.SeedAssignment{flat(map[string]any{"description": strings.Repeat("d", 2049)})}, nil,
			authorization.SeedAssignments, 0, "description", "maximum string length is 2048"},
		{"the spec's enum", []authorization.SeedAssignment{object(map[string]any{"principalType": "Robot"})}, nil,
			authorization.SeedAssignments, 0, "properties.principalType", "allowed values"},
		{"a time", []authorization.SeedAssignment{object(map[string]any{"createdOn": "yesterday"})}, nil,
			authorization.SeedAssignments, 0, "properties.createdOn", `"yesterday" is not an RFC 3339 time`},
		{"no scope", []authorization.SeedAssignment{{"name": name1, "properties": map[string]any{"principalId": principal1, "roleDefinitionId": reader}}}, nil,
			authorization.SeedAssignments, 0, "properties.scope", "required"},
		{"a rule of PUT", []authorization.SeedAssignment{object(nil), {"name": name2, "properties": map[string]any{"scope": "/" + subScope, "principalId": principal1, "roleDefinitionId": reader}}}, nil,
			authorization.SeedAssignments, 1, "name", "RoleAssignmentExists"},
		{"a role of PUT's rules", nil, []authorization.SeedRole{{"name": "33333333-3333-4333-8333-333333333333", "properties": map[string]any{"roleName": "reader"}}},
			authorization.SeedRoles, 0, "name", "another role has that name"},
		{"a role's unknown member", nil, []authorization.SeedRole{{"name": "33333333-3333-4333-8333-333333333333", "properties": map[string]any{"roleName": "x", "actions": []any{"a"}}}},
			authorization.SeedRoles, 0, "properties.actions", "unknown field"},
		{"a role's permission list, shorter form", nil, []authorization.SeedRole{{"id": "33333333-3333-4333-8333-333333333333", "roleName": "x", "actions": "a"}},
			authorization.SeedRoles, 0, "actions", "want a list, got a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			se := seedError(t, authorization.Config{Assignments: tt.assignments, RoleDefinitions: tt.roles})
			if se.Collection != tt.collection || se.Index != tt.index || se.Field != tt.field || !strings.Contains(se.Err.Error(), tt.want) {
				t.Errorf("error = %s[%d].%s: %v; want %s[%d].%s: ...%s...", se.Collection, se.Index, se.Field, se.Err, tt.collection, tt.index, tt.field, tt.want)
			}
		})
	}
}

// TestSeedEntryForms: an assignment and a role load the same from their object and from the
// shorter form, and what the export writes of them loads back as they were.
func TestSeedEntryForms(t *testing.T) {
	reader := "/providers/Vendor.Authorization/roleDefinitions/" + authorization.ReaderRoleID
	role := "33333333-3333-4333-8333-333333333333"
	forms := []authorization.Config{{
		RoleDefinitions: []authorization.SeedRole{{"id": role, "roleName": "Op", "actions": []any{"a/read"}, "notActions": []any{"a/secrets/read"}}},
		Assignments: []authorization.SeedAssignment{{"name": name1, "scope": subScope, "principalId": principal1, "roleDefinitionId": reader,
			"description": "d", "createdOn": "2026-11-21T10:00:00.1234567Z", "createdByType": "User", "updatedOn": "2026-11-22T10:00:00Z"}},
	}, {
		RoleDefinitions: []authorization.SeedRole{{"name": role, "properties": map[string]any{"roleName": "Op",
			"permissions": []any{map[string]any{"actions": []any{"a/read"}, "notActions": []any{"a/secrets/read"}}}}}},
		Assignments: []authorization.SeedAssignment{{"name": name1, "createdByType": "User", "properties": map[string]any{"scope": "/" + subScope,
			"principalId": principal1, "roleDefinitionId": reader, "description": "d", "createdOn": "2026-11-21T10:00:00.1234567Z", "updatedOn": "2026-11-22T10:00:00Z"}}},
	}}
	var exports []string
	for _, cfg := range forms {
		for range 2 { // as given, then as exported
			cfg.Now = func() time.Time { return time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC) }
			db := store.New(store.NewMemory())
			s, err := authorization.New(cfg, db)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := db.Replace(ctx, func(tx *store.Tx) error { return s.Seed(tx, cfg) }); err != nil {
				t.Fatal(err)
			}
			var roles []authorization.SeedRole
			var assignments []authorization.SeedAssignment
			_ = db.View(ctx, func(tx *store.Tx) error {
				roles, err = s.ExportRoles(tx)
				if err == nil {
					assignments, err = s.Export(tx)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(map[string]any{"roles": roles, "assignments": assignments})
			exports = append(exports, string(got))
			cfg.RoleDefinitions, cfg.Assignments = roles, assignments
		}
	}
	for _, e := range exports[1:] {
		if e != exports[0] {
			t.Errorf("exports differ:\n%s\n%s", exports[0], e)
		}
	}
	for _, want := range []string{`"createdOn":"2026-11-21T10:00:00.1234567Z"`, `"updatedOn":"2026-11-22T10:00:00Z"`, `"updatedBy":"understudy-seed"`,
		`"createdByType":"User"`, `"updatedByType":"Application"`, `"notActions":["a/secrets/read"]`} {
		if !strings.Contains(exports[0], want) {
			t.Errorf("export lacks %s: %s", want, exports[0])
		}
	}
}
