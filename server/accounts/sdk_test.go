package accounts_test

// These tests drive the accounts API with the vendor's own Go SDK (stripe-go), changed only
// in its base URL and in an HTTP transport that adds our Service-Version header. They show
// that a real client can use the emulator unchanged: requests it sends are accepted and
// responses and errors decode into its types.
//
// How stripe-go v85 surfaces v2 errors (stripe.go responseToErrorV2): an error of type
// "rate_limit" becomes *stripe.RateLimitError, "temporary_session_expired"
// *stripe.TemporarySessionExpiredError, anything else (invalid_request_error,
// idempotency_error, ...) *stripe.V2RawError, which carries HTTPStatusCode. It has no
// authentication error type: a 401 is a *stripe.V2RawError with status 401.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/understudytest"
)

const sdkServiceVersion = "2026-05-27.dahlia"

// serviceVersionTransport adds Service-Version to every request; the SDK sends its own
// Stripe-Version, which the server ignores.
type serviceVersionTransport struct{ base http.RoundTripper }

func (t serviceVersionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Service-Version", sdkServiceVersion)
	return t.base.RoundTrip(req)
}

// sdkLogger sends the SDK's warnings and errors to the test log.
type sdkLogger struct{ t testing.TB }

func (l sdkLogger) Debugf(string, ...any)          {}
func (l sdkLogger) Infof(string, ...any)           {}
func (l sdkLogger) Warnf(format string, v ...any)  { l.t.Logf("stripe-go warn: "+format, v...) }
func (l sdkLogger) Errorf(format string, v ...any) { l.t.Logf("stripe-go error: "+format, v...) }

// newSDKClient returns a stripe-go client for key whose every backend points at srv, with
// retries and telemetry off.
func newSDKClient(t testing.TB, srv *understudytest.Server, key string) *stripe.Client {
	t.Helper()
	httpClient := &http.Client{Timeout: 30 * time.Second, Transport: serviceVersionTransport{base: http.DefaultTransport}}
	cfg := &stripe.BackendConfig{
		URL:               stripe.String(srv.URL),
		HTTPClient:        httpClient,
		MaxNetworkRetries: stripe.Int64(0),
		EnableTelemetry:   stripe.Bool(false),
		LeveledLogger:     sdkLogger{t: t},
	}
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))
}

func startSDKServer(t testing.TB, f func(c *server.Config)) *understudytest.Server {
	t.Helper()
	if f == nil {
		return understudytest.Start(t)
	}
	return understudytest.Start(t, understudytest.WithConfig(f))
}

// recipientParams is the smallest recipient account, with a display name and contact email.
func recipientParams(name string) *stripe.V2CoreAccountCreateParams {
	return &stripe.V2CoreAccountCreateParams{
		DisplayName:  stripe.String(name),
		ContactEmail: stripe.String(strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.com"),
		Configuration: &stripe.V2CoreAccountCreateConfigurationParams{
			Recipient: &stripe.V2CoreAccountCreateConfigurationRecipientParams{
				Capabilities: &stripe.V2CoreAccountCreateConfigurationRecipientCapabilitiesParams{
					StripeBalance: &stripe.V2CoreAccountCreateConfigurationRecipientCapabilitiesStripeBalanceParams{
						StripeTransfers: &stripe.V2CoreAccountCreateConfigurationRecipientCapabilitiesStripeBalanceStripeTransfersParams{
							Requested: stripe.Bool(true),
						},
					},
				},
			},
		},
	}
}

func createRecipient(t testing.TB, c *stripe.Client, name string) *stripe.V2CoreAccount {
	t.Helper()
	a, err := c.V2CoreAccounts.Create(context.Background(), recipientParams(name))
	if err != nil {
		t.Fatalf("create account: %v", err)
	}
	return a
}

func onboardingLinkParams(account string, configurations ...string) *stripe.V2CoreAccountLinkCreateParams {
	return &stripe.V2CoreAccountLinkCreateParams{
		Account: stripe.String(account),
		UseCase: &stripe.V2CoreAccountLinkCreateUseCaseParams{
			Type: stripe.String("account_onboarding"),
			AccountOnboarding: &stripe.V2CoreAccountLinkCreateUseCaseAccountOnboardingParams{
				Configurations: stripe.StringSlice(configurations),
				RefreshURL:     stripe.String("https://platform.example.com/refresh"),
				ReturnURL:      stripe.String("https://platform.example.com/return"),
			},
		},
	}
}

// v2Error asserts that err is the SDK's catch-all v2 error with this status and code.
func v2Error(t testing.TB, err error, status int, code string) *stripe.V2RawError {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %d %s", status, code)
	}
	var e *stripe.V2RawError
	if !errors.As(err, &e) {
		t.Fatalf("got error %T (%v), want *stripe.V2RawError", err, err)
	}
	if got, want := e.HTTPStatusCode, status; got != want {
		t.Errorf("status: got %d, want %d (%v)", got, want, err)
	}
	if got, want := e.Code, code; got != want {
		t.Errorf("code: got %q, want %q (%v)", got, want, err)
	}
	if e.RequestID == "" || !strings.HasPrefix(e.RequestID, "req_") {
		t.Errorf("request id: got %q, want req_...", e.RequestID)
	}
	return e
}

