package accounts

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// SeedLink is an account link that exists at start and again after every reset: an entry
// of the seed file's accounts.account_links. Its Body is either the create request's
// members (account, use_case), checked by the same spec and rules as
// POST /v2/core/account_links, except that the account, which must be seeded, may have been
// closed since, with created and expires_at; or the link's object ("object":
// "v2.core.account_link"), which a state export writes without its url (which the
// request's host makes, from the token). Beside it are its token and whether it was
// visited.
type SeedLink struct {
	// Token is the secret in the link's URL: alu_test_ (test mode) or alu_ (live mode),
	// as the account's mode is, then letters and digits. When empty one is derived from the
	// entry, the same at every start and reset.
	Token string `yaml:"token,omitempty" json:"token,omitempty"`
	// Consumed says the link was visited: every later visit goes to its refresh_url.
	Consumed bool `yaml:"consumed,omitempty" json:"consumed,omitempty"`
	// Body is the create request, with created and expires_at (RFC 3339 times; absent: the
	// start or reset, and the link lifetime after created); or the link's object.
	Body map[string]any `yaml:",inline" json:"-"`
}

// UnmarshalJSON reads an entry whose body's members sit beside the named ones.
func (e *SeedLink) UnmarshalJSON(data []byte) error {
	type named SeedLink
	return entryJSON(data, (*named)(e), &e.Body)
}

// MarshalJSON writes the entry as UnmarshalJSON reads it.
func (e SeedLink) MarshalJSON() ([]byte, error) {
	type named SeedLink
	return entryMarshalJSON(named(e), e.Body)
}

// SeedIdempotencyKey is an Idempotency-Key that a successful request used, as a state
// export records it: a retry with the same key and body gets what that request made, a
// request with another body or on another endpoint 400 idempotency_error, until ExpiresAt.
type SeedIdempotencyKey struct {
	// Platform and Mode are whose key it is (platform_default and test when empty).
	Platform string `yaml:"platform,omitempty"`
	Mode     string `yaml:"mode,omitempty"`
	// Operation is the request's operationId: createAccount, updateAccount, closeAccount,
	// createAccountLink, createPerson or updatePerson.
	Operation string `yaml:"operation"`
	Key       string `yaml:"key"`
	// RequestHash is the SHA-256 of the request (hex), which a retry's must equal.
	RequestHash string `yaml:"request_hash"`
	// Ref is what the request made: an account's or person's id, or a link's token.
	Ref       string `yaml:"ref"`
	ExpiresAt string `yaml:"expires_at"`
}

// idempotentOperations are the operations that remember Idempotency-Keys.
// Those of tokens are not among them: tokens are not in the state export (they live
// minutes and are used once), so a key's ref would point at nothing.
var idempotentOperations = []string{"createAccount", "updateAccount", "closeAccount", "createAccountLink", "createPerson", "updatePerson"}

func (s *Server) seedLink(tx *store.Tx, i int, sl SeedLink) error {
	fail := func(field, format string, args ...any) error {
		return &SeedError{Collection: SeedLinks, Index: i, Field: field, Err: fmt.Errorf(format, args...)}
	}
	body := cloneTree(sl.Body)
	if body == nil {
		body = map[string]any{}
	}
	var req gen.CreateAccountLinkRequest
	var created, expires string
	isObject := isObjectEntry(body, string(gen.V2CoreAccountLinkObjectV2CoreAccountLink))
	if isObject {
		if _, ok := body["url"]; !ok {
			body["url"] = "" // the request's host makes it, from the token
		}
		var o gen.V2CoreAccountLink
		if field, err := s.checkObject("V2CoreAccountLink", body, &o); err != nil {
			return &SeedError{Collection: SeedLinks, Index: i, Field: field, Err: err}
		}
		// The request the object answers: its account and use case, the use case not
		// chosen (null) left out.
		uc, _ := body["use_case"].(map[string]any)
		for k, v := range uc {
			if v == nil {
				delete(uc, k)
			}
		}
		if err := json.Unmarshal(mustJSON(map[string]any{"account": o.Account, "use_case": uc}), &req); err != nil {
			return fail("use_case", "%v", err)
		}
		created, expires = o.Created, o.ExpiresAt
	} else {
		var err error
		if created, err = takeTime(body, "created"); err != nil {
			return fail("created", "%v", err)
		}
		if expires, err = takeTime(body, "expires_at"); err != nil {
			return fail("expires_at", "%v", err)
		}
		if field, err := s.checkSeedRequest("createAccountLink", "/v2/core/account_links", nil, body, &req); err != nil {
			return &SeedError{Collection: SeedLinks, Index: i, Field: field, Err: err}
		}
	}
	flow, err := chosenFlow(req.UseCase)
	if err != nil {
		return &SeedError{Collection: SeedLinks, Index: i, Field: "use_case", Err: err}
	}
	a, ok := s.getAccount(tx, req.Account)
	if !ok {
		return fail("account", "no account %s: declare it under accounts.accounts", req.Account)
	}
	if isObject && body["livemode"] != a.Livemode() {
		return fail("livemode", "%v, but account %s is of %s mode", body["livemode"], a.ID(), modeName(a.Livemode()))
	}
	for _, cfg := range flow.Configurations {
		if !a.Applied(string(cfg)) {
			return fail("use_case", "configuration %s is not applied to account %s (configs_must_match_to_use_account_links)", cfg, a.ID())
		}
	}
	token := sl.Token
	if token == "" {
		token = linkTokenPrefix(a.Livemode()) + derivedAlphanumerics(fmt.Sprintf("seed-link|%d|%s", i, a.ID()), 32)
	}
	if strings.HasPrefix(token, "alu_test_") == a.Livemode() {
		mode := "alu_test_ (the account is in test mode)"
		if a.Livemode() {
			mode = "alu_ but not alu_test_ (the account is in live mode)"
		}
		return fail("token", "%s is not a link token of the account's mode: want %s followed by letters and digits", LoggedPath(token), mode)
	}
	// The link's hosted page must be one the API serves.
	if field, err := s.checkHostedPath(a.ID(), token); err != nil {
		return fail(field, "the link's page /r/%s/%s could not be opened: %v", a.ID(), LoggedPath(token), err)
	}
	if _, dup := s.tables.Links.Get(tx, token); dup {
		return fail("token", "link %s is declared twice", LoggedPath(token))
	}
	at := s.now()
	if created != "" {
		at, _ = timefmt.Parse(created)
	}
	l, err := s.newLink(a, req, flow, token, at)
	if err != nil {
		return fail("", "%v", err)
	}
	if expires != "" {
		l.Object.ExpiresAt = expires
	}
	l.Consumed = sl.Consumed
	return s.tables.Links.Put(tx, l.Token, l)
}

