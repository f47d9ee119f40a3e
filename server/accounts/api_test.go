package accounts_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/accounts"
)

func TestCreateAndRetrieveAccount(t *testing.T) {
	clk := newAPIClock()
	e := newAPIEnv(t, func(c *server.Config) { c.Now = clk.Now })
	c := e.client(apiTestKey)
	body := recipientAccount()
	body.DisplayName = ptr("Jenny Rosen")
	body.Metadata = &gen.Metadata{"order": "42"}
	body.Include = []gen.AccountInclude{gen.AccountIncludeRequirements, gen.AccountIncludeConfigurationRecipient}
	a := apiCreateAccount(t, c, body)

	if !strings.HasPrefix(a.Id, "acct_") || len(a.Id) < len("acct_")+16 {
		t.Errorf("id = %q, want acct_ and at least 16 alphanumerics", a.Id)
	}
	if a.Object != "v2.core.account" || a.Livemode || len(a.AppliedConfigurations) != 1 || a.AppliedConfigurations[0] != "recipient" {
		t.Errorf("account = %+v", a)
	}
	if a.Created != "2026-11-21T10:00:00.123Z" {
		t.Errorf("created = %q, want RFC 3339 UTC with milliseconds", a.Created)
	}
	if v, _ := a.DisplayName.Get(); v != "Jenny Rosen" || a.Metadata["order"] != "42" {
		t.Errorf("display_name %q, metadata %v", v, a.Metadata)
	}
	reqs, err := a.Requirements.Get()
	if err != nil {
		t.Fatalf("requirements not included: %v", err)
	}
	var fields []string
	for _, en := range reqs.Entries {
		fields = append(fields, deref(en.Description))
	}
	if got := strings.Join(fields, ","); got != "contact_email,identity.country,identity.entity_type,identity.attestations.terms_of_service.account" {
		t.Errorf("requirements = %s", got)
	}
	cfg, _ := a.Configuration.Get()
	rec := cfg.Recipient
	if rec == nil || rec.Applied == nil || !*rec.Applied || rec.Capabilities.StripeBalance.StripeTransfers == nil ||
		deref(rec.Capabilities.StripeBalance.StripeTransfers.Status) != gen.AccountCapabilityStatusRestricted {
		t.Errorf("recipient configuration = %+v", rec)
	}
	if !a.Identity.IsNull() || !a.FutureRequirements.IsNull() {
		t.Error("sections that were not included are not null")
	}
	if r := a.Defaults.Responsibilities; r.FeesCollector == "" || r.LossesCollector == "" || r.RequirementsCollector == "" {
		t.Errorf("defaults.responsibilities = %+v, want always present", r)
	}

	// Retrieve, with include in each spelling SDKs use.
	for _, q := range []string{"include=identity&include=requirements", "include[]=identity&include[]=requirements", "include[0]=identity&include[1]=requirements"} {
		got := apiGetRaw(t, e, a.Id, q)
		if !strings.Contains(got, `"identity":{}`) || !strings.Contains(got, `"requirements":{"entries":[`) || !strings.Contains(got, `"configuration":null`) {
			t.Errorf("retrieve with %s: %s", q, got)
		}
	}
	// future_requirements is its empty section whenever it is included, alone or with
	// sections that are derived, and null otherwise.
	for q, want := range map[string]string{
		"include=future_requirements":                      `"future_requirements":{"entries":[]}`,
		"include=future_requirements&include=identity":     `"future_requirements":{"entries":[]}`,
		"include=future_requirements&include=requirements": `"future_requirements":{"entries":[]}`,
		"include=requirements":                             `"future_requirements":null`,
		"include=identity&include=configuration.recipient": `"future_requirements":null`,
	} {
		if got := apiGetRaw(t, e, a.Id, q); !strings.Contains(got, want) {
			t.Errorf("retrieve with %s: want %s in %s", q, want, got)
		}
	}
}