func errorType(e *stripe.V2RawError) string {
	if e.Type == nil {
		return "<nil>"
	}
	return string(*e.Type)
}

func TestSDK(t *testing.T) {
	no := false
	srv := startSDKServer(t, func(c *server.Config) {
		c.Accounts.Platforms = []accounts.Platform{{ID: "platform_blocked", Name: "Blocked", AccountsV2: &no, Keys: []string{"sk_test_blocked123"}}}
	})
	client := newSDKClient(t, srv, "sk_test_sdk4242")
	ctx := context.Background()

	t.Run("CreateAccount", func(t *testing.T) {
		before := time.Now()
		a, err := client.V2CoreAccounts.Create(ctx, recipientParams("Jenny Rosen"))
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if got, want := a.ID, "acct_"; !strings.HasPrefix(got, want) || len(got) < len(want)+16 {
			t.Errorf("id: got %q, want %s + at least 16 characters", got, want)
		}
		if got, want := a.Object, "v2.core.account"; got != want {
			t.Errorf("object: got %q, want %q", got, want)
		}
		if got, want := a.AppliedConfigurations, []stripe.V2CoreAccountAppliedConfiguration{stripe.V2CoreAccountAppliedConfigurationRecipient}; !slices.Equal(got, want) {
			t.Errorf("applied_configurations: got %v, want %v", got, want)
		}
		if got, want := a.Livemode, false; got != want {
			t.Errorf("livemode: got %v, want %v", got, want)
		}
		if got, want := a.DisplayName, "Jenny Rosen"; got != want {
			t.Errorf("display_name: got %q, want %q", got, want)
		}
		if got, want := a.ContactEmail, "jenny.rosen@example.com"; got != want {
			t.Errorf("contact_email: got %q, want %q", got, want)
		}
		if got := a.Created; got.Before(before.Add(-time.Minute)) || got.After(time.Now().Add(time.Minute)) {
			t.Errorf("created: got %v, want within a minute of %v", got, before)
		}
		if got, want := a.Created.Location(), time.UTC; got != want {
			t.Errorf("created location: got %v, want %v", got, want)
		}
		if a.Requirements != nil {
			t.Errorf("requirements without include: got %+v, want absent", a.Requirements)
		}
		if a.Configuration != nil {
			t.Errorf("configuration without include: got %+v, want absent", a.Configuration)
		}
		if a.LastResponse == nil || !strings.HasPrefix(a.LastResponse.RequestID, "req_") {
			t.Errorf("request id: got %+v, want req_...", a.LastResponse)
		}
	})

	// checkIncluded asserts the requirements and recipient configuration sections.
	checkIncluded := func(t *testing.T, a *stripe.V2CoreAccount) {
		t.Helper()
		if a.Requirements == nil {
			t.Fatalf("requirements: got none, want included")
		}
		if len(a.Requirements.Entries) == 0 {
			t.Errorf("requirements.entries: got none, want what onboarding must still collect")
		}
		descs := []string{}
		for _, e := range a.Requirements.Entries {
			descs = append(descs, e.Description)
		}
		// The account has a display name and contact email, so those are not required.
		for _, have := range []string{"display_name", "contact_email"} {
			if slices.Contains(descs, have) {
				t.Errorf("requirements.entries: got %v, want no %s (it was given)", descs, have)
			}
		}
		if a.Configuration == nil || a.Configuration.Recipient == nil {
			t.Fatalf("configuration.recipient: got %+v, want included", a.Configuration)
		}
		r := a.Configuration.Recipient
		if got, want := r.Applied, true; got != want {
			t.Errorf("configuration.recipient.applied: got %v, want %v", got, want)
		}
		if r.Capabilities == nil || r.Capabilities.StripeBalance == nil || r.Capabilities.StripeBalance.StripeTransfers == nil {
			t.Fatalf("configuration.recipient.capabilities.stripe_balance.stripe_transfers: got %+v, want present", r.Capabilities)
		}
		st := r.Capabilities.StripeBalance.StripeTransfers
		if got, want := st.Status, stripe.V2CoreAccountConfigurationRecipientCapabilitiesStripeBalanceStripeTransfersStatusRestricted; got != want {
			t.Errorf("stripe_transfers.status: got %q, want %q", got, want)
		}
		if len(st.StatusDetails) == 0 {
			t.Errorf("stripe_transfers.status_details: got none, want a reason for restricted")
		}
	}

	t.Run("CreateAccountInclude", func(t *testing.T) {
		p := recipientParams("Include Me")
		p.Include = stripe.StringSlice([]string{"requirements", "configuration.recipient"})
		a, err := client.V2CoreAccounts.Create(ctx, p)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		checkIncluded(t, a)

		got, err := client.V2CoreAccounts.Retrieve(ctx, a.ID, &stripe.V2CoreAccountRetrieveParams{
			Include: stripe.StringSlice([]string{"requirements", "configuration.recipient"}),
		})
		if err != nil {
			t.Fatalf("retrieve: %v", err)
		}
		checkIncluded(t, got)
	})

	t.Run("RetrieveAndList", func(t *testing.T) {
		a := createRecipient(t, client, "Listed Account")
		got, err := client.V2CoreAccounts.Retrieve(ctx, a.ID, nil)
		if err != nil {
			t.Fatalf("retrieve: %v", err)
		}
		if got.ID != a.ID || got.Object != a.Object || !got.Created.Equal(a.Created) || got.DisplayName != a.DisplayName ||
			got.ContactEmail != a.ContactEmail || !slices.Equal(got.AppliedConfigurations, a.AppliedConfigurations) || got.Livemode != a.Livemode {
			t.Errorf("retrieve: got %+v, want %+v", got, a)
		}

		// More accounts after it, and a page size of 1, so that the iterator must follow
		// next_page_url to reach it (the list is newest first).
		for i := range 2 {
			createRecipient(t, client, fmt.Sprintf("Later Account %d", i))
		}
		seen := map[string]bool{}
		found := false
		n := 0
		for acct, err := range client.V2CoreAccounts.List(ctx, &stripe.V2CoreAccountListParams{Limit: stripe.Int64(1)}).All(ctx) {
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			n++
			if seen[acct.ID] {
				t.Fatalf("list: got %s twice", acct.ID)
			}
			seen[acct.ID] = true
			if acct.Livemode {
				t.Errorf("list with a test key: got live account %s", acct.ID)
			}
			if acct.ID == a.ID {
				found = true
				if got, want := acct.DisplayName, "Listed Account"; got != want {
					t.Errorf("listed display_name: got %q, want %q", got, want)
				}
			}
			if n > 1000 {
				t.Fatalf("list: more than 1000 accounts, pagination does not end")
			}
		}
		if !found {
			t.Errorf("list: got %d accounts without %s, want it listed", n, a.ID)
		}
		if n < 3 {
			t.Errorf("list: got %d accounts, want at least 3", n)
		}
	})

	t.Run("CreateAccountLink", func(t *testing.T) {
		a := createRecipient(t, client, "Linked Account")
		l, err := client.V2CoreAccountLinks.Create(ctx, onboardingLinkParams(a.ID, "recipient"))
		if err != nil {
			t.Fatalf("create link: %v", err)
		}
		if got, want := l.Object, "v2.core.account_link"; got != want {
			t.Errorf("object: got %q, want %q", got, want)
		}
		if got, want := l.Account, a.ID; got != want {
			t.Errorf("account: got %q, want %q", got, want)
		}
		if got, want := l.Livemode, false; got != want {
			t.Errorf("livemode: got %v, want %v", got, want)
		}
		prefix := srv.URL + "/r/" + a.ID + "/"
		if got := l.URL; !strings.HasPrefix(got, prefix) || len(got) == len(prefix) {
			t.Errorf("url: got %q, want %s<token>", got, prefix)
		}
		if got, want := l.ExpiresAt.Sub(l.Created), 10*time.Minute; got != want {
			t.Errorf("expires_at - created: got %v, want %v", got, want)
		}
		if got := l.Created; time.Since(got) > time.Minute || time.Until(got) > time.Minute {
			t.Errorf("created: got %v, want within a minute of now", got)
		}
		uc := l.UseCase
		if uc == nil {
			t.Fatalf("use_case: got none")
		}
		if got, want := uc.Type, stripe.V2CoreAccountLinkUseCaseTypeAccountOnboarding; got != want {
			t.Errorf("use_case.type: got %q, want %q", got, want)
		}
		if uc.AccountUpdate != nil {
			t.Errorf("use_case.account_update: got %+v, want absent", uc.AccountUpdate)
		}
		ob := uc.AccountOnboarding
		if ob == nil {
			t.Fatalf("use_case.account_onboarding: got none")
		}
		if got, want := ob.Configurations, []stripe.V2CoreAccountLinkUseCaseAccountOnboardingConfiguration{stripe.V2CoreAccountLinkUseCaseAccountOnboardingConfigurationRecipient}; !slices.Equal(got, want) {
			t.Errorf("use_case.account_onboarding.configurations: got %v, want %v", got, want)
		}
		if got, want := ob.RefreshURL, "https://platform.example.com/refresh"; got != want {
			t.Errorf("refresh_url: got %q, want %q", got, want)
		}
		if got, want := ob.ReturnURL, "https://platform.example.com/return"; got != want {
			t.Errorf("return_url: got %q, want %q", got, want)
		}
		if ob.CollectionOptions == nil {
			t.Fatalf("collection_options: got none, want defaults filled in")
		}
		if got, want := ob.CollectionOptions.Fields, stripe.V2CoreAccountLinkUseCaseAccountOnboardingCollectionOptionsFieldsCurrentlyDue; got != want {
			t.Errorf("collection_options.fields: got %q, want %q", got, want)
		}
		if got, want := ob.CollectionOptions.FutureRequirements, stripe.V2CoreAccountLinkUseCaseAccountOnboardingCollectionOptionsFutureRequirementsOmit; got != want {
			t.Errorf("collection_options.future_requirements: got %q, want %q", got, want)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		t.Run("UnknownAccount", func(t *testing.T) {
			_, err := client.V2CoreAccountLinks.Create(ctx, onboardingLinkParams("acct_doesnotexist1234567", "recipient"))
			e := v2Error(t, err, http.StatusNotFound, "not_found")
			if e.Message == "" {
				t.Errorf("message: got empty, want one")
			}
		})
		t.Run("ConfigurationsMustMatch", func(t *testing.T) {
			a := createRecipient(t, client, "Recipient Only")
			_, err := client.V2CoreAccountLinks.Create(ctx, onboardingLinkParams(a.ID, "merchant"))
			e := v2Error(t, err, http.StatusBadRequest, "configs_must_match_to_use_account_links")
			if got, want := e.Message, "The configurations in the request must match the applied configurations on the account in order to use v2/core/account_links."; got != want {
				t.Errorf("message: got %q, want %q", got, want)
			}
			if got, want := errorType(e), "invalid_request_error"; got != want {
				t.Errorf("type: got %q, want %q", got, want)
			}
		})
		t.Run("RefreshURLLeftUnset", func(t *testing.T) {
			// stripe-go writes a required field its caller left unset as null: the error is
			// the one for a field not given.
			a := createRecipient(t, client, "No Refresh")
			p := onboardingLinkParams(a.ID, "recipient")
			p.UseCase.AccountOnboarding.RefreshURL = nil
			_, err := client.V2CoreAccountLinks.Create(ctx, p)
			e := v2Error(t, err, http.StatusBadRequest, "parameter_missing")
			if got, want := e.Message, "use_case.account_onboarding.refresh_url: required request field missing"; got != want {
				t.Errorf("message: got %q, want %q", got, want)
			}
		})
		t.Run("AccountsV2Blocked", func(t *testing.T) {
			blocked := newSDKClient(t, srv, "sk_test_blocked123")
			_, err := blocked.V2CoreAccountLinks.Create(ctx, onboardingLinkParams("acct_doesnotexist1234567", "recipient"))
			e := v2Error(t, err, http.StatusBadRequest, "accounts_v2_access_blocked")
			if got, want := e.Message, "Accounts v2 is not enabled for your platform."; got != want {
				t.Errorf("message: got %q, want %q", got, want)
			}
		})
		t.Run("InvalidKey", func(t *testing.T) {
			const key = "sk_test_abc-123xyz" // not the shape of a key
			bad := newSDKClient(t, srv, key)
			_, err := bad.V2CoreAccounts.Create(ctx, recipientParams("Nobody"))
			e := v2Error(t, err, http.StatusUnauthorized, "")
			if got, want := errorType(e), "invalid_request_error"; got != want {
				t.Errorf("type: got %q, want %q", got, want)
			}
			if got, want := e.Message, "Invalid API Key provided: sk_test_****3xyz"; got != want {
				t.Errorf("message: got %q, want %q", got, want)
			}
			if strings.Contains(e.Message, key) || strings.Contains(err.Error(), key) {
				t.Errorf("error: got %q, want the key masked", err)
			}
			_, err = bad.V2CoreAccountLinks.Create(ctx, onboardingLinkParams("acct_doesnotexist1234567", "recipient"))
			v2Error(t, err, http.StatusUnauthorized, "")
		})
	})

	t.Run("ServiceVersionRequired", func(t *testing.T) {
		// Without our transport the SDK sends only its own Stripe-Version, which the server
		// does not take for Service-Version.
		plain := stripe.NewClient("sk_test_sdk4242", stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
			URL:               stripe.String(srv.URL),
			HTTPClient:        &http.Client{Timeout: 30 * time.Second},
			MaxNetworkRetries: stripe.Int64(0),
			EnableTelemetry:   stripe.Bool(false),
			LeveledLogger:     sdkLogger{t: t},
		})))
		_, err := plain.V2CoreAccounts.Create(ctx, recipientParams("No Version"))
		e := v2Error(t, err, http.StatusBadRequest, "parameter_missing")
		if !strings.Contains(e.Message, "Service-Version") || !strings.Contains(e.Message, sdkServiceVersion) {
			t.Errorf("message: got %q, want it to name Service-Version and %s", e.Message, sdkServiceVersion)
		}
	})

	t.Run("Idempotency", func(t *testing.T) {
		key := fmt.Sprintf("sdk-idem-%d", time.Now().UnixNano())
		p1 := recipientParams("Idempotent Account")
		p1.SetIdempotencyKey(key)
		first, err := client.V2CoreAccounts.Create(ctx, p1)
		if err != nil {
			t.Fatalf("first create: %v", err)
		}
		p2 := recipientParams("Idempotent Account")
		p2.SetIdempotencyKey(key)
		second, err := client.V2CoreAccounts.Create(ctx, p2)
		if err != nil {
			t.Fatalf("retry: %v", err)
		}
		if got, want := second.ID, first.ID; got != want {
			t.Errorf("retry with the same key and params: got account %s, want %s", got, want)
		}
		if got, want := second.LastResponse.StatusCode, first.LastResponse.StatusCode; got != want {
			t.Errorf("retry status: got %d, want %d", got, want)
		}

		p3 := recipientParams("Another Name")
		p3.SetIdempotencyKey(key)
		_, err = client.V2CoreAccounts.Create(ctx, p3)
		e := v2Error(t, err, http.StatusBadRequest, "")
		if got, want := errorType(e), string(stripe.ErrorTypeIdempotency); got != want {
			t.Errorf("type: got %q, want %q", got, want)
		}
		if !strings.Contains(e.Message, key) {
			t.Errorf("message: got %q, want it to name the key %q", e.Message, key)
		}
	})

	t.Run("LiveKey", func(t *testing.T) {
		live := newSDKClient(t, srv, "sk_live_abc123")
		a, err := live.V2CoreAccounts.Create(ctx, recipientParams("Live Account"))
		if err != nil {
			t.Fatalf("create with a live key: %v", err)
		}
		if got, want := a.Livemode, true; got != want {
			t.Errorf("livemode: got %v, want %v", got, want)
		}
		got, err := live.V2CoreAccounts.Retrieve(ctx, a.ID, nil)
		if err != nil {
			t.Fatalf("retrieve with the live key: %v", err)
		}
		if got.ID != a.ID || !got.Livemode {
			t.Errorf("retrieve with the live key: got %s livemode %v, want %s livemode true", got.ID, got.Livemode, a.ID)
		}
		_, err = client.V2CoreAccounts.Retrieve(ctx, a.ID, nil)
		v2Error(t, err, http.StatusNotFound, "not_found")

		_, err = client.V2CoreAccountLinks.Create(ctx, onboardingLinkParams(a.ID, "recipient"))
		v2Error(t, err, http.StatusNotFound, "not_found")

		for acct, err := range client.V2CoreAccounts.List(ctx, nil).All(ctx) {
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			if acct.ID == a.ID {
				t.Errorf("list with the test key: got live account %s", a.ID)
			}
		}
	})
}

