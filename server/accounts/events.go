package accounts

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// Event is a stored thin event: its object (what happened to which object, caused by
// which request), and beside it the platform it belongs to and its place in the order
// events happened, which lists and deliveries follow.
type Event struct {
	Object   gen.V2CoreEvent `json:"object"`
	Platform string          `json:"platform"`
	Seq      uint64          `json:"seq"`
}

// ID is the event's id.
func (e Event) ID() string { return e.Object.Id }

// Scope is the platform and mode the event belongs to.
func (e Event) Scope() string { return AccountScope(e.Platform, e.Object.Livemode) }

// created is when the event happened.
func (e Event) created() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, e.Object.Created)
	return t
}

// related is the id of the object the event is about ("" for none).
func (e Event) related() string {
	if r, err := e.Object.RelatedObject.Get(); err == nil {
		return r.Id
	}
	return ""
}

// eventOf is an event to emit: its type, owner and what it is about.
type eventOf struct {
	Type     string
	Platform string
	Livemode bool
	Related  relatedObject
	// Data is the type's data member, nil for none.
	Data map[string]any
	// Only, when set, is the one destination that receives the event (a ping), whatever it
	// subscribes to.
	Only string
}

// relatedObject is what an event is about.
type relatedObject struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	URL  string `json:"url"`
}

// accountEvent is an event of type typ about account a.
func accountEvent(a Account, typ string, data map[string]any) eventOf {
	return eventOf{Type: typ, Platform: a.Platform, Livemode: a.Livemode(), Data: data,
		Related: relatedObject{ID: a.ID(), Type: accountObject, URL: "/v2/core/accounts/" + a.ID()}}
}

// personEvent is an event of type typ (v2.core.account_person.created, .updated, .deleted)
// about person id of account a; writePerson emits it.
func personEvent(a Account, id, typ string) eventOf {
	return eventOf{Type: typ, Platform: a.Platform, Livemode: a.Livemode(), Data: map[string]any{"account_id": a.ID()},
		Related: relatedObject{ID: id, Type: personObject, URL: "/v2/core/accounts/" + a.ID() + "/persons/" + id}}
}

// The event types this API emits (and which event destinations may subscribe to).
const (
	evAccountCreated       = "v2.core.account.created"
	evAccountUpdated       = "v2.core.account.updated"
	evAccountClosed        = "v2.core.account.closed"
	evRequirementsUpdated  = "v2.core.account[requirements].updated"
	evIdentityUpdated      = "v2.core.account[identity].updated"
	evDefaultsUpdated      = "v2.core.account[defaults].updated"
	evPersonCreated        = "v2.core.account_person.created"
	evPersonUpdated        = "v2.core.account_person.updated"
	evPersonDeleted        = "v2.core.account_person.deleted"
	evAccountLinkReturned  = "v2.core.account_link.returned"
	evDestinationPing      = "v2.core.event_destination.ping"
	evConfigurationUpdated = "v2.core.account[configuration.%s].updated"
	evCapabilityStatus     = "v2.core.account[configuration.%s].capability_status_updated"
)

// eventTypes are the thin event types an event destination can subscribe to: those
// stripe-go v85 knows, the v2 core account types (persons' included) and the two v1
// billing meter ones (docs.stripe.com's own example destination enables one), which
// nothing here emits.
var eventTypes = []string{
	"v1.billing.meter.error_report_triggered", "v1.billing.meter.no_meter_found",
	evAccountClosed, evAccountCreated, evAccountUpdated,
	"v2.core.account[configuration.customer].capability_status_updated", "v2.core.account[configuration.customer].updated",
	"v2.core.account[configuration.merchant].capability_status_updated", "v2.core.account[configuration.merchant].updated",
	"v2.core.account[configuration.recipient].capability_status_updated", "v2.core.account[configuration.recipient].updated",
	evDefaultsUpdated, "v2.core.account[future_requirements].updated", evIdentityUpdated, evRequirementsUpdated,
	evAccountLinkReturned, evPersonCreated, evPersonDeleted, evPersonUpdated,
	evDestinationPing,
}

// write is a write transaction of the API: the store's, and whether it queued deliveries,
// which wake the deliverer once the transaction has committed (update).
type write struct {
	*store.Tx
	queued bool
}

