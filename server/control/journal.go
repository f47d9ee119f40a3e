package control

import (
	"sync"
	"sync/atomic"
	"time"
)

// Entry is one request in the journal. Credentials are never recorded: no Authorization,
// Cookie or key headers, and secrets in bodies masked (capture.go).
type Entry struct {
	// Seq numbers the entries in the order they were added, from 1.
	Seq         uint64
	Time        time.Time
	API         string
	OperationID string
	Method      string
	Path        string // without the query
	Status      int
	Duration    time.Duration
	RequestID   string
	// Exchange is what was sent and answered, kept only while capturing (Capture); nil
	// otherwise.
	Exchange *Exchange
	// Delivery is set for the accounts API's attempts to deliver an event.
	Delivery *Delivery
	// Replica names the server process that answered (--replica-name; by default its
	// host name and process id).
	Replica string `json:",omitempty"`
}

// Delivery is what an entry of an event delivery attempt adds.
type Delivery struct {
	Destination string
	Attempt     int
	Error       string
	GaveUp      bool
}

// Journal keeps the most recent requests in a ring, and tells subscribers of new ones; when
// shared (Tables.Share) it keeps them in the store too, where every replica's are.
type Journal struct {
	mu    sync.Mutex
	ring  []Entry
	next  int
	count int
	seq   uint64
	subs  map[chan Entry]struct{}
	// captureUntil is when capturing exchanges stops (Unix nanoseconds; 0: not capturing).
	// Written when someone looks (Capture) and read by every request, without the lock.
	captureUntil atomic.Int64
	shared       *sharedJournal
}

// DefaultJournalSize is how many requests the journal keeps.
const DefaultJournalSize = 1000

// NewJournal returns a journal of size entries.
func NewJournal(size int) *Journal {
	if size <= 0 {
		size = DefaultJournalSize
	}
	return &Journal{ring: make([]Entry, size), subs: map[chan Entry]struct{}{}}
}

// Capture makes the journal keep requests' exchanges (headers and bounded bodies) until
// until, or later if it was asked to already.
func (j *Journal) Capture(until time.Time) {
	u := until.UnixNano()
	for {
		cur := j.captureUntil.Load()
		if cur >= u || j.captureUntil.CompareAndSwap(cur, u) {
			return
		}
	}
}

// Capturing says whether a request arriving at now should have its exchange kept.
func (j *Journal) Capturing(now time.Time) bool { return now.UnixNano() < j.captureUntil.Load() }

// CapturingUntil is when capturing stops (the zero time when it never started).
func (j *Journal) CapturingUntil() time.Time {
	if u := j.captureUntil.Load(); u != 0 {
		return time.Unix(0, u)
	}
	return time.Time{}
}

// Add records a request, forgetting the oldest when full, and hands it to the subscribers
// that have room for it (a slow one misses entries rather than slowing requests down).
func (j *Journal) Add(e Entry) {
	if j.shared != nil {
		e.Replica = j.shared.replica
		j.shared.add(e)
	}
	j.mu.Lock()
	j.seq++
	e.Seq = j.seq
	j.ring[j.next] = e
	j.next = (j.next + 1) % len(j.ring)
	if j.count < len(j.ring) {
		j.count++
	}
	for ch := range j.subs {
		select {
		case ch <- e:
		default:
		}
	}
	j.mu.Unlock()
}

// Subscribe returns a channel of the entries added from now on, and the function that ends
// the subscription.
func (j *Journal) Subscribe() (<-chan Entry, func()) {
	ch := make(chan Entry, 64)
	j.mu.Lock()
	j.subs[ch] = struct{}{}
	j.mu.Unlock()
	return ch, func() {
		j.mu.Lock()
		delete(j.subs, ch)
		j.mu.Unlock()
	}
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

// Get returns the entry numbered seq, while the journal still holds it.
func (j *Journal) Get(seq uint64) (Entry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if seq == 0 || seq > j.seq || j.seq-seq >= uint64(j.count) {
		return Entry{}, false
	}
	back := int(j.seq - seq) // 0: the newest
	return j.ring[(j.next-1-back+len(j.ring))%len(j.ring)], true
}

// Clear forgets every entry, every replica's when shared (their numbers are not reused).
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