func TestSDKRateLimit(t *testing.T) {
	srv := startSDKServer(t, func(c *server.Config) {
		c.Accounts.UpdateLatency = 300 * time.Millisecond
	})
	client := newSDKClient(t, srv, "sk_test_sdkratelimit")
	ctx := context.Background()
	a := createRecipient(t, client, "Busy Account")

	const n = 5
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		links = make([]*stripe.V2CoreAccountLink, n)
		errs  = make([]error, n)
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			links[i], errs[i] = client.V2CoreAccountLinks.Create(ctx, onboardingLinkParams(a.ID, "recipient"))
		}()
	}
	close(start)
	wg.Wait()

	ok, limited := 0, 0
	for i, err := range errs {
		if err == nil {
			ok++
			if got, want := links[i].Account, a.ID; got != want {
				t.Errorf("link %d account: got %q, want %q", i, got, want)
			}
			continue
		}
		var rl *stripe.RateLimitError
		if !errors.As(err, &rl) {
			t.Errorf("request %d: got error %T (%v), want *stripe.RateLimitError", i, err, err)
			continue
		}
		limited++
		if got, want := rl.Code, "account_rate_limit_exceeded"; got != want {
			t.Errorf("request %d code: got %q, want %q", i, got, want)
		}
		if got, want := rl.Type, stripe.ErrorTypeRateLimit; got != want {
			t.Errorf("request %d type: got %q, want %q", i, got, want)
		}
		if got, want := rl.Message, "Account cannot exceed a configured concurrency rate limit on updates."; got != want {
			t.Errorf("request %d message: got %q, want %q", i, got, want)
		}
		if rl.LastResponse == nil {
			t.Errorf("request %d: got no response on the error", i)
		} else if got, want := rl.LastResponse.StatusCode, http.StatusTooManyRequests; got != want {
			t.Errorf("request %d status: got %d, want %d", i, got, want)
		}
	}
	if ok != 1 || limited != n-1 {
		t.Errorf("concurrent link creations: got %d succeeded and %d rate limited, want 1 and %d", ok, limited, n-1)
	}

	// Once the first is done, the account takes updates again.
	if _, err := client.V2CoreAccountLinks.Create(ctx, onboardingLinkParams(a.ID, "recipient")); err != nil {
		t.Errorf("link after the burst: %v", err)
	}
}

