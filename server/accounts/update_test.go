package accounts_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/server"
)

func apiUpdateAccount(t *testing.T, c *gen.ClientWithResponses, id string, key *string, body gen.UpdateAccountRequest) *gen.UpdateAccountResponse {
	t.Helper()
	resp, err := c.UpdateAccountWithResponse(apiCtx, id, &gen.UpdateAccountParams{ServiceVersion: apiVersion, IdempotencyKey: key}, body)
	if err != nil {
		t.Fatalf("update account: %v", err)
	}
	return resp
}

func apiCloseAccount(t *testing.T, c *gen.ClientWithResponses, id string, configs ...gen.ConfigurationType) *gen.CloseAccountResponse {
	t.Helper()
	resp, err := c.CloseAccountWithResponse(apiCtx, id, &gen.CloseAccountParams{ServiceVersion: apiVersion}, gen.CloseAccountRequest{AppliedConfigurations: configs})
	if err != nil {
		t.Fatalf("close account: %v", err)
	}
	return resp
}

func apiRetrieve(t *testing.T, c *gen.ClientWithResponses, id string, include ...gen.AccountInclude) gen.V2CoreAccount {
	t.Helper()
	resp, err := c.RetrieveAccountWithResponse(apiCtx, id, &gen.RetrieveAccountParams{ServiceVersion: apiVersion, Include: include})
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("retrieve account: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	return *resp.JSON200
}

func str(n nullable.Nullable[string]) string {
	if v, err := n.Get(); err == nil {
		return v
	}
	return "<null>"
}

// TestUpdateAccount: members sent replace the stored ones, null removes, metadata merges,
// configurations and capabilities are added or withdrawn, and what is not sent is kept.
func TestUpdateAccount(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	create := recipientAccount()
	create.DisplayName, create.ContactEmail = ptr("Jenny Rosen"), ptr("jenny@example.com")
	create.Metadata = &gen.Metadata{"a": "1", "b": "2"}
	a := apiCreateAccount(t, c, create)

	country := "DE"
	resp := apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{
		DisplayName:  nullable.NewNullNullable[string](),
		ContactEmail: nullable.NewNullableWithValue("rosen@example.com"),
		Identity:     &gen.V2CoreAccountUpdateIdentityParams{Country: nullable.NewNullableWithValue(country)},
		Metadata:     &gen.MetadataUpdate{"a": nil, "c": ptr("3")},
		Configuration: &gen.V2CoreAccountUpdateConfigurationParams{Merchant: &gen.V2CoreAccountUpdateConfigurationMerchantParams{
			Capabilities: &gen.V2CoreAccountUpdateConfigurationMerchantCapabilitiesParams{CardPayments: &gen.CapabilityUpdateParams{Requested: nullable.NewNullableWithValue(true)}}}},
		Include: []gen.AccountInclude{gen.AccountIncludeConfigurationMerchant, gen.AccountIncludeIdentity},
	})
	if resp.StatusCode() != http.StatusOK {
		t.Fatalf("update: %d %s", resp.StatusCode(), resp.Body)
	}
	check := func(what string, got gen.V2CoreAccount) {
		t.Helper()
		if str(got.DisplayName) != "<null>" || str(got.ContactEmail) != "rosen@example.com" {
			t.Errorf("%s: display_name %s, contact_email %s; want null and the new email", what, str(got.DisplayName), str(got.ContactEmail))
		}
		if want := (gen.Metadata{"b": "2", "c": "3"}); !maps.Equal(got.Metadata, want) {
			t.Errorf("%s: metadata %v, want %v", what, got.Metadata, want)
		}
		if want := []gen.ConfigurationType{"merchant", "recipient"}; !slices.Equal(got.AppliedConfigurations, want) {
			t.Errorf("%s: applied_configurations %v, want %v", what, got.AppliedConfigurations, want)
		}
	}
	check("the update's answer", *resp.JSON200)
	cfg, err := resp.JSON200.Configuration.Get()
	if err != nil {
		t.Fatalf("configuration: %v (%s)", err, resp.Body)
	}
	merchant := cfg.Merchant
	if merchant == nil || merchant.Capabilities.CardPayments == nil || deref(merchant.Capabilities.CardPayments.Status) != gen.AccountCapabilityStatusRestricted {
		t.Errorf("merchant configuration: %+v, want card_payments requested and restricted", merchant)
	}
	if id, err := resp.JSON200.Identity.Get(); err != nil || deref(id.Country) != "DE" {
		t.Errorf("identity: %+v %v, want country DE", id, err)
	}

	// An empty update changes nothing; what it does not name is kept.
	if resp := apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{}); resp.StatusCode() != http.StatusOK {
		t.Fatalf("empty update: %d %s", resp.StatusCode(), resp.Body)
	}
	got := apiRetrieve(t, c, a.Id, gen.AccountIncludeConfigurationRecipient)
	check("read back", got)
	rcfg, _ := got.Configuration.Get()
	recipient := rcfg.Recipient
	if recipient == nil || recipient.Capabilities.StripeBalance == nil || recipient.Capabilities.StripeBalance.StripeTransfers == nil {
		t.Errorf("recipient's stripe_transfers: got %+v, want it still requested", recipient.Capabilities)
	}

	// Withdrawing a capability takes it off the configuration, which stays applied.
	withdraw := gen.UpdateAccountRequest{Configuration: &gen.V2CoreAccountUpdateConfigurationParams{Recipient: &gen.V2CoreAccountUpdateConfigurationRecipientParams{
		Capabilities: &gen.V2CoreAccountUpdateConfigurationRecipientCapabilitiesParams{StripeBalance: &gen.V2CoreAccountUpdateConfigurationRecipientCapabilitiesStripeBalanceParams{
			StripeTransfers: &gen.CapabilityUpdateParams{Requested: nullable.NewNullableWithValue(false)}}}}}}
	if resp := apiUpdateAccount(t, c, a.Id, nil, withdraw); resp.StatusCode() != http.StatusOK {
		t.Fatalf("withdraw: %d %s", resp.StatusCode(), resp.Body)
	}
	got = apiRetrieve(t, c, a.Id, gen.AccountIncludeConfigurationRecipient)
	rcfg, _ = got.Configuration.Get()
	recipient = rcfg.Recipient
	if recipient == nil || !deref(recipient.Applied) || recipient.Capabilities.StripeBalance != nil {
		t.Errorf("after withdrawing: recipient %+v, want applied with no capability", recipient)
	}
}

