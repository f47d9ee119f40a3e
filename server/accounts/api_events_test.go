package accounts_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/accounts"
)

// TestAPIEvents drives every event and event destination operation through the generated
// client, each response checked against the spec, and the events an account's update and
// close emit.
func TestAPIEvents(t *testing.T) {
	release := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // an endpoint that does not answer: requests must not wait for it
	}))
	// Cleanups run last first: this one after the server has stopped, which must end the
	// attempt in flight rather than wait for it.
	t.Cleanup(func() { close(release); hook.Close() })
	env := newAPIEnv(t)
	c := env.client(apiTestKey)

	created, err := c.CreateEventDestinationWithResponse(apiCtx, &gen.CreateEventDestinationParams{ServiceVersion: apiVersion}, gen.CreateEventDestinationRequest{
		Name: "all", Type: gen.EventDestinationTypeWebhookEndpoint, EventPayload: gen.EventPayloadThin,
		EnabledEvents:   []string{"v2.core.account.created", "v2.core.account.updated", "v2.core.account.closed"},
		WebhookEndpoint: &gen.WebhookEndpointParams{Url: hook.URL},
		EventsFrom:      []gen.EventsFrom{gen.EventsFromSelf},
		Include:         []gen.EventDestinationCreateInclude{gen.EventDestinationCreateIncludeWebhookEndpointUrl, gen.EventDestinationCreateIncludeWebhookEndpointSigningSecret},
	})
	if err != nil || created.JSON200 == nil {
		t.Fatalf("create destination: %v %s", err, created.Body)
	}
	d := *created.JSON200
	if d.WebhookEndpoint.MustGet().Url.MustGet() != hook.URL || !strings.HasPrefix(d.WebhookEndpoint.MustGet().SigningSecret.MustGet(), "whsec_") {
		t.Errorf("created webhook_endpoint %s", created.Body)
	}

	start := time.Now()
	acct := apiCreateAccount(t, c, recipientAccount())
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("creating an account took %v with a destination that does not answer", took)
	}
	up, err := c.UpdateAccountWithResponse(apiCtx, acct.Id, &gen.UpdateAccountParams{ServiceVersion: apiVersion}, gen.UpdateAccountRequest{
		DisplayName: nullable.NewNullableWithValue("Jenny"), Identity: &gen.V2CoreAccountUpdateIdentityParams{Country: nullable.NewNullableWithValue("US")},
		Configuration: &gen.V2CoreAccountUpdateConfigurationParams{Customer: &gen.V2CoreAccountUpdateConfigurationCustomerParams{}},
	})
	if err != nil || up.JSON200 == nil {
		t.Fatalf("update: %v %s", err, up.Body)
	}
	closed, err := c.CloseAccountWithResponse(apiCtx, acct.Id, &gen.CloseAccountParams{ServiceVersion: apiVersion}, gen.CloseAccountRequest{
		AppliedConfigurations: []gen.ConfigurationType{gen.ConfigurationTypeCustomer, gen.ConfigurationTypeRecipient}})
	if err != nil || closed.JSON200 == nil {
		t.Fatalf("close: %v %s", err, closed.Body)
	}

	list, err := c.ListEventsWithResponse(apiCtx, &gen.ListEventsParams{ServiceVersion: apiVersion, ObjectId: &acct.Id})
	if err != nil || list.JSON200 == nil {
		t.Fatalf("list events: %v %s", err, list.Body)
	}
	var types []string
	for _, ev := range list.JSON200.Data {
		types = append(types, ev.Type)
	}
	want := []string{"v2.core.account.closed", "v2.core.account[requirements].updated", "v2.core.account[configuration.customer].updated",
		"v2.core.account[identity].updated", "v2.core.account.updated", "v2.core.account.created"}
	if !slices.Equal(types, want) {
		t.Errorf("events, newest first: %q, want %q", types, want)
	}
	ev, err := c.RetrieveEventWithResponse(apiCtx, list.JSON200.Data[0].Id, &gen.RetrieveEventParams{ServiceVersion: apiVersion})
	if err != nil || ev.JSON200 == nil || ev.JSON200.Type != "v2.core.account.closed" || ev.JSON200.RelatedObject.MustGet().Id != acct.Id {
		t.Fatalf("retrieve event: %v %s", err, ev.Body)
	}
	if r := ev.JSON200.Reason.MustGet(); r.Request.Id != closed.HTTPResponse.Header.Get("Request-Id") {
		t.Errorf("reason %+v, want the close request %s", r, closed.HTTPResponse.Header.Get("Request-Id"))
	}
	missing, err := c.RetrieveEventWithResponse(apiCtx, "evt_test_nothing", &gen.RetrieveEventParams{ServiceVersion: apiVersion})
	if err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, missing.StatusCode(), missing.Body, http.StatusNotFound, "invalid_request_error", "not_found")

	got, err := c.RetrieveEventDestinationWithResponse(apiCtx, d.Id, &gen.RetrieveEventDestinationParams{ServiceVersion: apiVersion,
		Include: []gen.EventDestinationInclude{gen.EventDestinationIncludeWebhookEndpointUrl}})
	if err != nil || got.JSON200 == nil || got.JSON200.WebhookEndpoint.MustGet().Url.MustGet() != hook.URL || !got.JSON200.WebhookEndpoint.MustGet().SigningSecret.IsNull() {
		t.Fatalf("retrieve destination: %v %s", err, got.Body)
	}
	name := "renamed"
	upd, err := c.UpdateEventDestinationWithResponse(apiCtx, d.Id, &gen.UpdateEventDestinationParams{ServiceVersion: apiVersion},
		gen.UpdateEventDestinationRequest{Name: &name, Metadata: &gen.MetadataUpdate{"k": ptrTo("v")}})
	if err != nil || upd.JSON200 == nil || upd.JSON200.Name != name || upd.JSON200.Metadata["k"] != "v" {
		t.Fatalf("update destination: %v %s", err, upd.Body)
	}
	dis, err := c.DisableEventDestinationWithResponse(apiCtx, d.Id, &gen.DisableEventDestinationParams{ServiceVersion: apiVersion}, gen.EmptyRequest{})
	if err != nil || dis.JSON200 == nil || dis.JSON200.Status != gen.V2CoreEventDestinationStatusDisabled {
		t.Fatalf("disable: %v %s", err, dis.Body)
	}
	en, err := c.EnableEventDestinationWithResponse(apiCtx, d.Id, &gen.EnableEventDestinationParams{ServiceVersion: apiVersion}, gen.EmptyRequest{})
	if err != nil || en.JSON200 == nil || en.JSON200.Status != gen.V2CoreEventDestinationStatusEnabled || !en.JSON200.StatusDetails.IsNull() {
		t.Fatalf("enable: %v %s", err, en.Body)
	}
	ping, err := c.PingEventDestinationWithResponse(apiCtx, d.Id, &gen.PingEventDestinationParams{ServiceVersion: apiVersion}, gen.EmptyRequest{})
	if err != nil || ping.JSON200 == nil || ping.JSON200.Type != "v2.core.event_destination.ping" {
		t.Fatalf("ping: %v %s", err, ping.Body)
	}
	dl, err := c.ListEventDestinationsWithResponse(apiCtx, &gen.ListEventDestinationsParams{ServiceVersion: apiVersion})
	if err != nil || dl.JSON200 == nil || len(dl.JSON200.Data) != 1 || !dl.JSON200.NextPageUrl.IsNull() {
		t.Fatalf("list destinations: %v %s", err, dl.Body)
	}
	del, err := c.DeleteEventDestinationWithResponse(apiCtx, d.Id, &gen.DeleteEventDestinationParams{ServiceVersion: apiVersion})
	if err != nil || del.JSON200 == nil || del.JSON200.Id != d.Id {
		t.Fatalf("delete: %v %s", err, del.Body)
	}
	again, err := c.DeleteEventDestinationWithResponse(apiCtx, d.Id, &gen.DeleteEventDestinationParams{ServiceVersion: apiVersion})
	if err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, again.StatusCode(), again.Body, http.StatusNotFound, "invalid_request_error", "not_found")

	// Validation, in the v2 envelope: a member the API does not define, a bad include, a
	// page token of another list's filter.
	bad, err := c.CreateEventDestinationWithBodyWithResponse(apiCtx, &gen.CreateEventDestinationParams{ServiceVersion: apiVersion}, "application/json",
		strings.NewReader(`{"name":"x","type":"webhook_endpoint","event_payload":"thin","enabled_events":["v2.core.account.created"],"webhook_endpoint":{"url":"https://x.example"},"colour":"red"}`))
	if err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, bad.StatusCode(), bad.Body, http.StatusBadRequest, "invalid_request_error", "parameter_unknown")
	resp, err := env.srvGet("/v2/core/events?created[gt]=yesterday")
	if err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, resp.status, resp.body, http.StatusBadRequest, "invalid_request_error", "parameter_invalid")
}

