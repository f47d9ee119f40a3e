package understudytest_test

// The README's recipes for the vendors' own Go SDKs, as they appear there (TestREADMEGoBlocks
// holds each README Go block to a piece of this file), each run against a server.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/stripe/stripe-go/v85"
	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/option"

	"github.com/understudy-dev/understudy/understudytest"
)

// --- Google Cloud (compute) ---

func googleCompute(ctx context.Context, baseURL string) (*compute.Service, error) {
	return compute.NewService(ctx,
		option.WithEndpoint(baseURL+"/compute/v1/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "any-token"})))
}

// --- Azure (authorization) ---

func azureRoleAssignments(baseURL, subscriptionID string) (*armauthorization.RoleAssignmentsClient, error) {
	opts := &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: "https://login.understudy.local/",
				Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
					cloud.ResourceManager: {Endpoint: baseURL, Audience: "https://management.understudy.local"},
				},
			},
			InsecureAllowCredentialWithHTTP: true, // not needed over HTTPS (--tls auto)
			PerCallPolicies:                 []policy.Policy{vendorNamespace{}},
		},
		DisableRPRegistration: true,
	}
	return armauthorization.NewRoleAssignmentsClient(subscriptionID, &azfake.TokenCredential{}, opts)
}

// vendorNamespace sends the SDK's Microsoft.Authorization requests to Vendor.Authorization.
type vendorNamespace struct{}

func (vendorNamespace) Do(req *policy.Request) (*http.Response, error) {
	u := req.Raw().URL
	u.Path = strings.ReplaceAll(u.Path, "Microsoft.Authorization", "Vendor.Authorization")
	u.RawPath = strings.ReplaceAll(u.RawPath, "Microsoft.Authorization", "Vendor.Authorization")
	if body := req.Body(); body != nil {
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		b = bytes.ReplaceAll(b, []byte("Microsoft.Authorization"), []byte("Vendor.Authorization"))
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), "application/json"); err != nil {
			return nil, err
		}
	}
	return req.Next()
}

// --- Stripe (accounts) ---

func stripeClient(baseURL string) *stripe.Client {
	return stripe.NewClient("sk_test_123", stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:        stripe.String(baseURL),
		HTTPClient: &http.Client{Transport: serviceVersion{http.DefaultTransport}},
	})))
}

// serviceVersion sends the Service-Version header the accounts API requires.
type serviceVersion struct{ next http.RoundTripper }

func (t serviceVersion) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Service-Version", "2026-05-27.dahlia")
	return t.next.RoundTrip(req)
}

// TestRecipes: each recipe's client makes a call against a server.
func TestRecipes(t *testing.T) {
	srv := understudytest.Start(t)
	ctx := context.Background()

	svc, err := googleCompute(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.GlobalForwardingRules.Insert("my-project", &compute.ForwardingRule{Name: "fr-recipe"}).Context(ctx).Do(); err != nil {
		t.Errorf("Google compute insert: %v", err)
	}

	sub := "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	ra, err := azureRoleAssignments(srv.URL, sub)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ra.Create(ctx, "/subscriptions/"+sub, "b0f43c54-e787-4862-89b1-a653fa9cf747", armauthorization.RoleAssignmentCreateParameters{
		Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID:      to.Ptr("ce2ce14e-85d7-4629-bdbc-454d0519d987"),
			RoleDefinitionID: to.Ptr("/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"),
		},
	}, nil)
	if err != nil {
		t.Errorf("Azure role assignment create: %v", err)
	}

	sc := stripeClient(srv.URL)
	acct, err := sc.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{DisplayName: stripe.String("Recipe")})
	if err != nil || !strings.HasPrefix(acct.ID, "acct_") {
		t.Errorf("Stripe account create: %v %+v", err, acct)
	}
}
