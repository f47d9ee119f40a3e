package accounts

import (
	"math"
	"slices"
	"time"

	json "github.com/goccy/go-json"
	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// Account is a stored v2 account: its object as a retrieve with its configurations and
// identity included returns it, with what follows from the rest computed when it is
// written (the applied configurations, the defaults' responsibilities), and what the API
// keeps of it that its object does not say. What the account's persons decide with it (its
// requirements, its capabilities' statuses) is derived when an answer shows it, as what
// depends on other resources is: stored, it would make every account twice as long to read
// and every person's change a write of its account. A closed account's object keeps only
// what a closed account shows.
//
// The object is kept as its JSON: an answer decodes it (object), a change works on its
// tree (tree), and the checks most requests make read only its head, which the row keeps
// beside it (written with the object, by setObject): decoding the object again for it
// took as long as reading the row, and it is all that creating a link needs of the
// account.
type Account struct {
	Object json.RawMessage `json:"object"`
	// Platform is the platform the account belongs to; its mode is the object's livemode.
	Platform string `json:"platform"`
	// Seq is the account's place in the newest-first lists of its platform and mode, which
	// their page tokens carry.
	Seq uint64 `json:"seq"`
	// OnboardedConfigurations are the configurations whose onboarding a submitted link
	// completed (the account accepted their terms): once nothing else is missing, their
	// requested capabilities are active. Sorted, each once.
	OnboardedConfigurations []string `json:"onboardedConfigurations,omitempty"`
	// Onboarded says every configuration is onboarded: a seeded account that says so.
	Onboarded bool `json:"onboarded,omitempty"`
	// Concurrency is the account's own limit of updating requests in flight (seeded; 0: its
	// platform's limit).
	Concurrency int `json:"concurrency,omitempty"`
	// Head is what most requests read of the object, copied from it.
	Head accountHead `json:"head"`
}

// accountHead is what most requests read of an account's object.
type accountHead struct {
	ID                    string   `json:"id"`
	Livemode              bool     `json:"livemode"`
	Closed                bool     `json:"closed"`
	AppliedConfigurations []string `json:"applied_configurations"`
}

// withHead is a, read from the store, with its object's head: a row stored before rows
// kept the head has it decoded from the object.
func withHead(a Account) Account {
	if a.Head.ID == "" {
		_ = json.Unmarshal(a.Object, &a.Head) // the store keeps what fillAccount wrote
	}
	return a
}

// ID is the account's id.
func (a Account) ID() string { return a.Head.ID }

// Livemode says the account is of live mode.
func (a Account) Livemode() bool { return a.Head.Livemode }

// Closed says the account was closed.
func (a Account) Closed() bool { return a.Head.Closed }

// Scope is the platform and mode an account lives in; accounts of other scopes are invisible.
func (a Account) Scope() string { return AccountScope(a.Platform, a.Head.Livemode) }

// Applied says whether a configuration is applied to the account.
func (a Account) Applied(name string) bool {
	return slices.Contains(a.Head.AppliedConfigurations, name)
}

// shown is the account's object as an answer that derives nothing shows it: without its
// configuration, and without its identity unless the answer includes it (both null). The
// sections left out are passed over rather than decoded (skipped): the configuration is
// most of an object's decoding, and such an answer never shows it.
func (a Account) shown(identity bool) (gen.V2CoreAccount, error) {
	if identity {
		var o struct {
			gen.V2CoreAccount
			Configuration skipped `json:"configuration"`
		}
		err := json.Unmarshal(a.Object, &o)
		o.V2CoreAccount.Configuration.SetNull()
		return o.V2CoreAccount, err
	}
	var o struct {
		gen.V2CoreAccount
		Configuration skipped `json:"configuration"`
		Identity      skipped `json:"identity"`
	}
	err := json.Unmarshal(a.Object, &o)
	o.V2CoreAccount.Configuration.SetNull()
	o.V2CoreAccount.Identity.SetNull()
	return o.V2CoreAccount, err
}

// skipped is a member of a stored object that is not decoded: its JSON is passed over.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// tree is the account's object as a JSON tree, for a change.
func (a Account) tree() map[string]any {
	var obj map[string]any
	_ = json.Unmarshal(a.Object, &obj)
	if obj == nil {
		obj = map[string]any{}
	}
	return obj
}

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
// Its object is as the create answered it, but for its url, which is built from the
// request's host (renderLink); beside it, the secret in that URL, the platform, and what
// its visits did.
type AccountLink struct {
	Object gen.V2CoreAccountLink `json:"object"`
	// Token is the secret in the URL: the primary key.
	Token    string `json:"token"`
	Platform string `json:"platform"`
	// Consumed is set by the first visit; every later visit goes to the refresh URL.
	Consumed bool `json:"consumed,omitempty"`
	// Session is the browser session the first visit opened; the form must come back with it.
	Session LinkSession `json:"session,omitzero"`
}

// account is the id of the account the link is for.
func (l AccountLink) account() string { return l.Object.Account }

// expiresAt is when the link can no longer be opened.
func (l AccountLink) expiresAt() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, l.Object.ExpiresAt)
	return t
}

