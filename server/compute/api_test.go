package compute_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

const apiProject = "my-project-123"

var apiCtx = context.Background()

type apiClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *apiClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *apiClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// apiServer starts a server whose operations follow mode and whose clock the test moves.
func apiServer(t *testing.T, mode operations.Mode, configure ...func(*server.Config)) (*understudytest.Server, *apiClock) {
	t.Helper()
	clk := &apiClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Now = clk.Now
		c.Compute.Operations.Mode = mode
		c.Compute.Operations.WaitTimeout = 100 * time.Millisecond
		for _, f := range configure {
			f(c)
		}
	}))
	return srv, clk
}

// apiClient is a generated client with a bearer JWT naming email, checking every response
// against the spec.
func apiClient(t *testing.T, srv *understudytest.Server, email string) *gen.ClientWithResponses {
	t.Helper()
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]string{"email": email})
	token := "e30." + base64.RawURLEncoding.EncodeToString(payload) + ".sig"
	c, err := gen.NewClientWithResponses(srv.URL,
		gen.WithHTTPClient(&http.Client{Transport: spectest.Transport(t, spec, nil)}),
		gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			if email != "" {
				r.Header.Set("Authorization", "Bearer "+token)
			}
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func apiInsert(t *testing.T, c *gen.ClientWithResponses, name string, requestID *string, labels map[string]string) *gen.GlobalForwardingRulesInsertResponse {
	t.Helper()
	body := gen.ForwardingRule{Name: name, PortRange: ptr("443-443")}
	if labels != nil {
		l := gen.Labels(labels)
		body.Labels = &l
	}
	resp, err := c.GlobalForwardingRulesInsertWithResponse(apiCtx, apiProject, &gen.GlobalForwardingRulesInsertParams{RequestId: requestID}, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// apiInsertReadable inserts rules by name, 10 ms apart on clk, and moves clk past their
// operations' delay so that all are readable.
func apiInsertReadable(t *testing.T, c *gen.ClientWithResponses, clk *apiClock, delay time.Duration, names ...string) {
	t.Helper()
	for _, n := range names {
		apiInsert(t, c, n, nil, nil)
		clk.Advance(10 * time.Millisecond)
	}
	clk.Advance(delay + time.Second)
}

func apiGetRule(t *testing.T, c *gen.ClientWithResponses, nameOrID string) *gen.GlobalForwardingRulesGetResponse {
	t.Helper()
	resp, err := c.GlobalForwardingRulesGetWithResponse(apiCtx, apiProject, nameOrID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func apiGetOp(t *testing.T, c *gen.ClientWithResponses, name string) gen.Operation {
	t.Helper()
	resp, err := c.GlobalOperationsGetWithResponse(apiCtx, apiProject, name, nil)
	if err != nil || resp.StatusCode() != 200 {
		t.Fatalf("get operation %s: %v %s", name, err, resp.Body)
	}
	return *resp.JSON200
}

type googleError struct {
	Code    int
	Message string
	Errors  []struct{ Message, Domain, Reason, Location, LocationType string }
}

func wantGoogleError(t *testing.T, status int, body []byte, wantStatus int, wantReason string) googleError {
	t.Helper()
	var env struct{ Error googleError }
	if err := json.Unmarshal(body, &env); err != nil || env.Error.Code != status || len(env.Error.Errors) == 0 {
		t.Fatalf("not a Google error envelope for %d: %s", status, body)
	}
	if status != wantStatus || env.Error.Errors[0].Reason != wantReason || env.Error.Errors[0].Domain != "global" {
		t.Fatalf("got %d %s (%s), want %d %s", status, env.Error.Errors[0].Reason, env.Error.Message, wantStatus, wantReason)
	}
	return env.Error
}

func ptr[T any](v T) *T { return &v }

func TestInsertLifecycleInManualMode(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{Manual: true})
	c := apiClient(t, srv, "dev@example.com")
	rid := uuid.NewString()
	resp := apiInsert(t, c, "fr-web", &rid, nil)
	if resp.StatusCode() != 200 {
		t.Fatalf("insert: %d %s", resp.StatusCode(), resp.Body)
	}
	op := *resp.JSON200
	if *op.Kind != "compute#operation" || *op.Status != "PENDING" || *op.Progress != 0 || *op.OperationType != "insert" ||
		*op.User != "dev@example.com" || *op.ClientOperationId != rid || op.EndTime != nil ||
		!strings.HasSuffix(deref(op.TargetLink), "/compute/v1/projects/"+apiProject+"/global/forwardingRules/fr-web") ||
		!strings.HasSuffix(deref(op.SelfLink), "/global/operations/"+*op.Name) || op.TargetId == nil {
		t.Fatalf("accepted operation: %s", resp.Body)
	}

	// Not readable while the insert runs; the name is taken all the same.
	wantGoogleError(t, apiGetRule(t, c, "fr-web").StatusCode(), apiGetRule(t, c, "fr-web").Body, 404, "notFound")
	dup := apiInsert(t, c, "fr-web", nil, nil)
	got := wantGoogleError(t, dup.StatusCode(), dup.Body, 409, "alreadyExists")
	if got.Message != "The resource 'projects/"+apiProject+"/global/forwardingRules/fr-web' already exists" {
		t.Errorf("message = %q", got.Message)
	}

	// A retry with the requestId is the original operation, whatever the body.
	retry := apiInsert(t, c, "fr-other", &rid, nil)
	if retry.StatusCode() != 200 || *retry.JSON200.Name != *op.Name || *retry.JSON200.Id != *op.Id {
		t.Fatalf("retry: %s", retry.Body)
	}
	wantGoogleError(t, apiGetRule(t, c, "fr-other").StatusCode(), apiGetRule(t, c, "fr-other").Body, 404, "notFound")

	// Each read moves one step; states and progress never go back.
	var states []string
	for i := 0; i < 4; i++ {
		o := apiGetOp(t, c, *op.Name)
		states = append(states, string(*o.Status))
		if *o.Status == "DONE" && (*o.Progress != 100 || o.EndTime == nil || o.StartTime == nil) {
			t.Errorf("done: progress %d, end %v", *o.Progress, o.EndTime)
		}
	}
	if strings.Join(states, ",") != "RUNNING,DONE,DONE,DONE" {
		t.Fatalf("states %v", states)
	}
	rule := apiGetRule(t, c, "fr-web")
	if rule.StatusCode() != 200 || base64.StdEncoding.EncodeToString(rule.JSON200.LabelFingerprint) != "42WmSpB8rSM=" ||
		*rule.JSON200.Kind != "compute#forwardingRule" || *rule.JSON200.IPProtocol != "TCP" || *rule.JSON200.PortRange != "443-443" ||
		*rule.JSON200.Id != *op.TargetId {
		t.Fatalf("rule: %d %s", rule.StatusCode(), rule.Body)
	}
	if byID := apiGetRule(t, c, *rule.JSON200.Id); byID.StatusCode() != 200 || byID.JSON200.Name != "fr-web" {
		t.Errorf("get by id: %s", byID.Body)
	}
}

func TestRequestIDRules(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "dev@example.com")
	nilID := "00000000-0000-0000-0000-000000000000"
	resp := apiInsert(t, c, "fr-a", &nilID, nil)
	got := wantGoogleError(t, resp.StatusCode(), resp.Body, 400, "invalid")
	if !strings.Contains(got.Message, "requestId") {
		t.Errorf("message = %q", got.Message)
	}

	// A UUID spelled in upper case is the same UUID: echoed in lower case, and a retry in
	// lower case is the same request.
	upper := "8F14E45F-CEEA-467F-A7C4-00000000CA5E"
	first := apiInsert(t, c, "fr-case", &upper, nil)
	if first.StatusCode() != 200 || *first.JSON200.ClientOperationId != strings.ToLower(upper) {
		t.Fatalf("insert with an upper-case requestId: %d %s", first.StatusCode(), first.Body)
	}
	lower := strings.ToLower(upper)
	if again := apiInsert(t, c, "fr-case-2", &lower, nil); again.StatusCode() != 200 || *again.JSON200.Name != *first.JSON200.Name {
		t.Fatalf("retry in lower case: %d %s, want operation %s", again.StatusCode(), again.Body, *first.JSON200.Name)
	}
	bad, _ := c.GlobalForwardingRulesInsertWithBodyWithResponse(apiCtx, apiProject, nil, "application/json", strings.NewReader(`{"name":"fr-a"}`), func(_ context.Context, r *http.Request) error {
		r.URL.RawQuery = "requestId=not-a-uuid"
		return nil
	})
	wantGoogleError(t, bad.StatusCode(), bad.Body, 400, "invalid")

	// Racing retries of one requestId: one operation, one rule.
	rid := uuid.NewString()
	names := make([]string, 16)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range names {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			r := apiInsert(t, c, "fr-race", &rid, nil)
			if r.StatusCode() == 200 {
				names[i] = *r.JSON200.Name
			}
		}(i)
	}
	close(start)
	wg.Wait()
	for _, n := range names {
		if n == "" || n != names[0] {
			t.Fatalf("racing retries got operations %v, want one", names)
		}
	}
}

func TestSetLabels(t *testing.T) {
	// Operations take a second here: setLabels must come back DONE all the same.
	srv, clk := apiServer(t, operations.Mode{Delay: time.Second})
	c := apiClient(t, srv, "dev@example.com")
	apiInsert(t, c, "fr-web", nil, map[string]string{"env": "prod"})
	clk.Advance(2 * time.Second)
	rule := apiGetRule(t, c, "fr-web").JSON200
	fp := rule.LabelFingerprint
	if base64.StdEncoding.EncodeToString(fp) == "42WmSpB8rSM=" {
		t.Error("a rule inserted with labels has the empty set's fingerprint")
	}
	set := func(labels map[string]string, fingerprint []byte) *gen.GlobalForwardingRulesSetLabelsResponse {
		l := gen.Labels(labels)
		resp, err := c.GlobalForwardingRulesSetLabelsWithResponse(apiCtx, apiProject, "fr-web", nil, gen.GlobalSetLabelsRequest{Labels: &l, LabelFingerprint: fingerprint})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := set(map[string]string{"env": "dev", "team": "web"}, fp)
	if resp.StatusCode() != 200 || *resp.JSON200.Status != "DONE" || *resp.JSON200.OperationType != "setLabels" || *resp.JSON200.Progress != 100 {
		t.Fatalf("setLabels: %d %s", resp.StatusCode(), resp.Body)
	}
	after := apiGetRule(t, c, "fr-web").JSON200
	if (*after.Labels)["team"] != "web" || len(*after.Labels) != 2 || string(after.LabelFingerprint) == string(fp) {
		t.Fatalf("after setLabels: %+v", after)
	}

	t.Run("stale fingerprint", func(t *testing.T) {
		r := set(map[string]string{"env": "x"}, fp)
		e := wantGoogleError(t, r.StatusCode(), r.Body, 412, "conditionNotMet")
		if e.Message != "Labels fingerprint either invalid or resource labels have changed" || e.Errors[0].Location != "If-Match" || e.Errors[0].LocationType != "header" {
			t.Errorf("error = %+v", e)
		}
	})
	t.Run("missing fingerprint", func(t *testing.T) {
		r := set(map[string]string{"env": "x"}, nil)
		wantGoogleError(t, r.StatusCode(), r.Body, 412, "conditionNotMet")
	})
	t.Run("invalid label", func(t *testing.T) {
		r := set(map[string]string{"Env": "x"}, after.LabelFingerprint)
		e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")
		if !strings.Contains(e.Message, "'Env'") {
			t.Errorf("message %q does not name the label", e.Message)
		}
	})
	t.Run("the same labels again still change the fingerprint", func(t *testing.T) {
		cur := apiGetRule(t, c, "fr-web").JSON200
		if r := set(*cur.Labels, cur.LabelFingerprint); r.StatusCode() != 200 {
			t.Fatal(string(r.Body))
		}
		if next := apiGetRule(t, c, "fr-web").JSON200; string(next.LabelFingerprint) == string(cur.LabelFingerprint) {
			t.Error("fingerprint unchanged")
		}
	})
	t.Run("racing calls with one fingerprint: exactly one wins", func(t *testing.T) {
		cur := apiGetRule(t, c, "fr-web").JSON200.LabelFingerprint
		statuses := make([]int, 32)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range statuses {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				statuses[i] = set(map[string]string{"winner": strings.Repeat("x", i%5+1)}, cur).StatusCode()
			}(i)
		}
		close(start)
		wg.Wait()
		won := 0
		for _, s := range statuses {
			switch s {
			case 200:
				won++
			case 412:
			default:
				t.Errorf("status %d", s)
			}
		}
		if won != 1 {
			t.Fatalf("%d winners, want exactly 1 (%v)", won, statuses)
		}
	})
	t.Run("unknown rule", func(t *testing.T) {
		l := gen.Labels{}
		r, _ := c.GlobalForwardingRulesSetLabelsWithResponse(apiCtx, apiProject, "nope", nil, gen.GlobalSetLabelsRequest{Labels: &l, LabelFingerprint: fp})
		wantGoogleError(t, r.StatusCode(), r.Body, 404, "notFound")
	})
}

func TestDeleteAndLists(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{Delay: time.Second})
	c := apiClient(t, srv, "dev@example.com")
	apiInsertReadable(t, c, clk, time.Second, "fr-c", "fr-a", "fr-b")

	list := func(params *gen.GlobalForwardingRulesListParams) []string {
		var names []string
		for {
			resp, err := c.GlobalForwardingRulesListWithResponse(apiCtx, apiProject, params)
			if err != nil || resp.StatusCode() != 200 {
				t.Fatalf("list: %v %s", err, resp.Body)
			}
			for _, r := range resp.JSON200.Items {
				names = append(names, r.Name)
			}
			if resp.JSON200.NextPageToken == nil {
				return names
			}
			params.PageToken = resp.JSON200.NextPageToken
		}
	}
	one := uint32(1)
	if got := strings.Join(list(&gen.GlobalForwardingRulesListParams{MaxResults: &one}), ","); got != "fr-a,fr-b,fr-c" {
		t.Errorf("by name, pages of 1: %s", got)
	}
	if got := strings.Join(list(&gen.GlobalForwardingRulesListParams{OrderBy: ptr("creationTimestamp desc")}), ","); got != "fr-b,fr-a,fr-c" {
		t.Errorf("newest first: %s", got)
	}
	if got := strings.Join(list(&gen.GlobalForwardingRulesListParams{Filter: ptr(`name = "fr-b"`)}), ","); got != "fr-b" {
		t.Errorf("filtered: %s", got)
	}
	// A made-up token, and a token of one order passed with the other, are refused.
	first, _ := c.GlobalForwardingRulesListWithResponse(apiCtx, apiProject, &gen.GlobalForwardingRulesListParams{MaxResults: &one})
	for _, bad := range []gen.GlobalForwardingRulesListParams{
		{PageToken: ptr("garbage")},
		{PageToken: first.JSON200.NextPageToken, OrderBy: ptr("creationTimestamp desc")},
	} {
		r, _ := c.GlobalForwardingRulesListWithResponse(apiCtx, apiProject, &bad)
		wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")
	}

	del, _ := c.GlobalForwardingRulesDeleteWithResponse(apiCtx, apiProject, "fr-a", nil)
	if del.StatusCode() != 200 || *del.JSON200.OperationType != "delete" || *del.JSON200.Status == "DONE" {
		t.Fatalf("delete: %s", del.Body)
	}
	if apiGetRule(t, c, "fr-a").StatusCode() != 200 {
		t.Error("a rule disappeared before its delete was DONE")
	}
	clk.Advance(2 * time.Second)
	wantGoogleError(t, apiGetRule(t, c, "fr-a").StatusCode(), apiGetRule(t, c, "fr-a").Body, 404, "notFound")
	again, _ := c.GlobalForwardingRulesDeleteWithResponse(apiCtx, apiProject, "fr-a", nil)
	wantGoogleError(t, again.StatusCode(), again.Body, 404, "notFound")
	if got := strings.Join(list(&gen.GlobalForwardingRulesListParams{}), ","); got != "fr-b,fr-c" {
		t.Errorf("after delete: %s", got)
	}
	badFilter, _ := c.GlobalForwardingRulesListWithResponse(apiCtx, apiProject, &gen.GlobalForwardingRulesListParams{Filter: ptr("colour = red")})
	wantGoogleError(t, badFilter.StatusCode(), badFilter.Body, 400, "invalid")
}

func TestOperationsEndpoints(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{Delay: 400 * time.Millisecond}, func(c *server.Config) { c.Compute.Operations.Retention = time.Hour })
	c := apiClient(t, srv, "")
	anon, _ := c.GlobalOperationsListWithResponse(apiCtx, apiProject, nil)
	e := wantGoogleError(t, anon.StatusCode(), anon.Body, 401, "required")
	if e.Errors[0].Location != "Authorization" || e.Errors[0].LocationType != "header" {
		t.Errorf("401 = %+v", e)
	}
	c = apiClient(t, srv, "ops@example.com")
	first := apiInsert(t, c, "fr-1", nil, nil).JSON200
	apiInsert(t, c, "fr-2", nil, nil)

	t.Run("progress moves forward only", func(t *testing.T) {
		last := -1
		seen := map[gen.OperationStatus]bool{}
		for i := 0; i < 12; i++ {
			o := apiGetOp(t, c, *first.Name)
			if int(*o.Progress) < last || (seen["DONE"] && *o.Status != "DONE") {
				t.Fatalf("went back: progress %d after %d, status %s", *o.Progress, last, *o.Status)
			}
			last = int(*o.Progress)
			seen[*o.Status] = true
			clk.Advance(50 * time.Millisecond)
		}
		if !seen["PENDING"] || !seen["RUNNING"] || !seen["DONE"] {
			t.Errorf("states seen: %v", seen)
		}
	})
	t.Run("get by id, list, delete", func(t *testing.T) {
		if o := apiGetOp(t, c, *first.Id); *o.Name != *first.Name {
			t.Errorf("by id: %s", *o.Name)
		}
		l, _ := c.GlobalOperationsListWithResponse(apiCtx, apiProject, nil)
		if l.StatusCode() != 200 || len(l.JSON200.Items) != 2 || l.JSON200.Kind != "compute#operationList" {
			t.Fatalf("list: %s", l.Body)
		}
		d, _ := c.GlobalOperationsDeleteWithResponse(apiCtx, apiProject, *first.Name, nil)
		if d.StatusCode() != 204 || len(d.Body) != 0 {
			t.Fatalf("delete: %d %s", d.StatusCode(), d.Body)
		}
		g, _ := c.GlobalOperationsGetWithResponse(apiCtx, apiProject, *first.Name, nil)
		wantGoogleError(t, g.StatusCode(), g.Body, 404, "notFound")
	})
	t.Run("wait gives up at its deadline", func(t *testing.T) {
		op := apiInsert(t, c, "fr-3", nil, nil).JSON200 // the clock does not move: never DONE
		w, err := c.GlobalOperationsWaitWithResponse(apiCtx, apiProject, *op.Name, nil)
		if err != nil || w.StatusCode() != 200 || *w.JSON200.Status == "DONE" {
			t.Fatalf("wait: %v %s", err, w.Body)
		}
	})
	t.Run("regional operations", func(t *testing.T) {
		g, _ := c.RegionOperationsGetWithResponse(apiCtx, apiProject, "us-central1", "operation-1", nil)
		wantGoogleError(t, g.StatusCode(), g.Body, 404, "notFound")
		l, _ := c.RegionOperationsListWithResponse(apiCtx, apiProject, "us-central1", nil)
		if l.StatusCode() != 200 || len(l.JSON200.Items) != 0 || l.JSON200.Id != "projects/"+apiProject+"/regions/us-central1/operations" {
			t.Errorf("regional list: %s", l.Body)
		}
	})
	t.Run("finished operations are forgotten after the retention period", func(t *testing.T) {
		clk.Advance(2 * time.Hour)
		l, _ := c.GlobalOperationsListWithResponse(apiCtx, apiProject, nil)
		if len(l.JSON200.Items) != 0 {
			t.Errorf("%d operations kept past retention", len(l.JSON200.Items))
		}
	})
}
