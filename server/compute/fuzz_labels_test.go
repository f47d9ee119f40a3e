package compute

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// decodeLabels turns fuzz input into a label set: entries separated by '\n', key and value
// by the first '=' (an entry without one is a key with an empty value), then extra
// generated labels k0..k{extra-1} (so that the count limit is reached too). A later entry
// with the same key wins, as in JSON.
func decodeLabels(src string, extra uint8) map[string]string {
	labels := map[string]string{}
	if src != "" {
		for _, e := range strings.Split(src, "\n") {
			k, v, _ := strings.Cut(e, "=")
			labels[k] = v
		}
	}
	for i := 0; i < int(extra); i++ {
		labels[fmt.Sprintf("k%d", i)] = "v"
	}
	return labels
}

// FuzzLabels checks that validateLabels never panics, that what it accepts follows the
// label rules, that what it refuses is a 400 invalid naming the labels field, and that
// labelFingerprint is 8 bytes, deterministic, independent of map order and changes with the
// generation.
func FuzzLabels(f *testing.F) {
	f.Add("env=prod\nteam=net", uint8(0))
	f.Add("", uint8(0))
	f.Add("", uint8(64))
	f.Add("", uint8(65))
	f.Add("a=", uint8(0))
	f.Add("=v", uint8(0))
	f.Add("Env=prod", uint8(0))
	f.Add("1abc=x", uint8(0))
	f.Add("_a=x", uint8(0))
	f.Add("env=Prod", uint8(0))
	f.Add("env=with space", uint8(0))
	f.Add("é=ü", uint8(0))
	f.Add("ǅ=x", uint8(0))     // title case
	f.Add("ſ=x", uint8(0))     // lower-case long s
	f.Add("a\xff=x", uint8(0)) // invalid UTF-8 in a key
	f.Add("a=\xff", uint8(0))  // and in a value
	f.Add("ª=x", uint8(0))     // a letter that is neither upper nor lower (Lo)
	f.Add("日本=x", uint8(0))    // a key starting with an international character
	f.Add("a٣=٣", uint8(0))    // non-ASCII digits
	f.Add(strings.Repeat("a", 63)+"=", uint8(0))
	f.Add(strings.Repeat("a", 64)+"=", uint8(0))
	f.Add("a="+strings.Repeat("b", 63), uint8(0))
	f.Add("a="+strings.Repeat("b", 64), uint8(0))
	f.Add("a="+strings.Repeat("é", 63), uint8(0))
	f.Add("k1=x\nk1=y", uint8(3))
	f.Fuzz(func(t *testing.T, src string, extra uint8) {
		labels := decodeLabels(src, extra)
		err := validateLabels(labels)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is %T, want *Error: %v", err, err)
			}
			if e.Status != 400 || e.Reason != "invalid" || !strings.HasPrefix(e.Message, "Invalid value for field '") || !strings.Contains(e.Message, "labels'") {
				t.Fatalf("error %+v, want 400 invalid naming the labels", e)
			}
		} else {
			checkAcceptedLabels(t, labels)
		}

		fp := labelFingerprint(labels, 1)
		if len(fp) != 8 {
			t.Fatalf("fingerprint of %q is %d bytes, want 8", labels, len(fp))
		}
		copied := make(map[string]string, len(labels))
		for k, v := range labels {
			copied[k] = v
		}
		if again := labelFingerprint(copied, 1); !bytes.Equal(fp, again) {
			t.Fatalf("fingerprint of %q not deterministic: %x then %x", labels, fp, again)
		}
		if next := labelFingerprint(labels, 2); len(next) != 8 || bytes.Equal(fp, next) {
			t.Fatalf("fingerprint of %q does not change with the generation: %x, %x", labels, fp, next)
		}
		if zero := labelFingerprint(labels, 0); len(zero) != 8 {
			t.Fatalf("fingerprint of %q at generation 0 is %d bytes", labels, len(zero))
		}
	})
}

func checkAcceptedLabels(t *testing.T, labels map[string]string) {
	t.Helper()
	if len(labels) > maxLabels {
		t.Fatalf("accepted %d labels, the limit is %d", len(labels), maxLabels)
	}
	allowed := func(r rune) bool {
		return unicode.IsLower(r) || unicode.IsDigit(r) || r == '_' || r == '-' ||
			(unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r))
	}
	for k, v := range labels {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			t.Fatalf("accepted label %q=%q that is not UTF-8", k, v)
		}
		if n := utf8.RuneCountInString(k); n < 1 || n > 63 {
			t.Fatalf("accepted key %q of %d characters", k, n)
		}
		if first, _ := utf8.DecodeRuneInString(k); !unicode.IsLower(first) && !unicode.Is(unicode.Lo, first) {
			t.Fatalf("accepted key %q that starts with neither a lowercase letter nor an international character (Lo)", k)
		}
		if n := utf8.RuneCountInString(v); n > 63 {
			t.Fatalf("accepted value %q of %d characters", v, n)
		}
		for _, s := range []string{k, v} {
			for _, r := range s {
				if !allowed(r) || unicode.IsUpper(r) || unicode.IsSpace(r) {
					t.Fatalf("accepted label %q=%q with character %q", k, v, r)
				}
			}
		}
	}
}
