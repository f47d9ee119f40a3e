package understudytest_test

// Every operation of the compute API through Google's GAPIC REST clients for Go
// (cloud.google.com/go/compute/apiv1), the clients Google recommends for Compute Engine:
// protojson bodies (int64s as strings, empty maps and lists left out), x-goog-request-params
// headers, answers decoded by protojson, errors as *apierror.APIError around a
// *googleapi.Error, and Operation.Wait, which polls the operation's get (globalOperations.get,
// regionOperations.get) until it is DONE and fails with the operation's httpErrorStatusCode.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"

	admingen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/understudytest"
)

const gapicRegion = "us-east4"

// gapicRequest is one request a GAPIC client sent.
type gapicRequest struct {
	method string
	path   string
	query  url.Values
	header http.Header
	body   []byte
}

// gapicRecorder is the clients' transport: it keeps every request and adds the bearer
// token the server requires.
type gapicRecorder struct {
	mu   sync.Mutex
	sent []gapicRequest
}

func (r *gapicRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	r.mu.Lock()
	r.sent = append(r.sent, gapicRequest{req.Method, req.URL.Path, req.URL.Query(), req.Header.Clone(), body})
	r.mu.Unlock()
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+understudytest.Token)
	return http.DefaultTransport.RoundTrip(req)
}

// last is the last request sent.
func (r *gapicRecorder) last() gapicRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent[len(r.sent)-1]
}

// param is the x-goog-request-params header a request sent (gax writes the name in lower
// case, which http.Header.Get does not find).
func (r gapicRequest) params() string {
	for k, v := range r.header {
		if strings.EqualFold(k, "x-goog-request-params") && len(v) == 1 {
			return v[0]
		}
	}
	return ""
}

// count is how many requests have been sent.
func (r *gapicRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sent)
}

// since is what was sent after the first n requests.
func (r *gapicRecorder) since(n int) []gapicRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sent[n:])
}

// gapicClients holds a GAPIC client of every resource the compute API serves, all over one
// gapicRecorder.
type gapicClients struct {
	sent             *gapicRecorder
	rules            *compute.GlobalForwardingRulesClient
	regionalRules    *compute.ForwardingRulesClient
	globalOps        *compute.GlobalOperationsClient
	regionOps        *compute.RegionOperationsClient
	interconnects    *compute.InterconnectsClient
	attachments      *compute.InterconnectAttachmentsClient
	attachmentGroups *compute.InterconnectAttachmentGroupsClient
	groups           *compute.InterconnectGroupsClient
	locations        *compute.InterconnectLocationsClient
	remoteLocations  *compute.InterconnectRemoteLocationsClient
}

func newGAPICClients(t *testing.T, ctx context.Context, baseURL string) *gapicClients {
	t.Helper()
	rec := &gapicRecorder{}
	opts := []option.ClientOption{option.WithEndpoint(baseURL), option.WithHTTPClient(&http.Client{Transport: rec})}
	c := &gapicClients{sent: rec}
	var err error
	check := func(close func() error, e error) {
		t.Helper()
		if e != nil {
			t.Fatal(e)
		}
		t.Cleanup(func() { close() })
	}
	c.rules, err = compute.NewGlobalForwardingRulesRESTClient(ctx, opts...)
	check(c.rules.Close, err)
	c.regionalRules, err = compute.NewForwardingRulesRESTClient(ctx, opts...)
	check(c.regionalRules.Close, err)
	c.globalOps, err = compute.NewGlobalOperationsRESTClient(ctx, opts...)
	check(c.globalOps.Close, err)
	c.regionOps, err = compute.NewRegionOperationsRESTClient(ctx, opts...)
	check(c.regionOps.Close, err)
	c.interconnects, err = compute.NewInterconnectsRESTClient(ctx, opts...)
	check(c.interconnects.Close, err)
	c.attachments, err = compute.NewInterconnectAttachmentsRESTClient(ctx, opts...)
	check(c.attachments.Close, err)
	c.attachmentGroups, err = compute.NewInterconnectAttachmentGroupsRESTClient(ctx, opts...)
	check(c.attachmentGroups.Close, err)
	c.groups, err = compute.NewInterconnectGroupsRESTClient(ctx, opts...)
	check(c.groups.Close, err)
	c.locations, err = compute.NewInterconnectLocationsRESTClient(ctx, opts...)
	check(c.locations.Close, err)
	c.remoteLocations, err = compute.NewInterconnectRemoteLocationsRESTClient(ctx, opts...)
	check(c.remoteLocations.Close, err)
	return c
}

// gapicWait waits for what a mutation returned with Operation.Wait and checks the
// operation it ends with: DONE, of the given type, without error.
func gapicWait(t *testing.T, ctx context.Context, op *compute.Operation, err error, operationType string) *computepb.Operation {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", operationType, err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatalf("%s: wait: %v", operationType, err)
	}
	p := op.Proto()
	if !op.Done() || p.GetStatus() != computepb.Operation_DONE || p.GetProgress() != 100 {
		t.Fatalf("%s: after Wait: status %v, progress %d", operationType, p.GetStatus(), p.GetProgress())
	}
	if p.GetOperationType() != operationType || p.Error != nil || p.GetId() == 0 || p.GetTargetId() == 0 || !strings.HasPrefix(op.Name(), "operation-") {
		t.Fatalf("%s: operation %v", operationType, p)
	}
	return p
}

// gapicError checks that err is the HTTP error status as the GAPIC clients give it (an
// *apierror.APIError around a *googleapi.Error) and returns the latter.
func gapicError(t *testing.T, err error, status int) *googleapi.Error {
	t.Helper()
	var ae *apierror.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want an *apierror.APIError of %d, got %T %v", status, err, err)
	}
	var ge *googleapi.Error
	if ae.HTTPCode() != status || !errors.As(err, &ge) || ge.Code != status {
		t.Fatalf("want %d, got %v", status, err)
	}
	if ge.Message == "" {
		t.Fatalf("the error has no message: %+v", ge)
	}
	return ge
}

// gapicSameJSON reports whether a body is the JSON want (protojson varies its spacing on
// purpose).
func gapicSameJSON(t *testing.T, body []byte, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(a, b)
}

// gapicReason checks that err is the HTTP error status with the given reason (the
// errors[].reason of Google's envelope) and returns it.
func gapicReason(t *testing.T, err error, status int, reason string) *googleapi.Error {
	t.Helper()
	ge := gapicError(t, err, status)
	if len(ge.Errors) == 0 || ge.Errors[0].Reason != reason {
		t.Errorf("want reason %s, got %+v", reason, ge)
	}
	return ge
}

// gapicEmptyAnswer checks what an operation's delete gives: the server answers 204 without a
// body (the discovery document gives the method no response), which the client, decoding
// every answer as JSON, reports as a syntax error rather than an HTTP error.
func gapicEmptyAnswer(t *testing.T, err error) {
	t.Helper()
	var ae *apierror.APIError
	if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("an operation's delete: %v, want the client's error decoding no body", err)
	}
}

// gapicCollect reads an iterator to its end.
func gapicCollect[T any](t *testing.T, seq iter.Seq2[T, error]) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// gapicNames is the names of resources.
func gapicNames[T interface{ GetName() string }](items []T) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = v.GetName()
	}
	return out
}

// gapicPages is how many requests since the first n went to a path ending in suffix, and
// checks that every one after the first sent a pageToken.
func gapicPages(t *testing.T, rec *gapicRecorder, n int, suffix string) int {
	t.Helper()
	pages := 0
	for _, r := range rec.since(n) {
		if !strings.HasSuffix(r.path, suffix) {
			continue
		}
		if pages > 0 && r.query.Get("pageToken") == "" {
			t.Errorf("page %d of %s was read without a pageToken", pages+1, suffix)
		}
		pages++
	}
	return pages
}

