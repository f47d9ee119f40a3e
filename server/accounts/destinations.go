package accounts

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// EventDestination is a stored event destination: a webhook endpoint that receives the
// platform's events of the types it enables, or an Amazon EventBridge or Azure Event Grid
// destination, which is kept but never delivered to. Its object is as a retrieve that includes the webhook
// endpoint's URL and signing secret returns it; beside it, the platform it belongs to and
// its place in the lists.
type EventDestination struct {
	Object   gen.V2CoreEventDestination `json:"object"`
	Platform string                     `json:"platform"`
	Seq      uint64                     `json:"seq"`
}

// ID is the destination's id.
func (d EventDestination) ID() string { return d.Object.Id }

// Scope is the platform and mode the destination belongs to.
func (d EventDestination) Scope() string { return AccountScope(d.Platform, d.Object.Livemode) }

// delivers says whether new events are queued for the destination.
func (d EventDestination) delivers() bool {
	w, _ := d.Object.WebhookEndpoint.Get()
	return d.Object.Status == gen.V2CoreEventDestinationStatusEnabled && d.Object.Type == gen.EventDestinationTypeWebhookEndpoint && nullableValue(w.Url) != ""
}

// destinationObject is the object type of an event destination.
const destinationObject = "v2.core.event_destination"

// CreateEventDestination creates an event destination of the caller's platform and mode.
func (s *Server) CreateEventDestination(ctx context.Context, req gen.CreateEventDestinationRequestObject) (gen.CreateEventDestinationResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := *req.Body
	if err := checkMetadataKeys(deref(body.Metadata)); err != nil {
		return nil, err
	}
	if err := checkDestination(body); err != nil {
		return nil, err
	}
	c := callerFrom(ctx)
	var made EventDestination
	id, err := s.idempotent(ctx, "createEventDestination", req.Params.IdempotencyKey, body, func() (string, error) {
		id, now := s.randomID(destinationIDPrefix(c.livemode), 24), s.now()
		obj := treeOf(body)
		delete(obj, "include")
		obj["id"], obj["created"], obj["updated"], obj["livemode"] = id, timestamp(now), timestamp(now), c.livemode
		if body.Type == gen.EventDestinationTypeWebhookEndpoint {
			setPath(obj, "webhook_endpoint.signing_secret", "whsec_"+s.random(32))
		}
		d := EventDestination{Platform: c.platform.id}
		if err := fillDestination(&d, obj); err != nil {
			return "", err
		}
		return id, s.db.Update(ctx, func(tx *store.Tx) error {
			d.Seq = s.next(tx, seqDestinations)
			if err := s.tables.Destinations.Put(tx, d.ID(), d); err != nil {
				return err
			}
			made = d
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if made.ID() != id {
		if made, err = s.destination(ctx, id); err != nil {
			return nil, err
		}
	}
	// Only creation can show the signing secret, and only when asked (stripe-go: "only
	// includable on creation"); the URL, when asked, as everywhere.
	out := renderDestination(made, slices.Contains(body.Include, gen.EventDestinationCreateIncludeWebhookEndpointUrl),
		slices.Contains(body.Include, gen.EventDestinationCreateIncludeWebhookEndpointSigningSecret))
	return gen.CreateEventDestination200JSONResponse{Body: out, Headers: gen.CreateEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// fillDestination sets d.Object from its tree obj (a create request's members with the
// destination's id, created and livemode, an update applied to the object, or a seeded
// object), with what follows from the rest: the object type, its enabled event types and
// sources each once, an EventBridge destination's event source (which no AWS account ever
// associates: it stays pending and the destination disabled), an Event Grid destination's
// partner topic (which no Azure subscription ever activates: likewise), and its status.
func fillDestination(d *EventDestination, obj map[string]any) error {
	obj["object"] = destinationObject
	for _, k := range []string{"description", "name"} {
		if obj[k] == nil {
			obj[k] = ""
		}
	}
	for _, k := range []string{"enabled_events", "events_from"} {
		if l, ok := obj[k].([]any); ok {
			obj[k] = slices.Compact(uniqueValues(l))
		}
	}
	if l, _ := obj["events_from"].([]any); len(l) == 0 {
		obj["events_from"] = nil
	}
	if obj["enabled_events"] == nil {
		obj["enabled_events"] = []any{}
	}
	if _, ok := obj["metadata"].(map[string]any); !ok {
		obj["metadata"] = map[string]any{}
	}
	for _, k := range []string{"snapshot_api_version", "webhook_endpoint", "amazon_eventbridge", "azure_event_grid", "status_details"} {
		if _, ok := obj[k]; !ok {
			obj[k] = nil
		}
	}
	if eb, ok := obj["amazon_eventbridge"].(map[string]any); ok {
		if region, ok := take(eb, "aws_region"); ok { // as created
			eb["aws_event_source_arn"] = fmt.Sprintf("arn:aws:events:%v::event-source/aws.partner/stripe.com/%v", region, obj["id"])
			eb["aws_event_source_status"] = string(gen.AmazonEventbridgeAwsEventSourceStatusPending)
			setStatus(obj, false, gen.EventDestinationStatusDetailsDisabledReasonNoAwsEventSourceExists)
		}
	}
	if eg, ok := obj["azure_event_grid"].(map[string]any); ok {
		if _, named := eg["azure_partner_topic_name"]; !named { // as created
			// The partner topic's name is ours: the vendor documents none.
			eg["azure_partner_topic_name"] = fmt.Sprintf("stripe-%v", obj["id"])
			eg["azure_partner_topic_status"] = string(gen.AzureEventGridAzurePartnerTopicStatusNeverActivated)
			setStatus(obj, false, gen.EventDestinationStatusDetailsDisabledReasonNoAzurePartnerTopicExists)
		}
	}
	if obj["status"] == nil {
		obj["status"] = string(gen.V2CoreEventDestinationStatusEnabled)
	}
	o, err := objectOf[gen.V2CoreEventDestination](obj)
	d.Object = o
	return err
}

// setStatus enables a destination's object (the tree obj), or disables it for reason.
func setStatus(obj map[string]any, enabled bool, reason gen.EventDestinationStatusDetailsDisabledReason) {
	if enabled {
		obj["status"], obj["status_details"] = string(gen.V2CoreEventDestinationStatusEnabled), nil
		return
	}
	obj["status"], obj["status_details"] = string(gen.V2CoreEventDestinationStatusDisabled), map[string]any{"disabled": map[string]any{"reason": string(reason)}}
}

// uniqueValues is l with each value once, in the order first given.
func uniqueValues(l []any) []any {
	out := make([]any, 0, len(l))
	for _, v := range l {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// checkDestination refuses what the spec cannot say: a type without its configuration (or
// with another type's), thin payloads of types this API does not emit, snapshot payloads
// of v2 types (v2 events are thin only).
func checkDestination(b gen.CreateEventDestinationRequest) error {
	configured := [...]struct {
		typ gen.EventDestinationType
		set bool
	}{
		{gen.EventDestinationTypeAmazonEventbridge, b.AmazonEventbridge != nil},
		{gen.EventDestinationTypeAzureEventGrid, b.AzureEventGrid != nil},
		{gen.EventDestinationTypeWebhookEndpoint, b.WebhookEndpoint != nil},
	}
	for _, c := range configured {
		if c.typ == b.Type && !c.set {
			return invalidRequest(http.StatusBadRequest, "parameter_missing", "%s: required request field missing", b.Type)
		}
	}
	for _, c := range configured {
		if c.typ != b.Type && c.set {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "%s: must not be set when type is %s", c.typ, b.Type)
		}
	}
	if b.EventPayload == gen.EventPayloadSnapshot {
		if b.SnapshotApiVersion == nil {
			return invalidRequest(http.StatusBadRequest, "parameter_missing", "snapshot_api_version: required request field missing when event_payload is snapshot")
		}
	} else if b.SnapshotApiVersion != nil {
		return invalidRequest(http.StatusBadRequest, "parameter_invalid", "snapshot_api_version: only for event_payload snapshot")
	}
	return checkEnabledEvents(b.EventPayload, b.EnabledEvents)
}

// checkEnabledEvents holds a destination's enabled_events to its payload, on create and
// update alike: a thin destination takes the thin types alone, a snapshot one none of
// them (the events here are thin, and its endpoint expects snapshots).
func checkEnabledEvents(payload gen.EventPayload, types []string) error {
	if payload == gen.EventPayloadSnapshot {
		for i, t := range types {
			if slices.Contains(eventTypes, t) {
				return invalidRequest(http.StatusBadRequest, "parameter_invalid", "enabled_events[%d]: %s is a thin event type; use event_payload thin", i, t)
			}
		}
		return nil
	}
	return checkEventTypes(types)
}

func checkEventTypes(types []string) error {
	for i, t := range types {
		if !slices.Contains(eventTypes, t) {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "enabled_events[%d]: %q is not a thin event type", i, t)
		}
	}
	return nil
}

func destinationIDPrefix(livemode bool) string {
	if livemode {
		return "ed_"
	}
	return "ed_test_"
}

// destination finds an event destination of the caller's platform and mode.
func (s *Server) destination(ctx context.Context, id string) (EventDestination, error) {
	var d EventDestination
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		d, found = s.tables.Destinations.Get(tx, id)
		return nil
	}); err != nil {
		return d, err
	}
	if !found || d.Scope() != callerFrom(ctx).scope() {
		return d, errNotFound()
	}
	return d, nil
}

// changeDestination applies change to a destination of the caller (its object, as the
// tree obj) in one transaction.
func (s *Server) changeDestination(ctx context.Context, id string, change func(d EventDestination, obj map[string]any) error) error {
	scope := callerFrom(ctx).scope()
	return s.db.Update(ctx, func(tx *store.Tx) error {
		d, found := s.tables.Destinations.Get(tx, id)
		if !found || d.Scope() != scope {
			return errNotFound()
		}
		obj := treeOf(d.Object)
		if err := change(d, obj); err != nil {
			return err
		}
		obj["updated"] = timestamp(s.now())
		if err := fillDestination(&d, obj); err != nil {
			return err
		}
		return s.tables.Destinations.Put(tx, d.ID(), d)
	})
}

// RetrieveEventDestination reads an event destination.
func (s *Server) RetrieveEventDestination(ctx context.Context, req gen.RetrieveEventDestinationRequestObject) (gen.RetrieveEventDestinationResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	d, err := s.destination(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return gen.RetrieveEventDestination200JSONResponse{Body: renderDestination(d, slices.Contains(req.Params.Include, gen.EventDestinationIncludeWebhookEndpointUrl), false), Headers: gen.RetrieveEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// UpdateEventDestination changes an event destination: members sent replace the stored ones.
func (s *Server) UpdateEventDestination(ctx context.Context, req gen.UpdateEventDestinationRequestObject) (gen.UpdateEventDestinationResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := gen.UpdateEventDestinationRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	if err := checkMetadataKeys(deref(body.Metadata)); err != nil {
		return nil, err
	}
	_, err := s.idempotent(ctx, "updateEventDestination", req.Params.IdempotencyKey, onAccount{req.Id, body}, func() (string, error) {
		return req.Id, s.changeDestination(ctx, req.Id, func(d EventDestination, obj map[string]any) error {
			if body.EnabledEvents != nil {
				if err := checkEnabledEvents(d.Object.EventPayload, body.EnabledEvents); err != nil {
					return err
				}
			}
			if body.WebhookEndpoint != nil && d.Object.Type != gen.EventDestinationTypeWebhookEndpoint {
				return invalidRequest(http.StatusBadRequest, "parameter_invalid", "webhook_endpoint: the destination is of type %s", d.Object.Type)
			}
			change := treeOf(body)
			delete(change, "include")
			mergeTree(obj, change)
			if md, _ := obj["metadata"].(map[string]any); len(md) > maxMetadataKeys {
				return invalidRequest(http.StatusBadRequest, "parameter_invalid", "metadata: an object keeps at most %d keys; this update would leave %d", maxMetadataKeys, len(md))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	d, err := s.destination(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return gen.UpdateEventDestination200JSONResponse{Body: renderDestination(d, slices.Contains(body.Include, gen.EventDestinationIncludeWebhookEndpointUrl), false), Headers: gen.UpdateEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// DeleteEventDestination deletes an event destination and what still waits for it.
func (s *Server) DeleteEventDestination(ctx context.Context, req gen.DeleteEventDestinationRequestObject) (gen.DeleteEventDestinationResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	scope := callerFrom(ctx).scope()
	// A retry with the delete's Idempotency-Key answers as the delete did, not 404.
	_, err := s.idempotent(ctx, "deleteEventDestination", req.Params.IdempotencyKey, onAccount{req.Id, nil}, func() (string, error) {
		return req.Id, s.db.Update(ctx, func(tx *store.Tx) error {
			d, found := s.tables.Destinations.Get(tx, req.Id)
			if !found || d.Scope() != scope {
				return errNotFound()
			}
			s.tables.Destinations.Delete(tx, d.ID())
			var waiting []string
			s.tables.Deliveries.Scan(tx, d.ID()+"|", d.ID()+"}", nil, func(_ store.Cursor, dl Delivery) bool {
				waiting = append(waiting, dl.Key)
				return true
			})
			for _, k := range waiting {
				s.tables.Deliveries.Delete(tx, k)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	out := gen.V2DeletedObject{Id: req.Id, Object: "v2.core.event_destination"}
	return gen.DeleteEventDestination200JSONResponse{Body: out, Headers: gen.DeleteEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// EnableEventDestination enables a destination: events emitted from now on are queued for it.
func (s *Server) EnableEventDestination(ctx context.Context, req gen.EnableEventDestinationRequestObject) (gen.EnableEventDestinationResponseObject, error) {
	d, err := s.setDestinationEnabled(ctx, req.Id, req.Params.IdempotencyKey, true)
	if err != nil {
		return nil, err
	}
	return gen.EnableEventDestination200JSONResponse{Body: renderDestination(d, false, false), Headers: gen.EnableEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// DisableEventDestination disables a destination: events emitted while it is disabled are
// not queued for it.
func (s *Server) DisableEventDestination(ctx context.Context, req gen.DisableEventDestinationRequestObject) (gen.DisableEventDestinationResponseObject, error) {
	d, err := s.setDestinationEnabled(ctx, req.Id, req.Params.IdempotencyKey, false)
	if err != nil {
		return nil, err
	}
	return gen.DisableEventDestination200JSONResponse{Body: renderDestination(d, false, false), Headers: gen.DisableEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

func (s *Server) setDestinationEnabled(ctx context.Context, id string, key *string, enabled bool) (EventDestination, error) {
	if err := requireV2(ctx); err != nil {
		return EventDestination{}, err
	}
	op := "disableEventDestination"
	if enabled {
		op = "enableEventDestination"
	}
	_, err := s.idempotent(ctx, op, key, onAccount{id, nil}, func() (string, error) {
		return id, s.changeDestination(ctx, id, func(_ EventDestination, obj map[string]any) error {
			setStatus(obj, enabled, gen.EventDestinationStatusDetailsDisabledReasonUser)
			return nil
		})
	})
	if err != nil {
		return EventDestination{}, err
	}
	return s.destination(ctx, id)
}

// PingEventDestination emits a ping event for this destination alone and returns it.
func (s *Server) PingEventDestination(ctx context.Context, req gen.PingEventDestinationRequestObject) (gen.PingEventDestinationResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	scope := callerFrom(ctx).scope()
	id, err := s.idempotent(ctx, "pingEventDestination", req.Params.IdempotencyKey, onAccount{req.Id, nil}, func() (string, error) {
		var ev Event
		err := s.update(ctx, func(w *write) error {
			d, found := s.tables.Destinations.Get(w.Tx, req.Id)
			if !found || d.Scope() != scope {
				return errNotFound()
			}
			var err error
			ev, err = s.emit(ctx, w, eventOf{Type: evDestinationPing, Platform: d.Platform, Livemode: d.Object.Livemode, Only: d.ID(),
				Related: relatedObject{ID: d.ID(), Type: destinationObject, URL: "/v2/core/event_destinations/" + d.ID()}})
			return err
		})
		return ev.ID(), err
	})
	if err != nil {
		return nil, err
	}
	var ev Event
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		ev, found = s.tables.Events.Get(tx, id)
		return nil
	}); err != nil {
		return nil, err
	}
	if !found {
		return nil, errNotFound()
	}
	return gen.PingEventDestination200JSONResponse{Body: ev.Object, Headers: gen.PingEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// ListEventDestinations lists the caller's event destinations, newest first.
func (s *Server) ListEventDestinations(ctx context.Context, req gen.ListEventDestinationsRequestObject) (gen.ListEventDestinationsResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	withURL := slices.Contains(req.Params.Include, gen.EventDestinationIncludeWebhookEndpointUrl)
	// The page URLs repeat include: SDK iterators follow them as they are, sending none of
	// their own params after the first page. It is no filter (it picks no items), so a page
	// token is not bound to it.
	var query url.Values
	if withURL {
		query = url.Values{"include": {string(gen.EventDestinationIncludeWebhookEndpointUrl)}}
	}
	var out gen.V2CoreEventDestinationList
	err := s.listPage(ctx, "/v2/core/event_destinations", req.Params.Limit, req.Params.Page, struct{}{}, query,
		func(tx *store.Tx, scope string, after *store.Cursor, each func(store.Cursor) bool) {
			s.tables.NewestDestinations.Scan(tx, scope+"|", scope+"}", after, func(c store.Cursor, d EventDestination) bool {
				if !each(c) {
					return false
				}
				out.Data = append(out.Data, renderDestination(d, withURL, false))
				return true
			})
		}, func(tx *store.Tx, scope string, at store.Cursor, each func(store.Cursor) bool) {
			s.tables.NewestDestinations.ScanReverse(tx, scope+"|", scope+"}", atOrBefore(at), func(c store.Cursor, _ EventDestination) bool { return each(c) })
		}, &out.NextPageUrl, &out.PreviousPageUrl)
	if err != nil {
		return nil, err
	}
	if out.Data == nil {
		out.Data = []gen.V2CoreEventDestination{}
	}
	return gen.ListEventDestinations200JSONResponse{Body: out, Headers: gen.ListEventDestinations200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// renderDestination is the destination as an answer shows it: the webhook endpoint's URL
// and secret only when included.
func renderDestination(d EventDestination, withURL, withSecret bool) gen.V2CoreEventDestination {
	out := d.Object
	if w, err := out.WebhookEndpoint.Get(); err == nil {
		if !withSecret {
			w.SigningSecret.SetNull()
		}
		if !withURL {
			w.Url.SetNull()
		}
		out.WebhookEndpoint.Set(w)
	}
	return out
}
