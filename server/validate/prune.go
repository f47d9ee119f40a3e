package validate

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// forRequests copies an OpenAPI document (JSON) with only what checking requests reads,
// so that kin-openapi never parses the rest: every operation's responses go (but its 200
// response, with keepOK, for an API that reads the shape of its answers), and so does every
// component that nothing kept refers to, directly or through other components. Security
// schemes stay whole: the security requirements name them, they are not referred to.
// Responses and the schemas only they use are half of each spec, and parsing the specs is
// most of the start-up.
func forRequests(doc []byte, keepOK bool) ([]byte, error) {
	members, err := objectMembers(doc)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Grow(len(doc))
	enc := jsontext.NewEncoder(&out)
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	var components []member
	var refs []string // what the kept members refer to, not yet followed
	for _, m := range members {
		switch m.name {
		case "components":
			if components, err = objectMembers(m.value); err != nil {
				return nil, err
			}
			continue
		case "paths":
			if m.value, err = pathsForRequests(m.value, keepOK); err != nil {
				return nil, err
			}
		}
		if refs, err = appendRefs(refs, m.value); err != nil {
			return nil, err
		}
		if err := writeMember(enc, m.name, m.value); err != nil {
			return nil, err
		}
	}
	if components == nil {
		if err := enc.WriteToken(jsontext.EndObject); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}

	// Every component by "kind/name", as references name them.
	byRef := map[string]jsontext.Value{}
	for _, kind := range components {
		if kind.name == "securitySchemes" {
			continue
		}
		named, err := objectMembers(kind.value)
		if err != nil {
			return nil, err
		}
		for _, c := range named {
			byRef[kind.name+"/"+c.name] = c.value
		}
	}
	used := map[string]bool{}
	for len(refs) > 0 {
		ref := refs[len(refs)-1]
		refs = refs[:len(refs)-1]
		if used[ref] {
			continue
		}
		used[ref] = true
		if v, ok := byRef[ref]; ok {
			if refs, err = appendRefs(refs, v); err != nil {
				return nil, err
			}
		}
	}

	if err := enc.WriteToken(jsontext.String("components")); err != nil {
		return nil, err
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	for _, kind := range components {
		if kind.name == "securitySchemes" {
			if err := writeMember(enc, kind.name, kind.value); err != nil {
				return nil, err
			}
			continue
		}
		named, _ := objectMembers(kind.value) // read above
		if err := enc.WriteToken(jsontext.String(kind.name)); err != nil {
			return nil, err
		}
		if err := enc.WriteToken(jsontext.BeginObject); err != nil {
			return nil, err
		}
		for _, c := range named {
			if used[kind.name+"/"+c.name] {
				if err := writeMember(enc, c.name, c.value); err != nil {
					return nil, err
				}
			}
		}
		if err := enc.WriteToken(jsontext.EndObject); err != nil {
			return nil, err
		}
	}
	for _, tok := range []jsontext.Token{jsontext.EndObject, jsontext.EndObject} {
		if err := enc.WriteToken(tok); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// pathsForRequests is the document's paths without the operations' responses (but 200,
// with keepOK).
func pathsForRequests(paths jsontext.Value, keepOK bool) (jsontext.Value, error) {
	items, err := objectMembers(paths)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := jsontext.NewEncoder(&out)
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	for _, item := range items {
		fields, err := objectMembers(item.value)
		if err != nil {
			return nil, err
		}
		for i, f := range fields {
			if !operationMembers[f.name] {
				continue
			}
			if fields[i].value, err = withoutResponses(f.value, keepOK); err != nil {
				return nil, err
			}
		}
		if err := writeObject(enc, item.name, fields); err != nil {
			return nil, err
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// operationMembers are the members of a path item that are operations.
var operationMembers = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}

func withoutResponses(op jsontext.Value, keepOK bool) (jsontext.Value, error) {
	fields, err := objectMembers(op)
	if err != nil {
		return nil, err
	}
	kept := fields[:0]
	for _, f := range fields {
		if f.name == "responses" {
			if !keepOK {
				continue
			}
			statuses, err := objectMembers(f.value)
			if err != nil {
				return nil, err
			}
			var out bytes.Buffer
			enc := jsontext.NewEncoder(&out)
			var ok []member
			for _, s := range statuses {
				if s.name == "200" {
					ok = append(ok, s)
				}
			}
			if err := writeObject(enc, "", ok); err != nil {
				return nil, err
			}
			f.value = out.Bytes()
		}
		kept = append(kept, f)
	}
	var out bytes.Buffer
	if err := writeObject(jsontext.NewEncoder(&out), "", kept); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// member is one member of a JSON object, its value as written.
type member struct {
	name  string
	value jsontext.Value
}

// objectMembers are the members of a JSON object, in order, their values slices of obj.
func objectMembers(obj []byte) ([]member, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(obj), jsontext.AllowDuplicateNames(true))
	if _, err := dec.ReadToken(); err != nil { // {
		return nil, err
	}
	var ms []member
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		m := member{name: name.String()}
		start := dec.InputOffset()
		if err := dec.SkipValue(); err != nil {
			return nil, err
		}
		m.value = bytes.TrimLeft(obj[start:dec.InputOffset()], " \t\r\n:")
		ms = append(ms, m)
	}
	_, err := dec.ReadToken() // }
	return ms, err
}

// writeObject writes ms as an object, as the value of member name ("": at the top).
func writeObject(enc *jsontext.Encoder, name string, ms []member) error {
	if name != "" {
		if err := enc.WriteToken(jsontext.String(name)); err != nil {
			return err
		}
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, m := range ms {
		if err := writeMember(enc, m.name, m.value); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

func writeMember(enc *jsontext.Encoder, name string, v jsontext.Value) error {
	if err := enc.WriteToken(jsontext.String(name)); err != nil {
		return err
	}
	return enc.WriteValue(v)
}

// appendRefs appends to refs the components v refers to ("#/components/schemas/S" as
// "schemas/S"). A "$ref" inside a literal (an example, an enum) counts too: it can only
// keep more than needed.
func appendRefs(refs []string, v jsontext.Value) ([]string, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true))
	isRef := false
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return refs, err
		}
		kind, str := tok.Kind(), ""
		if kind == '"' {
			str = tok.String()
		}
		if isRef {
			if r, ok := strings.CutPrefix(str, "#/components/"); ok {
				group, name, _ := strings.Cut(r, "/")
				refs = append(refs, group+"/"+refName.Replace(name))
			}
		}
		depth := dec.StackDepth()
		if depth == 0 {
			return refs, nil
		}
		// A string just read is a member name when its object then holds an odd count.
		in, n := dec.StackIndex(depth)
		isRef = in == '{' && n%2 == 1 && str == "$ref"
	}
}

// refName undoes JSON Pointer's escapes in a reference's last segment.
var refName = strings.NewReplacer("~1", "/", "~0", "~")
