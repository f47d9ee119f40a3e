package understudytc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
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

// TestReplicasOnAGivenDatabase: two replicas of the image on the test cluster
// (UNDERSTUDY_TEST_POSTGRES, a Unix socket: its directory is mounted into each container)
// serve one sandbox: an account made through one is read through the other, and a clock
// advance through one moves the other's clock. Under CI=true it fails rather than skips
// without that cluster (.ci/run starts it before make image-test).
func TestReplicasOnAGivenDatabase(t *testing.T) {
	img := image(t)
	base := os.Getenv("UNDERSTUDY_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("UNDERSTUDY_TEST_POSTGRES is not set: CI runs the PostgreSQL tests")
		}
		t.Skip("UNDERSTUDY_TEST_POSTGRES is not set (.ci/postgres.sh start sets it)")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	socketDir := q.Get("host")
	if !strings.HasPrefix(socketDir, "/") {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the test cluster is not on a Unix socket (%s): CI's is (.ci/postgres.sh), and this test mounts its directory", u.Redacted())
		}
		t.Skipf("the test cluster is not on a Unix socket (%s): this test mounts its directory", u.Redacted())
	}
	q.Set("search_path", fmt.Sprintf("tc_%d", time.Now().UnixNano()))
	u.RawQuery = q.Encode()
	mount := testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
		hc.Binds = append(hc.Binds, socketDir+":"+socketDir)
	})
	ctx := context.Background()
	replicas, err := understudytc.RunReplicas(ctx, img, 2, u.String(), mount)
	for _, c := range replicas {
		testcontainers.CleanupContainer(t, c)
	}
	if err != nil {
		t.Fatal(err)
	}
	a, b := replicas[0], replicas[1]
	made, err := client.CheckAccounts(a.Accounts.CreateAccountWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(`{"display_name":"Shared"}`)))
	if err != nil {
		t.Fatalf("account through replica-1: %v", err)
	}
	got, err := client.CheckAccounts(b.Accounts.RetrieveAccountWithResponse(ctx, made.JSON200.Id, nil))
	if err != nil || got.JSON200.Id != made.JSON200.Id {
		t.Fatalf("the account through replica-2: %v", err)
	}
	if err := a.AdvanceClock(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	clk, err := b.Admin.GetClockWithResponse(ctx)
	if err != nil || clk.JSON200 == nil || clk.JSON200.OffsetSeconds < 3600 {
		t.Fatalf("the other replica's clock: %v %v", clk, err)
	}
}
