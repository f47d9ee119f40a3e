package understudytest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/client"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/understudytest"
)

func TestReadyClientsResetAndClock(t *testing.T) {
	base := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	srv := understudytest.Start(t, understudytest.WithOperationMode("manual"), understudytest.WithClock(func() time.Time { return base }))
	ctx := context.Background()

	// Authorization, with raw scopes.
	_, err := client.CheckARM(srv.Authorization.RoleAssignmentsCreateWithResponse(ctx, "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg", "b0f43c54-e787-4862-89b1-a653fa9cf747",
		&authzgen.RoleAssignmentsCreateParams{ApiVersion: client.AuthorizationAPIVersion},
		authzgen.RoleAssignmentCreateParameters{Properties: authzgen.RoleAssignmentProperties{
			PrincipalId: "ce2ce14e-85d7-4629-bdbc-454d0519d987", RoleDefinitionId: "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}))
	if err != nil {
		t.Fatal(err)
	}
	// Accounts, with the key, Service-Version and an idempotency key added.
	acct, err := client.CheckAccounts(srv.Accounts.CreateAccountWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(`{"display_name":"Jenny"}`)))
	if err != nil || acct.JSON200.Livemode {
		t.Fatal(err)
	}
	// Compute in manual mode: the operation waits for reads.
	op, err := client.CheckCompute(srv.Compute.GlobalForwardingRulesInsertWithResponse(ctx, "my-project-123", nil, computegen.ForwardingRule{Name: "fr-1"}))
	if err != nil || *op.JSON200.Status != "PENDING" {
		t.Fatalf("insert: %v", err)
	}
	done, err := srv.Compute.WaitOperation(ctx, "my-project-123", *op.JSON200)
	if err != nil || *done.Status != "DONE" {
		t.Fatalf("wait: %v %+v", err, done.Status)
	}

	// The clock follows WithClock, plus AdvanceClock.
	srv.AdvanceClock(t, 90*time.Second)
	clock, _ := srv.Admin.GetClockWithResponse(ctx)
	if !clock.JSON200.Now.Equal(base.Add(90 * time.Second)) {
		t.Errorf("clock = %v, want %v", clock.JSON200.Now, base.Add(90*time.Second))
	}

	// Reset: everything created is gone.
	srv.Reset(t)
	_, err = client.CheckCompute(srv.Compute.GlobalForwardingRulesGetWithResponse(ctx, "my-project-123", "fr-1", nil))
	var ce *client.ComputeError
	if !errors.As(err, &ce) || ce.StatusCode != 404 {
		t.Errorf("after reset: %v", err)
	}
	if _, err := client.CheckAccounts(srv.Accounts.RetrieveAccountWithResponse(ctx, acct.JSON200.Id, nil)); err == nil {
		t.Error("the account survived the reset")
	}
}

func TestBadOption(t *testing.T) {
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		understudytest.Start(ft, understudytest.WithOperationMode("soonish"))
	}()
	if !strings.Contains(ft.msg, "soonish") {
		t.Errorf("a bad mode should stop the start naming it: %q", ft.msg)
	}
}

// fatalRecorder records Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = strings.TrimSpace(strings.ReplaceAll(sprintf(format, args...), "\n", " "))
	panic("fatal")
}

func (f *fatalRecorder) Helper() {}

var sprintf = fmt.Sprintf

func TestWithSeedFile(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithSeedFile("../testdata/seed-example.yaml"), understudytest.WithOperationMode("manual"))
	ctx := context.Background()
	got, err := client.CheckCompute(srv.Compute.InterconnectAttachmentGroupsGetWithResponse(ctx, "my-project-123", "prod-critical", nil))
	if err != nil || *got.JSON200.Configured.AvailabilitySla.EffectiveSla != "PRODUCTION_CRITICAL" {
		t.Fatalf("seeded group: %v", err)
	}
	// WithOperationMode came after the seed: it wins over the seed's mode.
	op, err := client.CheckCompute(srv.Compute.GlobalForwardingRulesInsertWithResponse(ctx, "my-project-123", nil, computegen.ForwardingRule{Name: "fr-new"}))
	if err != nil || *op.JSON200.Status != "PENDING" {
		t.Fatalf("manual mode: %v", err)
	}
}
