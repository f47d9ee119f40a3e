package authorization

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// TestScopeAndBelow: the ranges of ByScope that hold a scope and what is below it, and
// nothing that merely starts with the same letters.
func TestScopeAndBelow(t *testing.T) {
	db := store.New(store.NewMemory())
	a := newTables(db)
	scopes := []string{"subscriptions/s1", "subscriptions/s1/resourcegroups/rg", "subscriptions/s10", "subscriptions/s1-x", "subscriptions/s2"}
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		for i, s := range scopes {
			var r Assignment
			r.Name, r.Properties.Scope = ptr(fmt.Sprint(i)), ptr("/"+s)
			r.Properties.PrincipalId, r.Properties.RoleDefinitionId = "p", roleDefinitionsPrefix+"r"
			if err := a.Assignments.Put(tx, *r.Name, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = db.View(context.Background(), func(tx *store.Tx) error {
		for _, rg := range scopeAndBelow("subscriptions/s1") {
			a.ByScope.Scan(tx, rg[0], rg[1], nil, func(_ store.Cursor, r Assignment) bool {
				got = append(got, r.scopeKey())
				return true
			})
		}
		return nil
	})
	if fmt.Sprint(got) != "[subscriptions/s1 subscriptions/s1/resourcegroups/rg]" {
		t.Fatalf("at and below s1 = %v", got)
	}
}

// TestLeanIsFull: an assignment stored lean reads back whole, whichever of its members
// equal others.
func TestLeanIsFull(t *testing.T) {
	t1, t2 := time.Date(2026, 11, 21, 10, 0, 0, 100, time.UTC), time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	base := func(name string, updatedOn time.Time, updatedBy, updatedByType string) Assignment {
		a := Assignment{CreatedByType: "User", UpdatedByType: updatedByType}
		a.Name = &name
		a.Properties = gen.RoleAssignmentProperties{Scope: ptr("/subscriptions/s"), PrincipalId: "p", RoleDefinitionId: roleDefinitionsPrefix + "r",
			CreatedOn: &t1, CreatedBy: ptr("alice"), UpdatedOn: &updatedOn, UpdatedBy: &updatedBy}
		return a
	}
	for _, a := range []Assignment{
		base("n", t1, "alice", "User"),      // as created
		base("N", t2, "bob", "Application"), // updated by another, named in upper case
		base("n", t2, "alice", "User"),      // updated by its creator
		base("n", t1.Add(time.Nanosecond), "alice", "User"),
	} {
		stored := a.lean("n")
		doc, err := json.Marshal(stored)
		if err != nil {
			t.Fatal(err)
		}
		var back Assignment
		if err := json.Unmarshal(doc, &back); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(a)
		if got, _ := json.Marshal(back.full("n")); string(got) != string(want) {
			t.Errorf("stored %s\nread   %s\nwant   %s", doc, got, want)
		}
	}
}

// TestIndexKeysOfScope: the index keys an assignment's scope gives, built without lowering
// the whole scope, are those of its scope key.
func TestIndexKeysOfScope(t *testing.T) {
	for _, c := range []struct{ scope, sub string }{
		{"/subscriptions/0B1F6471-1BF0-4DDA-AEC3-CB9272F09590/resourceGroups/RG", "0b1f6471-1bf0-4dda-aec3-cb9272f09590"},
		{"/SUBSCRIPTIONS/s1/", "s1"},
		{"subscriptions/s1/resourcegroups/rg/providers/Microsoft.Web/sites/Ä", "s1"},
		{"/subscriptions", ""},
		{"/", ""},
		{"/providers/Microsoft.Management/managementGroups/MG-1", ""},
		{"/Providers/microsoft.management/ManagementGroups/mg", ""},
	} {
		var a Assignment
		a.Properties.Scope, a.Properties.PrincipalId = ptr(c.scope), "p"
		if got, want := a.byScopeKey(), assignmentKey(a.scopeKey(), "p"); got != want {
			t.Errorf("%s: byScopeKey %q, want %q", c.scope, got, want)
		}
		if got := subscriptionOfPath(c.scope); got != c.sub {
			t.Errorf("%s: subscriptionOfPath %q, want %q", c.scope, got, c.sub)
		}
	}
}
