package accounts_test

// Events and event destinations, driven with stripe-go: thin events arrive at a test
// webhook server, signed, and are verified with the SDK's own ParseEventNotification.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// webhookServer is a test webhook endpoint: it records what it receives and answers with
// the status fail says (200 when fail is nil or answers 0).
type webhookServer struct {
	*httptest.Server
	mu       sync.Mutex
	received []webhookDelivery
	fail     func(n int) int // n: how many requests came before this one
}

type webhookDelivery struct {
	body      []byte
	signature string
	status    int
}

func newWebhookServer(t *testing.T, fail func(n int) int) *webhookServer {
	t.Helper()
	w := &webhookServer{fail: fail}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		status := http.StatusOK
		if w.fail != nil {
			if s := w.fail(len(w.received)); s != 0 {
				status = s
			}
		}
		w.received = append(w.received, webhookDelivery{body: body, signature: r.Header.Get("Stripe-Signature"), status: status})
		w.mu.Unlock()
		rw.WriteHeader(status)
	}))
	t.Cleanup(w.Close)
	return w
}

// delivered returns the bodies the endpoint accepted (2xx), in the order they came.
func (w *webhookServer) delivered() []webhookDelivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []webhookDelivery
	for _, d := range w.received {
		if d.status < 300 {
			out = append(out, d)
		}
	}
	return out
}

func (w *webhookServer) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.received)
}

// waitFor polls until cond holds (deliveries run in the background), or fails the test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// eventTypesOf parses each delivery with the SDK, verifying its signature, and returns the
// notifications' types.
func eventTypesOf(t *testing.T, c *stripe.Client, secret string, ds []webhookDelivery) ([]string, []stripe.EventNotificationContainer) {
	t.Helper()
	var types []string
	var ns []stripe.EventNotificationContainer
	for _, d := range ds {
		n, err := c.ParseEventNotification(d.body, d.signature, secret)
		if err != nil {
			t.Fatalf("ParseEventNotification(%s): %v", d.body, err)
		}
		types = append(types, n.GetEventNotification().Type)
		ns = append(ns, n)
	}
	return types, ns
}

func createWebhookDestination(t *testing.T, c *stripe.Client, endpoint string, events ...string) *stripe.V2CoreEventDestination {
	t.Helper()
	d, err := c.V2CoreEventDestinations.Create(context.Background(), &stripe.V2CoreEventDestinationCreateParams{
		Name:            stripe.String("test webhooks"),
		Type:            stripe.String("webhook_endpoint"),
		EventPayload:    stripe.String("thin"),
		EnabledEvents:   stripe.StringSlice(events),
		WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(endpoint)},
		// The secret is shown by creation alone, and only when asked for.
		Include: stripe.StringSlice([]string{"webhook_endpoint.url", "webhook_endpoint.signing_secret"}),
	})
	if err != nil {
		t.Fatalf("create event destination: %v", err)
	}
	return d
}

