package accounts

import (
	"errors"
	"fmt"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// SeedDestination is an event destination that exists at start and again after every
// reset: an entry of the seed file's accounts.event_destinations. Its Body is either the
// create request's members (name, type, event_payload, enabled_events, webhook_endpoint,
// ...), checked by the same spec and rules as POST /v2/core/event_destinations, with id,
// signing_secret, disabled, created and updated; or the destination's object as a retrieve
// that includes the webhook endpoint's URL and signing secret returns it ("object":
// "v2.core.event_destination"), which a state export writes.
type SeedDestination struct {
	// Platform is the platform's id (DefaultPlatformID when empty); Mode is test (the
	// default) or live.
	Platform string `yaml:"platform,omitempty" json:"platform,omitempty"`
	Mode     string `yaml:"mode,omitempty" json:"mode,omitempty"`
	// Sequence is the destination's place in the newest-first lists (0: after the others,
	// in the order of the file).
	Sequence uint64 `yaml:"sequence,omitempty" json:"sequence,omitempty"`
	// Body is the create request, with id (ed_test_, ed_ in live mode, followed by letters
	// and digits; when absent one is derived from the entry, the same at every start and
	// reset), signing_secret (a webhook endpoint's whsec_ secret; absent: derived from the
	// id), disabled (the platform disabled it), created and updated (RFC 3339 times;
	// absent: the start or reset); or the destination's object.
	Body map[string]any `yaml:",inline" json:"-"`
}

// UnmarshalJSON reads an entry whose body's members sit beside the named ones.
func (e *SeedDestination) UnmarshalJSON(data []byte) error {
	type named SeedDestination
	return entryJSON(data, (*named)(e), &e.Body)
}

// MarshalJSON writes the entry as UnmarshalJSON reads it.
func (e SeedDestination) MarshalJSON() ([]byte, error) {
	type named SeedDestination
	return entryMarshalJSON(named(e), e.Body)
}

// SeedDestinations is the list of the seed file's accounts section that holds event
// destinations.
const SeedDestinations = "event_destinations"

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
	body := cloneTree(sd.Body)
	if body == nil {
		body = map[string]any{}
	}
	var obj map[string]any
	if isObjectEntry(body, destinationObject) {
		var o gen.V2CoreEventDestination
		if field, err := s.checkObject("V2CoreEventDestination", body, &o); err != nil {
			return &SeedError{Collection: SeedDestinations, Index: i, Field: field, Err: err}
		}
		if sd.Mode != "" && o.Livemode != livemode {
			return fail("livemode", "%t, but the entry's mode is %s", o.Livemode, sd.Mode)
		}
		if o.EventPayload == gen.EventPayloadThin {
			if err := checkEventTypes(o.EnabledEvents); err != nil {
				return fail("enabled_events", "%s", err.(*Error).Message)
			}
		}
		livemode, obj = o.Livemode, body
	} else {
		id, err := takeString(body, "id")
		if err != nil {
			return fail("id", "%v", err)
		}
		secret, err := takeString(body, "signing_secret")
		if err != nil {
			return fail("signing_secret", "%v", err)
		}
		disabled, _ := take(body, "disabled")
		if _, ok := disabled.(bool); disabled != nil && !ok {
			return fail("disabled", "want true or false, got %v", disabled)
		}
		created, _ := take(body, "created")
		updated, _ := take(body, "updated")
		var req gen.CreateEventDestinationRequest
		if field, err := s.checkSeedRequest("createEventDestination", "/v2/core/event_destinations", nil, body, &req); err != nil {
			return &SeedError{Collection: SeedDestinations, Index: i, Field: field, Err: err}
		}
		if err := checkDestination(req); err != nil {
			var ae *Error
			if errors.As(err, &ae) {
				return fail("", "%s", ae.Message)
			}
			return fail("", "%v", err)
		}
		if id == "" {
			id = destinationIDPrefix(livemode) + derivedAlphanumerics(fmt.Sprintf("seed-destination|%d|%s|%t", i, pid, livemode), 24)
		}
		obj = treeOf(req)
		obj["id"], obj["livemode"], obj["created"], obj["updated"] = id, livemode, created, updated
		if req.Type == gen.EventDestinationTypeWebhookEndpoint {
			switch {
			case secret == "":
				secret = "whsec_" + derivedAlphanumerics("seed-destination-secret|"+id, 32)
			case !seedID(secret, "whsec_"):
				return fail("signing_secret", "want whsec_ followed by letters and digits")
			}
			setPath(obj, "webhook_endpoint.signing_secret", secret)
			if disabled == true {
				setStatus(obj, false, gen.EventDestinationStatusDetailsDisabledReasonUser)
			}
		} else if secret != "" {
			return fail("signing_secret", "only a webhook_endpoint destination has one")
		}
	}
	id, _ := obj["id"].(string)
	if !seedID(id, destinationIDPrefix(livemode)) {
		return fail("id", "%q is not an event destination id of %s mode: want %s followed by letters and digits", id, modeName(livemode), destinationIDPrefix(livemode))
	}
	if _, dup := s.tables.Destinations.Get(tx, id); dup {
		return fail("id", "event destination %s is declared twice", id)
	}
	if w, ok := obj["webhook_endpoint"].(map[string]any); ok {
		if secret, _ := w["signing_secret"].(string); !seedID(secret, "whsec_") {
			return fail("webhook_endpoint.signing_secret", "want whsec_ followed by letters and digits")
		}
	}
	created, err := takeTime(obj, "created")
	if err != nil {
		return fail("created", "%v", err)
	}
	if created == "" {
		created = timestamp(s.now())
	}
	updated, err := takeTime(obj, "updated")
	if err != nil {
		return fail("updated", "%v", err)
	}
	if updated == "" {
		updated = created
	}
	obj["created"], obj["updated"] = created, updated
	d := EventDestination{Platform: pid, Seq: seq.take(sd.Sequence)}
	if err := fillDestination(&d, obj); err != nil {
		return fail("", "%v", err)
	}
	return s.tables.Destinations.Put(tx, d.ID(), d)
}

func modeName(livemode bool) string {
	if livemode {
		return "live"
	}
	return "test"
}
