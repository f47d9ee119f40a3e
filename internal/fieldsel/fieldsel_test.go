package fieldsel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

const doc = `{"kind":"compute#list","id":"x","nextPageToken":"t",
 "items":[{"name":"a","labels":{"env":"prod"},"intent":{"sla":"NO_SLA","n":1}},{"name":"b","description":"d"}],
 "scoped":{"regions/r1":{"ops":[{"name":"o1","status":"DONE"}]},"global":{"warning":{"code":"NO_RESULTS_ON_PAGE"}}}}`

func TestApply(t *testing.T) {
	for _, tt := range []struct{ fields, want string }{
		{"kind", `{"kind":"compute#list"}`},
		{"kind,nextPageToken", `{"kind":"compute#list","nextPageToken":"t"}`},
		{"items(name,labels)", `{"items":[{"labels":{"env":"prod"},"name":"a"},{"name":"b"}]}`},
		{"items/name", `{"items":[{"name":"a"},{"name":"b"}]}`},
		{"items/intent/sla", `{"items":[{"intent":{"sla":"NO_SLA"}},{}]}`},
		{"items(intent(n)),items/name", `{"items":[{"intent":{"n":1},"name":"a"},{"name":"b"}]}`},
		{"items/name,items", `{"items":[{"intent":{"n":1,"sla":"NO_SLA"},"labels":{"env":"prod"},"name":"a"},{"description":"d","name":"b"}]}`},
		{"scoped/*/ops(name)", `{"scoped":{"global":{},"regions/r1":{"ops":[{"name":"o1"}]}}}`},
		{"scoped/*/warning/code", `{"scoped":{"global":{"warning":{"code":"NO_RESULTS_ON_PAGE"}},"regions/r1":{}}}`},
		{" kind , items( name ) ", `{"items":[{"name":"a"},{"name":"b"}],"kind":"compute#list"}`},
		{"missing", `{}`},
	} {
		t.Run(tt.fields, func(t *testing.T) {
			sel, err := Parse(tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			var d any
			if err := json.Unmarshal([]byte(doc), &d); err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(sel.Apply(d))
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, src := range []string{"", ",", "a,", "a(", "a(b", "a()", "a)", "a//b", "/a", "a(b))", "a b", "a;b"} {
		if sel, err := Parse(src); err == nil {
			t.Errorf("%q: accepted as %s", src, sel)
		} else if !strings.HasPrefix(err.Error(), "Invalid field selection") {
			t.Errorf("%q: %v", src, err)
		}
	}
}

func TestCheck(t *testing.T) {
	loader := openapi3.NewLoader()
	d, err := loader.LoadFromData([]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},
 "components":{"schemas":{
  "List":{"type":"object","properties":{"kind":{"type":"string"},"items":{"type":"array","items":{"$ref":"#/components/schemas/Item"}},
    "scoped":{"type":"object","additionalProperties":{"type":"object","properties":{"ops":{"type":"array","items":{"$ref":"#/components/schemas/Item"}}}}}}},
  "Item":{"type":"object","properties":{"name":{"type":"string"},"labels":{"type":"object","additionalProperties":{"type":"string"}},
    "child":{"$ref":"#/components/schemas/Item"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	sh := ShapeOf(d.Components.Schemas["List"].Value)
	for _, tt := range []struct{ fields, err string }{
		{"kind,items(name,labels/env,child/child/name)", ""},
		{"scoped/regions/ops", ""}, // "regions" is a map key, "ops" a member of its value
		{"scoped/*/ops(name)", ""},
		{"*", ""},
		{"colour", "Invalid field selection colour"},
		{"items(name,colour)", "Invalid field selection items/colour"},
		{"kind/x", "Invalid field selection kind/x"},
		{"items/name/*", "Invalid field selection items/name/*"},
	} {
		sel, err := Parse(tt.fields)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := sel.Check(sh); err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("%s: got %q, want %q", tt.fields, got, tt.err)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts it writes back to an equal selection.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"kind,items(name,labels)", "items/*/ops(name)", "a(b(c,d),e/f)", "a,a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		sel, err := Parse(src)
		if err != nil {
			return
		}
		again, err := Parse(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Fatalf("%q -> %q -> %q, %v", src, sel, again, err)
		}
	})
}
