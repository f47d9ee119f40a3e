// Package randfill fills values of any type at random, for tests that hold two encoders
// (or an encoder and a decoder) to the same results over many values.
package randfill

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"time"
)

// Strings are where JSON encoders differ: HTML characters, U+2028, invalid UTF-8, control
// characters, quotes.
var Strings = []string{
	"", "plain", "<b>&amp;</b>", "line\u2028sep\u2029", "bad \xff\xfe utf-8", "tab\tnl\n\x00\x1f",
	`quote " backslash \ slash /`, "émoji 🎉", "\u007f\u0080", "https://example.com/a?b=c&d=<e>",
}

var floats = []float64{0, 1, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64}

// Fill sets v to a random value of its type: every exported field, pointers nil a quarter
// of the time, slices and maps nil, empty or short, times across and beyond years 0-9999,
// an empty interface a JSON value (what a tree of a decoded object holds).
func Fill(rng *rand.Rand, v reflect.Value) { fill(rng, v, 0) }

func fill(rng *rand.Rand, v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		sec := rng.Int64N(200*365*86400) - 100*365*86400 + time.Now().Unix()
		if rng.IntN(20) == 0 {
			sec = rng.Int64() >> rng.IntN(30)
		}
		v.Set(reflect.ValueOf(time.Unix(sec, rng.Int64N(1e9)).In(time.FixedZone("", 1800*(rng.IntN(9)-4)))))
		return
	case reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(`{"raw":[1,"<x>"]}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(Strings[rng.IntN(len(Strings))])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(rng.Int64N(1<<15) - 1<<14)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(rng.Uint64N(1 << 15))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(floats[rng.IntN(len(floats))])
	case reflect.Pointer:
		if depth > 5 || rng.IntN(4) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if depth > 5 || rng.IntN(3) == 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), rng.IntN(3), 3)
		for i := range s.Len() {
			fill(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if depth > 5 || rng.IntN(3) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range rng.IntN(4) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(rng, k, depth+1)
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if v.NumMethod() == 0 {
			if x := jsonValue(rng, depth); x != nil {
				v.Set(reflect.ValueOf(x))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(rng, v.Field(i), depth+1)
			}
		}
	}
}

// jsonValue is a random value of those a decoded JSON tree holds: nil, a bool, a float64, a
// string, []any or map[string]any.
func jsonValue(rng *rand.Rand, depth int) any {
	n := 6
	if depth > 5 {
		n = 4 // no more nesting
	}
	switch rng.IntN(n) {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return floats[rng.IntN(len(floats))]
	case 3:
		return Strings[rng.IntN(len(Strings))]
	case 4:
		out := make([]any, rng.IntN(3))
		for i := range out {
			out[i] = jsonValue(rng, depth+1)
		}
		return out
	}
	out := map[string]any{}
	for range rng.IntN(4) {
		out[Strings[rng.IntN(len(Strings))]] = jsonValue(rng, depth+1)
	}
	return out
}
