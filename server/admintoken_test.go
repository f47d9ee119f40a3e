package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	admingen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

const adminToken = "adm1n-t0ken-never-logged"

// adminCalls make one request to each operation of the admin API, through the generated
// client, and say what a caller with the token gets.
var principalSeq atomic.Int64

var adminCalls = []struct {
	op   string
	want int // the status with the right token
	call func(ctx context.Context, c *admingen.Client, auth admingen.RequestEditorFn) (*http.Response, error)
}{
	{"getHealth", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.GetHealth(ctx, a)
	}},
	{"reset", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.Reset(ctx, a)
	}},
	{"listRequests", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.ListRequests(ctx, nil, a)
	}},
	{"clearRequests", 204, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.ClearRequests(ctx, a)
	}},
	{"listFaults", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.ListFaults(ctx, a)
	}},
	{"createFault", 201, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.CreateFault(ctx, admingen.FaultRule{Api: ptr(admingen.APICompute), LatencyMs: ptr(1), Count: ptr(1)}, a)
	}},
	{"clearFaults", 204, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.ClearFaults(ctx, a)
	}},
	{"deleteFault", 404, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.DeleteFault(ctx, "fault-none", a)
	}},
	{"getClock", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.GetClock(ctx, a)
	}},
	{"advanceClock", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.AdvanceClock(ctx, admingen.ClockAdvance{Seconds: 1}, a)
	}},
	{"getState", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.GetState(ctx, a)
	}},
	{"loadState", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.LoadStateWithBody(ctx, "application/yaml", strings.NewReader("compute:\n  projects: {}\n"), a)
	}},
	{"getAPISpec", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.GetAPISpec(ctx, "compute", a)
	}},
	{"getMetrics", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.GetMetrics(ctx, a)
	}},
	{"listPrincipals", 200, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.ListPrincipals(ctx, a)
	}},
	{"putPrincipal", 201, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		// A new principal each time, so that every accepted call creates (201).
		return c.PutPrincipal(ctx, fmt.Sprintf("0a0a0a0a-0000-4000-8000-%012d", principalSeq.Add(1)), admingen.Principal{Type: admingen.PrincipalTypeUser}, a)
	}},
	{"deletePrincipal", 404, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.DeletePrincipal(ctx, "0a0a0a0a-0000-4000-8000-0000000000ff", a)
	}},
	{"putDenyAssignment", 201, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		// A new deny assignment each time, so that every accepted call creates (201).
		n := principalSeq.Add(1)
		return c.PutDenyAssignment(ctx, fmt.Sprintf("0b0b0b0b-0000-4000-8000-%012d", n), admingen.DenyAssignment{
			"properties": map[string]any{
				"denyAssignmentName": fmt.Sprintf("deny %d", n),
				"scope":              "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2",
				"permissions":        []any{map[string]any{"actions": []any{"*/delete"}}},
				"principals":         []any{map[string]any{"id": "00000000-0000-0000-0000-000000000000"}},
			},
		}, a)
	}},
	{"deleteDenyAssignment", 404, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.DeleteDenyAssignment(ctx, "0b0b0b0b-0000-4000-8000-0000000000ff", a)
	}},
	{"setInterconnectCircuit", 404, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.SetInterconnectCircuit(ctx, "proj-token-1", "ic-none", admingen.Circuit{State: admingen.CircuitStateDOWN}, a)
	}},
	{"setAttachmentCircuit", 404, func(ctx context.Context, c *admingen.Client, a admingen.RequestEditorFn) (*http.Response, error) {
		return c.SetAttachmentCircuit(ctx, "proj-token-1", "us-east4", "att-none", admingen.Circuit{State: admingen.CircuitStateUP}, a)
	}},
}

func bearer(token string) admingen.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	}
}

