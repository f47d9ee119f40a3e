package accounts

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/validate"
)

// SeedAccount is an account that exists at start and again after every reset: an entry of
// the seed file's accounts.accounts. Its Body is either the create request's members as the
// API's JSON body takes them (display_name, contact_email, identity, dashboard, metadata,
// configuration), checked by the same spec and rules as POST /v2/core/accounts, with the
// account's id, created and closed; or the account's object as a retrieve with every
// section returns it ("object": "v2.core.account"), checked as the spec describes the
// object, which a state export writes. Either way what follows from the rest (applied
// configurations, capability statuses, requirements) is computed as the API computes it.
// Beside the body are the members the account's object does not say.
type SeedAccount struct {
	// Platform is the platform's id (DefaultPlatformID when empty).
	Platform string `yaml:"platform,omitempty" json:"platform,omitempty"`
	// Mode is test (the default) or live; an object's livemode says it too.
	Mode string `yaml:"mode,omitempty" json:"mode,omitempty"`
	// Onboarded says the account has accepted the terms of service for every configuration,
	// as the hosted form of a link for all of them does: its requested capabilities are then
	// active.
	Onboarded bool `yaml:"onboarded,omitempty" json:"onboarded,omitempty"`
	// OnboardedConfigurations are the configurations whose terms a submitted link accepted.
	OnboardedConfigurations []string `yaml:"onboarded_configurations,omitempty" json:"onboarded_configurations,omitempty"`
	// Concurrency is the account's own limit of updating requests in flight (0: its
	// platform's limit).
	Concurrency int `yaml:"concurrency,omitempty" json:"concurrency,omitempty"`
	// Sequence is the account's place in the newest-first order of lists, which their page
	// tokens carry (0: after every account the seed numbers, in the order of the file).
	Sequence uint64 `yaml:"sequence,omitempty" json:"sequence,omitempty"`
	// Body is the create request, with id (acct_ followed by letters and digits; when
	// absent one is derived from the entry, the same at every start and reset), created (an
	// RFC 3339 time; absent: the start or reset) and closed; or the account's object.
	Body map[string]any `yaml:",inline" json:"-"`
}

// UnmarshalJSON reads an entry whose body's members sit beside the named ones.
func (e *SeedAccount) UnmarshalJSON(data []byte) error {
	type named SeedAccount
	return entryJSON(data, (*named)(e), &e.Body)
}

// MarshalJSON writes the entry as UnmarshalJSON reads it.
func (e SeedAccount) MarshalJSON() ([]byte, error) {
	type named SeedAccount
	return entryMarshalJSON(named(e), e.Body)
}

// The lists of the seed file's accounts section, as SeedError names them.
const (
	SeedAccounts        = "accounts"
	SeedLinks           = "account_links"
	SeedIdempotencyKeys = "idempotency_keys"
	SeedPlatforms       = "platforms"
)

// SeedError is a seeded account, link or idempotency key that breaks a rule.
type SeedError struct {
	// Collection is the list the entry is in (SeedAccounts when empty), Index its place in
	// the Config's list.
	Collection string
	Index      int
	// Field is the member at fault, dotted (configuration.recipient, metadata.k); "" for the
	// whole entry.
	Field string
	Err   error
}

func (e *SeedError) Error() string {
	collection := e.Collection
	if collection == "" {
		collection = SeedAccounts
	}
	where := fmt.Sprintf("accounts.%s[%d]", collection, e.Index)
	if e.Field != "" {
		where += "." + e.Field
	}
	return where + ": " + e.Err.Error()
}

func (e *SeedError) Unwrap() error { return e.Err }

// seedID reports whether id is prefix followed by 1 to 250 ASCII letters and digits: the
// shape of the ids (and webhook secrets) a seed may give. Not a regular expression: one with
// {1,250} compiles to 250 copies of its class, 150 KB kept for the life of the process.
func seedID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || len(rest) == 0 || len(rest) > 250 {
		return false
	}
	for _, c := range []byte(rest) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Seed loads the configured accounts into tx, each checked as a create request would be,
