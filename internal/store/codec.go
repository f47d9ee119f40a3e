package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"
	"unsafe"
)

// A table keeps its records as bytes (see records), not as Go values: a stored Go value
// holds a pointer for every string, map and slice in it, and the garbage collector follows
// every one of them in every collection, so a store that grows under load would make each
// collection longer and each request that waits one out slower. Bytes in large chunks
// hold no pointers and cost the collector nothing to keep.
//
// The codec of a record type is derived from the type when its table is made: the fields
// of a struct one after another, each by its kind. Adding a field to a record is all it
// takes to store it. Strings read back share the stored bytes (a version is never changed
// once written; see records). A string equal to the string written just before it (a
// lower-cased key after the spelling it comes from, an updater after the creator) takes a
// byte. Values of no fixed type (interfaces) are kept as JSON, as the disk keeps them.

// A codec is a program: one step per value, nested structs flattened into their parent's
// steps, run by encode and decode. The two are plain recursive functions rather than a
// closure per field, so that the record they are given stays on the caller's stack.
type codec []step

// step encodes or decodes one value, at offset off from the start of what its codec runs on.
type step struct {
	kind kind
	off  uintptr
	size uintptr      // an int's or uint's size; an element's size (slices, arrays)
	n    int          // an array's length
	elem codec        // what a pointer points to; a slice's or array's element
	key  codec        // a map's key (elem is its value)
	typ  reflect.Type // the type made when decoding (pointers, slices, maps, interfaces)
}

type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kFloat32
	kFloat64
	kTime
	kBytes
	kStringMap // map[string]string, read and written directly
	kPointer
	kSlice
	kArray
	kMap
	kAny // an empty interface, kept as JSON
)

// recordCodec is the codec of R. Its fields must all be exported (what is not exported
// would not reach the disk, which keeps records as JSON).
func recordCodec[R any]() codec {
	t := reflect.TypeFor[R]()
	c, err := codecOf(t, 0, nil)
	if err != nil {
		panic(fmt.Sprintf("store: no codec for %v: %v", t, err))
	}
	return c
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	stringMapType = reflect.TypeFor[map[string]string]()
)

// codecOf appends to c the steps of a value of type t at offset off.
func codecOf(t reflect.Type, off uintptr, c codec) (codec, error) {
	s := step{off: off, size: t.Size(), typ: t}
	switch {
	case t == timeType:
		s.kind = kTime
	case t == stringMapType:
		s.kind = kStringMap
	default:
		switch t.Kind() {
		case reflect.String:
			s.kind = kString
		case reflect.Bool:
			s.kind = kBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			s.kind = kInt
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			s.kind = kUint
		case reflect.Float32:
			s.kind = kFloat32
		case reflect.Float64:
			s.kind = kFloat64
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					return nil, fmt.Errorf("%v.%s is not exported", t, f.Name)
				}
				var err error
				if c, err = codecOf(f.Type, off+f.Offset, c); err != nil {
					return nil, err
				}
			}
			return c, nil
		case reflect.Pointer:
			s.kind = kPointer
		case reflect.Slice:
			s.kind = kSlice
			if t.Elem().Kind() == reflect.Uint8 {
				s.kind = kBytes
			}
		case reflect.Array:
			s.kind, s.n = kArray, t.Len()
		case reflect.Map:
			s.kind = kMap
		case reflect.Interface:
			if t.NumMethod() > 0 {
				return nil, fmt.Errorf("%v: only empty interfaces can be stored", t)
			}
			s.kind = kAny
		default:
			return nil, fmt.Errorf("%v: values of kind %v cannot be stored", t, t.Kind())
		}
	}
	var err error
	switch s.kind {
	case kPointer, kSlice, kArray:
		s.size = t.Elem().Size()
		s.elem, err = codecOf(t.Elem(), 0, nil)
	case kMap:
		if s.key, err = codecOf(t.Key(), 0, nil); err == nil {
			s.elem, err = codecOf(t.Elem(), 0, nil)
		}
	}
	if err != nil {
		return nil, err
	}
	return append(c, s), nil
}

