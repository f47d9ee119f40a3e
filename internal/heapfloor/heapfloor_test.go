package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

const mib = 1 << 20

func TestPercentFor(t *testing.T) {
	tests := []struct {
		name          string
		live, floor   uint64
		percent, want int
	}{
		{"a few MiB live: the runtime's smallest goal makes the floor", 3 * mib, 64 * mib, 300, 1600},
		{"nothing live", 0, 64 * mib, 300, 1600},
		{"10 MiB live grows by 540% to the floor", 10 * mib, 64 * mib, 300, 540},
		{"16 MiB live reaches the floor at 300%", 16 * mib, 64 * mib, 300, 300},
		{"more live than the floor", 200 * mib, 64 * mib, 300, 300},
		{"a floor under the runtime's own goal", 3 * mib, 8 * mib, 300, 300},
		{"at 100%, 40 MiB live reaches 64 MiB", 40 * mib, 64 * mib, 100, 100},
		{"at 100%, 20 MiB live needs 220%", 20 * mib, 64 * mib, 100, 220},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentFor(tt.live, tt.floor, tt.percent); got != tt.want {
				t.Errorf("percentFor(%d MiB, %d MiB, %d) = %d, want %d", tt.live/mib, tt.floor/mib, tt.percent, got, tt.want)
			}
		})
	}
}

// TestFloorFollowsTheLiveHeap: with little live, the percentage is raised after a
// collection; with enough live to reach the floor, it is the collector's own again; Stop
// gives it back.
func TestFloorFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	f := Start(64 * mib)
	defer f.Stop()

	collectUntil(t, "a raised percentage with little live", func() bool { return setPercent(f) > 100 })
	if got := gogc(); got != setPercent(f) {
		t.Errorf("GOGC is %d, the floor says it set %d", got, setPercent(f))
	}

	live := make([]byte, 48*mib) // pointer-free: the heap goal counts it, no scan
	collectUntil(t, "the collector's own percentage with 48 MiB live", func() bool { return setPercent(f) == 100 })
	runtime.KeepAlive(live)

	collectUntil(t, "a raised percentage once that is dropped", func() bool { return setPercent(f) > 100 })

	f.Stop()
	if got := gogc(); got != 100 {
		t.Errorf("after Stop GOGC is %d, want 100", got)
	}
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := gogc(); got != 100 {
		t.Errorf("a collection after Stop set GOGC to %d", got)
	}
}

// TestFloorWithTheCollectorOff does nothing.
func TestFloorWithTheCollectorOff(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	f := Start(64 * mib)
	defer f.Stop()
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if got := gogc(); got != -1 {
		t.Errorf("GOGC is %d with the collector off and a floor, want -1 (off)", got)
	}
}

// setPercent is the percentage f set after the last collection.
func setPercent(f *Floor) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.set
}

func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(int64(s[0].Value.Uint64()))
}

// collectUntil collects until cond holds (the floor's cleanup runs after a collection, on
// a goroutine of its own), failing after a few seconds.
func collectUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if cond() {
			return
		}
	}
	t.Fatalf("never got %s", what)
}
