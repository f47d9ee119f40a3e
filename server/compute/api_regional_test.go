package compute_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// regionalWorld sends raw JSON to one server whose clock the test moves: the regional rules'
// requests with the generated client, each answer checked against the spec.
type regionalWorld struct {
	t   *testing.T
	c   *gen.ClientWithResponses
	clk *apiClock
}

func newRegionalWorld(t *testing.T) regionalWorld {
	srv, clk := apiServer(t, operations.Mode{Delay: 300 * time.Millisecond})
	return regionalWorld{t, apiClient(t, srv, "dev@example.com"), clk}
}

// insert inserts body in region and returns the status, the operation and the body.
func (w regionalWorld) insert(region, requestID, body string) (int, gen.Operation, []byte) {
	w.t.Helper()
	var p *gen.ForwardingRulesInsertParams
	if requestID != "" {
		p = &gen.ForwardingRulesInsertParams{RequestId: &requestID}
	}
	r, err := w.c.ForwardingRulesInsertWithBodyWithResponse(apiCtx, apiProject, region, p, "application/json", strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	var op gen.Operation
	if r.JSON200 != nil {
		op = *r.JSON200
	}
	return r.StatusCode(), op, r.Body
}

// made inserts body in region and moves the clock past its operation.
func (w regionalWorld) made(region, body string) gen.Operation {
	w.t.Helper()
	code, op, raw := w.insert(region, "", body)
	if code != 200 {
		w.t.Fatalf("insert %s: %d %s", body, code, raw)
	}
	w.clk.Advance(time.Second)
	return op
}

func (w regionalWorld) get(region, name string) (int, gen.ForwardingRule, []byte) {
	w.t.Helper()
	r, err := w.c.ForwardingRulesGetWithResponse(apiCtx, apiProject, region, name, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	var rule gen.ForwardingRule
	if r.JSON200 != nil {
		rule = *r.JSON200
	}
	return r.StatusCode(), rule, r.Body
}

// TestRegionalRuleLifecycle: a regional rule is inserted with a regional operation
// (regionOperations get, wait and list serve it), read with its region, listed in its
// region only and under regions/<region> in the aggregated list, labelled with the
// fingerprint rules of a global rule (and a requestId), patched, retargeted in its region,
// and deleted.
func TestRegionalRuleLifecycle(t *testing.T) {
	w := newRegionalWorld(t)
	c := w.c
	rid := uuid.NewString()
	code, op, raw := w.insert("us-east4", rid, `{"name":"fr-ilb","loadBalancingScheme":"INTERNAL","ports":["80","443"],"backendService":"regions/us-east4/backendServices/be","network":"global/networks/default","serviceLabel":"web","labels":{"env":"dev"}}`)
	if code != 200 || *op.Status == "DONE" || !strings.HasSuffix(deref(op.SelfLink), "/regions/us-east4/operations/"+*op.Name) ||
		!strings.HasSuffix(deref(op.TargetLink), "/projects/"+apiProject+"/regions/us-east4/forwardingRules/fr-ilb") || op.Region == nil {
		t.Fatalf("insert: %d %s", code, raw)
	}
	if code, _, _ := w.get("us-east4", "fr-ilb"); code != 404 {
		t.Errorf("get while the insert runs: %d, want 404", code)
	}
	if _, again, _ := w.insert("us-east4", rid, `{"name":"fr-other"}`); *again.Name != *op.Name {
		t.Errorf("retry with the requestId: operation %s, want %s", *again.Name, *op.Name)
	}
	if code, _, raw := w.insert("us-east4", "", `{"name":"fr-ilb"}`); code != 409 {
		t.Errorf("second insert of the name while the first runs: %d %s", code, raw)
	}
	w.clk.Advance(time.Second)
	waited, err := c.RegionOperationsWaitWithResponse(apiCtx, apiProject, "us-east4", *op.Name, nil)
	if err != nil || waited.StatusCode() != 200 || *waited.JSON200.Status != "DONE" {
		t.Fatalf("wait: %v %s", err, waited.Body)
	}
	if g, _ := c.GlobalOperationsGetWithResponse(apiCtx, apiProject, *op.Name, nil); g.StatusCode() != 404 {
		t.Errorf("the regional operation among the global ones: %d", g.StatusCode())
	}

	code, rule, raw := w.get("us-east4", "fr-ilb")
	if code != 200 || !strings.HasSuffix(deref(rule.Region), "/projects/"+apiProject+"/regions/us-east4") || !strings.HasPrefix(*rule.Region, "http") ||
		!slices.Equal(rule.Ports, []string{"80", "443"}) || deref(rule.NetworkTier) != "PREMIUM" || rule.PortRange != nil ||
		!strings.HasPrefix(deref(rule.IPAddress), "10.") || deref(rule.ServiceName) != "web.fr-ilb.il4.us-east4.lb."+apiProject+".internal" {
		t.Fatalf("get: %d %s", code, raw)
	}
	if code, byID, _ := w.get("us-east4", *rule.Id); code != 200 || byID.Name != "fr-ilb" {
		t.Errorf("get by id: %d", code)
	}
	if code, _, _ := w.get("us-west2", "fr-ilb"); code != 404 {
		t.Errorf("get in another region: %d, want 404", code)
	}
	if g, _ := c.GlobalForwardingRulesGetWithResponse(apiCtx, apiProject, "fr-ilb", nil); g.StatusCode() != 404 {
		t.Errorf("global get of a regional rule: %d, want 404", g.StatusCode())
	}
	list, _ := c.ForwardingRulesListWithResponse(apiCtx, apiProject, "us-east4", nil)
	if list.StatusCode() != 200 || len(list.JSON200.Items) != 1 || list.JSON200.Items[0].Name != "fr-ilb" {
		t.Errorf("list: %s", list.Body)
	}
	if other, _ := c.ForwardingRulesListWithResponse(apiCtx, apiProject, "us-west2", nil); len(other.JSON200.Items) != 0 {
		t.Errorf("list of another region: %s", other.Body)
	}
	apiInsert(t, c, "fr-global", nil, nil)
	w.clk.Advance(time.Second)
	agg, _ := c.ForwardingRulesAggregatedListWithResponse(apiCtx, apiProject, nil)
	if agg.StatusCode() != 200 || len(agg.JSON200.Items["regions/us-east4"].ForwardingRules) != 1 || len(agg.JSON200.Items["global"].ForwardingRules) != 1 ||
		agg.JSON200.Items["regions/us-west2"].Warning == nil {
		t.Errorf("aggregated list: %s", agg.Body)
	}
	if g, _ := c.GlobalForwardingRulesListWithResponse(apiCtx, apiProject, nil); len(g.JSON200.Items) != 1 || g.JSON200.Items[0].Name != "fr-global" {
		t.Errorf("global list: %s", g.Body)
	}
	ops, _ := c.RegionOperationsListWithResponse(apiCtx, apiProject, "us-east4", nil)
	if ops.StatusCode() != 200 || len(ops.JSON200.Items) != 1 {
		t.Errorf("regional operations: %s", ops.Body)
	}

	// Labels: the global rules' fingerprint rules, with a requestId.
	setLabels := func(labels map[string]string, fp []byte, requestID string) *gen.ForwardingRulesSetLabelsResponse {
		t.Helper()
		l := gen.Labels(labels)
		var p *gen.ForwardingRulesSetLabelsParams
		if requestID != "" {
			p = &gen.ForwardingRulesSetLabelsParams{RequestId: &requestID}
		}
		r, err := c.ForwardingRulesSetLabelsWithResponse(apiCtx, apiProject, "us-east4", "fr-ilb", p, gen.RegionSetLabelsRequest{Labels: &l, LabelFingerprint: fp})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	wantGoogleError(t, setLabels(map[string]string{"env": "prod"}, nil, "").StatusCode(), setLabels(map[string]string{"env": "prod"}, nil, "").Body, 412, "conditionNotMet")
	labelRID := uuid.NewString()
	set := setLabels(map[string]string{"env": "prod"}, rule.LabelFingerprint, labelRID)
	if set.StatusCode() != 200 || *set.JSON200.Status != "DONE" || *set.JSON200.OperationType != "setLabels" || set.JSON200.Region == nil {
		t.Fatalf("setLabels: %s", set.Body)
	}
	if again := setLabels(map[string]string{"env": "prod"}, rule.LabelFingerprint, labelRID); again.StatusCode() != 200 || *again.JSON200.Name != *set.JSON200.Name {
		t.Errorf("setLabels retried with its requestId: %s", again.Body)
	}
	stale := setLabels(map[string]string{"env": "qa"}, rule.LabelFingerprint, "")
	wantGoogleError(t, stale.StatusCode(), stale.Body, 412, "conditionNotMet")
	_, labelled, _ := w.get("us-east4", "fr-ilb")
	if (*labelled.Labels)["env"] != "prod" || string(labelled.Fingerprint) == string(rule.Fingerprint) {
		t.Errorf("after setLabels: %+v", labelled)
	}

	// Patch: networkTier STANDARD, and an INTERNAL rule's global access.
	patch := func(body string) (int, []byte) {
		t.Helper()
		r, err := c.ForwardingRulesPatchWithBodyWithResponse(apiCtx, apiProject, "us-east4", "fr-ilb", nil, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return r.StatusCode(), r.Body
	}
	if code, raw := patch(`{"networkTier":"STANDARD","allowGlobalAccess":true}`); code != 200 {
		t.Fatalf("patch: %d %s", code, raw)
	}
	_, patched, _ := w.get("us-east4", "fr-ilb")
	if deref(patched.NetworkTier) != "STANDARD" || !deref(patched.AllowGlobalAccess) || string(patched.Fingerprint) == string(labelled.Fingerprint) {
		t.Errorf("after the patch: tier %v, global access %v", deref(patched.NetworkTier), deref(patched.AllowGlobalAccess))
	}
	for body, reason := range map[string]string{
		`{"networkTier":"FIXED_STANDARD"}`:   "invalid",
		`{"description":"changed"}`:          "invalid",
		`{"fingerprint":"AAAAAAAAAAA="}`:     "conditionNotMet",
		`{"ports":["80","443","8080"]}`:      "invalid",
		`{"loadBalancingScheme":"EXTERNAL"}`: "invalid",
	} {
		code, raw := patch(body)
		wantGoogleError(t, code, raw, map[string]int{"invalid": 400, "conditionNotMet": 412}[reason], reason)
	}

	// setTarget: a target in the rule's region, of the current one's type.
	w.made("us-east4", `{"name":"fr-ext","target":"regions/us-east4/targetPools/pool-a","portRange":"80"}`)
	target := func(t *testing.T, to string) (int, []byte) {
		r, err := c.ForwardingRulesSetTargetWithResponse(apiCtx, apiProject, "us-east4", "fr-ext", nil, gen.TargetReference{Target: &to})
		if err != nil {
			t.Fatal(err)
		}
		return r.StatusCode(), r.Body
	}
	if code, raw := target(t, "https://compute.googleapis.com/compute/v1/projects/"+apiProject+"/regions/us-east4/targetPools/pool-b"); code != 200 {
		t.Errorf("setTarget: %d %s", code, raw)
	}
	for _, to := range []string{"regions/us-west2/targetPools/pool-c", "global/targetHttpProxies/p", "regions/us-east4/targetHttpProxies/p"} {
		code, raw := target(t, to)
		wantGoogleError(t, code, raw, 400, "invalid")
	}

	del, _ := c.ForwardingRulesDeleteWithResponse(apiCtx, apiProject, "us-east4", "fr-ilb", nil)
	if del.StatusCode() != 200 || !strings.Contains(deref(del.JSON200.SelfLink), "/regions/us-east4/operations/") {
		t.Fatalf("delete: %s", del.Body)
	}
	if code, _, _ := w.get("us-east4", "fr-ilb"); code != 200 {
		t.Errorf("get while the delete runs: %d, want 200", code)
	}
	w.clk.Advance(time.Second)
	if code, _, _ := w.get("us-east4", "fr-ilb"); code != 404 {
		t.Errorf("get after the delete: %d, want 404", code)
	}
}

// TestRegionalRuleMembers: what the discovery document says of regional rules' members is
// held on insert, each refusal 400 invalid naming the member; what it allows is taken.
func TestRegionalRuleMembers(t *testing.T) {
	w := newRegionalWorld(t)
	for _, tc := range []struct{ body, member string }{
		{`{"name":"a","networkTier":"FIXED_STANDARD"}`, "resource.networkTier"},
		{`{"name":"a","loadBalancingScheme":"INTERNAL_SELF_MANAGED"}`, "resource.loadBalancingScheme"},
		{`{"name":"a","ports":["80"],"portRange":"80"}`, "resource.ports"},
		{`{"name":"a","portRange":"80","allPorts":true}`, "resource.ports"},
		{`{"name":"a","ports":["1","2","3","4","5","6"]}`, "resource.ports"},
		{`{"name":"a","ports":["0"]}`, "resource.ports"},
		{`{"name":"a","IPProtocol":"ESP","portRange":"80"}`, "resource.IPProtocol"},
		{`{"name":"a","IPProtocol":"L3_DEFAULT"}`, "resource.IPProtocol"},
		{`{"name":"a","IPProtocol":"ICMP","allPorts":true}`, "resource.IPProtocol"},
		{`{"name":"a","loadBalancingScheme":"INTERNAL","sourceIpRanges":["1.2.3.4"]}`, "resource.sourceIpRanges"},
		{`{"name":"a","sourceIpRanges":["1.2.3.999"]}`, "resource.sourceIpRanges"},
		{`{"name":"a","allowGlobalAccess":true}`, "resource.allowGlobalAccess"},
		{`{"name":"a","serviceLabel":"web"}`, "resource.serviceLabel"},
		{`{"name":"a","loadBalancingScheme":"INTERNAL","serviceLabel":"Web"}`, "resource.serviceLabel"},
		{`{"name":"a","loadBalancingScheme":"INTERNAL_MANAGED","isMirroringCollector":true}`, "resource.isMirroringCollector"},
		{`{"name":"a","target":"projects/p/regions/us-west2/targetPools/x"}`, "resource.target"},
		{`{"name":"a","target":"global/targetHttpProxies/x"}`, "resource.target"},
		{`{"name":"a","target":"zones/us-west1-a/targetInstances/x"}`, "resource.target"},
		{`{"name":"a","target":"regions/us-east4/targetPools/x","backendService":"regions/us-east4/backendServices/b"}`, "resource.backendService"},
	} {
		code, _, raw := w.insert("us-east4", "", tc.body)
		if e := wantGoogleError(t, code, raw, 400, "invalid"); e.Errors[0].Location != tc.member {
			t.Errorf("%s: location %q, want %q (%s)", tc.body, e.Errors[0].Location, tc.member, e.Message)
		}
	}
	code, _, raw := w.insert("us-nowhere1", "", `{"name":"a"}`)
	if e := wantGoogleError(t, code, raw, 400, "invalid"); e.Errors[0].Location != "region" {
		t.Errorf("unknown region: %s", raw)
	}
	for i, body := range []string{
		`{"name":"ok-0","networkTier":"STANDARD","sourceIpRanges":["1.2.3.4","10.0.0.0/8"],"portRange":"80"}`,
		`{"name":"ok-1","loadBalancingScheme":"INTERNAL","IPProtocol":"L3_DEFAULT","allPorts":true,"allowGlobalAccess":true,"isMirroringCollector":true}`,
		`{"name":"ok-2","loadBalancingScheme":"INTERNAL_MANAGED","target":"regions/us-east4/targetHttpProxies/p","portRange":"80","serviceLabel":"api"}`,
		`{"name":"ok-3","target":"zones/us-east4-b/targetInstances/ti","IPProtocol":"UDP","ports":["53","5000-5010"]}`,
		`{"name":"ok-4","loadBalancingScheme":"EXTERNAL_MANAGED","target":"regions/us-east4/targetHttpsProxies/p","portRange":"443"}`,
	} {
		if code, _, raw := w.insert("us-east4", "", body); code != 200 {
			t.Errorf("%d: %s: %d %s", i, body, code, raw)
		}
	}
	w.clk.Advance(time.Second)
	_, r, _ := w.get("us-east4", "ok-2")
	if deref(r.ServiceName) != "api.ok-2.il7.us-east4.lb."+apiProject+".internal" {
		t.Errorf("serviceName of an INTERNAL_MANAGED rule: %q", deref(r.ServiceName))
	}
	_, r, _ = w.get("us-east4", "ok-0")
	if !strings.HasPrefix(deref(r.IPAddress), "34.") || deref(r.NetworkTier) != "STANDARD" || r.ServiceName != nil {
		t.Errorf("an external rule: %s %s", deref(r.IPAddress), deref(r.NetworkTier))
	}

	// One address and protocol: no two rules share a port, whether by ports or portRange.
	w.made("us-east4", `{"name":"p-1","IPAddress":"34.80.0.1","ports":["80","443"]}`)
	if code, _, raw := w.insert("us-east4", "", `{"name":"p-2","IPAddress":"34.80.0.1","portRange":"440-450"}`); code != 400 || !strings.Contains(string(raw), "in-use") {
		t.Errorf("a port range over a port of another rule: %d %s", code, raw)
	}
	if code, _, raw := w.insert("us-west2", "", `{"name":"p-3","IPAddress":"34.80.0.1","ports":["81"]}`); code != 200 {
		t.Errorf("other ports of the address: %d %s", code, raw)
	}
}

// TestRacingInsertsOfOneName: inserts of one name racing (each with its own requestId), in a
// region and globally, make the rule exactly once: one is accepted, the others are 409
// alreadyExists, and one rule is listed. Retries of one requestId racing in a region get one
// operation. Run with -race.
func TestRacingInsertsOfOneName(t *testing.T) {
	w := newRegionalWorld(t)
	race := func(name string, insert func() int) {
		t.Helper()
		const n = 12
		codes := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				codes[i] = insert()
			}()
		}
		close(start)
		wg.Wait()
		if ok, conflict := count(codes, 200), count(codes, 409); ok != 1 || conflict != n-1 {
			t.Errorf("%s: codes %v, want one 200 and %d 409", name, codes, n-1)
		}
	}
	race("regional", func() int {
		code, _, _ := w.insert("us-east4", uuid.NewString(), `{"name":"fr-race"}`)
		return code
	})
	race("global", func() int {
		rid := uuid.NewString()
		return apiInsert(t, w.c, "fr-race", &rid, nil).StatusCode()
	})
	w.clk.Advance(time.Second)
	agg, _ := w.c.ForwardingRulesAggregatedListWithResponse(apiCtx, apiProject, nil)
	if len(agg.JSON200.Items["regions/us-east4"].ForwardingRules) != 1 || len(agg.JSON200.Items["global"].ForwardingRules) != 1 {
		t.Errorf("after the races: %s", agg.Body)
	}

	rid := uuid.NewString()
	names := make([]string, 12)
	var wg sync.WaitGroup
	for i := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, op, _ := w.insert("us-west2", rid, `{"name":"fr-retried"}`); op.Name != nil {
				names[i] = *op.Name
			}
		}()
	}
	wg.Wait()
	for _, n := range names {
		if n == "" || n != names[0] {
			t.Fatalf("racing retries got operations %v, want one", names)
		}
	}
}

func count(codes []int, code int) int {
	n := 0
	for _, c := range codes {
		if c == code {
			n++
		}
	}
	return n
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
