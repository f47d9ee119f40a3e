package validate

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestWithoutDocs: documentation members of the document's own objects go; names chosen by
// the author and everything inside values stay.
func TestWithoutDocs(t *testing.T) {
	in := `{"info":{"title":"t","description":"d","version":"1"},
	"paths":{"/x":{"summary":"s","description":"d","get":{"summary":"s","parameters":[{"name":"p","in":"query","description":"d","example":"e","schema":{"type":"string"}}],
	  "responses":{"200":{"description":"ok","content":{"application/json":{"examples":{"a":{"value":1}},"schema":{"$ref":"#/components/schemas/S"}}}}}}}},
	"components":{"schemas":{"S":{"type":"object","description":"d","example":{"description":"x"},
	  "properties":{"description":{"type":"string","description":"the description property"},"example":{"type":"string"},"summary":{"type":"object","properties":{}}},
	  "default":{"description":"kept"},"x-note":{"description":"kept"},"enum":[{"summary":"kept"}]},
	  "description":{"type":"string"}},
	  "securitySchemes":{"description":{"type":"http","scheme":"bearer","description":"d"}}},
	"security":[{"example":[]}]}`
	want := `{"info":{"title":"t","version":"1"},
	"paths":{"/x":{"get":{"parameters":[{"name":"p","in":"query","schema":{"type":"string"}}],
	  "responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/S"}}}}}}}},
	"components":{"schemas":{"S":{"type":"object",
	  "properties":{"description":{"type":"string"},"example":{"type":"string"},"summary":{"type":"object","properties":{}}},
	  "default":{"description":"kept"},"x-note":{"description":"kept"},"enum":[{"summary":"kept"}]},
	  "description":{"type":"string"}},
	  "securitySchemes":{"description":{"type":"http","scheme":"bearer"}}},
	"security":[{"example":[]}]}`
	got, err := withoutDocs([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := withoutDocs([]byte(`{"paths":{"/x":`)); err == nil {
		t.Error("a truncated document was accepted")
	}
}
