package validate

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzValidJSON: validJSON judges every body it is given (UTF-8, no lone surrogate
// escape) as encoding/json's Valid does.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a":1} `, `{"a":1}{"b":2}`, `{"a":1,"a":2}`, `[1,2,]`, `"\ud83d\ude00"`, `-0.5e+3`, `01`, "{\"a\":\"\x01\"}", `{"a":tru}`, `null x`, ``, ` `, `"\u00e9"`, `[[[[]]]]`} {
		f.Add([]byte(s))
	}
	for _, n := range []int{10000, 10001} { // both stop at a depth of 10,000
		f.Add([]byte(strings.Repeat("[", n) + strings.Repeat("]", n)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || loneSurrogate(data) >= 0 {
			return
		}
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid: %v", data, got, want)
		}
	})
}