// TestUpdateAccountRefusals: each refused update answers in the v2 envelope and leaves the
// account as it was.
func TestUpdateAccountRefusals(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	create := recipientAccount()
	create.Metadata = &gen.Metadata{}
	for i := range 49 {
		(*create.Metadata)[fmt.Sprintf("k%d", i)] = "v"
	}
	a := apiCreateAccount(t, c, create)
	before := apiRetrieve(t, c, a.Id)

	tooMany := gen.MetadataUpdate{"new1": ptr("x"), "new2": ptr("y")}
	longKey := gen.MetadataUpdate{strings.Repeat("k", 41): ptr("x")}
	for _, tc := range []struct {
		name   string
		id     string
		client *gen.ClientWithResponses
		body   gen.UpdateAccountRequest
		status int
		code   string
	}{
		{"more than 50 metadata keys after the merge", a.Id, c, gen.UpdateAccountRequest{Metadata: &tooMany, DisplayName: nullable.NewNullableWithValue("Changed")}, 400, "parameter_invalid"},
		{"a metadata key over 40 characters", a.Id, c, gen.UpdateAccountRequest{Metadata: &longKey}, 400, "parameter_invalid"},
		{"an unknown account", "acct_doesnotexist0000", c, gen.UpdateAccountRequest{}, 404, "not_found"},
		{"an account of the other mode", a.Id, e.client(apiLiveKey), gen.UpdateAccountRequest{DisplayName: nullable.NewNullableWithValue("Changed")}, 404, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := apiUpdateAccount(t, tc.client, tc.id, nil, tc.body)
			wantAPIError(t, resp.StatusCode(), resp.Body, tc.status, "invalid_request_error", tc.code)
		})
	}
	// Keys are counted in characters, not bytes: 40 of them, 80 bytes, is a key.
	accented := gen.MetadataUpdate{strings.Repeat("é", 40): nil}
	if resp := apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{Metadata: &accented}); resp.StatusCode() != http.StatusOK {
		t.Errorf("a 40-character key of 80 bytes: %d %s", resp.StatusCode(), resp.Body)
	}
	// Swapping one key for another at the limit is fine: removals count first.
	swap := gen.MetadataUpdate{"k0": nil, "new": ptr("x")}
	if resp := apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{Metadata: &swap}); resp.StatusCode() != http.StatusOK {
		t.Fatalf("swap at the limit: %d %s", resp.StatusCode(), resp.Body)
	}
	after := apiRetrieve(t, c, a.Id)
	delete(before.Metadata, "k0")
	before.Metadata["new"] = "x"
	if !maps.Equal(after.Metadata, before.Metadata) || str(after.DisplayName) != "<null>" {
		t.Errorf("after the refusals and the swap: metadata %v, display_name %s; want %v and null", after.Metadata, str(after.DisplayName), before.Metadata)
	}

	raw := func(body string) (int, []byte) { return e.send(http.MethodPost, "/v2/core/accounts/"+a.Id, body) }
	status, body := raw(`{"nickname":"x"}`)
	wantAPIError(t, status, body, 400, "invalid_request_error", "parameter_unknown")
	status, body = raw(`{"dashboard":null}`)
	wantAPIError(t, status, body, 400, "invalid_request_error", "parameter_invalid")
}

