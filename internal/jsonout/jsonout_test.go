package jsonout

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/jsonout/jsonouttest"
)

// tricky adds to jsonouttest's strings the escapes and broken sequences only String meets.
var tricky = append([]string{"\r\b\f\x7f", "\u0080\u07ff\uffff", "half \xe2\x80", "\xed\xa0\x80 surrogate"}, jsonouttest.Strings...)

// TestStringMatchesEncodingJSON: String writes what json.Marshal writes for a string.
func TestStringMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := append([]string{}, tricky...)
	for range 50000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				b[i] &= 0x7f
			}
		}
		cases = append(cases, string(b)+tricky[rng.IntN(len(tricky))])
	}
	// Long runs of plain bytes with one special byte (or none) anywhere, so that every
	// position within a word of String's eight-at-a-time scan is met.
	specials := []byte{0, 0x1f, '"', '&', '<', '>', '\\', 0x7f, 0x80, 0xe2, 0xff, '!', '%', ';', '=', '?', '[', ']', '|'}
	for n := range 40 {
		for at := range n + 1 {
			for _, c := range specials {
				b := []byte(strings.Repeat("abcdefgh", 5)[:n])
				if at < n {
					b[at] = c
				}
				cases = append(cases, string(b))
			}
		}
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := String(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// TestTimeMatchesMarshalJSON: Time writes what time.Time's MarshalJSON writes, and fails
// where it fails.
func TestTimeMatchesMarshalJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	zones := []*time.Location{time.UTC, time.FixedZone("", -3*3600-1800), time.FixedZone("", 5*3600)}
	for i := range 50000 {
		sec := rng.Int64N(300*365*86400) - 50*365*86400
		if i%50 == 0 {
			sec = rng.Int64() >> rng.IntN(30)
		}
		nsec := rng.Int64N(1e9)
		if i%3 == 0 {
			nsec = nsec / 1e6 * 1e6 // trailing zeros, trimmed
		}
		tm := time.Unix(sec, nsec).In(zones[rng.IntN(len(zones))])
		want, err := tm.MarshalJSON()
		got, ok := Time(nil, tm)
		if ok != (err == nil) || ok && !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s %v, want %s %v", tm, got, ok, want, err)
		}
	}
}

// TestTimesMatchesTime: Times writes what Time writes, for times drawn from a few, so that
// most repeat the one before: the same instant, in other zones too, and years Time
// declines.
func TestTimesMatchesTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	base := time.Date(2026, 11, 25, 1, 2, 3, 400500600, time.UTC)
	pool := []time.Time{base, base, base.Add(time.Nanosecond), base.In(time.FixedZone("", 3600)),
		base.Truncate(time.Second), base.AddDate(9000, 0, 0), time.Time{}}
	var times Times
	for i := range 10000 {
		tm := pool[rng.IntN(len(pool))]
		want, wantOK := Time([]byte("x"), tm)
		got, ok := times.Append([]byte("x"), tm)
		if ok != wantOK || !bytes.Equal(got, want) {
			t.Fatalf("time %d (%v): got %s %v, want %s %v", i, tm, got, ok, want, wantOK)
		}
	}
}

// BenchmarkString quotes the strings of a compute operation: links, names, times, ids.
func BenchmarkString(b *testing.B) {
	strs := []string{
		"compute#operation", "7613205445397677564", "operation-1795242462247-a5a3779ff424e-5002b1e4-dc366c12",
		"insert", "http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/forwardingRules/fr-web",
		"7014320945853055445", "DONE", "user@understudy.local", "2026-11-21T06:27:42.247+00:00",
		"http://127.0.0.1:18080/compute/v1/projects/bench-project-1/global/operations/operation-1795242462247-a5a3779ff424e-5002b1e4-dc366c12",
	}
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		out := buf[:0]
		for _, s := range strs {
			out = String(out, s)
		}
	}
}
