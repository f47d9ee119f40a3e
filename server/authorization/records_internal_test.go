package authorization

import (
	"context"
	"fmt"
	"testing"

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
