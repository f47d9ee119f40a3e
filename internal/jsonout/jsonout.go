// Package jsonout appends JSON exactly as encoding/json writes it, for the few response
// bodies that hot handlers write by hand: encoding/json spends most of its time on
// reflection and, for json.Marshaler values such as time.Time, on re-scanning their output.
// Each hand-written body is held to encoding/json's bytes by a test in its package.
package jsonout

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// String appends s quoted as encoding/json quotes strings: <, > and & escaped for HTML,
// U+2028 and U+2029 escaped, invalid UTF-8 replaced by \ufffd.
// (The logic of encoding/json's appendString, which is not exported.)
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// The common case: a run of bytes written as they are, eight at a time, then one
		// table lookup each up to the byte that stopped it.
		for i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
		}
		for i < len(s) && special[s[i]] == 0 {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hex = "0123456789abcdef"

// plain8 reports whether none of the eight bytes of s is special: eight table lookups or-ed
// together, with one bounds check and one branch.
func plain8(s string) bool {
	_ = s[7]
	return special[s[0]]|special[s[1]]|special[s[2]]|special[s[3]]|
		special[s[4]]|special[s[5]]|special[s[6]]|special[s[7]] == 0
}

// special marks the bytes that are not written as they are: ASCII control characters, ", \,
// the HTML characters <, > and &, and every byte of a multi-byte (or invalid) UTF-8
// sequence, which String decodes to check.
var special = func() (t [256]uint8) {
	for c := range t {
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			t[c] = 1
		}
	}
	return t
}()

// Object appends one JSON object, member by member, in the order of the Go struct it
// stands for (encoding/json writes members in field order).
type Object struct {
	B []byte // the output so far
	n int    // members written
}

// Open starts an object at the end of b.
func Open(b []byte) Object { return Object{B: append(b, '{')} }

// Close ends the object and returns the output.
func (o *Object) Close() []byte { return append(o.B, '}') }

// Key starts a member: name must be a plain ASCII name, which needs no escaping.
func (o *Object) Key(name string) {
	if o.n > 0 {
		o.B = append(o.B, ',')
	}
	o.n++
	o.B = append(o.B, '"')
	o.B = append(o.B, name...)
	o.B = append(o.B, '"', ':')
}

// String writes a string member.
func (o *Object) String(name, v string) {
	o.Key(name)
	o.B = String(o.B, v)
}

// OptString writes a string member held by a pointer, if not nil (a *string with
// omitempty: a pointer to "" is written).
func (o *Object) OptString(name string, v *string) {
	if v != nil {
		o.String(name, *v)
	}
}

// OptInt writes an *int32 member with omitempty, if not nil.
func (o *Object) OptInt(name string, v *int32) {
	if v != nil {
		o.Key(name)
		o.B = strconv.AppendInt(o.B, int64(*v), 10)
	}
}

// OptTime writes a *time.Time member with omitempty, if not nil, as MarshalJSON writes
// it; it reports false where MarshalJSON would fail (see Time). times, if not nil, keeps
// the text of the last time written through it.
func (o *Object) OptTime(name string, v *time.Time, times *Times) bool {
	if v == nil {
		return true
	}
	o.Key(name)
	var ok bool
	if times != nil {
		o.B, ok = times.Append(o.B, *v)
	} else {
		o.B, ok = Time(o.B, *v)
	}
	return ok
}

// Times writes times as Time does and keeps the text of the last one: the times of a
// record are often one instant (created and last modified, in a record just made), each
// formatted again for some 800 instructions where a copy costs a few dozen.
type Times struct {
	t   time.Time
	n   int // the length of t's text in buf; 0 before the first
	buf [40]byte
}

// Append appends t as Time does.
func (c *Times) Append(b []byte, t time.Time) ([]byte, bool) {
	// == and not Equal: the same instant in another location is written otherwise.
	if c.n > 0 && t == c.t {
		return append(b, c.buf[:c.n]...), true
	}
	start := len(b)
	b, ok := Time(b, t)
	if ok && len(b)-start <= len(c.buf) {
		c.t, c.n = t, copy(c.buf[:], b[start:])
	}
	return b, ok
}

// TimeOK reports whether MarshalJSON can write t (and so Time): its year is 0 to 9999.
func TimeOK(t time.Time) bool {
	y := t.Year()
	return y >= 0 && y <= 9999
}

// Time appends t as time.Time's MarshalJSON writes it (RFC 3339 with nanoseconds, quoted),
// and reports false for a year outside 0 to 9999, for which MarshalJSON fails.
func Time(b []byte, t time.Time) ([]byte, bool) {
	if !TimeOK(t) {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}