// encode appends the value at p, of the type c was derived from, to e.
func encode(e *encoder, c codec, p unsafe.Pointer) {
	for i := range c {
		s := &c[i]
		q := unsafe.Add(p, s.off)
		switch s.kind {
		case kString:
			e.string(*(*string)(q))
		case kBool:
			e.bool(*(*bool)(q))
		case kInt:
			e.b = binary.AppendVarint(e.b, loadInt(q, s.size))
		case kUint:
			e.uint(loadUint(q, s.size))
		case kFloat32:
			e.uint(uint64(math.Float32bits(*(*float32)(q))))
		case kFloat64:
			e.uint(math.Float64bits(*(*float64)(q)))
		case kTime:
			e.time(*(*time.Time)(q))
		case kBytes:
			e.bytes(*(*[]byte)(q))
		case kStringMap:
			m := *(*map[string]string)(q)
			e.length(len(m), m == nil)
			for k, v := range m {
				e.string(k)
				e.string(v)
			}
		case kPointer:
			x := *(*unsafe.Pointer)(q)
			e.bool(x != nil)
			if x != nil {
				encode(e, s.elem, x)
			}
		case kSlice:
			// Every slice is laid out as a []byte is: its elements are read through that.
			b := *(*[]byte)(q)
			data := unsafe.Pointer(unsafe.SliceData(b))
			e.length(len(b), b == nil)
			for j := range len(b) {
				encode(e, s.elem, unsafe.Add(data, uintptr(j)*s.size))
			}
		case kArray:
			for j := range s.n {
				encode(e, s.elem, unsafe.Add(q, uintptr(j)*s.size))
			}
		case kMap:
			encodeMap(e, s, *(*unsafe.Pointer)(q))
		case kAny:
			b, err := json.Marshal(*(*any)(q))
			if err != nil {
				panic("store: " + err.Error())
			}
			e.bytes(b)
		}
	}
}

// encodeMap writes the map m (its one word) of step s: length, then keys and values.
func encodeMap(e *encoder, s *step, m unsafe.Pointer) {
	v := reflect.NewAt(s.typ, unsafe.Pointer(&m)).Elem()
	e.length(v.Len(), v.IsNil())
	k := reflect.New(s.typ.Key())
	x := reflect.New(s.typ.Elem())
	for it := v.MapRange(); it.Next(); {
		k.Elem().SetIterKey(it)
		x.Elem().SetIterValue(it)
		encode(e, s.key, k.UnsafePointer())
		encode(e, s.elem, x.UnsafePointer())
	}
}

// decode reads into the value at p what encode wrote for one of c's type.
func decode(d *decoder, c codec, p unsafe.Pointer) {
	for i := range c {
		s := &c[i]
		q := unsafe.Add(p, s.off)
		switch s.kind {
		case kString:
			*(*string)(q) = d.string()
		case kBool:
			*(*bool)(q) = d.bool()
		case kInt:
			storeInt(q, s.size, d.int())
		case kUint:
			storeUint(q, s.size, d.uint())
		case kFloat32:
			*(*float32)(q) = math.Float32frombits(uint32(d.uint()))
		case kFloat64:
			*(*float64)(q) = math.Float64frombits(d.uint())
		case kTime:
			*(*time.Time)(q) = d.time()
		case kBytes:
			*(*[]byte)(q) = d.bytes()
		case kStringMap:
			n, isNil := d.length()
			if isNil {
				*(*map[string]string)(q) = nil
				break
			}
			m := make(map[string]string, n)
			for range n {
				k := d.string()
				m[k] = d.string()
			}
			*(*map[string]string)(q) = m
		case kPointer:
			if !d.bool() {
				*(*unsafe.Pointer)(q) = nil
				break
			}
			x := reflect.New(s.typ.Elem()).UnsafePointer()
			decode(d, s.elem, x)
			*(*unsafe.Pointer)(q) = x
		case kSlice:
			n, isNil := d.length()
			if isNil {
				*(*[]byte)(q) = nil
				break
			}
			data := reflect.MakeSlice(s.typ, n, n).UnsafePointer()
			for j := range n {
				decode(d, s.elem, unsafe.Add(data, uintptr(j)*s.size))
			}
			*(*[]byte)(q) = unsafe.Slice((*byte)(data), n)
		case kArray:
			for j := range s.n {
				decode(d, s.elem, unsafe.Add(q, uintptr(j)*s.size))
			}
		case kMap:
			*(*unsafe.Pointer)(q) = decodeMap(d, s)
		case kAny:
			var v any
			if err := json.Unmarshal(d.bytes(), &v); err != nil {
				panic("store: " + err.Error())
			}
			*(*any)(q) = v
		}
	}
}

