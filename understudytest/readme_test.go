package understudytest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/understudy-dev/understudy/client"
	"github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/understudytest"
)

func TestLabelsAreFingerprintLocked(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithOperationMode("immediate"))
	ctx := context.Background()
	_, err := client.CheckCompute(srv.Compute.GlobalForwardingRulesInsertWithResponse(ctx,
		"my-project", nil, compute.ForwardingRule{Name: "fr-web"}))
	if err != nil {
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
