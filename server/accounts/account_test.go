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