func apiGetRaw(t *testing.T, e *apiEnv, id, query string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/v2/core/accounts/"+id+"?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+apiTestKey)
	req.Header.Set("Service-Version", apiVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readBody(resp)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", query, resp.StatusCode, body)
	}
	return body
}

func TestKeysAndModes(t *testing.T) {
	no := false
	e := newAPIEnv(t, func(c *server.Config) {
		c.Accounts.Platforms = []accounts.Platform{
			{ID: "platform_other", Keys: []string{"sk_test_otherPlatform1"}},
			{ID: "platform_blocked", AccountsV2: &no, Keys: []string{"sk_test_blockedPlatform1"}},
		}
	})
	test, live, other := e.client(apiTestKey), e.client(apiLiveKey), e.client("sk_test_otherPlatform1")
	ta := apiCreateAccount(t, test, recipientAccount())
	la := apiCreateAccount(t, live, recipientAccount())
	if ta.Livemode || !la.Livemode {
		t.Fatalf("livemode: test %v, live %v", ta.Livemode, la.Livemode)
	}
	params := &gen.RetrieveAccountParams{ServiceVersion: apiVersion}
	for _, tt := range []struct {
		name   string
		c      *gen.ClientWithResponses
		id     string
		status int
	}{
		{"test key reads its account", test, ta.Id, 200},
		{"test key cannot see live data", test, la.Id, 404},
		{"live key cannot see test data", live, ta.Id, 404},
		{"another platform cannot see it", other, ta.Id, 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tt.c.RetrieveAccountWithResponse(apiCtx, tt.id, params)
			if err != nil || resp.StatusCode() != tt.status {
				t.Fatalf("%v %d %s", err, resp.StatusCode(), resp.Body)
			}
			if tt.status == 404 {
				wantAPIError(t, resp.StatusCode(), resp.Body, 404, "invalid_request_error", "not_found")
			}
		})
	}
	t.Run("missing key", func(t *testing.T) {
		resp, _ := e.client("").RetrieveAccountWithResponse(apiCtx, ta.Id, params)
		got := wantAPIError(t, resp.StatusCode(), resp.Body, 401, "invalid_request_error", "")
		if !strings.Contains(got.Message, "did not provide an API key") {
			t.Errorf("message = %q", got.Message)
		}
	})
	t.Run("unknown key is masked", func(t *testing.T) {
		const secret = "sk_test_not-a-key-of-ours1234"
		resp, _ := e.client(secret).RetrieveAccountWithResponse(apiCtx, ta.Id, params)
		got := wantAPIError(t, resp.StatusCode(), resp.Body, 401, "invalid_request_error", "")
		if got.Message != "Invalid API Key provided: sk_test_****1234" || strings.Contains(string(resp.Body), secret) {
			t.Errorf("message = %q", got.Message)
		}
	})
	t.Run("a platform without Accounts v2", func(t *testing.T) {
		blocked := e.client("sk_test_blockedPlatform1")
		resp, _ := blocked.CreateAccountWithResponse(apiCtx, &gen.CreateAccountParams{ServiceVersion: apiVersion}, recipientAccount())
		wantAPIError(t, resp.StatusCode(), resp.Body, 400, "invalid_request_error", "accounts_v2_access_blocked")
	})
}

