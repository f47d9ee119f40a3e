package store

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Backend keeps the memory engine's rows on disk. Memory stays the one source of reads
// (and of the indexes); a backend only has to store the rows and give them back at start.
// internal/store/bolt is the one understudy uses.
type Backend interface {
	// Load calls fn for every stored record. seeded is false when the backend has never
	// been written: the caller seeds it.
	Load(fn func(table, pk string, value []byte) error) (seeded bool, err error)
	// Write applies a batch atomically and returns once it is synced to disk.
	Write(b *Batch) error
	// Close releases the files.
	Close() error
}

// Batch is what a backend writes in one atomic, synced step: the changes of one or more
// committed transactions, in commit order.
type Batch struct {
	// Wipe empties every table before Changes are applied: a reset.
	Wipe    bool
	Changes []Change
}

// Change sets a row (Value is its document) or, with a nil Value, deletes it.
type Change struct {
	Table, PK string
	Value     []byte
}

// txEntry is one committed transaction waiting to be written.
type txEntry struct {
	wipe    bool
	changes []Change
}

// committer writes committed transactions to the backend in commit order, many at a time
// (group commit): while one batch is being synced the next transactions queue up, and the
// first of their callers to wait becomes the leader that writes all of them in one batch.
// Throughput grows with the number of concurrent writers. There is no committer goroutine:
// a waiting request is already running, while a goroutine woken after each sync would queue
// behind every busy request handler for the CPU.
type committer struct {
	backend Backend

	mu      sync.Mutex
	cond    *sync.Cond // signalled when a write ends
	queue   []txEntry
	queued  uint64 // the sequence number of the last queued transaction
	durable atomic.Uint64
	writing bool  // a leader is writing
	err     error // sticky: set when a write failed
	closed  bool
}

func newCommitter(b Backend) *committer {
	c := &committer{backend: b}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// enqueue adds a committed transaction and returns its sequence number. The caller holds
// the database's writer lock, so sequence order is commit order.
func (c *committer) enqueue(e txEntry) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(e.changes) > 0 || e.wipe {
		c.queue = append(c.queue, e)
		c.queued++
	}
	return c.queued
}

// last is the sequence number of the last queued transaction: a reader that saw the state
// up to it waits for it to be durable before answering.
func (c *committer) last() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queued
}

// wait returns once transaction seq is on disk, or the error that stopped the committer.
// When nobody is writing, the caller writes everything queued itself.
func (c *committer) wait(seq uint64) error {
	if c.durable.Load() >= seq {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.durable.Load() < seq {
		switch {
		case c.err != nil:
			return c.err
		case c.writing:
			c.cond.Wait()
		default:
			c.lead()
		}
	}
	return nil
}

// lead writes everything queued as one batch. The caller holds c.mu, which lead releases
// while the backend writes.
func (c *committer) lead() {
	queue, upTo := c.queue, c.queued
	c.queue = nil
	c.writing = true
	c.mu.Unlock()
	var err error
	if len(queue) > 0 {
		err = c.write(queue)
	}
	c.mu.Lock()
	c.writing = false
	if err != nil {
		// The database takes no more changes: what memory holds can no longer be made
		// durable. A restart recovers the last synced state, as the error says (health
		// shows it).
		c.err = fmt.Errorf("%w: the data directory cannot be written (%v); only a restart recovers the last synced state", ErrUnavailable, err)
	} else {
		c.durable.Store(upTo)
	}
	c.cond.Broadcast()
}

func (c *committer) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// write writes the queued transactions as one batch. Changes before the last wipe are
// dropped: the wipe would undo them anyway.
func (c *committer) write(queue []txEntry) error {
	var b Batch
	for _, e := range queue {
		if e.wipe {
			b.Wipe, b.Changes = true, b.Changes[:0]
		}
		b.Changes = append(b.Changes, e.changes...)
	}
	return c.backend.Write(&b)
}

// close writes what is still queued and closes the backend. The caller holds the database's
// writer lock, so nothing is enqueued meanwhile.
func (c *committer) close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	for c.err == nil && c.durable.Load() < c.queued {
		if c.writing {
			c.cond.Wait()
		} else {
			c.lead()
		}
	}
	err := c.err
	c.mu.Unlock()
	if cerr := c.backend.Close(); err == nil {
		err = cerr
	}
	return err
}
