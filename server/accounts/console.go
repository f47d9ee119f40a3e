package accounts

import (
	"cmp"
	"context"
	"slices"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store/compat"
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
func (s *Server) ConsoleAccounts() ([]ConsoleAccount, error) {
	var out []ConsoleAccount
	err := s.db.View(func(tx *store.Tx) error {
		var all []Account
		s.tables.Accounts.Each(tx, func(_ string, a Account) bool {
			all = append(all, a)
			return true
		})
		slices.SortFunc(all, func(a, b Account) int { return -cmp.Compare(a.Seq, b.Seq) })
		for _, a := range all {
			out = append(out, ConsoleAccount{Account: renderAccount(a, s.personsOf(tx, a.ID), allIncludes), Platform: a.Platform})
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
	err := s.db.View(func(tx *store.Tx) error {
		a, ok := s.tables.Accounts.Get(tx, id)
		if !ok {
			return nil
		}
		found = true
		persons := s.personsOf(tx, a.ID)
		out = ConsoleAccount{Account: renderAccount(a, persons, allIncludes), Platform: a.Platform}
		for _, p := range persons {
			out.Persons = append(out.Persons, renderPerson(p))
		}
		var links []AccountLink
		s.tables.Links.Each(tx, func(_ string, l AccountLink) bool {
			if l.Account == a.ID {
				links = append(links, l)
			}
			return true
		})
		slices.SortFunc(links, func(a, b AccountLink) int { return b.Created.Compare(a.Created) })
		for _, l := range links {
			cl := ConsoleLink{Link: s.renderLink(ctx, l), Submitted: l.Session.Submitted}
			cl.Link.Url = LoggedPath(cl.Link.Url)
			switch {
			case l.Consumed:
				cl.State = "used"
			case !now.Before(l.ExpiresAt):
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

// ConsoleEvents are the most recent events of every platform and mode, newest first, at
// most limit.
func (s *Server) ConsoleEvents(limit int) ([]gen.V2CoreEvent, error) {
	return s.consoleEvents(limit, "")
}

// ConsoleDestinationEvents are the most recent events of the destination's platform and
// mode (those it may be sent), newest first, at most limit.
func (s *Server) ConsoleDestinationEvents(destination string, limit int) ([]gen.V2CoreEvent, error) {
	return s.consoleEvents(limit, destination)
}

func (s *Server) consoleEvents(limit int, destination string) ([]gen.V2CoreEvent, error) {
	var out []gen.V2CoreEvent
	err := s.db.View(func(tx *store.Tx) error {
		var all []Event
		var scope func(Event) bool
		if destination != "" {
			d, ok := s.tables.Destinations.Get(tx, destination)
			if !ok {
				return nil
			}
			scope = func(ev Event) bool { return ev.Scope() == d.Scope() }
		}
		s.tables.Events.Each(tx, func(_ string, ev Event) bool {
			if !s.eventGone(ev) && (scope == nil || scope(ev)) {
				all = append(all, ev)
			}
			return true
		})
		slices.SortFunc(all, func(a, b Event) int { return -cmp.Compare(a.Seq, b.Seq) })
		for _, ev := range all[:min(limit, len(all))] {
			out = append(out, renderEvent(ev))
		}
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
func (s *Server) ConsoleDestinations() ([]ConsoleDestination, error) {
	var out []ConsoleDestination
	err := s.db.View(func(tx *store.Tx) error {
		var all []EventDestination
		s.tables.Destinations.Each(tx, func(_ string, d EventDestination) bool {
			all = append(all, d)
			return true
		})
		slices.SortFunc(all, func(a, b EventDestination) int { return -cmp.Compare(a.Seq, b.Seq) })
		for _, d := range all {
			out = append(out, s.consoleDestination(tx, d))
		}
		return nil
	})
	return out, err
}

// ConsoleDestinationByID is one event destination; false when there is none.
func (s *Server) ConsoleDestinationByID(id string) (ConsoleDestination, bool, error) {
	var out ConsoleDestination
	found := false
	err := s.db.View(func(tx *store.Tx) error {
		d, ok := s.tables.Destinations.Get(tx, id)
		if ok {
			out, found = s.consoleDestination(tx, d), true
		}
		return nil
	})
	return out, found, err
}

func (s *Server) consoleDestination(tx *store.Tx, d EventDestination) ConsoleDestination {
	out := ConsoleDestination{Destination: renderDestination(d, []gen.EventDestinationInclude{gen.EventDestinationIncludeWebhookEndpointUrl}), Platform: d.Platform}
	s.tables.DeliveryOrder.Scan(tx, d.ID+"|", d.ID+"}", nil, func(_ store.Cursor, dl Delivery) bool {
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
func (s *Server) ConsoleResend(destination, event string) error {
	return s.consoleQueue(destination, event, true)
}

// ConsoleRetry makes the waiting delivery of event to destination due now.
func (s *Server) ConsoleRetry(destination, event string) error {
	return s.consoleQueue(destination, event, false)
}

func (s *Server) consoleQueue(destination, event string, resend bool) error {
	now := s.now()
	err := s.db.Update(func(tx *store.Tx) error {
		d, ok := s.tables.Destinations.Get(tx, destination)
		ev, found := s.tables.Events.Get(tx, event)
		if !ok || !found || ev.Scope() != d.Scope() || d.Type != string(gen.EventDestinationTypeWebhookEndpoint) || d.URL == "" {
			return ErrConsoleNotFound
		}
		key := deliveryKey(d.ID, ev.Seq)
		dl, waiting := s.tables.Deliveries.Get(tx, key)
		if !waiting {
			if !resend {
				return ErrConsoleNotFound
			}
			dl = Delivery{Key: key, Destination: d.ID, Event: ev.ID}
		}
		dl.NextAttempt = now
		return s.tables.Deliveries.Put(tx, key, dl)
	})
	if err == nil {
		s.deliveries.wake()
	}
	return err
}
