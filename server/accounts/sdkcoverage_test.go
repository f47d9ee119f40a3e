package accounts_test

import (
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stripe/stripe-go/v85"

	gen "github.com/understudy-dev/understudy/gen/accounts"
)

// TestSpecCoversSDK holds specs/accounts.yaml to stripe-go v85's v2 core types: every
// member of every request and object type the SDK knows for accounts, account links,
// persons, tokens, event destinations and events (found through the json tags of its
// structs, at any depth) is a member of the matching schema, and every operation of those
// services is in the spec.
// A member dropped from the spec, or a new SDK version with members the spec lacks,
// fails here with the member's path.
func TestSpecCoversSDK(t *testing.T) {
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sdk    any
		schema string
	}{
		{stripe.V2CoreAccountCreateParams{}, "CreateAccountRequest"},
		{stripe.V2CoreAccountUpdateParams{}, "UpdateAccountRequest"},
		{stripe.V2CoreAccountCloseParams{}, "CloseAccountRequest"},
		{stripe.V2CoreAccount{}, "V2CoreAccount"},
		{stripe.V2CoreAccountLinkCreateParams{}, "CreateAccountLinkRequest"},
		{stripe.V2CoreAccountLink{}, "V2CoreAccountLink"},
		{stripe.V2CoreAccountsPersonCreateParams{}, "CreatePersonRequest"},
		{stripe.V2CoreAccountsPersonUpdateParams{}, "UpdatePersonRequest"},
		{stripe.V2CoreAccountPerson{}, "V2CoreAccountPerson"},
		{stripe.V2DeletedObject{}, "V2DeletedObject"},
		{stripe.V2CoreAccountTokenCreateParams{}, "CreateAccountTokenRequest"},
		{stripe.V2CoreAccountToken{}, "V2CoreAccountToken"},
		{stripe.V2CoreAccountsPersonTokenCreateParams{}, "CreatePersonTokenRequest"},
		{stripe.V2CoreAccountPersonToken{}, "V2CoreAccountPersonToken"},
		{stripe.V2CoreEventDestinationCreateParams{}, "CreateEventDestinationRequest"},
		{stripe.V2CoreEventDestinationUpdateParams{}, "UpdateEventDestinationRequest"},
		{stripe.V2CoreEventDestination{}, "V2CoreEventDestination"},
		{stripe.V2BaseEvent{}, "V2CoreEvent"},
	} {
		t.Run(tt.schema, func(t *testing.T) {
			ref := spec.Components.Schemas[tt.schema]
			if ref == nil {
				t.Fatalf("no schema %s", tt.schema)
			}
			have := map[string]bool{}
			specMembers(ref, "", have, map[*openapi3.Schema]bool{})
			want := map[string]bool{}
			sdkMembers(reflect.TypeOf(tt.sdk), "", want, map[reflect.Type]bool{})
			var missing []string
			for m := range want {
				if !have[m] {
					missing = append(missing, m)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s lacks %d of the %d members of %T: %s", tt.schema, len(missing), len(want), tt.sdk, strings.Join(missing, ", "))
			}
			if len(want) == 0 {
				t.Fatalf("only %d members found in %T: the walk is broken", len(want), tt.sdk)
			}
		})
	}

	// The operations of stripe-go's v2 core account, link, person, account token, person
	// token, event destination and event services, with the query parameters of its list
	// and retrieve params.
	for _, op := range []struct {
		method, path string
		query        any
	}{
		{http.MethodPost, "/v2/core/accounts", nil},
		{http.MethodGet, "/v2/core/accounts", stripe.V2CoreAccountListParams{}},
		{http.MethodGet, "/v2/core/accounts/{id}", stripe.V2CoreAccountRetrieveParams{}},
		{http.MethodPost, "/v2/core/accounts/{id}", nil},
		{http.MethodPost, "/v2/core/accounts/{id}/close", nil},
		{http.MethodPost, "/v2/core/account_links", nil},
		{http.MethodPost, "/v2/core/accounts/{id}/persons", nil},
		{http.MethodGet, "/v2/core/accounts/{id}/persons", stripe.V2CoreAccountsPersonListParams{}},
		{http.MethodGet, "/v2/core/accounts/{id}/persons/{person_id}", nil},
		{http.MethodPost, "/v2/core/accounts/{id}/persons/{person_id}", nil},
		{http.MethodDelete, "/v2/core/accounts/{id}/persons/{person_id}", nil},
		{http.MethodPost, "/v2/core/account_tokens", nil},
		{http.MethodGet, "/v2/core/account_tokens/{id}", nil},
		{http.MethodPost, "/v2/core/accounts/{id}/person_tokens", nil},
		{http.MethodGet, "/v2/core/accounts/{id}/person_tokens/{token_id}", nil},
		{http.MethodPost, "/v2/core/event_destinations", nil},
		{http.MethodGet, "/v2/core/event_destinations", stripe.V2CoreEventDestinationListParams{}},
		{http.MethodGet, "/v2/core/event_destinations/{id}", stripe.V2CoreEventDestinationRetrieveParams{}},
		{http.MethodPost, "/v2/core/event_destinations/{id}", nil},
		{http.MethodDelete, "/v2/core/event_destinations/{id}", nil},
		{http.MethodPost, "/v2/core/event_destinations/{id}/enable", nil},
		{http.MethodPost, "/v2/core/event_destinations/{id}/disable", nil},
		{http.MethodPost, "/v2/core/event_destinations/{id}/ping", nil},
		{http.MethodGet, "/v2/core/events", stripe.V2CoreEventListParams{}},
		{http.MethodGet, "/v2/core/events/{id}", nil},
	} {
		item := spec.Paths.Find(op.path)
		if item == nil || item.GetOperation(op.method) == nil {
			t.Errorf("no operation %s %s", op.method, op.path)
			continue
		}
		if op.query == nil {
			continue
		}
		params := map[string]bool{}
		for _, p := range item.GetOperation(op.method).Parameters {
			params[p.Value.Name] = true
		}
		want := map[string]bool{}
		sdkMembers(reflect.TypeOf(op.query), "", want, map[reflect.Type]bool{})
		for m := range want {
			if !params[strings.SplitN(m, ".", 2)[0]] {
				t.Errorf("%s %s lacks the query parameter %s of %T", op.method, op.path, m, op.query)
			}
		}
	}
}

var timeType = reflect.TypeOf(time.Time{})

// sdkMembers adds the dotted json paths of the members of an SDK type to out.
func sdkMembers(t reflect.Type, prefix string, out map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == timeType || seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			continue // stripe.Params, APIResource: the SDK's own plumbing
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name == "" || name == "-" {
			continue
		}
		out[prefix+name] = true
		sdkMembers(f.Type, prefix+name+".", out, seen)
	}
}

// specMembers adds the dotted paths of the properties of a schema to out.
func specMembers(ref *openapi3.SchemaRef, prefix string, out map[string]bool, seen map[*openapi3.Schema]bool) {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return
	}
	s := ref.Value
	seen[s] = true
	defer delete(seen, s)
	for _, sub := range s.AllOf {
		specMembers(sub, prefix, out, seen)
	}
	if s.Items != nil {
		specMembers(s.Items, prefix, out, seen)
	}
	for name, p := range s.Properties {
		out[prefix+name] = true
		specMembers(p, prefix+name+".", out, seen)
	}
}
