package accounts_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

const (
	apiVersion = "2026-05-27.dahlia"
	apiTestKey = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
	apiLiveKey = "sk_live_51HqLyjWDarjtT1zdp7dcLive"
)

var apiCtx = context.Background()

// apiClock is a clock the test moves.
type apiClock struct {
	mu  sync.Mutex
	now time.Time
}

func newAPIClock() *apiClock {
	return &apiClock{now: time.Date(2026, 11, 21, 10, 0, 0, 123_000_000, time.UTC)}
}

func (c *apiClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *apiClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type apiEnv struct {
	t   *testing.T
	srv *understudytest.Server
}

func newAPIEnv(t *testing.T, configure ...func(*server.Config)) *apiEnv {
	t.Helper()
	return &apiEnv{t: t, srv: understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		for _, f := range configure {
			f(c)
		}
	}))}
}

// client returns a generated client sending key (none when ""), checking every response
// against the spec.
func (e *apiEnv) client(key string) *gen.ClientWithResponses {
	e.t.Helper()
	spec, err := gen.GetSpec()
	if err != nil {
		e.t.Fatal(err)
	}
	opts := []gen.ClientOption{gen.WithHTTPClient(&http.Client{Transport: spectest.Transport(e.t, spec, nil)})}
	if key != "" {
		opts = append(opts, gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	}
	c, err := gen.NewClientWithResponses(e.srv.URL, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func recipientAccount() gen.CreateAccountRequest {
	return gen.CreateAccountRequest{Configuration: &gen.V2CoreAccountCreateConfigurationParams{Recipient: &gen.V2CoreAccountCreateConfigurationRecipientParams{
		Capabilities: &gen.V2CoreAccountCreateConfigurationRecipientCapabilitiesParams{StripeBalance: &gen.V2CoreAccountCreateConfigurationRecipientCapabilitiesStripeBalanceParams{
			StripeTransfers: &gen.CapabilityRequestParams{Requested: true}}}}}}
}

func apiCreateAccount(t *testing.T, c *gen.ClientWithResponses, body gen.CreateAccountRequest) gen.V2CoreAccount {
	t.Helper()
	resp, err := c.CreateAccountWithResponse(apiCtx, &gen.CreateAccountParams{ServiceVersion: apiVersion}, body)
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("create account: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	return *resp.JSON200
}

func onboardingLink(account string, configs ...gen.ConfigurationType) gen.CreateAccountLinkRequest {
	ret := "https://platform.example/return"
	return gen.CreateAccountLinkRequest{Account: account, UseCase: gen.AccountLinkUseCaseParams{
		Type: gen.AccountLinkUseCaseTypeAccountOnboarding,
		AccountOnboarding: &gen.AccountLinkFlowParams{Configurations: configs,
			RefreshUrl: "https://platform.example/refresh", ReturnUrl: &ret}}}
}

func apiCreateLink(t *testing.T, c *gen.ClientWithResponses, body gen.CreateAccountLinkRequest, key *string) *gen.CreateAccountLinkResponse {
	t.Helper()
	resp, err := c.CreateAccountLinkWithResponse(apiCtx, &gen.CreateAccountLinkParams{ServiceVersion: apiVersion, IdempotencyKey: key}, body)
	if err != nil {
		t.Fatalf("create link: %v", err)
	}
	return resp
}

// apiError is the v2 envelope.
type apiError struct {
	Type, Code, Message string
	UserMessage         *string `json:"user_message"`
	DocURL              *string `json:"doc_url"`
}

func wantAPIError(t *testing.T, status int, body []byte, wantStatus int, wantType, wantCode string) apiError {
	t.Helper()
	var env struct{ Error apiError }
	var raw map[string]map[string]any
	if json.Unmarshal(body, &env) != nil || json.Unmarshal(body, &raw) != nil || env.Error.Message == "" {
		t.Fatalf("not a v2 error envelope: %s", body)
	}
	for _, k := range []string{"type", "message", "user_message", "doc_url"} {
		if _, ok := raw["error"][k]; !ok {
			t.Errorf("envelope lacks %q: %s", k, body)
		}
	}
	if status != wantStatus || env.Error.Type != wantType || env.Error.Code != wantCode {
		t.Fatalf("got %d %s/%s (%s), want %d %s/%s", status, env.Error.Type, env.Error.Code, env.Error.Message, wantStatus, wantType, wantCode)
	}
	return env.Error
}

// readBody reads and closes a response body.
// send sends a JSON body (none when "") with the test key and the Service-Version, past the
// generated client (for members it cannot send), and returns the status and body.
func (e *apiEnv) send(method, path, body string) (int, []byte) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+apiTestKey)
	req.Header.Set("Service-Version", apiVersion)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, []byte(readBody(resp))
}

func readBody(resp *http.Response) string {
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
