// Package fieldsel is Google's partial response: the fields query parameter, which names
// the members a response keeps ("kind,items(name,labels),nextPageToken",
// "items/name", "items/*/operations(name)"). Parse reads a selection, Check holds it to
// the shape of the response (so that a member the response cannot have is refused, as
// Google's front end refuses it) and Apply trims a decoded JSON document.
package fieldsel

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Selection maps the selected members of an object to what is selected inside them; a nil
// Selection under a name selects the whole member. "*" selects every member. A selection
// applies to each element of a list.
type Selection map[string]Selection

// Error is a selection the response cannot have, in Google's words.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func invalid(what string) *Error { return &Error{"Invalid field selection " + what} }

// Parse reads a fields parameter:
//
//	selection = item { "," item }
//	item      = path [ "(" selection ")" ]
//	path      = name { "/" name }
//
// Spaces around names are ignored. A member selected twice keeps the larger selection.
func Parse(src string) (Selection, error) {
	p := &parser{src: src}
	sel, err := p.selection()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		return nil, invalid(src)
	}
	return sel, nil
}

type parser struct {
	src string
	pos int
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *parser) selection() (Selection, error) {
	sel := Selection{}
	for {
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		var sub Selection
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == '(' {
			p.pos++
			if sub, err = p.selection(); err != nil {
				return nil, err
			}
			if p.pos == len(p.src) || p.src[p.pos] != ')' {
				return nil, invalid(p.src)
			}
			p.pos++
			p.skipSpace()
		}
		sel.add(path, sub)
		if p.pos == len(p.src) || p.src[p.pos] != ',' {
			return sel, nil
		}
		p.pos++
	}
}

// path reads names joined by '/'.
func (p *parser) path() ([]string, error) {
	var path []string
	for {
		p.skipSpace()
		start := p.pos
		for p.pos < len(p.src) && isNameByte(p.src[p.pos]) {
			p.pos++
		}
		if p.pos == start {
			return nil, invalid(p.src)
		}
		path = append(path, p.src[start:p.pos])
		p.skipSpace()
		if p.pos == len(p.src) || p.src[p.pos] != '/' {
			return path, nil
		}
		p.pos++
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '*' || c == '-' || c == '.'
}

// add selects path, with sub inside its last member (nil: all of it).
func (s Selection) add(path []string, sub Selection) {
	name := path[0]
	cur, seen := s[name]
	if seen && cur == nil {
		return // already whole
	}
	if len(path) == 1 {
		if sub == nil {
			s[name] = nil
			return
		}
		if cur == nil {
			cur = Selection{}
		}
		for k, v := range sub {
			cur.merge(k, v)
		}
		s[name] = cur
		return
	}
	if cur == nil {
		cur = Selection{}
	}
	cur.add(path[1:], sub)
	s[name] = cur
}

func (s Selection) merge(name string, sub Selection) {
	cur, seen := s[name]
	switch {
	case seen && cur == nil:
	case sub == nil || !seen:
		s[name] = sub
	default:
		for k, v := range sub {
			cur.merge(k, v)
		}
	}
}

// Apply returns doc (decoded JSON) trimmed to the selection.
func (s Selection) Apply(doc any) any {
	switch d := doc.(type) {
	case []any:
		out := make([]any, len(d))
		for i, e := range d {
			out[i] = s.Apply(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(s))
		star, hasStar := s["*"]
		for k, v := range d {
			sub, ok := s[k]
			switch {
			case ok && hasStar:
				if sub != nil && star != nil {
					both := Selection{}
					for n, x := range sub {
						both.merge(n, x)
					}
					for n, x := range star {
						both.merge(n, x)
					}
					sub = both
				} else {
					sub = nil
				}
			case hasStar:
				sub = star
			case !ok:
				continue
			}
			if sub == nil {
				out[k] = v
			} else {
				out[k] = sub.Apply(v)
			}
		}
		return out
	}
	return doc
}

// Shape is what members a response can have: an object's members by name, or, for a map,
// the shape of every value (Any). A scalar has neither. Lists are the shape of their
// elements.
type Shape struct {
	Members map[string]*Shape
	Any     *Shape
}

// ShapeOf is the shape of the JSON a schema describes.
func ShapeOf(schema *openapi3.Schema) *Shape {
	return shapeOf(schema, map[*openapi3.Schema]*Shape{})
}

func shapeOf(s *openapi3.Schema, seen map[*openapi3.Schema]*Shape) *Shape {
	if s == nil {
		return &Shape{}
	}
	if sh, ok := seen[s]; ok {
		return sh
	}
	sh := &Shape{}
	seen[s] = sh
	if s.Items != nil && s.Items.Value != nil {
		*sh = *shapeOf(s.Items.Value, seen)
		return sh
	}
	for name, p := range s.Properties {
		if sh.Members == nil {
			sh.Members = map[string]*Shape{}
		}
		sh.Members[name] = shapeOf(p.Value, seen)
	}
	if ap := s.AdditionalProperties.Schema; ap != nil && ap.Value != nil {
		sh.Any = shapeOf(ap.Value, seen)
	}
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, r := range list {
			part := shapeOf(r.Value, seen)
			for name, m := range part.Members {
				if sh.Members == nil {
					sh.Members = map[string]*Shape{}
				}
				sh.Members[name] = m
			}
			if part.Any != nil {
				sh.Any = part.Any
			}
		}
	}
	return sh
}

// Check refuses a selection of a member that sh cannot have, or of members inside a
// scalar, naming the first such path (in sorted order, so that the message is stable).
func (s Selection) Check(sh *Shape) error {
	return s.check(sh, "")
}

func (s Selection) check(sh *Shape, prefix string) error {
	if sh == nil {
		return nil
	}
	names := make([]string, 0, len(s))
	for name := range s {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := prefix + name
		var member *Shape
		switch {
		case name == "*":
			if sh.Members == nil && sh.Any == nil {
				return invalid(path)
			}
			continue // every member: what is inside each is not checked
		case sh.Members[name] != nil:
			member = sh.Members[name]
		case sh.Any != nil:
			member = sh.Any
		default:
			return invalid(path)
		}
		if sub := s[name]; sub != nil {
			if err := sub.check(member, path+"/"); err != nil {
				return err
			}
		}
	}
	return nil
}

// String writes the selection back in the parameter's syntax, members sorted.
func (s Selection) String() string {
	names := make([]string, 0, len(s))
	for name := range s {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name)
		if sub := s[name]; sub != nil {
			fmt.Fprintf(&b, "(%s)", sub)
		}
	}
	return b.String()
}
