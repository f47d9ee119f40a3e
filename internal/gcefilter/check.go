package gcefilter

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// kind is what a field holds, as far as comparing it goes.
type kind int

const (
	kindUnknown kind = iota // not checked, or a type with its own JSON form
	kindString
	kindNumber
	kindBool
	kindObject // a struct or a map: only : applies
)

// Check holds the filter to the resource type t (a generated wire type; pointers are
// followed): every field path must name a member of t's JSON form (a map takes any key,
// a list stands for each of its elements), = and the order operators need a scalar, a
// number field a number and a boolean one true or false. It also records each field's
// kind, so that Match reads an absent scalar as its zero value. A nil filter passes.
func (f *Filter) Check(t reflect.Type) error {
	if f == nil {
		return nil
	}
	for _, c := range f.cmps {
		k, err := resolve(t, c.path)
		if err != nil {
			return err
		}
		c.kind = k
		switch {
		case k == kindObject && c.cmp != ":":
			return errorf("The field '%s' is not a single value and cannot be compared with '%s': compare one of its members, as in labels.env = prod, or test it with ':'.", c.field, c.cmp)
		case k == kindBool && c.cmp != "=" && c.cmp != "!=" && c.cmp != ":" && c.cmp != "eq" && c.cmp != "ne":
			return errorf("The boolean field '%s' cannot be compared with '%s'.", c.field, c.cmp)
		case k == kindBool && (c.cmp == "=" || c.cmp == "!=") && !strings.EqualFold(c.value, "true") && !strings.EqualFold(c.value, "false"):
			return errorf("Invalid value '%s' for the boolean field '%s': expected true or false.", c.value, c.field)
		case k == kindNumber && c.cmp != "eq" && c.cmp != "ne" && c.value != "*":
			if _, err := strconv.ParseFloat(c.value, 64); err != nil {
				return errorf("Invalid value '%s' for the numeric field '%s': expected a number.", c.value, c.field)
			}
		}
	}
	return nil
}

var (
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// resolve follows path through t and says what the field holds.
func resolve(t reflect.Type, path []string) (kind, error) {
	for i := 0; ; i++ {
		t = elem(t)
		if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
			t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
			return kindUnknown, nil // its JSON form is its own: take any path in it
		}
		if i == len(path) {
			return kindOf(t), nil
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := jsonField(t, path[i])
			if !ok {
				return 0, errorf("Invalid list filter expression: unknown field '%s'.", strings.Join(path[:i+1], "."))
			}
			t = f
		case reflect.Map:
			t = t.Elem()
		case reflect.Interface:
			return kindUnknown, nil
		default:
			return 0, errorf("Invalid list filter expression: unknown field '%s'; '%s' has no members.", strings.Join(path[:i+1], "."), strings.Join(path[:i], "."))
		}
	}
}

// elem strips pointers and lists: a list's field stands for each of its elements.
func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t
}

func kindOf(t reflect.Type) kind {
	switch t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return kindNumber
	case reflect.Struct, reflect.Map:
		return kindObject
	}
	return kindUnknown
}

// jsonField is the type of t's member called name in JSON (embedded structs' members
// included; of two members of one name, the later one), found by walking t's fields: a
// filter names a few fields once per list request, so nothing is cached.
func jsonField(t reflect.Type, name string) (found reflect.Type, ok bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		member, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && member == "" {
			if et := elem(f.Type); et.Kind() == reflect.Struct {
				if ft, in := jsonField(et, name); in {
					found, ok = ft, true
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if member == "" {
			member = f.Name
		}
		if member == name {
			found, ok = f.Type, true
		}
	}
	return found, ok
}
