package accounts

import (
	"sync"
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