// TestCloseAccount: a close names every configuration of the account; a closed account is
// still read (without its details) and listed with closed=true, and nothing changes it.
func TestCloseAccount(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	create := recipientAccount()
	create.DisplayName, create.ContactEmail = ptr("Jenny Rosen"), ptr("jenny@example.com")
	create.Configuration.Merchant = &gen.V2CoreAccountCreateConfigurationMerchantParams{}
	create.Metadata = &gen.Metadata{"order_id": "6735"}
	a := apiCreateAccount(t, c, create)
	other := apiCreateAccount(t, c, recipientAccount())

	for _, configs := range [][]gen.ConfigurationType{nil, {"recipient"}, {"merchant", "recipient", "customer"}} {
		resp := apiCloseAccount(t, c, a.Id, configs...)
		wantAPIError(t, resp.StatusCode(), resp.Body, 400, "invalid_request_error", "configs_must_match_to_close")
		if got := resp.JSON400; got == nil || !slices.Equal(got.Error.AppliedConfigurations, []gen.ConfigurationType{"merchant", "recipient"}) {
			t.Errorf("close naming %v: the error's applied_configurations: %s, want [merchant recipient]", configs, resp.Body)
		}
	}
	if got := apiRetrieve(t, c, a.Id); got.Closed {
		t.Fatal("a refused close closed the account")
	}

	resp := apiCloseAccount(t, c, a.Id, "recipient", "merchant", "recipient")
	if resp.StatusCode() != http.StatusOK {
		t.Fatalf("close: %d %s", resp.StatusCode(), resp.Body)
	}
	for what, got := range map[string]gen.V2CoreAccount{
		"close's answer": *resp.JSON200,
		"retrieve":       apiRetrieve(t, c, a.Id, gen.AccountIncludeIdentity, gen.AccountIncludeRequirements, gen.AccountIncludeConfigurationRecipient),
	} {
		if !got.Closed || str(got.DisplayName) != "<null>" || str(got.ContactEmail) != "<null>" || !got.Identity.IsNull() || !got.Requirements.IsNull() || !got.Configuration.IsNull() {
			t.Errorf("%s: %+v, want closed with no contact details, identity, requirements or configuration", what, got)
		}
		if got.Metadata["order_id"] != "6735" || len(got.AppliedConfigurations) != 2 {
			t.Errorf("%s: metadata %v, applied %v; want them kept", what, got.Metadata, got.AppliedConfigurations)
		}
	}

	_, open := apiListIDs(t, e, "/v2/core/accounts")
	_, closed := apiListIDs(t, e, "/v2/core/accounts?closed=true")
	if !slices.Equal(open, []string{other.Id}) || !slices.Equal(closed, []string{a.Id}) {
		t.Errorf("lists: open %v, closed %v; want [%s] and [%s]", open, closed, other.Id, a.Id)
	}

	update := apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{DisplayName: nullable.NewNullableWithValue("Back")})
	wantAPIError(t, update.StatusCode(), update.Body, 400, "invalid_request_error", "account_closed")
	again := apiCloseAccount(t, c, a.Id, "merchant", "recipient")
	wantAPIError(t, again.StatusCode(), again.Body, 400, "invalid_request_error", "account_closed")
	link := apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), nil)
	wantAPIError(t, link.StatusCode(), link.Body, 400, "invalid_request_error", "account_closed")

	// An account without configurations is closed naming none, even with no body at all.
	bare := apiCreateAccount(t, c, gen.CreateAccountRequest{})
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v2/core/accounts/"+bare.Id+"/close", nil)
	req.Header.Set("Authorization", "Bearer "+apiTestKey)
	req.Header.Set("Service-Version", apiVersion)
	raw, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if body := readBody(raw); raw.StatusCode != http.StatusOK || !strings.Contains(body, `"closed":true`) {
		t.Errorf("close without a body: %d %s", raw.StatusCode, body)
	}
}

