package understudytest_test

// The recipes for the vendors' own Go SDKs (sdk_google_test.go, sdk_azure_test.go and
// sdk_stripe_test.go, each a Go block of docs/sdks.md), each run against a server.

import (
	"context"
	"strings"
	"testing"

	gapic "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/stripe/stripe-go/v85"
	"google.golang.org/api/compute/v1"
	"google.golang.org/protobuf/proto"

	"github.com/understudy-dev/understudy/understudytest"
)

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

	rules, err := gapic.NewGlobalForwardingRulesRESTClient(ctx, gapicOptions(srv.URL)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rules.Close()
	op, err := rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{Project: "my-project", ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String("fr-gapic")}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		t.Errorf("Google compute insert (GAPIC): %v", err)
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