func TestServiceVersionAndRequestID(t *testing.T) {
	e := newAPIEnv(t)
	do := func(version string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/v2/core/accounts", nil)
		req.Header.Set("Authorization", "Bearer "+apiTestKey)
		if version != "" {
			req.Header.Set("Service-Version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	seen := map[string]bool{}
	for _, tt := range []struct {
		name, version string
		status        int
		mention       string
	}{
		{"missing", "", 400, "Service-Version"},
		{"unsupported", "2024-09-30.acacia", 400, "2026-05-27.dahlia"},
		{"malformed", "yesterday", 400, "Service-Version"},
		{"supported", apiVersion, 200, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(tt.version)
			body := readBody(resp)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.mention) {
				t.Errorf("%d %s, want %d mentioning %q", resp.StatusCode, body, tt.status, tt.mention)
			}
			id := resp.Header.Get("Request-Id")
			if !strings.HasPrefix(id, "req_") || seen[id] {
				t.Errorf("Request-Id %q: want a fresh req_... on every response", id)
			}
			seen[id] = true
		})
	}
}

func TestListAccountsPaging(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append([]string{apiCreateAccount(t, c, recipientAccount()).Id}, ids...) // newest first
	}
	apiCreateAccount(t, e.client(apiLiveKey), recipientAccount()) // another mode: never listed

	limit := gen.Limit(2)
	var pages [][]string
	var prevURLs []string
	params := &gen.ListAccountsParams{ServiceVersion: apiVersion, Limit: &limit}
	for {
		resp, err := c.ListAccountsWithResponse(apiCtx, params)
		if err != nil || resp.StatusCode() != 200 {
			t.Fatalf("%v %s", err, resp.Body)
		}
		var page []string
		for _, a := range resp.JSON200.Data {
			page = append(page, a.Id)
		}
		pages = append(pages, page)
		prev, _ := resp.JSON200.PreviousPageUrl.Get()
		prevURLs = append(prevURLs, prev)
		next, err := resp.JSON200.NextPageUrl.Get()
		if err != nil {
			break
		}
		tok := strings.SplitN(next, "page=", 2)[1]
		params.Page = &tok
	}
	if got := strings.Join(flatten(pages), ","); got != strings.Join(ids, ",") || len(pages) != 3 {
		t.Fatalf("pages %v, want %v in pages of 2", pages, ids)
	}
	if prevURLs[0] != "" || !strings.HasPrefix(prevURLs[1], "/v2/core/accounts?") || strings.Contains(prevURLs[1], "page=") {
		t.Errorf("previous page URLs %q: none on the first page, the first page's URL on the second", prevURLs)
	}
	// The third page's previous URL leads back to the second page.
	tok := strings.SplitN(prevURLs[2], "page=", 2)[1]
	resp, _ := c.ListAccountsWithResponse(apiCtx, &gen.ListAccountsParams{ServiceVersion: apiVersion, Limit: &limit, Page: &tok})
	if resp.StatusCode() != 200 || resp.JSON200.Data[0].Id != pages[1][0] {
		t.Errorf("previous of the third page: %s", resp.Body)
	}
	bad := "nonsense"
	resp, _ = c.ListAccountsWithResponse(apiCtx, &gen.ListAccountsParams{ServiceVersion: apiVersion, Page: &bad})
	wantAPIError(t, resp.StatusCode(), resp.Body, 400, "invalid_request_error", "parameter_invalid")
}

func flatten(pages [][]string) []string {
	var out []string
	for _, p := range pages {
		out = append(out, p...)
	}
	return out
}

func TestCreateAccountLink(t *testing.T) {
	clk := newAPIClock()
	e := newAPIEnv(t, func(c *server.Config) { c.Now = clk.Now; c.Accounts.LinkLifetime = 7 * time.Minute })
	c := e.client(apiTestKey)
	a := apiCreateAccount(t, c, recipientAccount())
	resp := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), nil)
	if resp.StatusCode() != 200 {
		t.Fatalf("%d %s", resp.StatusCode(), resp.Body)
	}
	l := resp.JSON200
	if l.Object != "v2.core.account_link" || l.Account != a.Id || l.Livemode {
		t.Errorf("link = %+v", l)
	}
	if l.Created != "2026-11-21T10:00:00.123Z" || l.ExpiresAt != "2026-11-21T10:07:00.123Z" {
		t.Errorf("created %s, expires_at %s: want now and now+7m, with milliseconds", l.Created, l.ExpiresAt)
	}
	if !strings.HasPrefix(l.Url, e.srv.URL+"/r/"+a.Id+"/alu_test_") || len(l.Url) < len(e.srv.URL+"/r/"+a.Id+"/alu_test_")+22 {
		t.Errorf("url = %s", l.Url)
	}
	flow, err := l.UseCase.AccountOnboarding.Get()
	if err != nil || !l.UseCase.AccountUpdate.IsNull() {
		t.Fatalf("use_case = %+v", l.UseCase)
	}
	ret, _ := flow.ReturnUrl.Get()
	if flow.RefreshUrl != "https://platform.example/refresh" || ret != "https://platform.example/return" ||
		flow.CollectionOptions.Fields != "currently_due" || flow.CollectionOptions.FutureRequirements != "omit" {
		t.Errorf("flow = %+v (defaults must be filled in)", flow)
	}
	if resp.HTTPResponse.Header.Get("Request-Id") == "" {
		t.Error("no Request-Id")
	}
	second := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), nil)
	if second.JSON200 == nil || second.JSON200.Url == l.Url {
		t.Errorf("a second link must have its own URL")
	}
}

