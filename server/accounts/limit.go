package accounts

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
)

// accountSlots counts the updating requests in flight per account, for the per-account
// concurrency limit (429 account_rate_limit_exceeded). It is not state worth keeping: it
// only describes requests running now.
type accountSlots struct {
	mu sync.Mutex
	n  map[string]int
}

func newAccountSlots() *accountSlots { return &accountSlots{n: map[string]int{}} }

// acquire takes a slot on the account if fewer than limit are taken.
func (a *accountSlots) acquire(account string, limit int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[account] >= limit {
		return false
	}
	a.n[account]++
	return true
}

func (a *accountSlots) release(account string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[account]--; a.n[account] <= 0 {
		delete(a.n, account)
	}
}

// limitFor is the concurrency limit of account a of platform p: the account's own (set by
// the seed), else its platform's, else the server's.
func (s *Server) limitFor(a Account, p *platform) int {
	if a.Concurrency > 0 {
		return a.Concurrency
	}
	if p != nil && p.concurrency > 0 {
		return p.concurrency
	}
	return s.cfg.AccountConcurrency
}

// slot is an update in flight on an account, kept in the store when servers share it: the
// limit holds across them. Until (the machine's clock) frees the slot of an update whose
// server died.
type slot struct {
	Account string
	Until   time.Time
}

// acquireShared takes a slot on the account in the store if fewer than limit are taken by
// updates still running, and returns its key.
func (s *Server) acquireShared(ctx context.Context, account string, limit int) (string, bool, error) {
	key := account + "|" + rand.Text()
	taken := false
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		taken = false
		now := time.Now()
		n := 0
		var dead []string
		s.tables.Slots.Scan(tx, account+"|", account+"}", nil, func(c store.Cursor, x slot) bool {
			if now.Before(x.Until) {
				n++
			} else {
				dead = append(dead, c.PK)
			}
			return true
		})
		for _, pk := range dead {
			s.tables.Slots.Delete(tx, pk)
		}
		if n >= limit {
			return nil
		}
		taken = true
		return s.tables.Slots.Put(tx, key, slot{Account: account, Until: now.Add(runningLimit + s.cfg.UpdateLatency)})
	})
	return key, taken, err
}

func (s *Server) releaseShared(key string) {
	err := s.db.Update(context.Background(), func(tx *store.Tx) error {
		s.tables.Slots.Delete(tx, key)
		return nil
	})
	if err != nil {
		s.cfg.Log.Warn("accounts: releasing an update slot (it frees itself in time)", "err", err)
	}
}

// errTooManyUpdates is the answer to an update beyond the account's concurrency limit.
func errTooManyUpdates() error {
	return &Error{Status: http.StatusTooManyRequests, Type: "rate_limit", Code: "account_rate_limit_exceeded",
		Message: "Account cannot exceed a configured concurrency rate limit on updates."}
}
