// Package heapfloor keeps the garbage collector from collecting a small heap many times a
// second.
//
// The collector lets the heap grow by GOGC percent of what the last collection found live.
// A server whose state is small (a few MB live) but which allocates 100 MB/s for the
// requests it serves is then collected ten times a second or more, and each collection
// takes a couple of milliseconds of the core, mostly to mark the same parsed specs, routes
// and validators: every request in flight at the time pays for it. GOGC and GOMEMLIMIT
// cannot say "never mind below 64 MiB"; this package does, by raising GOGC after each
// collection while little is live, and giving it back once the live heap is large enough
// that the usual percentage reaches the floor by itself.
package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor keeps the heap goal at least some bytes. The zero value is not usable: see Start.
type Floor struct {
	bytes   uint64
	percent int // the collector's own percentage, kept whenever it reaches the floor
	mu      sync.Mutex
	stopped bool
	set     int // the percentage set after the last collection
	live    []metrics.Sample
}

// Start keeps the heap goal at least bytes from the next collection on, taking the
// collector's present percentage (GOGC) as the one to keep when it reaches the floor by
// itself. With the collector off, or bytes 0, it does nothing. Stop ends it.
func Start(bytes uint64) *Floor {
	gogc := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(gogc)
	percent := int64(gogc[0].Value.Uint64()) // GOGC=off reads as -1
	f := &Floor{bytes: bytes, percent: int(percent), set: int(percent), live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	if bytes == 0 || percent <= 0 {
		f.stopped = true
		return f
	}
	f.watchNextCollection()
	return f
}

// Stop gives the collector its own percentage back; the floor is not kept any more.
func (f *Floor) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	f.stopped = true
	if f.set != f.percent {
		debug.SetGCPercent(f.percent)
		f.set = f.percent
	}
}

// watchNextCollection has collected run once the next collection has found a fresh object
// unreachable: a cleanup on it, set again each time.
func (f *Floor) watchNextCollection() {
	sentinel := new([16]byte) // not a tiny allocation, which may share a block and live on
	runtime.AddCleanup(sentinel, func(f *Floor) { f.collected() }, f)
}

// collected sets the percentage for the next collection from what this one found live.
func (f *Floor) collected() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	metrics.Read(f.live)
	if p := percentFor(f.live[0].Value.Uint64(), f.bytes, f.percent); p != f.set {
		debug.SetGCPercent(p)
		f.set = p
	}
	f.watchNextCollection()
}

// runtimeMinHeap is the runtime's smallest heap goal at GOGC=100; it scales with GOGC.
const runtimeMinHeap = 4 << 20

// percentFor is the percentage that lets a heap with live bytes grow to floor before the
// next collection, or percent if that is more. It is never more than the one at which the
// runtime's own smallest goal is the floor: below 4 MiB live, that is what keeps it.
func percentFor(live, floor uint64, percent int) int {
	if live*uint64(100+percent) >= floor*100 {
		return percent
	}
	p := min((floor-live)*100/max(live, 1), floor*100/runtimeMinHeap)
	return max(int(p), percent)
}
