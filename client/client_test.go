package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/understudy-dev/understudy/client"
	"github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/gen/authorization"
)

var ctx = context.Background()

const (
	testKey   = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
	testScope = "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1"
	testName  = "b0f43c54-e787-4862-89b1-a653fa9cf747"
)

// request is what a recordingServer saw of one request.
type request struct {
	Method, URI string
	Header      http.Header
}

// recordingServer answers every request 200 with an empty JSON object and remembers it.
type recordingServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

func newRecordingServer(t *testing.T) *recordingServer {
	t.Helper()
	rs := &recordingServer{}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.reqs = append(rs.reqs, request{Method: r.Method, URI: r.RequestURI, Header: r.Header.Clone()})
		rs.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(rs.Close)
	return rs
}

// last is the last request the server saw.
func (rs *recordingServer) last(t *testing.T) request {
	t.Helper()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.reqs) == 0 {
		t.Fatal("the server saw no request")
	}
	return rs.reqs[len(rs.reqs)-1]
}

// count is how many requests the server saw.
func (rs *recordingServer) count() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.reqs)
}

// countingTransport counts the requests it sends.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// calls make one request with a client of each API built with opts.
var calls = []struct {
	name string
	call func(t *testing.T, url string, opts ...client.Option) error
}{
	{"authorization", func(t *testing.T, url string, opts ...client.Option) error {
		c, err := client.NewAuthorization(url, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.RoleAssignmentsGetWithResponse(ctx, testScope, testName, &authorization.RoleAssignmentsGetParams{ApiVersion: client.AuthorizationAPIVersion})
		return err
	}},
	{"accounts", func(t *testing.T, url string, opts ...client.Option) error {
		c, err := client.NewAccounts(url, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.RetrieveAccountWithResponse(ctx, "acct_123", nil)
		return err
	}},
	{"compute", func(t *testing.T, url string, opts ...client.Option) error {
		c, err := client.NewCompute(url, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GlobalOperationsGetWithResponse(ctx, "my-project-123", "operation-1", nil)
		return err
	}},
}

func TestOptionsSendTheirHeaders(t *testing.T) {
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRecordingServer(t)
			transport := &countingTransport{}
			var authSeenByEditor string
			err := tt.call(t, rs.URL,
				client.WithBearerToken("tok-123"),
				client.WithUserAgent("my-app/1.0"),
				client.WithHTTPClient(&http.Client{Transport: transport}),
				client.WithRequestEditor(func(_ context.Context, r *http.Request) error {
					authSeenByEditor = r.Header.Get("Authorization")
					r.Header.Set("X-Editor", "one")
					return nil
				}),
				client.WithRequestEditor(func(_ context.Context, r *http.Request) error {
					r.Header.Set("X-Editor", r.Header.Get("X-Editor")+",two")
					return nil
				}))
			if err != nil {
				t.Fatal(err)
			}
			h := rs.last(t).Header
			for name, want := range map[string]string{
				"Authorization": "Bearer tok-123",
				"User-Agent":    "my-app/1.0",
				"X-Editor":      "one,two",
			} {
				if got := h.Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if authSeenByEditor != "Bearer tok-123" {
				t.Errorf("the caller's editor ran before the client's headers were set (saw Authorization %q)", authSeenByEditor)
			}
			if n := transport.n.Load(); n != 1 {
				t.Errorf("the WithHTTPClient client sent %d requests, want 1", n)
			}
		})
	}
}

func TestAPIKeyIsABearerToken(t *testing.T) {
	rs := newRecordingServer(t)
	if err := calls[1].call(t, rs.URL, client.WithAPIKey(testKey)); err != nil {
		t.Fatal(err)
	}
	if got, want := rs.last(t).Header.Get("Authorization"), "Bearer "+testKey; got != want {
		t.Errorf("Authorization = %q, want %q", got, want)
	}
}

func TestNoOptions(t *testing.T) {
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRecordingServer(t)
			if err := tt.call(t, rs.URL); err != nil {
				t.Fatal(err)
			}
			h := rs.last(t).Header
			if got := h.Get("Authorization"); got != "" {
				t.Errorf("Authorization = %q without a token", got)
			}
			if got := h.Get("User-Agent"); got != "Go-http-client/1.1" {
				t.Errorf("User-Agent = %q, want Go's default", got)
			}
		})
	}
}

func TestRequestEditorErrorStopsTheRequest(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRecordingServer(t)
			err := tt.call(t, rs.URL, client.WithRequestEditor(func(context.Context, *http.Request) error { return boom }))
			if !errors.Is(err, boom) {
				t.Errorf("err = %v, want the editor's error", err)
			}
			if n := rs.count(); n != 0 {
				t.Errorf("the server saw %d requests", n)
			}
		})
	}
}