// gapicSeen collects the operations the server journaled (every one since the last call),
// for TestGAPIC's check that every operation of the spec was called.
func gapicSeen(t *testing.T, ctx context.Context, srv *understudytest.Server, seen map[string]bool) {
	t.Helper()
	api, limit := admingen.APICompute, 1000
	resp, err := srv.Admin.ListRequestsWithResponse(ctx, &admingen.ListRequestsParams{Api: &api, Limit: &limit})
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200 == nil {
		t.Fatalf("journal: %s", resp.Body)
	}
	if len(resp.JSON200.Requests) == limit {
		t.Fatal("the journal is full: some requests may be missing")
	}
	for _, r := range resp.JSON200.Requests {
		if r.OperationId != nil && r.Status < 300 {
			seen[*r.OperationId] = true
		}
	}
	if _, err := srv.Admin.ClearRequestsWithResponse(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestGAPIC drives every operation of the compute API through the GAPIC clients, with
// operations that finish at once (Operation.Wait reads each once).
func TestGAPIC(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithOperationMode("immediate"))
	ctx := context.Background()
	seen := map[string]bool{}
	run := func(name string, f func(t *testing.T, c *gapicClients)) {
		t.Run(name, func(t *testing.T) {
			f(t, newGAPICClients(t, ctx, srv.URL))
			gapicSeen(t, ctx, srv, seen)
		})
	}
	run("global forwarding rules", func(t *testing.T, c *gapicClients) { gapicRules(t, ctx, c) })
	run("regional forwarding rules", func(t *testing.T, c *gapicClients) { gapicRegionalRules(t, ctx, c) })
	run("interconnect locations", func(t *testing.T, c *gapicClients) { gapicLocations(t, ctx, c) })
	run("interconnect remote locations", func(t *testing.T, c *gapicClients) { gapicRemoteLocations(t, ctx, c) })
	run("interconnects", func(t *testing.T, c *gapicClients) { gapicInterconnects(t, ctx, c) })
	run("attachments and region operations", func(t *testing.T, c *gapicClients) { gapicAttachments(t, ctx, c) })
	run("attachment groups", func(t *testing.T, c *gapicClients) { gapicAttachmentGroups(t, ctx, c) })
	run("interconnect groups", func(t *testing.T, c *gapicClients) { gapicGroups(t, ctx, c) })
	run("global operations", func(t *testing.T, c *gapicClients) { gapicGlobalOperations(t, ctx, c) })

	spec, err := os.ReadFile("../specs/compute.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ops := regexp.MustCompile(`(?m)^ {6}operationId: (\S+)$`).FindAllSubmatch(spec, -1)
	if len(ops) != 63 {
		t.Errorf("the spec has %d operations, this test knows 63", len(ops))
	}
	for _, m := range ops {
		if !seen[string(m[1])] {
			t.Errorf("%s was never answered through the GAPIC clients as it answers a valid request", m[1])
		}
	}
}

func gapicRules(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-rules"
	proxy := "https://www.googleapis.com/compute/v1/projects/" + project + "/global/targetHttpProxies/"
	ins, err := c.rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{
		Project: project,
		ForwardingRuleResource: &computepb.ForwardingRule{
			Name: proto.String("gapic-fr-a"), Description: proto.String("web"), IPProtocol: proto.String("TCP"),
			PortRange: proto.String("80"), LoadBalancingScheme: proto.String("EXTERNAL_MANAGED"),
			Target: proto.String(proxy + "proxy-a"), Labels: map[string]string{"env": "prod", "team": "net"},
		},
	})
	sent := c.sent.last()
	insOp := gapicWait(t, ctx, ins, err, "insert")
	if sent.method != "POST" || sent.path != "/compute/v1/projects/"+project+"/global/forwardingRules" {
		t.Errorf("insert sent %s %s", sent.method, sent.path)
	}
	if got := sent.params(); got != "project="+project {
		t.Errorf("x-goog-request-params %q", got)
	}
	for _, n := range []string{"gapic-fr-b", "gapic-fr-c", "gapic-fr-d"} {
		env := "dev"
		if n == "gapic-fr-b" {
			env = "prod"
		}
		op, err := c.rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{
			Project:                project,
			ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String(n), PortRange: proto.String("443-443"), Labels: map[string]string{"env": env}},
		})
		gapicWait(t, ctx, op, err, "insert")
	}

	// A retry with the requestId is the first operation, and creates nothing more.
	const requestID = "2b7c9a4e-1f3d-4e6a-9b8c-0d1e2f3a4b5c"
	insertE := func() (*compute.Operation, error) {
		return c.rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{
			Project: project, RequestId: proto.String(requestID),
			ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String("gapic-fr-e"), PortRange: proto.String("8443")},
		})
	}
	op, err := insertE()
	if got := c.sent.last().query.Get("requestId"); got != requestID {
		t.Errorf("insert sent requestId %q", got)
	}
	first := gapicWait(t, ctx, op, err, "insert")
	op, err = insertE()
	again := gapicWait(t, ctx, op, err, "insert")
	if again.GetName() != first.GetName() || again.GetId() != first.GetId() {
		t.Errorf("a retry with the requestId: %s, want the first operation %s", again.GetName(), first.GetName())
	}

	rule, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-a"})
	if err != nil {
		t.Fatal(err)
	}
	if rule.GetKind() != "compute#forwardingRule" || rule.GetId() != insOp.GetTargetId() || rule.GetNetworkTier() != "PREMIUM" ||
		rule.GetPortRange() != "80-80" || rule.GetIPProtocol() != "TCP" || !strings.HasPrefix(rule.GetIPAddress(), "34.") ||
		rule.GetLabels()["env"] != "prod" || len(rule.GetLabels()) != 2 || rule.GetLabelFingerprint() == "" || rule.GetFingerprint() == "" ||
		!strings.HasSuffix(rule.GetSelfLink(), "/global/forwardingRules/gapic-fr-a") || rule.Region != nil ||
		!strings.HasSuffix(rule.GetTarget(), "/targetHttpProxies/proxy-a") {
		t.Errorf("get: %v", rule)
	}
	byID, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: strconv.FormatUint(rule.GetId(), 10), View: proto.String("FULL")})
	if err != nil || byID.GetName() != "gapic-fr-a" || c.sent.last().query.Get("view") != "FULL" {
		t.Errorf("get by id with view FULL: %v %v", byID, err)
	}

	// setLabels: the fingerprint read is written back; a stale one is 412.
	op, err = c.rules.SetLabels(ctx, &computepb.SetLabelsGlobalForwardingRuleRequest{
		Project: project, Resource: "gapic-fr-a",
		GlobalSetLabelsRequestResource: &computepb.GlobalSetLabelsRequest{Labels: map[string]string{"env": "staging"}, LabelFingerprint: rule.LabelFingerprint},
	})
	gapicWait(t, ctx, op, err, "setLabels")
	relabelled, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-a"})
	if err != nil || len(relabelled.GetLabels()) != 1 || relabelled.GetLabels()["env"] != "staging" ||
		relabelled.GetLabelFingerprint() == rule.GetLabelFingerprint() || relabelled.GetFingerprint() == rule.GetFingerprint() {
		t.Errorf("after setLabels: %v %v", relabelled, err)
	}
	_, err = c.rules.SetLabels(ctx, &computepb.SetLabelsGlobalForwardingRuleRequest{
		Project: project, Resource: "gapic-fr-a",
		GlobalSetLabelsRequestResource: &computepb.GlobalSetLabelsRequest{Labels: map[string]string{"env": "x"}, LabelFingerprint: rule.LabelFingerprint},
	})
	gapicReason(t, err, 412, "conditionNotMet")
	// Clearing the labels: protojson leaves the empty map out, so only the fingerprint is sent.
	op, err = c.rules.SetLabels(ctx, &computepb.SetLabelsGlobalForwardingRuleRequest{
		Project: project, Resource: "gapic-fr-c",
		GlobalSetLabelsRequestResource: &computepb.GlobalSetLabelsRequest{Labels: map[string]string{}, LabelFingerprint: proto.String(gapicLabelFingerprint(t, ctx, c, project, "gapic-fr-c"))},
	})
	if body := string(c.sent.last().body); strings.Contains(body, "labels") {
		t.Errorf("setLabels with an empty map sent %s", body)
	}
	gapicWait(t, ctx, op, err, "setLabels")
	if cleared, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-c"}); err != nil || len(cleared.GetLabels()) != 0 {
		t.Errorf("after clearing the labels: %v %v", cleared, err)
	}

	// setTarget with a requestId; a target of another kind is 400.
	op, err = c.rules.SetTarget(ctx, &computepb.SetTargetGlobalForwardingRuleRequest{
		Project: project, ForwardingRule: "gapic-fr-a", RequestId: proto.String("0d3a2e9c-6b1f-4c47-9a51-7f2b8e4d6c10"),
		TargetReferenceResource: &computepb.TargetReference{Target: proto.String(proxy + "proxy-b")},
	})
	if got := c.sent.last().query.Get("requestId"); got != "0d3a2e9c-6b1f-4c47-9a51-7f2b8e4d6c10" {
		t.Errorf("setTarget sent requestId %q", got)
	}
	gapicWait(t, ctx, op, err, "setTarget")
	retargeted, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-a"})
	if err != nil || !strings.HasSuffix(retargeted.GetTarget(), "/proxy-b") || retargeted.GetFingerprint() == relabelled.GetFingerprint() {
		t.Errorf("after setTarget: %v %v", retargeted, err)
	}
	_, err = c.rules.SetTarget(ctx, &computepb.SetTargetGlobalForwardingRuleRequest{
		Project: project, ForwardingRule: "gapic-fr-a",
		TargetReferenceResource: &computepb.TargetReference{Target: proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/global/targetTcpProxies/tcp")},
	})
	gapicError(t, err, 400)

	// patch: the backend bucket migration with the current fingerprint; what get returned,
	// sent back whole, changes nothing; a stale fingerprint is 412.
	op, err = c.rules.Patch(ctx, &computepb.PatchGlobalForwardingRuleRequest{
		Project: project, ForwardingRule: "gapic-fr-a",
		ForwardingRuleResource: &computepb.ForwardingRule{
			Fingerprint: retargeted.Fingerprint,
			ExternalManagedBackendBucketMigrationState:             proto.String("TEST_BY_PERCENTAGE"),
			ExternalManagedBackendBucketMigrationTestingPercentage: proto.Float32(12.5),
		},
	})
	gapicWait(t, ctx, op, err, "patch")
	patched, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-a"})
	if err != nil || patched.GetExternalManagedBackendBucketMigrationState() != "TEST_BY_PERCENTAGE" ||
		patched.GetExternalManagedBackendBucketMigrationTestingPercentage() != 12.5 || patched.GetLabels()["env"] != "staging" {
		t.Errorf("after patch: %v %v", patched, err)
	}
	op, err = c.rules.Patch(ctx, &computepb.PatchGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-a", ForwardingRuleResource: patched})
	gapicWait(t, ctx, op, err, "patch")
	if again, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-a"}); err != nil || !proto.Equal(again, patched) {
		t.Errorf("what get returned, sent back, changed the rule:\n%v\n%v (%v)", again, patched, err)
	}
	_, err = c.rules.Patch(ctx, &computepb.PatchGlobalForwardingRuleRequest{
		Project: project, ForwardingRule: "gapic-fr-a",
		ForwardingRuleResource: &computepb.ForwardingRule{Fingerprint: retargeted.Fingerprint, NetworkTier: proto.String("PREMIUM")},
	})
	gapicReason(t, err, 412, "conditionNotMet")

	// list: pages of maxResults, filter, orderBy; a bad filter is 400.
	n := c.sent.count()
	all := gapicCollect(t, c.rules.List(ctx, &computepb.ListGlobalForwardingRulesRequest{Project: project, MaxResults: proto.Uint32(2)}).All())
	if got := gapicNames(all); !slices.Equal(got, []string{"gapic-fr-a", "gapic-fr-b", "gapic-fr-c", "gapic-fr-d", "gapic-fr-e"}) {
		t.Errorf("list: %v", got)
	}
	if pages := gapicPages(t, c.sent, n, "/global/forwardingRules"); pages != 3 {
		t.Errorf("list of 5 with maxResults 2 read %d pages, want 3", pages)
	}
	prod := gapicCollect(t, c.rules.List(ctx, &computepb.ListGlobalForwardingRulesRequest{Project: project, Filter: proto.String("labels.env = prod")}).All())
	if got := gapicNames(prod); !slices.Equal(got, []string{"gapic-fr-b"}) {
		t.Errorf("filtered: %v", got)
	}
	newest := gapicCollect(t, c.rules.List(ctx, &computepb.ListGlobalForwardingRulesRequest{Project: project, OrderBy: proto.String("creationTimestamp desc"), MaxResults: proto.Uint32(3)}).All())
	if got := gapicNames(newest); !slices.Equal(got, []string{"gapic-fr-e", "gapic-fr-d", "gapic-fr-c", "gapic-fr-b", "gapic-fr-a"}) {
		t.Errorf("newest first: %v", got)
	}
	_, err = c.rules.List(ctx, &computepb.ListGlobalForwardingRulesRequest{Project: project, Filter: proto.String("colour = red")}).Next()
	if ge := gapicError(t, err, 400); !strings.Contains(ge.Message, "Invalid value for field 'filter'") {
		t.Errorf("bad filter: %v", ge)
	}

	// delete; then 404. A bad name is 400.
	op, err = c.rules.Delete(ctx, &computepb.DeleteGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-d"})
	if c.sent.last().method != "DELETE" {
		t.Errorf("delete sent %s", c.sent.last().method)
	}
	gapicWait(t, ctx, op, err, "delete")
	_, err = c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-fr-d"})
	if ge := gapicReason(t, err, 404, "notFound"); ge.Message != "The resource 'projects/"+project+"/global/forwardingRules/gapic-fr-d' was not found" {
		t.Errorf("after delete: %+v", ge)
	}
	_, err = c.rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{Project: project, ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String("Not_A_Name")}})
	if ge := gapicError(t, err, 400); !strings.Contains(ge.Message, "Not_A_Name") {
		t.Errorf("bad name: %v", ge)
	}
}

