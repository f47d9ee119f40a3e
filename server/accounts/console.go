package accounts

import (
	"cmp"
	"context"
	"slices"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// What the console (server/console) reads and does of this API, through the API's own
// rendering and delivery code, across every platform and mode at once (the API's own
// operations see one platform's, by key).

// allIncludes are every include of an account: the console shows it whole.
var allIncludes = []gen.AccountInclude{gen.AccountIncludeConfigurationCustomer, gen.AccountIncludeConfigurationMerchant,
	gen.AccountIncludeConfigurationRecipient, gen.AccountIncludeDefaults, gen.AccountIncludeFutureRequirements,
	gen.AccountIncludeIdentity, gen.AccountIncludeRequirements}

// ConsoleAccount is an account as a retrieve with every include renders it, with its
// platform, persons and links.
type ConsoleAccount struct {
	Account  gen.V2CoreAccount
	Platform string
	Persons  []gen.V2CoreAccountPerson
	Links    []ConsoleLink
}

// ConsoleLink is an account link, its secret left out.
type ConsoleLink struct {
	Link gen.V2CoreAccountLink // its url's token masked
	// State is live (usable), used (its first visit happened; Submitted says whether the
	// form came back) or expired.
	State     string
	Submitted bool
}

// ConsoleAccounts lists every account of every platform and mode, newest first (persons
// and links not filled in).
func (s *Server) ConsoleAccounts(ctx context.Context) ([]ConsoleAccount, error) {
	var out []ConsoleAccount
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var all []Account
		s.tables.Accounts.Each(tx, func(_ string, a Account) bool {
			all = append(all, withHead(a))
			return true
		})
		slices.SortFunc(all, func(a, b Account) int { return -cmp.Compare(a.Seq, b.Seq) })
		out = make([]ConsoleAccount, 0, len(all))
		for _, a := range all {
			o, err := answerAccount(a, nil, s.personsOf(tx, a.ID()), allIncludes)
			if err != nil {
				return err
			}
			out = append(out, ConsoleAccount{Account: o, Platform: a.Platform})
		}
		return nil
	})
	return out, err
}

// ConsoleAccountByID is one account, with its persons and links; false when there is none.
func (s *Server) ConsoleAccountByID(ctx context.Context, id string) (ConsoleAccount, bool, error) {
	var out ConsoleAccount
	found := false
	now := s.now()
	err := s.db.View(ctx, func(tx *store.Tx) error {
		out, found = ConsoleAccount{}, false
		a, ok := s.getAccount(tx, id)
		if !ok {
			return nil
		}
		found = true
		persons := s.personsOf(tx, a.ID())
		o, err := answerAccount(a, nil, persons, allIncludes)
		if err != nil {
			return err
		}
		out = ConsoleAccount{Account: o, Platform: a.Platform}
		for _, p := range persons {
			out.Persons = append(out.Persons, p.Object)
		}
		var links []AccountLink
		s.tables.Links.Each(tx, func(_ string, l AccountLink) bool {
			if l.account() == a.ID() {
				links = append(links, l)
			}
			return true
		})
		slices.SortFunc(links, func(a, b AccountLink) int { return linkCreated(b).Compare(linkCreated(a)) })
		for _, l := range links {
			cl := ConsoleLink{Link: s.renderLink(ctx, l), Submitted: l.Session.Submitted}
			cl.Link.Url = LoggedPath(cl.Link.Url)
			switch {
			case l.Consumed:
				cl.State = "used"
			case !now.Before(l.expiresAt()):
				cl.State = "expired"
			default:
				cl.State = "live"
			}
			out.Links = append(out.Links, cl)
		}
		return nil
	})
	return out, found, err
}

// linkCreated is when a link was made.
func linkCreated(l AccountLink) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, l.Object.Created)
	return t
}

// ConsoleEvents are the most recent events of every platform and mode, newest first, at
// most limit.
func (s *Server) ConsoleEvents(ctx context.Context, limit int) ([]gen.V2CoreEvent, error) {
	var out []gen.V2CoreEvent
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var all []Event
		s.tables.Events.Each(tx, func(_ string, ev Event) bool {
			if !s.eventGone(ev) {
				all = append(all, ev)
			}
			return true
		})
		slices.SortFunc(all, func(a, b Event) int { return -cmp.Compare(a.Seq, b.Seq) })
		out = make([]gen.V2CoreEvent, 0, min(limit, len(all)))
		for _, ev := range all[:min(limit, len(all))] {
			out = append(out, ev.Object)
		}
		return nil
	})
	return out, err
}

