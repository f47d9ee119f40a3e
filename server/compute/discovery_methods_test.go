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

// The resources whose every method specs/compute.yaml serves: ten, 63 methods in the
// discovery document of the google.golang.org/api version in go.mod.
var discoveryResources = []string{"globalForwardingRules", "forwardingRules", "interconnects", "interconnectAttachments",
	"interconnectLocations", "interconnectRemoteLocations", "interconnectAttachmentGroups", "interconnectGroups", "globalOperations", "regionOperations"}

// parameterExtras are parameters the spec declares beyond a method's own, and why.
var parameterExtras = map[string]string{
	// The real lists take it (the vendor's reference for interconnectAttachmentGroups.list
	// names it), though this version of the document leaves it out of these methods; a list
	// here is never partial, so it is accepted and changes nothing.
	"returnPartialSuccess": "list",
}

// discoveryMethod is the part of a discovery document's method the comparison reads.
type discoveryMethod struct {
	ID         string                        `json:"id"`
	Path       string                        `json:"path"`
	HTTPMethod string                        `json:"httpMethod"`
	Parameters map[string]discoveryParameter `json:"parameters"`
	Request    *struct {
		Ref string `json:"$ref"`
	} `json:"request"`
	Response *struct {
		Ref string `json:"$ref"`
	} `json:"response"`
}

type discoveryParameter struct {
	Location string   `json:"location"`
	Type     string   `json:"type"`
	Format   string   `json:"format"`
	Required bool     `json:"required"`
	Enum     []string `json:"enum"`
}

// TestSpecHasEveryDiscoveryMethod: every method of the ten resources is an operation of
// specs/compute.yaml with the discovery document's id (operationId), HTTP method and path
// (under /compute/v1/), and every parameter of the method is declared where the document
// puts it (path or query), required as there, with its type, format and enum values. A
// parameter the operation declares beyond the method's own must be one of the document's
// system parameters (which every method takes), so that none is made up. The counts are
// logged: 63/63 methods.
func TestSpecHasEveryDiscoveryMethod(t *testing.T) {
	doc := readDiscoveryMethods(t)
	text, _ := specs.YAML("compute")
	spec, err := openapi3.NewLoader().LoadFromData(text)
	if err != nil {
		t.Fatal(err)
	}
	type served struct {
		path, method string
		op           *openapi3.Operation
		params       openapi3.Parameters
	}
	ops := map[string]served{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			ops[op.OperationID] = served{path, method, op, append(slices.Clone(item.Parameters), op.Parameters...)}
		}
	}
	schemas := readDiscovery(t)
	bodies := comparison{doc: schemas, seen: map[string]bool{}}
	total, present, params := 0, 0, 0
	for _, res := range discoveryResources {
		r, ok := doc.Resources[res]
		if !ok {
			t.Errorf("the discovery document has no resource %s", res)
			continue
		}
		for _, name := range sortedKeys(r.Methods) {
			m := r.Methods[name]
			total++
			s, ok := ops[strings.TrimPrefix(m.ID, "compute.")] // ids are "compute.<resource>.<method>"
			if !ok {
				t.Errorf("%s: in the discovery document, not an operation of specs/compute.yaml", m.ID)
				continue
			}
			present++
			if want := "/compute/v1/" + m.Path; s.path != want {
				t.Errorf("%s: path %s, the discovery document's is %s", m.ID, s.path, want)
			}
			if s.method != strings.ToUpper(m.HTTPMethod) {
				t.Errorf("%s: %s, the discovery document's is %s", m.ID, s.method, m.HTTPMethod)
			}
			if hasBody := s.op.RequestBody != nil; hasBody != (m.Request != nil) {
				t.Errorf("%s: request body %v, in the discovery document %v", m.ID, hasBody, m.Request != nil)
			} else if hasBody {
				// The body's members, down through nested objects, as the document's schema.
				if mt := s.op.RequestBody.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					bodies.value(m.Request.Ref, discoverySchema{Ref: m.Request.Ref}, mt.Schema.Value)
				} else {
					t.Errorf("%s: request body without a JSON schema", m.ID)
				}
			}
			if m.Response != nil {
				ok := s.op.Responses.Status(200)
				if ok == nil || ok.Value.Content.Get("application/json") == nil {
					t.Errorf("%s: no 200 JSON response", m.ID)
				} else {
					bodies.value(m.Response.Ref, discoverySchema{Ref: m.Response.Ref}, ok.Value.Content.Get("application/json").Schema.Value)
				}
			}
			for _, pname := range sortedKeys(m.Parameters) {
				params++
				for _, p := range compareParameter(m.ID, pname, m.Parameters[pname], s.params.GetByInAndName(m.Parameters[pname].Location, pname)) {
					t.Error(p)
				}
			}
			for _, p := range s.params {
				extra, ok := parameterExtras[p.Value.Name]
				if ok && strings.HasSuffix(strings.ToLower(name), extra) {
					continue
				}
				if _, own := m.Parameters[p.Value.Name]; !own && !slices.Contains(doc.systemParameters(), p.Value.Name) {
					t.Errorf("%s: declares %s %q, which the discovery document's method does not take", m.ID, p.Value.In, p.Value.Name)
				}
			}
		}
	}
	for _, p := range bodies.problems {
		t.Error(p)
	}
	if present != total || total == 0 {
		t.Errorf("%d/%d methods of the discovery document in the spec", present, total)
	}
	t.Logf("%d/%d methods of %d resources, %d parameters compared; %d members of their request and response bodies compared", present, total, len(discoveryResources), params, bodies.compared)
}

// compareParameter compares one parameter of a method with the spec's (nil: not declared).
func compareParameter(method, name string, d discoveryParameter, p *openapi3.Parameter) []string {
	if p == nil {
		return []string{fmt.Sprintf("%s: parameter %s (%s) of the discovery document is not declared", method, name, d.Location)}
	}
	var problems []string
	if p.Required != d.Required {
		problems = append(problems, fmt.Sprintf("%s: parameter %s required %v, in the discovery document %v", method, name, p.Required, d.Required))
	}
	if p.Schema == nil || p.Schema.Value == nil {
		return append(problems, fmt.Sprintf("%s: parameter %s has no schema", method, name))
	}
	sch := p.Schema.Value
	if !sch.Type.Is(d.Type) {
		problems = append(problems, fmt.Sprintf("%s: parameter %s of type %v, in the discovery document %s", method, name, sch.Type, d.Type))
	}
	if checkedFormats[d.Format] && sch.Format != d.Format {
		problems = append(problems, fmt.Sprintf("%s: parameter %s of format %q, in the discovery document %s", method, name, sch.Format, d.Format))
	}
	for _, v := range d.Enum {
		if !slices.ContainsFunc(sch.Enum, func(e any) bool { return fmt.Sprint(e) == v }) {
			problems = append(problems, fmt.Sprintf("%s: parameter %s lacks the enum value %s", method, name, v))
		}
	}
	return problems
}

type discoveryMethods struct {
	Parameters map[string]discoveryParameter `json:"parameters"`
	Resources  map[string]struct {
		Methods map[string]discoveryMethod `json:"methods"`
	} `json:"resources"`
}

// systemParameters are the document's top-level parameters, which every method takes.
func (d discoveryMethods) systemParameters() []string { return sortedKeys(d.Parameters) }

func readDiscoveryMethods(t *testing.T) discoveryMethods {
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
	var doc discoveryMethods
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
