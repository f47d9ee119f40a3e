package accounts_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestSDKEveryMember: members of every part of a v2 account, sent through stripe-go, are
// accepted, stored and read back into the SDK's own types: defaults, contact phone,
// identity (individual, attestations; a lower-case country), merchant settings and many of
// its capabilities, customer settings. defaults is present with responsibilities even when
// not included; restricts_capabilities names capabilities by their full path.
func TestSDKEveryMember(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_members")
	ctx := context.Background()
	tos := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	requested := &stripe.V2CoreAccountCreateConfigurationMerchantCapabilitiesCardPaymentsParams{Requested: stripe.Bool(true)}
	params := &stripe.V2CoreAccountCreateParams{
		DisplayName:  stripe.String("Furever"),
		ContactEmail: stripe.String("furever@example.com"),
		ContactPhone: stripe.String("+15555550100"),
		Dashboard:    stripe.String("full"),
		Defaults: &stripe.V2CoreAccountCreateDefaultsParams{
			Currency: stripe.String("usd"), Locales: []*string{stripe.String("en-US")},
			Responsibilities: &stripe.V2CoreAccountCreateDefaultsResponsibilitiesParams{
				FeesCollector: stripe.String("application"), LossesCollector: stripe.String("application")},
		},
		Identity: &stripe.V2CoreAccountCreateIdentityParams{
			Country: stripe.String("us"), EntityType: stripe.String("individual"),
			Individual: &stripe.V2CoreAccountCreateIdentityIndividualParams{
				GivenName: stripe.String("Jenny"), Surname: stripe.String("Rosen"),
				DateOfBirth: &stripe.V2CoreAccountCreateIdentityIndividualDateOfBirthParams{Day: stripe.Int64(31), Month: stripe.Int64(1), Year: stripe.Int64(1990)},
				Address: &stripe.V2CoreAccountCreateIdentityIndividualAddressParams{Country: stripe.String("US"), Line1: stripe.String("1 Main St"),
					City: stripe.String("Springfield"), PostalCode: stripe.String("12345")},
			},
			Attestations: &stripe.V2CoreAccountCreateIdentityAttestationsParams{
				TermsOfService: &stripe.V2CoreAccountCreateIdentityAttestationsTermsOfServiceParams{
					Account: &stripe.V2CoreAccountCreateIdentityAttestationsTermsOfServiceAccountParams{Date: &tos, IP: stripe.String("192.0.2.1")}},
			},
		},
		Configuration: &stripe.V2CoreAccountCreateConfigurationParams{
			Merchant: &stripe.V2CoreAccountCreateConfigurationMerchantParams{
				MCC:      stripe.String("5734"),
				Branding: &stripe.V2CoreAccountCreateConfigurationMerchantBrandingParams{PrimaryColor: stripe.String("#ff0000")},
				StatementDescriptor: &stripe.V2CoreAccountCreateConfigurationMerchantStatementDescriptorParams{
					Descriptor: stripe.String("FUREVER")},
				Support: &stripe.V2CoreAccountCreateConfigurationMerchantSupportParams{Email: stripe.String("help@example.com")},
				CardPayments: &stripe.V2CoreAccountCreateConfigurationMerchantCardPaymentsParams{
					DeclineOn: &stripe.V2CoreAccountCreateConfigurationMerchantCardPaymentsDeclineOnParams{AVSFailure: stripe.Bool(true)}},
				Capabilities: &stripe.V2CoreAccountCreateConfigurationMerchantCapabilitiesParams{
					CardPayments:      requested,
					ACHDebitPayments:  &stripe.V2CoreAccountCreateConfigurationMerchantCapabilitiesACHDebitPaymentsParams{Requested: stripe.Bool(true)},
					KlarnaPayments:    &stripe.V2CoreAccountCreateConfigurationMerchantCapabilitiesKlarnaPaymentsParams{Requested: stripe.Bool(true)},
					SEPADebitPayments: &stripe.V2CoreAccountCreateConfigurationMerchantCapabilitiesSEPADebitPaymentsParams{Requested: stripe.Bool(true)},
				},
			},
			Customer: &stripe.V2CoreAccountCreateConfigurationCustomerParams{
				Billing: &stripe.V2CoreAccountCreateConfigurationCustomerBillingParams{
					Invoice: &stripe.V2CoreAccountCreateConfigurationCustomerBillingInvoiceParams{Prefix: stripe.String("FUR"), NextSequence: stripe.Int64(7)}},
			},
		},
		Include: []*string{stripe.String("configuration.merchant"), stripe.String("configuration.customer"), stripe.String("identity"),
			stripe.String("defaults"), stripe.String("requirements")},
	}
	a, err := sc.V2CoreAccounts.Create(ctx, params)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if a.ContactPhone != "+15555550100" || a.Identity == nil || a.Identity.Country != "US" {
		t.Errorf("contact_phone %q, identity %+v; want the phone and country US", a.ContactPhone, a.Identity)
	}
	ind := a.Identity.Individual
	if ind == nil || ind.GivenName != "Jenny" || ind.DateOfBirth == nil || ind.DateOfBirth.Year != 1990 || ind.Address == nil || ind.Address.City != "Springfield" {
		t.Errorf("identity.individual = %+v", ind)
	}
	if at := a.Identity.Attestations; at == nil || at.TermsOfService == nil || at.TermsOfService.Account == nil || !at.TermsOfService.Account.Date.Equal(tos) {
		t.Errorf("identity.attestations = %+v", at)
	}
	m := a.Configuration.Merchant
	if m == nil || !m.Applied || m.MCC != "5734" || m.Branding == nil || m.Branding.PrimaryColor != "#ff0000" || m.StatementDescriptor == nil ||
		m.StatementDescriptor.Descriptor != "FUREVER" || m.Support == nil || m.Support.Email != "help@example.com" ||
		m.CardPayments == nil || m.CardPayments.DeclineOn == nil || !m.CardPayments.DeclineOn.AVSFailure {
		t.Fatalf("merchant configuration = %+v", m)
	}
	if c := m.Capabilities; c == nil || c.CardPayments == nil || c.ACHDebitPayments == nil || c.KlarnaPayments == nil ||
		c.SEPADebitPayments == nil || c.CardPayments.Status != "restricted" {
		t.Errorf("merchant capabilities = %+v", c)
	}
	if cu := a.Configuration.Customer; cu == nil || !cu.Applied || cu.Billing == nil || cu.Billing.Invoice == nil || cu.Billing.Invoice.Prefix != "FUR" || cu.Billing.Invoice.NextSequence != 7 {
		t.Errorf("customer configuration = %+v", a.Configuration.Customer)
	}
	d := a.Defaults
	if d == nil || d.Currency != "usd" || !slices.Equal(d.Locales, []string{"en-US"}) || d.Responsibilities == nil ||
		d.Responsibilities.FeesCollector != "application" || d.Responsibilities.RequirementsCollector != "stripe" {
		t.Errorf("defaults = %+v", d)
	}
	// Only the terms remain (the individual gave name and date of birth); they restrict
	// every requested capability, named by its full path.
	if a.Requirements == nil || len(a.Requirements.Entries) != 1 || a.Requirements.Entries[0].Description != "identity.attestations.terms_of_service.account" {
		t.Fatalf("requirements = %+v", a.Requirements)
	}
	var caps []string
	for _, rc := range a.Requirements.Entries[0].Impact.RestrictsCapabilities {
		caps = append(caps, string(rc.Configuration)+":"+string(rc.Capability))
	}
	want := []string{"merchant:ach_debit_payments", "merchant:card_payments", "merchant:klarna_payments", "merchant:sepa_debit_payments"}
	if slices.Sort(caps); !slices.Equal(caps, want) {
		t.Errorf("restricts_capabilities = %v, want %v", caps, want)
	}

	// defaults is always there, responsibilities included, and what was not included is not.
	plain, err := sc.V2CoreAccounts.Retrieve(ctx, a.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Defaults == nil || plain.Defaults.Responsibilities == nil || plain.Defaults.Responsibilities.LossesCollector != "application" || plain.Identity != nil {
		t.Errorf("retrieve without include: defaults %+v, identity %+v", plain.Defaults, plain.Identity)
	}

	// An update merges: what it names changes, what it leaves out stays; applied: false
	// takes a configuration off the account.
	up, err := sc.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{
		Identity: &stripe.V2CoreAccountUpdateIdentityParams{Individual: &stripe.V2CoreAccountUpdateIdentityIndividualParams{Surname: stripe.String("Rosen-Smith")}},
		Configuration: &stripe.V2CoreAccountUpdateConfigurationParams{
			Customer: &stripe.V2CoreAccountUpdateConfigurationCustomerParams{Applied: stripe.Bool(false)},
			Merchant: &stripe.V2CoreAccountUpdateConfigurationMerchantParams{MCC: stripe.String("5999")},
		},
		Include: []*string{stripe.String("identity"), stripe.String("configuration.merchant"), stripe.String("configuration.customer")},
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if up.Identity.Individual.Surname != "Rosen-Smith" || up.Identity.Individual.GivenName != "Jenny" {
		t.Errorf("individual after update: %+v", up.Identity.Individual)
	}
	if !slices.Equal(up.AppliedConfigurations, []stripe.V2CoreAccountAppliedConfiguration{"merchant"}) || up.Configuration.Customer != nil {
		t.Errorf("applied_configurations %v, customer %+v; want the customer configuration removed", up.AppliedConfigurations, up.Configuration.Customer)
	}
	if up.Configuration.Merchant.MCC != "5999" || up.Configuration.Merchant.Branding == nil {
		t.Errorf("merchant after update: %+v", up.Configuration.Merchant)
	}

	// A member the SDK does not know is refused, as the real API refuses it, naming it.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v2/core/accounts", strings.NewReader(`{"identity":{"individual":{"no_such_member":"x"}}}`))
	req.Header.Set("Authorization", "Bearer sk_test_members")
	req.Header.Set("Service-Version", sdkServiceVersion)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "no_such_member") || !strings.Contains(string(body), "parameter_unknown") {
		t.Errorf("unknown member: %d %s", resp.StatusCode, body)
	}
}

// TestSDKRestrictedKeysAndNoBody: restricted keys work as secret keys do, in their mode, and
// Create(ctx, nil) — a POST without a body — makes an account.
func TestSDKRestrictedKeysAndNoBody(t *testing.T) {
	srv := startSDKServer(t, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		key  string
		live bool
	}{{"rk_test_51Restricted", false}, {"rk_live_51Restricted", true}} {
		t.Run(tt.key, func(t *testing.T) {
			sc := newSDKClient(t, srv, tt.key)
			a, err := sc.V2CoreAccounts.Create(ctx, nil)
			if err != nil {
				t.Fatalf("Create(ctx, nil): %v", err)
			}
			if a.Livemode != tt.live || len(a.AppliedConfigurations) != 0 {
				t.Errorf("livemode %v, applied %v", a.Livemode, a.AppliedConfigurations)
			}
			if _, err := sc.V2CoreAccounts.Retrieve(ctx, a.ID, nil); err != nil {
				t.Errorf("retrieve with the same key: %v", err)
			}
		})
	}
}

// TestSDKPersons: persons are created, read, updated, listed and deleted through stripe-go,
// and a company's representative among them meets the account's requirement.
func TestSDKPersons(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_persons")
	ctx := context.Background()
	params := recipientParams("Acme")
	params.Identity = &stripe.V2CoreAccountCreateIdentityParams{Country: stripe.String("DE"), EntityType: stripe.String("company")}
	params.Include = []*string{stripe.String("requirements")}
	a, err := sc.V2CoreAccounts.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	descriptions := func(a *stripe.V2CoreAccount) []string {
		var out []string
		for _, e := range a.Requirements.Entries {
			out = append(out, e.Description)
		}
		return out
	}
	if got := descriptions(a); !slices.Contains(got, "relationship.representative") {
		t.Fatalf("requirements %v, want the representative", got)
	}

	rep, err := sc.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{
		AccountID: stripe.String(a.ID), GivenName: stripe.String("Jenny"), Surname: stripe.String("Rosen"),
		Email:        stripe.String("jenny@acme.example"),
		Relationship: &stripe.V2CoreAccountsPersonCreateRelationshipParams{Representative: stripe.Bool(true), Executive: stripe.Bool(true), Title: stripe.String("CEO"), PercentOwnership: stripe.Float64(25.5)},
		Metadata:     map[string]string{"team": "ops"},
	})
	if err != nil {
		t.Fatalf("create person: %v", err)
	}
	if rep.Object != "v2.core.account_person" || rep.Account != a.ID || rep.Relationship == nil || !rep.Relationship.Representative ||
		rep.Relationship.PercentOwnership != 25.5 || rep.Metadata["team"] != "ops" || rep.Created.IsZero() {
		t.Errorf("person = %+v (relationship %+v)", rep, rep.Relationship)
	}
	read := func() []string {
		got, err := sc.V2CoreAccounts.Retrieve(ctx, a.ID, &stripe.V2CoreAccountRetrieveParams{Include: []*string{stripe.String("requirements")}})
		if err != nil {
			t.Fatal(err)
		}
		return descriptions(got)
	}
	if got := read(); slices.Contains(got, "relationship.representative") {
		t.Errorf("requirements %v after the representative was added", got)
	}

	owner, err := sc.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{AccountID: stripe.String(a.ID),
		GivenName: stripe.String("Max"), Relationship: &stripe.V2CoreAccountsPersonCreateRelationshipParams{Owner: stripe.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	upd, err := sc.V2CoreAccountsPersons.Update(ctx, owner.ID, &stripe.V2CoreAccountsPersonUpdateParams{AccountID: stripe.String(a.ID),
		DateOfBirth: &stripe.V2CoreAccountsPersonUpdateDateOfBirthParams{Day: stripe.Int64(2), Month: stripe.Int64(3), Year: stripe.Int64(1980)}})
	if err != nil {
		t.Fatalf("update person: %v", err)
	}
	if upd.GivenName != "Max" || upd.DateOfBirth == nil || upd.DateOfBirth.Year != 1980 || !upd.Relationship.Owner {
		t.Errorf("updated person = %+v", upd)
	}
	got, err := sc.V2CoreAccountsPersons.Retrieve(ctx, owner.ID, &stripe.V2CoreAccountsPersonRetrieveParams{AccountID: stripe.String(a.ID)})
	if err != nil || got.DateOfBirth == nil || got.DateOfBirth.Month != 3 {
		t.Errorf("retrieve person: %+v %v", got, err)
	}

	var ids []string
	for p, err := range sc.V2CoreAccountsPersons.List(ctx, &stripe.V2CoreAccountsPersonListParams{AccountID: stripe.String(a.ID), Limit: stripe.Int64(1)}).All(ctx) {
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		ids = append(ids, p.ID)
	}
	if !slices.Equal(ids, []string{owner.ID, rep.ID}) {
		t.Errorf("listed %v, want %v newest first across pages", ids, []string{owner.ID, rep.ID})
	}
	// The second page links back to the first, and its token is its account's alone.
	get := func(path string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer sk_test_persons")
		req.Header.Set("Service-Version", "2026-05-27.dahlia")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	_, first := get("/v2/core/accounts/" + a.ID + "/persons?limit=1")
	next, _ := first["next_page_url"].(string)
	code, second := get(next)
	if prev, _ := second["previous_page_url"].(string); code != 200 || prev == "" {
		t.Errorf("second page: %d %v, want a previous_page_url", code, second)
	} else if _, back := get(prev); back["data"].([]any)[0].(map[string]any)["id"] != owner.ID {
		t.Errorf("previous page %v, want the first", back)
	}
	if code, body := get(strings.Replace(next, a.ID, createRecipient(t, sc, "Elsewhere").ID, 1)); code != 400 {
		t.Errorf("a page token on another account's list: %d %v, want 400", code, body)
	}

	del, err := sc.V2CoreAccountsPersons.Delete(ctx, rep.ID, &stripe.V2CoreAccountsPersonDeleteParams{AccountID: stripe.String(a.ID)})
	if err != nil || del.ID != rep.ID || del.Object != "v2.core.account_person" {
		t.Fatalf("delete: %+v %v", del, err)
	}
	_, err = sc.V2CoreAccountsPersons.Retrieve(ctx, rep.ID, &stripe.V2CoreAccountsPersonRetrieveParams{AccountID: stripe.String(a.ID)})
	v2Error(t, err, http.StatusNotFound, "not_found")
	if got := read(); !slices.Contains(got, "relationship.representative") {
		t.Errorf("requirements %v after the representative was deleted, want it again", got)
	}

	// A person of one account is not found under another.
	other := createRecipient(t, sc, "Other")
	_, err = sc.V2CoreAccountsPersons.Retrieve(ctx, owner.ID, &stripe.V2CoreAccountsPersonRetrieveParams{AccountID: stripe.String(other.ID)})
	v2Error(t, err, http.StatusNotFound, "not_found")
}

// TestSDKTokens: account and person tokens are made, read, and used once by a create or
// update; a used or expired token is refused.
func TestSDKTokens(t *testing.T) {
	clk := &sdkClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	srv := startSDKServer(t, func(c *server.Config) { c.Now = clk.Now })
	sc := newSDKClient(t, srv, "sk_test_tokens")
	ctx := context.Background()

	tok, err := sc.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{
		DisplayName: stripe.String("Tokenized"), ContactPhone: stripe.String("+15555550101"),
		Identity: &stripe.V2CoreAccountTokenCreateIdentityParams{EntityType: stripe.String("individual"),
			Individual: &stripe.V2CoreAccountTokenCreateIdentityIndividualParams{GivenName: stripe.String("Jenny")}},
	})
	if err != nil {
		t.Fatalf("create account token: %v", err)
	}
	// Ids as docs.stripe.com shows them: accttok_61RS0CgWt1xBt8M1Q16RS0Cg0WSQO5ZXUVpZxZ9tAIbY.
	if tok.Object != "v2.core.account_token" || tok.Used || !tok.ExpiresAt.After(tok.Created) || !strings.HasPrefix(tok.ID, "accttok_") || len(tok.ID) != 52 {
		t.Errorf("token = %+v", tok)
	}
	a, err := sc.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{AccountToken: stripe.String(tok.ID), ContactEmail: stripe.String("t@example.com"),
		Include: []*string{stripe.String("identity")}})
	if err != nil {
		t.Fatalf("create with token: %v", err)
	}
	if a.DisplayName != "Tokenized" || a.ContactPhone != "+15555550101" || a.ContactEmail != "t@example.com" || a.Identity.Individual == nil || a.Identity.Individual.GivenName != "Jenny" {
		t.Errorf("account from token = %+v (identity %+v)", a, a.Identity)
	}
	if got, err := sc.V2CoreAccountTokens.Retrieve(ctx, tok.ID, nil); err != nil || !got.Used {
		t.Errorf("retrieve used token: %+v %v", got, err)
	}
	_, err = sc.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{AccountToken: stripe.String(tok.ID)})
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")

	late, err := sc.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{DisplayName: stripe.String("Late")})
	if err != nil {
		t.Fatal(err)
	}
	clk.advance(late.ExpiresAt.Sub(late.Created))
	_, err = sc.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{AccountToken: stripe.String(late.ID)})
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")

	ptok, err := sc.V2CoreAccountsPersonTokens.Create(ctx, &stripe.V2CoreAccountsPersonTokenCreateParams{AccountID: stripe.String(a.ID),
		GivenName: stripe.String("Max"), Relationship: &stripe.V2CoreAccountsPersonTokenCreateRelationshipParams{Director: stripe.Bool(true)}})
	if err != nil {
		t.Fatalf("create person token: %v", err)
	}
	if ptok.Object != "v2.core.account_person_token" || ptok.Used {
		t.Errorf("person token = %+v", ptok)
	}
	p, err := sc.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{AccountID: stripe.String(a.ID), PersonToken: stripe.String(ptok.ID), Surname: stripe.String("Power")})
	if err != nil {
		t.Fatalf("create person with token: %v", err)
	}
	if p.GivenName != "Max" || p.Surname != "Power" || p.Relationship == nil || !p.Relationship.Director {
		t.Errorf("person from token = %+v", p)
	}
	if got, err := sc.V2CoreAccountsPersonTokens.Retrieve(ctx, ptok.ID, &stripe.V2CoreAccountsPersonTokenRetrieveParams{AccountID: stripe.String(a.ID)}); err != nil || !got.Used {
		t.Errorf("retrieve used person token: %+v %v", got, err)
	}
	_, err = sc.V2CoreAccountsPersons.Update(ctx, p.ID, &stripe.V2CoreAccountsPersonUpdateParams{AccountID: stripe.String(a.ID), PersonToken: stripe.String(ptok.ID)})
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")

	// Another platform's token is not found.
	stranger := newSDKClient(t, srv, "sk_live_tokens")
	_, err = stranger.V2CoreAccountTokens.Retrieve(ctx, tok.ID, nil)
	v2Error(t, err, http.StatusNotFound, "not_found")
}

