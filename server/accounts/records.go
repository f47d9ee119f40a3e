package accounts

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/store/compat"
)

// Account is a stored v2 account. It belongs to one platform and one mode.
type Account struct {
	ID       string // acct_...
	Platform string
	Livemode bool
	Seq      uint64 // creation order within the store, for newest-first lists
	Created  time.Time

	DisplayName  string
	ContactEmail string
	ContactPhone string
	Dashboard    string
	Country      string // ISO 3166-1 alpha-2
	EntityType   string
	Metadata     map[string]string
	// Details holds the members of the account that the server stores as they were sent
	// and returns as they are, merged member by member on update (mergeTree): "defaults",
	// "identity" (individual, business_details, attestations; country and entity_type are
	// the fields above) and "configuration" (each configuration's settings, keyed by its
	// name; its capabilities are Configurations). JSON-shaped: maps, slices, strings,
	// float64 numbers and booleans.
	Details map[string]any

	// Configurations holds the applied configurations (customer, merchant, recipient) and
	// their requested capabilities, by capability path such as "stripe_balance.stripe_transfers".
	Configurations map[string]map[string]bool
	// OnboardedConfigurations are the configurations whose onboarding a submitted link
	// completed (the account accepted their terms): once nothing else is missing, their
	// requested capabilities are active. Sorted, each once.
	OnboardedConfigurations []string
	// Onboarded says every configuration is onboarded: a seeded account that says so, or one
	// stored before onboarding was recorded per configuration.
	Onboarded bool
	// Concurrency is the account's own limit of updating requests in flight (seeded; 0: its
	// platform's limit).
	Concurrency int
	// Closed says the account was closed: it is still read and listed (with closed=true),
	// but no longer changed.
	Closed bool
}

// Scope is the platform and mode an account lives in; accounts of other scopes are invisible.
func (a Account) Scope() string { return AccountScope(a.Platform, a.Livemode) }

// AccountScope names a platform's test or live data.
func AccountScope(platform string, livemode bool) string {
	if livemode {
		return platform + "|live"
	}
	return platform + "|test"
}

// OnboardedFor says whether the onboarding of configuration name is complete.
func (a Account) OnboardedFor(name string) bool {
	return a.Onboarded || slices.Contains(a.OnboardedConfigurations, name)
}

// AccountLink is a stored account link: a single-use, expiring way into the hosted flow.
type AccountLink struct {
	Token     string // the secret in the URL: the primary key
	Account   string
	Platform  string
	Livemode  bool
	Created   time.Time
	ExpiresAt time.Time

	UseCase            string // account_onboarding or account_update
	Configurations     []string
	RefreshURL         string
	ReturnURL          string // "" when not given
	CollectFields      string // currently_due or eventually_due
	FutureRequirements string // include or omit

	// Consumed is set by the first visit; every later visit goes to RefreshURL.
	Consumed bool
	// Session is the browser session the first visit opened; the form must come back with it.
	Session LinkSession
}

// usableUntil is the last moment the link serves its flow: its expiry, or the end of the
// session its first visit opened. Retention counts from there.
func (l AccountLink) usableUntil() time.Time {
	if l.Session.ExpiresAt.After(l.ExpiresAt) {
		return l.Session.ExpiresAt
	}
	return l.ExpiresAt
}

// LinkSession is what the hosted form must present to be accepted, once.
type LinkSession struct {
	ID        string // in a cookie
	Nonce     string // in the form
	ExpiresAt time.Time
	Submitted bool
}

// Idempotency records a request made with an Idempotency-Key.
type Idempotency struct {
	Key         string // scope|operation|key: the primary key
	RequestHash string
	InFlight    bool
	Ref         string // what the first request made: an account id or a link token
	Expires     time.Time
}

// Person is a stored person of an account: its representative, an owner, a director or an
// executive, or someone else the account names.
type Person struct {
	ID       string // person_...
	Account  string
	Platform string
	Livemode bool
	Seq      uint64 // creation order, for oldest-first lists
	Created  time.Time
	Updated  time.Time
	// Details holds every member of the person as sent (given_name, relationship, address,
	// metadata, ...), merged member by member on update, JSON-shaped like Account.Details.
	Details map[string]any
}

// Scope is the platform and mode the person's account lives in.
func (p Person) Scope() string { return AccountScope(p.Platform, p.Livemode) }

// Token is a stored account token or person token: details tokenized for one later create
// or update, until ExpiresAt.
type Token struct {
	ID       string // accttkn_... or perstkn_...: the primary key
	Kind     string // tokenAccount or tokenPerson
	Account  string // the account a person token belongs to; "" for account tokens
	Platform string
	Livemode bool
	Created  time.Time
	// ExpiresAt is when the token can no longer be used.
	ExpiresAt time.Time
	// Used says a create or update took the token's details; it cannot be used again.
	Used bool
	// Details are the tokenized members, as the token's create request sent them.
	Details map[string]any
}

