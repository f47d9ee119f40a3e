package store

import (
	"maps"
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

func cloneAccount(a Account) Account {
	a.Metadata = maps.Clone(a.Metadata)
	a.OnboardedConfigurations = slices.Clone(a.OnboardedConfigurations)
	if a.Configurations != nil {
		c := make(map[string]map[string]bool, len(a.Configurations))
		for k, v := range a.Configurations {
			c[k] = maps.Clone(v)
		}
		a.Configurations = c
	}
	return a
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

func cloneLink(l AccountLink) AccountLink {
	l.Configurations = slices.Clone(l.Configurations)
	return l
}

// Idempotency records a request made with an Idempotency-Key.
type Idempotency struct {
	Key         string // scope|operation|key: the primary key
	RequestHash string
	InFlight    bool
	Ref         string // what the first request made: an account id or a link token
	Expires     time.Time
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
	t := NewTable[Account](db, "accounts", cloneAccount)
	return &Accounts{
		Accounts:    t,
		Newest:      t.AddOrdered(func(a Account) (string, bool) { return NewestKey(a.Scope(), a.Seq), true }),
		Links:       NewTable[AccountLink](db, "accountLinks", cloneLink),
		Idempotency: NewTable[Idempotency](db, "idempotencyKeys", nil),
	}
}

// NewestKey is the Newest index key: within a scope, a higher sequence sorts first.
func NewestKey(scope string, seq uint64) string {
	return joinPadded(scope, math.MaxUint64-seq)
}