// then their persons, the event destinations, their links and idempotency keys. Seeded
// accounts without a creation time are created now; those without a sequence are numbered
// in seed order, after every account that gives one (and so are persons and destinations),
// and what the API makes later is numbered after all of them.
//
// The entries are seed's (its Accounts, Persons, EventDestinations, Links and
// IdempotencyKeys); its platforms and settings are the server's own.
func (s *Server) Seed(tx *store.Tx, seed Config) error {
	sequences := map[uint64]int{}
	for i, sa := range seed.Accounts {
		if sa.Sequence == 0 {
			continue
		}
		if first, dup := sequences[sa.Sequence]; dup {
			return &SeedError{Index: i, Field: "sequence", Err: fmt.Errorf("%d is the sequence of accounts[%d] too: each account has its own place in the lists", sa.Sequence, first)}
		}
		sequences[sa.Sequence] = i
	}
	accounts := numbering{}
	for _, sa := range seed.Accounts {
		accounts.high = max(accounts.high, sa.Sequence)
	}
	for i, sa := range seed.Accounts {
		if err := s.seedAccount(tx, i, sa, &accounts); err != nil {
			return err
		}
	}
	persons := numbering{}
	for _, sp := range seed.Persons {
		persons.high = max(persons.high, sp.Sequence)
	}
	for i, sp := range seed.Persons {
		if err := s.seedPerson(tx, i, sp, &persons); err != nil {
			return err
		}
	}
	destinations := numbering{}
	for _, sd := range seed.EventDestinations {
		destinations.high = max(destinations.high, sd.Sequence)
	}
	for i, sd := range seed.EventDestinations {
		if err := s.seedDestination(tx, i, sd, &destinations); err != nil {
			return err
		}
	}
	for i, sl := range seed.Links {
		if err := s.seedLink(tx, i, sl); err != nil {
			return err
		}
	}
	for i, k := range seed.IdempotencyKeys {
		if err := s.seedIdempotencyKey(tx, i, k); err != nil {
			return err
		}
	}
	for name, n := range map[string]numbering{seqAccounts: accounts, seqPersons: persons, seqDestinations: destinations} {
		if err := s.tables.Floors.Put(tx, name, floor{Name: name, Floor: n.floor()}); err != nil {
			return err
		}
	}
	return nil
}

// numbering numbers the seeded entries of a list: an entry that gives its sequence keeps
// it; the others follow every given one (high), in the order of the file.
type numbering struct{ high, taken uint64 }

func (n *numbering) take(given uint64) uint64 {
	if given != 0 {
		return given
	}
	n.taken++
	return n.high + n.taken
}

// floor is the last number the seed used: the API numbers after it.
func (n numbering) floor() uint64 { return n.high + n.taken }

// seedOwner is the platform a seed entry names (the default one when it names none) and
// whether its mode is live; field names what is wrong when err is not nil.
func (s *Server) seedOwner(platformID, mode string) (pid string, p *platform, livemode bool, field string, err error) {
	pid = platformID
	if pid == "" {
		pid = DefaultPlatformID
	}
	p, ok := s.platforms[pid]
	if !ok {
		return pid, nil, false, "platform", fmt.Errorf("no platform %q: declare it under accounts.platforms", pid)
	}
	switch mode {
	case "", "test":
	case "live":
		livemode = true
	default:
		return pid, p, false, "mode", fmt.Errorf("%q is neither test nor live", mode)
	}
	return pid, p, livemode, "", nil
}

func (s *Server) seedAccount(tx *store.Tx, i int, sa SeedAccount, seq *numbering) error {
	fail := func(field, format string, args ...any) error {
		return &SeedError{Index: i, Field: field, Err: fmt.Errorf(format, args...)}
	}
	pid, p, livemode, field, err := s.seedOwner(sa.Platform, sa.Mode)
	if err != nil {
		return &SeedError{Index: i, Field: field, Err: err}
	}
	if !p.accountsV2 {
		return fail("platform", "platform %q has accounts_v2: false, so it cannot create v2 accounts (accounts_v2_access_blocked)", pid)
	}
	if sa.Concurrency < 0 {
		return fail("concurrency", "%d: want a positive limit (or none for the platform's)", sa.Concurrency)
	}
	a := Account{Platform: pid, Seq: seq.take(sa.Sequence), Concurrency: sa.Concurrency, Onboarded: sa.Onboarded}
	body := cloneTree(sa.Body)
	if body == nil {
		body = map[string]any{}
	}
	var obj map[string]any
	recorded := false // the entry gives its creation time, as an export does
	isObject := isObjectEntry(body, accountObject)
	if isObject {
		var o gen.V2CoreAccount
		if field, err := s.checkObject("V2CoreAccount", body, &o); err != nil {
			return &SeedError{Index: i, Field: field, Err: err}
		}
		if sa.Mode != "" && o.Livemode != livemode {
			return fail("livemode", "%t, but the entry's mode is %s", o.Livemode, sa.Mode)
		}
		created, err := takeTime(body, "created")
		if err != nil {
			return fail("created", "%v", err)
		}
		obj, body["created"], recorded = body, created, true
	} else {
		id, err := takeString(body, "id")
		if err != nil {
			return fail("id", "%v", err)
		}
		created, err := takeTime(body, "created")
		if err != nil {
			return fail("created", "%v", err)
		}
		closed, _ := take(body, "closed")
		if _, ok := closed.(bool); closed != nil && !ok {
			return fail("closed", "want true or false, got %v", closed)
		}
		req, field, err := s.checkSeedBody(body)
		if err != nil {
			return &SeedError{Index: i, Field: field, Err: err}
		}
		for k := range deref(req.Metadata) {
			if len(k) > 40 {
				return fail("metadata."+k, "keys must be at most 40 characters (%q is %d)", k, len(k))
			}
		}
		tree := treeOf(req)
		delete(tree, "include")
		if _, ok := tree["account_token"]; ok {
			return fail("account_token", "a seeded account cannot use a token: give the token's members instead")
		}
		recorded = created != ""
		if created == "" {
			created = timestamp(s.now())
		}
		obj = map[string]any{"id": id, "created": created, "livemode": livemode}
		if err := applyAccount(&a, obj, tree); err != nil {
			return fail("metadata", "%v", err)
		}
		if id == "" {
			obj["id"] = derivedAccountID(i, pid, livemode, digString(obj, "display_name"))
		}
		obj["closed"] = closed == true
	}
	a.Head.ID, _ = obj["id"].(string)
	if !seedID(a.ID(), "acct_") {
		return fail("id", "%q is not an account id: want acct_ followed by letters and digits", a.ID())
	}
	if _, dup := s.getAccount(tx, a.ID()); dup {
		return fail("id", "account %s is declared twice", a.ID())
	}
	closed := obj["closed"] == true
	if sa.Onboarded && !recorded && !closed && len(configurationNames(obj)) > 0 {
		// The hosted form, the only way to accept the terms, collects everything else first.
		// An account a state export recorded (with its creation time) may have lost some of
		// it in a later update.
		for _, r := range requirementsOf(&a, obj, nil) {
			if r.Field != termsOfService && !r.Eventual {
				return fail("onboarded", "an onboarded account needs %s: the hosted form collects it before the terms of service are accepted", r.Field)
			}
		}
	}
	for _, name := range sa.OnboardedConfigurations {
		if !slices.Contains(a.OnboardedConfigurations, name) {
			a.OnboardedConfigurations = append(a.OnboardedConfigurations, name)
		}
	}
	slices.Sort(a.OnboardedConfigurations)
	if closed && !isObject {
		// A request closed since: computed as it was while open, then closed.
		obj["closed"] = false
		if err := fillAccount(&a, obj); err != nil {
			return fail("", "%v", err)
		}
		obj["closed"] = true
	}
	if err := fillAccount(&a, obj); err != nil {
		return fail("", "%v", err)
	}
	for j, name := range sa.OnboardedConfigurations {
		if !a.Applied(name) {
			has := "the account has none"
			if applied := a.Head.AppliedConfigurations; len(applied) > 0 {
				has = "it has " + strings.Join(applied, ", ")
			}
			return fail(fmt.Sprintf("onboarded_configurations.%d", j), "%q is not one of the account's configurations: %s", name, has)
		}
	}
	return s.tables.Accounts.Put(tx, a.ID(), a)
}

