package compute_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	compute "google.golang.org/api/compute/v1"

	"github.com/understudy-dev/understudy/internal/operations"
)

// TestVendorClientRegionalForwardingRules drives every regional forwardingRules method with
// Google's Go client: insert with a requestId (its retry is the same operation),
// regionOperations.wait, get, list, aggregatedList under regions/<region>, setLabels with
// the fingerprint (412 when stale), patch, setTarget, delete; and the refusals in its
// googleapi.Error.
func TestVendorClientRegionalForwardingRules(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{Delay: 200 * time.Millisecond})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	const region = "us-west2"
	wait := func(op *compute.Operation, err error) *compute.Operation {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for op.Status != "DONE" {
			if op, err = svc.RegionOperations.Wait(vendorProject, region, op.Name).Context(ctx).Do(); err != nil {
				t.Fatal(err)
			}
		}
		if op.Error != nil {
			t.Fatalf("operation %s: %+v", op.Name, op.Error.Errors[0])
		}
		return op
	}

	reqID := vendorUUID(t)
	rule := &compute.ForwardingRule{Name: "fr-ilb", LoadBalancingScheme: "INTERNAL", Ports: []string{"80", "8080"},
		BackendService: "regions/" + region + "/backendServices/be", AllowGlobalAccess: true, Labels: map[string]string{"env": "dev"}}
	op, err := svc.ForwardingRules.Insert(vendorProject, region, rule).RequestId(reqID).Context(ctx).Do()
	if err != nil || !vendorOpName.MatchString(op.Name) || !strings.HasSuffix(op.Region, "/regions/"+region) || op.OperationType != "insert" {
		t.Fatalf("insert: %v %+v", err, op)
	}
	again, err := svc.ForwardingRules.Insert(vendorProject, region, rule).RequestId(reqID).Context(ctx).Do()
	if err != nil || again.Name != op.Name {
		t.Errorf("retry: %v, operation %v, want %s", err, again, op.Name)
	}
	wait(op, nil)
	got, err := svc.ForwardingRules.Get(vendorProject, region, "fr-ilb").Context(ctx).Do()
	if err != nil || !strings.HasSuffix(got.SelfLink, "/projects/"+vendorProject+"/regions/"+region+"/forwardingRules/fr-ilb") ||
		!strings.HasSuffix(got.Region, "/regions/"+region) || !got.AllowGlobalAccess || !slices.Equal(got.Ports, rule.Ports) ||
		got.NetworkTier != "PREMIUM" || got.IPProtocol != "TCP" || got.Labels["env"] != "dev" {
		t.Fatalf("get: %v %+v", err, got)
	}
	list, err := svc.ForwardingRules.List(vendorProject, region).Context(ctx).Do()
	if err != nil || !slices.Equal(vendorRuleNames(list.Items), []string{"fr-ilb"}) {
		t.Errorf("list: %v %+v", err, list)
	}
	agg, err := svc.ForwardingRules.AggregatedList(vendorProject).Context(ctx).Do()
	if err != nil || !slices.Equal(vendorRuleNames(agg.Items["regions/"+region].ForwardingRules), []string{"fr-ilb"}) || agg.Items["regions/"+region].Warning != nil {
		t.Errorf("aggregated list: %v %+v", err, agg)
	}

	_, err = svc.ForwardingRules.SetLabels(vendorProject, region, "fr-ilb", &compute.RegionSetLabelsRequest{Labels: map[string]string{"env": "prod"}, LabelFingerprint: vendorEmptyFingerprint}).Context(ctx).Do()
	vendorAPIError(t, err, 412, "conditionNotMet")
	set, err := svc.ForwardingRules.SetLabels(vendorProject, region, "fr-ilb", &compute.RegionSetLabelsRequest{Labels: map[string]string{"env": "prod"}, LabelFingerprint: got.LabelFingerprint}).RequestId(vendorUUID(t)).Context(ctx).Do()
	if err != nil || set.Status != "DONE" || set.OperationType != "setLabels" {
		t.Fatalf("setLabels: %v %+v", err, set)
	}

	wait(svc.ForwardingRules.Patch(vendorProject, region, "fr-ilb", &compute.ForwardingRule{NetworkTier: "STANDARD", AllowGlobalAccess: false, ForceSendFields: []string{"AllowGlobalAccess"}}).Context(ctx).Do())
	patched, err := svc.ForwardingRules.Get(vendorProject, region, "fr-ilb").Context(ctx).Do()
	if err != nil || patched.NetworkTier != "STANDARD" || patched.AllowGlobalAccess || patched.Labels["env"] != "prod" || patched.Fingerprint == got.Fingerprint {
		t.Errorf("after setLabels and patch: %v %+v", err, patched)
	}
	_, err = svc.ForwardingRules.Patch(vendorProject, region, "fr-ilb", &compute.ForwardingRule{NetworkTier: "FIXED_STANDARD"}).Context(ctx).Do()
	vendorAPIError(t, err, 400, "invalid")

	wait(svc.ForwardingRules.Insert(vendorProject, region, &compute.ForwardingRule{Name: "fr-pool", Target: "regions/" + region + "/targetPools/a", PortRange: "80"}).Context(ctx).Do())
	st, err := svc.ForwardingRules.SetTarget(vendorProject, region, "fr-pool", &compute.TargetReference{Target: "regions/" + region + "/targetPools/b"}).RequestId(vendorUUID(t)).Context(ctx).Do()
	if err != nil || st.Status != "DONE" || st.OperationType != "setTarget" {
		t.Errorf("setTarget: %v %+v", err, st)
	}
	_, err = svc.ForwardingRules.SetTarget(vendorProject, region, "fr-pool", &compute.TargetReference{Target: "regions/us-east4/targetPools/c"}).Context(ctx).Do()
	vendorAPIError(t, err, 400, "invalid")
	_, err = svc.ForwardingRules.Insert(vendorProject, region, &compute.ForwardingRule{Name: "fr-pool"}).Context(ctx).Do()
	vendorAPIError(t, err, 409, "alreadyExists")
	_, err = svc.ForwardingRules.Insert(vendorProject, region, &compute.ForwardingRule{Name: "fr-x", Ports: []string{"80"}, PortRange: "80"}).Context(ctx).Do()
	if ge := vendorAPIError(t, err, 400, "invalid"); ge != nil {
		if loc, _ := vendorErrorItem(t, ge); loc != "resource.ports" {
			t.Errorf("location %q, want resource.ports", loc)
		}
	}
	_, err = svc.ForwardingRules.Insert(vendorProject, "us-nowhere1", &compute.ForwardingRule{Name: "fr-x"}).Context(ctx).Do()
	vendorAPIError(t, err, 400, "invalid")

	for _, name := range []string{"fr-ilb", "fr-pool"} {
		wait(svc.ForwardingRules.Delete(vendorProject, region, name).Context(ctx).Do())
	}
	_, err = svc.ForwardingRules.Get(vendorProject, region, "fr-ilb").Context(ctx).Do()
	vendorAPIError(t, err, 404, "notFound")
	ops, err := svc.RegionOperations.List(vendorProject, region).Context(ctx).Do()
	if err != nil || len(ops.Items) != 7 { // insert, setLabels, patch, insert, setTarget, delete, delete
		t.Errorf("regional operations: %v, %d", err, len(ops.Items))
	}
}