func ptrTo[T any](v T) *T { return &v }

type rawResponse struct {
	status int
	body   []byte
}

// srvGet sends a GET with the test key and the service version, outside the generated client.
func (e *apiEnv) srvGet(path string) (rawResponse, error) {
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		return rawResponse{}, err
	}
	req.Header.Set("Authorization", "Bearer "+apiTestKey)
	req.Header.Set("Service-Version", apiVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return rawResponse{}, err
	}
	return rawResponse{status: resp.StatusCode, body: []byte(readBody(resp))}, nil
}

// TestAzureEventGridDestination: API version 2026-05-27.dahlia has Azure Event Grid
// destinations (stripe-node 22.2.0, which pins that version: "Add support for
// azure_event_grid on V2.Core.EventDestinationCreateParams and V2.Core.EventDestination",
// with the type azure_event_grid and the disabled reason no_azure_partner_topic_exists).
// Like an EventBridge one it is kept and never delivered to: its partner topic is never
// activated here, so it is disabled.
func TestAzureEventGridDestination(t *testing.T) {
	env := newAPIEnv(t)
	c := env.client(apiTestKey)
	send := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		status, b := env.send(method, path, body)
		var out map[string]any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return status, out
	}
	grid := `"azure_event_grid":{"azure_region":"eastus","azure_resource_group_name":"payments","azure_subscription_id":"a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"}`
	status, d := send(http.MethodPost, "/v2/core/event_destinations", `{"name":"azure","type":"azure_event_grid","event_payload":"thin","enabled_events":["v2.core.account.created"],`+grid+`}`)
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, d)
	}
	eg, _ := d["azure_event_grid"].(map[string]any)
	if d["type"] != "azure_event_grid" || d["webhook_endpoint"] != nil || d["amazon_eventbridge"] != nil || eg == nil ||
		eg["azure_region"] != "eastus" || eg["azure_resource_group_name"] != "payments" || eg["azure_subscription_id"] != "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2" ||
		eg["azure_partner_topic_status"] != "never_activated" || eg["azure_partner_topic_name"] == "" {
		t.Errorf("created %v", d)
	}
	if d["status"] != "disabled" || !reflect.DeepEqual(d["status_details"], map[string]any{"disabled": map[string]any{"reason": "no_azure_partner_topic_exists"}}) {
		t.Errorf("status %v %v, want disabled: no_azure_partner_topic_exists", d["status"], d["status_details"])
	}
	id := d["id"].(string)
	got, err := c.RetrieveEventDestinationWithResponse(apiCtx, id, &gen.RetrieveEventDestinationParams{ServiceVersion: apiVersion})
	if err != nil || got.StatusCode() != http.StatusOK {
		t.Fatalf("retrieve: %v %s", err, got.Body)
	}
	// Every other type answers azure_event_grid: null.
	hook, _ := send(http.MethodPost, "/v2/core/event_destinations", `{"name":"hook","type":"webhook_endpoint","event_payload":"thin","enabled_events":["v2.core.account.created"],"webhook_endpoint":{"url":"https://platform.example/hook"}}`)
	if hook != http.StatusOK {
		t.Fatalf("a webhook endpoint: %d", hook)
	}
	list, err := c.ListEventDestinationsWithResponse(apiCtx, &gen.ListEventDestinationsParams{ServiceVersion: apiVersion})
	if err != nil || list.StatusCode() != http.StatusOK {
		t.Fatalf("list: %v %s", err, list.Body)
	}
	var raw struct{ Data []map[string]any }
	_ = json.Unmarshal(list.Body, &raw)
	for _, o := range raw.Data {
		if v, ok := o["azure_event_grid"]; !ok || (o["type"] != "azure_event_grid") != (v == nil) {
			t.Errorf("%v: azure_event_grid %v (present %t)", o["id"], v, ok)
		}
	}

	// The type and its configuration go together.
	for body, code := range map[string]string{
		`{"name":"x","type":"azure_event_grid","event_payload":"thin","enabled_events":["v2.core.account.created"]}`:                                                                      "parameter_missing",
		`{"name":"x","type":"webhook_endpoint","event_payload":"thin","enabled_events":["v2.core.account.created"],"webhook_endpoint":{"url":"https://platform.example/x"},` + grid + `}`: "parameter_invalid",
		`{"name":"x","type":"azure_event_grid","event_payload":"thin","enabled_events":["v2.core.account.created"],"webhook_endpoint":{"url":"https://platform.example/x"},` + grid + `}`: "parameter_invalid",
	} {
		status, out := send(http.MethodPost, "/v2/core/event_destinations", body)
		raw, _ := json.Marshal(out)
		wantAPIError(t, status, raw, http.StatusBadRequest, "invalid_request_error", code)
	}
}
