// Package gcefilter is the compute API's list filter: AIP-160 comparisons (=, !=, <, <=,
// >, >=, and : for has) and the older eq and ne regular-expression forms, over any field of
// a resource's JSON form, nested fields (intent.availabilitySla) and map keys
// (labels.env), combined with AND, OR and parentheses.
//
// Parse reads the syntax; Check holds the field paths and values to a Go wire type (the
// generated type a list returns), so that a field the resource does not have, or a value
// its field cannot hold, is refused rather than silently matching nothing; Match and
// MatchValue evaluate the filter against one resource.
package gcefilter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Filter is a parsed list filter.
type Filter struct {
	root *node
	cmps []*node // every comparison, for Check
}

// Error says in plain words what is wrong with a filter.
type Error struct{ Reason string }

func (e *Error) Error() string { return e.Reason }

func errorf(format string, args ...any) *Error { return &Error{fmt.Sprintf(format, args...)} }

type nodeOp int

const (
	opCmp nodeOp = iota
	opAnd
	opOr
)

// node is an AND or an OR of terms, or one comparison.
type node struct {
	op    nodeOp
	terms []*node // of opAnd and opOr

	// a comparison (opCmp)
	field         string   // as written
	path          []string // field split at '.'
	cmp           string   // the operator
	value         string   // the value, quotes and escapes removed
	re            *regexp.Regexp
	parenthesized bool // alone in its own parentheses
	kind          kind // of the field, once checked (kindUnknown before)
}

// MatchValue reports whether v, a wire value (a generated type), passes the filter; it is
// judged on v's JSON form. A nil filter passes everything.
func (f *Filter) MatchValue(v any) (bool, error) {
	if f == nil {
		return true, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false, err
	}
	var doc any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return false, err
	}
	return f.Match(doc), nil
}

// Match reports whether doc, a resource decoded from JSON with numbers as json.Number,
// passes the filter. A nil filter passes everything.
func (f *Filter) Match(doc any) bool {
	if f == nil {
		return true
	}
	return f.root.match(doc)
}

func (n *node) match(doc any) bool {
	switch n.op {
	case opAnd:
		for _, t := range n.terms {
			if !t.match(doc) {
				return false
			}
		}
		return true
	case opOr:
		for _, t := range n.terms {
			if t.match(doc) {
				return true
			}
		}
		return false
	}
	vals := collect(doc, n.path, nil)
	if len(vals) == 0 && n.cmp != ":" {
		// An absent scalar reads as its zero value, as a resource's unset members do; it
		// has nothing, though (mtu:* is false when mtu is not set).
		switch n.kind {
		case kindString:
			vals = []any{""}
		case kindNumber:
			vals = []any{json.Number("0")}
		case kindBool:
			vals = []any{false}
		}
	}
	switch n.cmp {
	case "!=":
		return !anyOf(vals, n.equal)
	case "ne":
		return !anyOf(vals, n.matchRE)
	case "eq":
		return anyOf(vals, n.matchRE)
	case "=":
		return anyOf(vals, n.equal)
	case ":":
		return anyOf(vals, n.has)
	}
	return anyOf(vals, n.order)
}

func anyOf(vals []any, f func(any) bool) bool {
	for _, v := range vals {
		if f(v) {
			return true
		}
	}
	return false
}

// collect appends the values at path in doc: a list on the way fans out to each of its
// elements, as a filter on a repeated field matches when any element does.
func collect(doc any, path []string, out []any) []any {
	if l, ok := doc.([]any); ok {
		for _, e := range l {
			out = collect(e, path, out)
		}
		return out
	}
	if len(path) == 0 {
		if doc != nil {
			out = append(out, doc)
		}
		return out
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return out
	}
	v, ok := m[path[0]]
	if !ok {
		return out
	}
	return collect(v, path[1:], out)
}

// equal compares a value with the literal in the value's own type.
func (n *node) equal(v any) bool {
	switch v := v.(type) {
	case string:
		return v == n.value
	case bool:
		return strings.EqualFold(n.value, strconv.FormatBool(v))
	case json.Number:
		a, err1 := strconv.ParseFloat(string(v), 64)
		b, err2 := strconv.ParseFloat(n.value, 64)
		return err1 == nil && err2 == nil && a == b
	}
	return false
}

// has is the : operator: "*" is presence; on a map, the key; on a string, a substring;
// on a number or a boolean, equality.
func (n *node) has(v any) bool {
	if n.value == "*" {
		switch v := v.(type) {
		case string:
			return v != ""
		case map[string]any:
			return len(v) > 0
		}
		return true
	}
	switch v := v.(type) {
	case map[string]any:
		_, ok := v[n.value]
		return ok
	case string:
		return strings.Contains(v, n.value)
	}
	return n.equal(v)
}

// order is <, <=, > and >=: numerically when both sides are numbers (also a number in a
// string, as int64 members are written), else as strings, which orders RFC 3339 times.
func (n *node) order(v any) bool {
	var c int
	s, ok := scalarText(v)
	if !ok {
		return false
	}
	a, err1 := strconv.ParseFloat(s, 64)
	b, err2 := strconv.ParseFloat(n.value, 64)
	switch {
	case err1 == nil && err2 == nil:
		c = cmpFloat(a, b)
	case isNumber(v):
		return false // a number against a word
	default:
		c = strings.Compare(s, n.value)
	}
	switch n.cmp {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0 // ">="
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func isNumber(v any) bool { _, ok := v.(json.Number); return ok }

func (n *node) matchRE(v any) bool {
	s, ok := scalarText(v)
	return ok && n.re.MatchString(s)
}

// scalarText is a scalar as text: a string as is, a number as written, a boolean as true
// or false; false for an object or a list.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return string(v), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}