// TestSDKOnboardingEvents runs a whole onboarding as a platform does: a webhook destination,
// an account, a link, the hosted form opened and submitted over HTTP, and the events that
// tell the platform it is done arriving at its endpoint, signed, in order; the SDK verifies
// them and fetches the full events and the related account.
func TestSDKOnboardingEvents(t *testing.T) {
	srv := startSDKServer(t, nil)
	c := newSDKClient(t, srv, "sk_test_onboardingEvents1")
	hook := newWebhookServer(t, nil)
	capability := "v2.core.account[configuration.recipient].capability_status_updated"
	dest := createWebhookDestination(t, c, hook.URL, "v2.core.account.created", "v2.core.account_link.returned", capability,
		"v2.core.account[requirements].updated")
	if dest.WebhookEndpoint == nil || !strings.HasPrefix(dest.WebhookEndpoint.SigningSecret, "whsec_") || dest.WebhookEndpoint.URL != hook.URL {
		t.Fatalf("creation's webhook_endpoint = %+v, want the URL and a whsec_ secret", dest.WebhookEndpoint)
	}
	secret := dest.WebhookEndpoint.SigningSecret

	// No entity type or country: the form collects them.
	acct := createRecipient(t, c, "Jenny Rosen")
	link, err := c.V2CoreAccountLinks.Create(context.Background(), onboardingLinkParams(acct.ID, "recipient"))
	if err != nil {
		t.Fatal(err)
	}
	e := &hostedEnv{t: t, url: srv.URL}
	browser, form := e.open(t, link.URL)
	resp := hostedPost(t, browser, link.URL, hostedValidForm(form))
	hostedRedirect(t, resp, http.StatusSeeOther, "https://platform.example.com/return")

	want := []string{"v2.core.account.created", "v2.core.account[requirements].updated", capability, "v2.core.account_link.returned"}
	waitFor(t, "four events", func() bool { return len(hook.delivered()) >= len(want) })
	types, ns := eventTypesOf(t, c, secret, hook.delivered())
	if !slices.Equal(types, want) {
		t.Fatalf("delivered %q, want %q", types, want)
	}
	for _, n := range ns {
		if got := n.GetEventNotification(); got.Livemode || !strings.HasPrefix(got.ID, "evt_test_") || got.Created.IsZero() {
			t.Errorf("notification %+v: want a test-mode evt_test_ id and a creation time", got)
		}
	}

	created, ok := ns[0].(*stripe.V2CoreAccountCreatedEventNotification)
	if !ok {
		t.Fatalf("first notification is %T", ns[0])
	}
	if created.RelatedObject.ID != acct.ID || created.RelatedObject.Type != "v2.core.account" {
		t.Errorf("related object %+v, want the account", created.RelatedObject)
	}
	if created.Reason == nil || created.Reason.Request == nil || !strings.HasPrefix(created.Reason.Request.ID, "req_") {
		t.Errorf("reason %+v, want the creating request", created.Reason)
	}
	acctEv, err := created.FetchRelatedObject(context.Background())
	if err != nil || acctEv.ID != acct.ID {
		t.Fatalf("FetchRelatedObject: %v, %+v", err, acctEv)
	}

	capN, ok := ns[2].(*stripe.V2CoreAccountIncludingConfigurationRecipientCapabilityStatusUpdatedEventNotification)
	if !ok {
		t.Fatalf("third notification is %T", ns[2])
	}
	capEv, err := capN.FetchEvent(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := capEv.Data.UpdatedCapability; got != "stripe_balance.stripe_transfers" {
		t.Errorf("updated_capability = %q", got)
	}
	a, err := capEv.FetchRelatedObject(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := a.Configuration; st != nil {
		t.Errorf("the related account is read without include: configuration %+v", st)
	}
	full, err := c.V2CoreAccounts.Retrieve(context.Background(), acct.ID, &stripe.V2CoreAccountRetrieveParams{Include: stripe.StringSlice([]string{"configuration.recipient"})})
	if err != nil {
		t.Fatal(err)
	}
	if got := full.Configuration.Recipient.Capabilities.StripeBalance.StripeTransfers.Status; got != "active" {
		t.Errorf("capability status %q after onboarding, want active", got)
	}

	returned, ok := ns[3].(*stripe.V2CoreAccountLinkReturnedEventNotification)
	if !ok {
		t.Fatalf("fourth notification is %T", ns[3])
	}
	if returned.Reason != nil {
		t.Errorf("the hosted form is no API request; reason = %+v", returned.Reason)
	}
	ev, err := returned.FetchEvent(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ev.Data.AccountID != acct.ID || ev.Data.UseCase != "account_onboarding" || !slices.Equal(ev.Data.Configurations, []stripe.V2CoreAccountLinkReturnedEventDataConfiguration{"recipient"}) {
		t.Errorf("account_link.returned data = %+v", ev.Data)
	}

	// A wrong secret fails the SDK's verification.
	if _, err := c.ParseEventNotification(hook.delivered()[0].body, hook.delivered()[0].signature, "whsec_wrong"); err == nil {
		t.Error("a notification verified with another secret")
	}

	// Every attempt is in the request journal, as deliverEvent.
	var journal struct {
		Requests []struct {
			OperationID string `json:"operationId"`
			Status      int    `json:"status"`
			RequestID   string `json:"requestId"`
		} `json:"requests"`
	}
	// The journal is written once the attempt is recorded, just after the endpoint answered.
	waitFor(t, "the journal's entries", func() bool {
		getJSON(t, srv.URL+"/_understudy/requests?operationId=deliverEvent", &journal)
		return len(journal.Requests) >= len(want)
	})
	if len(journal.Requests) != len(want) {
		t.Fatalf("journal has %d deliveries, want %d: %+v", len(journal.Requests), len(want), journal)
	}
	for _, r := range journal.Requests {
		if r.Status != http.StatusOK || !strings.HasPrefix(r.RequestID, "evt_test_") {
			t.Errorf("journal entry %+v", r)
		}
	}
}

func getJSON(t *testing.T, u string, out any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// TestSDKEventDestinations exercises every event destination operation.
func TestSDKEventDestinations(t *testing.T) {
	srv := startSDKServer(t, nil)
	ctx := context.Background()
	c := newSDKClient(t, srv, "sk_test_destinations1")
	hook := newWebhookServer(t, nil)
	d := createWebhookDestination(t, c, hook.URL, "v2.core.account.created")
	if d.Status != "enabled" || d.Type != "webhook_endpoint" || d.EventPayload != "thin" || d.Livemode || !strings.HasPrefix(d.ID, "ed_test_") ||
		!slices.Equal(d.EnabledEvents, []string{"v2.core.account.created"}) || d.Created.IsZero() || d.Updated.IsZero() {
		t.Fatalf("created %+v", d)
	}

	got, err := c.V2CoreEventDestinations.Retrieve(ctx, d.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.WebhookEndpoint == nil || got.WebhookEndpoint.URL != "" || got.WebhookEndpoint.SigningSecret != "" {
		t.Errorf("retrieve without include shows %+v", got.WebhookEndpoint)
	}
	got, err = c.V2CoreEventDestinations.Retrieve(ctx, d.ID, &stripe.V2CoreEventDestinationRetrieveParams{Include: stripe.StringSlice([]string{"webhook_endpoint.url"})})
	if err != nil {
		t.Fatal(err)
	}
	if got.WebhookEndpoint.URL != hook.URL || got.WebhookEndpoint.SigningSecret != "" {
		t.Errorf("retrieve with include shows %+v", got.WebhookEndpoint)
	}
	// The secret is "only includable on creation" (stripe-go); docs.stripe.com lists
	// webhook_endpoint.url alone for retrieve, list and update.
	_, err = c.V2CoreEventDestinations.Retrieve(ctx, d.ID, &stripe.V2CoreEventDestinationRetrieveParams{Include: stripe.StringSlice([]string{"webhook_endpoint.signing_secret"})})
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")
	_, err = c.V2CoreEventDestinations.Update(ctx, d.ID, &stripe.V2CoreEventDestinationUpdateParams{Include: stripe.StringSlice([]string{"webhook_endpoint.signing_secret"})})
	v2Error(t, err, http.StatusBadRequest, "parameter_invalid")
	// Creation without include shows neither.
	bare, err := c.V2CoreEventDestinations.Create(ctx, &stripe.V2CoreEventDestinationCreateParams{
		Name: stripe.String("bare"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("thin"),
		EnabledEvents:   stripe.StringSlice([]string{"v2.core.account.created"}),
		WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(hook.URL)},
	})
	if err != nil || bare.WebhookEndpoint == nil || bare.WebhookEndpoint.URL != "" || bare.WebhookEndpoint.SigningSecret != "" {
		t.Errorf("created without include: %+v %v", bare, err)
	}
	if _, err := c.V2CoreEventDestinations.Delete(ctx, bare.ID, nil); err != nil {
		t.Fatal(err)
	}

	up, err := c.V2CoreEventDestinations.Update(ctx, d.ID, &stripe.V2CoreEventDestinationUpdateParams{
		Name: stripe.String("renamed"), Description: stripe.String("onboarding"),
		EnabledEvents: stripe.StringSlice([]string{"v2.core.account.created", "v2.core.account.updated"}),
		Metadata:      map[string]*string{"team": stripe.String("growth")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.Name != "renamed" || up.Description != "onboarding" || len(up.EnabledEvents) != 2 || up.Metadata["team"] != "growth" {
		t.Errorf("updated %+v", up)
	}

	// Disabled: an account's creation is not sent; enabled again: it is.
	dis, err := c.V2CoreEventDestinations.Disable(ctx, d.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dis.Status != "disabled" || dis.StatusDetails == nil || dis.StatusDetails.Disabled.Reason != "user" {
		t.Errorf("disabled %+v", dis)
	}
	createRecipient(t, c, "Not Sent")
	en, err := c.V2CoreEventDestinations.Enable(ctx, d.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if en.Status != "enabled" || en.StatusDetails != nil {
		t.Errorf("enabled %+v", en)
	}
	sent := createRecipient(t, c, "Sent")
	waitFor(t, "the second account's event", func() bool { return hook.count() >= 1 })

	// Ping: an event for this destination alone, returned and delivered.
	ping, err := c.V2CoreEventDestinations.Ping(ctx, d.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	pe, ok := ping.(*stripe.V2CoreEventDestinationPingEvent)
	if !ok || pe.Type != "v2.core.event_destination.ping" || pe.RelatedObject.ID != d.ID {
		t.Fatalf("ping returned %T %+v", ping, ping)
	}
	waitFor(t, "the ping", func() bool { return hook.count() >= 2 })
	types, ns := eventTypesOf(t, c, d.WebhookEndpoint.SigningSecret, hook.delivered())
	if !slices.Equal(types, []string{"v2.core.account.created", "v2.core.event_destination.ping"}) {
		t.Fatalf("delivered %q", types)
	}
	if id := ns[0].(*stripe.V2CoreAccountCreatedEventNotification).RelatedObject.ID; id != sent.ID {
		t.Errorf("the created event is about %s, want %s (the account made while disabled is not sent)", id, sent.ID)
	}

	// List, a page at a time.
	second := createWebhookDestination(t, c, hook.URL, "v2.core.account.closed")
	var ids []string
	for ed, err := range c.V2CoreEventDestinations.List(ctx, &stripe.V2CoreEventDestinationListParams{Limit: stripe.Int64(1)}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ed.ID)
	}
	if !slices.Equal(ids, []string{second.ID, d.ID}) {
		t.Errorf("listed %q, want newest first %q", ids, []string{second.ID, d.ID})
	}
	// The other mode sees none of them.
	live := newSDKClient(t, srv, "sk_live_destinations1")
	if _, err := live.V2CoreEventDestinations.Retrieve(ctx, d.ID, nil); err == nil {
		t.Error("a live key read a test destination")
	} else {
		v2Error(t, err, http.StatusNotFound, "not_found")
	}

	del, err := c.V2CoreEventDestinations.Delete(ctx, d.ID, nil)
	if err != nil || del.ID != d.ID || del.Object != "v2.core.event_destination" {
		t.Fatalf("delete: %v %+v", err, del)
	}
	if _, err := c.V2CoreEventDestinations.Retrieve(ctx, d.ID, nil); err == nil {
		t.Error("a deleted destination is still read")
	} else {
		v2Error(t, err, http.StatusNotFound, "not_found")
	}

	// EventBridge: stored, disabled until its event source exists (it never does here).
	eb, err := c.V2CoreEventDestinations.Create(ctx, &stripe.V2CoreEventDestinationCreateParams{
		Name: stripe.String("aws"), Type: stripe.String("amazon_eventbridge"), EventPayload: stripe.String("thin"),
		EnabledEvents:     stripe.StringSlice([]string{"v2.core.account.created"}),
		AmazonEventbridge: &stripe.V2CoreEventDestinationCreateAmazonEventbridgeParams{AwsAccountID: stripe.String("123456789012"), AwsRegion: stripe.String("us-east-1")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if eb.AmazonEventbridge == nil || eb.AmazonEventbridge.AwsAccountID != "123456789012" || eb.WebhookEndpoint != nil || eb.Status != "disabled" {
		t.Errorf("eventbridge destination %+v", eb)
	}

	// Taken: a thin v1 type, as docs.stripe.com's example destination enables (never sent here).
	meter, err := c.V2CoreEventDestinations.Create(ctx, &stripe.V2CoreEventDestinationCreateParams{
		Name: stripe.String("meters"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("thin"),
		EnabledEvents:   stripe.StringSlice([]string{"v1.billing.meter.error_report_triggered"}),
		WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(hook.URL)},
	})
	if err != nil || !slices.Equal(meter.EnabledEvents, []string{"v1.billing.meter.error_report_triggered"}) {
		t.Errorf("a thin v1 billing meter type: %+v %v", meter, err)
	}

	// Refused: an event type that is not a thin one, a webhook destination without its URL.
	for code, p := range map[string]*stripe.V2CoreEventDestinationCreateParams{
		"parameter_invalid": {Name: stripe.String("x"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("thin"),
			EnabledEvents: stripe.StringSlice([]string{"v2.core.nothing"}), WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(hook.URL)}},
		"parameter_missing": {Name: stripe.String("x"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("thin"),
			EnabledEvents: stripe.StringSlice([]string{"v2.core.account.created"})},
	} {
		if _, err := c.V2CoreEventDestinations.Create(ctx, p); err == nil {
			t.Errorf("%s: accepted", code)
		} else {
			v2Error(t, err, http.StatusBadRequest, code)
		}
	}
}

// baseOf is the common part of any event the SDK decodes (its interface hides it).
func baseOf(ev stripe.V2CoreEvent) stripe.V2BaseEvent {
	return reflect.ValueOf(ev).Elem().FieldByName("V2BaseEvent").Interface().(stripe.V2BaseEvent)
}

// TestSDKEvents lists and retrieves events with the SDK's filters.
func TestSDKEvents(t *testing.T) {
	srv := startSDKServer(t, nil)
	ctx := context.Background()
	c := newSDKClient(t, srv, "sk_test_eventsList1")
	a := createRecipient(t, c, "First")
	b := createRecipient(t, c, "Second")
	if _, err := c.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{DisplayName: stripe.String("First, renamed")}); err != nil {
		t.Fatal(err)
	}
	type seen struct{ typ, object string }
	list := func(p *stripe.V2CoreEventListParams) []seen {
		t.Helper()
		var out []seen
		for ev, err := range c.V2CoreEvents.List(ctx, p).All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			base := baseOf(ev)
			obj := ""
			if r := reflect.ValueOf(ev).Elem().FieldByName("RelatedObject"); r.IsValid() {
				obj = r.Interface().(stripe.V2CoreEventRelatedObject).ID
			}
			out = append(out, seen{base.Type, obj})
		}
		return out
	}
	all := list(&stripe.V2CoreEventListParams{Limit: stripe.Int64(2)})
	want := []seen{{"v2.core.account.updated", a.ID}, {"v2.core.account.created", b.ID}, {"v2.core.account.created", a.ID}}
	if !slices.Equal(all, want) {
		t.Errorf("all events, two a page: %v, want %v", all, want)
	}
	if got := list(&stripe.V2CoreEventListParams{ObjectID: stripe.String(b.ID)}); !slices.Equal(got, want[1:2]) {
		t.Errorf("object_id: %v", got)
	}
	if got := list(&stripe.V2CoreEventListParams{Types: stripe.StringSlice([]string{"v2.core.account.updated"})}); !slices.Equal(got, want[:1]) {
		t.Errorf("types: %v", got)
	}
	future := time.Now().Add(24 * time.Hour).Unix()
	if got := list(&stripe.V2CoreEventListParams{Created: &stripe.RangeQueryParams{GreaterThan: future}}); len(got) != 0 {
		t.Errorf("created after tomorrow: %v", got)
	}
	if got := list(&stripe.V2CoreEventListParams{Created: &stripe.RangeQueryParams{LesserThan: future}}); len(got) != 3 {
		t.Errorf("created before tomorrow: %v", got)
	}

	var firstID string
	for ev, err := range c.V2CoreEvents.List(ctx, &stripe.V2CoreEventListParams{Types: stripe.StringSlice([]string{"v2.core.account.created"})}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		firstID = baseOf(ev).ID
		break
	}
	ev, err := c.V2CoreEvents.Retrieve(ctx, firstID, nil)
	if err != nil {
		t.Fatal(err)
	}
	created, ok := ev.(*stripe.V2CoreAccountCreatedEvent)
	if !ok || created.ID != firstID || created.RelatedObject.ID != b.ID || created.Reason == nil || created.Reason.Type != "request" {
		t.Errorf("retrieved %T %+v", ev, ev)
	}
	// Another platform's key, or the other mode, does not see it.
	if _, err := newSDKClient(t, srv, "sk_live_eventsList1").V2CoreEvents.Retrieve(ctx, firstID, nil); err == nil {
		t.Error("a live key read a test event")
	} else {
		v2Error(t, err, http.StatusNotFound, "not_found")
	}
}

// TestEventDeliveryRetries: a failing endpoint gets the event again after the backoff (on
// the server's clock), and the destination's later events wait behind it, in order.
func TestEventDeliveryRetries(t *testing.T) {
	srv := startSDKServer(t, nil)
	c := newSDKClient(t, srv, "sk_test_retries1")
	hook := newWebhookServer(t, func(n int) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return 0
	})
	d := createWebhookDestination(t, c, hook.URL, "v2.core.account.created")
	first := createRecipient(t, c, "First")
	second := createRecipient(t, c, "Second")
	waitFor(t, "the first attempt", func() bool { return hook.count() >= 1 })
	time.Sleep(200 * time.Millisecond) // several ticks: nothing more before the backoff
	if n := hook.count(); n != 1 {
		t.Fatalf("%d attempts before the backoff, want 1", n)
	}
	srv.AdvanceClock(t, time.Minute)
	waitFor(t, "the second attempt", func() bool { return hook.count() >= 2 })
	time.Sleep(200 * time.Millisecond)
	if n := hook.count(); n != 2 {
		t.Fatalf("%d attempts before the second backoff (two minutes), want 2", n)
	}
	srv.AdvanceClock(t, 2*time.Minute)
	waitFor(t, "both events", func() bool { return len(hook.delivered()) >= 2 })
	_, ns := eventTypesOf(t, c, d.WebhookEndpoint.SigningSecret, hook.delivered())
	var order []string
	for _, n := range ns {
		order = append(order, n.(*stripe.V2CoreAccountCreatedEventNotification).RelatedObject.ID)
	}
	if !slices.Equal(order, []string{first.ID, second.ID}) {
		t.Errorf("delivered about %q, want in order %q", order, []string{first.ID, second.ID})
	}
	var journal struct {
		Requests []struct {
			Status    int    `json:"status"`
			RequestID string `json:"requestId"`
		} `json:"requests"`
	}
	waitFor(t, "the journal's entries", func() bool {
		getJSON(t, srv.URL+"/_understudy/requests?operationId=deliverEvent", &journal)
		return len(journal.Requests) >= 4
	})
	var statuses []int
	for _, r := range slices.Backward(journal.Requests) {
		statuses = append(statuses, r.Status)
	}
	if want := []int{500, 500, 200, 200}; !slices.Equal(statuses, want) {
		t.Errorf("journal statuses, oldest first: %v, want %v", statuses, want)
	}
}

// TestEventDeliveryDurable: an event acknowledged in a durable state is delivered after a
// restart, though the endpoint was down before it.
func TestEventDeliveryDurable(t *testing.T) {
	dir := t.TempDir()
	down := true
	var mu sync.Mutex
	hook := newWebhookServer(t, func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if down {
			return http.StatusServiceUnavailable
		}
		return 0
	})
	srv := understudytest.Start(t, understudytest.WithDataDir(dir))
	c := newSDKClient(t, srv, "sk_test_durable1")
	d := createWebhookDestination(t, c, hook.URL, "v2.core.account.created")
	acct := createRecipient(t, c, "Durable")
	waitFor(t, "the failed attempt", func() bool { return hook.count() >= 1 })
	srv.Stop(t)

	mu.Lock()
	down = false
	mu.Unlock()
	srv = understudytest.Start(t, understudytest.WithDataDir(dir))
	srv.AdvanceClock(t, time.Minute)
	waitFor(t, "the delivery after the restart", func() bool { return len(hook.delivered()) >= 1 })
	c = newSDKClient(t, srv, "sk_test_durable1")
	_, ns := eventTypesOf(t, c, d.WebhookEndpoint.SigningSecret, hook.delivered())
	if id := ns[0].(*stripe.V2CoreAccountCreatedEventNotification).RelatedObject.ID; id != acct.ID {
		t.Errorf("delivered about %s, want %s", id, acct.ID)
	}
	// The numbering of events goes on: a new event lists before the old one.
	createRecipient(t, c, "After")
	var types []string
	for ev, err := range c.V2CoreEvents.List(context.Background(), nil).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, baseOf(ev).Type)
	}
	if len(types) != 2 {
		t.Errorf("events after the restart: %q", types)
	}
}

// storedObjects reads the server's count of stored records of a kind (its metrics).
func storedObjects(t *testing.T, srv *understudytest.Server, kind string) int {
	t.Helper()
	resp, err := http.Get(srv.URL + "/_understudy/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`understudy_stored_objects\{kind="` + regexp.QuoteMeta(kind) + `"\} (\d+)`).FindSubmatch(raw)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// TestRetention: links go LinkRetention after they can last be used (a visit then answers
// as for an unknown link, and a retry of the key that made one makes a new link), account
// and person tokens LinkRetention after they expire (likewise), expired
// Idempotency-Keys go when their window ends, events go after EventRetention; all are
// removed from the store, not just hidden.
func TestRetention(t *testing.T) {
	srv := startSDKServer(t, func(c *server.Config) {
		c.Accounts.LinkRetention = time.Hour
		c.Accounts.IdempotencyWindow = 2 * time.Hour
		c.Accounts.EventRetention = 3 * time.Hour
	})
	ctx := context.Background()
	c := newSDKClient(t, srv, "sk_test_retention1")
	acct := createRecipient(t, c, "Kept")
	params := onboardingLinkParams(acct.ID, "recipient")
	params.SetIdempotencyKey("link-key-1")
	link, err := c.V2CoreAccountLinks.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if n := storedObjects(t, srv, "accountLinks"); n != 1 {
		t.Fatalf("%d links stored, want 1", n)
	}
	// Account and person tokens expire in 10 minutes and go with the links' retention.
	tokParams := &stripe.V2CoreAccountTokenCreateParams{DisplayName: stripe.String("Tokenized")}
	tokParams.SetIdempotencyKey("token-key-1")
	tok, err := c.V2CoreAccountTokens.Create(ctx, tokParams)
	if err != nil {
		t.Fatal(err)
	}
	ptok, err := c.V2CoreAccountsPersonTokens.Create(ctx, &stripe.V2CoreAccountsPersonTokenCreateParams{AccountID: stripe.String(acct.ID), GivenName: stripe.String("Jenny")})
	if err != nil {
		t.Fatal(err)
	}
	if n := storedObjects(t, srv, "tokens"); n != 2 {
		t.Fatalf("%d tokens stored, want 2", n)
	}
	// stripe-go sends an Idempotency-Key with every POST: the account's creation has one too.
	keys := storedObjects(t, srv, "idempotencyKeys")
	browser := (&hostedEnv{t: t, url: srv.URL}).browser()

	// Expired (10 minutes) but within retention: the refresh URL, as before.
	srv.AdvanceClock(t, 30*time.Minute)
	hostedRedirect(t, hostedGet(t, browser, link.URL), http.StatusFound, "https://platform.example.com/refresh")
	if got, err := c.V2CoreAccountTokens.Retrieve(ctx, tok.ID, nil); err != nil || got.Used {
		t.Fatalf("expired token within retention: %v %+v", err, got)
	}

	// Past retention: unknown, and gone from the store (each with the key that made it).
	srv.AdvanceClock(t, time.Hour)
	hostedReadPage(t, hostedGet(t, browser, link.URL), http.StatusNotFound)
	_, err = c.V2CoreAccountTokens.Retrieve(ctx, tok.ID, nil)
	v2Error(t, err, http.StatusNotFound, "not_found")
	_, err = c.V2CoreAccountsPersonTokens.Retrieve(ctx, ptok.ID, &stripe.V2CoreAccountsPersonTokenRetrieveParams{AccountID: stripe.String(acct.ID)})
	v2Error(t, err, http.StatusNotFound, "not_found")
	waitFor(t, "the link's and tokens' removal", func() bool {
		return storedObjects(t, srv, "accountLinks") == 0 && storedObjects(t, srv, "tokens") == 0 &&
			storedObjects(t, srv, "idempotencyKeys") == keys-3
	})
	again, err := c.V2CoreAccountLinks.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if again.URL == link.URL {
		t.Error("the retried key answered the removed link")
	}
	tokAgain, err := c.V2CoreAccountTokens.Create(ctx, tokParams)
	if err != nil {
		t.Fatal(err)
	}
	if tokAgain.ID == tok.ID {
		t.Error("the retried key answered the removed token")
	}
	keys--

	// Every key goes when its window ends.
	if n := storedObjects(t, srv, "idempotencyKeys"); n != keys {
		t.Errorf("%d keys, want %d", n, keys)
	}
	srv.AdvanceClock(t, 2*time.Hour)
	waitFor(t, "the expired keys' removal", func() bool { return storedObjects(t, srv, "idempotencyKeys") == 0 })
	createRecipient(t, c, "Second")

	// Events older than three hours: gone (the first account's creation, 3.5 hours ago).
	events := func() int {
		n := 0
		for _, err := range c.V2CoreEvents.List(ctx, nil).All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n
	}
	if n := events(); n != 1 {
		t.Errorf("%d events listed, want only the second account's creation", n)
	}
	waitFor(t, "the old event's removal", func() bool { return storedObjects(t, srv, "events") == 1 })
}

// TestEventsUnderRace: racing creations with one Idempotency-Key make one destination; the
// events of racing account creations each reach the endpoint exactly once, in the order the
// events list them.
func TestEventsUnderRace(t *testing.T) {
	srv := startSDKServer(t, nil)
	ctx := context.Background()
	c := newSDKClient(t, srv, "sk_test_race1")
	hook := newWebhookServer(t, nil)
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &stripe.V2CoreEventDestinationCreateParams{
				Name: stripe.String("raced"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("thin"),
				EnabledEvents:   stripe.StringSlice([]string{"v2.core.account.created"}),
				WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(hook.URL)},
			}
			p.SetIdempotencyKey("one-destination")
			if d, err := c.V2CoreEventDestinations.Create(ctx, p); err == nil {
				ids[i] = d.ID
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, err := range c.V2CoreEventDestinations.List(ctx, nil).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Fatalf("%d destinations after racing creations with one key, want 1", n)
	}
	for _, id := range ids {
		if id != "" && id != ids[slices.IndexFunc(ids, func(s string) bool { return s != "" })] {
			t.Errorf("racing creations answered different destinations: %q", ids)
		}
	}

	const accounts = 20
	for range accounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.V2CoreAccounts.Create(ctx, recipientParams("Raced")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	waitFor(t, "every creation's event", func() bool { return len(hook.delivered()) >= accounts })
	time.Sleep(100 * time.Millisecond)
	var got []string
	for _, d := range hook.delivered() {
		var n struct{ ID string }
		if err := json.Unmarshal(d.body, &n); err != nil {
			t.Fatal(err)
		}
		got = append(got, n.ID)
	}
	var listed []string
	for ev, err := range c.V2CoreEvents.List(ctx, nil).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, baseOf(ev).ID)
	}
	slices.Reverse(listed) // oldest first, as delivered
	if !slices.Equal(got, listed) {
		t.Errorf("delivered %d events %q, want each once in the order listed %q", len(got), got, listed)
	}
}

// TestSDKPersonEvents: a person's create, update (through a person token too) and delete
// reach a webhook endpoint as v2.core.account_person.* events about the person, verified by
// stripe-go's ParseEventNotification; the representative meeting the account's requirement
// emits v2.core.account[requirements].updated, and deleting it again.
func TestSDKPersonEvents(t *testing.T) {
	srv := startSDKServer(t, nil)
	c := newSDKClient(t, srv, "sk_test_personEvents1")
	ctx := context.Background()
	hook := newWebhookServer(t, nil)
	const created, updated, deleted = "v2.core.account_person.created", "v2.core.account_person.updated", "v2.core.account_person.deleted"
	const reqs = "v2.core.account[requirements].updated"
	dest := createWebhookDestination(t, c, hook.URL, created, updated, deleted, reqs)

	params := recipientParams("Acme")
	params.Identity = &stripe.V2CoreAccountCreateIdentityParams{Country: stripe.String("DE"), EntityType: stripe.String("company")}
	a, err := c.V2CoreAccounts.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.V2CoreAccountsPersons.Create(ctx, &stripe.V2CoreAccountsPersonCreateParams{AccountID: stripe.String(a.ID),
		GivenName: stripe.String("Jenny"), Surname: stripe.String("Rosen"),
		Relationship: &stripe.V2CoreAccountsPersonCreateRelationshipParams{Representative: stripe.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.V2CoreAccountsPersonTokens.Create(ctx, &stripe.V2CoreAccountsPersonTokenCreateParams{AccountID: stripe.String(a.ID), Email: stripe.String("jenny@acme.example")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.ID, "perstok_") || len(tok.ID) != 52 { // as docs.stripe.com's perstok_61RS0Cg...
		t.Errorf("person token id %q", tok.ID)
	}
	if _, err := c.V2CoreAccountsPersons.Update(ctx, p.ID, &stripe.V2CoreAccountsPersonUpdateParams{AccountID: stripe.String(a.ID), PersonToken: stripe.String(tok.ID)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first three events", func() bool { return len(hook.delivered()) >= 3 })
	_, ns := eventTypesOf(t, c, dest.WebhookEndpoint.SigningSecret, hook.delivered()[:1])
	n, ok := ns[0].(*stripe.V2CoreAccountPersonCreatedEventNotification)
	if !ok {
		t.Fatalf("first notification is %T", ns[0])
	}
	if n.RelatedObject.ID != p.ID || n.RelatedObject.Type != "v2.core.account_person" ||
		n.RelatedObject.URL != "/v2/core/accounts/"+a.ID+"/persons/"+p.ID {
		t.Errorf("related object %+v, want the person", n.RelatedObject)
	}
	ev, err := n.FetchEvent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Data.AccountID != a.ID {
		t.Errorf("data.account_id = %q, want %q", ev.Data.AccountID, a.ID)
	}
	person, err := n.FetchRelatedObject(ctx)
	if err != nil || person.ID != p.ID || person.GivenName != "Jenny" {
		t.Fatalf("FetchRelatedObject: %v %+v", err, person)
	}

	if _, err := c.V2CoreAccountsPersons.Delete(ctx, p.ID, &stripe.V2CoreAccountsPersonDeleteParams{AccountID: stripe.String(a.ID)}); err != nil {
		t.Fatal(err)
	}
	want := []string{created, reqs, updated, deleted, reqs}
	waitFor(t, "five events", func() bool { return len(hook.delivered()) >= len(want) })
	types, ns := eventTypesOf(t, c, dest.WebhookEndpoint.SigningSecret, hook.delivered())
	if !slices.Equal(types, want) {
		t.Fatalf("delivered %q, want %q", types, want)
	}
	if r, ok := ns[1].(*stripe.V2CoreAccountIncludingRequirementsUpdatedEventNotification); !ok || r.RelatedObject.ID != a.ID {
		t.Errorf("second notification %T %+v, want the account's requirements", ns[1], ns[1])
	}
	if d, ok := ns[3].(*stripe.V2CoreAccountPersonDeletedEventNotification); !ok || d.RelatedObject.ID != p.ID {
		t.Errorf("fourth notification %T, want the person's deletion", ns[3])
	}
}

// TestSDKTokenChangesEmitEvents: an update that applies an account token emits the events
// the same members sent directly would (the account, its identity, its requirements), and a
// defaults change its own [defaults].updated, all from the one write path.
func TestSDKTokenChangesEmitEvents(t *testing.T) {
	srv := startSDKServer(t, nil)
	c := newSDKClient(t, srv, "sk_test_tokenEvents1")
	ctx := context.Background()
	a, err := c.V2CoreAccounts.Create(ctx, recipientParams("Tokened"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.V2CoreAccountTokens.Create(ctx, &stripe.V2CoreAccountTokenCreateParams{
		Identity: &stripe.V2CoreAccountTokenCreateIdentityParams{EntityType: stripe.String("individual"),
			Individual: &stripe.V2CoreAccountTokenCreateIdentityIndividualParams{GivenName: stripe.String("Jenny")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{AccountToken: stripe.String(tok.ID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.V2CoreAccounts.Update(ctx, a.ID, &stripe.V2CoreAccountUpdateParams{
		Defaults: &stripe.V2CoreAccountUpdateDefaultsParams{Currency: stripe.String("usd")}}); err != nil {
		t.Fatal(err)
	}
	var types []string
	for ev, err := range c.V2CoreEvents.List(ctx, &stripe.V2CoreEventListParams{ObjectID: stripe.String(a.ID)}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, baseOf(ev).Type)
	}
	slices.Reverse(types) // oldest first
	want := []string{"v2.core.account.created",
		"v2.core.account.updated", "v2.core.account[identity].updated", "v2.core.account[requirements].updated",
		"v2.core.account.updated", "v2.core.account[defaults].updated"}
	if !slices.Equal(types, want) {
		t.Errorf("events %q, want %q", types, want)
	}
}

// TestDeliveryLeaseOutlastsClockAdvance: an attempt in flight keeps its delivery however far
// the sandbox clock is advanced meanwhile (its lease is on the machine's time), so the event
// is sent once, not again by the next tick.
func TestDeliveryLeaseOutlastsClockAdvance(t *testing.T) {
	srv := startSDKServer(t, nil)
	c := newSDKClient(t, srv, "sk_test_leaseclock1")
	release := make(chan struct{})
	var calls atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		calls.Add(1)
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(hook.Close)
	createWebhookDestination(t, c, hook.URL, "v2.core.account.created")
	createRecipient(t, c, "Leased")
	waitFor(t, "the first attempt", func() bool { return calls.Load() >= 1 })
	srv.AdvanceClock(t, time.Hour)
	time.Sleep(300 * time.Millisecond) // several ticks of the deliverer
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d attempts while the first was in flight, want 1", n)
	}
	close(release)
	time.Sleep(300 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Errorf("%d attempts in all, want 1", n)
	}
}
