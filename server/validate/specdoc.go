package validate

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-json-experiment/json/jsontext"
)

// Load parses an API's embedded OpenAPI document (its JSON, the generated GetSpecJSON) for
// checking requests: without the members that only document it (withoutDocs), without the
// responses and the components only they use (forRequests), and without its servers,
// because requests are matched by our router, never by host. Loading the specs is most of
// understudy's start-up, and kin-openapi never parses what is dropped before. Each call
// parses the document anew: server.New loads each spec once and hands it to its API.
func Load(api string, raw func() ([]byte, error)) (*openapi3.T, error) {
	return load(api, raw, false)
}

// LoadWithOK is Load keeping each operation's 200 response (and what it uses), for an API
// that reads the shape of its answers before New keeps only what checking requests reads
// (requestsOnly).
func LoadWithOK(api string, raw func() ([]byte, error)) (*openapi3.T, error) {
	return load(api, raw, true)
}

func load(api string, raw func() ([]byte, error), keepOK bool) (*openapi3.T, error) {
	doc, err := loadLean(raw, keepOK)
	if err != nil {
		return nil, fmt.Errorf("%s: embedded spec: %w", api, err)
	}
	doc.Servers = nil
	return doc, nil
}

// requestsOnly drops from a loaded document what checking requests never reads: every
// operation's responses, and the components by name. References were resolved when the
// document was loaded, so the schemas, parameters and bodies that requests use stay
// reachable from their operations; what only responses used is left to the collector.
// Security schemes stay: the security check looks them up by name.
//
// The parsed documents are most of the pointers the garbage collector marks in every
// collection, whatever the state holds, so every collection is shorter without the
// responses' half. The full document, responses included, is still what the generated
// GetSpec returns, and what the tests check answers against.
func requestsOnly(doc *openapi3.T) {
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			op.Responses = openapi3.NewResponses()
		}
	}
	if c := doc.Components; c != nil {
		doc.Components = &openapi3.Components{SecuritySchemes: c.SecuritySchemes}
	}
}

func loadLean(raw func() ([]byte, error), keepOK bool) (*openapi3.T, error) {
	full, err := raw()
	if err != nil {
		return nil, err
	}
	lean, err := withoutDocs(full)
	if err != nil {
		return nil, err
	}
	if lean, err = forRequests(lean, keepOK); err != nil {
		return nil, err
	}
	return openapi3.NewLoader().LoadFromData(lean)
}

// withoutDocs copies an OpenAPI document (JSON) without the members that only document it:
// string "description" and "summary" members, and "example" and "examples", of the
// document's own objects. Names chosen by the spec's author are kept whatever they are (a
// property called "description" is a schema, not a description), and so is everything
// inside values (default, enum, const, security requirements, extensions). Validation reads
// none of what goes: TestCheckMatchesKin compares validation with the lean document against
// kin-openapi with the full one.
func withoutDocs(full []byte) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(full))
	var out bytes.Buffer
	out.Grow(len(full) / 2)
	enc := jsontext.NewEncoder(&out)
	if err := copyDoc(dec, enc, docObject); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// docContext is what an object in the document is.
type docContext int

const (
	docObject docContext = iota // an object of the document's own structure
	nameMap                     // an object whose member names are chosen by the author
	literal                     // a value: copied as it is
)

// nameMaps are the members whose value maps author-chosen names to document objects.
var nameMaps = map[string]bool{
	"properties": true, "patternProperties": true, "definitions": true, "$defs": true, "dependentSchemas": true,
	"schemas": true, "responses": true, "parameters": true, "headers": true, "requestBodies": true,
	"securitySchemes": true, "links": true, "callbacks": true, "paths": true, "webhooks": true, "pathItems": true,
	"content": true, "encoding": true, "mapping": true, "variables": true, "scopes": true,
}

func childContext(ctx docContext, name string) docContext {
	switch {
	case ctx == literal:
		return literal
	case ctx == nameMap:
		return docObject
	case nameMaps[name]:
		return nameMap
	case name == "default" || name == "enum" || name == "const" || name == "security" || strings.HasPrefix(name, "x-"):
		return literal
	}
	return docObject
}

func copyDoc(dec *jsontext.Decoder, enc *jsontext.Encoder, ctx docContext) error {
	switch kind := dec.PeekKind(); {
	case ctx == literal || kind != '{' && kind != '[':
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return enc.WriteValue(v)
	case kind == '[':
		if ctx == nameMap {
			ctx = docObject // e.g. an operation's parameters: a list of parameter objects
		}
		if err := copyToken(dec, enc); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			if err := copyDoc(dec, enc, ctx); err != nil {
				return err
			}
		}
		return copyToken(dec, enc)
	}
	if err := copyToken(dec, enc); err != nil { // {
		return err
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := name.String()
		if ctx == docObject && (key == "example" || key == "examples" ||
			(key == "description" || key == "summary") && dec.PeekKind() == '"') {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if err := enc.WriteToken(name); err != nil {
			return err
		}
		if err := copyDoc(dec, enc, childContext(ctx, key)); err != nil {
			return err
		}
	}
	return copyToken(dec, enc) // }
}

func copyToken(dec *jsontext.Decoder, enc *jsontext.Encoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	return enc.WriteToken(tok)
}
