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
	"unsafe"

	"github.com/understudy-dev/understudy/internal/randfill"
)

// kinds is a record with a field of every kind a derived codec handles.
type kinds struct {
	S           string
	Same, Again string // often equal to the string before them
	I           int
	I8          int8
	I16         int16
	I32         int32
	I64         int64
	U           uint
	U8          uint8
	U16         uint16
	U32         uint32
	U64         uint64
	F32         float32
	F64         float64
	B           bool
	T           time.Time
	Bytes       []byte
	Labels      map[string]string
	Nested      map[string]map[string]bool
	Counts      map[int]uint64
	List        []string
	Items       []item
	Ptr         *item
	Array       [2]item
	Details     []map[string]any
	Inner       item
}

type item struct {
	Name string
	N    int
	At   time.Time
	Tags []string
}

// TestCodecsRoundTrip: a derived codec gives back what it was given, every field of it
// (filled at random, nil and empty maps and slices apart), as JSON (the disk's form) shows
// it.
func TestCodecsRoundTrip(t *testing.T) {
	c := recordCodec[kinds]()
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range 2000 {
		var r kinds
		randfill.Fill(rng, reflect.ValueOf(&r).Elem())
		if i%3 == 0 {
			r.Same, r.Again = r.S, r.S
		}
		if r.Details != nil {
			// Values of no fixed type are kept as JSON, whose strings are valid UTF-8.
			r.Details = []map[string]any{{"reason": "quota", "n": 2.5, "list": []any{"a", true}}, nil}
		}
		var e encoder
		encode(&e, c, unsafe.Pointer(&r))
		d := decoder{b: e.b}
		var got kinds
		decode(&d, c, unsafe.Pointer(&got))
		if len(d.b) != 0 {
			t.Fatalf("%d bytes left after decoding", len(d.b))
		}
		want, _ := json.Marshal(r)
		gotJSON, _ := json.Marshal(got)
		if string(gotJSON) != string(want) {
			t.Fatalf("round trip:\n got %s\nwant %s", gotJSON, want)
		}
		if (r.Bytes == nil) != (got.Bytes == nil) {
			t.Fatalf("bytes: nil %v came back nil %v", r.Bytes == nil, got.Bytes == nil)
		}
	}
}

// TestRecordsMustBeExported: a record with a field the disk would not keep (unexported)
// has no codec.
func TestRecordsMustBeExported(t *testing.T) {
	type hidden struct {
		Name   string
		secret string
	}
	defer func() {
		if recover() == nil {
			t.Error("a record with an unexported field was given a codec")
		}
	}()
	_ = hidden{}.secret
	recordCodec[hidden]()
}

// TestBytesAreTheCallers: a []byte read back is the caller's to change; the stored record
// stays as it was.
func TestBytesAreTheCallers(t *testing.T) {
	type fp struct{ Fingerprint []byte }
	db := New()
	tb := NewTable[fp](db, "fps")
	if err := db.Update(func(tx *Tx) error { return tb.Put(tx, "a", fp{[]byte("abc")}) }); err != nil {
		t.Fatal(err)
	}
	got, _ := tb.Get(&readTx, "a")
	got.Fingerprint[0] = 'X'
	if again, _ := tb.Get(&readTx, "a"); string(again.Fingerprint) != "abc" {
		t.Errorf("stored bytes changed to %q", again.Fingerprint)
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
		var e encoder
		e.time(tm)
		d := decoder{b: e.b}
		got := d.time()
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
	type rule struct {
		Project, Name, ID, IPAddress, PortRange, Target string
		Labels                                          map[string]string
		Created                                         time.Time
	}
	type operation struct {
		Scope, Name, ID, Target, Status string
		Seq                             uint64
		InsertTime, EndTime             time.Time
	}
	db := New()
	rules := NewTable[rule](db, "rules")
	rules.AddUnique("id", func(r rule) (string, bool) { return r.Project + "|" + r.ID, true })
	ops := NewTable[operation](db, "operations")
	ops.AddNumbered(func(o operation) (string, uint64, bool) { return o.Scope, o.Seq, true })
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
		r := rule{Project: "bench", Name: "fr-" + id, ID: id, IPAddress: "10.0.0.1", PortRange: "443-443",
			Target: "https://compute/projects/bench/global/targetHttpsProxies/p", Labels: map[string]string{"env": "bench"}, Created: now}
		o := operation{Scope: "projects/bench/global", Name: "operation-" + id, ID: id, Seq: uint64(i + 1),
			Target: r.Project + "|" + r.Name, Status: "DONE", InsertTime: now, EndTime: now.Add(time.Duration(i))}
		if err := db.Update(func(tx *Tx) error {
			if err := rules.Put(tx, r.Project+"|"+r.Name, r); err != nil {
				return err
			}
			return ops.Put(tx, o.Scope+"|"+o.Name, o)
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
