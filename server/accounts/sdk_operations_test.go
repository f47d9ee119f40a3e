package accounts_test

// More of each stripe-go v2 core operation, called as a platform would call it: the
// members of each answer checked against what was sent, lists walked a page at a time
// with .All, and what a delete or a foreign key leaves behind read back as the SDK's error.
// The other SDK tests (sdk_test.go, sdk_members_test.go, events_test.go) call every
// operation too; these take the cases they leave out.

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
)

// sdkNotFound asserts that err is what stripe-go v85 makes of a 404 not_found: a
// *stripe.V2RawError (its v2 errors are never a *stripe.Error; see sdk_test.go).
func sdkNotFound(t *testing.T, err error) {
	t.Helper()
	v2Error(t, err, http.StatusNotFound, "not_found")
}

// allPages walks a stripe-go list with .All and fails on an error or an endless list.
func allPages[T any](t *testing.T, l *stripe.V2List[T]) []T {
	t.Helper()
	var out []T
	for v, err := range l.All(context.Background()) {
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		if out = append(out, v); len(out) > 1000 {
			t.Fatal("list: more than 1000 items, pagination does not end")
		}
	}
	return out
}

// TestSDKAccountIncludes: every section an account can include comes back when named and
// stays away when not, on create, retrieve and update alike.
func TestSDKAccountIncludes(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_includes")
	ctx := context.Background()
	p := recipientParams("Included")
	p.Identity = &stripe.V2CoreAccountCreateIdentityParams{Country: stripe.String("US"), EntityType: stripe.String("individual")}
	p.Configuration.Customer = &stripe.V2CoreAccountCreateConfigurationCustomerParams{
		Billing: &stripe.V2CoreAccountCreateConfigurationCustomerBillingParams{
			Invoice: &stripe.V2CoreAccountCreateConfigurationCustomerBillingInvoiceParams{Prefix: stripe.String("INC")}}}
	p.Configuration.Merchant = &stripe.V2CoreAccountCreateConfigurationMerchantParams{MCC: stripe.String("5734")}
	a, err := sc.V2CoreAccounts.Create(ctx, p)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	all := []string{"configuration.customer", "configuration.merchant", "configuration.recipient", "defaults", "future_requirements", "identity", "requirements"}
	check := func(t *testing.T, a *stripe.V2CoreAccount, include []string) {
		t.Helper()
		has := func(s string) bool { return slices.Contains(include, s) }
		if got := a.Identity != nil; got != has("identity") {
			t.Errorf("identity present %v, want %v", got, has("identity"))
		} else if a.Identity != nil && (a.Identity.Country != "US" || a.Identity.EntityType != "individual") {
			t.Errorf("identity %+v, want US individual", a.Identity)
		}
		if got := a.Requirements != nil; got != has("requirements") {
			t.Errorf("requirements present %v, want %v", got, has("requirements"))
		} else if a.Requirements != nil && len(a.Requirements.Entries) == 0 {
			t.Error("requirements: no entries, want what onboarding must collect")
		}
		if got := a.FutureRequirements != nil; got != has("future_requirements") {
			t.Errorf("future_requirements present %v, want %v", got, has("future_requirements"))
		}
		// defaults is always returned (docs/accounts.md).
		if a.Defaults == nil || a.Defaults.Responsibilities == nil {
			t.Errorf("defaults %+v, want it with responsibilities", a.Defaults)
		}
		var cu, me, re bool
		if c := a.Configuration; c != nil {
			cu, me, re = c.Customer != nil, c.Merchant != nil, c.Recipient != nil
			if cu && (c.Customer.Billing == nil || c.Customer.Billing.Invoice == nil || c.Customer.Billing.Invoice.Prefix != "INC") {
				t.Errorf("configuration.customer %+v, want the invoice prefix", c.Customer)
			}
			if me && c.Merchant.MCC != "5734" {
				t.Errorf("configuration.merchant.mcc %q, want 5734", c.Merchant.MCC)
			}
			if re && !c.Recipient.Applied {
				t.Error("configuration.recipient.applied false")
			}
		}
		for name, got := range map[string]bool{"configuration.customer": cu, "configuration.merchant": me, "configuration.recipient": re} {
			if got != has(name) {
				t.Errorf("%s present %v, want %v", name, got, has(name))
			}
		}
	}
	for _, include := range [][]string{nil, all, {"identity"}, {"configuration.merchant", "future_requirements"}} {
		t.Run(fmt.Sprint(include), func(t *testing.T) {
			got, err := sc.V2CoreAccounts.Retrieve(ctx, a.ID, &stripe.V2CoreAccountRetrieveParams{Include: stripe.StringSlice(include)})
			if err != nil {
				t.Fatalf("retrieve: %v", err)
			}
			check(t, got, include)
			up, err := sc.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{Include: stripe.StringSlice(include)})
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			check(t, up, include)
		})
	}
	_, err = sc.V2CoreAccounts.Retrieve(ctx, a.ID, &stripe.V2CoreAccountRetrieveParams{Include: stripe.StringSlice([]string{"configuration.storer"})})
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")
	_, err = sc.V2CoreAccounts.Retrieve(ctx, "acct_doesnotexist1234567", nil)
	sdkNotFound(t, err)
}