// ConsoleDestinationEvents are the most recent events of the destination's platform and
// mode (those it may be sent), newest first, at most limit, in the order ListEvents reads
// them.
func (s *Server) ConsoleDestinationEvents(ctx context.Context, destination string, limit int) ([]gen.V2CoreEvent, error) {
	var out []gen.V2CoreEvent
	err := s.db.View(ctx, func(tx *store.Tx) error {
		out = nil
		d, ok := s.tables.Destinations.Get(tx, destination)
		if !ok {
			return nil
		}
		scope := d.Scope()
		s.tables.NewestEvents.Scan(tx, scope+"|", scope+"}", nil, func(_ store.Cursor, ev Event) bool {
			if s.eventGone(ev) {
				return true
			}
			out = append(out, ev.Object)
			return len(out) < limit
		})
		return nil
	})
	return out, err
}

// ConsoleDestination is an event destination (its signing secret left out), with its
// platform and the deliveries waiting for it, oldest event first.
type ConsoleDestination struct {
	Destination gen.V2CoreEventDestination
	Platform    string
	Waiting     []Delivery
}

// ConsoleDestinations lists every event destination, newest first.
func (s *Server) ConsoleDestinations(ctx context.Context) ([]ConsoleDestination, error) {
	var out []ConsoleDestination
	err := s.db.View(ctx, func(tx *store.Tx) error {
		var all []EventDestination
		s.tables.Destinations.Each(tx, func(_ string, d EventDestination) bool {
			all = append(all, d)
			return true
		})
		slices.SortFunc(all, func(a, b EventDestination) int { return -cmp.Compare(a.Seq, b.Seq) })
		out = make([]ConsoleDestination, 0, len(all))
		for _, d := range all {
			out = append(out, s.consoleDestination(tx, d))
		}
		return nil
	})
	return out, err
}

// ConsoleDestinationByID is one event destination; false when there is none.
func (s *Server) ConsoleDestinationByID(ctx context.Context, id string) (ConsoleDestination, bool, error) {
	var out ConsoleDestination
	found := false
	err := s.db.View(ctx, func(tx *store.Tx) error {
		d, ok := s.tables.Destinations.Get(tx, id)
		out, found = ConsoleDestination{}, ok
		if ok {
			out = s.consoleDestination(tx, d)
		}
		return nil
	})
	return out, found, err
}

func (s *Server) consoleDestination(tx *store.Tx, d EventDestination) ConsoleDestination {
	out := ConsoleDestination{Destination: renderDestination(d, true, false), Platform: d.Platform}
	// Deliveries are keyed destination|sequence: a destination's, in the order of their events.
	s.tables.Deliveries.Scan(tx, d.ID()+"|", d.ID()+"}", nil, func(_ store.Cursor, dl Delivery) bool {
		out.Waiting = append(out.Waiting, dl)
		return true
	})
	return out
}

// ErrConsoleNotFound is what ConsoleResend and ConsoleRetry answer for a destination,
// event or waiting delivery that is not there.
var ErrConsoleNotFound = &Error{Status: 404, Type: "invalid_request_error", Code: "resource_missing", Message: "not found"}

// ConsoleResend queues event for destination again, due now, whatever became of it
// before: a waiting delivery of it is made due now; otherwise a new one is queued at the
// event's place in the destination's order, as emit queues it. The destination must be a
// webhook endpoint of the event's platform and mode.
func (s *Server) ConsoleResend(ctx context.Context, destination, event string) error {
	return s.consoleQueue(ctx, destination, event, true)
}

// ConsoleRetry makes the waiting delivery of event to destination due now.
func (s *Server) ConsoleRetry(ctx context.Context, destination, event string) error {
	return s.consoleQueue(ctx, destination, event, false)
}

func (s *Server) consoleQueue(ctx context.Context, destination, event string, resend bool) error {
	now := s.now()
	return s.update(ctx, func(w *write) error {
		d, ok := s.tables.Destinations.Get(w.Tx, destination)
		ev, found := s.tables.Events.Get(w.Tx, event)
		hook, _ := d.Object.WebhookEndpoint.Get()
		if !ok || !found || ev.Scope() != d.Scope() || d.Object.Type != gen.EventDestinationTypeWebhookEndpoint || nullableValue(hook.Url) == "" {
			return ErrConsoleNotFound
		}
		key := deliveryKey(d.ID(), ev.Seq)
		dl, waiting := s.tables.Deliveries.Get(w.Tx, key)
		if !waiting {
			if !resend {
				return ErrConsoleNotFound
			}
			dl = Delivery{Key: key, Destination: d.ID(), Event: ev.ID()}
		}
		dl.NextAttempt = now
		w.queued = true
		return s.tables.Deliveries.Put(w.Tx, key, dl)
	})
}