// update runs fn in a write transaction; when fn queued deliveries and the transaction
// committed, the deliverer looks at once.
func (s *Server) update(ctx context.Context, fn func(w *write) error) error {
	var w write
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		w = write{Tx: tx}
		return fn(&w)
	})
	if err == nil && w.queued {
		s.deliveries.wake()
	}
	return err
}

// emit records an event inside the transaction of the change it reports, and queues it for
// every enabled webhook destination of its platform and mode that subscribes to its type (or
// for e.Only alone). Delivery happens later, outside any request (deliver.go): emitting never
// waits for a destination. A change made in a transaction that fails emits nothing.
func (s *Server) emit(ctx context.Context, w *write, e eventOf) (Event, error) {
	ev := Event{Platform: e.Platform, Seq: w.Next(seqEvents), Object: gen.V2CoreEvent{
		Id: s.randomID(eventIDPrefix(e.Livemode), 24), Object: gen.V2CoreEventObjectV2CoreEvent,
		Created: timestamp(s.now()), Livemode: e.Livemode, Type: e.Type,
	}}
	o := &ev.Object
	o.Changes.SetNull()
	o.Context.SetNull()
	data := e.Data
	if data == nil {
		data = map[string]any{}
	}
	o.Data.Set(data)
	// Each Set or SetNull makes a map: a member is given one or the other, once.
	if info := infoFrom(ctx); info != nil && info.api {
		r := gen.EventReason{Type: gen.EventReasonTypeRequest}
		r.Request.Id = info.id
		r.Request.IdempotencyKey = optionalString(info.idempotencyKey)
		o.Reason.Set(r)
	} else {
		o.Reason.SetNull()
	}
	if e.Related.ID != "" {
		o.RelatedObject.Set(gen.EventRelatedObject{Id: e.Related.ID, Type: e.Related.Type, Url: e.Related.URL})
	} else {
		o.RelatedObject.SetNull()
	}
	if err := s.tables.Events.Put(w.Tx, ev.ID(), ev); err != nil {
		return ev, err
	}
	var targets []string
	s.tables.NewestDestinations.Scan(w.Tx, ev.Scope()+"|", ev.Scope()+"}", nil, func(_ store.Cursor, d EventDestination) bool {
		if e.Only != "" {
			if d.ID() == e.Only && d.delivers() {
				targets = append(targets, d.ID())
			}
			return true
		}
		if d.delivers() && slices.Contains(d.Object.EnabledEvents, e.Type) {
			targets = append(targets, d.ID())
		}
		return true
	})
	for _, dest := range targets {
		d := Delivery{Key: deliveryKey(dest, ev.Seq), Destination: dest, Event: ev.ID(), NextAttempt: ev.created()}
		if err := s.tables.Deliveries.Put(w.Tx, d.Key, d); err != nil {
			return ev, err
		}
	}
	w.queued = w.queued || len(targets) > 0
	return ev, nil
}

func eventIDPrefix(livemode bool) string {
	if livemode {
		return "evt_"
	}
	return "evt_test_"
}

// accountState is what the account's events compare before and after a change.
type accountState struct {
	closed bool
	// record is the account but for what follows from the rest (the applied
	// configurations, the responsibilities the dashboard implies), with its onboarding:
	// what the account.updated event watches.
	record   any
	identity any
	// defaults are those the platform set (platformDefaults).
	defaults any
	// configs are each configuration's settings and requested capabilities.
	configs      map[string]any
	requirements []requirement
	capabilities map[string]string // configuration|capability path -> status
}

// stateOf is what the events of a change compare of account a, whose persons (which meet
// some of its requirements) are persons.
func stateOf(a Account, persons []Person) accountState {
	obj := a.tree()
	st := accountState{closed: a.Closed(), identity: obj["identity"], defaults: platformDefaults(obj),
		configs: map[string]any{}, capabilities: map[string]string{}}
	st.requirements = requirementsOf(&a, obj, persons)
	held := heldBack(st.requirements)
	cfgs, _ := obj["configuration"].(map[string]any)
	for name, v := range cfgs {
		c, _ := v.(map[string]any)
		c = cloneTree(c)
		delete(c, "applied")
		caps, _ := c["capabilities"].(map[string]any)
		for _, p := range capabilityPaths(caps) {
			st.capabilities[name+"|"+p] = string(*capabilityStatus(!held[name]).Status)
		}
		st.configs[name] = c
	}
	record := cloneTree(obj)
	for _, k := range []string{"requirements", "future_requirements", "applied_configurations"} {
		delete(record, k)
	}
	record["configuration"], record["defaults"] = st.configs, st.defaults
	onboarded := a.OnboardedConfigurations
	if len(onboarded) == 0 {
		onboarded = nil
	}
	st.record = []any{record, onboarded, a.Onboarded, a.Concurrency}
	return st
}

