package accounts

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// A seed entry is either the body of the request that makes the resource (what a person
// writes) or the resource's object as a retrieve returns it, with its "object" member (what
// a state export writes), beside a few members the API keeps of it that its object does
// not say. The object's history (id, created, ...) is taken as the entry gives it; what
// follows from the rest is computed again, as the API computes it.

// isObjectEntry says whether an entry's body is an object of the given type.
func isObjectEntry(body map[string]any, object string) bool {
	return body["object"] == object
}

// checkObject checks an object entry as the spec describes the object (schema, a
// component of the API's spec) and decodes it into out; a member the object does not have
// is refused. On error it names the member at fault.
func (s *Server) checkObject(schema string, body map[string]any, out any) (string, error) {
	schemas, err := s.objectSchemas()
	if err != nil {
		return "", err
	}
	ref := schemas[schema]
	if ref == nil || ref.Value == nil {
		return "", fmt.Errorf("the spec has no schema %s", schema)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	var value any
	if err := json.Unmarshal(raw, &value); err != nil {
		return "", err
	}
	if err := ref.Value.VisitJSON(value); err != nil {
		var se *openapi3.SchemaError
		if errors.As(err, &se) {
			return strings.Join(se.JSONPointer(), "."), errors.New(se.Reason)
		}
		return "", err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return "", err
	}
	// What the object type kept of the entry, written again, holds every member the entry
	// gives, unless the object has no such member.
	again, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	var known any
	if err := json.Unmarshal(again, &known); err != nil {
		return "", err
	}
	if field, ok := unknownMember(value, known, ""); ok {
		return field, fmt.Errorf("unknown field: %s has no such member", body["object"])
	}
	return "", nil
}

// unknownMember finds a member of given (a JSON value) that known (the same value as an
// object type keeps it) lacks; a member given as null may be absent.
func unknownMember(given, known any, path string) (string, bool) {
	switch g := given.(type) {
	case map[string]any:
		k, _ := known.(map[string]any)
		names := make([]string, 0, len(g))
		for name := range g {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			at := name
			if path != "" {
				at = path + "." + name
			}
			kv, ok := k[name]
			if !ok {
				if g[name] == nil {
					continue
				}
				return at, true
			}
			if field, bad := unknownMember(g[name], kv, at); bad {
				return field, true
			}
		}
	case []any:
		k, _ := known.([]any)
		for i, v := range g {
			at := fmt.Sprintf("%s.%d", path, i)
			if i >= len(k) {
				return at, true
			}
			if field, bad := unknownMember(v, k[i], at); bad {
				return field, true
			}
		}
	}
	return "", false
}

// objectSchemasOf are the components of the API's whole spec, responses' objects included,
// which checking requests does not keep.
func objectSchemasOf() (openapi3.Schemas, error) {
	doc, err := gen.GetSpec()
	if err != nil {
		return nil, err
	}
	return doc.Components.Schemas, nil
}

// takeString takes a string member out of an entry's body ("" when absent); a member of
// another type is an error naming it.
func takeString(body map[string]any, name string) (string, error) {
	v, ok := take(body, name)
	if !ok || v == nil {
		return "", nil
	}
	s, isString := v.(string)
	if !isString {
		return "", fmt.Errorf("want a string, got %v", v)
	}
	return s, nil
}

// takeTime takes a time member (RFC 3339) out of an entry's body: the zero time when absent.
func takeTime(body map[string]any, name string) (string, error) {
	s, err := takeString(body, name)
	if err != nil || s == "" {
		return "", err
	}
	t, err := timefmt.Parse(s)
	if err != nil {
		return "", err
	}
	return timestamp(t), nil
}

// entryJSON decodes an entry whose named members (fields of named, by their json tags) sit
// beside the inline members of its body, as the YAML of a seed writes them.
func entryJSON(data []byte, named any, body *map[string]any) error {
	if err := json.Unmarshal(data, named); err != nil {
		return err
	}
	var all map[string]any
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	t := reflect.TypeOf(named).Elem()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			delete(all, name)
		}
	}
	*body = all
	return nil
}

// entryMarshalJSON writes an entry's named members (named, a struct with json tags) and
// the inline members of its body as one object.
func entryMarshalJSON(named any, body map[string]any) ([]byte, error) {
	raw, err := json.Marshal(named)
	if err != nil {
		return nil, err
	}
	all := map[string]any{}
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	for k, v := range body {
		if _, dup := all[k]; !dup {
			all[k] = v
		}
	}
	return json.Marshal(all)
}
