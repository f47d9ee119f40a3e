package validate

import (
	"encoding/json"
	"reflect"
	"testing"

	computegen "github.com/understudy-dev/understudy/gen/compute"
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

// TestRequestsOnly: the document a validator keeps has what checking a request reads (an
// insert's body schema, its parameters, the security schemes) and none of the responses;
// the generated full document is untouched.
func TestRequestsOnly(t *testing.T) {
	doc, err := LoadWithOK("compute", computegen.GetSpecJSON)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Paths.Find("/compute/v1/projects/{project}/global/forwardingRules").Post.Responses.Status(200) == nil {
		t.Fatal("Load dropped the responses, which an API may read before New")
	}
	if _, err := New(doc, Options{}); err != nil {
		t.Fatal(err)
	}
	insert := doc.Paths.Find("/compute/v1/projects/{project}/global/forwardingRules").Post
	body := insert.RequestBody.Value.Content.Get("application/json").Schema.Value
	if body == nil || body.Properties["portRange"] == nil || body.Properties["portRange"].Value == nil {
		t.Fatalf("the insert's body schema lost its properties: %+v", body)
	}
	if len(insert.Parameters) == 0 || insert.Parameters[0].Value == nil || insert.Parameters[0].Value.Schema.Value == nil {
		t.Errorf("the insert's parameters were not kept resolved")
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Responses != nil && op.Responses.Status(200) != nil {
				t.Errorf("%s %s kept its responses", method, path)
			}
		}
	}
	if c := doc.Components; c.Schemas != nil || c.Responses != nil || c.Parameters != nil || len(c.SecuritySchemes) == 0 {
		t.Errorf("components: %d schemas, %d responses, %d parameters, %d security schemes; want only the security schemes",
			len(c.Schemas), len(c.Responses), len(c.Parameters), len(c.SecuritySchemes))
	}
	full, err := computegen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	if full.Paths.Find("/compute/v1/projects/{project}/global/forwardingRules").Post.Responses.Status(200) == nil || len(full.Components.Schemas) == 0 {
		t.Error("the generated full document lost its responses")
	}
}
