package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
)

// runningLimit is how long a request holding an Idempotency-Key in flight may run before
// the key is taken to be abandoned (its server died) and a retry runs it again.
const runningLimit = 30 * time.Second

// idempotent runs do at most once for one Idempotency-Key of one platform and mode within
// the window, and returns what the first run made (an id). A retry with the same body gets
// that id back; on another endpoint (the request's path) or with another body, 400
// idempotency_error; while the first is still running, 409 idempotency_key_in_use. Only
// successes are remembered: a failed request may be retried with the same key and runs
// again, as v2 does. op is the request's operationId, which a state export records.
func (s *Server) idempotent(ctx context.Context, op string, key *string, body any, do func() (string, error)) (string, error) {
	if key == nil || *key == "" {
		return do()
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:])
	pk := callerFrom(ctx).scope() + "|" + *key
	path := op // outside a request (none calls so today), the operation stands for its path
	if info := infoFrom(ctx); info != nil {
		path = info.path
		if info.method != http.MethodPost {
			// A DELETE shares its path with the POST that updates the object: the method
			// tells the two endpoints apart.
			path = info.method + " " + path
		}
	}
	now := s.now()

	runner := rand.Text()
	var replay string
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		rec, ok := s.tables.Idempotency.Get(tx, pk)
		if ok && now.Before(rec.Expires) && (!rec.InFlight || rec.running()) {
			switch {
			case rec.Path != path:
				return &Error{Status: http.StatusBadRequest, Type: "idempotency_error",
					Message: "Keys for idempotent requests can only be used for the same endpoint they were first used for ('" + path + "' vs '" + rec.Path + "'). Try using a key other than '" + *key + "' if you meant to execute a different request."}
			case rec.RequestHash != hash:
				return &Error{Status: http.StatusBadRequest, Type: "idempotency_error",
					Message: "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '" + *key + "' if you meant to execute a different request."}
			case rec.InFlight:
				return invalidRequest(http.StatusConflict, "idempotency_key_in_use",
					"There is currently another in-progress request using this Idempotency Key (that probably means you submitted twice, and the other request is still going through): %s. Please try again later.", *key)
			}
			replay = rec.Ref
			return nil
		}
		return s.tables.Idempotency.Put(tx, pk, Idempotency{Key: pk, Operation: op, Path: path, RequestHash: hash, InFlight: true, Expires: now.Add(s.cfg.IdempotencyWindow),
			Runner: runner, RunningUntil: time.Now().Add(runningLimit + s.cfg.UpdateLatency)})
	})
	if err != nil || replay != "" {
		return replay, err
	}

	ref, runErr := do()
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		if rec, ok := s.tables.Idempotency.Get(tx, pk); !ok || !rec.InFlight || rec.Runner != runner {
			// The in-flight record is gone: a reset (/_understudy/reset) ran meanwhile and
			// took what this request made with it, or may have (or this request ran past
			// runningLimit and a retry took it over). Remembering the result
			// would point a retry at something the reset removed (a link answered with
			// every member empty); without the record a retry runs again.
			return nil
		}
		if runErr != nil {
			s.tables.Idempotency.Delete(tx, pk)
			return nil
		}
		return s.tables.Idempotency.Put(tx, pk, Idempotency{Key: pk, Operation: op, Path: path, RequestHash: hash, Ref: ref, Expires: now.Add(s.cfg.IdempotencyWindow)})
	})
	if runErr != nil {
		return "", runErr
	}
	return ref, err
}
