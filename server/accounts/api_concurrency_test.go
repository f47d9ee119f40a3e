package accounts_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/accounts"
)

// race runs n calls of f at the same instant and returns their statuses.
func race(n int, f func(i int) int) []int {
	statuses := make([]int, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		ready.Add(1)
		done.Add(1)
		go func(i int) {
			defer done.Done()
			ready.Done()
			<-start
			statuses[i] = f(i)
		}(i)
	}
	ready.Wait()
	close(start)
	done.Wait()
	return statuses
}

func count(statuses []int) map[int]int {
	m := map[int]int{}
	for _, s := range statuses {
		m[s]++
	}
	return m
}

func TestPerAccountConcurrencyLimit(t *testing.T) {
	for _, limit := range []int{1, 2} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			e := newAPIEnv(t, func(c *server.Config) {
				c.Accounts.UpdateLatency = 300 * time.Millisecond
				c.Accounts.AccountConcurrency = limit
			})
			c := e.client(apiTestKey)
			a := apiCreateAccount(t, c, recipientAccount())
			var mu sync.Mutex
			var bodies [][]byte
			got := count(race(6, func(int) int {
				resp := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), nil)
				if resp.StatusCode() == http.StatusTooManyRequests {
					mu.Lock()
					bodies = append(bodies, resp.Body)
					mu.Unlock()
				}
				return resp.StatusCode()
			}))
			if got[200] != limit || got[429] != 6-limit {
				t.Fatalf("statuses %v, want %d x 200 and %d x 429", got, limit, 6-limit)
			}
			e2 := wantAPIError(t, 429, bodies[0], 429, "rate_limit", "account_rate_limit_exceeded")
			if e2.Message != "Account cannot exceed a configured concurrency rate limit on updates." {
				t.Errorf("message = %q", e2.Message)
			}
		})
	}
	t.Run("accounts do not share a limit", func(t *testing.T) {
		e := newAPIEnv(t, func(c *server.Config) { c.Accounts.UpdateLatency = 200 * time.Millisecond })
		c := e.client(apiTestKey)
		ids := []string{apiCreateAccount(t, c, recipientAccount()).Id, apiCreateAccount(t, c, recipientAccount()).Id}
		got := count(race(2, func(i int) int {
			return apiCreateLink(t, c, onboardingLink(ids[i], gen.ConfigurationTypeRecipient), nil).StatusCode()
		}))
		if got[200] != 2 {
			t.Fatalf("statuses %v, want both 200", got)
		}
	})
	t.Run("the configuration check comes before the limit", func(t *testing.T) {
		e := newAPIEnv(t, func(c *server.Config) { c.Accounts.UpdateLatency = 1500 * time.Millisecond })
		c := e.client(apiTestKey)
		a := apiCreateAccount(t, c, recipientAccount())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), nil)
		}()
		time.Sleep(400 * time.Millisecond) // the first holds the account now (margins for busy machines)
		resp := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeMerchant), nil)
		wantAPIError(t, resp.StatusCode(), resp.Body, 400, "invalid_request_error", "configs_must_match_to_use_account_links")
		wg.Wait()
	})
}