func apiListIDs(t *testing.T, e *apiEnv, path string) (int, []string) {
	t.Helper()
	status, body := apiList(t, e, path)
	if status != http.StatusOK {
		t.Fatalf("list %s: %d %s", path, status, body)
	}
	ids, _, _ := listIDs(t, body)
	return status, ids
}

// TestClosedAccountsHostedLinks: a link made before the account closed no longer opens (it
// sends the browser to refresh_url, as an invalid link does), and a form opened before it
// closed is no longer accepted.
func TestClosedAccountsHostedLinks(t *testing.T) {
	e := newHostedEnv(t, nil)
	id := e.createAccount("")
	unopened := e.createLink(id, hostedLinkOptions{})
	opened := e.createLink(id, hostedLinkOptions{})
	browser, page := e.open(t, opened)
	if status, out := e.api(http.MethodPost, "/v2/core/accounts/"+id+"/close", `{"applied_configurations":["recipient"]}`); status != http.StatusOK {
		t.Fatalf("close: %d %v", status, out)
	}
	hostedRedirect(t, hostedGet(t, e.browser(), unopened), http.StatusFound, hostedRefresh)
	hostedReadPage(t, hostedPost(t, browser, opened, hostedValidForm(page)), http.StatusNotFound)
	if a := e.account(id); a["closed"] != true || a["display_name"] != nil {
		t.Errorf("after the refused submission: %v, want closed and unchanged", a)
	}
}

// TestAccountChangesConcurrently: updates and link creation share the account's concurrency
// limit; updates under a looser limit all land (none overwrites another's), and of racing
// closes exactly one wins.
func TestAccountChangesConcurrently(t *testing.T) {
	t.Run("updates and links share the limit", func(t *testing.T) {
		e := newAPIEnv(t, func(c *server.Config) { c.Accounts.UpdateLatency = 300 * time.Millisecond })
		c := e.client(apiTestKey)
		a := apiCreateAccount(t, c, recipientAccount())
		got := count(race(6, func(i int) int {
			if i%2 == 0 {
				return apiCreateLink(t, c, onboardingLink(a.Id, gen.ConfigurationTypeRecipient), nil).StatusCode()
			}
			return apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{DisplayName: nullable.NewNullableWithValue(fmt.Sprint(i))}).StatusCode()
		}))
		if got[200] != 1 || got[429] != 5 {
			t.Fatalf("statuses %v, want one 200 and five 429", got)
		}
	})
	t.Run("no update is lost", func(t *testing.T) {
		const n = 24
		e := newAPIEnv(t, func(c *server.Config) { c.Accounts.AccountConcurrency = n })
		c := e.client(apiTestKey)
		a := apiCreateAccount(t, c, recipientAccount())
		got := count(race(n, func(i int) int {
			return apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{Metadata: &gen.MetadataUpdate{fmt.Sprintf("k%d", i): ptr("v")}}).StatusCode()
		}))
		if got[200] != n {
			t.Fatalf("statuses %v, want all 200", got)
		}
		if md := apiRetrieve(t, c, a.Id).Metadata; len(md) != n {
			t.Errorf("metadata has %d keys, want all %d: %v", len(md), n, md)
		}
	})
	t.Run("one close wins", func(t *testing.T) {
		e := newAPIEnv(t, func(c *server.Config) { c.Accounts.AccountConcurrency = 16 })
		c := e.client(apiTestKey)
		a := apiCreateAccount(t, c, recipientAccount())
		got := count(race(16, func(int) int { return apiCloseAccount(t, c, a.Id, "recipient").StatusCode() }))
		if got[200] != 1 || got[400] != 15 {
			t.Fatalf("statuses %v, want one 200 and fifteen 400 account_closed", got)
		}
	})
}

