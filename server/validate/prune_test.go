package validate

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestForRequests: responses go (but 200 with keepOK), and so does every component nothing
// kept refers to, directly or through another component; security schemes stay.
func TestForRequests(t *testing.T) {
	in := `{"openapi":"3.0.3","paths":{"/x":{"parameters":[{"$ref":"#/components/parameters/P"}],
	  "post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/In"}}}},
	    "responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Out"}}}},"default":{"$ref":"#/components/responses/Err"}}}}},
	"components":{"schemas":{"In":{"properties":{"a":{"$ref":"#/components/schemas/A~1b"}}},"A/b":{"type":"string"},
	    "Out":{"properties":{"o":{"$ref":"#/components/schemas/OutPart"}}},"OutPart":{"type":"string"},"Unused":{"example":{"$ref":"#/components/schemas/Out"}},
	    "E":{"type":"object"}},
	  "parameters":{"P":{"name":"p","in":"query","schema":{"type":"string"}},"Q":{"name":"q","in":"query"}},
	  "responses":{"Err":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/E"}}}}},
	  "securitySchemes":{"k":{"type":"http","scheme":"bearer"}}}}`
	for _, c := range []struct {
		keepOK bool
		want   string
	}{
		{false, `{"openapi":"3.0.3","paths":{"/x":{"parameters":[{"$ref":"#/components/parameters/P"}],
		  "post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/In"}}}}}}},
		"components":{"schemas":{"In":{"properties":{"a":{"$ref":"#/components/schemas/A~1b"}}},"A/b":{"type":"string"}},
		  "parameters":{"P":{"name":"p","in":"query","schema":{"type":"string"}}},"responses":{},
		  "securitySchemes":{"k":{"type":"http","scheme":"bearer"}}}}`},
		{true, `{"openapi":"3.0.3","paths":{"/x":{"parameters":[{"$ref":"#/components/parameters/P"}],
		  "post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/In"}}}},
		    "responses":{"200":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Out"}}}}}}}},
		"components":{"schemas":{"In":{"properties":{"a":{"$ref":"#/components/schemas/A~1b"}}},"A/b":{"type":"string"},
		    "Out":{"properties":{"o":{"$ref":"#/components/schemas/OutPart"}}},"OutPart":{"type":"string"}},
		  "parameters":{"P":{"name":"p","in":"query","schema":{"type":"string"}}},"responses":{},
		  "securitySchemes":{"k":{"type":"http","scheme":"bearer"}}}}`},
	} {
		got, err := forRequests([]byte(in), c.keepOK)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("keepOK %v: %v in %s", c.keepOK, err, got)
		}
		if err := json.Unmarshal([]byte(c.want), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("keepOK %v:\ngot  %s\nwant %s", c.keepOK, got, c.want)
		}
	}
	if _, err := forRequests([]byte(`{"paths":{"/x":`), false); err == nil {
		t.Error("a truncated document was accepted")
	}
}
