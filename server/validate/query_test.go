package validate

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestQueryAgreesWithParseQuery: Query refuses exactly the query strings url.ParseQuery
// reports an error for (and would drop a parameter of), naming the parameter at fault.
func TestQueryAgreesWithParseQuery(t *testing.T) {
	cases := []struct {
		raw, name string // name: the parameter the error names ("" = accepted)
	}{
		{"", ""},
		{"a=1&b=2", ""},
		{"a=%41%2f%2F&b=%e2%82%ac", ""},
		{"a=+b&&c", ""},
		{"requestId=%zz", "requestId"},
		{"api-version=2022-04-01&x=%zz", "x"},
		{"a=%", "a"},
		{"a=%4", "a"},
		{"a=1%", "a"},
		{"a%20b=%g0", "a b"},
		{"%zz=1", "%zz"},
		{"a=1;b=2", "a"},
		{"a=1&b=x;y", "b"},
		{"x=" + strings.Repeat("&", maxQueryParams), ""}, // over ParseQuery's limit: named by no parameter
	}
	for _, tt := range cases {
		err := Query(tt.raw)
		_, perr := url.ParseQuery(tt.raw)
		if (err == nil) != (perr == nil) {
			t.Errorf("%.40q: Query says %v, ParseQuery %v", tt.raw, err, perr)
			continue
		}
		if err == nil {
			continue
		}
		var ve *Error
		if !errors.As(err, &ve) || ve.Status != 400 || ve.In != "query" || ve.Name != tt.name || ve.Reason == "" {
			t.Errorf("%.40q: %#v, want a 400 for query parameter %q", tt.raw, err, tt.name)
		}
		if tt.name != "" && strings.Contains(ve.Reason, tt.raw) {
			t.Errorf("%.40q: the reason repeats the query: %s", tt.raw, ve.Reason)
		}
	}
}

func TestQueryNameIsBounded(t *testing.T) {
	err := Query(strings.Repeat("k", 1000) + "\x01\xff=%zz")
	var ve *Error
	if !errors.As(err, &ve) || len(ve.Name) > maxQueryName+3 {
		t.Fatalf("%v", err)
	}
	if err := Query("\x01\xff%zz=1"); err == nil || strings.IndexByte(err.(*Error).Name, 1) >= 0 || !utf8.ValidString(err.(*Error).Name) {
		t.Fatalf("name not cleaned: %q", err)
	}
}

func BenchmarkQuery(b *testing.B) {
	raw := "api-version=2022-04-01&$filter=atScope()&requestId=ce2ce14e-85d7-4629-bdbc-454d0519d987"
	b.ReportAllocs()
	for b.Loop() {
		if Query(raw) != nil {
			b.Fatal("refused")
		}
	}
}

// TestPathUnescapeMatchesURL: pathUnescape answers as url.PathUnescape on strings made of
// escapes good and bad, plus signs, slashes and other bytes.
func TestPathUnescapeMatchesURL(t *testing.T) {
	pieces := []string{"", "a", "Z", "/", "+", "%", "%2F", "%2f", "%25", "%e2%82%ac", "%G0", "%0", "%0g", "%%", "é", "\x00", " ", "-._~"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		var b strings.Builder
		for k := r.IntN(8); k >= 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		want, err := url.PathUnescape(s)
		got, ok := pathUnescape(s)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("pathUnescape(%q) = %q, %v; url.PathUnescape gives %q, %v", s, got, ok, want, err)
		}
	}
}