// TestUpdateIdempotency: a retried update performs nothing new (a later change survives it)
// and answers the account as it is; the key is bound to the account it was used on.
func TestUpdateIdempotency(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	a := apiCreateAccount(t, c, recipientAccount())
	b := apiCreateAccount(t, c, recipientAccount())
	key := "update-once"
	first := gen.UpdateAccountRequest{Metadata: &gen.MetadataUpdate{"step": ptr("1")}}
	if resp := apiUpdateAccount(t, c, a.Id, &key, first); resp.StatusCode() != http.StatusOK {
		t.Fatalf("first: %d %s", resp.StatusCode(), resp.Body)
	}
	if resp := apiUpdateAccount(t, c, a.Id, nil, gen.UpdateAccountRequest{Metadata: &gen.MetadataUpdate{"step": ptr("2")}}); resp.StatusCode() != http.StatusOK {
		t.Fatalf("second: %d %s", resp.StatusCode(), resp.Body)
	}
	retry := apiUpdateAccount(t, c, a.Id, &key, first)
	if retry.StatusCode() != http.StatusOK || retry.JSON200.Metadata["step"] != "2" {
		t.Fatalf("retry: %d %s, want 200 with step 2 (nothing performed again)", retry.StatusCode(), retry.Body)
	}
	elsewhere := apiUpdateAccount(t, c, b.Id, &key, first)
	wantAPIError(t, elsewhere.StatusCode(), elsewhere.Body, 400, "idempotency_error", "")
	if md := apiRetrieve(t, c, b.Id).Metadata; len(md) != 0 {
		t.Errorf("the other account's metadata: %v, want none", md)
	}
}

// TestAccountTextRules: the API holds display_name and contact_email to what the hosted
// form accepts, so that an account it makes can be sent back through the form unchanged:
// no control characters in a name, one bare address in an email.
func TestAccountTextRules(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	a := apiCreateAccount(t, c, gen.CreateAccountRequest{})
	send := func(path, body string) (int, []byte) { return e.send(http.MethodPost, path, body) }
	for _, path := range []string{"/v2/core/accounts", "/v2/core/accounts/" + a.Id} {
		for body, field := range map[string]string{
			`{"display_name":"a\u0000b"}`:                   "display_name",
			`{"display_name":"a\u001bb"}`:                   "display_name",
			`{"display_name":"a\u0085b"}`:                   "display_name",
			`{"contact_email":"not an email"}`:              "contact_email",
			`{"contact_email":"Jenny <jenny@example.com>"}`: "contact_email",
		} {
			status, out := send(path, body)
			if got := wantAPIError(t, status, out, 400, "invalid_request_error", "parameter_invalid"); !strings.HasPrefix(got.Message, field) {
				t.Errorf("POST %s %s: %q, want it to name %s", path, body, got.Message, field)
			}
		}
		if status, out := send(path, `{"display_name":"Café «Rosen» & Söhne","contact_email":"jenny.rosen@example.com"}`); status != http.StatusOK {
			t.Errorf("POST %s with a plain name and email: %d %s", path, status, out)
		}
	}
}