// flow is the options of the link's use case.
func (l AccountLink) flow() gen.AccountLinkFlow {
	u := l.Object.UseCase
	f, err := u.AccountOnboarding.Get()
	if err != nil {
		f, _ = u.AccountUpdate.Get()
	}
	return f
}

// useCase is account_onboarding or account_update.
func (l AccountLink) useCase() string { return string(l.Object.UseCase.Type) }

// configurations are the configurations the link's flow is for.
func (l AccountLink) configurations() []string {
	f := l.flow()
	out := make([]string, len(f.Configurations))
	for i, c := range f.Configurations {
		out[i] = string(c)
	}
	return out
}

// usableUntil is the last moment the link serves its flow: its expiry, or the end of the
// session its first visit opened. Retention counts from there.
func (l AccountLink) usableUntil() time.Time {
	if exp := l.expiresAt(); !l.Session.ExpiresAt.After(exp) {
		return exp
	}
	return l.Session.ExpiresAt
}

// LinkSession is what the hosted form must present to be accepted, once.
type LinkSession struct {
	ID        string    `json:"id"`    // in a cookie
	Nonce     string    `json:"nonce"` // in the form
	ExpiresAt time.Time `json:"expiresAt"`
	Submitted bool      `json:"submitted,omitempty"`
}

// Idempotency records a request made with an Idempotency-Key.
type Idempotency struct {
	Key string // scope|key: the primary key (a key is one platform and mode's, on any endpoint)
	// Operation and Path are the first request's operationId and path: the key is bound
	// to that endpoint.
	Operation   string `json:",omitempty"`
	Path        string `json:",omitempty"`
	RequestHash string
	InFlight    bool
	Ref         string // what the first request made: an account id or a link token
	Expires     time.Time
	// Runner and RunningUntil, while InFlight: the request running (a token of its own)
	// and, on the machine's clock, when it is taken to have died with its server unless
	// it has finished. Another server on the database may be running it, so a server that
	// starts cannot just forget what is in flight.
	Runner       string    `json:",omitempty"`
	RunningUntil time.Time `json:",omitzero"`
}

// running says the record's request is in flight and may still finish.
func (r Idempotency) running() bool { return r.InFlight && time.Now().Before(r.RunningUntil) }

// Person is a stored person of an account (its representative, an owner, a director or an
// executive, or someone else the account names): its object as a retrieve returns it, and
// its place in its account's list.
type Person struct {
	Object gen.V2CoreAccountPerson `json:"object"`
	// Seq orders the account's persons oldest first.
	Seq uint64 `json:"seq"`
}

// ID is the person's id.
func (p Person) ID() string { return p.Object.Id }

// Token is a stored account token or person token: details tokenized for one later create
// or update, until it expires. Its object is an account token's; a person token's has the
// same members, and its own object type.
type Token struct {
	Object   gen.V2CoreAccountToken `json:"object"`
	Platform string                 `json:"platform"`
	// Account is the account a person token belongs to ("" for account tokens).
	Account string `json:"account,omitempty"`
	// Details are the tokenized members, as the token's create request sent them.
	Details map[string]any `json:"details,omitempty"`
}

// ID is the token's id.
func (t Token) ID() string { return t.Object.Id }

// Scope is the platform and mode the token belongs to.
func (t Token) Scope() string { return AccountScope(t.Platform, t.Object.Livemode) }

// expiresAt is when the token can no longer be used.
func (t Token) expiresAt() time.Time {
	e, _ := time.Parse(time.RFC3339Nano, t.Object.ExpiresAt)
	return e
}

// madeSwept says the key made what retention removes (a link, by its token; an account or
// person token, by its id): it is forgotten with what it made, so that a retry makes a new
// one rather than answer not_found.
func (r Idempotency) madeSwept() bool {
	switch r.Operation {
	case "createAccountLink", "createAccountToken", "createPersonToken":
		return true
	}
	return false
}

