package control

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
)

// Several server processes (replicas) on one database serve one sandbox: its fault rules
// and its journal then live in the store, in kept tables (a reset leaves them), so that a
// rule added through one replica applies to requests to every one, and the journal lists
// every replica's requests, each naming its replica. Tables lets the server declare them
// whatever the engine; Share puts a Journal and Faults on them. One process alone keeps
// them in memory, where a request pays nothing for them.

// Staleness is how old a replica's copy of what it reads of the shared controls at the
// start of a request (whether any fault rule is in force, and the clock's offset) may be.
// The replica reads them again when its copy was read longer ago than that, and a change
// that a stale copy would miss (a new rule, an advance of the clock) answers only once
// Staleness has passed since its commit: a request sent after that answer sees the change,
// whichever replica it reaches. Under load, a replica reads them about once per Staleness,
// not once per request.
const Staleness = 50 * time.Millisecond

// Tables are the store's tables of the shared controls.
type Tables struct {
	db      *store.DB
	journal *store.Table[journalRow]
	byTime  *store.Index[journalRow]
	faults  *store.Table[faultRow]
}

// journalRow is a journal entry as the store keeps it, under its sequence number.
type journalRow struct {
	Seq   uint64
	Entry Entry
}

// faultRow is a fault rule as the store keeps it, under its number (the rule's id is
// fault-<number>), so that rules are matched in the order they were added.
type faultRow struct {
	Seq  uint64
	Rule Rule
}

// NewTables declares the shared controls' tables in db.
func NewTables(db *store.DB) *Tables {
	t := &Tables{db: db}
	t.byTime = store.OrderedIndex("time", func(r journalRow) (string, bool) {
		return store.Uint(uint64(max(r.Entry.Time.UnixNano(), 0))), true
	})
	t.journal = store.NewKeptTable(db, "journal", t.byTime)
	t.faults = store.NewKeptTable[faultRow](db, "faults")
	return t
}

// Share makes j keep its entries in the store (as well as in its ring, which answers when
// the store does not), naming replica in each. Close stops its writer.
func (t *Tables) Share(j *Journal, replica string, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	j.shared = &sharedJournal{t: t, replica: replica, log: log, wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel, size: len(j.ring)}
	j.shared.done.Add(1)
	go j.shared.run()
}

// ShareFaults makes f keep its rules in the store.
func (t *Tables) ShareFaults(f *Faults) { f.shared = t }

// Refresh reads, in tx, whether any fault rule is in force, for Faults.Any: the server does
// it at the start of a request when its copy is older than Staleness, so that a rule added
// through another replica applies to this one's requests once the addition has answered.
func (t *Tables) Refresh(tx *store.Tx, f *Faults) {
	if f.shared == t {
		f.active.Store(t.faults.Len(tx) > 0)
	}
}

// sharedJournal writes a replica's journal entries to the store in the background, many
// per transaction: a request never waits for the journal.
type sharedJournal struct {
	t       *Tables
	replica string
	log     *slog.Logger
	size    int

	mu      sync.Mutex
	pending []Entry
	// flushing is held while a batch is written, so that List, which flushes first, sees
	// every entry this replica answered before it.
	flushing sync.Mutex
	wake     chan struct{}
	ctx      context.Context
	cancel   context.CancelFunc
	done     sync.WaitGroup
}

