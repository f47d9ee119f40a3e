package accounts

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// SeedDestination is an event destination that exists at start and again after every
// reset: an entry of the seed file's accounts.event_destinations. Body holds the create
// request's members (name, type, event_payload, enabled_events, webhook_endpoint, ...),
// checked by the same spec and rules as POST /v2/core/event_destinations. The rest is what
// a state export records so that the destination comes back as it was: its id, secret,
// times, place in lists, and whether it was disabled.
type SeedDestination struct {
	// ID is the destination's id, ed_test_ (ed_ in live mode) followed by letters and digits;
	// when empty one is derived from the entry, the same at every start and reset.
	ID string `yaml:"id,omitempty"`
	// Platform is the platform's id (DefaultPlatformID when empty); Mode is test (the
	// default) or live.
	Platform string `yaml:"platform,omitempty"`
	Mode     string `yaml:"mode,omitempty"`
	// SigningSecret is a webhook endpoint's whsec_ secret (empty: derived from the entry).
	SigningSecret string `yaml:"signing_secret,omitempty"`
	// Disabled says the platform disabled the destination (/disable).
	Disabled bool `yaml:"disabled,omitempty"`
	// Created and Updated are RFC 3339 times (empty: the start or reset).
	Created string `yaml:"created,omitempty"`
	Updated string `yaml:"updated,omitempty"`
	// Sequence is the destination's place in the newest-first lists (0: after the others,
	// in the order of the file).
	Sequence uint64 `yaml:"sequence,omitempty"`
	// Body is the create request.
	Body map[string]any `yaml:",inline"`
}

// SeedDestinations is the list of the seed file's accounts section that holds event
// destinations.
const SeedDestinations = "event_destinations"

var (
	seedDestinationID = regexp.MustCompile(`^ed_(test_)?[A-Za-z0-9]{1,250}$`)
	seedSecret        = regexp.MustCompile(`^whsec_[A-Za-z0-9]{1,250}$`)
)

func (s *Server) seedDestination(tx *store.Tx, i int, sd SeedDestination, seq *numbering) error {
	fail := func(field, format string, args ...any) error {
		return &SeedError{Collection: SeedDestinations, Index: i, Field: field, Err: fmt.Errorf(format, args...)}
	}
	pid, p, livemode, field, err := s.seedOwner(sd.Platform, sd.Mode)
	if err != nil {
		return &SeedError{Collection: SeedDestinations, Index: i, Field: field, Err: err}
	}
	if !p.accountsV2 {
		return fail("platform", "platform %q has accounts_v2: false, so it has no v2 event destinations (accounts_v2_access_blocked)", pid)
	}
	var body gen.CreateEventDestinationRequest
	if field, err := s.checkSeedRequest("createEventDestination", "/v2/core/event_destinations", nil, sd.Body, &body); err != nil {
		return &SeedError{Collection: SeedDestinations, Index: i, Field: field, Err: err}
	}
	if err := checkDestination(body); err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return fail("", "%s", ae.Message)
		}
		return fail("", "%v", err)
	}
	d := destinationFromRequest(body)
	d.Platform, d.Livemode, d.Seq, d.Created = pid, livemode, sd.Sequence, s.now()
	d.ID = sd.ID
	if d.ID == "" {
		d.ID = destinationIDPrefix(livemode) + derivedAlphanumerics(fmt.Sprintf("seed-destination|%d|%s|%t", i, pid, livemode), 24)
	} else if !seedDestinationID.MatchString(d.ID) || livemode == strings.HasPrefix(d.ID, "ed_test_") {
		return fail("id", "%q is not an event destination id of %s mode: want %s followed by letters and digits", d.ID, modeName(livemode), destinationIDPrefix(livemode))
	}
	if _, dup := s.tables.Destinations.Get(tx, d.ID); dup {
		return fail("id", "event destination %s is declared twice", d.ID)
	}
	if d.Type == string(gen.EventDestinationTypeWebhookEndpoint) {
		switch {
		case sd.SigningSecret == "":
			d.Secret = "whsec_" + derivedAlphanumerics("seed-destination-secret|"+d.ID, 32)
		case !seedSecret.MatchString(sd.SigningSecret):
			return fail("signing_secret", "want whsec_ followed by letters and digits")
		default:
			d.Secret = sd.SigningSecret
		}
		if sd.Disabled {
			d.Disabled, d.DisabledReason = true, string(gen.EventDestinationStatusDetailsDisabledReasonUser)
		}
	} else if sd.SigningSecret != "" {
		return fail("signing_secret", "only a webhook_endpoint destination has one")
	}
	d.Seq = seq.take(d.Seq)
	if sd.Created != "" {
		if d.Created, err = timefmt.Parse(sd.Created); err != nil {
			return fail("created", "%v", err)
		}
	}
	d.Updated = d.Created
	if sd.Updated != "" {
		if d.Updated, err = timefmt.Parse(sd.Updated); err != nil {
			return fail("updated", "%v", err)
		}
	}
	return s.tables.Destinations.Put(tx, d.ID, d)
}

func modeName(livemode bool) string {
	if livemode {
		return "live"
	}
	return "test"
}
