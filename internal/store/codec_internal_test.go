package store

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/jsonout/jsonouttest"
)

// TestCodecsRoundTrip: every record type's codec gives back what it was given, every field
// of it (filled at random, nil and empty maps and slices apart), as JSON (the disk's form)
// shows it. A field added to a record but not to its codec fails here.
func TestCodecsRoundTrip(t *testing.T) {
	roundTrip(t, ruleCodec, nil)
	roundTrip(t, operationCodec, func(o *Operation) {
		// Error details are kept as JSON, whose strings are valid UTF-8: give them such.
		if o.Failure != nil {
			for i := range o.Failure.Errors {
				if o.Failure.Errors[i].Details != nil {
					o.Failure.Errors[i].Details = []map[string]any{{"reason": "quota", "n": 2.5, "list": []any{"a", true}}}
				}
			}
		}
	})
	roundTrip(t, assignmentCodec, func(r *RoleAssignment) {
		// What StringOr writes in a byte: a field that repeats the one before it.
		if r.Description == "same" {
			r.ScopeKey, r.UpdatedBy, r.UpdatedByType = r.Scope, r.CreatedBy, r.CreatedByType
		}
	})
	roundTrip(t, accountCodec, nil)
	roundTrip(t, linkCodec, nil)
	roundTrip(t, idempotencyCodec, nil)
	roundTrip(t, interconnectCodec, nil)
	roundTrip(t, attachmentCodec, nil)
	roundTrip(t, groupCodec, nil)
	roundTrip(t, NewSettings(New()).codec, nil)
}

func roundTrip[R any](t *testing.T, c Codec[R], fix func(*R)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range 2000 {
		var r R
		jsonouttest.Fill(rng, reflect.ValueOf(&r).Elem())
		if rs, ok := any(&r).(*RoleAssignment); ok && i%3 == 0 {
			rs.Description = "same"
		}
		if fix != nil {
			fix(&r)
		}
		var e Enc
		c.Encode(&e, r)
		d := Dec{b: e.b}
		got := c.Decode(&d)
		if len(d.b) != 0 {
			t.Fatalf("%T: %d bytes left after decoding", r, len(d.b))
		}
		want, _ := json.Marshal(r)
		gotJSON, _ := json.Marshal(got)
		if string(gotJSON) != string(want) {
			t.Fatalf("%T round trip:\n got %s\nwant %s", r, gotJSON, want)
		}
	}
}

// TestTimesKeepTheirZone: a time comes back as the same instant in the same zone, so it
// prints the same; the zero time stays zero.
func TestTimesKeepTheirZone(t *testing.T) {
	for _, tm := range []time.Time{
		{}, time.Now(), time.Now().UTC(), time.Unix(0, 0).UTC(), time.Unix(-1e10, 999_999_999).UTC(),
		time.Date(2026, 11, 24, 9, 30, 0, 123456700, time.FixedZone("CET", 3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	} {
		var e Enc
		e.Time(tm)
		d := Dec{b: e.b}
		got := d.Time()
		if !got.Equal(tm) || got.IsZero() != tm.IsZero() || got.String() != tm.Round(0).String() {
			t.Errorf("%v came back as %v", tm, got)
		}
	}
}

// TestStoredRecordsAreNotScanned: what the store keeps for its records holds (nearly) no
// pointers, so the garbage collector's work does not grow with the store: a hundred
// thousand forwarding rules and their operations, put into a store that holds as many,
// add less than a byte a record to the heap the collector scans (before the store kept
// its records as bytes, about 880 bytes).
func TestStoredRecordsAreNotScanned(t *testing.T) {
	db := New()
	c, ops := NewCompute(db), NewOperations(db)
	const n = 100_000
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	scanned := func() uint64 {
		runtime.GC()
		s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	var before uint64
	for i := range 2 * n {
		if i == n {
			before = scanned()
		}
		id := strconv.Itoa(1_000_000 + i)
		r := ForwardingRule{Project: "bench", Name: "fr-" + id, ID: id, IPAddress: "10.0.0.1", IPProtocol: "TCP",
			PortRange: "443-443", Target: "https://compute/projects/bench/global/targetHttpsProxies/p",
			LoadBalancingScheme: "EXTERNAL", Labels: map[string]string{"env": "bench"}, Created: now}
		o := Operation{Scope: "projects/bench/global", Project: "bench", Name: "operation-" + id, ID: id,
			Seq: uint64(i + 1), Kind: "forwardingRules.insert", OperationType: "insert", Target: r.Key(),
			Status: "DONE", Progress: 100, InsertTime: now, StartTime: now, EndTime: now.Add(time.Duration(i))}
		if err := db.Update(func(tx *Tx) error {
			if err := c.ForwardingRules.Put(tx, r.Key(), r); err != nil {
				return err
			}
			return ops.Ops.Put(tx, o.Key(), o)
		}); err != nil {
			t.Fatal(err)
		}
	}
	after := scanned()
	if per := float64(after) - float64(before); per/n >= 1 {
		t.Errorf("the scanned heap grew by %.1f bytes per stored rule and operation, want less than 1", per/n)
	}
	runtime.KeepAlive(db)
}
