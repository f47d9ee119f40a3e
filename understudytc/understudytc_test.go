package understudytc_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/understudy-dev/understudy/client"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/understudytc"
)

// These tests start the image named by UNDERSTUDY_IMAGE (`make image-test` sets it to the
// image `make image` built); without it they skip, and under CI=true they fail instead.
// `make image-test` also sets TESTCONTAINERS_RYUK_DISABLED=true: the reaper's image cannot be
// pulled where CI runs, and each test terminates its container itself.
func image(t *testing.T) string {
	t.Helper()
	img := os.Getenv("UNDERSTUDY_IMAGE")
	if img == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("UNDERSTUDY_IMAGE is not set: CI must test the image it built")
		}
		t.Skip("UNDERSTUDY_IMAGE is not set (make image-test sets it)")
	}
	return img
}

// run starts the image for the rest of the test.
func run(t *testing.T, opts ...testcontainers.ContainerCustomizer) *understudytc.Container {
	t.Helper()
	ctr, err := understudytc.Run(context.Background(), image(t), opts...)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatal(err)
	}
	return ctr
}

func TestOneCallPerAPI(t *testing.T) {
	ctr := run(t)
	ctx := context.Background()
	if !strings.HasPrefix(ctr.URL, "http://") {
		t.Errorf("URL = %q, want an http URL", ctr.URL)
	}

	health, err := ctr.Admin.GetHealthWithResponse(ctx)
	if err != nil || health.StatusCode() != 200 {
		t.Fatalf("health: %v %v", err, health)
	}
	_, err = client.CheckARM(ctr.Authorization.RoleAssignmentsCreateWithResponse(ctx, "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg", "b0f43c54-e787-4862-89b1-a653fa9cf747",
		&authzgen.RoleAssignmentsCreateParams{ApiVersion: client.AuthorizationAPIVersion},
		authzgen.RoleAssignmentCreateParameters{Properties: authzgen.RoleAssignmentProperties{
			PrincipalId: "ce2ce14e-85d7-4629-bdbc-454d0519d987", RoleDefinitionId: "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}))
	if err != nil {
		t.Fatalf("authorization: %v", err)
	}
	acct, err := client.CheckAccounts(ctr.Accounts.CreateAccountWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(`{"display_name":"Jenny"}`)))
	if err != nil || acct.JSON200.Livemode {
		t.Fatalf("accounts: %v", err)
	}
	op, err := client.CheckCompute(ctr.Compute.GlobalForwardingRulesInsertWithResponse(ctx, "my-project-123", nil, computegen.ForwardingRule{Name: "fr-1"}))
	if err != nil {
		t.Fatalf("compute: %v", err)
	}
	if done, err := ctr.Compute.WaitOperation(ctx, "my-project-123", *op.JSON200); err != nil || *done.Status != "DONE" {
		t.Fatalf("wait: %v", err)
	}

	if err := ctr.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = client.CheckCompute(ctr.Compute.GlobalForwardingRulesGetWithResponse(ctx, "my-project-123", "fr-1", nil))
	var ce *client.ComputeError
	if !errors.As(err, &ce) || ce.StatusCode != 404 {
		t.Errorf("after reset: %v, want a 404", err)
	}

	if err := ctr.Terminate(ctx); err != nil {
		t.Fatalf("terminate: %v", err)
	}
	if _, err := ctr.Admin.GetHealthWithResponse(ctx); err == nil {
		t.Error("the server still answers after Terminate")
	}
}

func TestSeedOperationModeClockAndAdminToken(t *testing.T) {
	ctr := run(t, understudytc.WithSeedFile("testdata/seed.yaml"), understudytc.WithOperationMode("manual"),
		understudytc.WithAdminToken("understudytc-admin-secret"))
	ctx := context.Background()

	// The admin API asks for the token, which the Admin client sends (below).
	resp, err := http.Get(ctr.URL + "/_understudy/clock")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the clock without the admin token: %d, want 401", resp.StatusCode)
	}

	rule, err := client.CheckCompute(ctr.Compute.GlobalForwardingRulesGetWithResponse(ctx, "my-project-123", "fr-seeded", nil))
	if err != nil || rule.JSON200.Labels == nil || (*rule.JSON200.Labels)["env"] != "test" {
		t.Fatalf("the seeded rule: %v", err)
	}
	op, err := client.CheckCompute(ctr.Compute.GlobalForwardingRulesInsertWithResponse(ctx, "my-project-123", nil, computegen.ForwardingRule{Name: "fr-2"}))
	if err != nil || *op.JSON200.Status != "PENDING" {
		t.Fatalf("insert in manual mode: %v, want a PENDING operation", err)
	}

	before, err := ctr.Admin.GetClockWithResponse(ctx)
	if err != nil || before.JSON200 == nil {
		t.Fatal(err)
	}
	if err := ctr.AdvanceClock(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	after, err := ctr.Admin.GetClockWithResponse(ctx)
	if err != nil || after.JSON200 == nil {
		t.Fatal(err)
	}
	if d := after.JSON200.Now.Sub(before.JSON200.Now); d < time.Hour {
		t.Errorf("the clock moved %v, want at least an hour", d)
	}
}