// mustJSON is v as JSON (of values JSON can carry).
func mustJSON(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}

func (s *Server) seedIdempotencyKey(tx *store.Tx, i int, k SeedIdempotencyKey) error {
	fail := func(field, format string, args ...any) error {
		return &SeedError{Collection: SeedIdempotencyKeys, Index: i, Field: field, Err: fmt.Errorf(format, args...)}
	}
	pid, _, livemode, field, err := s.seedOwner(k.Platform, k.Mode)
	if err != nil {
		return &SeedError{Collection: SeedIdempotencyKeys, Index: i, Field: field, Err: err}
	}
	known := false
	for _, op := range idempotentOperations {
		known = known || op == k.Operation
	}
	if !known {
		return fail("operation", "%q does not take an Idempotency-Key: want one of %s", k.Operation, strings.Join(idempotentOperations, ", "))
	}
	if k.Key == "" {
		return fail("key", "required: the Idempotency-Key")
	}
	if b, err := hex.DecodeString(k.RequestHash); err != nil || len(b) != 32 {
		return fail("request_hash", "want the request's SHA-256, as 64 hexadecimal digits")
	}
	_, isAccount := s.getAccount(tx, k.Ref)
	_, isLink := s.tables.Links.Get(tx, k.Ref)
	_, isPerson := s.tables.Persons.Get(tx, k.Ref)
	if !isAccount && !isLink && !isPerson {
		return fail("ref", "%q is neither a seeded account's id, a seeded person's id nor a seeded link's token: a retry would find nothing", LoggedPath(k.Ref))
	}
	expires, err := timefmt.Parse(k.ExpiresAt)
	if err != nil {
		return fail("expires_at", "%v", err)
	}
	pk := AccountScope(pid, livemode) + "|" + k.Key
	if _, dup := s.tables.Idempotency.Get(tx, pk); dup {
		return fail("key", "key %q is declared twice (a key is bound to one request)", k.Key)
	}
	return s.tables.Idempotency.Put(tx, pk, Idempotency{Key: pk, Operation: k.Operation, Path: s.seededKeyPath(tx, k.Operation, k.Ref),
		RequestHash: k.RequestHash, Ref: k.Ref, Expires: expires})
}

// seededKeyPath is the path of the request a seeded key's operation made ref with, which a
// retry's must equal.
func (s *Server) seededKeyPath(tx *store.Tx, op, ref string) string {
	account := ref
	if p, ok := s.tables.Persons.Get(tx, ref); ok {
		account = p.Object.Account
	}
	switch op {
	case "createAccount":
		return "/v2/core/accounts"
	case "updateAccount":
		return "/v2/core/accounts/" + ref
	case "closeAccount":
		return "/v2/core/accounts/" + ref + "/close"
	case "createAccountLink":
		return "/v2/core/account_links"
	case "createPerson":
		return "/v2/core/accounts/" + account + "/persons"
	case "updatePerson":
		return "/v2/core/accounts/" + account + "/persons/" + ref
	}
	return op
}