// TestSDKTokenUsedOnce: creates racing with one account token: exactly one uses it.
func TestSDKTokenUsedOnce(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_race")
	ctx := context.Background()
	tok, err := sc.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{DisplayName: stripe.String("Once")})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	made := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := sc.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{AccountToken: stripe.String(tok.ID)}); err == nil {
				mu.Lock()
				made++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if made != 1 {
		t.Errorf("%d accounts made with one token, want 1", made)
	}
}

// sdkClock is a clock tests move forward.
type sdkClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *sdkClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *sdkClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestSDKRelationshipsFeedRequirements: a company's owners, directors and executives are
// eventually due until a person with the relationship exists or the account attests they
// were all provided; they restrict no capability.
func TestSDKRelationshipsFeedRequirements(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_relationships")
	ctx := context.Background()
	params := recipientParams("Acme")
	params.Identity = &stripe.V2CoreAccountCreateIdentityParams{Country: stripe.String("DE"), EntityType: stripe.String("company")}
	a, err := sc.V2CoreAccounts.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	eventual := func() []string {
		t.Helper()
		got, err := sc.V2CoreAccounts.Retrieve(ctx, a.ID, &stripe.V2CoreAccountRetrieveParams{Include: []*string{stripe.String("requirements")}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range got.Requirements.Entries {
			if e.MinimumDeadline.Status == "eventually_due" {
				if len(e.Impact.RestrictsCapabilities) != 0 {
					t.Errorf("%s restricts %v, want nothing yet", e.Description, e.Impact.RestrictsCapabilities)
				}
				out = append(out, e.Description)
			}
		}
		return out
	}
	const owners, directors, executives = "identity.attestations.persons_provided.owners", "identity.attestations.persons_provided.directors", "identity.attestations.persons_provided.executives"
	if got := eventual(); !slices.Equal(got, []string{owners, directors, executives}) {
		t.Fatalf("eventually due %v", got)
	}
	if _, err := sc.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{AccountID: stripe.String(a.ID), GivenName: stripe.String("O"),
		Relationship: &stripe.V2CoreAccountsPersonCreateRelationshipParams{Owner: stripe.Bool(true), Executive: stripe.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if got := eventual(); !slices.Equal(got, []string{directors}) {
		t.Errorf("after an owner and executive: eventually due %v, want the directors", got)
	}
	if _, err := sc.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{Identity: &stripe.V2CoreAccountUpdateIdentityParams{
		Attestations: &stripe.V2CoreAccountUpdateIdentityAttestationsParams{PersonsProvided: &stripe.V2CoreAccountUpdateIdentityAttestationsPersonsProvidedParams{Directors: stripe.Bool(true)}}}}); err != nil {
		t.Fatal(err)
	}
	if got := eventual(); len(got) != 0 {
		t.Errorf("after the attestation: eventually due %v", got)
	}
}

// TestSDKPublishableKeys: a publishable key makes account and person tokens (in live mode
// only it may) and nothing else; a secret key makes tokens in test mode only.
func TestSDKPublishableKeys(t *testing.T) {
	srv := startSDKServer(t, nil)
	ctx := context.Background()
	secret, pub := newSDKClient(t, srv, "sk_test_keys"), newSDKClient(t, srv, "pk_test_keys")
	tok, err := pub.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{DisplayName: stripe.String("From the browser")})
	if err != nil {
		t.Fatalf("account token with a publishable key: %v", err)
	}
	a, err := secret.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{AccountToken: stripe.String(tok.ID)})
	if err != nil || a.DisplayName != "From the browser" {
		t.Fatalf("account from the browser's token: %+v %v", a, err)
	}
	if _, err := pub.V2CoreAccountsPersonTokens.Create(ctx, &stripe.V2CoreAccountsPersonTokenCreateParams{AccountID: stripe.String(a.ID), GivenName: stripe.String("P")}); err != nil {
		t.Errorf("person token with a publishable key: %v", err)
	}
	_, err = pub.V2CoreAccounts.Create(ctx, nil)
	if e := v2Error(t, err, http.StatusUnauthorized, ""); !strings.Contains(e.Message, "publishable API key") {
		t.Errorf("account create with a publishable key: %q", e.Message)
	}
	_, err = pub.V2CoreAccountTokens.Retrieve(ctx, tok.ID, nil)
	v2Error(t, err, http.StatusUnauthorized, "")

	liveSecret, livePub := newSDKClient(t, srv, "sk_live_keys"), newSDKClient(t, srv, "pk_live_keys")
	_, err = liveSecret.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{DisplayName: stripe.String("x")})
	v2Error(t, err, http.StatusBadRequest, "")
	live, err := livePub.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{DisplayName: stripe.String("x")})
	if err != nil || !live.Livemode {
		t.Errorf("live token with a live publishable key: %+v %v", live, err)
	}
}