// gapicLabelFingerprint is a rule's current labelFingerprint.
func gapicLabelFingerprint(t *testing.T, ctx context.Context, c *gapicClients, project, name string) string {
	t.Helper()
	r, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: name})
	if err != nil {
		t.Fatal(err)
	}
	return r.GetLabelFingerprint()
}

func gapicRegionalRules(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-regional"
	for _, n := range []string{"gapic-agg-a", "gapic-agg-b"} {
		op, err := c.rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{Project: project, ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String(n), PortRange: proto.String("8080")}})
		gapicWait(t, ctx, op, err, "insert")
	}
	// A region holds no rule: an empty list, and 404.
	regional := gapicCollect(t, c.regionalRules.List(ctx, &computepb.ListForwardingRulesRequest{Project: project, Region: gapicRegion, MaxResults: proto.Uint32(5)}).All())
	if len(regional) != 0 {
		t.Errorf("regional list: %v", regional)
	}
	_, err := c.regionalRules.Get(ctx, &computepb.GetForwardingRuleRequest{Project: project, Region: gapicRegion, ForwardingRule: "gapic-agg-a"})
	gapicError(t, err, 404)
	if got := c.sent.last().params(); got != "project="+project+"&region="+gapicRegion+"&forwarding_rule=gapic-agg-a" {
		t.Errorf("x-goog-request-params %q", got)
	}

	// aggregatedList, a rule a page: the global rules under global, every region empty.
	n := c.sent.count()
	pairs := gapicCollect(t, c.regionalRules.AggregatedList(ctx, &computepb.AggregatedListForwardingRulesRequest{
		Project: project, MaxResults: proto.Uint32(1), IncludeAllScopes: proto.Bool(true), ServiceProjectNumber: proto.Int64(123456789012),
	}).All())
	if pages := gapicPages(t, c.sent, n, "/aggregated/forwardingRules"); pages != 2 {
		t.Errorf("aggregated list of 2 with maxResults 1 read %d pages, want 2", pages)
	}
	if got := c.sent.last().query.Get("serviceProjectNumber"); got != "123456789012" {
		t.Errorf("serviceProjectNumber sent as %q", got)
	}
	var global []string
	warned := 0
	for _, p := range pairs {
		if p.Key == "global" {
			global = append(global, gapicNames(p.Value.GetForwardingRules())...)
		} else if p.Value.GetWarning().GetCode() == "NO_RESULTS_ON_PAGE" && len(p.Value.GetForwardingRules()) == 0 {
			warned++
		} else {
			t.Errorf("scope %s: %v", p.Key, p.Value)
		}
	}
	if !slices.Equal(global, []string{"gapic-agg-a", "gapic-agg-b"}) || warned < 2 {
		t.Errorf("aggregated: global %v, %d empty regional scopes", global, warned)
	}
	for _, p := range pairs {
		if p.Key == "regions/"+gapicRegion {
			if d := p.Value.GetWarning().GetData(); len(d) != 1 || d[0].GetKey() != "scope" || d[0].GetValue() != "regions/"+gapicRegion {
				t.Errorf("the warning's data: %v", d)
			}
		}
	}

	// A regional rule: every method, its operations regional.
	op, err := c.regionalRules.Insert(ctx, &computepb.InsertForwardingRuleRequest{Project: project, Region: gapicRegion, RequestId: proto.String("3f0c1a52-6d1e-4b7a-9c0e-2a4b6c8d0e1f"),
		ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String("gapic-fr-r"), LoadBalancingScheme: proto.String("INTERNAL"), Ports: []string{"80"},
			BackendService: proto.String("regions/" + gapicRegion + "/backendServices/be"), Labels: map[string]string{"env": "dev"}}})
	if p := gapicWait(t, ctx, op, err, "insert"); !strings.HasSuffix(p.GetRegion(), "/regions/"+gapicRegion) {
		t.Errorf("the insert's operation is not regional: %v", p)
	}
	rule, err := c.regionalRules.Get(ctx, &computepb.GetForwardingRuleRequest{Project: project, Region: gapicRegion, ForwardingRule: "gapic-fr-r"})
	if err != nil || !strings.HasSuffix(rule.GetRegion(), "/regions/"+gapicRegion) || !slices.Equal(rule.GetPorts(), []string{"80"}) {
		t.Fatalf("regional get: %v %v", err, rule)
	}
	if got := gapicNames(gapicCollect(t, c.regionalRules.List(ctx, &computepb.ListForwardingRulesRequest{Project: project, Region: gapicRegion}).All())); !slices.Equal(got, []string{"gapic-fr-r"}) {
		t.Errorf("regional list: %v", got)
	}
	_, err = c.regionalRules.SetLabels(ctx, &computepb.SetLabelsForwardingRuleRequest{Project: project, Region: gapicRegion, Resource: "gapic-fr-r",
		RegionSetLabelsRequestResource: &computepb.RegionSetLabelsRequest{Labels: map[string]string{"env": "prod"}, LabelFingerprint: proto.String("42WmSpB8rSM=")}})
	gapicReason(t, err, 412, "conditionNotMet")
	op, err = c.regionalRules.SetLabels(ctx, &computepb.SetLabelsForwardingRuleRequest{Project: project, Region: gapicRegion, Resource: "gapic-fr-r",
		RegionSetLabelsRequestResource: &computepb.RegionSetLabelsRequest{Labels: map[string]string{"env": "prod"}, LabelFingerprint: rule.LabelFingerprint}})
	gapicWait(t, ctx, op, err, "setLabels")
	op, err = c.regionalRules.Patch(ctx, &computepb.PatchForwardingRuleRequest{Project: project, Region: gapicRegion, ForwardingRule: "gapic-fr-r",
		ForwardingRuleResource: &computepb.ForwardingRule{NetworkTier: proto.String("STANDARD")}})
	gapicWait(t, ctx, op, err, "patch")
	op, err = c.regionalRules.Insert(ctx, &computepb.InsertForwardingRuleRequest{Project: project, Region: gapicRegion,
		ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String("gapic-fr-p"), Target: proto.String("regions/" + gapicRegion + "/targetPools/a")}})
	gapicWait(t, ctx, op, err, "insert")
	op, err = c.regionalRules.SetTarget(ctx, &computepb.SetTargetForwardingRuleRequest{Project: project, Region: gapicRegion, ForwardingRule: "gapic-fr-p",
		TargetReferenceResource: &computepb.TargetReference{Target: proto.String("regions/" + gapicRegion + "/targetPools/b")}})
	gapicWait(t, ctx, op, err, "setTarget")
	for _, name := range []string{"gapic-fr-r", "gapic-fr-p"} {
		op, err = c.regionalRules.Delete(ctx, &computepb.DeleteForwardingRuleRequest{Project: project, Region: gapicRegion, ForwardingRule: name})
		gapicWait(t, ctx, op, err, "delete")
	}
	_, err = c.regionalRules.Get(ctx, &computepb.GetForwardingRuleRequest{Project: project, Region: gapicRegion, ForwardingRule: "gapic-fr-r"})
	gapicReason(t, err, 404, "notFound")
}

func gapicLocations(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-locations"
	loc, err := c.locations.Get(ctx, &computepb.GetInterconnectLocationRequest{Project: project, InterconnectLocation: "iad-zone1-1"})
	if err != nil {
		t.Fatal(err)
	}
	if loc.GetKind() != "compute#interconnectLocation" || loc.GetId() == 0 || loc.GetAvailabilityZone() != "zone1" || loc.GetStatus() != "AVAILABLE" ||
		len(loc.GetRegionInfos()) == 0 || loc.GetRegionInfos()[0].GetExpectedRttMs() == 0 || !slices.Contains(loc.GetAvailableLinkTypes(), "LINK_TYPE_ETHERNET_10G_LR") {
		t.Errorf("get: %v", loc)
	}
	n := c.sent.count()
	all := gapicNames(gapicCollect(t, c.locations.List(ctx, &computepb.ListInterconnectLocationsRequest{Project: project, MaxResults: proto.Uint32(4)}).All()))
	if len(all) <= 4 || !slices.IsSorted(all) || gapicPages(t, c.sent, n, "/global/interconnectLocations") != (len(all)+3)/4 {
		t.Errorf("list of %d in pages of 4: %v, %d pages", len(all), all, gapicPages(t, c.sent, n, "/global/interconnectLocations"))
	}
	iad := gapicNames(gapicCollect(t, c.locations.List(ctx, &computepb.ListInterconnectLocationsRequest{Project: project, Filter: proto.String(`name eq "iad-.*"`)}).All()))
	if len(iad) == 0 || slices.ContainsFunc(iad, func(n string) bool { return !strings.HasPrefix(n, "iad-") }) {
		t.Errorf("filtered: %v", iad)
	}
	_, err = c.locations.Get(ctx, &computepb.GetInterconnectLocationRequest{Project: project, InterconnectLocation: "nowhere-zone1-1"})
	gapicError(t, err, 404)
}