func TestIdempotency(t *testing.T) {
	clk := newAPIClock()
	e := newAPIEnv(t, func(c *server.Config) { c.Now = clk.Now })
	c := e.client(apiTestKey)
	create := func(client *gen.ClientWithResponses, key string, body gen.CreateAccountRequest) *gen.CreateAccountResponse {
		resp, err := client.CreateAccountWithResponse(apiCtx, &gen.CreateAccountParams{ServiceVersion: apiVersion, IdempotencyKey: &key}, body)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	listed := func(client *gen.ClientWithResponses) int {
		limit := gen.Limit(100)
		resp, _ := client.ListAccountsWithResponse(apiCtx, &gen.ListAccountsParams{ServiceVersion: apiVersion, Limit: &limit})
		return len(resp.JSON200.Data)
	}

	first := create(c, "key-1", recipientAccount())
	again := create(c, "key-1", recipientAccount())
	if first.StatusCode() != 200 || again.StatusCode() != 200 || again.JSON200.Id != first.JSON200.Id {
		t.Fatalf("replay: %d %s / %d %s, want the same account twice", first.StatusCode(), first.Body, again.StatusCode(), again.Body)
	}
	if n := listed(c); n != 1 {
		t.Fatalf("%d accounts after a replay, want 1", n)
	}

	t.Run("another body with the same key", func(t *testing.T) {
		other := recipientAccount()
		other.DisplayName = ptr("someone else")
		resp := create(c, "key-1", other)
		got := wantAPIError(t, resp.StatusCode(), resp.Body, 400, "idempotency_error", "")
		if got.Message == "" || listed(c) != 1 {
			t.Errorf("message %q, accounts %d", got.Message, listed(c))
		}
	})
	t.Run("keys belong to a platform and mode", func(t *testing.T) {
		live := create(e.client(apiLiveKey), "key-1", recipientAccount())
		if live.StatusCode() != 200 || live.JSON200.Id == first.JSON200.Id || !live.JSON200.Livemode {
			t.Errorf("live mode with the same key: %s", live.Body)
		}
	})
	t.Run("racing requests with one key create one account", func(t *testing.T) {
		var mu sync.Mutex
		ids := map[string]bool{}
		got := count(race(16, func(int) int {
			resp := create(c, "key-race", recipientAccount())
			if resp.StatusCode() == 200 {
				mu.Lock()
				ids[resp.JSON200.Id] = true
				mu.Unlock()
			}
			return resp.StatusCode()
		}))
		if len(ids) != 1 || got[200]+got[409] != 16 {
			t.Fatalf("statuses %v, %d distinct accounts: want one account, the rest replays or 409", got, len(ids))
		}
		if n := listed(c); n != 2 {
			t.Errorf("%d accounts, want 2", n)
		}
	})
	t.Run("a key is bound to its first endpoint", func(t *testing.T) {
		// Stripe's idempotency_error: "an Idempotency-Key is re-used on a request that does
		// not match the first request's API endpoint and parameters".
		link := apiCreateLink(t, c, onboardingLink(first.JSON200.Id, gen.ConfigurationTypeRecipient), ptr("key-1"))
		got := wantAPIError(t, link.StatusCode(), link.Body, 400, "idempotency_error", "")
		want := "Keys for idempotent requests can only be used for the same endpoint they were first used for ('/v2/core/account_links' vs '/v2/core/accounts'). Try using a key other than 'key-1' if you meant to execute a different request."
		if got.Message != want {
			t.Errorf("message %q, want %q", got.Message, want)
		}
		// The same operation on another account is another endpoint too.
		second := create(c, "key-2", recipientAccount())
		if r := apiUpdateAccount(t, c, first.JSON200.Id, ptr("key-update"), gen.UpdateAccountRequest{DisplayName: nullable.NewNullableWithValue("one")}); r.StatusCode() != 200 {
			t.Fatalf("update: %d %s", r.StatusCode(), r.Body)
		}
		r := apiUpdateAccount(t, c, second.JSON200.Id, ptr("key-update"), gen.UpdateAccountRequest{DisplayName: nullable.NewNullableWithValue("one")})
		got = wantAPIError(t, r.StatusCode(), r.Body, 400, "idempotency_error", "")
		if !strings.Contains(got.Message, "('/v2/core/accounts/"+second.JSON200.Id+"' vs '/v2/core/accounts/"+first.JSON200.Id+"')") {
			t.Errorf("message %q", got.Message)
		}
	})
	t.Run("a key is forgotten after the window", func(t *testing.T) {
		clk.Advance(30*24*time.Hour + time.Second)
		resp := create(c, "key-1", recipientAccount())
		if resp.StatusCode() != 200 || resp.JSON200.Id == first.JSON200.Id {
			t.Errorf("after the window: %s, want a new account", resp.Body)
		}
	})
}

// TestDeleteIdempotency: the v2 SDKs send an Idempotency-Key with every DELETE, as with
// every POST (stripe-node "always creates an idempotency key for v2 DELETE requests",
// stripe-go's isHTTPWriteMethod), so that a DELETE retried after a lost answer is not
// performed again: with API v2 "retries don't repeat successful operations". A retry with
// the key answers what the delete did, not 404, and the key is bound to its endpoint.
func TestDeleteIdempotency(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	send := func(method, path, key, body string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+apiTestKey)
		req.Header.Set("Service-Version", apiVersion)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, []byte(readBody(resp))
	}
	created := func(path, body string) string {
		t.Helper()
		resp, out := send(http.MethodPost, path, "", body)
		var obj struct{ ID string }
		if resp.StatusCode != http.StatusOK || json.Unmarshal(out, &obj) != nil {
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, out)
		}
		return obj.ID
	}
	acct := apiCreateAccount(t, c, recipientAccount())
	persons := "/v2/core/accounts/" + acct.Id + "/persons"
	ada := created(persons, `{"given_name":"Ada"}`)
	bob := created(persons, `{"given_name":"Bob"}`)
	persons += "/"
	dest := created("/v2/core/event_destinations", `{"name":"d","type":"webhook_endpoint","event_payload":"thin","enabled_events":["v2.core.account.created"],"webhook_endpoint":{"url":"https://platform.example/hook"}}`)

	for _, tc := range []struct{ path, object string }{
		{persons + ada, "v2.core.account_person"},
		{"/v2/core/event_destinations/" + dest, "v2.core.event_destination"},
	} {
		key := "delete-" + tc.object
		want := fmt.Sprintf(`{"id":%q,"object":%q}`, tc.path[strings.LastIndex(tc.path, "/")+1:], tc.object)
		first, body := send(http.MethodDelete, tc.path, key, "")
		if first.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != want || first.Header.Get("Idempotency-Key") != key {
			t.Fatalf("DELETE %s: %d %s (Idempotency-Key %q)", tc.path, first.StatusCode, body, first.Header.Get("Idempotency-Key"))
		}
		retry, body := send(http.MethodDelete, tc.path, key, "")
		if retry.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != want || retry.Header.Get("Idempotency-Key") != key {
			t.Errorf("DELETE %s retried with its key: %d %s, want 200 %s", tc.path, retry.StatusCode, body, want)
		}
		again, body := send(http.MethodDelete, tc.path, "", "")
		wantAPIError(t, again.StatusCode, body, http.StatusNotFound, "invalid_request_error", "not_found")
	}

	// The key is bound to the first DELETE: another person's, or an update of that path, is
	// another endpoint.
	key := "delete-v2.core.account_person"
	other, body := send(http.MethodDelete, persons+bob, key, "")
	wantAPIError(t, other.StatusCode, body, http.StatusBadRequest, "idempotency_error", "")
	update, body := send(http.MethodPost, persons+ada, key, `{"given_name":"Ada"}`)
	if got := wantAPIError(t, update.StatusCode, body, http.StatusBadRequest, "idempotency_error", ""); !strings.Contains(got.Message, "same endpoint") {
		t.Errorf("an update with a delete's key: %q", got.Message)
	}
	if resp, body := send(http.MethodGet, persons+bob, "", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("the other person after a delete refused: %d %s", resp.StatusCode, body)
	}

	// The deletion's event names the request with its key.
	events, body := send(http.MethodGet, "/v2/core/events?object_id="+ada+"&types=v2.core.account_person.deleted", "", "")
	var list struct {
		Data []struct {
			Reason struct {
				Request struct {
					IdempotencyKey *string `json:"idempotency_key"`
				}
			}
		}
	}
	if events.StatusCode != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list.Data) != 1 {
		t.Fatalf("the deletion's events: %d %s", events.StatusCode, body)
	}
	if got := list.Data[0].Reason.Request.IdempotencyKey; got == nil || *got != key {
		t.Errorf("reason.request.idempotency_key %v, want %q", got, key)
	}
}