// decodeMap reads a map of step s and returns it (its one word), nil for a nil map.
func decodeMap(d *decoder, s *step) unsafe.Pointer {
	n, isNil := d.length()
	if isNil {
		return nil
	}
	m := reflect.MakeMapWithSize(s.typ, n)
	k, x := reflect.New(s.typ.Key()), reflect.New(s.typ.Elem())
	for range n {
		k.Elem().SetZero()
		x.Elem().SetZero()
		decode(d, s.key, k.UnsafePointer())
		decode(d, s.elem, x.UnsafePointer())
		m.SetMapIndex(k.Elem(), x.Elem()) // copies both
	}
	return m.UnsafePointer()
}

func loadInt(p unsafe.Pointer, size uintptr) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

func storeInt(p unsafe.Pointer, size uintptr, v int64) {
	switch size {
	case 1:
		*(*int8)(p) = int8(v)
	case 2:
		*(*int16)(p) = int16(v)
	case 4:
		*(*int32)(p) = int32(v)
	default:
		*(*int64)(p) = v
	}
}

func loadUint(p unsafe.Pointer, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

func storeUint(p unsafe.Pointer, size uintptr, v uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

// encoder appends a record's values to a buffer.
type encoder struct {
	b    []byte
	prev string // the string written last
}

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// string writes s, in one byte when it equals the string written just before it.
func (e *encoder) string(s string) {
	if s == e.prev && s != "" {
		e.b = append(e.b, 0)
		return
	}
	e.uint(uint64(len(s)) + 1)
	e.b = append(e.b, s...)
	e.prev = s
}

func (e *encoder) bytes(b []byte) {
	e.length(len(b), b == nil)
	e.b = append(e.b, b...)
}

// length writes the length of a map or slice, n, keeping nil (isNil) apart from empty.
func (e *encoder) length(n int, isNil bool) {
	if isNil {
		e.uint(0)
		return
	}
	e.uint(uint64(n) + 1)
}

// Time zones encoder.time tells apart.
const (
	timeZero  = 0 // the zero time
	timeUTC   = 1
	timeLocal = 2
	timeFixed = 3 // any other zone: its name and offset follow
)

// time writes t: its instant and its zone, which decide how it prints. A monotonic clock
// reading is not kept, as JSON on disk does not keep it either.
func (e *encoder) time(t time.Time) {
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
		e.string(name)
		e.b = binary.AppendVarint(e.b, int64(offset))
	}
	e.b = binary.AppendVarint(e.b, t.Unix())
	e.uint(uint64(t.Nanosecond()))
}

// decoder reads back what an encoder wrote, in the same order. It reads only bytes a table
// wrote with its own codec, so it checks nothing: a mismatch is a bug, and panics here.
type decoder struct {
	b    []byte
	prev string
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		panic("store: a record's bytes are damaged")
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		panic("store: a record's bytes are damaged")
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bool() bool {
	v := d.b[0] != 0
	d.b = d.b[1:]
	return v
}

// string reads a string that shares the decoded bytes.
func (d *decoder) string() string {
	n := d.uint()
	if n == 0 {
		return d.prev
	}
	n--
	var s string
	if n > 0 {
		s = unsafe.String(&d.b[0], int(n))
		d.b = d.b[n:]
	}
	d.prev = s
	return s
}

// bytes reads bytes of their own: unlike a string, a slice read back could be changed.
func (d *decoder) bytes() []byte {
	n, isNil := d.length()
	if isNil {
		return nil
	}
	b := slices.Clone(d.b[:n])
	d.b = d.b[n:]
	return b
}

func (d *decoder) length() (n int, isNil bool) {
	v := d.uint()
	if v == 0 {
		return 0, true
	}
	return int(v - 1), false
}

func (d *decoder) time() time.Time {
	zone := d.b[0]
	d.b = d.b[1:]
	var name string
	var offset int64
	switch zone {
	case timeZero:
		return time.Time{}
	case timeFixed:
		name, offset = d.string(), d.int()
	}
	t := time.Unix(d.int(), int64(d.uint()))
	switch zone {
	case timeUTC:
		return t.UTC()
	case timeFixed:
		return t.In(time.FixedZone(name, int(offset)))
	}
	return t
}

// sizeLimit is the largest encoded record: chunk offsets and sizes are 32-bit.
const sizeLimit = math.MaxUint32 / 2
