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
}

// Journal keeps the most recent requests in a ring.
type Journal struct {
	mu    sync.Mutex
	ring  []Entry
	next  int
	count int
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

// List returns matching entries, newest first.
func (j *Journal) List(f Filter) []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	if f.Limit <= 0 {
		f.Limit = 100
	}
	out := []Entry{}
	for i := 0; i < j.count && len(out) < f.Limit; i++ {
		e := j.ring[(j.next-1-i+len(j.ring))%len(j.ring)]
		if (f.API == "" || e.API == f.API) && (f.OperationID == "" || e.OperationID == f.OperationID) && (f.Status == 0 || e.Status == f.Status) {
			out = append(out, e)
		}
	}
	return out
}

// Clear forgets every entry.
func (j *Journal) Clear() {
	j.mu.Lock()
	j.next, j.count = 0, 0
	j.mu.Unlock()
}
