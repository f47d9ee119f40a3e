package control

import (
	"sync"
	"time"
)

// Entry is one request in the journal. Headers are never recorded, so secrets never are.
type Entry struct {
	Time        time.Time
	API         string
	OperationID string
	Method      string
	Path        string // without the query
	Status      int
	Duration    time.Duration
	RequestID   string
	// Replica names the server process that answered (--replica-name; by default its
	// host name and process id).
	Replica string `json:",omitempty"`
}

// Journal keeps the most recent requests in a ring, and when shared (Tables.Share) in the
// store too, where every replica's are.
type Journal struct {
	mu     sync.Mutex
	ring   []Entry
	next   int
	count  int
	shared *sharedJournal
}

// DefaultJournalSize is how many requests the journal keeps.
const DefaultJournalSize = 1000

// NewJournal returns a journal of size entries.
func NewJournal(size int) *Journal {
	if size <= 0 {
		size = DefaultJournalSize
	}
	return &Journal{ring: make([]Entry, size)}
}

// Add records a request, forgetting the oldest when full.
func (j *Journal) Add(e Entry) {
	if j.shared != nil {
		e.Replica = j.shared.replica
		j.shared.add(e)
	}
	j.mu.Lock()
	j.ring[j.next] = e
	j.next = (j.next + 1) % len(j.ring)
	if j.count < len(j.ring) {
		j.count++
	}
	j.mu.Unlock()
}

// Filter selects journal entries; empty fields match everything.
type Filter struct {
	API, OperationID string
	Status           int
	Limit            int
}

func (f Filter) matches(e Entry) bool {
	return (f.API == "" || e.API == f.API) && (f.OperationID == "" || e.OperationID == f.OperationID) && (f.Status == 0 || e.Status == f.Status)
}

// List returns matching entries, newest first: every replica's when shared (this one's
// alone when the store cannot answer).
func (j *Journal) List(f Filter) []Entry {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	if j.shared != nil {
		if out, err := j.shared.list(f); err == nil {
			return out
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	out := []Entry{}
	for i := 0; i < j.count && len(out) < f.Limit; i++ {
		e := j.ring[(j.next-1-i+len(j.ring))%len(j.ring)]
		if f.matches(e) {
			out = append(out, e)
		}
	}
	return out
}

// Clear forgets every entry (every replica's, when shared).
func (j *Journal) Clear() {
	if j.shared != nil {
		if err := j.shared.clear(); err != nil {
			j.shared.log.Warn("journal: clearing the shared journal", "err", err)
		}
	}
	j.mu.Lock()
	j.next, j.count = 0, 0
	j.mu.Unlock()
}

// Close writes what is still pending to the shared journal and stops its writer.
func (j *Journal) Close() {
	if j.shared != nil {
		j.shared.close()
	}
}
