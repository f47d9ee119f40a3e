package accounts

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/validate"
)

// SeedAccount is an account that exists at start and again after every reset: an entry of
// the seed file's accounts.accounts. Body holds the create request's members as the API's
// JSON body takes them (display_name, contact_email, identity, dashboard, metadata,
// configuration); it is checked by the same spec and rules as POST /v2/core/accounts.
type SeedAccount struct {
	// ID is the account's id, acct_ followed by letters and digits; when empty one is
	// derived from the entry, the same at every start and reset.
	ID string `yaml:"id"`
	// Platform is the platform's id (DefaultPlatformID when empty).
	Platform string `yaml:"platform"`
	// Mode is test (the default) or live.
	Mode string `yaml:"mode"`
	// Onboarded says the account has accepted the terms of service for every configuration,
	// as the hosted form of a link for all of them does: its requested capabilities are then
	// active.
	Onboarded bool `yaml:"onboarded"`
	// Concurrency is the account's own limit of updating requests in flight (0: its
	// platform's limit).
	Concurrency int `yaml:"concurrency"`
	// Body is the create request.
	Body map[string]any `yaml:",inline"`
}

// SeedError is a seeded account that breaks a rule.
type SeedError struct {
	// Index is the account's place in Config.Accounts.
	Index int
	// Field is the member at fault, dotted (configuration.recipient, metadata.k); "" for the
	// whole entry.
	Field string
	Err   error
}

func (e *SeedError) Error() string {
	where := fmt.Sprintf("accounts.accounts[%d]", e.Index)
	if e.Field != "" {
		where += "." + e.Field
	}
	return where + ": " + e.Err.Error()
}

func (e *SeedError) Unwrap() error { return e.Err }

// seedAccountID is the shape of an account id a seed may give.
var seedAccountID = regexp.MustCompile(`^acct_[A-Za-z0-9]{1,250}$`)

// Seed loads the configured accounts into tx, each checked as a create request would be.
// Seeded accounts are created now, in seed order.
func (s *Server) Seed(tx *store.Tx) error {
	for i, sa := range s.cfg.Accounts {
		if err := s.seedAccount(tx, i, sa); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) seedAccount(tx *store.Tx, i int, sa SeedAccount) error {
	fail := func(field, format string, args ...any) error {
		return &SeedError{Index: i, Field: field, Err: fmt.Errorf(format, args...)}
	}
	pid := sa.Platform
	if pid == "" {
		pid = DefaultPlatformID
	}
	p, ok := s.platforms[pid]
	if !ok {
		return fail("platform", "no platform %q: declare it under accounts.platforms", pid)
	}
	if !p.accountsV2 {
		return fail("platform", "platform %q has accounts_v2: false, so it cannot create v2 accounts (accounts_v2_access_blocked)", pid)
	}
	var livemode bool
	switch sa.Mode {
	case "", "test":
	case "live":
		livemode = true
	default:
		return fail("mode", "%q is neither test nor live", sa.Mode)
	}
	if sa.Concurrency < 0 {
		return fail("concurrency", "%d: want a positive limit (or none for the platform's)", sa.Concurrency)
	}
	body, field, err := s.checkSeedBody(sa.Body)
	if err != nil {
		return &SeedError{Index: i, Field: field, Err: err}
	}
	for k := range deref(body.Metadata) {
		if len(k) > 40 {
			return fail("metadata."+k, "keys must be at most 40 characters (%q is %d)", k, len(k))
		}
	}
	a := accountFromRequest(body)
	a.ID = sa.ID
	if a.ID == "" {
		a.ID = derivedAccountID(i, pid, livemode, a.DisplayName)
	} else if !seedAccountID.MatchString(a.ID) {
		return fail("id", "%q is not an account id: want acct_ followed by letters and digits", a.ID)
	}
	if prev, dup := s.tables.Accounts.Get(tx, a.ID); dup {
		return fail("id", "account %s is declared twice (as %q before)", a.ID, prev.DisplayName)
	}
	a.Platform, a.Livemode = pid, livemode
	a.Seq = s.seq.Add(1)
	a.Created = s.now()
	a.Concurrency = sa.Concurrency
	if sa.Onboarded && len(a.Configurations) > 0 {
		// The hosted form, the only way to accept the terms, collects everything else first.
		for _, r := range requirementsOf(a) {
			if r.Field != termsOfService {
				return fail("onboarded", "an onboarded account needs %s: the hosted form collects it before the terms of service are accepted", r.Field)
			}
		}
	}
	a.Onboarded = sa.Onboarded
	return s.tables.Accounts.Put(tx, a.ID, a)
}

// derivedAccountID is the id of a seeded account that names none: the same for the same
// entry at every start and reset, and of the shape the API gives (acct_ and 16 alphanumerics).
func derivedAccountID(i int, platform string, livemode bool, name string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "seed|%d|%s|%t|%s", i, platform, livemode, name))
	n := new(big.Int).SetBytes(sum[:])
	out := make([]byte, 16)
	base := big.NewInt(int64(len(alphanumerics)))
	mod := new(big.Int)
	for j := range out {
		n.DivMod(n, base, mod)
		out[j] = alphanumerics[mod.Int64()]
	}
	return "acct_" + string(out)
}

// seedValidator checks seeded accounts as createAccount requests, built once.
var seedValidator = sync.OnceValues(func() (*validate.Validator, error) {
	spec, err := Spec()
	if err != nil {
		return nil, err
	}
	return validate.New(spec, validate.Options{})
})

// checkSeedBody checks a seeded create request against the spec, as the API checks the
// request's body, and decodes it. On error it names the member at fault.
func (s *Server) checkSeedBody(body map[string]any) (gen.CreateAccountRequest, string, error) {
	var out gen.CreateAccountRequest
	if body == nil {
		body = map[string]any{}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return out, "", err
	}
	v, err := seedValidator()
	if err != nil {
		return out, "", err
	}
	req, err := http.NewRequest(http.MethodPost, "/v2/core/accounts", bytes.NewReader(raw))
	if err != nil {
		return out, "", err
	}
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	req.Header.Set("Service-Version", s.cfg.ServiceVersions[0])
	if err := v.CheckRequest("createAccount", req, nil); err != nil {
		var ve *validate.Error
		if errors.As(err, &ve) && ve.In == "body" {
			return out, ve.Name, errors.New(strings.TrimSpace(ve.Reason))
		}
		return out, "", err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, "", err
	}
	return out, "", nil
}
