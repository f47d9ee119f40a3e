package accounts

import (
	"context"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
)

// sweepBatch bounds what one write transaction of the sweep removes, so that requests never
// wait long behind it.
const sweepBatch = 1000

// sweep removes what has outlived its retention: Idempotency-Keys whose window has ended;
// links LinkRetention after they could last be used, and account and person tokens
// LinkRetention after they expired (each with the key that made it); events
// EventRetention after they happened (with any delivery still waiting for them). Reads
// already treat such state as gone (expired keys are not replayed, a removed link's page is
// not found, nor is an old token, old events are not listed), so when the sweep runs changes
// nothing a client sees.
func (s *Server) sweep() error {
	for {
		n, err := s.sweepOnce()
		if err != nil || n < sweepBatch {
			return err
		}
	}
}

func (s *Server) sweepOnce() (int, error) {
	ctx := context.Background()
	now := s.now()
	var keys, links, tokens, events []string
	// Looked for in a read, so that a sweep with nothing to do writes nothing (with
	// --data-dir, every write transaction is synced).
	_ = s.db.View(ctx, func(tx *store.Tx) error {
		s.tables.IdempotencyGone.Scan(tx, "", upTo(now), nil, func(_ store.Cursor, r Idempotency) bool {
			keys = append(keys, r.Key)
			return len(keys) < sweepBatch
		})
		s.tables.LinksGone.Scan(tx, "", upTo(now.Add(-s.cfg.LinkRetention)), nil, func(_ store.Cursor, l AccountLink) bool {
			links = append(links, l.Token)
			return len(links) < sweepBatch
		})
		s.tables.TokensGone.Scan(tx, "", upTo(now.Add(-s.cfg.LinkRetention)), nil, func(_ store.Cursor, x Token) bool {
			tokens = append(tokens, x.ID())
			return len(tokens) < sweepBatch
		})
		s.tables.EventsGone.Scan(tx, "", upTo(now.Add(-s.cfg.EventRetention)), nil, func(_ store.Cursor, e Event) bool {
			events = append(events, e.ID())
			return len(events) < sweepBatch
		})
		return nil
	})
	n := max(len(keys), len(links), len(tokens), len(events))
	if n == 0 {
		return 0, nil
	}
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		// What the read found is checked again: a key may have been used anew since.
		for _, k := range keys {
			if r, ok := s.tables.Idempotency.Get(tx, k); !ok || r.running() || now.Before(r.Expires) {
				continue
			}
			s.tables.Idempotency.Delete(tx, k)
		}
		for _, token := range links {
			if l, ok := s.tables.Links.Get(tx, token); !ok || now.Add(-s.cfg.LinkRetention).Before(l.usableUntil()) {
				continue
			}
			s.tables.Links.Delete(tx, token)
			if err := s.forgetKeysOf(tx, token); err != nil {
				return err
			}
		}
		for _, id := range tokens {
			if x, ok := s.tables.Tokens.Get(tx, id); !ok || !s.tokenGone(x) {
				continue
			}
			s.tables.Tokens.Delete(tx, id)
			if err := s.forgetKeysOf(tx, id); err != nil {
				return err
			}
		}
		for _, id := range events {
			s.tables.Events.Delete(tx, id)
		}
		return nil
	})
	return n, err
}

// upTo is the end of a time index's range that holds every time up to t.
func upTo(t time.Time) string { return store.Uint(uint64(max(t.UnixNano(), 0)) + 1) }

// forgetKeysOf removes the Idempotency-Keys that made ref (a link's token, a token's id).
func (s *Server) forgetKeysOf(tx *store.Tx, ref string) error {
	var made []string
	s.tables.MadeKeys.Scan(tx, ref, ref+"\x01", nil, func(_ store.Cursor, r Idempotency) bool {
		made = append(made, r.Key)
		return true
	})
	for _, k := range made {
		s.tables.Idempotency.Delete(tx, k)
	}
	return nil
}

// tokenGone says retention has removed the token, or is about to: LinkRetention after it
// expired (used or not, it can no longer be used then).
func (s *Server) tokenGone(x Token) bool {
	return !s.now().Before(x.expiresAt().Add(s.cfg.LinkRetention))
}
