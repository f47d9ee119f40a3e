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
// every one of them in every collection, so a store that grows under load made each
// collection longer and each request that waited one out slower. Bytes in large chunks
// hold no pointers and cost the collector nothing to keep.
//
// The codec of a record type is derived from the type when its table is made: the fields
// of a struct one after another, each by its kind. Adding a field to a record is all it
// takes to store it. Strings read back share the stored bytes (a version is never changed
// once written; see records). A string equal to the string written just before it (a
// lower-cased key after the spelling it comes from, an updater after the creator) takes a
// byte. Values of no fixed type (interfaces) are kept as JSON, as the disk keeps them.

// codec encodes and decodes the values of one type, at a pointer to one.
type codec struct {
	enc func(e *encoder, p unsafe.Pointer)
	dec func(d *decoder, p unsafe.Pointer)
}

// recordCodec is the codec of R. Its fields must all be exported (what is not exported
// would not reach the disk, which keeps records as JSON).
func recordCodec[R any]() codec {
	t := reflect.TypeFor[R]()
	c, err := codecOf(t)
	if err != nil {
		panic(fmt.Sprintf("store: no codec for %v: %v", t, err))
	}
	return c
}

var timeType = reflect.TypeFor[time.Time]()

// codecOf derives the codec of values of type t.
func codecOf(t reflect.Type) (codec, error) {
	if t == timeType {
		return codec{
			enc: func(e *encoder, p unsafe.Pointer) { e.time(*(*time.Time)(p)) },
			dec: func(d *decoder, p unsafe.Pointer) { *(*time.Time)(p) = d.time() },
		}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return codec{
			enc: func(e *encoder, p unsafe.Pointer) { e.string(*(*string)(p)) },
			dec: func(d *decoder, p unsafe.Pointer) { *(*string)(p) = d.string() },
		}, nil
	case reflect.Bool:
		return codec{
			enc: func(e *encoder, p unsafe.Pointer) { e.bool(*(*bool)(p)) },
			dec: func(d *decoder, p unsafe.Pointer) { *(*bool)(p) = d.bool() },
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intCodec(t), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintCodec(t), nil
	case reflect.Float32:
		return codec{
			enc: func(e *encoder, p unsafe.Pointer) { e.uint(uint64(math.Float32bits(*(*float32)(p)))) },
			dec: func(d *decoder, p unsafe.Pointer) { *(*float32)(p) = math.Float32frombits(uint32(d.uint())) },
		}, nil
	case reflect.Float64:
		return codec{
			enc: func(e *encoder, p unsafe.Pointer) { e.uint(math.Float64bits(*(*float64)(p))) },
			dec: func(d *decoder, p unsafe.Pointer) { *(*float64)(p) = math.Float64frombits(d.uint()) },
		}, nil
	case reflect.Struct:
		return structCodec(t)
	case reflect.Pointer:
		return pointerCodec(t)
	case reflect.Slice:
		return sliceCodec(t)
	case reflect.Array:
		return arrayCodec(t)
	case reflect.Map:
		return mapCodec(t)
	case reflect.Interface:
		return jsonCodec(t), nil
	}
	return codec{}, fmt.Errorf("%v: values of kind %v cannot be stored", t, t.Kind())
}

func intCodec(t reflect.Type) codec {
	size := t.Size()
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			var v int64
			switch size {
			case 1:
				v = int64(*(*int8)(p))
			case 2:
				v = int64(*(*int16)(p))
			case 4:
				v = int64(*(*int32)(p))
			default:
				v = *(*int64)(p)
			}
			e.b = binary.AppendVarint(e.b, v)
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			v := d.int()
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
		},
	}
}

func uintCodec(t reflect.Type) codec {
	size := t.Size()
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			var v uint64
			switch size {
			case 1:
				v = uint64(*(*uint8)(p))
			case 2:
				v = uint64(*(*uint16)(p))
			case 4:
				v = uint64(*(*uint32)(p))
			default:
				v = *(*uint64)(p)
			}
			e.uint(v)
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			v := d.uint()
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
		},
	}
}

// structCodec writes the fields in their order.
func structCodec(t reflect.Type) (codec, error) {
	type field struct {
		off uintptr
		c   codec
	}
	fields := make([]field, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			return codec{}, fmt.Errorf("%v.%s is not exported", t, f.Name)
		}
		c, err := codecOf(f.Type)
		if err != nil {
			return codec{}, err
		}
		fields = append(fields, field{f.Offset, c})
	}
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			for _, f := range fields {
				f.c.enc(e, unsafe.Add(p, f.off))
			}
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			for _, f := range fields {
				f.c.dec(d, unsafe.Add(p, f.off))
			}
		},
	}, nil
}

