package server_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/client"
	admingen "github.com/understudy-dev/understudy/gen/admin"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

func adminClient(t *testing.T, srv *understudytest.Server) *admingen.ClientWithResponses {
	t.Helper()
	spec, err := admingen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	c, err := admingen.NewClientWithResponses(srv.URL, admingen.WithHTTPClient(&http.Client{Transport: spectest.Transport(t, spec, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func computeClient(t *testing.T, srv *understudytest.Server) *client.Compute {
	t.Helper()
	c, err := client.NewCompute(srv.URL, client.WithBearerToken("a-token"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func insertRule(c *client.Compute, name string) (*computegen.GlobalForwardingRulesInsertResponse, error) {
	return client.CheckCompute(c.GlobalForwardingRulesInsertWithResponse(context.Background(), "my-project-123", nil, computegen.ForwardingRule{Name: name}))
}

func TestClockDrivesExpiryAndOperations(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Compute.Operations.Mode = operations.Mode{Delay: time.Hour}
	}))
	admin := adminClient(t, srv)
	ctx := context.Background()
	before, _ := admin.GetClockWithResponse(ctx)
	if before.StatusCode() != 200 || before.JSON200.OffsetSeconds != 0 {
		t.Fatalf("clock: %s", before.Body)
	}

	// An account link expires when the clock passes its expires_at.
	accts, _ := client.NewAccounts(srv.URL, client.WithAPIKey("sk_test_clock123"))
	acct := mustAccount(t, accts)
	link := mustLink(t, accts, acct)
	// A delayed operation completes when the clock passes its due time.
	comp := computeClient(t, srv)
	op, err := insertRule(comp, "fr-clock")
	if err != nil || *op.JSON200.Status == "DONE" {
		t.Fatalf("insert: %v %s", err, op.Body)
	}

	// 90 minutes: past the link's 10 and the operation's 60, within its hour of retention.
	adv, _ := admin.AdvanceClockWithResponse(ctx, admingen.ClockAdvance{Seconds: 90 * 60})
	if adv.StatusCode() != 200 || adv.JSON200.OffsetSeconds != 5400 || !adv.JSON200.Now.After(before.JSON200.Now.Add(90*time.Minute-time.Second)) {
		t.Fatalf("advance: %s", adv.Body)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || !strings.HasSuffix(resp.Header.Get("Location"), "/refresh") {
		t.Errorf("expired link: %d -> %s, want 302 to refresh_url", resp.StatusCode, resp.Header.Get("Location"))
	}
	got, err := client.CheckCompute(comp.GlobalOperationsGetWithResponse(ctx, "my-project-123", *op.JSON200.Name, nil))
	if err != nil || *got.JSON200.Status != "DONE" {
		t.Errorf("operation after the advance: %v %s", err, got.Body)
	}
	if _, err := client.CheckCompute(comp.GlobalForwardingRulesGetWithResponse(ctx, "my-project-123", "fr-clock", nil)); err != nil {
		t.Errorf("rule after its operation is DONE: %v", err)
	}
}

func TestJournal(t *testing.T) {
	srv := understudytest.Start(t)
	admin := adminClient(t, srv)
	ctx := context.Background()
	comp := computeClient(t, srv)
	if _, err := insertRule(comp, "fr-1"); err != nil {
		t.Fatal(err)
	}
	_, _ = comp.GlobalForwardingRulesGetWithResponse(ctx, "my-project-123", "nope", nil)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v2/core/accounts", nil)
	req.Header.Set("Authorization", "Bearer sk_test_secretvalue999")
	req.Header.Set("Service-Version", "2026-05-27.dahlia")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}

	all, _ := admin.ListRequestsWithResponse(ctx, nil)
	if all.StatusCode() != 200 || len(all.JSON200.Requests) != 3 {
		t.Fatalf("journal: %s", all.Body)
	}
	newest := all.JSON200.Requests[0]
	if newest.Api != "accounts" || *newest.OperationId != "listAccounts" || newest.Status != 200 || newest.RequestId == nil || !strings.HasPrefix(*newest.RequestId, "req_") {
		t.Errorf("newest entry: %+v", newest)
	}
	if strings.Contains(string(all.Body), "secretvalue") || strings.Contains(string(all.Body), "a-token") {
		t.Error("the journal holds a secret")
	}
	status, api := 404, admingen.API("compute")
	only, _ := admin.ListRequestsWithResponse(ctx, &admingen.ListRequestsParams{Api: &api, Status: &status})
	if len(only.JSON200.Requests) != 1 || *only.JSON200.Requests[0].OperationId != "globalForwardingRules.get" {
		t.Errorf("filtered: %s", only.Body)
	}
	op := "globalForwardingRules.insert"
	byOp, _ := admin.ListRequestsWithResponse(ctx, &admingen.ListRequestsParams{OperationId: &op})
	if len(byOp.JSON200.Requests) != 1 || byOp.JSON200.Requests[0].RequestId == nil {
		t.Errorf("by operation: %s", byOp.Body)
	}
	if r, _ := admin.ClearRequestsWithResponse(ctx); r.StatusCode() != 204 {
		t.Fatal(string(r.Body))
	}
	if after, _ := admin.ListRequestsWithResponse(ctx, nil); len(after.JSON200.Requests) != 0 {
		t.Errorf("after clear: %s", after.Body)
	}
}

func TestFaults(t *testing.T) {
	srv := understudytest.Start(t)
	admin := adminClient(t, srv)
	ctx := context.Background()
	comp := computeClient(t, srv)
	api, op, count, status, code, retry := admingen.API("compute"), "globalForwardingRules.insert", 2, 503, "backendError", 3
	created, _ := admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Api: &api, OperationId: &op, Count: &count, Status: &status, Code: &code, RetryAfterSeconds: &retry})
	if created.StatusCode() != 201 || created.JSON201.Id == "" || *created.JSON201.Remaining != 2 {
		t.Fatalf("create: %s", created.Body)
	}
	for i := 0; i < 2; i++ {
		resp, err := insertRule(comp, "fr-fault")
		var ce *client.ComputeError
		if !errors.As(err, &ce) || ce.StatusCode != 503 || ce.Reason != "backendError" || resp.HTTPResponse.Header.Get("Retry-After") != "3" {
			t.Fatalf("faulted insert %d: %v", i, err)
		}
	}
	if _, err := insertRule(comp, "fr-fault"); err != nil {
		t.Fatalf("the rule outlived its count: %v", err)
	}
	if list, _ := admin.ListFaultsWithResponse(ctx); len(list.JSON200.Faults) != 0 {
		t.Errorf("a spent rule is still listed: %s", list.Body)
	}

	t.Run("every API renders a fault in its own envelope", func(t *testing.T) {
		for _, tt := range []struct {
			api, path string
			headers   map[string]string
			envelope  func([]byte) (string, error)
		}{
			{"authorization", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", map[string]string{"Authorization": "Bearer t"}, armEnvelope},
			{"accounts", "/v2/core/accounts", map[string]string{"Authorization": "Bearer sk_test_x1", "Service-Version": "2026-05-27.dahlia"}, v2Envelope},
			{"compute", "/compute/v1/projects/my-project-123/global/operations", map[string]string{"Authorization": "Bearer t"}, googleEnvelope},
		} {
			api, st, code := admingen.API(tt.api), 429, "tooMany"
			f, _ := admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Api: &api, Count: ptr(1), Status: &st, Code: &code})
			got, body := do(t, http.MethodGet, srv.URL+tt.path, tt.headers, nil, 0)
			if got != 429 {
				t.Errorf("%s: %d %s", tt.api, got, body)
			}
			if msg, err := tt.envelope(body); err != nil || msg != "Injected by understudy." {
				t.Errorf("%s: %v %s", tt.api, err, body)
			}
			_ = f
		}
	})
	t.Run("latency only, and delete", func(t *testing.T) {
		latency, path := 150, "/compute/v1/projects/my-project-123/global/operations"
		f, _ := admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Path: &path, LatencyMs: &latency})
		start := time.Now()
		got, _ := do(t, http.MethodGet, srv.URL+path, map[string]string{"Authorization": "Bearer t"}, nil, 0)
		if got != 200 || time.Since(start) < 150*time.Millisecond {
			t.Errorf("latency rule: %d after %v", got, time.Since(start))
		}
		if d, _ := admin.DeleteFaultWithResponse(ctx, f.JSON201.Id); d.StatusCode() != 204 {
			t.Fatal(string(d.Body))
		}
		if d, _ := admin.DeleteFaultWithResponse(ctx, f.JSON201.Id); d.StatusCode() != 404 {
			t.Errorf("second delete: %d", d.StatusCode())
		}
	})
	t.Run("a rule for GET applies to HEAD, its GET without the body", func(t *testing.T) {
		method, path, st := "GET", "/compute/v1/projects/my-project-123/global/operations", 503
		admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Method: &method, Path: &path, Count: ptr(1), Status: &st})
		if got, _ := do(t, http.MethodHead, srv.URL+path, map[string]string{"Authorization": "Bearer t"}, nil, 0); got != 503 {
			t.Errorf("HEAD under a GET rule: %d, want 503", got)
		}
	})
	t.Run("a rule needs a status or latency", func(t *testing.T) {
		bad, _ := admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Api: &api})
		if bad.StatusCode() != 400 {
			t.Errorf("%d %s", bad.StatusCode(), bad.Body)
		}
	})
	t.Run("the admin API is never faulted", func(t *testing.T) {
		st := 500
		admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Status: &st})
		if h, _ := admin.GetHealthWithResponse(ctx); h.StatusCode() != 200 {
			t.Errorf("health under a catch-all fault: %d", h.StatusCode())
		}
		admin.ClearFaultsWithResponse(ctx)
	})
}

