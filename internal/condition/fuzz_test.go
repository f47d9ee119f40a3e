package condition

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics, that its errors are *Error
// with an offset inside the input, and that a successful parse prints a
// canonical form that parses back to the same tree and the same text.
func FuzzParse(f *testing.F) {
	for _, tt := range validCases {
		f.Add(tt.in)
	}
	for _, tt := range invalidCases {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, want *Error: %v", err, err)
			}
			if pe.Offset < 0 || pe.Offset > len(src) {
				t.Fatalf("Offset %d outside input of %d bytes: %s", pe.Offset, len(src), pe.Message)
			}
			if e != nil {
				t.Fatalf("non-nil Expr with error %v", err)
			}
			return
		}
		s := e.String()
		if len(s) > MaxLength {
			// The canonical form can outgrow the limit (e.g. "&&" becomes " AND ").
			return
		}
		e2, err := Parse(s)
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\ninput:     %q\ncanonical: %q", err, src, s)
		}
		if s2 := e2.String(); s2 != s {
			t.Fatalf("canonical form not stable\ninput:  %q\nfirst:  %q\nsecond: %q", src, s, s2)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("tree changed on round trip of %q", s)
		}
	})
}