// TestSDKListFilters: stripe-go's list filters (applied_configurations, sent indexed, and
// closed) narrow the list, and its iterator, following next_page_url with no parameters of
// its own, keeps them from page to page.
func TestSDKListFilters(t *testing.T) {
	srv := startSDKServer(t, nil)
	client := newSDKClient(t, srv, "sk_test_sdkfilters42")
	ctx := context.Background()
	var recipients []string
	for i := range 3 {
		recipients = append([]string{createRecipient(t, client, fmt.Sprintf("Recipient %d", i)).ID}, recipients...) // newest first
		merchant := &stripe.V2CoreAccountCreateParams{Configuration: &stripe.V2CoreAccountCreateConfigurationParams{
			Merchant: &stripe.V2CoreAccountCreateConfigurationMerchantParams{}}}
		if _, err := client.V2CoreAccounts.Create(ctx, merchant); err != nil {
			t.Fatalf("create merchant: %v", err)
		}
	}
	list := func(p *stripe.V2CoreAccountListParams) []string {
		t.Helper()
		var ids []string
		for acct, err := range client.V2CoreAccounts.List(ctx, p).All(ctx) {
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			if len(ids) > 100 {
				t.Fatal("list: pagination does not end")
			}
			ids = append(ids, acct.ID)
		}
		return ids
	}
	got := list(&stripe.V2CoreAccountListParams{Limit: stripe.Int64(1), AppliedConfigurations: stripe.StringSlice([]string{"recipient"})})
	if !slices.Equal(got, recipients) {
		t.Errorf("recipients, a page at a time: got %v, want %v", got, recipients)
	}
	if got := list(&stripe.V2CoreAccountListParams{Closed: stripe.Bool(false)}); len(got) != 6 {
		t.Errorf("open accounts: got %d, want all 6", len(got))
	}
	if got := list(&stripe.V2CoreAccountListParams{Closed: stripe.Bool(true)}); len(got) != 0 {
		t.Errorf("closed accounts: got %v, want none", got)
	}
}