func gapicRemoteLocations(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-remote-locations"
	r, err := c.remoteLocations.Get(ctx, &computepb.GetInterconnectRemoteLocationRequest{Project: project, InterconnectRemoteLocation: "azure-iad-1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.GetKind() != "compute#interconnectRemoteLocation" || r.GetId() == 0 || r.GetRemoteService() != "Microsoft Azure" || r.GetLacp() != "LACP_UNSUPPORTED" ||
		r.GetMaxLagSize10Gbps() != 1 || r.GetConstraints().GetSubnetLengthRange().GetMin() != 30 || r.GetConstraints().GetPortPairVlan() != "PORT_PAIR_MATCHING_VLAN" ||
		r.GetAttachmentConfigurationConstraints().GetBgpPeerAsnRanges()[0].GetMax() != 12076 || len(r.GetPermittedConnections()) == 0 ||
		!strings.HasSuffix(r.GetPermittedConnections()[0].GetInterconnectLocation(), "/projects/"+project+"/global/interconnectLocations/iad-zone1-1") {
		t.Errorf("get: %v", r)
	}
	n := c.sent.count()
	all := gapicNames(gapicCollect(t, c.remoteLocations.List(ctx, &computepb.ListInterconnectRemoteLocationsRequest{Project: project, MaxResults: proto.Uint32(2)}).All()))
	if len(all) <= 2 || !slices.IsSorted(all) || gapicPages(t, c.sent, n, "/global/interconnectRemoteLocations") != (len(all)+1)/2 {
		t.Errorf("list of %d in pages of 2: %v, %d pages", len(all), all, gapicPages(t, c.sent, n, "/global/interconnectRemoteLocations"))
	}
	aws := gapicNames(gapicCollect(t, c.remoteLocations.List(ctx, &computepb.ListInterconnectRemoteLocationsRequest{Project: project, Filter: proto.String(`remoteService = "Amazon Web Services"`)}).All()))
	if len(aws) == 0 || slices.ContainsFunc(aws, func(n string) bool { return !strings.HasPrefix(n, "aws-") }) {
		t.Errorf("filtered: %v", aws)
	}
	_, err = c.remoteLocations.Get(ctx, &computepb.GetInterconnectRemoteLocationRequest{Project: project, InterconnectRemoteLocation: "aws-nowhere-1"})
	gapicError(t, err, 404)

	// A Cross-Cloud Interconnect names one by its selfLink, and reads back with it; one at a
	// location it does not permit is refused.
	insert := func(name, loc string) (*compute.Operation, error) {
		return c.interconnects.Insert(ctx, &computepb.InsertInterconnectRequest{Project: project, InterconnectResource: &computepb.Interconnect{
			Name: proto.String(name), Location: gapicLocation(project, loc), RemoteLocation: proto.String(r.GetSelfLink()),
			LinkType: proto.String("LINK_TYPE_ETHERNET_10G_LR"), RequestedLinkCount: proto.Int32(1), InterconnectType: proto.String("DEDICATED"),
		}})
	}
	op, err := insert("gapic-cci", "iad-zone2-1")
	gapicWait(t, ctx, op, err, "insert")
	ic, err := c.interconnects.Get(ctx, &computepb.GetInterconnectRequest{Project: project, Interconnect: "gapic-cci"})
	if err != nil || ic.GetRemoteLocation() != r.GetSelfLink() {
		t.Errorf("get: %v %v", err, ic)
	}
	_, err = insert("gapic-cci-far", "lax-zone1-8")
	gapicReason(t, err, 400, "invalid")
}

// gapicLocation is the URL of a catalog location.
func gapicLocation(project, name string) *string {
	return proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/global/interconnectLocations/" + name)
}

// gapicInterconnectURL is the URL of an interconnect of project.
func gapicInterconnectURL(project, name string) *string {
	return proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/global/interconnects/" + name)
}

// gapicNewInterconnect inserts a 10G dedicated interconnect of one link at a catalog location.
func gapicNewInterconnect(t *testing.T, ctx context.Context, c *gapicClients, project, name, loc string) *computepb.Operation {
	t.Helper()
	op, err := c.interconnects.Insert(ctx, &computepb.InsertInterconnectRequest{
		Project: project,
		InterconnectResource: &computepb.Interconnect{
			Name: proto.String(name), Location: gapicLocation(project, loc), LinkType: proto.String("LINK_TYPE_ETHERNET_10G_LR"),
			RequestedLinkCount: proto.Int32(1), InterconnectType: proto.String("DEDICATED"),
		},
	})
	return gapicWait(t, ctx, op, err, "insert")
}

func gapicInterconnects(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-interconnects"
	op, err := c.interconnects.Insert(ctx, &computepb.InsertInterconnectRequest{
		Project: project,
		InterconnectResource: &computepb.Interconnect{
			Name: proto.String("gapic-ic-a"), Location: gapicLocation(project, "iad-zone1-1"), LinkType: proto.String("LINK_TYPE_ETHERNET_10G_LR"),
			RequestedLinkCount: proto.Int32(2), InterconnectType: proto.String("DEDICATED"), CustomerName: proto.String("Example"),
			AdminEnabled: proto.Bool(true), Labels: map[string]string{"tier": "gold"}, RequestedFeatures: []string{"IF_MACSEC"},
			MacsecEnabled: proto.Bool(true),
			Macsec:        &computepb.InterconnectMacsec{FailOpen: proto.Bool(true), PreSharedKeys: []*computepb.InterconnectMacsecPreSharedKey{{Name: proto.String("key1"), StartTime: proto.String("2026-01-01T00:00:00Z")}}},
		},
	})
	insOp := gapicWait(t, ctx, op, err, "insert")
	gapicNewInterconnect(t, ctx, c, project, "gapic-ic-b", "iad-zone2-1")
	gapicNewInterconnect(t, ctx, c, project, "gapic-ic-c", "lax-zone1-8")

	get := func(name string) *computepb.Interconnect {
		t.Helper()
		ic, err := c.interconnects.Get(ctx, &computepb.GetInterconnectRequest{Project: project, Interconnect: name})
		if err != nil {
			t.Fatal(err)
		}
		return ic
	}
	ic := get("gapic-ic-a")
	if ic.GetKind() != "compute#interconnect" || ic.GetId() != insOp.GetTargetId() || ic.GetRequestedLinkCount() != 2 || ic.GetProvisionedLinkCount() != 2 ||
		len(ic.GetCircuitInfos()) != 2 || ic.GetLabels()["tier"] != "gold" || !slices.Equal(ic.GetRequestedFeatures(), []string{"IF_MACSEC"}) ||
		!ic.GetMacsecEnabled() || ic.GetMacsec().GetPreSharedKeys()[0].GetName() != "key1" || !strings.HasSuffix(ic.GetLocation(), "/iad-zone1-1") ||
		ic.GetInterconnectType() != "DEDICATED" {
		t.Errorf("get: %v", ic)
	}

	// patch; what get returned, sent back whole, changes nothing.
	op, err = c.interconnects.Patch(ctx, &computepb.PatchInterconnectRequest{
		Project: project, Interconnect: "gapic-ic-a",
		InterconnectResource: &computepb.Interconnect{Description: proto.String("primary"), NocContactEmail: proto.String("noc@example.com")},
	})
	if sent := c.sent.last(); sent.method != "PATCH" || !gapicSameJSON(t, sent.body, `{"description":"primary","nocContactEmail":"noc@example.com"}`) {
		t.Errorf("patch sent %s %s", sent.method, sent.body)
	}
	gapicWait(t, ctx, op, err, "patch")
	patched := get("gapic-ic-a")
	if patched.GetDescription() != "primary" || patched.GetNocContactEmail() != "noc@example.com" || patched.GetLabels()["tier"] != "gold" || patched.GetLabelFingerprint() != ic.GetLabelFingerprint() {
		t.Errorf("after patch: %v", patched)
	}
	op, err = c.interconnects.Patch(ctx, &computepb.PatchInterconnectRequest{Project: project, Interconnect: "gapic-ic-a", InterconnectResource: patched})
	gapicWait(t, ctx, op, err, "patch")
	if again := get("gapic-ic-a"); !proto.Equal(again, patched) {
		t.Errorf("what get returned, sent back, changed the interconnect:\n%v\n%v", again, patched)
	}

	// setLabels; a stale fingerprint is 412.
	op, err = c.interconnects.SetLabels(ctx, &computepb.SetLabelsInterconnectRequest{
		Project: project, Resource: "gapic-ic-a",
		GlobalSetLabelsRequestResource: &computepb.GlobalSetLabelsRequest{Labels: map[string]string{"tier": "silver", "env": "prod"}, LabelFingerprint: patched.LabelFingerprint},
	})
	gapicWait(t, ctx, op, err, "setLabels")
	if l := get("gapic-ic-a").GetLabels(); len(l) != 2 || l["tier"] != "silver" || l["env"] != "prod" {
		t.Errorf("labels after setLabels: %v", l)
	}
	_, err = c.interconnects.SetLabels(ctx, &computepb.SetLabelsInterconnectRequest{
		Project: project, Resource: "gapic-ic-a",
		GlobalSetLabelsRequestResource: &computepb.GlobalSetLabelsRequest{Labels: map[string]string{"a": "b"}, LabelFingerprint: patched.LabelFingerprint},
	})
	gapicError(t, err, 412)

	// getDiagnostics and getMacsecConfig.
	diag, err := c.interconnects.GetDiagnostics(ctx, &computepb.GetDiagnosticsInterconnectRequest{Project: project, Interconnect: "gapic-ic-a"})
	if err != nil || len(diag.GetResult().GetLinks()) != 2 || diag.GetResult().GetBundleOperationalStatus() != "BUNDLE_OPERATIONAL_STATUS_UP" ||
		diag.GetResult().GetLinks()[0].GetReceivingOpticalPower().GetValue() != -2.5 {
		t.Errorf("getDiagnostics: %v %v", diag, err)
	}
	macsec, err := c.interconnects.GetMacsecConfig(ctx, &computepb.GetMacsecConfigInterconnectRequest{Project: project, Interconnect: "gapic-ic-a"})
	if err != nil || macsec.GetEtag() == "" || len(macsec.GetResult().GetPreSharedKeys()) != 1 || macsec.GetResult().GetPreSharedKeys()[0].GetName() != "key1" ||
		!regexp.MustCompile(`^[0-9a-fA-F]{32}$`).MatchString(macsec.GetResult().GetPreSharedKeys()[0].GetCak()) {
		t.Errorf("getMacsecConfig: %v %v", macsec, err)
	}

	// setName: the id stays; the current name must match; a name in use is 409.
	op, err = c.interconnects.SetName(ctx, &computepb.SetNameInterconnectRequest{
		Project: project, Interconnect: "gapic-ic-b", RequestId: proto.String("7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"),
		InterconnectsSetNameRequestResource: &computepb.InterconnectsSetNameRequest{CurrentName: proto.String("gapic-ic-b"), Name: proto.String("gapic-ic-b2")},
	})
	renameOp := gapicWait(t, ctx, op, err, "setName")
	if renamed := get("gapic-ic-b2"); renamed.GetId() != renameOp.GetTargetId() {
		t.Errorf("renamed: %v, operation %v", renamed, renameOp)
	}
	_, err = c.interconnects.Get(ctx, &computepb.GetInterconnectRequest{Project: project, Interconnect: "gapic-ic-b"})
	gapicError(t, err, 404)
	_, err = c.interconnects.SetName(ctx, &computepb.SetNameInterconnectRequest{
		Project: project, Interconnect: "gapic-ic-b2",
		InterconnectsSetNameRequestResource: &computepb.InterconnectsSetNameRequest{Name: proto.String("gapic-ic-a")},
	})
	gapicError(t, err, 409)

	// Lists.
	n := c.sent.count()
	all := gapicNames(gapicCollect(t, c.interconnects.List(ctx, &computepb.ListInterconnectsRequest{Project: project, MaxResults: proto.Uint32(2)}).All()))
	if !slices.Equal(all, []string{"gapic-ic-a", "gapic-ic-b2", "gapic-ic-c"}) || gapicPages(t, c.sent, n, "/global/interconnects") != 2 {
		t.Errorf("list: %v in %d pages", all, gapicPages(t, c.sent, n, "/global/interconnects"))
	}
	if got := gapicNames(gapicCollect(t, c.interconnects.List(ctx, &computepb.ListInterconnectsRequest{Project: project, Filter: proto.String("labels.env = prod")}).All())); !slices.Equal(got, []string{"gapic-ic-a"}) {
		t.Errorf("filtered: %v", got)
	}

	// Clearing the labels through a patch: the client leaves the empty map out, so the
	// fingerprint alone says it.
	before := get("gapic-ic-a")
	op, err = c.interconnects.Patch(ctx, &computepb.PatchInterconnectRequest{
		Project: project, Interconnect: "gapic-ic-a",
		InterconnectResource: &computepb.Interconnect{Labels: map[string]string{}, LabelFingerprint: before.LabelFingerprint},
	})
	if body := c.sent.last().body; !gapicSameJSON(t, body, `{"labelFingerprint":"`+before.GetLabelFingerprint()+`"}`) {
		t.Errorf("the patch clearing labels sent %s", body)
	}
	gapicWait(t, ctx, op, err, "patch")
	if after := get("gapic-ic-a"); len(after.GetLabels()) != 0 || after.GetLabelFingerprint() == before.GetLabelFingerprint() {
		t.Errorf("after clearing the labels with a patch: %v", after)
	}

	// A link type the catalog does not know is 400; delete, then 404.
	_, err = c.interconnects.Insert(ctx, &computepb.InsertInterconnectRequest{
		Project: project,
		InterconnectResource: &computepb.Interconnect{
			Name: proto.String("gapic-ic-bad"), Location: gapicLocation(project, "iad-zone1-1"), LinkType: proto.String("LINK_TYPE_CARRIER_PIGEON"),
			RequestedLinkCount: proto.Int32(1), InterconnectType: proto.String("DEDICATED"),
		},
	})
	gapicError(t, err, 400)
	op, err = c.interconnects.Delete(ctx, &computepb.DeleteInterconnectRequest{Project: project, Interconnect: "gapic-ic-c"})
	gapicWait(t, ctx, op, err, "delete")
	_, err = c.interconnects.Get(ctx, &computepb.GetInterconnectRequest{Project: project, Interconnect: "gapic-ic-c"})
	gapicError(t, err, 404)
}

func gapicAttachments(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-attachments"
	gapicNewInterconnect(t, ctx, c, project, "gapic-att-ic", "iad-zone1-1")
	router := func(region string) *string {
		return proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + region + "/routers/router-1")
	}
	vlan := int32(100)
	insert := func(name, region, subnet string, extra func(*computepb.InterconnectAttachment)) (*compute.Operation, error) {
		vlan++
		a := &computepb.InterconnectAttachment{
			Name: proto.String(name), Type: proto.String("DEDICATED"), Interconnect: gapicInterconnectURL(project, "gapic-att-ic"),
			Router: router(region), VlanTag8021Q: proto.Int32(vlan), CandidateSubnets: []string{subnet},
		}
		if extra != nil {
			extra(a)
		}
		return c.attachments.Insert(ctx, &computepb.InsertInterconnectAttachmentRequest{Project: project, Region: region, InterconnectAttachmentResource: a})
	}

	// validateOnly: decided, committed nothing.
	op, err := c.attachments.Insert(ctx, &computepb.InsertInterconnectAttachmentRequest{
		Project: project, Region: gapicRegion, ValidateOnly: proto.Bool(true),
		InterconnectAttachmentResource: &computepb.InterconnectAttachment{
			Name: proto.String("gapic-att-v"), Type: proto.String("DEDICATED"), Interconnect: gapicInterconnectURL(project, "gapic-att-ic"),
			Router: router(gapicRegion), VlanTag8021Q: proto.Int32(3001),
		},
	})
	if got := c.sent.last().query.Get("validateOnly"); got != "true" {
		t.Errorf("validateOnly sent as %q", got)
	}
	// An operation with only its kind: there is nothing to wait on (Wait would read an
	// operation of no name), and without a status the wrapper does not call it done.
	if err != nil || op.Done() || !proto.Equal(op.Proto(), &computepb.Operation{Kind: proto.String("compute#operation")}) {
		t.Fatalf("validateOnly: %v %v", op, err)
	}
	_, err = c.attachments.Get(ctx, &computepb.GetInterconnectAttachmentRequest{Project: project, Region: gapicRegion, InterconnectAttachment: "gapic-att-v"})
	gapicError(t, err, 404)

	op, err = insert("gapic-att-a", gapicRegion, "169.254.10.0/29", func(a *computepb.InterconnectAttachment) {
		a.Labels = map[string]string{"env": "prod"}
		a.Mtu = proto.Int32(1500)
		a.Bandwidth = proto.String("BPS_10G")
	})
	insOp := gapicWait(t, ctx, op, err, "insert")
	if !strings.HasSuffix(insOp.GetRegion(), "/regions/"+gapicRegion) || !strings.HasSuffix(insOp.GetSelfLink(), "/regions/"+gapicRegion+"/operations/"+insOp.GetName()) {
		t.Errorf("a regional operation: %v", insOp)
	}
	if p := c.sent.last().path; p != "/compute/v1/projects/"+project+"/regions/"+gapicRegion+"/operations/"+insOp.GetName() {
		t.Errorf("Wait on a regional operation read %s", p)
	}
	op, err = insert("gapic-att-b", gapicRegion, "169.254.20.0/29", nil)
	gapicWait(t, ctx, op, err, "insert")
	op, err = insert("gapic-att-c", "us-east1", "169.254.30.0/29", nil)
	gapicWait(t, ctx, op, err, "insert")

	get := func(name string) *computepb.InterconnectAttachment {
		t.Helper()
		a, err := c.attachments.Get(ctx, &computepb.GetInterconnectAttachmentRequest{Project: project, Region: gapicRegion, InterconnectAttachment: name})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	att := get("gapic-att-a")
	if att.GetKind() != "compute#interconnectAttachment" || att.GetId() != insOp.GetTargetId() || att.GetCloudRouterIpAddress() != "169.254.10.1/29" ||
		att.GetCustomerRouterIpAddress() != "169.254.10.2/29" || att.GetVlanTag8021Q() != 101 || att.GetMtu() != 1500 || att.GetBandwidth() != "BPS_10G" ||
		att.GetEncryption() != "NONE" || att.GetLabels()["env"] != "prod" || att.GetPrivateInterconnectInfo().GetTag8021Q() != 101 || att.GetDataplaneVersion() != 2 {
		t.Errorf("get: %v", att)
	}

	// patch; what get returned, sent back, changes nothing.
	op, err = c.attachments.Patch(ctx, &computepb.PatchInterconnectAttachmentRequest{
		Project: project, Region: gapicRegion, InterconnectAttachment: "gapic-att-a",
		InterconnectAttachmentResource: &computepb.InterconnectAttachment{Description: proto.String("patched"), Mtu: proto.Int32(8896)},
	})
	patchOp := gapicWait(t, ctx, op, err, "patch")
	patched := get("gapic-att-a")
	if patched.GetDescription() != "patched" || patched.GetMtu() != 8896 || patched.GetLabels()["env"] != "prod" {
		t.Errorf("after patch: %v", patched)
	}
	op, err = c.attachments.Patch(ctx, &computepb.PatchInterconnectAttachmentRequest{Project: project, Region: gapicRegion, InterconnectAttachment: "gapic-att-a", InterconnectAttachmentResource: patched})
	gapicWait(t, ctx, op, err, "patch")
	if again := get("gapic-att-a"); !proto.Equal(again, patched) {
		t.Errorf("what get returned, sent back, changed the attachment:\n%v\n%v", again, patched)
	}

	// setLabels with a requestId: a retry is the first operation and changes nothing.
	const requestID = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	op, err = c.attachments.SetLabels(ctx, &computepb.SetLabelsInterconnectAttachmentRequest{
		Project: project, Region: gapicRegion, Resource: "gapic-att-a", RequestId: proto.String(requestID),
		RegionSetLabelsRequestResource: &computepb.RegionSetLabelsRequest{Labels: map[string]string{"env": "dev", "owner": "net"}, LabelFingerprint: patched.LabelFingerprint},
	})
	first := gapicWait(t, ctx, op, err, "setLabels")
	op, err = c.attachments.SetLabels(ctx, &computepb.SetLabelsInterconnectAttachmentRequest{
		Project: project, Region: gapicRegion, Resource: "gapic-att-a", RequestId: proto.String(requestID),
		RegionSetLabelsRequestResource: &computepb.RegionSetLabelsRequest{Labels: map[string]string{"env": "other"}, LabelFingerprint: patched.LabelFingerprint},
	})
	if again := gapicWait(t, ctx, op, err, "setLabels"); again.GetName() != first.GetName() {
		t.Errorf("a retry with the requestId: %s, want %s", again.GetName(), first.GetName())
	}
	if l := get("gapic-att-a").GetLabels(); len(l) != 2 || l["owner"] != "net" {
		t.Errorf("labels: %v", l)
	}

	// Lists: regional pages, the aggregated list by scope.
	n := c.sent.count()
	regional := gapicNames(gapicCollect(t, c.attachments.List(ctx, &computepb.ListInterconnectAttachmentsRequest{Project: project, Region: gapicRegion, MaxResults: proto.Uint32(1)}).All()))
	if !slices.Equal(regional, []string{"gapic-att-a", "gapic-att-b"}) || gapicPages(t, c.sent, n, "/interconnectAttachments") != 2 {
		t.Errorf("list: %v", regional)
	}
	n = c.sent.count()
	pairs := gapicCollect(t, c.attachments.AggregatedList(ctx, &computepb.AggregatedListInterconnectAttachmentsRequest{Project: project, MaxResults: proto.Uint32(1), IncludeAllScopes: proto.Bool(true)}).All())
	if pages := gapicPages(t, c.sent, n, "/aggregated/interconnectAttachments"); pages != 3 {
		t.Errorf("aggregated list of 3 with maxResults 1 read %d pages", pages)
	}
	items := map[string][]string{}
	for _, p := range pairs {
		items[p.Key] = append(items[p.Key], gapicNames(p.Value.GetInterconnectAttachments())...)
	}
	if !slices.Equal(items["regions/"+gapicRegion], []string{"gapic-att-a", "gapic-att-b"}) || !slices.Equal(items["regions/us-east1"], []string{"gapic-att-c"}) ||
		len(items["global"]) != 0 {
		t.Errorf("aggregated: %v", items)
	}
	if _, ok := items["global"]; !ok {
		t.Error("includeAllScopes: no global scope")
	}

	// Region operations: get, wait, list (paged, filtered), delete.
	got, err := c.regionOps.Get(ctx, &computepb.GetRegionOperationRequest{Project: project, Region: gapicRegion, Operation: insOp.GetName()})
	if err != nil || got.GetStatus() != computepb.Operation_DONE || got.GetId() != insOp.GetId() || got.GetTargetId() != insOp.GetTargetId() {
		t.Errorf("get: %v %v", got, err)
	}
	waited, err := c.regionOps.Wait(ctx, &computepb.WaitRegionOperationRequest{Project: project, Region: gapicRegion, Operation: patchOp.GetName()})
	if err != nil || waited.GetOperationType() != "patch" || waited.GetStatus() != computepb.Operation_DONE || c.sent.last().method != "POST" {
		t.Errorf("wait: %v %v", waited, err)
	}
	n = c.sent.count()
	ops := gapicCollect(t, c.regionOps.List(ctx, &computepb.ListRegionOperationsRequest{Project: project, Region: gapicRegion, MaxResults: proto.Uint32(2)}).All())
	if len(ops) < 5 || gapicPages(t, c.sent, n, "/operations") != (len(ops)+1)/2 {
		t.Errorf("list: %d operations in %d pages", len(ops), gapicPages(t, c.sent, n, "/operations"))
	}
	for _, o := range ops {
		if !strings.HasSuffix(o.GetRegion(), "/regions/"+gapicRegion) {
			t.Errorf("listed %v", o)
		}
	}
	inserts := gapicCollect(t, c.regionOps.List(ctx, &computepb.ListRegionOperationsRequest{Project: project, Region: gapicRegion, Filter: proto.String("operationType = insert")}).All())
	if len(inserts) != 2 {
		t.Errorf("inserts: %d", len(inserts))
	}
	_, err = c.regionOps.Delete(ctx, &computepb.DeleteRegionOperationRequest{Project: project, Region: gapicRegion, Operation: insOp.GetName()})
	gapicEmptyAnswer(t, err)
	_, err = c.regionOps.Get(ctx, &computepb.GetRegionOperationRequest{Project: project, Region: gapicRegion, Operation: insOp.GetName()})
	gapicError(t, err, 404)

	// delete; a region outside the location's is 400.
	op, err = c.attachments.Delete(ctx, &computepb.DeleteInterconnectAttachmentRequest{Project: project, Region: "us-east1", InterconnectAttachment: "gapic-att-c"})
	gapicWait(t, ctx, op, err, "delete")
	_, err = c.attachments.Get(ctx, &computepb.GetInterconnectAttachmentRequest{Project: project, Region: "us-east1", InterconnectAttachment: "gapic-att-c"})
	gapicError(t, err, 404)
	_, err = insert("gapic-att-x", "europe-west3", "169.254.40.0/29", nil)
	gapicError(t, err, 400)
}

// gapicIAM runs the IAM methods of a kind of group: the empty policy, a set with the etag
// (a stale one is 409), a conditional binding read by a version 1 caller, and
// testIamPermissions.
func gapicIAM(t *testing.T,
	get func(version *int32) (*computepb.Policy, error),
	set func(*computepb.GlobalSetPolicyRequest) (*computepb.Policy, error),
	test func([]string) (*computepb.TestPermissionsResponse, error),
	permission string,
) {
	t.Helper()
	empty, err := get(nil)
	if err != nil || empty.GetVersion() != 1 || empty.GetEtag() != "ACAB" || len(empty.GetBindings()) != 0 {
		t.Fatalf("the empty policy: %v %v", empty, err)
	}
	policy, err := set(&computepb.GlobalSetPolicyRequest{Policy: &computepb.Policy{
		Version: proto.Int32(3), Etag: empty.Etag,
		Bindings: []*computepb.Binding{
			{Role: proto.String("roles/compute.viewer"), Members: []string{"user:ana@example.com", "user:ana@example.com", "group:net@example.com"}},
			{
				Role: proto.String("roles/compute.networkAdmin"), Members: []string{"serviceAccount:ops@p.iam.gserviceaccount.com"},
				Condition: &computepb.Expr{Title: proto.String("soon"), Expression: proto.String(`request.time < timestamp("2030-01-01T00:00:00Z")`)},
			},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if policy.GetVersion() != 3 || !strings.HasPrefix(policy.GetEtag(), "BwX") || len(policy.GetBindings()) != 2 ||
		policy.GetBindings()[0].GetRole() != "roles/compute.networkAdmin" || policy.GetBindings()[0].GetCondition().GetTitle() != "soon" ||
		!slices.Equal(policy.GetBindings()[1].GetMembers(), []string{"user:ana@example.com", "group:net@example.com"}) {
		t.Errorf("set: %v", policy)
	}
	if v3, err := get(proto.Int32(3)); err != nil || !proto.Equal(v3, policy) {
		t.Errorf("get at version 3: %v %v", v3, err)
	}
	v1, err := get(proto.Int32(1))
	if err != nil || v1.GetVersion() != 1 || !strings.HasPrefix(v1.GetBindings()[0].GetRole(), "roles/compute.networkAdmin_withcond_") || v1.GetBindings()[0].Condition != nil {
		t.Errorf("get at version 1: %v %v", v1, err)
	}
	_, err = set(&computepb.GlobalSetPolicyRequest{Policy: &computepb.Policy{Etag: empty.Etag}})
	gapicReason(t, err, 409, "aborted")
	_, err = set(&computepb.GlobalSetPolicyRequest{Policy: &computepb.Policy{Bindings: []*computepb.Binding{{Role: proto.String("roles/compute.viewer"), Members: []string{"nobody"}}}}})
	gapicError(t, err, 400)
	perms, err := test([]string{permission, "compute.instances.get"})
	if err != nil || !slices.Equal(perms.GetPermissions(), []string{permission}) {
		t.Errorf("testIamPermissions: %v %v", perms, err)
	}
}

func gapicAttachmentGroups(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-attachment-groups"
	gapicNewInterconnect(t, ctx, c, project, "gapic-iag-ic1", "iad-zone1-1")
	gapicNewInterconnect(t, ctx, c, project, "gapic-iag-ic2", "iad-zone2-1")
	attachment := func(name, ic string, vlan int32) string {
		t.Helper()
		op, err := c.attachments.Insert(ctx, &computepb.InsertInterconnectAttachmentRequest{
			Project: project, Region: gapicRegion,
			InterconnectAttachmentResource: &computepb.InterconnectAttachment{
				Name: proto.String(name), Type: proto.String("DEDICATED"), Interconnect: gapicInterconnectURL(project, ic),
				Router: proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + gapicRegion + "/routers/r"), VlanTag8021Q: proto.Int32(vlan),
			},
		})
		gapicWait(t, ctx, op, err, "insert")
		return "https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + gapicRegion + "/interconnectAttachments/" + name
	}
	a1 := attachment("gapic-iag-a1", "gapic-iag-ic1", 501)
	a2 := attachment("gapic-iag-a2", "gapic-iag-ic2", 502)
	groups := c.attachmentGroups

	op, err := groups.Insert(ctx, &computepb.InsertInterconnectAttachmentGroupRequest{
		Project: project,
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{
			Name: proto.String("gapic-iag"), Description: proto.String("pair"),
			Intent:      &computepb.InterconnectAttachmentGroupIntent{AvailabilitySla: proto.String("PRODUCTION_NON_CRITICAL")},
			Attachments: map[string]*computepb.InterconnectAttachmentGroupAttachment{"z1": {Attachment: proto.String(a1)}},
		},
	})
	insOp := gapicWait(t, ctx, op, err, "insert")
	op, err = groups.Insert(ctx, &computepb.InsertInterconnectAttachmentGroupRequest{
		Project: project,
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{
			Name: proto.String("gapic-iag-b"), Intent: &computepb.InterconnectAttachmentGroupIntent{AvailabilitySla: proto.String("NO_SLA")},
		},
	})
	gapicWait(t, ctx, op, err, "insert")

	get := func(name string) *computepb.InterconnectAttachmentGroup {
		t.Helper()
		g, err := groups.Get(ctx, &computepb.GetInterconnectAttachmentGroupRequest{Project: project, InterconnectAttachmentGroup: name})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := get("gapic-iag")
	if g.GetKind() != "compute#interconnectAttachmentGroup" || g.GetId() != insOp.GetTargetId() || g.GetEtag() == "" ||
		!strings.HasSuffix(g.GetAttachments()["z1"].GetAttachment(), "/gapic-iag-a1") || g.GetConfigured().GetAvailabilitySla().GetEffectiveSla() != "NO_SLA" ||
		len(g.GetConfigured().GetAvailabilitySla().GetIntendedSlaBlockers()) == 0 || g.GetLogicalStructure().GetRegions()[0].GetRegion() != gapicRegion {
		t.Errorf("get: %v", g)
	}

	// patch: a merge patch with the etag; updateMask; a stale etag is 412.
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectAttachmentGroupRequest{
		Project: project, InterconnectAttachmentGroup: "gapic-iag",
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{
			Etag: g.Etag, Attachments: map[string]*computepb.InterconnectAttachmentGroupAttachment{"z2": {Attachment: proto.String(a2)}},
		},
	})
	gapicWait(t, ctx, op, err, "patch")
	both := get("gapic-iag")
	if len(both.GetAttachments()) != 2 || both.GetConfigured().GetAvailabilitySla().GetEffectiveSla() != "PRODUCTION_NON_CRITICAL" ||
		len(both.GetConfigured().GetAvailabilitySla().GetIntendedSlaBlockers()) != 0 {
		t.Errorf("after patch: %v", both)
	}
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectAttachmentGroupRequest{
		Project: project, InterconnectAttachmentGroup: "gapic-iag", UpdateMask: proto.String("description"),
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{Description: proto.String("both zones")},
	})
	if got := c.sent.last().query.Get("updateMask"); got != "description" {
		t.Errorf("updateMask sent as %q", got)
	}
	gapicWait(t, ctx, op, err, "patch")
	described := get("gapic-iag")
	if described.GetDescription() != "both zones" || len(described.GetAttachments()) != 2 {
		t.Errorf("after the masked patch: %v", described)
	}
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectAttachmentGroupRequest{Project: project, InterconnectAttachmentGroup: "gapic-iag", InterconnectAttachmentGroupResource: described})
	gapicWait(t, ctx, op, err, "patch")
	resent := get("gapic-iag")
	resent.Etag, described.Etag = nil, nil // every patch moves it
	if !proto.Equal(resent, described) {
		t.Errorf("what get returned, sent back, changed the group:\n%v\n%v", resent, described)
	}
	_, err = groups.Patch(ctx, &computepb.PatchInterconnectAttachmentGroupRequest{
		Project: project, InterconnectAttachmentGroup: "gapic-iag",
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{Etag: g.Etag, Description: proto.String("x")},
	})
	gapicError(t, err, 412)

	status, err := groups.GetOperationalStatus(ctx, &computepb.GetOperationalStatusInterconnectAttachmentGroupRequest{Project: project, InterconnectAttachmentGroup: "gapic-iag"})
	if err != nil || status.GetEtag() == "" || status.GetResult().GetGroupStatus() != "FULLY_UP" || len(status.GetResult().GetAttachmentStatuses()) != 2 ||
		status.GetResult().GetOperational().GetAvailabilitySla().GetEffectiveSla() != "PRODUCTION_NON_CRITICAL" {
		t.Errorf("getOperationalStatus: %v %v", status, err)
	}
	for _, s := range status.GetResult().GetAttachmentStatuses() {
		if s.GetIsActive() != "ACTIVE" || s.GetStatus() != "CONNECTION_UP" || !s.GetAdminEnabled() {
			t.Errorf("attachment status %v", s)
		}
	}

	gapicIAM(t,
		func(v *int32) (*computepb.Policy, error) {
			return groups.GetIamPolicy(ctx, &computepb.GetIamPolicyInterconnectAttachmentGroupRequest{Project: project, Resource: "gapic-iag", OptionsRequestedPolicyVersion: v})
		},
		func(r *computepb.GlobalSetPolicyRequest) (*computepb.Policy, error) {
			return groups.SetIamPolicy(ctx, &computepb.SetIamPolicyInterconnectAttachmentGroupRequest{Project: project, Resource: "gapic-iag", GlobalSetPolicyRequestResource: r})
		},
		func(p []string) (*computepb.TestPermissionsResponse, error) {
			return groups.TestIamPermissions(ctx, &computepb.TestIamPermissionsInterconnectAttachmentGroupRequest{
				Project: project, Resource: "gapic-iag", TestPermissionsRequestResource: &computepb.TestPermissionsRequest{Permissions: p},
			})
		},
		"compute.interconnectAttachmentGroups.get")

	// The client cannot send an entry as null, a merge patch's removal: with updateMask the
	// map sent replaces the group's.
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectAttachmentGroupRequest{
		Project: project, InterconnectAttachmentGroup: "gapic-iag", UpdateMask: proto.String("attachments"),
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{
			Attachments: map[string]*computepb.InterconnectAttachmentGroupAttachment{"z1": {Attachment: proto.String(a1)}},
		},
	})
	gapicWait(t, ctx, op, err, "patch")
	if one := get("gapic-iag"); len(one.GetAttachments()) != 1 || one.GetAttachments()["z1"] == nil || one.GetConfigured().GetAvailabilitySla().GetEffectiveSla() != "NO_SLA" {
		t.Errorf("after replacing the attachments: %v", one)
	}

	// Lists, delete.
	n := c.sent.count()
	if all := gapicNames(gapicCollect(t, groups.List(ctx, &computepb.ListInterconnectAttachmentGroupsRequest{Project: project, MaxResults: proto.Uint32(1)}).All())); !slices.Equal(all, []string{"gapic-iag", "gapic-iag-b"}) ||
		gapicPages(t, c.sent, n, "/global/interconnectAttachmentGroups") != 2 {
		t.Errorf("list: %v", all)
	}
	if got := gapicNames(gapicCollect(t, groups.List(ctx, &computepb.ListInterconnectAttachmentGroupsRequest{Project: project, Filter: proto.String("intent.availabilitySla = NO_SLA")}).All())); !slices.Equal(got, []string{"gapic-iag-b"}) {
		t.Errorf("filtered: %v", got)
	}
	op, err = groups.Delete(ctx, &computepb.DeleteInterconnectAttachmentGroupRequest{Project: project, InterconnectAttachmentGroup: "gapic-iag-b"})
	gapicWait(t, ctx, op, err, "delete")
	_, err = groups.Get(ctx, &computepb.GetInterconnectAttachmentGroupRequest{Project: project, InterconnectAttachmentGroup: "gapic-iag-b"})
	gapicError(t, err, 404)

	// A missing attachment: the insert is accepted, and Wait fails with the operation's
	// httpErrorStatusCode.
	op, err = groups.Insert(ctx, &computepb.InsertInterconnectAttachmentGroupRequest{
		Project: project,
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{
			Name: proto.String("gapic-iag-d"), Intent: &computepb.InterconnectAttachmentGroupIntent{AvailabilitySla: proto.String("NO_SLA")},
			Attachments: map[string]*computepb.InterconnectAttachmentGroupAttachment{
				"x": {Attachment: proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + gapicRegion + "/interconnectAttachments/gapic-none")},
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ge := gapicError(t, op.Wait(ctx), 404); !strings.Contains(ge.Message, "gapic-none") {
		t.Errorf("Wait on a failed insert: %v", ge)
	}
	if p := op.Proto(); !op.Done() || p.GetError().GetErrors()[0].GetCode() != "RESOURCE_NOT_FOUND" || p.GetHttpErrorMessage() != "NOT FOUND" {
		t.Errorf("the failed operation: %v", p)
	}
	_, err = groups.Get(ctx, &computepb.GetInterconnectAttachmentGroupRequest{Project: project, InterconnectAttachmentGroup: "gapic-iag-d"})
	gapicError(t, err, 404)
	_, err = groups.Insert(ctx, &computepb.InsertInterconnectAttachmentGroupRequest{
		Project:                             project,
		InterconnectAttachmentGroupResource: &computepb.InterconnectAttachmentGroup{Name: proto.String("gapic-iag-c"), Intent: &computepb.InterconnectAttachmentGroupIntent{AvailabilitySla: proto.String("BEST")}},
	})
	gapicError(t, err, 400)
}

func gapicGroups(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-groups"
	gapicNewInterconnect(t, ctx, c, project, "gapic-icg-1", "lax-zone1-8")
	groups := c.groups

	op, err := groups.Insert(ctx, &computepb.InsertInterconnectGroupRequest{
		Project: project,
		InterconnectGroupResource: &computepb.InterconnectGroup{
			Name:          proto.String("gapic-icg"),
			Intent:        &computepb.InterconnectGroupIntent{TopologyCapability: proto.String("PRODUCTION_NON_CRITICAL")},
			Interconnects: map[string]*computepb.InterconnectGroupInterconnect{"first": {Interconnect: gapicInterconnectURL(project, "gapic-icg-1")}},
		},
	})
	insOp := gapicWait(t, ctx, op, err, "insert")
	op, err = groups.Insert(ctx, &computepb.InsertInterconnectGroupRequest{
		Project:                   project,
		InterconnectGroupResource: &computepb.InterconnectGroup{Name: proto.String("gapic-icg-b"), Intent: &computepb.InterconnectGroupIntent{TopologyCapability: proto.String("NO_SLA")}},
	})
	gapicWait(t, ctx, op, err, "insert")
	get := func(name string) *computepb.InterconnectGroup {
		t.Helper()
		g, err := groups.Get(ctx, &computepb.GetInterconnectGroupRequest{Project: project, InterconnectGroup: name})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	g := get("gapic-icg")
	if g.GetKind() != "compute#InterconnectGroup" || g.GetId() != insOp.GetTargetId() || g.GetConfigured().GetTopologyCapability().GetSupportedSla() != "NO_SLA" ||
		g.GetConfigured().GetTopologyCapability().GetIntendedCapabilityBlockers()[0].GetBlockerType() != "NO_INTERCONNECTS_IN_METRO_AND_ZONE" ||
		g.GetPhysicalStructure().GetMetros()[0].GetMetro() != "lax" {
		t.Errorf("get: %v", g)
	}

	// createMembers: interconnects made and added in one step.
	op, err = groups.CreateMembers(ctx, &computepb.CreateMembersInterconnectGroupRequest{
		Project: project, InterconnectGroup: "gapic-icg",
		InterconnectGroupsCreateMembersRequestResource: &computepb.InterconnectGroupsCreateMembersRequest{Request: &computepb.InterconnectGroupsCreateMembers{
			TemplateInterconnect: &computepb.InterconnectGroupsCreateMembersInterconnectInput{
				Facility: proto.String("lax-8"), LinkType: proto.String("LINK_TYPE_ETHERNET_10G_LR"), RequestedLinkCount: proto.Int32(1), InterconnectType: proto.String("DEDICATED"),
			},
			Interconnects: []*computepb.InterconnectGroupsCreateMembersInterconnectInput{{Name: proto.String("gapic-icg-2"), Facility: proto.String("lax-zone2-19")}},
		}},
	})
	gapicWait(t, ctx, op, err, "createMembers")
	member, err := c.interconnects.Get(ctx, &computepb.GetInterconnectRequest{Project: project, Interconnect: "gapic-icg-2"})
	if err != nil || !strings.HasSuffix(member.GetLocation(), "/lax-zone2-19") || len(member.GetInterconnectGroups()) != 1 || !strings.HasSuffix(member.GetInterconnectGroups()[0], "/gapic-icg") {
		t.Errorf("the member made: %v %v", member, err)
	}
	full := get("gapic-icg")
	if len(full.GetInterconnects()) != 2 || full.GetInterconnects()["gapic-icg-2"] == nil || full.GetConfigured().GetTopologyCapability().GetSupportedSla() != "PRODUCTION_NON_CRITICAL" {
		t.Errorf("after createMembers: %v", full)
	}

	// patch (merge and updateMask), a stale etag.
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectGroupRequest{
		Project: project, InterconnectGroup: "gapic-icg", InterconnectGroupResource: &computepb.InterconnectGroup{Etag: full.Etag, Description: proto.String("lax pair")},
	})
	gapicWait(t, ctx, op, err, "patch")
	patched := get("gapic-icg")
	if patched.GetDescription() != "lax pair" || len(patched.GetInterconnects()) != 2 {
		t.Errorf("after patch: %v", patched)
	}
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectGroupRequest{Project: project, InterconnectGroup: "gapic-icg", InterconnectGroupResource: patched})
	gapicWait(t, ctx, op, err, "patch")
	resent := get("gapic-icg")
	resent.Etag, patched.Etag = nil, nil
	if !proto.Equal(resent, patched) {
		t.Errorf("what get returned, sent back, changed the group:\n%v\n%v", resent, patched)
	}
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectGroupRequest{
		Project: project, InterconnectGroup: "gapic-icg", UpdateMask: proto.String("intent"),
		InterconnectGroupResource: &computepb.InterconnectGroup{Intent: &computepb.InterconnectGroupIntent{TopologyCapability: proto.String("NO_SLA")}},
	})
	gapicWait(t, ctx, op, err, "patch")
	if got := get("gapic-icg"); got.GetIntent().GetTopologyCapability() != "NO_SLA" || got.GetDescription() != "lax pair" {
		t.Errorf("after the masked patch: %v", got)
	}
	_, err = groups.Patch(ctx, &computepb.PatchInterconnectGroupRequest{Project: project, InterconnectGroup: "gapic-icg", InterconnectGroupResource: &computepb.InterconnectGroup{Etag: full.Etag}})
	gapicError(t, err, 412)

	status, err := groups.GetOperationalStatus(ctx, &computepb.GetOperationalStatusInterconnectGroupRequest{Project: project, InterconnectGroup: "gapic-icg"})
	if err != nil || status.GetResult().GetGroupStatus() != "FULLY_UP" || len(status.GetResult().GetInterconnectStatuses()) != 2 ||
		len(status.GetResult().GetInterconnectStatuses()[0].GetDiagnostics().GetLinks()) == 0 {
		t.Errorf("getOperationalStatus: %v %v", status, err)
	}
	for _, s := range status.GetResult().GetInterconnectStatuses() {
		if s.GetIsActive() != "ACTIVE" || !s.GetAdminEnabled() {
			t.Errorf("interconnect status %v", s)
		}
	}

	gapicIAM(t,
		func(v *int32) (*computepb.Policy, error) {
			return groups.GetIamPolicy(ctx, &computepb.GetIamPolicyInterconnectGroupRequest{Project: project, Resource: "gapic-icg", OptionsRequestedPolicyVersion: v})
		},
		func(r *computepb.GlobalSetPolicyRequest) (*computepb.Policy, error) {
			return groups.SetIamPolicy(ctx, &computepb.SetIamPolicyInterconnectGroupRequest{Project: project, Resource: "gapic-icg", GlobalSetPolicyRequestResource: r})
		},
		func(p []string) (*computepb.TestPermissionsResponse, error) {
			return groups.TestIamPermissions(ctx, &computepb.TestIamPermissionsInterconnectGroupRequest{
				Project: project, Resource: "gapic-icg", TestPermissionsRequestResource: &computepb.TestPermissionsRequest{Permissions: p},
			})
		},
		"compute.interconnectGroups.update")

	// With updateMask the interconnects sent replace the group's.
	op, err = groups.Patch(ctx, &computepb.PatchInterconnectGroupRequest{
		Project: project, InterconnectGroup: "gapic-icg", UpdateMask: proto.String("interconnects"),
		InterconnectGroupResource: &computepb.InterconnectGroup{
			Interconnects: map[string]*computepb.InterconnectGroupInterconnect{"first": {Interconnect: gapicInterconnectURL(project, "gapic-icg-1")}},
		},
	})
	gapicWait(t, ctx, op, err, "patch")
	if one := get("gapic-icg"); len(one.GetInterconnects()) != 1 || one.GetInterconnects()["first"] == nil {
		t.Errorf("after replacing the interconnects: %v", one)
	}

	// Lists, delete.
	n := c.sent.count()
	if all := gapicNames(gapicCollect(t, groups.List(ctx, &computepb.ListInterconnectGroupsRequest{Project: project, MaxResults: proto.Uint32(1)}).All())); !slices.Equal(all, []string{"gapic-icg", "gapic-icg-b"}) ||
		gapicPages(t, c.sent, n, "/global/interconnectGroups") != 2 {
		t.Errorf("list: %v", all)
	}
	op, err = groups.Delete(ctx, &computepb.DeleteInterconnectGroupRequest{Project: project, InterconnectGroup: "gapic-icg-b"})
	gapicWait(t, ctx, op, err, "delete")
	_, err = groups.Get(ctx, &computepb.GetInterconnectGroupRequest{Project: project, InterconnectGroup: "gapic-icg-b"})
	gapicError(t, err, 404)
}

func gapicGlobalOperations(t *testing.T, ctx context.Context, c *gapicClients) {
	const project = "gapic-operations"
	var ops []*computepb.Operation
	for _, n := range []string{"gapic-op-a", "gapic-op-b", "gapic-op-c"} {
		op, err := c.rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{Project: project, ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String(n), PortRange: proto.String("9000")}})
		ops = append(ops, gapicWait(t, ctx, op, err, "insert"))
	}
	gapicNewInterconnect(t, ctx, c, project, "gapic-op-ic", "iad-zone1-1")
	op, err := c.attachments.Insert(ctx, &computepb.InsertInterconnectAttachmentRequest{
		Project: project, Region: gapicRegion,
		InterconnectAttachmentResource: &computepb.InterconnectAttachment{
			Name: proto.String("gapic-op-att"), Type: proto.String("DEDICATED"), Interconnect: gapicInterconnectURL(project, "gapic-op-ic"),
			Router: proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + gapicRegion + "/routers/r"), VlanTag8021Q: proto.Int32(700),
		},
	})
	regional := gapicWait(t, ctx, op, err, "insert")

	got, err := c.globalOps.Get(ctx, &computepb.GetGlobalOperationRequest{Project: project, Operation: ops[0].GetName()})
	if err != nil || got.GetId() != ops[0].GetId() || got.GetStatus() != computepb.Operation_DONE || !strings.HasSuffix(got.GetTargetLink(), "/global/forwardingRules/gapic-op-a") || got.Region != nil {
		t.Errorf("get: %v %v", got, err)
	}
	waited, err := c.globalOps.Wait(ctx, &computepb.WaitGlobalOperationRequest{Project: project, Operation: ops[1].GetName()})
	if sent := c.sent.last(); sent.method != "POST" || sent.path != "/compute/v1/projects/"+project+"/global/operations/"+ops[1].GetName()+"/wait" {
		t.Errorf("wait sent %s %s", sent.method, sent.path)
	}
	if err != nil || waited.GetStatus() != computepb.Operation_DONE || waited.GetName() != ops[1].GetName() {
		t.Errorf("wait: %v %v", waited, err)
	}

	// list: pages of two.
	n := c.sent.count()
	listed := gapicCollect(t, c.globalOps.List(ctx, &computepb.ListGlobalOperationsRequest{Project: project, MaxResults: proto.Uint32(2)}).All())
	if len(listed) != 4 || gapicPages(t, c.sent, n, "/global/operations") != 2 {
		t.Errorf("list: %v in %d pages", gapicNames(listed), gapicPages(t, c.sent, n, "/global/operations"))
	}
	rules := gapicCollect(t, c.globalOps.List(ctx, &computepb.ListGlobalOperationsRequest{Project: project, Filter: proto.String(`targetLink eq ".*/gapic-op-[ab]"`)}).All())
	if len(rules) != 2 {
		t.Errorf("filtered: %v", rules)
	}

	// aggregatedList: global and regional operations by scope, an operation a page.
	n = c.sent.count()
	pairs := gapicCollect(t, c.globalOps.AggregatedList(ctx, &computepb.AggregatedListGlobalOperationsRequest{Project: project, MaxResults: proto.Uint32(1)}).All())
	if pages := gapicPages(t, c.sent, n, "/aggregated/operations"); pages != 5 {
		t.Errorf("aggregated list of 5 with maxResults 1 read %d pages", pages)
	}
	byScope := map[string][]string{}
	for _, p := range pairs {
		byScope[p.Key] = append(byScope[p.Key], gapicNames(p.Value.GetOperations())...)
	}
	global := byScope["global"]
	if len(global) != 4 || slices.ContainsFunc(ops, func(o *computepb.Operation) bool { return !slices.Contains(global, o.GetName()) }) ||
		!slices.Equal(byScope["regions/"+gapicRegion], []string{regional.GetName()}) {
		t.Errorf("aggregated: %v, want the 4 global operations and the regional one", byScope)
	}

	// delete: the operation is gone.
	_, err = c.globalOps.Delete(ctx, &computepb.DeleteGlobalOperationRequest{Project: project, Operation: ops[2].GetName()})
	gapicEmptyAnswer(t, err)
	_, err = c.globalOps.Get(ctx, &computepb.GetGlobalOperationRequest{Project: project, Operation: ops[2].GetName()})
	gapicError(t, err, 404)
	_, err = c.globalOps.Wait(ctx, &computepb.WaitGlobalOperationRequest{Project: project, Operation: ops[2].GetName()})
	gapicError(t, err, 404)
}