// TestSDKCloseWithoutConfigurations: an account with no configuration closes with no
// params, and its contact details go; a second close is refused.
func TestSDKCloseWithoutConfigurations(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_closebare")
	ctx := context.Background()
	a, err := sc.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{DisplayName: stripe.String("Bare"), ContactEmail: stripe.String("bare@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	closed, err := sc.V2CoreAccounts.Close(ctx, a.ID, nil)
	if err != nil {
		t.Fatalf("close: %v", err)
	}
	if closed.ID != a.ID || !closed.Closed || closed.ContactEmail != "" || len(closed.AppliedConfigurations) != 0 {
		t.Errorf("closed %+v", closed)
	}
	got, err := sc.V2CoreAccounts.Retrieve(ctx, a.ID, nil)
	if err != nil || !got.Closed {
		t.Errorf("retrieve the closed account: %+v %v", got, err)
	}
	_, err = sc.V2CoreAccounts.Close(ctx, a.ID, nil)
	v2Error(t, err, http.StatusBadRequest, "account_closed")
	_, err = sc.V2CoreAccounts.Close(ctx, "acct_doesnotexist1234567", nil)
	sdkNotFound(t, err)
}

// TestSDKAccountUpdateLink: a link for the account_update use case echoes what was asked,
// with collection options defaulted, and is refused for a closed account.
func TestSDKAccountUpdateLink(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_updatelink")
	ctx := context.Background()
	a := createRecipient(t, sc, "Updating")
	params := &stripe.V2CoreAccountLinkCreateParams{
		Account: stripe.String(a.ID),
		UseCase: &stripe.V2CoreAccountLinkCreateUseCaseParams{
			Type: stripe.String("account_update"),
			AccountUpdate: &stripe.V2CoreAccountLinkCreateUseCaseAccountUpdateParams{
				Configurations: stripe.StringSlice([]string{"recipient"}),
				RefreshURL:     stripe.String("https://platform.example.com/refresh"),
				ReturnURL:      stripe.String("https://platform.example.com/return"),
				CollectionOptions: &stripe.V2CoreAccountLinkCreateUseCaseAccountUpdateCollectionOptionsParams{
					FutureRequirements: stripe.String("include"),
				},
			},
		},
	}
	l, err := sc.V2CoreAccountLinks.Create(ctx, params)
	if err != nil {
		t.Fatalf("create link: %v", err)
	}
	if l.Object != "v2.core.account_link" || l.Account != a.ID || !strings.HasPrefix(l.URL, srv.URL+"/r/"+a.ID+"/") || l.ExpiresAt.Sub(l.Created) != 10*time.Minute {
		t.Errorf("link %+v", l)
	}
	uc := l.UseCase
	if uc == nil || uc.Type != stripe.V2CoreAccountLinkUseCaseTypeAccountUpdate || uc.AccountOnboarding != nil || uc.AccountUpdate == nil {
		t.Fatalf("use_case %+v, want account_update alone", uc)
	}
	up := uc.AccountUpdate
	if !slices.Equal(up.Configurations, []stripe.V2CoreAccountLinkUseCaseAccountUpdateConfiguration{"recipient"}) ||
		up.RefreshURL != "https://platform.example.com/refresh" || up.ReturnURL != "https://platform.example.com/return" {
		t.Errorf("account_update %+v", up)
	}
	if co := up.CollectionOptions; co == nil || co.FutureRequirements != "include" || co.Fields != "currently_due" {
		t.Errorf("collection_options %+v, want future_requirements include and fields defaulted to currently_due", co)
	}

	if _, err := sc.V2CoreAccounts.Close(ctx, a.ID, &stripe.V2CoreAccountCloseParams{AppliedConfigurations: stripe.StringSlice([]string{"recipient"})}); err != nil {
		t.Fatal(err)
	}
	_, err = sc.V2CoreAccountLinks.Create(ctx, params)
	v2Error(t, err, http.StatusBadRequest, "account_closed")
}

// TestSDKPersonsAcrossPages: three persons, read back as sent, listed one a page; after a
// delete the list and a second delete no longer find the person.
func TestSDKPersonsAcrossPages(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_personpages")
	ctx := context.Background()
	a := createRecipient(t, sc, "Staffed")
	var made []*stripe.V2CoreAccountPerson
	for i, name := range []string{"Ann", "Bob", "Cy"} {
		p, err := sc.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{
			AccountID: stripe.String(a.ID), GivenName: stripe.String(name), Surname: stripe.String("Smith"),
			Email: stripe.String(strings.ToLower(name) + "@example.com"), Phone: stripe.String("+1555555010" + fmt.Sprint(i)),
			Nationalities: stripe.StringSlice([]string{"US"}),
			Address:       &stripe.V2CoreAccountsPersonCreateAddressParams{Country: stripe.String("US"), City: stripe.String("Springfield")},
			Relationship:  &stripe.V2CoreAccountsPersonCreateRelationshipParams{Director: stripe.Bool(i == 0)},
			Metadata:      map[string]string{"n": fmt.Sprint(i)},
		})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		made = append([]*stripe.V2CoreAccountPerson{p}, made...) // newest first
	}
	for _, p := range made {
		got, err := sc.V2CoreAccountsPersons.Retrieve(ctx, p.ID, &stripe.V2CoreAccountsPersonRetrieveParams{AccountID: stripe.String(a.ID)})
		if err != nil {
			t.Fatalf("retrieve %s: %v", p.ID, err)
		}
		if got.ID != p.ID || got.Object != "v2.core.account_person" || got.Account != a.ID || got.Livemode || got.GivenName != p.GivenName ||
			got.Surname != "Smith" || got.Email != p.Email || got.Phone != p.Phone || !slices.Equal(got.Nationalities, []string{"US"}) ||
			got.Address == nil || got.Address.City != "Springfield" || !maps.Equal(got.Metadata, p.Metadata) ||
			!got.Created.Equal(p.Created) || !got.Updated.Equal(p.Updated) || got.Relationship == nil || got.Relationship.Director != p.Relationship.Director {
			t.Errorf("retrieved %+v, want %+v", got, p)
		}
	}
	ids := func() []string {
		var out []string
		for _, p := range allPages(t, sc.V2CoreAccountsPersons.List(ctx, &stripe.V2CoreAccountsPersonListParams{AccountID: stripe.String(a.ID), Limit: stripe.Int64(1)})) {
			if p.Account != a.ID {
				t.Errorf("listed person %s of account %s", p.ID, p.Account)
			}
			out = append(out, p.ID)
		}
		return out
	}
	if got, want := ids(), []string{made[0].ID, made[1].ID, made[2].ID}; !slices.Equal(got, want) {
		t.Errorf("listed one a page %v, want %v", got, want)
	}
	del, err := sc.V2CoreAccountsPersons.Delete(ctx, made[1].ID, &stripe.V2CoreAccountsPersonDeleteParams{AccountID: stripe.String(a.ID)})
	if err != nil || del.ID != made[1].ID || del.Object != "v2.core.account_person" {
		t.Fatalf("delete: %+v %v", del, err)
	}
	if got, want := ids(), []string{made[0].ID, made[2].ID}; !slices.Equal(got, want) {
		t.Errorf("listed after the delete %v, want %v", got, want)
	}
	_, err = sc.V2CoreAccountsPersons.Delete(ctx, made[1].ID, &stripe.V2CoreAccountsPersonDeleteParams{AccountID: stripe.String(a.ID)})
	sdkNotFound(t, err)
	_, err = sc.V2CoreAccountsPersons.Update(ctx, made[1].ID, &stripe.V2CoreAccountsPersonUpdateParams{AccountID: stripe.String(a.ID), GivenName: stripe.String("Back")})
	sdkNotFound(t, err)
	// A person's list under an account the key does not see.
	for _, err := range sc.V2CoreAccountsPersons.List(ctx, &stripe.V2CoreAccountsPersonListParams{AccountID: stripe.String("acct_doesnotexist1234567")}).All(ctx) {
		sdkNotFound(t, err)
		break
	}
}

// TestSDKTokensReadBack: an unused account or person token reads back as it was created;
// a person token is its account's alone.
func TestSDKTokensReadBack(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_tokenread")
	ctx := context.Background()
	tok, err := sc.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{DisplayName: stripe.String("Unused")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc.V2CoreAccountTokens.Retrieve(ctx, tok.ID, nil)
	if err != nil {
		t.Fatalf("retrieve: %v", err)
	}
	if got.ID != tok.ID || got.Object != "v2.core.account_token" || got.Livemode || got.Used || !got.Created.Equal(tok.Created) ||
		!got.ExpiresAt.Equal(tok.ExpiresAt) || got.ExpiresAt.Sub(got.Created) != 10*time.Minute {
		t.Errorf("retrieved %+v, want %+v, expiring ten minutes after its creation", got, tok)
	}
	_, err = sc.V2CoreAccountTokens.Retrieve(ctx, "accttok_doesnotexist", nil)
	sdkNotFound(t, err)

	a, b := createRecipient(t, sc, "Holder"), createRecipient(t, sc, "Other")
	ptok, err := sc.V2CoreAccountsPersonTokens.Create(ctx, &stripe.V2CoreAccountsPersonTokenCreateParams{AccountID: stripe.String(a.ID), GivenName: stripe.String("Jenny")})
	if err != nil {
		t.Fatal(err)
	}
	pgot, err := sc.V2CoreAccountsPersonTokens.Retrieve(ctx, ptok.ID, &stripe.V2CoreAccountsPersonTokenRetrieveParams{AccountID: stripe.String(a.ID)})
	if err != nil {
		t.Fatalf("retrieve person token: %v", err)
	}
	if pgot.ID != ptok.ID || pgot.Object != "v2.core.account_person_token" || pgot.Livemode || pgot.Used || !pgot.Created.Equal(ptok.Created) ||
		!pgot.ExpiresAt.Equal(ptok.ExpiresAt) || pgot.ExpiresAt.Sub(pgot.Created) != 10*time.Minute {
		t.Errorf("retrieved %+v, want %+v", pgot, ptok)
	}
	_, err = sc.V2CoreAccountsPersonTokens.Retrieve(ctx, ptok.ID, &stripe.V2CoreAccountsPersonTokenRetrieveParams{AccountID: stripe.String(b.ID)})
	sdkNotFound(t, err)
	// Nor does another account's person take it.
	_, err = sc.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{AccountID: stripe.String(b.ID), PersonToken: stripe.String(ptok.ID)})
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")
}

// TestSDKEventDestinationsMore: no URL in a list without include; an update that moves
// the URL answers the new one, and events follow it; a deleted destination is not found
// by any operation nor listed; events_from, description and metadata are kept as sent.
func TestSDKEventDestinationsMore(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_destmore")
	ctx := context.Background()
	first, second := newWebhookServer(t, nil), newWebhookServer(t, nil)
	d := createWebhookDestination(t, sc, first.URL, "v2.core.account.created")
	other := createWebhookDestination(t, sc, first.URL, "v2.core.account.updated")

	for _, ed := range allPages(t, sc.V2CoreEventDestinations.List(ctx, nil)) {
		if ed.WebhookEndpoint == nil || ed.WebhookEndpoint.URL != "" {
			t.Errorf("listed without include: webhook_endpoint %+v, want no URL", ed.WebhookEndpoint)
		}
	}

	up, err := sc.V2CoreEventDestinations.Update(ctx, d.ID, &stripe.V2CoreEventDestinationUpdateParams{
		WebhookEndpoint: &stripe.V2CoreEventDestinationUpdateWebhookEndpointParams{URL: stripe.String(second.URL)},
		Include:         stripe.StringSlice([]string{"webhook_endpoint.url"}),
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if up.WebhookEndpoint == nil || up.WebhookEndpoint.URL != second.URL || up.Name != d.Name || !slices.Equal(up.EnabledEvents, d.EnabledEvents) || up.Updated.Before(d.Updated) {
		t.Errorf("updated %+v (webhook_endpoint %+v)", up, up.WebhookEndpoint)
	}
	// The moved destination's events go to the new URL, signed with the same secret.
	createRecipient(t, sc, "Moved")
	waitFor(t, "the event at the new URL", func() bool { return len(second.delivered()) >= 1 })
	if types, _ := eventTypesOf(t, sc, d.WebhookEndpoint.SigningSecret, second.delivered()); !slices.Equal(types, []string{"v2.core.account.created"}) {
		t.Errorf("delivered %q", types)
	}

	if _, err := sc.V2CoreEventDestinations.Delete(ctx, d.ID, nil); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"retrieve": func() error { _, err := sc.V2CoreEventDestinations.Retrieve(ctx, d.ID, nil); return err },
		"update": func() error {
			_, err := sc.V2CoreEventDestinations.Update(ctx, d.ID, &stripe.V2CoreEventDestinationUpdateParams{Name: stripe.String("x")})
			return err
		},
		"delete":  func() error { _, err := sc.V2CoreEventDestinations.Delete(ctx, d.ID, nil); return err },
		"enable":  func() error { _, err := sc.V2CoreEventDestinations.Enable(ctx, d.ID, nil); return err },
		"disable": func() error { _, err := sc.V2CoreEventDestinations.Disable(ctx, d.ID, nil); return err },
		"ping":    func() error { _, err := sc.V2CoreEventDestinations.Ping(ctx, d.ID, nil); return err },
	} {
		t.Run("deleted/"+name, func(t *testing.T) { sdkNotFound(t, call()) })
	}
	if got := allPages(t, sc.V2CoreEventDestinations.List(ctx, nil)); len(got) != 1 || got[0].ID != other.ID {
		t.Errorf("listed after the delete: %+v, want %s alone", got, other.ID)
	}

	from, err := sc.V2CoreEventDestinations.Create(ctx, &stripe.V2CoreEventDestinationCreateParams{
		Name: stripe.String("connected"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("thin"),
		EnabledEvents:   stripe.StringSlice([]string{"v2.core.account.created"}),
		EventsFrom:      stripe.StringSlice([]string{"@self"}),
		Description:     stripe.String("self"),
		Metadata:        map[string]string{"k": "v"},
		WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(first.URL)},
	})
	if err != nil {
		t.Fatalf("create with events_from: %v", err)
	}
	got, err := sc.V2CoreEventDestinations.Retrieve(ctx, from.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.EventsFrom, []string{"@self"}) || got.Description != "self" || got.Metadata["k"] != "v" || got.Name != "connected" ||
		got.Object != "v2.core.event_destination" || got.Status != "enabled" || got.StatusDetails != nil || got.AmazonEventbridge != nil {
		t.Errorf("retrieved %+v", got)
	}
}

// TestSDKEventsAcrossPages: events listed one a page with .All are each retrieved, with the
// same id, type, creation time and related object, decoded into their own SDK types.
func TestSDKEventsAcrossPages(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_eventpages")
	ctx := context.Background()
	a := createRecipient(t, sc, "Evented")
	p, err := sc.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{AccountID: stripe.String(a.ID), GivenName: stripe.String("Jenny")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{DisplayName: stripe.String("Renamed")}); err != nil {
		t.Fatal(err)
	}
	listed := allPages(t, sc.V2CoreEvents.List(ctx, &stripe.V2CoreEventListParams{Limit: stripe.Int64(1)}))
	var types []string
	for _, ev := range listed {
		types = append(types, baseOf(ev).Type)
	}
	want := []string{"v2.core.account.updated", "v2.core.account_person.created", "v2.core.account.created"}
	if !slices.Equal(types, want) {
		t.Fatalf("listed one a page %q, want %q", types, want)
	}
	for _, ev := range listed {
		base := baseOf(ev)
		got, err := sc.V2CoreEvents.Retrieve(ctx, base.ID, nil)
		if err != nil {
			t.Fatalf("retrieve %s: %v", base.ID, err)
		}
		gb := baseOf(got)
		if gb.ID != base.ID || gb.Type != base.Type || !gb.Created.Equal(base.Created) || gb.Object != "v2.core.event" || gb.Livemode {
			t.Errorf("retrieved %+v, want %+v", gb, base)
		}
		switch e := got.(type) {
		case *stripe.V2CoreAccountUpdatedEvent:
			if e.RelatedObject.ID != a.ID || e.RelatedObject.URL != "/v2/core/accounts/"+a.ID {
				t.Errorf("account.updated related object %+v", e.RelatedObject)
			}
		case *stripe.V2CoreAccountPersonCreatedEvent:
			if e.RelatedObject.ID != p.ID || e.Data.AccountID != a.ID {
				t.Errorf("account_person.created related object %+v, data %+v", e.RelatedObject, e.Data)
			}
		case *stripe.V2CoreAccountCreatedEvent:
			if e.RelatedObject.ID != a.ID || e.Reason == nil || e.Reason.Request == nil || !strings.HasPrefix(e.Reason.Request.ID, "req_") {
				t.Errorf("account.created related object %+v, reason %+v", e.RelatedObject, e.Reason)
			}
		default:
			t.Errorf("retrieved %s as %T", gb.Type, got)
		}
	}
	// Filters hold from page to page: the account's own events, one a page.
	var about []string
	for _, ev := range allPages(t, sc.V2CoreEvents.List(ctx, &stripe.V2CoreEventListParams{Limit: stripe.Int64(1), ObjectID: stripe.String(a.ID),
		Types: stripe.StringSlice([]string{"v2.core.account.created", "v2.core.account.updated"})})) {
		about = append(about, baseOf(ev).Type)
	}
	if want := []string{"v2.core.account.updated", "v2.core.account.created"}; !slices.Equal(about, want) {
		t.Errorf("the account's events one a page: %q, want %q", about, want)
	}

	// A ping's event is an event like any other: retrieved, and its related object fetched.
	hook := newWebhookServer(t, nil)
	d := createWebhookDestination(t, sc, hook.URL, "v2.core.account.closed")
	ping, err := sc.V2CoreEventDestinations.Ping(ctx, d.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc.V2CoreEvents.Retrieve(ctx, baseOf(ping).ID, nil)
	if err != nil {
		t.Fatalf("retrieve the ping: %v", err)
	}
	pe, ok := got.(*stripe.V2CoreEventDestinationPingEvent)
	if !ok || pe.RelatedObject.ID != d.ID || pe.RelatedObject.Type != "v2.core.event_destination" {
		t.Fatalf("retrieved the ping as %T %+v", got, got)
	}
	dest, err := pe.FetchRelatedObject(ctx)
	if err != nil || dest.ID != d.ID || dest.Name != d.Name {
		t.Errorf("the ping's related object: %+v %v", dest, err)
	}

	_, err = sc.V2CoreEvents.Retrieve(ctx, "evt_test_doesnotexist", nil)
	sdkNotFound(t, err)
}

// TestSDKEventDestinationListInclude: include=webhook_endpoint.url holds on every page.
// stripe-go's iterator sends its params with the first page only and then follows
// next_page_url as it is ("the next page URL already contains all of the query
// parameters", iter.go), so the URL must carry include, as it carries the events' filters.
func TestSDKEventDestinationListInclude(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_destinclude")
	ctx := context.Background()
	hook := newWebhookServer(t, nil)
	var want []string
	for range 3 {
		want = append([]string{createWebhookDestination(t, sc, hook.URL, "v2.core.account.created").ID}, want...) // newest first
	}
	listed := allPages(t, sc.V2CoreEventDestinations.List(ctx, &stripe.V2CoreEventDestinationListParams{
		Limit: stripe.Int64(1), Include: stripe.StringSlice([]string{"webhook_endpoint.url"})}))
	var ids []string
	for i, ed := range listed {
		ids = append(ids, ed.ID)
		if ed.WebhookEndpoint == nil || ed.WebhookEndpoint.URL != hook.URL || ed.WebhookEndpoint.SigningSecret != "" {
			t.Errorf("page %d: webhook_endpoint %+v, want the URL alone", i+1, ed.WebhookEndpoint)
		}
	}
	if !slices.Equal(ids, want) {
		t.Errorf("listed %q, want %q", ids, want)
	}
}

// TestSDKSnapshotDestinationTakesNoThinType: a snapshot destination refuses a thin event
// type on update as its creation does; otherwise the update would have it sent the thin
// events it cannot take.
func TestSDKSnapshotDestinationTakesNoThinType(t *testing.T) {
	srv := startSDKServer(t, nil)
	sc := newSDKClient(t, srv, "sk_test_snapshotdest")
	ctx := context.Background()
	hook := newWebhookServer(t, nil)
	params := func(events ...string) *stripe.V2CoreEventDestinationCreateParams {
		return &stripe.V2CoreEventDestinationCreateParams{
			Name: stripe.String("snapshots"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("snapshot"),
			SnapshotAPIVersion: stripe.String("2025-09-30.clover"), EnabledEvents: stripe.StringSlice(events),
			WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(hook.URL)},
		}
	}
	_, err := sc.V2CoreEventDestinations.Create(ctx, params("v2.core.account.created"))
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")
	d, err := sc.V2CoreEventDestinations.Create(ctx, params("customer.created"))
	if err != nil {
		t.Fatal(err)
	}
	if d.EventPayload != "snapshot" || d.SnapshotAPIVersion != "2025-09-30.clover" || !slices.Equal(d.EnabledEvents, []string{"customer.created"}) {
		t.Errorf("created %+v", d)
	}
	_, err = sc.V2CoreEventDestinations.Update(ctx, d.ID, &stripe.V2CoreEventDestinationUpdateParams{
		EnabledEvents: stripe.StringSlice([]string{"customer.updated", "v2.core.account.created"})})
	if e := v2Error(t, err, http.StatusBadRequest, "parameter_invalid"); !strings.Contains(e.Message, "enabled_events[1]") {
		t.Errorf("message %q, want it to name enabled_events[1]", e.Message)
	}
	got, err := sc.V2CoreEventDestinations.Retrieve(ctx, d.ID, nil)
	if err != nil || !slices.Equal(got.EnabledEvents, []string{"customer.created"}) {
		t.Errorf("after the refused update: %+v %v, want enabled_events unchanged", got, err)
	}
	up, err := sc.V2CoreEventDestinations.Update(ctx, d.ID, &stripe.V2CoreEventDestinationUpdateParams{EnabledEvents: stripe.StringSlice([]string{"customer.updated"})})
	if err != nil || !slices.Equal(up.EnabledEvents, []string{"customer.updated"}) {
		t.Errorf("a snapshot type on update: %+v %v", up, err)
	}
}
