package store

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"time"
	"unsafe"
)

// A table keeps its records as bytes (see records), not as Go values: a stored Go value
// holds a pointer for every string, map and slice in it, and the garbage collector follows
// every one of them in every collection, so a store that grows under load made each
// collection longer and each request that waited one out slower. Bytes in large chunks
// hold no pointers and cost the collector nothing to keep.
//
// A Codec turns one record type into bytes and back. Encode writes the fields one after
// another with Enc's methods, and Decode reads them back in the same order with Dec's;
// TestCodecsRoundTrip holds every codec of the package to giving back what it was given.

// Codec encodes and decodes the records of one type.
type Codec[R any] struct {
	Encode func(e *Enc, r R)
	Decode func(d *Dec) R
}

// JSONCodec keeps records as their JSON: for record types without a codec of their own,
// such as tests' (it is slower, and its strings are copies).
func JSONCodec[R any]() Codec[R] {
	return Codec[R]{
		Encode: func(e *Enc, r R) {
			b, err := json.Marshal(r)
			if err != nil {
				panic("store: JSONCodec: " + err.Error())
			}
			e.Bytes(b)
		},
		Decode: func(d *Dec) R {
			var r R
			if err := json.Unmarshal(d.Bytes(), &r); err != nil {
				panic("store: JSONCodec: " + err.Error())
			}
			return r
		},
	}
}

// Enc appends a record's fields to a buffer.
type Enc struct{ b []byte }

// Uint appends v.
func (e *Enc) Uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

// Int appends v.
func (e *Enc) Int(v int) { e.b = binary.AppendVarint(e.b, int64(v)) }

// Bool appends v.
func (e *Enc) Bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// String appends s.
func (e *Enc) String(s string) {
	e.Uint(uint64(len(s)))
	e.b = append(e.b, s...)
}

// Bytes appends b.
func (e *Enc) Bytes(b []byte) {
	e.Uint(uint64(len(b)))
	e.b = append(e.b, b...)
}

// StringOr appends s in a byte when it equals prev (a field read just before it, which
// it often repeats), else as String does. Dec.StringOr(prev) reads it.
func (e *Enc) StringOr(s, prev string) {
	if s == prev {
		e.b = append(e.b, 0)
		return
	}
	e.Uint(uint64(len(s)) + 1)
	e.b = append(e.b, s...)
}

// Time zones Enc.Time tells apart.
const (
	timeZero  = 0 // the zero time
	timeUTC   = 1
	timeLocal = 2
	timeFixed = 3 // any other zone: its name and offset follow
)

// Time appends t: its instant and its zone, which decide how it prints. A monotonic clock
// reading is not kept, as JSON on disk does not keep it either.
func (e *Enc) Time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, timeZero)
		return
	}
	switch t.Location() {
	case time.UTC:
		e.b = append(e.b, timeUTC)
	case time.Local:
		e.b = append(e.b, timeLocal)
	default:
		name, offset := t.Zone()
		e.b = append(e.b, timeFixed)
		e.String(name)
		e.Int(offset)
	}
	e.b = binary.AppendVarint(e.b, t.Unix())
	e.Uint(uint64(t.Nanosecond()))
}

// Len appends the length of a map or slice, n, keeping nil (isNil) apart from empty; the
// elements follow. Dec.Len reads it.
func (e *Enc) Len(n int, isNil bool) {
	if isNil {
		e.Uint(0)
		return
	}
	e.Uint(uint64(n) + 1)
}

// StringMap appends m; nil and empty stay apart.
func (e *Enc) StringMap(m map[string]string) {
	e.Len(len(m), m == nil)
	for k, v := range m {
		e.String(k)
		e.String(v)
	}
}

// Strings appends s; nil and empty stay apart.
func (e *Enc) Strings(s []string) {
	e.Len(len(s), s == nil)
	for _, v := range s {
		e.String(v)
	}
}

// JSON appends v as JSON, for values of no fixed shape; Dec.JSON reads it into a value of
// v's type, as a load from disk would.
func (e *Enc) JSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("store: Enc.JSON: " + err.Error())
	}
	e.Bytes(b)
}

// Dec reads back what Enc wrote, in the same order. It reads only bytes a table wrote with
// its own codec, so it checks nothing: a mismatch between a codec's Encode and Decode is a
// bug that TestCodecsRoundTrip finds, and panics here.
//
// Strings are not copied: they share the bytes decoded, which a table never changes once
// it has written them (it moves records by copying them to new chunks, and the old chunk
// lives on while a string still points into it).
type Dec struct{ b []byte }

// Uint reads a Uint.
func (d *Dec) Uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		panic("store: a record's bytes are damaged")
	}
	d.b = d.b[n:]
	return v
}

// Int reads an Int.
func (d *Dec) Int() int {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		panic("store: a record's bytes are damaged")
	}
	d.b = d.b[n:]
	return int(v)
}

// Bool reads a Bool.
func (d *Dec) Bool() bool {
	v := d.b[0] != 0
	d.b = d.b[1:]
	return v
}

// String reads a String.
func (d *Dec) String() string { return d.view(d.Uint()) }

// view takes the next n bytes as a string that shares them.
func (d *Dec) view(n uint64) string {
	if n == 0 {
		return ""
	}
	s := unsafe.String(&d.b[0], int(n))
	d.b = d.b[n:]
	return s
}

// Bytes reads Bytes, sharing them.
func (d *Dec) Bytes() []byte {
	n := d.Uint()
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

// StringOr reads what Enc.StringOr wrote with the same prev.
func (d *Dec) StringOr(prev string) string {
	n := d.Uint()
	if n == 0 {
		return prev
	}
	return d.view(n - 1)
}

// Time reads a Time.
func (d *Dec) Time() time.Time {
	zone := d.b[0]
	d.b = d.b[1:]
	var name string
	var offset int
	switch zone {
	case timeZero:
		return time.Time{}
	case timeFixed:
		name, offset = d.String(), d.Int()
	}
	sec, n := binary.Varint(d.b)
	if n <= 0 {
		panic("store: a record's bytes are damaged")
	}
	d.b = d.b[n:]
	t := time.Unix(sec, int64(d.Uint()))
	switch zone {
	case timeUTC:
		return t.UTC()
	case timeFixed:
		return t.In(time.FixedZone(name, offset))
	}
	return t
}

// Len reads what Enc.Len wrote.
func (d *Dec) Len() (n int, isNil bool) {
	v := d.Uint()
	if v == 0 {
		return 0, true
	}
	return int(v - 1), false
}

// StringMap reads a StringMap, into a map of its own.
func (d *Dec) StringMap() map[string]string {
	n, isNil := d.Len()
	if isNil {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := d.String()
		m[k] = d.String()
	}
	return m
}

// Strings reads Strings, into a slice of its own.
func (d *Dec) Strings() []string {
	n, isNil := d.Len()
	if isNil {
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = d.String()
	}
	return s
}

// JSON reads what Enc.JSON wrote into v.
func (d *Dec) JSON(v any) {
	if err := json.Unmarshal(d.Bytes(), v); err != nil {
		panic("store: Dec.JSON: " + err.Error())
	}
}

// sizeLimit is the largest encoded record: chunk offsets and sizes are 32-bit.
const sizeLimit = math.MaxUint32 / 2