func TestIdempotencyWhileInFlightAndAfterFailure(t *testing.T) {
	// Wide margins: the first request must still be in flight when the second arrives, even
	// on a busy machine.
	e := newAPIEnv(t, func(c *server.Config) { c.Accounts.UpdateLatency = 1500 * time.Millisecond })
	c := e.client(apiTestKey)
	a := apiCreateAccount(t, c, recipientAccount())
	key := "link-key"

	var first *gen.CreateAccountLinkResponse
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		first = apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), &key)
	}()
	time.Sleep(400 * time.Millisecond)
	inFlight := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), &key)
	wantAPIError(t, inFlight.StatusCode(), inFlight.Body, 409, "invalid_request_error", "idempotency_key_in_use")
	wg.Wait()
	if first.StatusCode() != 200 {
		t.Fatalf("first: %d %s", first.StatusCode(), first.Body)
	}
	replay := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), &key)
	if replay.StatusCode() != 200 || replay.JSON200.Url != first.JSON200.Url || replay.JSON200.ExpiresAt != first.JSON200.ExpiresAt {
		t.Fatalf("replay: %s, want the first link again", replay.Body)
	}

	// A request that failed is not remembered: the same key runs again once it can succeed.
	other := "retry-key"
	wg.Add(1)
	go func() {
		defer wg.Done()
		apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), nil)
	}()
	time.Sleep(400 * time.Millisecond)
	limited := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), &other)
	wantAPIError(t, limited.StatusCode(), limited.Body, 429, "rate_limit", "account_rate_limit_exceeded")
	wg.Wait()
	retried := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), &other)
	if retried.StatusCode() != 200 {
		t.Fatalf("retry after a failure: %d %s, want it to run again", retried.StatusCode(), retried.Body)
	}
}

