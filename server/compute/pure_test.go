package compute

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestValidateLabels(t *testing.T) {
	many := map[string]string{}
	for i := 0; i < 65; i++ {
		many[fmt.Sprintf("k%d", i)] = ""
	}
	tests := []struct {
		name    string
		labels  map[string]string
		message string // "" when valid
	}{
		{"empty set", map[string]string{}, ""},
		{"typical", map[string]string{"env": "prod", "team_a": "web-1", "empty": ""}, ""},
		{"international lowercase", map[string]string{"équipe": "café"}, ""},
		{"key starting with an international character", map[string]string{"日本": "東京"}, ""},
		{"63-character key and value", map[string]string{"k" + strings.Repeat("a", 62): strings.Repeat("v", 63)}, ""},
		{"uppercase key", map[string]string{"Env": "prod"}, badKey("Env")},
		{"key starting with a digit", map[string]string{"1env": "x"}, badKey("1env")},
		{"key starting with a dash", map[string]string{"-env": "x"}, badKey("-env")},
		{"empty key", map[string]string{"": "x"}, badKey("")},
		{"64-character key", map[string]string{"k" + strings.Repeat("a", 63): ""}, badKey("k" + strings.Repeat("a", 63))},
		{"uppercase value", map[string]string{"env": "Prod"}, badValue("Prod")},
		{"value with a dot", map[string]string{"env": "a.b"}, badValue("a.b")},
		{"64-character value", map[string]string{"env": strings.Repeat("v", 64)}, badValue(strings.Repeat("v", 64))},
		{"value with a space", map[string]string{"env": "a b"}, badValue("a b")},
		{"invalid UTF-8", map[string]string{"env": "\xff"}, badValue("\xff")},
		{"65 labels", many, "Invalid value for field 'labels': a resource may have at most 64 labels, 65 were given."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateLabels(tt.labels)
			var e *Error
			if tt.message == "" {
				if err != nil {
					t.Fatalf("got %v, want valid", err)
				}
				return
			}
			if !errors.As(err, &e) || e.Status != 400 || e.Reason != "invalid" || e.Message != tt.message {
				t.Fatalf("got %#v, want 400 invalid: %q", err, tt.message)
			}
		})
	}
}

// badKey and badValue are the real service's messages for a label key or value it refuses
// (googleapis/google-cloud-node-core#314, oap-project/cloudtik#14).
func badKey(k string) string {
	return "Invalid value for field 'resource.labels': ''. Label key '" + k + "' violates format constraints. The key must start with a lowercase character, can only contain lowercase letters, numeric characters, underscores and dashes. The key can be at most 63 characters long. International characters are allowed."
}

func badValue(v string) string {
	return "Invalid value for field 'resource.labels': ''. Label value '" + v + "' violates format constraints. The value can only contain lowercase letters, numeric characters, underscores and dashes. The value can be at most 63 characters long. International characters are allowed."
}