// derivedAccountID is the id of a seeded account that names none: the same for the same
// entry at every start and reset, and of the shape the API gives (acct_ and 16 alphanumerics).
func derivedAccountID(i int, platform string, livemode bool, name string) string {
	return "acct_" + derivedAlphanumerics(fmt.Sprintf("seed|%d|%s|%t|%s", i, platform, livemode, name), 16)
}

// derivedAlphanumerics are n alphanumerics derived from seed (at most 43, what 256 bits
// give): the same for the same seed.
func derivedAlphanumerics(seed string, n int) string {
	sum := sha256.Sum256([]byte(seed))
	num := new(big.Int).SetBytes(sum[:])
	out := make([]byte, n)
	base := big.NewInt(int64(len(alphanumerics)))
	mod := new(big.Int)
	for j := range out {
		num.DivMod(num, base, mod)
		out[j] = alphanumerics[mod.Int64()]
	}
	return string(out)
}

// checkSeedBody checks a seeded create request against the spec, as the API checks the
// request's body, and decodes it. On error it names the member at fault.
func (s *Server) checkSeedBody(body map[string]any) (gen.CreateAccountRequest, string, error) {
	var out gen.CreateAccountRequest
	field, err := s.checkSeedRequest("createAccount", "/v2/core/accounts", nil, body, &out)
	return out, field, err
}

// checkHostedPath checks the path of a link's hosted page as the API checks a visit's: on
// error it names the member at fault (account or token).
func (s *Server) checkHostedPath(account, token string) (string, error) {
	v, err := s.seedValidator()
	if err != nil {
		return "", err
	}
	req, err := http.NewRequest(http.MethodGet, "/r/x/y", nil)
	if err != nil {
		return "", err
	}
	if err := v.CheckRequest("openAccountLink", req, map[string]string{"account": account, "token": token}); err != nil {
		var ve *validate.Error
		if errors.As(err, &ve) && ve.In == "path" {
			return ve.Name, errors.New(strings.TrimSpace(ve.Reason))
		}
		return "", err
	}
	return "", nil
}

// checkSeedRequest checks body as the body of a POST to path, operation opID, and decodes
// it into out. On error it names the member at fault.
func (s *Server) checkSeedRequest(opID, path string, pathParams map[string]string, body map[string]any, out any) (string, error) {
	if body == nil {
		body = map[string]any{}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	v, err := s.seedValidator()
	if err != nil {
		return "", err
	}
	req, err := http.NewRequest(http.MethodPost, path, bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	req.Header.Set("Service-Version", s.cfg.ServiceVersions[0])
	if err := v.CheckRequest(opID, req, pathParams); err != nil {
		var ve *validate.Error
		if errors.As(err, &ve) && ve.In == "body" {
			return ve.Name, errors.New(strings.TrimSpace(ve.Reason))
		}
		return "", err
	}
	return "", json.Unmarshal(raw, out)
}