// syncBuffer is a log destination the server's goroutines may write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAdminToken: with --admin-token, every admin endpoint but health answers 401 in the
// admin envelope without the token or with another, and serves a caller that sends it.
// The token is in neither the logs nor the request journal.
func TestAdminToken(t *testing.T) {
	var logs syncBuffer
	srv := understudytest.Start(t, understudytest.WithAdminToken(adminToken), understudytest.WithConfig(func(c *server.Config) {
		c.Log = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}))
	spec, err := admingen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	c, err := admingen.NewClient(srv.URL, admingen.WithHTTPClient(&http.Client{Transport: spectest.Transport(t, spec, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// Every operation of the spec has its call here, so that a new endpoint is checked too.
	var ops, called []string
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			ops = append(ops, op.OperationID)
		}
	}
	for _, ac := range adminCalls {
		called = append(called, ac.op)
	}
	sort.Strings(ops)
	sort.Strings(called)
	if strings.Join(ops, " ") != strings.Join(called, " ") {
		t.Fatalf("the spec's operations are %v, the test calls %v", ops, called)
	}

	for _, ac := range adminCalls {
		t.Run(ac.op, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				auth admingen.RequestEditorFn
			}{
				{"no token", bearer("")},
				{"wrong token", bearer("not-" + adminToken)},
				{"a prefix of the token", bearer(adminToken[:len(adminToken)-1])},
				{"another scheme", func(_ context.Context, req *http.Request) error {
					req.Header.Set("Authorization", "Basic "+adminToken)
					return nil
				}},
			} {
				resp, err := ac.call(ctx, c, tc.auth)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if ac.op == "getHealth" {
					if resp.StatusCode != 200 {
						t.Errorf("%s: health %d, want 200 whatever the credentials", tc.name, resp.StatusCode)
					}
					continue
				}
				var e struct {
					Error struct{ Code, Message string }
				}
				if resp.StatusCode != http.StatusUnauthorized || json.Unmarshal(body, &e) != nil || e.Error.Code != "Unauthorized" {
					t.Errorf("%s: %d %s, want 401 Unauthorized in the admin envelope", tc.name, resp.StatusCode, body)
				}
				if got := resp.Header.Get("WWW-Authenticate"); got != `Bearer realm="understudy"` {
					t.Errorf("%s: WWW-Authenticate %q", tc.name, got)
				}
				if strings.Contains(string(body), adminToken[:8]) {
					t.Errorf("%s: the answer quotes the token: %s", tc.name, body)
				}
			}
			resp, err := ac.call(ctx, c, bearer(adminToken))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != ac.want {
				t.Errorf("with the token: %d %s, want %d", resp.StatusCode, body, ac.want)
			}
			// The scheme's case does not matter (RFC 9110).
			resp, err = ac.call(ctx, c, func(_ context.Context, req *http.Request) error {
				req.Header.Set("Authorization", "bearer "+adminToken)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != ac.want {
				t.Errorf("with the token after a lower-case scheme: %d, want %d", resp.StatusCode, ac.want)
			}
		})
	}

	// understudytest's Admin client sends the token.
	if r, err := srv.Admin.GetClockWithResponse(ctx); err != nil || r.StatusCode() != 200 {
		t.Errorf("understudytest's admin client: %v %d", err, r.StatusCode())
	}
	// An API request that happens to carry the token as its bearer does not leak it either.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/compute/v1/projects/my-project-123/global/forwardingRules", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	journal, err := srv.Admin.ListRequestsWithResponse(ctx, nil)
	if err != nil || journal.StatusCode() != 200 || len(journal.JSON200.Requests) == 0 {
		t.Fatalf("journal: %v %s", err, journal.Body)
	}
	for what, text := range map[string]string{"log": logs.String(), "journal": string(journal.Body)} {
		if strings.Contains(text, adminToken) {
			t.Errorf("the token is in the %s:\n%s", what, text)
		}
	}
	if !strings.Contains(logs.String(), `"path":"/_understudy/clock"`) {
		t.Errorf("the log has no admin requests, so it proves nothing:\n%s", logs.String())
	}
}

// TestNoAdminTokenAsksForNone: without a token, the admin API serves anyone, as before.
func TestNoAdminTokenAsksForNone(t *testing.T) {
	srv := understudytest.Start(t)
	resp, err := http.Get(srv.URL + "/_understudy/clock")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("clock without a token: %d, want 200", resp.StatusCode)
	}
}
