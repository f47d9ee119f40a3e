package client_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/client"
	"github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/server"
	servercompute "github.com/understudy-dev/understudy/server/compute"
)

func ExampleNewAuthorization() {
	srv, _ := server.New(server.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ctx := context.Background()

	c, err := client.NewAuthorization(hs.URL, client.WithBearerToken("any-token"))
	if err != nil {
		panic(err)
	}
	scope := "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1"
	reader := "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	resp, err := client.CheckARM(c.RoleAssignmentsCreateWithResponse(ctx, scope, "b0f43c54-e787-4862-89b1-a653fa9cf747",
		&authorization.RoleAssignmentsCreateParams{ApiVersion: client.AuthorizationAPIVersion},
		authorization.RoleAssignmentCreateParameters{Properties: authorization.RoleAssignmentProperties{
			PrincipalId:      "ce2ce14e-85d7-4629-bdbc-454d0519d987",
			RoleDefinitionId: reader,
		}}))
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode())
	fmt.Println(*resp.JSON201.Id)

	// A failure is an *ARMError.
	_, err = client.CheckARM(c.RoleAssignmentsGetWithResponse(ctx, scope, "c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8",
		&authorization.RoleAssignmentsGetParams{ApiVersion: client.AuthorizationAPIVersion}))
	var armErr *client.ARMError
	if errors.As(err, &armErr) {
		fmt.Println(armErr.StatusCode, armErr.Code)
	}
	// Output:
	// 201
	// /subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747
	// 404 RoleAssignmentNotFound
}

func ExampleNewAccounts() {
	srv, _ := server.New(server.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ctx := context.Background()

	// Service-Version and an Idempotency-Key on every POST are sent for us.
	c, err := client.NewAccounts(hs.URL, client.WithAPIKey("sk_test_4eC39HqLyjWDarjtT1zdp7dc"))
	if err != nil {
		panic(err)
	}
	acct, err := client.CheckAccounts(c.CreateAccountWithResponse(ctx, nil, accounts.CreateAccountRequest{
		Configuration: &accounts.V2CoreAccountCreateConfigurationParams{Recipient: &accounts.V2CoreAccountCreateConfigurationRecipientParams{
			Capabilities: &accounts.V2CoreAccountCreateConfigurationRecipientCapabilitiesParams{
				StripeBalance: &accounts.V2CoreAccountCreateConfigurationRecipientCapabilitiesStripeBalanceParams{
					StripeTransfers: &accounts.CapabilityRequestParams{Requested: true}}}}},
	}))
	if err != nil {
		panic(err)
	}
	returnURL := "https://example.com/return"
	link, err := client.CheckAccounts(c.CreateAccountLinkWithResponse(ctx, nil, accounts.CreateAccountLinkRequest{
		Account: acct.JSON200.Id,
		UseCase: accounts.AccountLinkUseCaseParams{
			Type: accounts.AccountLinkUseCaseTypeAccountOnboarding,
			AccountOnboarding: &accounts.AccountLinkFlowParams{
				Configurations: []accounts.ConfigurationType{accounts.ConfigurationTypeRecipient},
				RefreshUrl:     "https://example.com/refresh",
				ReturnUrl:      &returnURL,
			},
		},
	}))
	if err != nil {
		panic(err)
	}
	fmt.Println(link.JSON200.Object)
	fmt.Println(strings.HasPrefix(link.JSON200.Url, hs.URL+"/r/"))
	// Output:
	// v2.core.account_link
	// true
}

func ExampleNewCompute() {
	srv, _ := server.New(server.Config{
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Compute: servercompute.Config{Operations: operations.Config{Mode: operations.Mode{Delay: 50 * time.Millisecond}}},
	})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ctx := context.Background()
	const project = "my-project-123"

	c, err := client.NewCompute(hs.URL, client.WithBearerToken("any-token"))
	if err != nil {
		panic(err)
	}
	portRange := "443-443"
	insert, err := client.CheckCompute(c.GlobalForwardingRulesInsertWithResponse(ctx, project, nil,
		compute.ForwardingRule{Name: "fr-web", PortRange: &portRange}))
	if err != nil {
		panic(err)
	}
	// The rule is readable once its operation is DONE.
	op, err := c.WaitOperation(ctx, project, *insert.JSON200)
	if err != nil {
		panic(err)
	}
	fmt.Println(*op.Status)
	rule, err := client.CheckCompute(c.GlobalForwardingRulesGetWithResponse(ctx, project, "fr-web", nil))
	if err != nil {
		panic(err)
	}
	fingerprint := rule.JSON200.LabelFingerprint
	fmt.Println(base64.StdEncoding.EncodeToString(fingerprint))

	// Labels are fingerprint-locked: the first setLabels changes the fingerprint, so a second
	// one with the old fingerprint fails.
	labels := compute.Labels{"env": "prod"}
	set := func() error {
		_, err := client.CheckCompute(c.GlobalForwardingRulesSetLabelsWithResponse(ctx, project, "fr-web", nil,
			compute.GlobalSetLabelsRequest{Labels: &labels, LabelFingerprint: fingerprint}))
		return err
	}
	fmt.Println(set())
	var computeErr *client.ComputeError
	if err := set(); errors.As(err, &computeErr) {
		fmt.Println(computeErr.StatusCode, computeErr.Reason)
	}
	// Output:
	// DONE
	// 42WmSpB8rSM=
	// <nil>
	// 412 conditionNotMet
}