// tables are the accounts API's tables and their indexes.
type tables struct {
	// Slots are the updates in flight per account, when servers share the store
	// (Config.Shared; one server alone counts them in memory).
	Slots    *store.Table[slot]
	Accounts *store.Table[Account]
	// Newest orders accounts newest first within their scope (newestKey).
	Newest      *store.Index[Account]
	Links       *store.Table[AccountLink]
	Idempotency *store.Table[Idempotency]
	Persons     *store.Table[Person]
	// PersonsOf orders the persons of each account newest first, as their list shows them.
	PersonsOf *store.Index[Person]
	Tokens    *store.Table[Token]
	// TokensGone orders tokens by their expiry, for retention.
	TokensGone *store.Index[Token]
	// LinksGone orders links by the end of their use (usableUntil), for retention.
	LinksGone *store.Index[AccountLink]
	// IdempotencyGone orders remembered keys by when their window ends; MadeKeys finds the
	// key that made a link (by its token) or a token (by its id), which goes with it.
	IdempotencyGone *store.Index[Idempotency]
	MadeKeys        *store.Index[Idempotency]

	Events *store.Table[Event]
	// NewestEvents orders events newest first within their scope; EventsGone by creation,
	// for retention.
	NewestEvents *store.Index[Event]
	EventsGone   *store.Index[Event]
	Destinations *store.Table[EventDestination]
	// NewestDestinations orders destinations newest first within their scope.
	NewestDestinations *store.Index[EventDestination]
	// Deliveries are keyed destination|sequence, so that their primary-key order is each
	// destination's events in the order they happened.
	Deliveries *store.Table[Delivery]
	// Floors are where the numbering of accounts, persons and event destinations starts:
	// above every number the seed gave (next).
	Floors *store.Table[floor]
}

func newTables(db *store.DB) *tables {
	tb := &tables{
		Newest: store.OrderedIndex("newest", func(a Account) (string, bool) {
			a = withHead(a)
			return newestKey(a.Scope(), a.Seq), true
		}),
		PersonsOf:          store.OrderedIndex("newestPersons", func(x Person) (string, bool) { return newestKey(x.Object.Account, x.Seq), true }),
		TokensGone:         store.OrderedIndex("gone", func(x Token) (string, bool) { return timeKey(x.expiresAt()), true }),
		LinksGone:          store.OrderedIndex("gone", func(l AccountLink) (string, bool) { return timeKey(l.usableUntil()), true }),
		IdempotencyGone:    store.OrderedIndex("gone", func(r Idempotency) (string, bool) { return timeKey(r.Expires), !r.InFlight }),
		MadeKeys:           store.OrderedIndex("made", func(r Idempotency) (string, bool) { return r.Ref, r.Ref != "" && r.madeSwept() }),
		NewestEvents:       store.OrderedIndex("newest", func(e Event) (string, bool) { return newestKey(e.Scope(), e.Seq), true }),
		EventsGone:         store.OrderedIndex("gone", func(e Event) (string, bool) { return timeKey(e.created()), true }),
		NewestDestinations: store.OrderedIndex("newest", func(d EventDestination) (string, bool) { return newestKey(d.Scope(), d.Seq), true }),
	}
	// Lists walk the indexes; only deliveries are listed by primary key on a request's
	// path, so the other tables keep no order of their keys.
	tb.Accounts = store.NewUnsortedTable(db, "accounts", tb.Newest)
	tb.Persons = store.NewUnsortedTable(db, "persons", tb.PersonsOf)
	tb.Links = store.NewUnsortedTable(db, "accountLinks", tb.LinksGone)
	tb.Idempotency = store.NewUnsortedTable(db, "idempotencyKeys", tb.IdempotencyGone, tb.MadeKeys)
	tb.Tokens = store.NewUnsortedTable(db, "tokens", tb.TokensGone)
	tb.Events = store.NewUnsortedTable(db, "events", tb.NewestEvents, tb.EventsGone)
	tb.Destinations = store.NewUnsortedTable(db, "eventDestinations", tb.NewestDestinations)
	tb.Deliveries = store.NewTable[Delivery](db, "eventDeliveries")
	tb.Floors = store.NewUnsortedTable[floor](db, "sequenceFloors")
	tb.Slots = store.NewUnsortedTable[slot](db, "accountSlots")
	return tb
}

// The sequences that number what lists order: accounts and event destinations newest
// first, persons oldest first within their account, events newest first (and each
// destination's deliveries in the order of their events). Events are never seeded: their
// numbers need no floor.
const (
	seqAccounts     = "accounts"
	seqPersons      = "persons"
	seqDestinations = "eventDestinations"
	seqEvents       = "events"
)

// floor is where a sequence's numbers start: a seed that numbers its entries (as a state
// export does, so that page tokens keep their places) puts the floor above them.
type floor struct {
	Name  string `json:"name"`
	Floor uint64 `json:"floor"`
}

// next is the next number of a sequence: above its floor, never given before, also by
// another server on the same database.
func (s *Server) next(tx *store.Tx, sequence string) uint64 {
	f, _ := s.tables.Floors.Get(tx, sequence)
	return f.Floor + tx.Next(sequence)
}

// timeKey is t as an index key that sorts in time order: times before 1970 (none are
// stored) count as 1970.
func timeKey(t time.Time) string { return store.Uint(uint64(max(t.UnixNano(), 0))) }

// newestKey is the Newest index key: within a scope, a higher sequence sorts first.
func newestKey(scope string, seq uint64) string {
	return scope + "|" + store.Uint(math.MaxUint64-seq)
}