// TestGAPICOperationsRun: with operations that take their time (300ms, the binary's
// default), Operation.Wait polls the operation until it is DONE, and the resource is there
// then.
func TestGAPICOperationsRun(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithOperationMode("300ms"))
	ctx := context.Background()
	c := newGAPICClients(t, ctx, srv.URL)
	const project = "gapic-running"

	op, err := c.rules.Insert(ctx, &computepb.InsertGlobalForwardingRuleRequest{Project: project, ForwardingRuleResource: &computepb.ForwardingRule{Name: proto.String("gapic-run"), PortRange: proto.String("80")}})
	if err != nil {
		t.Fatal(err)
	}
	if op.Done() {
		t.Fatalf("the insert's operation is already done: %v", op.Proto())
	}
	_, err = c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-run"})
	gapicError(t, err, 404)
	n := c.sent.count()
	done := gapicWait(t, ctx, op, nil, "insert")
	polls := c.sent.since(n)
	if len(polls) < 2 {
		t.Errorf("Wait read the operation %d times; it was not done at first", len(polls))
	}
	for _, p := range polls {
		if p.method != "GET" || p.path != "/compute/v1/projects/"+project+"/global/operations/"+done.GetName() {
			t.Errorf("Wait sent %s %s", p.method, p.path)
		}
	}
	if rule, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-run"}); err != nil || rule.GetId() != done.GetTargetId() {
		t.Errorf("after Wait: %v %v", rule, err)
	}

	// A regional operation, polled through regionOperations.get.
	gapicNewInterconnect(t, ctx, c, project, "gapic-run-ic", "iad-zone1-1")
	op, err = c.attachments.Insert(ctx, &computepb.InsertInterconnectAttachmentRequest{
		Project: project, Region: gapicRegion,
		InterconnectAttachmentResource: &computepb.InterconnectAttachment{
			Name: proto.String("gapic-run-att"), Type: proto.String("DEDICATED"), Interconnect: gapicInterconnectURL(project, "gapic-run-ic"),
			Router: proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + gapicRegion + "/routers/r"), VlanTag8021Q: proto.Int32(800),
		},
	})
	if err == nil && op.Done() {
		t.Errorf("the attachment's operation is already done")
	}
	n = c.sent.count()
	done = gapicWait(t, ctx, op, err, "insert")
	for _, p := range c.sent.since(n) {
		if p.path != "/compute/v1/projects/"+project+"/regions/"+gapicRegion+"/operations/"+done.GetName() {
			t.Errorf("Wait on a regional operation sent %s %s", p.method, p.path)
		}
	}
	if a, err := c.attachments.Get(ctx, &computepb.GetInterconnectAttachmentRequest{Project: project, Region: gapicRegion, InterconnectAttachment: "gapic-run-att"}); err != nil || a.GetId() != done.GetTargetId() {
		t.Errorf("after Wait: %v %v", a, err)
	}

	// A delete runs too: the rule is readable until its operation is DONE.
	op, err = c.rules.Delete(ctx, &computepb.DeleteGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-run"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-run"}); err != nil && !op.Done() {
		t.Errorf("the rule is gone before its delete is done: %v", err)
	}
	gapicWait(t, ctx, op, nil, "delete")
	_, err = c.rules.Get(ctx, &computepb.GetGlobalForwardingRuleRequest{Project: project, ForwardingRule: "gapic-run"})
	gapicError(t, err, 404)
}