func TestAccountsServiceVersion(t *testing.T) {
	tests := []struct {
		name   string
		opts   []client.Option
		params *accounts.RetrieveAccountParams
		want   string
	}{
		{"default with nil params", nil, nil, client.AccountsServiceVersion},
		{"default with an empty field", nil, &accounts.RetrieveAccountParams{}, client.AccountsServiceVersion},
		{"WithServiceVersion", []client.Option{client.WithServiceVersion("2025-01-01.acacia")}, nil, "2025-01-01.acacia"},
		{"the params win", []client.Option{client.WithServiceVersion("2025-01-01.acacia")}, &accounts.RetrieveAccountParams{ServiceVersion: "2024-09-30.acacia"}, "2024-09-30.acacia"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRecordingServer(t)
			c, err := client.NewAccounts(rs.URL, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.RetrieveAccountWithResponse(ctx, "acct_123", tt.params); err != nil {
				t.Fatal(err)
			}
			if got := rs.last(t).Header.Values("Service-Version"); len(got) != 1 || got[0] != tt.want {
				t.Errorf("Service-Version = %q, want [%q]", got, tt.want)
			}
		})
	}
}

func TestAccountsIdempotencyKey(t *testing.T) {
	rs := newRecordingServer(t)
	c, err := client.NewAccounts(rs.URL, client.WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	post := func(params *accounts.CreateAccountParams) string {
		t.Helper()
		if _, err := c.CreateAccountWithResponse(ctx, params, accounts.CreateAccountRequest{}); err != nil {
			t.Fatal(err)
		}
		r := rs.last(t)
		if r.Method != http.MethodPost {
			t.Fatalf("method %s", r.Method)
		}
		return r.Header.Get("Idempotency-Key")
	}

	t.Run("added to every POST, a new one each time", func(t *testing.T) {
		first, second := post(nil), post(&accounts.CreateAccountParams{})
		for _, k := range []string{first, second} {
			id, err := uuid.Parse(k)
			if err != nil || id.Version() != 4 || id.Variant() != uuid.RFC4122 {
				t.Errorf("Idempotency-Key %q is not a UUID v4 (%v)", k, err)
			}
		}
		if first == second {
			t.Errorf("two POSTs shared the key %s", first)
		}
	})
	t.Run("the caller's key is kept", func(t *testing.T) {
		key := "onboard-acct_123"
		if got := post(&accounts.CreateAccountParams{IdempotencyKey: &key}); got != key {
			t.Errorf("Idempotency-Key = %q, want %q", got, key)
		}
	})
	t.Run("not on GET", func(t *testing.T) {
		if _, err := c.RetrieveAccountWithResponse(ctx, "acct_123", nil); err != nil {
			t.Fatal(err)
		}
		if got := rs.last(t).Header.Values("Idempotency-Key"); len(got) != 0 {
			t.Errorf("a GET carried Idempotency-Key %q", got)
		}
	})
	t.Run("WithoutAutoIdempotency", func(t *testing.T) {
		c, err := client.NewAccounts(rs.URL, client.WithAPIKey(testKey), client.WithoutAutoIdempotency())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateAccountWithResponse(ctx, nil, accounts.CreateAccountRequest{}); err != nil {
			t.Fatal(err)
		}
		if got := rs.last(t).Header.Values("Idempotency-Key"); len(got) != 0 {
			t.Errorf("Idempotency-Key %q sent though turned off", got)
		}
	})
}

func TestAuthorizationSendsRawScopes(t *testing.T) {
	rs := newRecordingServer(t)
	c, err := client.NewAuthorization(rs.URL, client.WithBearerToken("tok"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RoleAssignmentsGetWithResponse(ctx, testScope, testName, &authorization.RoleAssignmentsGetParams{ApiVersion: client.AuthorizationAPIVersion}); err != nil {
		t.Fatal(err)
	}
	want := "/" + testScope + "/providers/Vendor.Authorization/roleAssignments/" + testName + "?api-version=2022-04-01"
	if got := rs.last(t).URI; got != want {
		t.Errorf("request URI\n got %s\nwant %s", got, want)
	}
	// Other escapes are kept.
	if _, err := c.RoleAssignmentsGetWithResponse(ctx, "subscriptions/s 1/resourceGroups/rg%1", testName, &authorization.RoleAssignmentsGetParams{ApiVersion: client.AuthorizationAPIVersion}); err != nil {
		t.Fatal(err)
	}
	want = "/subscriptions/s%201/resourceGroups/rg%251/providers/Vendor.Authorization/roleAssignments/" + testName + "?api-version=2022-04-01"
	if got := rs.last(t).URI; got != want {
		t.Errorf("request URI\n got %s\nwant %s", got, want)
	}
}