// platformDefaults are the defaults of an object tree that the platform set: without the
// responsibilities the dashboard implies, and locales only when there are some.
func platformDefaults(obj map[string]any) map[string]any {
	d, _ := obj["defaults"].(map[string]any)
	d = cloneTree(d)
	if d == nil {
		return map[string]any{}
	}
	if l, _ := d["locales"].([]any); len(l) == 0 {
		delete(d, "locales")
	}
	if r, ok := d["responsibilities"].(map[string]any); ok {
		dashboard, _ := obj["dashboard"].(string)
		fees, losses := collectors(dashboard)
		if r["fees_collector"] == fees {
			delete(r, "fees_collector")
		}
		if r["losses_collector"] == losses {
			delete(r, "losses_collector")
		}
		delete(r, "requirements_collector")
		if len(r) == 0 {
			delete(d, "responsibilities")
		}
	}
	return d
}

// emitAccountChanges emits the events of account a's change from before to now, in this
// order: closed or updated (the record changed); then each section that changed (identity,
// defaults, each configuration); the requirements; each capability whose status changed. A
// person's change leaves the record as it was and may still change the requirements and
// capabilities.
func (s *Server) emitAccountChanges(ctx context.Context, w *write, before, now accountState, a Account) error {
	var events []eventOf
	add := func(typ string, data map[string]any) { events = append(events, accountEvent(a, typ, data)) }
	switch {
	case now.closed:
		add(evAccountClosed, nil)
	case !reflect.DeepEqual(before.record, now.record):
		add(evAccountUpdated, nil)
	}
	if !now.closed {
		if !reflect.DeepEqual(before.identity, now.identity) {
			add(evIdentityUpdated, nil)
		}
		if !reflect.DeepEqual(before.defaults, now.defaults) {
			add(evDefaultsUpdated, nil)
		}
		for _, name := range configurationOrder {
			if !reflect.DeepEqual(before.configs[name], now.configs[name]) {
				add(fmt.Sprintf(evConfigurationUpdated, name), nil)
			}
		}
		if !reflect.DeepEqual(before.requirements, now.requirements) {
			add(evRequirementsUpdated, nil)
		}
		keys := make([]string, 0, len(now.capabilities)+len(before.capabilities))
		for k := range now.capabilities {
			keys = append(keys, k)
		}
		for k := range before.capabilities {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			if before.capabilities[k] == now.capabilities[k] {
				continue
			}
			name, path, _ := cutCapability(k)
			add(fmt.Sprintf(evCapabilityStatus, name), map[string]any{"updated_capability": path})
		}
	}
	for _, e := range events {
		if _, err := s.emit(ctx, w, e); err != nil {
			return err
		}
	}
	return nil
}

func cutCapability(k string) (config, path string, ok bool) {
	for i := range len(k) {
		if k[i] == '|' {
			return k[:i], k[i+1:], true
		}
	}
	return "", k, false
}

