package validate

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestCheckSurrogates(t *testing.T) {
	for _, tt := range []struct {
		body string
		want string // the member named; "-" for no refusal
	}{
		{`{"display_name":"Jenny Rosen"}`, "-"},
		{`{"display_name":"caf\u00e9 \ud83d\ude00 \uD83D\uDE00"}`, "-"},
		{`{"display_name":"\\ud800 is text, not an escape"}`, "-"},
		{`{"display_name":"\\\ud83d\ude00"}`, "-"},
		{`{"display_name":"\ud800"}`, "display_name"},
		{`{"display_name":"\\\ud800"}`, "display_name"},
		{`{"display_name":"\udc00\ud800"}`, "display_name"},
		{`{"display_name":"\ud800\u0041"}`, "display_name"},
		{`{"display_name":"\ud800\ud800"}`, "display_name"},
		{`{"display_name":"x\ud83d"}`, "display_name"},
		{`{"properties":{"description":"ok","condition":"\uDFFF"}}`, "properties.condition"},
		{`{"use_case":{"account_onboarding":{"configurations":["recipient","\ud800"]}}}`, "use_case.account_onboarding.configurations.1"},
		{`{"a/b~c":"\ud800"}`, "a/b~c"},
		{`{"a":1,"a":"\ud800"}`, "a"},
		{`{"\ud800":1}`, ""}, // in a name: the object holding it
		{`"\ud800"`, ""},
		{`{bad "\ud800"}`, "-"},          // malformed first: the decoding says so
		{`{"a":"\ud800"} trailing`, "a"}, // the escape comes first
		{`{"a":"\ud8`, "-"},              // cut short: not an escape
	} {
		got := "-"
		if err := checkSurrogates([]byte(tt.body)); err != nil {
			got = err.Name
			if err.Status != 400 || err.In != "body" || err.Reason != reasonLoneSurrogate {
				t.Errorf("%s: %+v", tt.body, err)
			}
		}
		if got != tt.want {
			t.Errorf("%s: named %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestLoneSurrogateAgreesWithJSONText: over every string made of up to four pieces (escapes
// of each kind, escaped backslashes, plain text), loneSurrogate finds an escape exactly when
// jsontext, which refuses lone surrogates, refuses the string.
func TestLoneSurrogateAgreesWithJSONText(t *testing.T) {
	pieces := []string{`\ud800`, `\uDBFF`, `\udc00`, `\uDFFF`, `\u0041`, `\\`, `\"`, `a`, `\\u`, `\ud83d\ude00`, `\n`}
	var walk func(s string, depth int)
	n := 0
	walk = func(s string, depth int) {
		lit := `"` + s + `"`
		_, err := jsontext.AppendUnquote(nil, lit)
		if got, want := loneSurrogate([]byte(lit)) >= 0, err != nil; got != want {
			t.Fatalf("%s: loneSurrogate found one %v, jsontext refuses it %v (%v)", lit, got, want, err)
		}
		n++
		if depth == 4 {
			return
		}
		for _, p := range pieces {
			walk(s+p, depth+1)
		}
	}
	walk("", 0)
	t.Logf("%d strings", n)
}

// BenchmarkLoneSurrogate is the cost the check adds to every JSON body: one IndexByte for a
// body without a backslash, a short walk over the escapes of one with some.
func BenchmarkLoneSurrogate(b *testing.B) {
	const assignment = `{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","description":%s}}`
	for _, bc := range []struct{ name, body string }{
		{"no escapes", strings.Replace(assignment, "%s", `"Reader for the nightly export job of the billing team"`, 1)},
		{"escapes", strings.Replace(assignment, "%s", `"Reader for the \"nightly\" export job of the caf\u00e9 team \ud83d\ude00"`, 1)},
	} {
		data := []byte(bc.body)
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if loneSurrogate(data) >= 0 {
					b.Fatal("found one")
				}
			}
		})
	}
}
