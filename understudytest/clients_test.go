package understudytest_test

// What the vendors' clients send that the specs do not spell out word for word, each
// through the client that sends it (issue 40).

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	armauthorizationv1 "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization"
	"github.com/stripe/stripe-go/v85"

	"github.com/understudy-dev/understudy/understudytest"
)

// queries records the raw query of every request that passes through it.
type queries struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (q *queries) RoundTrip(req *http.Request) (*http.Response, error) {
	q.mu.Lock()
	q.seen = append(q.seen, req.URL.Path+"?"+req.URL.RawQuery)
	q.mu.Unlock()
	return q.next.RoundTrip(req)
}

// sent reports whether a request for a path ending in suffix had exactly the query raw.
func (q *queries) sent(suffix, raw string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.seen {
		if path, query, _ := strings.Cut(s, "?"); strings.HasSuffix(path, suffix) && query == raw {
			return true
		}
	}
	return false
}

// TestStripeEmptyLists: stripe-go writes an explicitly empty list as name= (its form
// encoder's way to send an empty array); each list parameter of the accounts API takes it
// as the empty list, which asks for what leaving it out does.
func TestStripeEmptyLists(t *testing.T) {
	srv := understudytest.Start(t)
	ctx := context.Background()
	rec := &queries{next: serviceVersion{http.DefaultTransport}}
	sc := stripe.NewClient("sk_test_123", stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:        stripe.String(srv.URL),
		HTTPClient: &http.Client{Transport: rec},
	})))

	acct, err := sc.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{
		DisplayName: stripe.String("Empty lists"),
		Include:     []*string{stripe.String("identity")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc.V2CoreAccounts.Retrieve(ctx, acct.ID, &stripe.V2CoreAccountRetrieveParams{Include: []*string{}})
	if err != nil {
		t.Fatalf("retrieve with include=: %v", err)
	}
	if got.ID != acct.ID || got.Identity != nil {
		t.Errorf("retrieve with include=: %+v, want the account without its identity section", got)
	}
	if !rec.sent("/v2/core/accounts/"+acct.ID, "include=") {
		t.Errorf("stripe-go did not send include= (sent %q): the test no longer tests what it says", rec.seen)
	}

	var listed int
	for a, err := range sc.V2CoreAccounts.List(ctx, &stripe.V2CoreAccountListParams{AppliedConfigurations: []*string{}}).All(ctx) {
		if err != nil {
			t.Fatalf("list with applied_configurations=: %v", err)
		}
		if a.ID == acct.ID {
			listed++
		}
	}
	if listed != 1 {
		t.Errorf("list with applied_configurations=: the account listed %d times, want once", listed)
	}
	for _, err := range sc.V2CoreEvents.List(ctx, &stripe.V2CoreEventListParams{Types: []*string{}, ObjectID: stripe.String(acct.ID)}).All(ctx) {
		if err != nil {
			t.Fatalf("list events with types=: %v", err)
		}
	}
	if !rec.sent("/v2/core/accounts", "applied_configurations=") {
		t.Errorf("stripe-go did not send applied_configurations= (sent %q)", rec.seen)
	}
}

// TestAzureRoleAssignmentUpdateAt20150701: the Azure SDK for Go generated from the
// 2015-07-01 REST specification (armauthorization v1, which sends that api-version for role
// assignments) accepts only 201 from the role-assignment PUT, as that specification
// defines; a second, identical Create (an update) must succeed too, as it does against ARM.
func TestAzureRoleAssignmentUpdateAt20150701(t *testing.T) {
	srv := understudytest.Start(t)
	ctx := context.Background()
	sub := "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	ra, err := armauthorizationv1.NewRoleAssignmentsClient(sub, &azfake.TokenCredential{}, &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: "https://login.understudy.local/",
				Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
					cloud.ResourceManager: {Endpoint: srv.URL, Audience: "https://management.understudy.local"},
				},
			},
			InsecureAllowCredentialWithHTTP: true,
			PerCallPolicies:                 []policy.Policy{vendorNamespace{}},
		},
		DisableRPRegistration: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	params := armauthorizationv1.RoleAssignmentCreateParameters{Properties: &armauthorizationv1.RoleAssignmentProperties{
		PrincipalID:      to.Ptr("ce2ce14e-85d7-4629-bdbc-454d0519d987"),
		RoleDefinitionID: to.Ptr("/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"),
	}}
	scope, name := "/subscriptions/"+sub, "b0f43c54-e787-4862-89b1-a653fa9cf747"
	for _, step := range []string{"create", "the same again (an update)"} {
		got, err := ra.Create(ctx, scope, name, params, nil)
		if err != nil {
			t.Fatalf("%s at 2015-07-01: %v", step, err)
		}
		if got.Name == nil || *got.Name != name {
			t.Errorf("%s at 2015-07-01: %+v", step, got.RoleAssignment)
		}
	}
	if _, err := ra.Delete(ctx, scope, name, nil); err != nil {
		t.Errorf("delete at 2015-07-01: %v", err)
	}
	if _, err := ra.Delete(ctx, scope, name, nil); err != nil {
		t.Errorf("delete of what is gone (204) at 2015-07-01: %v", err)
	}
}
