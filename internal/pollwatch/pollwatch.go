// Package pollwatch keeps the network polled while the Go runtime's background sweeper
// has the only processor.
//
// After a garbage collection, the runtime's background sweeper frees the spans the
// collection found dead. It is meant to run only when nothing else wants the processor:
// every ten spans it yields. But it yields to the global run queue, and a processor looking
// for work takes from its own and the global run queue before it polls the network
// (golang/go#56060, open since 2022). With GOMAXPROCS=1 and every connection waiting for
// its next request, nothing is queued but the sweeper, so it runs until it is done and the
// network waits: the requests that arrived in the meantime are seen only when the heap is
// swept or when the runtime's monitor polls, after 10 ms. On the README's machine, with a
// few hundred MB of heap under load, that was 2-6 ms with no request served after every
// collection, and all 64 requests in flight past the p99.
//
// A Watchdog notices such a stall from the outside: responses were going out, then none in
// three intervals in a row while the CPU was busy. It then stops and restarts the world
// (runtime.ReadMemStats, about 10 µs), and restarting the world polls the network and
// queues the goroutines whose connections are ready ahead of the sweeper. The sweeper
// still gets the time nobody else wants.
package pollwatch

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Interval is how often a Watchdog looks while responses are going out; a stall is acted
// on after three of them. A quarter of a millisecond is an eighth of the median response
// at 64 connections on one core; under that load the watchdog takes about 0.6% of the core
// (perf, role-assignment PUTs), world stops included.
const Interval = 250 * time.Microsecond

// quietTicks is how many intervals without a response put the watchdog to sleep until the
// next one, so that an idle server is not woken four thousand times a second.
const quietTicks = 40

// Watchdog watches the flow of responses. The zero value is not usable: see New.
type Watchdog struct {
	interval time.Duration
	kick     func()
	answered atomic.Uint64 // responses recorded by Answered
	asleep   atomic.Bool   // no tick is running: the next Answered wakes the watchdog
	wake     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	// start starts the goroutine at the first response, or marks it done if Stop comes
	// first: a server that never serves through a listener never has it.
	start sync.Once
	done  chan struct{}
	kicks atomic.Uint64 // stalls acted on
}

// New returns a watchdog that looks every interval while responses flow and, on a stall,
// calls kick (nil for the world stop that polls the network). Stop ends it.
func New(interval time.Duration, kick func()) *Watchdog {
	if kick == nil {
		kick = pollNetwork
	}
	w := &Watchdog{
		interval: interval,
		kick:     kick,
		wake:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	w.asleep.Store(true)
	return w
}

// Answered records a response on its way out and returns how many have been recorded.
func (w *Watchdog) Answered() uint64 {
	n := w.answered.Add(1)
	if cpuMeasured && w.asleep.Load() && w.asleep.CompareAndSwap(true, false) {
		w.start.Do(func() { go w.run() })
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return n
}

// Stop ends the watchdog and waits for it to end; later calls do nothing.
func (w *Watchdog) Stop() {
	w.stopOnce.Do(func() { close(w.stop) })
	w.start.Do(func() { close(w.done) })
	<-w.done
}

func (w *Watchdog) run() {
	defer close(w.done)
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		if !w.watch() {
			return
		}
	}
}

// watch ticks until no response has gone out for quietTicks intervals (then it reports
// true, asleep again) or the watchdog is stopped (false).
func (w *Watchdog) watch() bool {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	f := flow{last: w.answered.Load()}
	for {
		var now time.Time
		select {
		case <-w.stop:
			return false
		case now = <-t.C:
		}
		kick, sleep := f.tick(w.answered.Load(), now, processCPU)
		if kick && runtime.GOMAXPROCS(0) == 1 {
			w.kicks.Add(1)
			w.kick()
		}
		if !sleep {
			continue
		}
		w.asleep.Store(true)
		// A response recorded between the last tick and going to sleep saw the watchdog
		// awake and sent no wake-up: look once more.
		if w.answered.Load() != f.last && w.asleep.CompareAndSwap(true, false) {
			f.quiet = 0
			continue
		}
		return true
	}
}

// flow is what the watchdog knows of the responses at each tick.
type flow struct {
	last  uint64 // the count of responses at the previous tick
	quiet int    // intervals without a response since the last one
	// at and cpu are when the CPU was last measured in this quiet stretch, and the
	// process's CPU time then.
	at  time.Time
	cpu time.Duration
}

// stallIntervals is how many intervals in a row without a response make a stall. Under
// load the responses go out in waves, one per round of the clients' requests (see the
// server's yieldToOthers), and between two waves one or two intervals can pass without a
// response while the CPU writes them and reads the next requests: in 4.5 s of
// role-assignment PUTs at 64 connections, 1,424 gaps of one interval, 751 of two, 132 of
// three or more, most of those in sweeps.
const stallIntervals = 3

// tick takes the count of responses at time now, and the process's CPU time from cpu, and
// says whether the interval that just ended ended a stall to act on, and whether to go to
// sleep. A stall is stallIntervals without a response, the CPU busy for most of the time
// since the first: a server waiting for its clients leaves the CPU idle. cpu is called
// only in quiet intervals: it costs a system call.
func (f *flow) tick(n uint64, now time.Time, cpu func() time.Duration) (kick, sleep bool) {
	if n != f.last {
		f.last, f.quiet = n, 0
		return false, false
	}
	f.quiet++
	switch {
	case f.quiet == 1:
		f.at, f.cpu = now, cpu()
	case f.quiet >= stallIntervals:
		c := cpu()
		kick = 2*(c-f.cpu) >= now.Sub(f.at)
		f.at, f.cpu = now, c
	}
	return kick, f.quiet >= quietTicks
}

// pollNetwork stops and restarts the world, which polls the network (the cheapest world
// stop the runtime offers).
func pollNetwork() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
}
