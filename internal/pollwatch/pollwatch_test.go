package pollwatch

import (
	"bufio"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFlow: the decisions at each tick, for the counts of responses and the CPU time
// used in each interval (of 100 µs here).
func TestFlow(t *testing.T) {
	type step struct {
		n           uint64
		cpu         time.Duration // CPU time used during the interval
		kick, sleep bool
	}
	const busy, idle = 90 * time.Microsecond, 10 * time.Microsecond
	tests := []struct {
		name  string
		steps []step
	}{
		{"no response for three intervals with the CPU busy is a stall, acted on each interval", []step{
			{5, busy, false, false}, {5, busy, false, false}, {5, busy, false, false}, {5, busy, true, false}, {5, busy, true, false},
			{9, busy, false, false}, {9, busy, false, false}, {9, busy, false, false}, {9, busy, true, false},
		}},
		{"one or two intervals without a response are a gap between waves", []step{
			{5, busy, false, false}, {5, busy, false, false}, {8, busy, false, false}, {8, busy, false, false}, {8, busy, false, false}, {11, busy, false, false},
		}},
		{"no response with the CPU idle is not a stall", []step{
			{5, idle, false, false}, {5, idle, false, false}, {5, idle, false, false}, {5, idle, false, false}, {5, busy, true, false}, {5, idle, false, false},
		}},
		{"the CPU is measured from the end of the first quiet interval", []step{
			{5, busy, false, false}, {5, busy, false, false}, {5, idle, false, false}, {5, idle, false, false}, {5, busy, true, false},
		}},
		{"responses going out are never a stall", []step{
			{3, busy, false, false}, {6, busy, false, false}, {7, busy, false, false}, {12, idle, false, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f flow
			var used time.Duration
			now := time.Unix(0, 0)
			for i, s := range tt.steps {
				now, used = now.Add(100*time.Microsecond), used+s.cpu
				kick, sleep := f.tick(s.n, now, func() time.Duration { return used })
				if kick != s.kick || sleep != s.sleep {
					t.Fatalf("tick %d (count %d, CPU %v): kick %v sleep %v, want %v %v", i, s.n, s.cpu, kick, sleep, s.kick, s.sleep)
				}
			}
		})
	}

	t.Run("sleeps after quietTicks intervals without a response", func(t *testing.T) {
		f := flow{last: 7}
		now, cpu := time.Unix(0, 0), func() time.Duration { return 0 }
		for i := 1; i < quietTicks; i++ {
			if _, sleep := f.tick(7, now.Add(time.Duration(i)*time.Millisecond), cpu); sleep {
				t.Fatalf("asleep after %d quiet intervals, want %d", i, quietTicks)
			}
		}
		if _, sleep := f.tick(7, now.Add(time.Second), cpu); !sleep {
			t.Fatalf("awake after %d quiet intervals", quietTicks)
		}
	})

	t.Run("the CPU is read only in quiet intervals", func(t *testing.T) {
		var f flow
		reads := 0
		cpu := func() time.Duration { reads++; return 0 }
		for i := range 10 {
			f.tick(uint64(i+1), time.Unix(0, int64(i)), cpu)
		}
		if reads != 0 {
			t.Errorf("%d reads of the CPU while responses flowed, want 0", reads)
		}
	})
}

// TestWatchdogLifecycle: no goroutine until the first response, asleep again once they
// stop, awake at the next, and Stop ends it whether or not it ever started.
func TestWatchdogLifecycle(t *testing.T) {
	var kicks atomic.Int64
	w := New(time.Millisecond, func() { kicks.Add(1) })
	defer w.Stop()
	if !w.asleep.Load() {
		t.Fatal("a new watchdog is awake")
	}
	for range 3 {
		w.Answered()
	}
	if w.asleep.Load() {
		t.Fatal("asleep right after responses")
	}
	waitAsleep(t, w)
	if got := w.answered.Load(); got != 3 {
		t.Errorf("answered %d, want 3", got)
	}
	w.Answered()
	if w.asleep.Load() {
		t.Fatal("a response did not wake the watchdog")
	}
	waitAsleep(t, w)

	never := New(time.Millisecond, nil)
	never.Stop() // never started: returns at once
	never.Stop()
	never.Answered() // after Stop: counted, nothing started
}

func waitAsleep(t *testing.T, w *Watchdog) {
	t.Helper()
	for i := 0; !w.asleep.Load(); i++ {
		if i > 5000 {
			t.Fatal("the watchdog never went back to sleep")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPollNetworkServesStarvedConnections shows the runtime behaviour the package works
// around, and that the watchdog's world stop gets past it. With one P, a goroutine that
// keeps yielding (as the background sweeper does) is all the scheduler finds in its queues,
// so connections whose data has arrived wait for the runtime's monitor to poll the network,
// every 10 ms. Eight ping-pongs over loopback run for the same time beside such a goroutine,
// without and with a watchdog; they must get many more round trips done with one.
func TestPollNetworkServesStarvedConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for a fifth of a second")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const spin = 100 * time.Millisecond
	without := pingPongsBesideSpinner(t, spin, nil)
	w := New(Interval, nil)
	with := pingPongsBesideSpinner(t, spin, w)
	w.Stop()
	t.Logf("round trips in %v beside a yielding goroutine: %d without a watchdog, %d with (%d stalls acted on)", spin, without, with, w.kicks.Load())
	if without >= 1000 {
		t.Skipf("this runtime polls the network beside a yielding goroutine (%d round trips without a watchdog): the watchdog is no longer needed", without)
	}
	if with < 5*without || w.kicks.Load() == 0 {
		t.Errorf("with a watchdog %d round trips (%d stalls acted on), want at least five times the %d without", with, w.kicks.Load(), without)
	}
}

// pingPongsBesideSpinner runs eight one-byte ping-pongs over loopback and counts their
// round trips while a goroutine yields in a loop for d. The echoing side records its
// answers on w, if any.
func pingPongsBesideSpinner(t *testing.T, d time.Duration, w *Watchdog) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go echo(c, w)
		}
	}()

	var spinning, stop atomic.Bool
	var trips atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := []byte{0}
			for !stop.Load() {
				if _, err := c.Write(buf); err != nil {
					return
				}
				if _, err := c.Read(buf); err != nil {
					return
				}
				if spinning.Load() {
					trips.Add(1)
				}
			}
		}()
	}
	// The ping-pongs get going (a busy flow, for a watchdog), then the spinner starts.
	time.Sleep(5 * time.Millisecond)
	spun := make(chan struct{})
	go func() {
		defer close(spun)
		spinning.Store(true)
		for deadline := time.Now().Add(d); time.Now().Before(deadline); {
			runtime.Gosched()
		}
		spinning.Store(false)
	}()
	<-spun
	stop.Store(true)
	wg.Wait()
	return int(trips.Load())
}

// echo writes back each byte read from c.
func echo(c net.Conn, w *Watchdog) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		b, err := r.ReadByte()
		if err != nil {
			return
		}
		if w != nil {
			w.Answered()
		}
		if _, err := c.Write([]byte{b}); err != nil {
			return
		}
	}
}