// TestSeededOnboardedAccountsStillLoad: a seed file written before an individual had to give
// their name (an onboarded account with country and entity type only) still loads, and its
// capabilities are active: onboarding gave who is behind it.
func TestSeededOnboardedAccountsStillLoad(t *testing.T) {
	file := filepath.Join(t.TempDir(), "seed.yaml")
	seed := `accounts:
  accounts:
    - id: acct_0ldSeed000000001
      display_name: Old Seed
      contact_email: old@example.com
      identity: {country: US, entity_type: individual}
      onboarded: true
      configuration:
        recipient:
          capabilities: {stripe_balance: {stripe_transfers: {requested: true}}}
`
	if err := os.WriteFile(file, []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := understudytest.Start(t, understudytest.WithSeedFile(file))
	sc := newSDKClient(t, srv, "sk_test_seed")
	a, err := sc.V2CoreAccounts.Retrieve(context.Background(), "acct_0ldSeed000000001", &stripe.V2CoreAccountRetrieveParams{
		Include: []*string{stripe.String("requirements"), stripe.String("configuration.recipient")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Requirements.Entries) != 0 || a.Configuration.Recipient.Capabilities.StripeBalance.StripeTransfers.Status != "active" {
		t.Errorf("requirements %+v, recipient %+v", a.Requirements.Entries, a.Configuration.Recipient.Capabilities.StripeBalance.StripeTransfers)
	}
}