// RetrieveEvent reads an event of the caller's platform and mode.
func (s *Server) RetrieveEvent(ctx context.Context, req gen.RetrieveEventRequestObject) (gen.RetrieveEventResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	var ev Event
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		ev, found = s.tables.Events.Get(tx, req.Id)
		return nil
	}); err != nil {
		return nil, err
	}
	if !found || ev.Scope() != callerFrom(ctx).scope() || s.eventGone(ev) {
		return nil, errNotFound()
	}
	return gen.RetrieveEvent200JSONResponse{Body: ev.Object, Headers: gen.RetrieveEvent200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// eventGone says retention has removed the event, or is about to.
func (s *Server) eventGone(ev Event) bool {
	return !s.now().Before(ev.created().Add(s.cfg.EventRetention))
}

// ListEvents lists the caller's events, newest first, narrowed by object_id, types and
// created.
func (s *Server) ListEvents(ctx context.Context, req gen.ListEventsRequestObject) (gen.ListEventsResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	p := req.Params
	f := eventFilter{Types: slices.Clone(p.Types)}
	slices.Sort(f.Types)
	f.Types = slices.Compact(f.Types)
	if p.ObjectId != nil {
		f.Object = *p.ObjectId
	}
	if c := p.Created; c != nil {
		for _, b := range []struct {
			name string
			v    *string
			dst  *time.Time
		}{{"gt", c.Gt, &f.Gt}, {"gte", c.Gte, &f.Gte}, {"lt", c.Lt, &f.Lt}, {"lte", c.Lte, &f.Lte}} {
			if b.v == nil {
				continue
			}
			t, err := parseTime(*b.v)
			if err != nil {
				return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "created[%s]: %q is neither an RFC 3339 timestamp nor Unix seconds", b.name, *b.v)
			}
			*b.dst = t
		}
	}
	var out gen.V2CoreEventList
	err := s.listPage(ctx, "/v2/core/events", p.Limit, p.Page, f, f.query(), func(tx *store.Tx, scope string, after *store.Cursor, each func(store.Cursor) bool) {
		s.tables.NewestEvents.Scan(tx, scope+"|", scope+"}", after, func(c store.Cursor, ev Event) bool {
			if s.eventGone(ev) || !f.matches(ev) {
				return true
			}
			if !each(c) {
				return false
			}
			out.Data = append(out.Data, ev.Object)
			return true
		})
	}, func(tx *store.Tx, scope string, at store.Cursor, each func(store.Cursor) bool) {
		s.tables.NewestEvents.ScanReverse(tx, scope+"|", scope+"}", atOrBefore(at), func(c store.Cursor, ev Event) bool {
			if s.eventGone(ev) || !f.matches(ev) {
				return true
			}
			return each(c)
		})
	}, &out.NextPageUrl, &out.PreviousPageUrl)
	if err != nil {
		return nil, err
	}
	if out.Data == nil {
		out.Data = []gen.V2CoreEvent{}
	}
	return gen.ListEvents200JSONResponse{Body: out, Headers: gen.ListEvents200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// eventFilter narrows a list of events; a page token records it (listPage).
type eventFilter struct {
	Object           string    `json:"o,omitempty"`
	Types            []string  `json:"t,omitempty"`
	Gt, Gte, Lt, Lte time.Time `json:",omitzero"`
}

func (f eventFilter) matches(ev Event) bool {
	created := ev.created()
	switch {
	case f.Object != "" && ev.related() != f.Object:
		return false
	case len(f.Types) > 0 && !slices.Contains(f.Types, ev.Object.Type):
		return false
	case !f.Gt.IsZero() && !created.After(f.Gt):
		return false
	case !f.Gte.IsZero() && created.Before(f.Gte):
		return false
	case !f.Lt.IsZero() && !created.Before(f.Lt):
		return false
	case !f.Lte.IsZero() && created.After(f.Lte):
		return false
	}
	return true
}

// query is the filter as a page URL repeats it.
func (f eventFilter) query() map[string][]string {
	q := map[string][]string{}
	if f.Object != "" {
		q["object_id"] = []string{f.Object}
	}
	if len(f.Types) > 0 {
		q["types"] = f.Types
	}
	for name, t := range map[string]time.Time{"created[gt]": f.Gt, "created[gte]": f.Gte, "created[lt]": f.Lt, "created[lte]": f.Lte} {
		if !t.IsZero() {
			q[name] = []string{t.Format(time.RFC3339Nano)} // as precise as it was sent
		}
	}
	return q
}

// parseTime reads an RFC 3339 timestamp or Unix seconds.
func parseTime(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	var n int64
	if _, err := fmt.Sscan(v, &n); err != nil || fmt.Sprint(n) != v {
		return time.Time{}, fmt.Errorf("not a time")
	}
	return time.Unix(n, 0).UTC(), nil
}

// linkReturned is the event of a link whose hosted flow the account completed.
func linkReturned(a Account, l AccountLink) eventOf {
	configs := l.configurations()
	return eventOf{Type: evAccountLinkReturned, Platform: a.Platform, Livemode: a.Livemode(),
		Data: map[string]any{"account_id": a.ID(), "configurations": configs, "use_case": l.useCase()}}
}