func (s *sharedJournal) add(e Entry) {
	s.mu.Lock()
	s.pending = append(s.pending, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sharedJournal) run() {
	defer s.done.Done()
	for {
		select {
		case <-s.ctx.Done():
			s.flush(context.Background())
			return
		case <-s.wake:
			s.flush(s.ctx)
		}
	}
}

// flush writes the pending entries and forgets the oldest beyond the journal's size. A
// batch the store refuses is dropped (the ring still has it): the journal is a record of
// traffic, not state to keep at any cost.
func (s *sharedJournal) flush(ctx context.Context) {
	s.flushing.Lock()
	defer s.flushing.Unlock()
	s.mu.Lock()
	batch := s.pending
	s.pending = nil
	s.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	err := s.t.db.Update(ctx, func(tx *store.Tx) error {
		var last uint64
		for _, e := range batch {
			last = tx.Next("journal")
			if err := s.t.journal.Put(tx, store.Uint(last), journalRow{Seq: last, Entry: e}); err != nil {
				return err
			}
		}
		if last <= uint64(s.size) {
			return nil
		}
		var old []string
		s.t.journal.Scan(tx, "", store.Uint(last-uint64(s.size)+1), nil, func(c store.Cursor, _ journalRow) bool {
			old = append(old, c.PK)
			return true
		})
		for _, pk := range old {
			s.t.journal.Delete(tx, pk)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		s.log.Warn("journal: entries not shared with the other replicas", "entries", len(batch), "err", err)
	}
}

func (s *sharedJournal) list(f Filter) ([]Entry, error) {
	s.flush(context.Background())
	out := []Entry{}
	err := s.t.db.View(context.Background(), func(tx *store.Tx) error {
		out = out[:0]
		s.t.byTime.ScanReverse(tx, "", "", nil, func(_ store.Cursor, r journalRow) bool {
			if f.matches(r.Entry) {
				out = append(out, r.Entry)
			}
			return len(out) < f.Limit
		})
		return nil
	})
	return out, err
}

func (s *sharedJournal) clear() error {
	s.flush(context.Background())
	return s.t.db.Update(context.Background(), func(tx *store.Tx) error {
		var all []string
		s.t.journal.Scan(tx, "", "", nil, func(c store.Cursor, _ journalRow) bool {
			all = append(all, c.PK)
			return true
		})
		for _, pk := range all {
			s.t.journal.Delete(tx, pk)
		}
		return nil
	})
}

func (s *sharedJournal) close() {
	s.cancel()
	s.done.Wait()
}

// The fault rules in the store: each change and each match is a transaction, so that a
// rule's remaining count is spent once across replicas.

func (t *Tables) addFault(r Rule) (Rule, error) {
	var out Rule
	err := t.db.Update(context.Background(), func(tx *store.Tx) error {
		n := tx.Next("faults")
		out = r
		out.ID = "fault-" + strconv.FormatUint(n, 10)
		return t.faults.Put(tx, store.Uint(n), faultRow{Seq: n, Rule: out})
	})
	return out, err
}

func (t *Tables) listFaults() ([]Rule, error) {
	out := []Rule{}
	err := t.db.View(context.Background(), func(tx *store.Tx) error {
		out = out[:0]
		t.faults.Scan(tx, "", "", nil, func(_ store.Cursor, r faultRow) bool {
			out = append(out, r.Rule)
			return true
		})
		return nil
	})
	return out, err
}

func (t *Tables) deleteFault(id string) (bool, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(id, "fault-"), 10, 64)
	if err != nil || !strings.HasPrefix(id, "fault-") {
		return false, nil
	}
	found := false
	err = t.db.Update(context.Background(), func(tx *store.Tx) error {
		found = t.faults.Delete(tx, store.Uint(n))
		return nil
	})
	return found, err
}

func (t *Tables) clearFaults() error {
	return t.db.Update(context.Background(), func(tx *store.Tx) error {
		var all []string
		t.faults.Scan(tx, "", "", nil, func(c store.Cursor, _ faultRow) bool {
			all = append(all, c.PK)
			return true
		})
		for _, pk := range all {
			t.faults.Delete(tx, pk)
		}
		return nil
	})
}

// matchFault finds, spends and returns the first rule that applies to q, in one
// transaction. The probability is drawn once, before it: a transaction run again must
// not draw again.
func (t *Tables) matchFault(ctx context.Context, q Request) (Rule, bool, error) {
	draw := rand.Float64()
	var out Rule
	found := false
	err := t.db.Update(ctx, func(tx *store.Tx) error {
		found = false
		var hit *faultRow
		t.faults.Scan(tx, "", "", nil, func(_ store.Cursor, r faultRow) bool {
			if !r.Rule.matches(q) || (r.Rule.Probability < 1 && draw >= r.Rule.Probability) {
				return true
			}
			hit = &r
			return false
		})
		if hit == nil {
			return nil
		}
		out, found = hit.Rule, true
		pk := store.Uint(hit.Seq)
		switch {
		case hit.Rule.Remaining == 1:
			t.faults.Delete(tx, pk)
		case hit.Rule.Remaining > 1:
			hit.Rule.Remaining--
			return t.faults.Put(tx, pk, *hit)
		}
		return nil
	})
	return out, found, err
}
