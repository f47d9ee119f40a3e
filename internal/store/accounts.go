package store

import (
	"math"
	"slices"
	"time"
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
	Dashboard    string
	Country      string // ISO 3166-1 alpha-2
	EntityType   string
	Metadata     map[string]string

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

// accountCodec keeps an account's fields in the order of the struct.
var accountCodec = Codec[Account]{
	Encode: func(e *Enc, a Account) {
		e.String(a.ID)
		e.String(a.Platform)
		e.Bool(a.Livemode)
		e.Uint(a.Seq)
		e.Time(a.Created)
		e.String(a.DisplayName)
		e.String(a.ContactEmail)
		e.String(a.Dashboard)
		e.String(a.Country)
		e.String(a.EntityType)
		e.StringMap(a.Metadata)
		e.Len(len(a.Configurations), a.Configurations == nil)
		for name, caps := range a.Configurations {
			e.String(name)
			e.Len(len(caps), caps == nil)
			for c, on := range caps {
				e.String(c)
				e.Bool(on)
			}
		}
		e.Strings(a.OnboardedConfigurations)
		e.Bool(a.Onboarded)
		e.Int(a.Concurrency)
		e.Bool(a.Closed)
	},
	Decode: func(d *Dec) Account {
		a := Account{ID: d.String(), Platform: d.String(), Livemode: d.Bool(), Seq: d.Uint(), Created: d.Time(),
			DisplayName: d.String(), ContactEmail: d.String(), Dashboard: d.String(), Country: d.String(),
			EntityType: d.String(), Metadata: d.StringMap()}
		if n, isNil := d.Len(); !isNil {
			a.Configurations = make(map[string]map[string]bool, n)
			for range n {
				name := d.String()
				var caps map[string]bool
				if m, isNil := d.Len(); !isNil {
					caps = make(map[string]bool, m)
					for range m {
						c := d.String()
						caps[c] = d.Bool()
					}
				}
				a.Configurations[name] = caps
			}
		}
		a.OnboardedConfigurations = d.Strings()
		a.Onboarded, a.Concurrency, a.Closed = d.Bool(), d.Int(), d.Bool()
		return a
	},
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

// LinkSession is what the hosted form must present to be accepted, once.
type LinkSession struct {
	ID        string // in a cookie
	Nonce     string // in the form
	ExpiresAt time.Time
	Submitted bool
}

// linkCodec keeps a link's fields in the order of the struct.
var linkCodec = Codec[AccountLink]{
	Encode: func(e *Enc, l AccountLink) {
		e.String(l.Token)
		e.String(l.Account)
		e.String(l.Platform)
		e.Bool(l.Livemode)
		e.Time(l.Created)
		e.Time(l.ExpiresAt)
		e.String(l.UseCase)
		e.Strings(l.Configurations)
		e.String(l.RefreshURL)
		e.String(l.ReturnURL)
		e.String(l.CollectFields)
		e.String(l.FutureRequirements)
		e.Bool(l.Consumed)
		e.String(l.Session.ID)
		e.String(l.Session.Nonce)
		e.Time(l.Session.ExpiresAt)
		e.Bool(l.Session.Submitted)
	},
	Decode: func(d *Dec) AccountLink {
		return AccountLink{Token: d.String(), Account: d.String(), Platform: d.String(), Livemode: d.Bool(),
			Created: d.Time(), ExpiresAt: d.Time(), UseCase: d.String(), Configurations: d.Strings(),
			RefreshURL: d.String(), ReturnURL: d.String(), CollectFields: d.String(),
			FutureRequirements: d.String(), Consumed: d.Bool(),
			Session: LinkSession{ID: d.String(), Nonce: d.String(), ExpiresAt: d.Time(), Submitted: d.Bool()}}
	},
}

// Idempotency records a request made with an Idempotency-Key.
type Idempotency struct {
	Key         string // scope|operation|key: the primary key
	RequestHash string
	InFlight    bool
	Ref         string // what the first request made: an account id or a link token
	Expires     time.Time
}

// idempotencyCodec keeps a key's fields in the order of the struct.
var idempotencyCodec = Codec[Idempotency]{
	Encode: func(e *Enc, r Idempotency) {
		e.String(r.Key)
		e.String(r.RequestHash)
		e.Bool(r.InFlight)
		e.String(r.Ref)
		e.Time(r.Expires)
	},
	Decode: func(d *Dec) Idempotency {
		return Idempotency{Key: d.String(), RequestHash: d.String(), InFlight: d.Bool(), Ref: d.String(), Expires: d.Time()}
	},
}

// Accounts holds the accounts API's tables.
type Accounts struct {
	Accounts *Table[Account]
	// Newest orders accounts newest first within their scope.
	Newest      *Ordered[Account]
	Links       *Table[AccountLink]
	Idempotency *Table[Idempotency]
}

// NewAccounts adds the accounts tables to db.
func NewAccounts(db *DB) *Accounts {
	t := NewTable(db, "accounts", accountCodec)
	return &Accounts{
		Accounts:    t,
		Newest:      t.AddOrdered(func(a Account) (string, bool) { return NewestKey(a.Scope(), a.Seq), true }),
		Links:       NewTable(db, "accountLinks", linkCodec),
		Idempotency: NewTable(db, "idempotencyKeys", idempotencyCodec),
	}
}

// NewestKey is the Newest index key: within a scope, a higher sequence sorts first.
func NewestKey(scope string, seq uint64) string {
	return joinPadded(scope, math.MaxUint64-seq)
}