func TestMetrics(t *testing.T) {
	srv := understudytest.Start(t)
	comp := computeClient(t, srv)
	if _, err := insertRule(comp, "fr-m"); err != nil {
		t.Fatal(err)
	}
	m, err := adminClient(t, srv).GetMetricsWithResponse(context.Background())
	if err != nil || m.StatusCode() != 200 {
		t.Fatal(err)
	}
	text := string(m.Body)
	for _, want := range []string{
		`understudy_requests_total{api="compute",operation="globalForwardingRules.insert",status="200"} 1`,
		`understudy_request_duration_seconds_bucket{api="compute",operation="globalForwardingRules.insert"`,
		`understudy_stored_objects{kind="forwardingRules"} 1`,
		`go_goroutines`,
		"\n# TYPE understudy_request_duration_seconds histogram\n",
		"\n# TYPE understudy_stored_objects gauge\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// A family is described once: a scraper refuses a second TYPE line for a name.
	typed := map[string]bool{}
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "# TYPE ") {
			if name := strings.Fields(line)[2]; typed[name] {
				t.Errorf("metrics describe %s twice", name)
			} else {
				typed[name] = true
			}
		}
	}
	if !strings.HasPrefix(m.HTTPResponse.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("content type %s", m.HTTPResponse.Header.Get("Content-Type"))
	}
}

func mustAccount(t *testing.T, c *client.Accounts) string {
	t.Helper()
	resp, err := c.CreateAccountWithBodyWithResponse(context.Background(), nil, "application/json",
		strings.NewReader(`{"configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`))
	if err != nil || resp.StatusCode() != 200 {
		t.Fatalf("account: %v %s", err, resp.Body)
	}
	return resp.JSON200.Id
}

func mustLink(t *testing.T, c *client.Accounts, account string) string {
	t.Helper()
	resp, err := c.CreateAccountLinkWithBodyWithResponse(context.Background(), nil, "application/json", strings.NewReader(
		`{"account":"`+account+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://platform.example/refresh","return_url":"https://platform.example/return"}}}`))
	if err != nil || resp.StatusCode() != 200 {
		t.Fatalf("link: %v %s", err, resp.Body)
	}
	return resp.JSON200.Url
}

func ptr[T any](v T) *T { return &v }
