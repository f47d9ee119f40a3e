package accounts

import (
	"reflect"
	"testing"
)

// A request's plain members (all but dashboard, metadata, identity, defaults and
// configuration) go into the object as they were sent, whatever their names: so a member
// the spec adds to the request and the object alike is stored and returned with no code of
// its own.
func TestApplyAccountKeepsPlainMembers(t *testing.T) {
	obj := map[string]any{"id": "acct_1", "display_name": "Old", "contact_phone": "+1 555"}
	req := map[string]any{"display_name": "New", "contact_email": nil, "a_member_added_later": "kept"}
	if err := applyAccount(&Account{}, obj, req); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "acct_1", "display_name": "New", "contact_phone": "+1 555", "contact_email": nil, "a_member_added_later": "kept"}
	if !reflect.DeepEqual(obj, want) {
		t.Errorf("got %v, want %v", obj, want)
	}
}

// An account that must provide nothing has no requirements, not an empty list of them: the
// events of a change compare the requirements before and after with reflect.DeepEqual, and
// an account without configurations (which needs nothing either) has none.
func TestRequirementsOfNothingIsNil(t *testing.T) {
	a := Account{Onboarded: true}
	obj := map[string]any{
		"contact_email": "a@example.com", "display_name": "A",
		"identity":      map[string]any{"country": "US", "entity_type": "company"},
		"configuration": map[string]any{"recipient": map[string]any{}},
	}
	if got := requirementsOf(&a, obj, nil); got != nil {
		t.Fatalf("requirementsOf = %#v, want nil", got)
	}
	delete(obj, "configuration")
	if got := requirementsOf(&a, obj, nil); got != nil {
		t.Fatalf("requirementsOf without configurations = %#v, want nil", got)
	}
}

// applyAccount leaves the request's tree as it is: a transaction may run again (the store
// retries a conflict), and reads the same request.
func TestApplyAccountLeavesRequest(t *testing.T) {
	req := func() map[string]any {
		return map[string]any{
			"identity": map[string]any{"country": "us", "individual": map[string]any{"given_name": "A"}},
			"configuration": map[string]any{"recipient": map[string]any{"applied": true,
				"capabilities": map[string]any{"stripe_balance": map[string]any{"stripe_transfers": map[string]any{"requested": true}}}}},
		}
	}
	r := req()
	var objs [2]map[string]any
	for i := range objs {
		objs[i] = map[string]any{"id": "acct_1"}
		if err := applyAccount(&Account{}, objs[i], r); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(r, req()) {
		t.Errorf("the request became %v", r)
	}
	if !reflect.DeepEqual(objs[0], objs[1]) {
		t.Errorf("a second run made %v, the first %v", objs[1], objs[0])
	}
	if c := objs[0]["identity"].(map[string]any)["country"]; c != "US" {
		t.Errorf("country %v, want US", c)
	}
}