// pointerCodec writes whether the pointer is nil, then what it points to.
func pointerCodec(t reflect.Type) (codec, error) {
	elem, err := codecOf(t.Elem())
	if err != nil {
		return codec{}, err
	}
	et := t.Elem()
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			q := *(*unsafe.Pointer)(p)
			e.bool(q != nil)
			if q != nil {
				elem.enc(e, q)
			}
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			if !d.bool() {
				*(*unsafe.Pointer)(p) = nil
				return
			}
			q := reflect.New(et).UnsafePointer()
			elem.dec(d, q)
			*(*unsafe.Pointer)(p) = q
		},
	}, nil
}

// sliceCodec writes the length (nil and empty apart), then the elements.
func sliceCodec(t reflect.Type) (codec, error) {
	et := t.Elem()
	if et.Kind() == reflect.Uint8 {
		return codec{
			enc: func(e *encoder, p unsafe.Pointer) { e.bytes(*(*[]byte)(p)) },
			dec: func(d *decoder, p unsafe.Pointer) { *(*[]byte)(p) = d.bytes() },
		}, nil
	}
	elem, err := codecOf(et)
	if err != nil {
		return codec{}, err
	}
	size := et.Size()
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			h := (*sliceHeader)(p)
			e.length(h.n, h.data == nil)
			for i := range h.n {
				elem.enc(e, unsafe.Add(h.data, uintptr(i)*size))
			}
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			n, isNil := d.length()
			if isNil {
				*(*sliceHeader)(p) = sliceHeader{}
				return
			}
			s := reflect.MakeSlice(t, n, n)
			data := s.UnsafePointer()
			for i := range n {
				elem.dec(d, unsafe.Add(data, uintptr(i)*size))
			}
			reflect.NewAt(t, p).Elem().Set(s)
		},
	}, nil
}

// sliceHeader is how a slice is laid out in memory.
type sliceHeader struct {
	data   unsafe.Pointer
	n, cap int
}

func arrayCodec(t reflect.Type) (codec, error) {
	elem, err := codecOf(t.Elem())
	if err != nil {
		return codec{}, err
	}
	n, size := t.Len(), t.Elem().Size()
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			for i := range n {
				elem.enc(e, unsafe.Add(p, uintptr(i)*size))
			}
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			for i := range n {
				elem.dec(d, unsafe.Add(p, uintptr(i)*size))
			}
		},
	}, nil
}

// mapCodec writes the length (nil and empty apart), then each key and value, in the map's
// order. Maps of strings to strings (labels, metadata) are read and written directly.
func mapCodec(t reflect.Type) (codec, error) {
	if t == reflect.TypeFor[map[string]string]() {
		return codec{
			enc: func(e *encoder, p unsafe.Pointer) {
				m := *(*map[string]string)(p)
				e.length(len(m), m == nil)
				for k, v := range m {
					e.string(k)
					e.string(v)
				}
			},
			dec: func(d *decoder, p unsafe.Pointer) {
				n, isNil := d.length()
				if isNil {
					*(*map[string]string)(p) = nil
					return
				}
				m := make(map[string]string, n)
				for range n {
					k := d.string()
					m[k] = d.string()
				}
				*(*map[string]string)(p) = m
			},
		}, nil
	}
	key, err := codecOf(t.Key())
	if err != nil {
		return codec{}, err
	}
	elem, err := codecOf(t.Elem())
	if err != nil {
		return codec{}, err
	}
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			m := reflect.NewAt(t, p).Elem()
			e.length(m.Len(), m.IsNil())
			k := reflect.New(t.Key()).Elem()
			v := reflect.New(t.Elem()).Elem()
			for it := m.MapRange(); it.Next(); {
				k.SetIterKey(it)
				v.SetIterValue(it)
				key.enc(e, k.Addr().UnsafePointer())
				elem.enc(e, v.Addr().UnsafePointer())
			}
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			n, isNil := d.length()
			m := reflect.NewAt(t, p).Elem()
			if isNil {
				m.SetZero()
				return
			}
			m.Set(reflect.MakeMapWithSize(t, n))
			for range n {
				k := reflect.New(t.Key())
				key.dec(d, k.UnsafePointer())
				v := reflect.New(t.Elem())
				elem.dec(d, v.UnsafePointer())
				m.SetMapIndex(k.Elem(), v.Elem())
			}
		},
	}, nil
}

// jsonCodec keeps a value of no fixed type (an interface) as its JSON, and reads it back
// as a load from disk would.
func jsonCodec(t reflect.Type) codec {
	return codec{
		enc: func(e *encoder, p unsafe.Pointer) {
			b, err := json.Marshal(reflect.NewAt(t, p).Interface())
			if err != nil {
				panic("store: " + err.Error())
			}
			e.bytes(b)
		},
		dec: func(d *decoder, p unsafe.Pointer) {
			if err := json.Unmarshal(d.bytes(), reflect.NewAt(t, p).Interface()); err != nil {
				panic("store: " + err.Error())
			}
		},
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
