package understudytest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"testing"

	"github.com/understudy-dev/understudy/client"
	"github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestLabelsAreFingerprintLocked is the README's example: a test whose code under test
// would talk to srv.URL; here the ready clients do.
func TestLabelsAreFingerprintLocked(t *testing.T) {
	srv := understudytest.Start(t)
	ctx := context.Background()

	op, err := client.CheckCompute(srv.Compute.GlobalForwardingRulesInsertWithResponse(ctx,
		"my-project", nil, compute.ForwardingRule{Name: "fr-web"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Compute.WaitOperation(ctx, "my-project", *op.JSON200); err != nil {
		t.Fatal(err)
	}

	// A stale fingerprint is refused with 412, as the real service refuses it.
	_, err = client.CheckCompute(srv.Compute.GlobalForwardingRulesSetLabelsWithResponse(ctx,
		"my-project", "fr-web", nil, compute.GlobalSetLabelsRequest{LabelFingerprint: []byte("stale")}))
	var ce *client.ComputeError
	if !errors.As(err, &ce) || ce.StatusCode != 412 {
		t.Fatalf("setLabels with a stale fingerprint: %v, want 412", err)
	}
}

// ExampleNew starts a server outside a test (as TestMain would) and reads its health.
func ExampleNew() {
	srv, err := understudytest.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	health, err := srv.Admin.GetHealthWithResponse(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(health.StatusCode(), health.JSON200.Status)
	// Output: 200 ok
}
