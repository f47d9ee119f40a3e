package server_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"

	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/randfill"
	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/compute"
	"github.com/understudy-dev/understudy/server/control"
)

// The generated code (its responses and clients), the store's rows and the accounts' trees
// are encoded with goccy/go-json on its promise to write and read what encoding/json does.
// This holds it to that over random values of every exported type the store keeps (the
// unexported rows are flat: names, numbers, times) and the APIs' objects, lists and errors:
// the same bytes written (HTML characters, U+2028, invalid UTF-8, times beyond year 9999
// and all), and encoding/json's bytes read back to the same value.
func TestGoccyJSONIsEncodingJSON(t *testing.T) {
	types := []reflect.Type{
		// Rows.
		reflect.TypeFor[authorization.Assignment](), reflect.TypeFor[authorization.DirectoryObject](),
		reflect.TypeFor[authorization.Membership](), reflect.TypeFor[authorization.DenyPrincipal](),
		reflect.TypeFor[authzgen.DenyAssignment](), reflect.TypeFor[accounts.Account](),
		reflect.TypeFor[accounts.AccountLink](), reflect.TypeFor[accounts.Idempotency](),
		reflect.TypeFor[accounts.Person](), reflect.TypeFor[accounts.Token](), reflect.TypeFor[accounts.Event](),
		reflect.TypeFor[accounts.EventDestination](), reflect.TypeFor[accounts.Delivery](),
		reflect.TypeFor[compute.RuleRecord](), reflect.TypeFor[compute.InterconnectRecord](),
		reflect.TypeFor[compute.AttachmentRecord](), reflect.TypeFor[compute.GroupRecord](),
		reflect.TypeFor[compute.InterconnectGroupRecord](), reflect.TypeFor[computegen.Policy](),
		reflect.TypeFor[operations.Record](), reflect.TypeFor[control.Entry](), reflect.TypeFor[control.Rule](),
		// Objects, lists and errors the APIs answer with.
		reflect.TypeFor[authzgen.RoleAssignmentListResult](), reflect.TypeFor[authzgen.RoleDefinitionListResult](),
		reflect.TypeFor[authzgen.PermissionGetResult](), reflect.TypeFor[authzgen.DenyAssignmentListResult](),
		reflect.TypeFor[authzgen.ErrorResponse](),
		reflect.TypeFor[accountsgen.V2CoreAccountList](), reflect.TypeFor[accountsgen.V2CoreAccountLink](),
		reflect.TypeFor[accountsgen.V2CoreAccountPersonList](), reflect.TypeFor[accountsgen.V2CoreEventList](),
		reflect.TypeFor[accountsgen.V2CoreEventDestinationList](), reflect.TypeFor[accountsgen.ErrorResponse](),
		reflect.TypeFor[computegen.ForwardingRuleAggregatedList](), reflect.TypeFor[computegen.ForwardingRuleList](),
		reflect.TypeFor[computegen.InterconnectAttachmentGroupList](), reflect.TypeFor[computegen.InterconnectAttachmentAggregatedList](),
		reflect.TypeFor[computegen.InterconnectList](), reflect.TypeFor[computegen.InterconnectLocationList](),
		reflect.TypeFor[computegen.InterconnectRemoteLocationList](),
		reflect.TypeFor[computegen.OperationAggregatedList](), reflect.TypeFor[computegen.OperationList](),
		reflect.TypeFor[computegen.GoogleErrorResponse](),
		// A JSON tree (an account's object as the accounts API changes it).
		reflect.TypeFor[map[string]any](),
	}
	rng := rand.New(rand.NewPCG(36, 1))
	for _, typ := range types {
		t.Run(typ.String(), func(t *testing.T) {
			for range 200 {
				v := reflect.New(typ)
				randfill.Fill(rng, v.Elem())
				want, werr := json.Marshal(v.Interface())
				got, gerr := gojson.Marshal(v.Interface())
				if (werr == nil) != (gerr == nil) || string(want) != string(got) {
					t.Fatalf("encoding/json: %s (%v)\ngoccy/go-json: %s (%v)", want, werr, got, gerr)
				}
				if werr != nil {
					continue
				}
				std, fast := reflect.New(typ), reflect.New(typ)
				serr, ferr := json.Unmarshal(want, std.Interface()), gojson.Unmarshal(want, fast.Interface())
				if serr != nil || ferr != nil {
					t.Fatalf("reading %s: encoding/json %v, goccy/go-json %v", want, serr, ferr)
				}
				a, _ := json.Marshal(std.Interface())
				b, _ := json.Marshal(fast.Interface())
				if string(a) != string(b) {
					t.Fatalf("read %s\nencoding/json: %s\ngoccy/go-json: %s", want, a, b)
				}
			}
		})
	}
	// An account's object is written without sorting its members (setObject).
	for range 200 {
		var tree map[string]any
		randfill.Fill(rng, reflect.ValueOf(&tree).Elem())
		raw, err := gojson.MarshalWithOption(tree, gojson.UnorderedMap())
		var back any
		if err != nil || json.Unmarshal(raw, &back) != nil || !reflect.DeepEqual(back, normalized(t, tree)) {
			t.Fatalf("unordered %v: %s (%v)", tree, raw, err)
		}
	}
}

// normalized is v as encoding/json reads it back.
func normalized(t *testing.T, v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