func TestCreateAccountLinkChecksInOrder(t *testing.T) {
	no := false
	e := newAPIEnv(t, func(c *server.Config) {
		c.Accounts.Platforms = []accounts.Platform{{ID: "platform_blocked", AccountsV2: &no, Keys: []string{"sk_test_blockedPlatform1"}}}
	})
	c := e.client(apiTestKey)
	a := apiCreateAccount(t, c, recipientAccount())
	noReturn := onboardingLink(a.Id, gen.ConfigurationTypeRecipient)
	noReturn.UseCase.AccountOnboarding.ReturnUrl = nil

	tests := []struct {
		name               string
		key                string
		body               gen.CreateAccountLinkRequest
		status             int
		typ, code, message string
	}{
		{"1. Accounts v2 blocked comes before an unknown account", "sk_test_blockedPlatform1", onboardingLink("acct_0000000000000000", gen.ConfigurationTypeMerchant),
			400, "invalid_request_error", "accounts_v2_access_blocked", "Accounts v2 is not enabled for your platform."},
		{"2. an unknown account comes before mismatched configurations", apiTestKey, onboardingLink("acct_0000000000000000", gen.ConfigurationTypeMerchant),
			404, "invalid_request_error", "not_found", ""},
		{"3. configurations not applied to the account", apiTestKey, onboardingLink(a.Id, gen.ConfigurationTypeRecipient, gen.ConfigurationTypeMerchant),
			400, "invalid_request_error", "configs_must_match_to_use_account_links",
			"The configurations in the request must match the applied configurations on the account in order to use v2/core/account_links."},
		{"use case member missing", apiTestKey, gen.CreateAccountLinkRequest{Account: a.Id, UseCase: gen.AccountLinkUseCaseParams{Type: gen.AccountLinkUseCaseTypeAccountUpdate, AccountOnboarding: noReturn.UseCase.AccountOnboarding}},
			400, "invalid_request_error", "parameter_missing", "use_case.account_update: required request field missing"},
		{"return_url is optional", apiTestKey, noReturn, 200, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := apiCreateLink(t, e.client(tt.key), tt.body, nil)
			if tt.status == 200 {
				if resp.StatusCode() != 200 {
					t.Fatalf("%d %s", resp.StatusCode(), resp.Body)
				}
				flow, _ := resp.JSON200.UseCase.AccountOnboarding.Get()
				if !flow.ReturnUrl.IsNull() {
					t.Errorf("return_url = %v, want null", flow.ReturnUrl)
				}
				return
			}
			got := wantAPIError(t, resp.StatusCode(), resp.Body, tt.status, tt.typ, tt.code)
			if tt.message != "" && got.Message != tt.message {
				t.Errorf("message = %q, want %q", got.Message, tt.message)
			}
		})
	}
}

