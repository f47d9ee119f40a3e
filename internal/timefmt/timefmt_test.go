package timefmt

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestMillisMatchesFormat: Millis writes what time.Format writes, for times across and
// beyond years 0 to 9999, in any location, with any nanoseconds.
func TestMillisMatchesFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	zones := []*time.Location{time.UTC, time.FixedZone("x", -7*3600-30*60), time.FixedZone("y", 14*3600)}
	times := []time.Time{{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 21, 11, 29, 36, 354_999_999, time.UTC)}
	for range 100000 {
		sec := rng.Int64N(400*365*86400) - 100*365*86400 // 1870 to 2270
		if rng.IntN(20) == 0 {
			sec = rng.Int64() >> rng.IntN(40) // anywhere
		}
		times = append(times, time.Unix(sec, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))]))
	}
	for _, tm := range times {
		for zone, layout := range map[string]string{"Z": "2006-01-02T15:04:05.000Z07:00", "+00:00": "2006-01-02T15:04:05.000-07:00"} {
			if got, want := Millis(tm, zone), tm.UTC().Format(layout); got != want {
				t.Fatalf("%v: Millis(%q) = %q, Format = %q", tm, zone, got, want)
			}
		}
	}
}

func BenchmarkMillis(b *testing.B) {
	tm := time.Now()
	b.Run("Millis", func(b *testing.B) {
		for b.Loop() {
			_ = Millis(tm, "+00:00")
		}
	})
	b.Run("Format", func(b *testing.B) {
		for b.Loop() {
			_ = tm.UTC().Format("2006-01-02T15:04:05.000-07:00")
		}
	})
}

// TestExactParsesBack: what Exact writes, Parse reads back as the same instant to the
// nanosecond, in UTC; Parse also reads the APIs' own timestamps and refuses what is no
// RFC 3339 time.
func TestExactParsesBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		tm := time.Unix(rng.Int64N(300*365*86400), rng.Int64N(1e9)).In(time.FixedZone("x", 3600*(rng.IntN(25)-12)))
		got, err := Parse(Exact(tm))
		if err != nil || !got.Equal(tm) || got.Location() != time.UTC {
			t.Fatalf("Parse(Exact(%v)) = %v, %v", tm, got, err)
		}
	}
	for _, s := range []string{"2026-11-21T10:00:00.123+00:00", "2026-11-21T10:00:00.123Z", "2026-11-21T10:00:00Z", "2022-01-15T21:08:45.4904312Z"} {
		if _, err := Parse(s); err != nil {
			t.Errorf("Parse(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "yesterday", "2026-11-21", "21/11/2026 10:00"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) took it", s)
		}
	}
}