// TestIdempotencyAcrossReset: a reset goes back to the seeded state, which remembers no
// Idempotency-Key, even the key of a request running across it: that request's result is
// not remembered after the reset, or a retry could be answered with a link the reset had
// removed, every member empty.
func TestIdempotencyAcrossReset(t *testing.T) {
	const seeded = "acct_1SeededForReset01"
	e := newAPIEnv(t, func(c *server.Config) {
		c.Accounts.UpdateLatency = time.Second
		c.Accounts.Accounts = []accounts.SeedAccount{{Body: map[string]any{"id": seeded,
			"configuration": map[string]any{"recipient": map[string]any{}}}}}
	})
	c := e.client(apiTestKey)
	// The API parses its spec on its first request, which under -race on a busy machine can
	// take most of the margin below: the timed requests come after one that has done it.
	if r, err := c.RetrieveAccountWithResponse(apiCtx, seeded, &gen.RetrieveAccountParams{ServiceVersion: apiVersion}); err != nil || r.StatusCode() != http.StatusOK {
		t.Fatalf("retrieve: %v %v", err, r)
	}
	key := "across-reset"
	var first *gen.CreateAccountLinkResponse
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		first = apiCreateLink(t, c, onboardingLink(seeded, gen.ConfigurationTypeRecipient), &key)
	}()
	time.Sleep(300 * time.Millisecond) // the first holds the account now (margins for busy machines)
	e.srv.Reset(t)
	wg.Wait()
	if first.StatusCode() != http.StatusOK {
		t.Fatalf("first: %d %s", first.StatusCode(), first.Body)
	}
	other := onboardingLink(seeded, gen.ConfigurationTypeRecipient)
	other.UseCase.AccountOnboarding.RefreshUrl = "https://platform.example/refresh-again"
	second := apiCreateLink(t, c, other, &key)
	if second.StatusCode() != http.StatusOK || second.JSON200.Url == first.JSON200.Url {
		t.Fatalf("the key after the reset, with another body: %d %s, want a new link", second.StatusCode(), second.Body)
	}
}