func TestAccountLinkValidationMessages(t *testing.T) {
	e := newAPIEnv(t)
	tests := []struct{ name, body, code, message string }{
		{"refresh_url missing", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"]}}}`,
			"parameter_missing", "use_case.account_onboarding.refresh_url: required request field missing"},
		{"top-level return_url", `{"account":"acct_1","return_url":"https://x.example","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://x.example"}}}`,
			"parameter_unknown", "return_url: unknown field"},
		{"no configurations", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":[],"refresh_url":"https://x.example"}}}`,
			"parameter_invalid", "use_case.account_onboarding.configurations"},
		{"refresh_url not a URL", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"javascript:alert(1)"}}}`,
			"parameter_invalid", "use_case.account_onboarding.refresh_url"},
		{"unknown configuration", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["storer"],"refresh_url":"https://x.example"}}}`,
			"parameter_invalid", "use_case.account_onboarding.configurations"},
		{"a control character in refresh_url", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://x.example/\u0000x","return_url":"https://x.example"}}}`,
			"parameter_invalid", "use_case.account_onboarding.refresh_url"},
		{"DEL in refresh_url", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://x.example/\u007fx","return_url":"https://x.example"}}}`,
			"parameter_invalid", "use_case.account_onboarding.refresh_url"},
		{"a line separator in return_url", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"return_url":"https://x.example/\u2028x","refresh_url":"https://x.example"}}}`,
			"parameter_invalid", "use_case.account_onboarding.return_url"},
		{"an unclosed [ in return_url", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"return_url":"https://[::1/x","refresh_url":"https://x.example"}}}`,
			"parameter_invalid", "use_case.account_onboarding.return_url"},
		{"a bad escape in refresh_url", `{"account":"acct_1","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://x.example/%zz","return_url":"https://x.example"}}}`,
			"parameter_invalid", "use_case.account_onboarding.refresh_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := e.client(apiTestKey).CreateAccountLinkWithBodyWithResponse(context.Background(), &gen.CreateAccountLinkParams{ServiceVersion: apiVersion}, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			got := wantAPIError(t, resp.StatusCode(), resp.Body, 400, "invalid_request_error", tt.code)
			if !strings.HasPrefix(got.Message, tt.message) {
				t.Errorf("message = %q, want it to start with %q", got.Message, tt.message)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// apiList sends GET path (a list URL with its query, as sent or as a page URL gives it)
// and returns the status and the body, checked against the spec.
func apiList(t *testing.T, e *apiEnv, path string) (int, []byte) {
	t.Helper()
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+apiTestKey)
	req.Header.Set("Service-Version", apiVersion)
	resp, err := (&http.Client{Transport: spectest.Transport(t, spec, nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, []byte(readBody(resp))
}

// listIDs decodes a list answer into its account ids and page URLs ("" for null).
func listIDs(t *testing.T, body []byte) (ids []string, next, prev string) {
	t.Helper()
	var l gen.V2CoreAccountList
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("not a list: %v %s", err, body)
	}
	for _, a := range l.Data {
		ids = append(ids, a.Id)
	}
	next, _ = l.NextPageUrl.Get()
	prev, _ = l.PreviousPageUrl.Get()
	return ids, next, prev
}

func TestListAccountsFilters(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	create := func(cfg string) string {
		t.Helper()
		var body gen.CreateAccountRequest
		if err := json.Unmarshal([]byte(`{"configuration":`+cfg+`}`), &body); err != nil {
			t.Fatal(err)
		}
		return apiCreateAccount(t, c, body).Id
	}
	id := map[string]string{
		"r":  create(`{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}`),
		"m":  create(`{"merchant":{"capabilities":{"card_payments":{"requested":true}}}}`),
		"mr": create(`{"merchant":{},"recipient":{}}`),
		"n":  create(`{}`),
		"c":  create(`{"customer":{}}`),
	}
	name := map[string]string{}
	for k, v := range id {
		name[v] = k
	}
	names := func(ids []string) string {
		var out []string
		for _, i := range ids {
			out = append(out, name[i])
		}
		return strings.Join(out, " ")
	}

	for _, tt := range []struct{ query, want string }{
		{"", "c n mr m r"},
		{"applied_configurations=merchant", "mr m"},
		{"applied_configurations=merchant&applied_configurations=recipient", "mr"},
		{"applied_configurations=recipient&applied_configurations=recipient", "mr r"},
		{"applied_configurations[]=recipient", "mr r"},
		{"applied_configurations%5B%5D=recipient&applied_configurations%5B%5D=merchant", "mr"},
		{"applied_configurations[0]=recipient&applied_configurations[1]=merchant", "mr"},
		{"applied_configurations=customer", "c"},
		{"closed=false", "c n mr m r"},
		{"closed=false&applied_configurations=merchant", "mr m"},
		{"closed=true", ""}, // no account is ever closed here
		{"closed=true&applied_configurations=merchant", ""},
	} {
		t.Run(tt.query, func(t *testing.T) {
			status, body := apiList(t, e, "/v2/core/accounts?"+tt.query)
			if status != http.StatusOK {
				t.Fatalf("%d %s", status, body)
			}
			if ids, _, _ := listIDs(t, body); names(ids) != tt.want {
				t.Errorf("listed %q, want %q", names(ids), tt.want)
			}
		})
	}
	for _, q := range []string{"applied_configurations=storer", "applied_configurations[0]=storer", "closed=maybe"} {
		t.Run(q, func(t *testing.T) {
			status, body := apiList(t, e, "/v2/core/accounts?"+q)
			wantAPIError(t, status, body, 400, "invalid_request_error", "parameter_invalid")
		})
	}

	t.Run("pages keep the filters", func(t *testing.T) {
		status, body := apiList(t, e, "/v2/core/accounts?limit=1&applied_configurations[0]=recipient")
		if status != http.StatusOK {
			t.Fatalf("%d %s", status, body)
		}
		var pages []string
		ids, next, _ := listIDs(t, body)
		pages = append(pages, names(ids))
		var prev string
		for next != "" && len(pages) < 10 {
			status, body = apiList(t, e, next)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", next, status, body)
			}
			ids, next, prev = listIDs(t, body)
			pages = append(pages, names(ids))
		}
		if got := strings.Join(pages, ","); got != "mr,r" {
			t.Fatalf("pages %q, want mr,r", got)
		}
		// Back from the last page.
		status, body = apiList(t, e, prev)
		if ids, _, _ := listIDs(t, body); status != http.StatusOK || names(ids) != "mr" {
			t.Errorf("GET %s: %d %s, want the first page", prev, status, body)
		}
	})

	t.Run("a page token is for the filters it was made for", func(t *testing.T) {
		status, body := apiList(t, e, "/v2/core/accounts?limit=1&applied_configurations=merchant")
		_, next, _ := listIDs(t, body)
		if status != http.StatusOK || next == "" {
			t.Fatalf("%d %s", status, body)
		}
		u, err := url.Parse(next)
		if err != nil {
			t.Fatal(err)
		}
		page := url.QueryEscape(u.Query().Get("page"))
		for _, q := range []string{
			"applied_configurations=merchant&applied_configurations=recipient", // other filters
			"applied_configurations=recipient",
			"closed=true",
			"", // none
		} {
			status, body := apiList(t, e, "/v2/core/accounts?limit=1&page="+page+"&"+q)
			wantAPIError(t, status, body, 400, "invalid_request_error", "parameter_invalid")
		}
		// The same filters, in another order or spelling, are the same filters.
		for _, q := range []string{"applied_configurations=merchant", "applied_configurations[0]=merchant&closed=false"} {
			status, body := apiList(t, e, "/v2/core/accounts?limit=1&page="+page+"&"+q)
			if ids, _, _ := listIDs(t, body); status != http.StatusOK || names(ids) != "m" {
				t.Errorf("%s: %d %s, want the second page (m)", q, status, body)
			}
		}
	})
}

// TestLoneSurrogateEscapes: a lone UTF-16 surrogate escape in a string is refused naming
// the member, where Go's decoder would store U+FFFD; a pair is the character it spells.
func TestLoneSurrogateEscapes(t *testing.T) {
	e := newAPIEnv(t)
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: spectest.Transport(t, spec, nil)}
	post := func(body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v2/core/accounts", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+apiTestKey)
		req.Header.Set("Service-Version", apiVersion)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, []byte(readBody(resp))
	}
	for body, field := range map[string]string{
		`{"display_name":"\ud800"}`:                      "display_name",
		`{"display_name":"Acme \uDC00 Corp"}`:            "display_name",
		`{"metadata":{"order":"\ud83d"}}`:                "metadata.order",
		`{"display_name":"ok","contact_email":"\udfff"}`: "contact_email",
	} {
		status, got := post(body)
		ae := wantAPIError(t, status, got, 400, "invalid_request_error", "parameter_invalid")
		if !strings.HasPrefix(ae.Message, field+": ") || !strings.Contains(ae.Message, "surrogate") {
			t.Errorf("%s: message %q, want it to name %s and say what is wrong", body, ae.Message, field)
		}
	}
	status, got := apiList(t, e, "/v2/core/accounts")
	if ids, _, _ := listIDs(t, got); status != 200 || len(ids) != 0 {
		t.Errorf("refused requests made accounts: %s", got)
	}
	status, got = post(`{"display_name":"Caf\u00e9 \ud83d\ude00"}`)
	if status != 200 || !strings.Contains(string(got), `"display_name":"Café 😀"`) {
		t.Errorf("a surrogate pair: %d %s", status, got)
	}
}

// TestListAccountsPagingStaysSmall walks 30 accounts a page of one at a time, with a filter
// that half of them pass, to the end and back through previous_page_url: every account
// once each way, in order, and a page URL the same size on the last page as on the first
// (each token once held the previous page's whole token, growing a third per page: the
// 20th was over 100 KB).
func TestListAccountsPagingStaysSmall(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	var want []string // newest first, recipients only
	for i := 0; i < 60; i++ {
		if i%2 == 0 {
			want = append([]string{apiCreateAccount(t, c, recipientAccount()).Id}, want...)
		} else {
			apiCreateAccount(t, c, gen.CreateAccountRequest{}) // no configuration: filtered out
		}
	}
	one := gen.Limit(1)
	list := func(page *string) gen.V2CoreAccountList {
		t.Helper()
		resp, err := c.ListAccountsWithResponse(apiCtx, &gen.ListAccountsParams{ServiceVersion: apiVersion, Limit: &one, Page: page,
			AppliedConfigurations: gen.AppliedConfigurations{"recipient"}})
		if err != nil || resp.StatusCode() != 200 || len(resp.JSON200.Data) != 1 {
			t.Fatalf("%v %s", err, resp.Body)
		}
		return *resp.JSON200
	}
	pageOf := func(u string) *string {
		if _, tok, ok := strings.Cut(u, "page="); ok {
			tok, _, _ = strings.Cut(tok, "&")
			return &tok
		}
		return nil
	}
	var forward []string
	var urls []string
	var page *string
	for {
		l := list(page)
		forward = append(forward, l.Data[0].Id)
		next, err := l.NextPageUrl.Get()
		if err != nil {
			break
		}
		urls = append(urls, next)
		page = pageOf(next)
	}
	if strings.Join(forward, ",") != strings.Join(want, ",") {
		t.Fatalf("forward: %v, want %v", forward, want)
	}
	if first, last := len(urls[0]), len(urls[len(urls)-1]); last > first+8 {
		t.Errorf("the next page URL grew from %d bytes on the first page to %d on the last", first, last)
	}
	backward := []string{forward[len(forward)-1]}
	for {
		l := list(page)
		prev, err := l.PreviousPageUrl.Get()
		if err != nil {
			break
		}
		page = pageOf(prev)
		backward = append(backward, list(page).Data[0].Id)
		if page == nil {
			break
		}
	}
	slices.Reverse(backward)
	if strings.Join(backward, ",") != strings.Join(want, ",") {
		t.Errorf("backward: %v, want %v", backward, want)
	}
}
