package accounts

import (
	"context"
	"net/http"
	"slices"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// EventDestination is a stored event destination: a webhook endpoint that receives the
// platform's events of the types it enables, or an Amazon EventBridge destination, which is
// kept but never delivered to.
type EventDestination struct {
	ID       string // ed_test_... or ed_...
	Platform string
	Livemode bool
	Seq      uint64
	Created  time.Time
	Updated  time.Time

	Name               string
	Description        string
	Type               string // webhook_endpoint or amazon_eventbridge
	EventPayload       string // thin or snapshot
	EnabledEvents      []string
	EventsFrom         []string
	SnapshotAPIVersion string
	Metadata           map[string]string

	URL    string // webhook_endpoint.url
	Secret string // webhook_endpoint.signing_secret: whsec_...

	AWSAccountID string
	AWSRegion    string

	// Disabled says no new events are queued for it; DisabledReason is user or
	// no_aws_event_source_exists.
	Disabled       bool
	DisabledReason string
}

// Scope is the platform and mode the destination belongs to.
func (d EventDestination) Scope() string { return AccountScope(d.Platform, d.Livemode) }

// delivers says whether new events are queued for the destination.
func (d EventDestination) delivers() bool {
	return !d.Disabled && d.Type == string(gen.EventDestinationTypeWebhookEndpoint) && d.URL != ""
}

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
	id, err := s.idempotent(ctx, "createEventDestination", req.Params.IdempotencyKey, body, func() (string, error) {
		now := s.now()
		d := destinationFromRequest(body)
		d.ID, d.Platform, d.Livemode = s.randomID(destinationIDPrefix(c.livemode), 24), c.platform.id, c.livemode
		d.Created, d.Updated = now, now
		if d.Type == string(gen.EventDestinationTypeWebhookEndpoint) {
			d.Secret = "whsec_" + s.random(32)
		}
		return d.ID, s.db.Update(ctx, func(tx *store.Tx) error {
			d.Seq = s.next(tx, seqDestinations)
			return s.tables.Destinations.Put(tx, d.ID, d)
		})
	})
	if err != nil {
		return nil, err
	}
	d, err := s.destination(ctx, id)
	if err != nil {
		return nil, err
	}
	// Creation returns the URL and the signing secret, as the real API does.
	include := append(slices.Clone(body.Include), gen.EventDestinationIncludeWebhookEndpointUrl, gen.EventDestinationIncludeWebhookEndpointSigningSecret)
	return gen.CreateEventDestination200JSONResponse{Body: renderDestination(d, include), Headers: gen.CreateEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// destinationFromRequest is the destination a create request describes (without its id,
// owner, times and signing secret): the one place the create request's members are read,
// for the API and for the seed.
func destinationFromRequest(body gen.CreateEventDestinationRequest) EventDestination {
	d := EventDestination{
		Name: body.Name, Description: deref(body.Description), Type: string(body.Type), EventPayload: string(body.EventPayload),
		EnabledEvents: uniqueStrings(body.EnabledEvents), SnapshotAPIVersion: deref(body.SnapshotApiVersion),
		Metadata: map[string]string{},
	}
	for _, from := range body.EventsFrom {
		if !slices.Contains(d.EventsFrom, string(from)) {
			d.EventsFrom = append(d.EventsFrom, string(from))
		}
	}
	for k, v := range deref(body.Metadata) {
		d.Metadata[k] = v
	}
	if w := body.WebhookEndpoint; w != nil {
		d.URL = w.Url
	}
	if a := body.AmazonEventbridge; a != nil {
		// No event source exists until one is associated in AWS, which never happens here.
		d.AWSAccountID, d.AWSRegion = a.AwsAccountId, a.AwsRegion
		d.Disabled, d.DisabledReason = true, string(gen.EventDestinationStatusDetailsDisabledReasonNoAwsEventSourceExists)
	}
	return d
}

// checkDestination refuses what the spec cannot say: a type without its configuration (or
// with the other's), thin payloads of types this API does not emit, snapshot payloads of
// v2 types (v2 events are thin only).
func checkDestination(b gen.CreateEventDestinationRequest) error {
	switch b.Type {
	case gen.EventDestinationTypeWebhookEndpoint:
		if b.WebhookEndpoint == nil {
			return invalidRequest(http.StatusBadRequest, "parameter_missing", "webhook_endpoint: required request field missing")
		}
		if b.AmazonEventbridge != nil {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "amazon_eventbridge: must not be set when type is webhook_endpoint")
		}
	case gen.EventDestinationTypeAmazonEventbridge:
		if b.AmazonEventbridge == nil {
			return invalidRequest(http.StatusBadRequest, "parameter_missing", "amazon_eventbridge: required request field missing")
		}
		if b.WebhookEndpoint != nil {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "webhook_endpoint: must not be set when type is amazon_eventbridge")
		}
	}
	if b.EventPayload == gen.EventPayloadSnapshot {
		if b.SnapshotApiVersion == nil {
			return invalidRequest(http.StatusBadRequest, "parameter_missing", "snapshot_api_version: required request field missing when event_payload is snapshot")
		}
		for i, t := range b.EnabledEvents {
			if slices.Contains(eventTypes, t) {
				return invalidRequest(http.StatusBadRequest, "parameter_invalid", "enabled_events[%d]: %s is a thin event type; use event_payload thin", i, t)
			}
		}
		return nil
	}
	if b.SnapshotApiVersion != nil {
		return invalidRequest(http.StatusBadRequest, "parameter_invalid", "snapshot_api_version: only for event_payload snapshot")
	}
	return checkEventTypes(b.EnabledEvents)
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

func uniqueStrings(in []string) []string {
	out := make([]string, 0, len(in))
	for _, v := range in {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
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

// changeDestination applies change to a destination of the caller in one transaction.
func (s *Server) changeDestination(ctx context.Context, id string, change func(tx *store.Tx, d *EventDestination) error) error {
	scope := callerFrom(ctx).scope()
	return s.db.Update(ctx, func(tx *store.Tx) error {
		d, found := s.tables.Destinations.Get(tx, id)
		if !found || d.Scope() != scope {
			return errNotFound()
		}
		if err := change(tx, &d); err != nil {
			return err
		}
		d.Updated = s.now()
		return s.tables.Destinations.Put(tx, d.ID, d)
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
	return gen.RetrieveEventDestination200JSONResponse{Body: renderDestination(d, req.Params.Include), Headers: gen.RetrieveEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
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
		return req.Id, s.changeDestination(ctx, req.Id, func(_ *store.Tx, d *EventDestination) error {
			if body.EnabledEvents != nil {
				if d.EventPayload == string(gen.EventPayloadThin) {
					if err := checkEventTypes(body.EnabledEvents); err != nil {
						return err
					}
				}
				d.EnabledEvents = uniqueStrings(body.EnabledEvents)
			}
			if body.Name != nil {
				d.Name = *body.Name
			}
			if body.Description != nil {
				d.Description = *body.Description
			}
			if w := body.WebhookEndpoint; w != nil {
				if d.Type != string(gen.EventDestinationTypeWebhookEndpoint) {
					return invalidRequest(http.StatusBadRequest, "parameter_invalid", "webhook_endpoint: the destination is of type %s", d.Type)
				}
				d.URL = w.Url
			}
			if d.Metadata == nil {
				d.Metadata = map[string]string{}
			}
			for k, v := range deref(body.Metadata) {
				if v == nil {
					delete(d.Metadata, k)
				} else {
					d.Metadata[k] = *v
				}
			}
			if len(d.Metadata) > maxMetadataKeys {
				return invalidRequest(http.StatusBadRequest, "parameter_invalid", "metadata: an object keeps at most %d keys; this update would leave %d", maxMetadataKeys, len(d.Metadata))
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
	return gen.UpdateEventDestination200JSONResponse{Body: renderDestination(d, body.Include), Headers: gen.UpdateEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// DeleteEventDestination deletes an event destination and what still waits for it.
func (s *Server) DeleteEventDestination(ctx context.Context, req gen.DeleteEventDestinationRequestObject) (gen.DeleteEventDestinationResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	scope := callerFrom(ctx).scope()
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		d, found := s.tables.Destinations.Get(tx, req.Id)
		if !found || d.Scope() != scope {
			return errNotFound()
		}
		s.tables.Destinations.Delete(tx, d.ID)
		var waiting []string
		s.tables.Deliveries.Scan(tx, d.ID+"|", d.ID+"}", nil, func(_ store.Cursor, dl Delivery) bool {
			waiting = append(waiting, dl.Key)
			return true
		})
		for _, k := range waiting {
			s.tables.Deliveries.Delete(tx, k)
		}
		return nil
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
	return gen.EnableEventDestination200JSONResponse{Body: renderDestination(d, nil), Headers: gen.EnableEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// DisableEventDestination disables a destination: events emitted while it is disabled are
// not queued for it.
func (s *Server) DisableEventDestination(ctx context.Context, req gen.DisableEventDestinationRequestObject) (gen.DisableEventDestinationResponseObject, error) {
	d, err := s.setDestinationEnabled(ctx, req.Id, req.Params.IdempotencyKey, false)
	if err != nil {
		return nil, err
	}
	return gen.DisableEventDestination200JSONResponse{Body: renderDestination(d, nil), Headers: gen.DisableEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
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
		return id, s.changeDestination(ctx, id, func(_ *store.Tx, d *EventDestination) error {
			if enabled {
				d.Disabled, d.DisabledReason = false, ""
			} else {
				d.Disabled, d.DisabledReason = true, string(gen.EventDestinationStatusDetailsDisabledReasonUser)
			}
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
		err := s.db.Update(ctx, func(tx *store.Tx) error {
			d, found := s.tables.Destinations.Get(tx, req.Id)
			if !found || d.Scope() != scope {
				return errNotFound()
			}
			var err error
			ev, err = s.emit(ctx, tx, eventOf{Type: evDestinationPing, Platform: d.Platform, Livemode: d.Livemode, Only: d.ID,
				Related: relatedObject{ID: d.ID, Type: "v2.core.event_destination", URL: "/v2/core/event_destinations/" + d.ID}})
			return err
		})
		return ev.ID, err
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
	return gen.PingEventDestination200JSONResponse{Body: renderEvent(ev), Headers: gen.PingEventDestination200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// ListEventDestinations lists the caller's event destinations, newest first.
func (s *Server) ListEventDestinations(ctx context.Context, req gen.ListEventDestinationsRequestObject) (gen.ListEventDestinationsResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	include := req.Params.Include
	var out gen.V2CoreEventDestinationList
	err := s.listPage(ctx, "/v2/core/event_destinations", req.Params.Limit, req.Params.Page, struct{}{}, nil,
		func(tx *store.Tx, scope string, after *store.Cursor, each func(store.Cursor) bool) {
			s.tables.NewestDestinations.Scan(tx, scope+"|", scope+"}", after, func(c store.Cursor, d EventDestination) bool {
				if !each(c) {
					return false
				}
				out.Data = append(out.Data, renderDestination(d, include))
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

// renderDestination is the wire form of a destination; the webhook endpoint's URL and secret
// are shown only when included.
func renderDestination(d EventDestination, include []gen.EventDestinationInclude) gen.V2CoreEventDestination {
	out := gen.V2CoreEventDestination{
		Id: d.ID, Object: gen.V2CoreEventDestinationObjectV2CoreEventDestination, Created: timestamp(d.Created), Updated: timestamp(d.Updated),
		Description: d.Description, EnabledEvents: slices.Clone(d.EnabledEvents), EventPayload: gen.EventPayload(d.EventPayload),
		Livemode: d.Livemode, Metadata: gen.Metadata(d.Metadata), Name: d.Name, Type: gen.EventDestinationType(d.Type),
		Status: gen.V2CoreEventDestinationStatusEnabled,
	}
	if out.EnabledEvents == nil {
		out.EnabledEvents = []string{}
	}
	if out.Metadata == nil {
		out.Metadata = gen.Metadata{}
	}
	out.EventsFrom.SetNull()
	if len(d.EventsFrom) > 0 {
		from := make([]gen.EventsFrom, 0, len(d.EventsFrom))
		for _, f := range d.EventsFrom {
			from = append(from, gen.EventsFrom(f))
		}
		out.EventsFrom.Set(from)
	}
	out.SnapshotApiVersion = optionalString(d.SnapshotAPIVersion)
	out.StatusDetails.SetNull()
	if d.Disabled {
		out.Status = gen.V2CoreEventDestinationStatusDisabled
		var details gen.EventDestinationStatusDetails
		details.Disabled.Set(struct {
			Reason gen.EventDestinationStatusDetailsDisabledReason `json:"reason"`
		}{Reason: gen.EventDestinationStatusDetailsDisabledReason(d.DisabledReason)})
		out.StatusDetails.Set(details)
	}
	out.WebhookEndpoint.SetNull()
	if d.Type == string(gen.EventDestinationTypeWebhookEndpoint) {
		var w gen.WebhookEndpoint
		w.SigningSecret.SetNull()
		w.Url.SetNull()
		if slices.Contains(include, gen.EventDestinationIncludeWebhookEndpointSigningSecret) {
			w.SigningSecret.Set(d.Secret)
		}
		if slices.Contains(include, gen.EventDestinationIncludeWebhookEndpointUrl) {
			w.Url.Set(d.URL)
		}
		out.WebhookEndpoint.Set(w)
	}
	out.AmazonEventbridge.SetNull()
	if d.Type == string(gen.EventDestinationTypeAmazonEventbridge) {
		out.AmazonEventbridge.Set(gen.AmazonEventbridge{
			AwsAccountId:         d.AWSAccountID,
			AwsEventSourceArn:    "arn:aws:events:" + d.AWSRegion + "::event-source/aws.partner/stripe.com/" + d.ID,
			AwsEventSourceStatus: gen.AmazonEventbridgeAwsEventSourceStatusPending,
		})
	}
	return out
}