// TestSDKUpdateAndClose: stripe-go's Update (a metadata key removed with a nil value, a
// configuration added) and Close (naming the account's configurations), and the closed
// account in its list filter.
func TestSDKUpdateAndClose(t *testing.T) {
	srv := startSDKServer(t, nil)
	client := newSDKClient(t, srv, "sk_test_sdkupdateclose")
	ctx := context.Background()
	create := recipientParams("Jenny Rosen")
	create.AddMetadata("order_id", "6735")
	create.AddMetadata("stale", "yes")
	a, err := client.V2CoreAccounts.Create(ctx, create)
	if err != nil {
		t.Fatalf("create: %v", err)
	}

	update := &stripe.V2CoreAccountUpdateParams{
		DisplayName: stripe.String("Jenny R."),
		Identity:    &stripe.V2CoreAccountUpdateIdentityParams{Country: stripe.String("US"), EntityType: stripe.String("individual")},
		Configuration: &stripe.V2CoreAccountUpdateConfigurationParams{Merchant: &stripe.V2CoreAccountUpdateConfigurationMerchantParams{
			Capabilities: &stripe.V2CoreAccountUpdateConfigurationMerchantCapabilitiesParams{
				CardPayments: &stripe.V2CoreAccountUpdateConfigurationMerchantCapabilitiesCardPaymentsParams{Requested: stripe.Bool(true)}}}},
		Include: stripe.StringSlice([]string{"identity", "configuration.merchant"}),
	}
	update.AddMetadata("stale", nil)
	update.AddMetadata("region", stripe.String("emea"))
	got, err := client.V2CoreAccounts.Update(ctx, a.ID, update)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if got.DisplayName != "Jenny R." || got.Identity == nil || got.Identity.Country != "US" {
		t.Errorf("updated: display name %q, identity %+v", got.DisplayName, got.Identity)
	}
	if want := map[string]string{"order_id": "6735", "region": "emea"}; !maps.Equal(got.Metadata, want) {
		t.Errorf("metadata: got %v, want %v", got.Metadata, want)
	}
	if !slices.Equal(got.AppliedConfigurations, []stripe.V2CoreAccountAppliedConfiguration{"merchant", "recipient"}) {
		t.Errorf("applied configurations: got %v", got.AppliedConfigurations)
	}
	if got.Configuration == nil || got.Configuration.Merchant == nil || got.Configuration.Merchant.Capabilities == nil ||
		got.Configuration.Merchant.Capabilities.CardPayments == nil || got.Configuration.Merchant.Capabilities.CardPayments.Status != "restricted" {
		t.Errorf("merchant configuration: got %+v, want card_payments restricted", got.Configuration)
	}

	_, err = client.V2CoreAccounts.Close(ctx, a.ID, &stripe.V2CoreAccountCloseParams{AppliedConfigurations: stripe.StringSlice([]string{"recipient"})})
	v2Error(t, err, http.StatusBadRequest, "configs_must_match_to_close")
	closed, err := client.V2CoreAccounts.Close(ctx, a.ID, &stripe.V2CoreAccountCloseParams{AppliedConfigurations: stripe.StringSlice([]string{"merchant", "recipient"})})
	if err != nil {
		t.Fatalf("close: %v", err)
	}
	if !closed.Closed || closed.ContactEmail != "" || closed.Identity != nil {
		t.Errorf("closed account: %+v, want closed without contact details or identity", closed)
	}
	_, err = client.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{DisplayName: stripe.String("Again")})
	v2Error(t, err, http.StatusBadRequest, "account_closed")

	var listed []string
	for acct, err := range client.V2CoreAccounts.List(ctx, &stripe.V2CoreAccountListParams{Closed: stripe.Bool(true)}).All(ctx) {
		if err != nil {
			t.Fatalf("list closed: %v", err)
		}
		listed = append(listed, acct.ID)
	}
	if !slices.Equal(listed, []string{a.ID}) {
		t.Errorf("closed accounts: got %v, want [%s]", listed, a.ID)
	}
}