// Scope is the platform and mode the token belongs to.
func (t Token) Scope() string { return AccountScope(t.Platform, t.Livemode) }

// madeSwept says the key made what retention removes (a link, by its token; an account or
// person token, by its id): it is forgotten with what it made, so that a retry makes a new
// one rather than answer not_found.
func (r Idempotency) madeSwept() bool {
	parts := strings.SplitN(r.Key, "|", 4) // platform|mode|operation|key
	if len(parts) != 4 {
		return false
	}
	switch parts[2] {
	case "createAccountLink", "createAccountToken", "createPersonToken":
		return true
	}
	return false
}

// tables are the accounts API's tables and their indexes.
type tables struct {
	Accounts *store.Table[Account]
	// Newest orders accounts newest first within their scope (newestKey).
	Newest      *store.Ordered[Account]
	Links       *store.Table[AccountLink]
	Idempotency *store.Table[Idempotency]
	Persons     *store.Table[Person]
	// PersonsOf orders the persons of each account oldest first (personKey).
	PersonsOf *store.Ordered[Person]
	Tokens    *store.Table[Token]
	// TokensGone orders tokens by their expiry, for retention.
	TokensGone *store.Numbered[Token]
	// LinksGone orders links by the end of their use (usableUntil), for retention.
	LinksGone *store.Numbered[AccountLink]
	// IdempotencyGone orders remembered keys by when their window ends; MadeKeys finds the
	// key that made a link (by its token) or a token (by its id), which goes with it.
	IdempotencyGone *store.Numbered[Idempotency]
	MadeKeys        *store.Ordered[Idempotency]

	Events *store.Table[Event]
	// NewestEvents orders events newest first within their scope; EventsGone by creation,
	// for retention.
	NewestEvents *store.Ordered[Event]
	EventsGone   *store.Numbered[Event]
	Destinations *store.Table[EventDestination]
	// NewestDestinations orders destinations newest first within their scope.
	NewestDestinations *store.Ordered[EventDestination]
	// Deliveries are keyed destination|sequence, so that their primary-key order is each
	// destination's events in the order they happened (DeliveryOrder).
	Deliveries    *store.Table[Delivery]
	DeliveryOrder *store.Ordered[Delivery]
}

func newTables(db *store.DB) *tables {
	t := store.NewTable[Account](db, "accounts")
	p := store.NewTable[Person](db, "persons")
	tb := &tables{
		Accounts:     t,
		Newest:       t.AddOrdered(func(a Account) (string, bool) { return newestKey(a.Scope(), a.Seq), true }),
		Links:        store.NewTable[AccountLink](db, "accountLinks"),
		Idempotency:  store.NewTable[Idempotency](db, "idempotencyKeys"),
		Persons:      p,
		PersonsOf:    p.AddOrdered(func(x Person) (string, bool) { return personKey(x.Account, x.Seq), true }),
		Tokens:       store.NewTable[Token](db, "tokens"),
		Events:       store.NewTable[Event](db, "events"),
		Destinations: store.NewTable[EventDestination](db, "eventDestinations"),
		Deliveries:   store.NewTable[Delivery](db, "eventDeliveries"),
	}
	tb.LinksGone = tb.Links.AddNumbered(func(l AccountLink) (string, uint64, bool) { return "", unixNanos(l.usableUntil()), true })
	tb.IdempotencyGone = tb.Idempotency.AddNumbered(func(r Idempotency) (string, uint64, bool) {
		return "", unixNanos(r.Expires), !r.InFlight
	})
	tb.MadeKeys = tb.Idempotency.AddOrdered(func(r Idempotency) (string, bool) { return r.Ref, r.Ref != "" && r.madeSwept() })
	tb.TokensGone = tb.Tokens.AddNumbered(func(x Token) (string, uint64, bool) { return "", unixNanos(x.ExpiresAt), true })
	tb.NewestEvents = tb.Events.AddOrdered(func(e Event) (string, bool) { return newestKey(e.Scope(), e.Seq), true })
	tb.EventsGone = tb.Events.AddNumbered(func(e Event) (string, uint64, bool) { return "", unixNanos(e.Created), true })
	tb.NewestDestinations = tb.Destinations.AddOrdered(func(d EventDestination) (string, bool) { return newestKey(d.Scope(), d.Seq), true })
	tb.DeliveryOrder = tb.Deliveries.AddPKOrder()
	return tb
}

// personKey is the PersonsOf index key: an account's persons in creation order.
func personKey(account string, seq uint64) string {
	return fmt.Sprintf("%s|%020d", account, seq)
}

// unixNanos is t as an index number: times before 1970 (none are stored) count as 0.
func unixNanos(t time.Time) uint64 { return uint64(max(t.UnixNano(), 0)) }

// newestKey is the Newest index key: within a scope, a higher sequence sorts first.
func newestKey(scope string, seq uint64) string {
	return fmt.Sprintf("%s|%020d", scope, uint64(math.MaxUint64)-seq)
}