// TestDocumentSigner: API version 2026-05-27.dahlia lets a proof of registration and a proof
// of ultimate beneficial ownership name the person who signs it (stripe-node 22.2.0, which
// pins that version: "Add support for signer on
// V2.Core.Account.identity.business_details.documents.proof_of_registration, ...
// proof_of_ultimate_beneficial_ownership", on the account, its create and update params and
// the account token's): taken on create, update and tokens, returned as sent, removed by
// null on update.
func TestDocumentSigner(t *testing.T) {
	e := newAPIEnv(t)
	c := e.client(apiTestKey)
	send := func(path, body string) (int, string) {
		status, b := e.send(http.MethodPost, path, body)
		return status, string(b)
	}
	documents := func(id string) map[string]any {
		t.Helper()
		a := apiRetrieve(t, c, id, gen.AccountIncludeIdentity)
		raw, _ := json.Marshal(a.Identity)
		var got struct {
			BusinessDetails struct{ Documents map[string]any } `json:"business_details"`
		}
		_ = json.Unmarshal(raw, &got)
		return got.BusinessDetails.Documents
	}
	signed := func(person string) map[string]any {
		return map[string]any{"files": []any{"file_123"}, "type": "files", "signer": map[string]any{"person": person}}
	}

	status, body := send("/v2/core/accounts", `{"identity":{"entity_type":"company","business_details":{"documents":{
		"proof_of_registration":{"files":["file_123"],"type":"files","signer":{"person":"person_one"}},
		"proof_of_ultimate_beneficial_ownership":{"files":["file_123"],"type":"files","signer":{"person":"person_two"}}}}}}`)
	if status != http.StatusOK {
		t.Fatalf("create with signers: %d %s", status, body)
	}
	var acct struct{ ID string }
	_ = json.Unmarshal([]byte(body), &acct)
	got := documents(acct.ID)
	if !reflect.DeepEqual(got["proof_of_registration"], signed("person_one")) || !reflect.DeepEqual(got["proof_of_ultimate_beneficial_ownership"], signed("person_two")) {
		t.Errorf("documents after create: %v", got)
	}

	if status, body := send("/v2/core/accounts/"+acct.ID, `{"identity":{"business_details":{"documents":{
		"proof_of_registration":{"signer":{"person":"person_three"}},"proof_of_ultimate_beneficial_ownership":{"signer":null}}}}}`); status != http.StatusOK {
		t.Fatalf("update signers: %d %s", status, body)
	}
	got = documents(acct.ID)
	if !reflect.DeepEqual(got["proof_of_registration"], signed("person_three")) ||
		!reflect.DeepEqual(got["proof_of_ultimate_beneficial_ownership"], map[string]any{"files": []any{"file_123"}, "type": "files"}) {
		t.Errorf("documents after update: %v", got)
	}

	status, body = send("/v2/core/account_tokens", `{"identity":{"business_details":{"documents":{"proof_of_registration":{"files":["file_9"],"type":"files","signer":{"person":"person_tok"}}}}}}`)
	if status != http.StatusOK {
		t.Fatalf("token with a signer: %d %s", status, body)
	}
	var tok struct{ ID string }
	_ = json.Unmarshal([]byte(body), &tok)
	status, body = send("/v2/core/accounts", `{"account_token":"`+tok.ID+`"}`)
	if status != http.StatusOK {
		t.Fatalf("create with the token: %d %s", status, body)
	}
	_ = json.Unmarshal([]byte(body), &acct)
	if got := documents(acct.ID)["proof_of_registration"]; !reflect.DeepEqual(got, map[string]any{"files": []any{"file_9"}, "type": "files", "signer": map[string]any{"person": "person_tok"}}) {
		t.Errorf("proof_of_registration from the token: %v", got)
	}

	// Other documents take no signer; a signer names its person.
	for _, doc := range []string{`"proof_of_address":{"files":["f"],"type":"files","signer":{"person":"p"}}`, `"proof_of_registration":{"files":["f"],"type":"files","signer":{}}`} {
		status, body := send("/v2/core/accounts", `{"identity":{"business_details":{"documents":{`+doc+`}}}}`)
		if status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", doc, status, body)
		}
	}
}
