package compute

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/understudy-dev/understudy/specs"
)

// The schemas the discovery document defines and specs/compute.yaml serves in full.
var discoverySchemas = []string{"ForwardingRule", "Interconnect", "InterconnectAttachment", "InterconnectLocation",
	"InterconnectRemoteLocation", "InterconnectAttachmentGroup", "Operation", "InterconnectGroup"}

// enumExtras are values our spec adds to an enum of the discovery document, and why.
var enumExtras = map[string][]string{
	// The seed names MISSING_ZONE among the blocker types; the seed is the contract.
	"InterconnectAttachmentGroup.configured.availabilitySla.intendedSlaBlockers[].blockerType": {"MISSING_ZONE"},
}

// checkedFormats are the formats the spec must repeat (int64 and uint64 strings aside).
var checkedFormats = map[string]bool{"int32": true, "uint32": true, "float": true, "double": true, "byte": true}

// discoverySchema is the part of a discovery document's schema that the comparison reads.
type discoverySchema struct {
	Ref                  string                     `json:"$ref"`
	Type                 string                     `json:"type"`
	Format               string                     `json:"format"`
	Enum                 []string                   `json:"enum"`
	Items                *discoverySchema           `json:"items"`
	AdditionalProperties *discoverySchema           `json:"additionalProperties"`
	Properties           map[string]discoverySchema `json:"properties"`
}

// TestSpecHasEveryDiscoveryMember: every member of the served schemas, as the vendor's
// discovery document (google.golang.org/api's compute/v1/compute-api.json, the version in
// go.mod) defines it, is in specs/compute.yaml with the same type, format and enum values,
// down through nested objects, arrays and maps. A member dropped or mistyped fails here.
func TestSpecHasEveryDiscoveryMember(t *testing.T) {
	doc := readDiscovery(t)
	// The document as written: the embedded one of gen/compute drops schemas no path uses.
	text, _ := specs.YAML("compute")
	spec, err := openapi3.NewLoader().LoadFromData(text)
	if err != nil {
		t.Fatal(err)
	}
	c := comparison{doc: doc, seen: map[string]bool{}}
	members := 0
	for _, name := range discoverySchemas {
		d, ok := doc[name]
		if !ok {
			t.Fatalf("the discovery document has no schema %s", name)
		}
		ref, ok := spec.Components.Schemas[name]
		if !ok {
			t.Errorf("specs/compute.yaml has no schema %s", name)
			continue
		}
		members += len(d.Properties)
		c.object(name, d, ref.Value)
	}
	for _, p := range c.problems {
		t.Error(p)
	}
	t.Logf("%d/%d members of %d schemas present (%d members compared, nested ones included)", members-missing(c.problems), members, len(discoverySchemas), c.compared)
}

// missing counts the problems that are members absent from the spec.
func missing(problems []string) int {
	n := 0
	for _, p := range problems {
		if strings.HasSuffix(p, "not in specs/compute.yaml") && strings.Count(strings.SplitN(p, ":", 2)[0], ".") == 1 {
			n++
		}
	}
	return n
}

type comparison struct {
	doc      map[string]discoverySchema
	seen     map[string]bool
	problems []string
	compared int // members compared, nested ones included
}

func (c *comparison) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func (c *comparison) object(path string, d discoverySchema, ours *openapi3.Schema) {
	for _, name := range sortedKeys(d.Properties) {
		c.compared++
		prop := ours.Properties[name]
		if prop == nil || prop.Value == nil {
			c.errorf("%s.%s: in the discovery document, not in specs/compute.yaml", path, name)
			continue
		}
		c.value(path+"."+name, d.Properties[name], prop.Value)
	}
}

func (c *comparison) value(path string, d discoverySchema, ours *openapi3.Schema) {
	// A nullable member of a patch body wraps its schema in a one-element allOf.
	for len(ours.AllOf) == 1 && len(ours.Properties) == 0 && ours.AllOf[0].Value != nil {
		ours = ours.AllOf[0].Value
	}
	if d.Ref != "" {
		if !ours.Type.Is(openapi3.TypeObject) && ours.Type != nil {
			c.errorf("%s: an object (%s) in the discovery document, %v here", path, d.Ref, ours.Type)
			return
		}
		// One look at each pair of schemas: the documents nest their schemas in cycles.
		key := d.Ref + "@" + fmt.Sprintf("%p", ours)
		if !c.seen[key] {
			c.seen[key] = true
			c.object(path, c.doc[d.Ref], ours)
		}
		return
	}
	if d.Type == "any" {
		return
	}
	if !ours.Type.Is(d.Type) {
		c.errorf("%s: type %s in the discovery document, %v here", path, d.Type, ours.Type)
		return
	}
	switch {
	case d.Type == "string" && (d.Format == "int64" || d.Format == "uint64"):
		// A 64-bit integer as a decimal string: the spec says so with a pattern of digits.
		if !strings.Contains(ours.Pattern, "[0-9]") {
			c.errorf("%s: a %s as a string in the discovery document; here without a pattern of digits", path, d.Format)
		}
	case checkedFormats[d.Format] && d.Format != ours.Format:
		c.errorf("%s: format %s in the discovery document, %q here", path, d.Format, ours.Format)
	}
	if len(d.Enum) > 0 {
		var got []string
		for _, v := range ours.Enum {
			got = append(got, fmt.Sprint(v))
		}
		for _, v := range d.Enum {
			if !slices.Contains(got, v) {
				c.errorf("%s: enum value %s of the discovery document is missing", path, v)
			}
		}
		for _, v := range got {
			if !slices.Contains(d.Enum, v) && !slices.Contains(enumExtras[path], v) {
				c.errorf("%s: enum value %s is not in the discovery document", path, v)
			}
		}
	}
	switch {
	case d.Items != nil:
		if ours.Items == nil || ours.Items.Value == nil {
			c.errorf("%s: an array without items", path)
			return
		}
		c.value(path+"[]", *d.Items, ours.Items.Value)
	case d.AdditionalProperties != nil && d.AdditionalProperties.Type == "any":
		if has := ours.AdditionalProperties.Has; has != nil && !*has {
			c.errorf("%s: a map of any values in the discovery document, no additional members here", path)
		}
	case d.AdditionalProperties != nil:
		ap := ours.AdditionalProperties.Schema
		if ap == nil || ap.Value == nil {
			c.errorf("%s: a map in the discovery document, without additionalProperties here", path)
			return
		}
		c.value(path+"{}", *d.AdditionalProperties, ap.Value)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readDiscovery reads the schemas of the compute v1 discovery document shipped in the
// google.golang.org/api module the project depends on (go mod download puts it in the
// module cache). Not finding it is a failure, not a skip: this test guards the spec.
func readDiscovery(t *testing.T) map[string]discoverySchema {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "google.golang.org/api").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("locating google.golang.org/api (go mod download fetches it): %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "compute", "v1", "compute-api.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schemas map[string]discoverySchema `json:"schemas"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Schemas
}