func fingerprintString(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestLabelFingerprint(t *testing.T) {
	if got := fingerprintString(labelFingerprint(nil, 0)); got != "42WmSpB8rSM=" {
		t.Errorf("no labels: %s, want the real service's 42WmSpB8rSM=", got)
	}
	a := fingerprintString(labelFingerprint(map[string]string{"env": "prod"}, 1))
	b := fingerprintString(labelFingerprint(map[string]string{"env": "prod"}, 2))
	c := fingerprintString(labelFingerprint(map[string]string{"env": "dev"}, 1))
	empty1 := fingerprintString(labelFingerprint(map[string]string{}, 1))
	if a == b || a == c || empty1 == "42WmSpB8rSM=" {
		t.Errorf("fingerprints must change with generation and labels: %s %s %s %s", a, b, c, empty1)
	}
	if a != fingerprintString(labelFingerprint(map[string]string{"env": "prod"}, 1)) {
		t.Error("not deterministic")
	}
	// The encoding cannot be fooled by moving characters between keys and values.
	x := fingerprintString(labelFingerprint(map[string]string{"a": "b=c"}, 1))
	y := fingerprintString(labelFingerprint(map[string]string{"a=b": "c"}, 1))
	if x == y {
		t.Error("ambiguous encoding")
	}
	if len(labelFingerprint(map[string]string{"k": "v"}, 9)) != 8 {
		t.Error("fingerprints are 8 bytes")
	}
	// A change moves the fingerprint on from the one before: the same labels set again give
	// a new one, and so does going back to labels had before.
	prod := map[string]string{"env": "prod"}
	first := labelFingerprint(prod, 0)
	again := nextLabelFingerprint(first, prod)
	dev := nextLabelFingerprint(again, map[string]string{"env": "dev"})
	back := nextLabelFingerprint(dev, prod)
	if seen := map[string]bool{string(first): true, string(again): true, string(dev): true, string(back): true}; len(seen) != 4 || len(back) != 8 {
		t.Errorf("label changes gave fingerprints %x %x %x %x, want four different ones of 8 bytes", first, again, dev, back)
	}
	if !bytes.Equal(back, nextLabelFingerprint(dev, map[string]string{"env": "prod"})) {
		t.Error("next fingerprint not deterministic")
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "fr-web", "a1", strings.Repeat("a", 63)} {
		if err := checkName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for name, reason := range map[string]string{"": "required", "Web": "invalid", "1a": "invalid", "a-": "invalid", strings.Repeat("a", 64): "invalid", "a_b": "invalid"} {
		var e *Error
		if err := checkName(name); !errors.As(err, &e) || e.Reason != reason || e.Location != "resource.name" {
			t.Errorf("%q: %v, want %s at resource.name", name, err, reason)
		}
	}
	var e *Error
	_ = errors.As(checkName("Web"), &e)
	if e.Message != "Invalid value for field 'resource.name': 'Web'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'" {
		t.Errorf("message = %q", e.Message)
	}
}

// TestValidNameMatchesRegex: validName accepts exactly what ^nameRegex$ does, on random
// strings over the name alphabet and its neighbours, of lengths around the limits.
func TestValidNameMatchesRegex(t *testing.T) {
	re := regexp.MustCompile(`^` + nameRegex + `$`)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "az09-_AZ.é\xff "
	for range 200000 {
		b := make([]byte, rng.IntN(66))
		for i := range b {
			if rng.IntN(8) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = "abcdefghijklmnopqrstuvwxyz0123456789-"[rng.IntN(37)]
			}
		}
		if got, want := validName(string(b)), re.MatchString(string(b)); got != want {
			t.Fatalf("%q: validName %v, regexp %v", b, got, want)
		}
	}
}

func TestListQueryAndPaging(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	items := []listItem{{name: "c", created: base, seq: 1}, {name: "a", created: base.Add(time.Second), seq: 2}, {name: "b", created: base.Add(2 * time.Second), seq: 3}, {name: "d", created: base.Add(2 * time.Second), seq: 4}}
	// The wire form the filter sees is a resource with just a name.
	type named struct {
		Name string `json:"name"`
	}
	render := func(i int) named { return named{items[i].name} }
	names := func(page []named) string {
		var s []string
		for _, n := range page {
			s = append(s, n.Name)
		}
		return strings.Join(s, ",")
	}
	walk := func(filter, orderBy string, max int) (pages []string) {
		token := ""
		for i := 0; i < 10; i++ {
			q, err := parseListQuery[named](filter, token, orderBy, &max)
			if err != nil {
				t.Fatal(err)
			}
			out, next, err := page(items, q, render)
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, names(out))
			if next == "" {
				return pages
			}
			token = next
		}
		t.Fatal("paging does not end")
		return nil
	}
	tests := []struct {
		filter, orderBy string
		max             int
		want            string
	}{
		{"", "", 0, "[a,b,c,d]"},
		{"", "", 3, "[a,b,c d]"},
		{"", "creationTimestamp desc", 2, "[d,b a,c]"},
		{`name = "b"`, "", 0, "[b]"},
		{"name eq c", "", 0, "[c]"},
		{`(name != "a")`, "", 2, "[b,c d]"},
		{"name ne a", "", 5, "[b,c,d]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(walk(tt.filter, tt.orderBy, tt.max)); got != tt.want {
			t.Errorf("filter %q orderBy %q max %d: %s, want %s", tt.filter, tt.orderBy, tt.max, got, tt.want)
		}
	}
	// A token of a name-ordered list, to be refused by a list in the other order.
	one := 1
	q, _ := parseListQuery[named]("", "", "", &one)
	_, byName, _ := page(items, q, render)
	for _, bad := range []struct{ filter, pageToken, orderBy string }{
		{"colour = red", "", ""}, {"", "%%%", ""}, {"", "", "id"},
		{"", "garbage", ""}, // decodes, but is no token of ours
		{"", base64.RawURLEncoding.EncodeToString([]byte("a")), ""},
		{"", byName, "creationTimestamp desc"},
		{"name ne a", "", "name"}, {"name ne a", "", "creationTimestamp desc"}, // a filter takes no order
	} {
		if _, err := parseListQuery[named](bad.filter, bad.pageToken, bad.orderBy, nil); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}
