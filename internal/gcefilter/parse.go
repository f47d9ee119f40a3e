package gcefilter

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Parse parses a list filter; a blank one is nil, no filter. The grammar is AIP-160's as
// the compute API takes it, with the older eq and ne:
//
//	filter     = expr EOF
//	expr       = factor { [ "AND" ] factor }   terms side by side are ANDed too
//	factor     = term { "OR" term }            OR binds tighter than AND, as in AIP-160
//	term       = "(" expr ")" | comparison
//	comparison = field op value
//	field      = name { "." name }             name: letters, digits, "_" and "-"
//	op         = "=" | "!=" | "<" | "<=" | ">" | ">=" | ":" | "eq" | "ne"
//	value      = '"' { char | "\" char } '"' | "'" { char | "\" char } "'" | bare
//
// A bare value runs to the next space, parenthesis or quote. As the real service says of
// its two syntaxes, eq and ne cannot be mixed with the others, take no OR, and when there
// are several, each sits in its own parentheses. Positions in errors count bytes from 1 in
// src as sent.
func Parse(src string) (*Filter, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	p := &parser{src: src}
	root, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) { // expr stops only at the end or at a ')'
		return nil, errorf("Unbalanced parenthesis: the ')' at position %d has no matching '('.", p.pos+1)
	}
	if p.regex {
		switch {
		case p.literal:
			return nil, errorf("The eq and ne operators cannot be combined with =, !=, <, <=, >, >= or : in one filter.")
		case p.or:
			return nil, errorf("OR cannot be used with eq and ne; expressions in parentheses side by side must all hold, as in (name eq a.*) (name ne .*b).")
		case len(p.cmps) > 1:
			for _, c := range p.cmps {
				if !c.parenthesized {
					return nil, errorf("Several eq and ne expressions must each be in parentheses, as in (name eq a.*) (name ne .*b).")
				}
			}
		}
	}
	return &Filter{root: root, cmps: p.cmps}, nil
}

type parser struct {
	src string
	pos int // next byte to read

	cmps           []*node
	regex, literal bool // eq or ne seen; another operator seen
	or             bool
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) && isSpace(p.src[p.pos]) {
		p.pos++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// word returns the bare word at pos (not consumed): the bytes up to a space, a
// parenthesis, a quote or an operator character.
func (p *parser) word() string {
	end := p.pos
	for end < len(p.src) && !strings.ContainsRune(" \t\n\r()\"'=!<>:", rune(p.src[end])) {
		end++
	}
	return p.src[p.pos:end]
}

// expr parses factors ANDed together, up to the end or a ')'.
func (p *parser) expr() (*node, error) {
	and := &node{op: opAnd}
	for {
		p.skipSpace()
		if p.pos == len(p.src) || p.src[p.pos] == ')' {
			break
		}
		if len(and.terms) > 0 {
			if _, err := p.connective("AND"); err != nil {
				return nil, err
			}
		}
		f, err := p.factor()
		if err != nil {
			return nil, err
		}
		and.terms = append(and.terms, f)
	}
	switch len(and.terms) {
	case 0: // only at the very start or just inside '(': callers report it
		return nil, nil
	case 1:
		return and.terms[0], nil
	}
	return and, nil
}

// connective consumes the keyword kw (AND, OR) if it is next, and makes sure an expression
// follows it.
func (p *parser) connective(kw string) (found bool, err error) {
	if p.word() != kw {
		return false, nil
	}
	at := p.pos
	p.pos += len(kw)
	p.skipSpace()
	if p.pos == len(p.src) || p.src[p.pos] == ')' {
		return false, errorf("%s at position %d has no expression after it.", kw, at+1)
	}
	return true, nil
}

// factor parses terms ORed together.
func (p *parser) factor() (*node, error) {
	t, err := p.term()
	if err != nil {
		return nil, err
	}
	or := &node{op: opOr, terms: []*node{t}}
	for {
		p.skipSpace()
		if found, err := p.connective("OR"); err != nil {
			return nil, err
		} else if !found {
			break
		}
		p.or = true
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		or.terms = append(or.terms, t)
	}
	if len(or.terms) == 1 {
		return t, nil
	}
	return or, nil
}

// term parses a parenthesized expression or a comparison.
func (p *parser) term() (*node, error) {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '(' {
		at := p.pos
		p.pos++
		inner, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.pos == len(p.src) {
			return nil, errorf("Unbalanced parenthesis: the '(' at position %d is not closed.", at+1)
		}
		if inner == nil {
			return nil, errorf("Empty parentheses at position %d.", at+1)
		}
		p.pos++ // the ')' that expr stopped at
		if inner.op == opCmp {
			inner.parenthesized = true
		}
		return inner, nil
	}
	return p.comparison()
}

// fieldName matches one name of a field path: a member, or a map key such as a label key.
var fieldName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// comparison parses a field, an operator and a value.
func (p *parser) comparison() (*node, error) {
	at := p.pos
	field := p.word()
	switch {
	case field == "AND" || field == "OR":
		return nil, errorf("%s at position %d has no expression before it.", field, at+1)
	case field == "NOT":
		return nil, errorf("NOT at position %d is not supported: use != or ne.", at+1)
	case field == "":
		if p.src[at] == '"' || p.src[at] == '\'' {
			if _, err := p.quoted(); err != nil {
				return nil, err
			}
			return nil, errorf("Expected a field name at position %d, found a quoted string.", at+1)
		}
		return nil, errorf("Expected a field name at position %d, found '%c'.", at+1, p.src[at])
	}
	path := strings.Split(field, ".")
	for _, name := range path {
		if !fieldName.MatchString(name) || strings.HasPrefix(field, "-") {
			return nil, errorf("Invalid field name '%s' at position %d: expected names such as labels.env, joined by '.'.", field, at+1)
		}
	}
	p.pos += len(field)

	p.skipSpace()
	opAt := p.pos
	op := p.word()
	if op == "" {
		for _, sym := range []string{"!=", "<=", ">=", "=", "<", ">", ":", "!"} {
			if strings.HasPrefix(p.src[p.pos:], sym) {
				op = sym
				break
			}
		}
	}
	switch op {
	case "=", "!=", "<", "<=", ">", ">=", ":", "eq", "ne":
	case "":
		return nil, errorf("Expected an operator after '%s' at position %d: =, !=, <, <=, >, >=, :, eq or ne.", field, opAt+1)
	default:
		return nil, errorf("Unsupported operator '%s' at position %d: the operator must be =, !=, <, <=, >, >=, :, eq or ne.", op, opAt+1)
	}
	p.pos += len(op)

	p.skipSpace()
	valueAt := p.pos
	var raw, value string
	switch {
	case p.pos == len(p.src) || p.src[p.pos] == '(' || p.src[p.pos] == ')':
		return nil, errorf("Expected a value after '%s' at position %d.", op, valueAt+1)
	case p.src[p.pos] == '"' || p.src[p.pos] == '\'':
		var err error
		if raw, err = p.quoted(); err != nil {
			return nil, err
		}
		value = unescape(raw)
	default:
		end := p.pos
		for end < len(p.src) && !strings.ContainsRune(" \t\n\r()\"'", rune(p.src[end])) {
			end++
		}
		raw, value = p.src[p.pos:end], p.src[p.pos:end]
		p.pos = end
		if (op == "eq" || op == "ne") && end < len(p.src) && p.src[end] == '(' {
			// "name eq fr-(a|b)": the expression goes on past where a bare value stops.
			return nil, errorf("The regular expression at position %d goes on with '(': quote it, as in %s %s \"%s(...)\".", valueAt+1, field, op, raw)
		}
	}

	c := &node{op: opCmp, field: field, path: path, cmp: op, value: value}
	if op == "eq" || op == "ne" {
		p.regex = true
		// The expression as written, escapes and all, is RE2's to read; \" and \' are
		// RE2 escapes for the quotes themselves. It is compiled alone first so that an
		// error quotes it as written.
		re, err := regexp.Compile(raw)
		if err == nil {
			re, err = regexp.Compile(`\A(?:` + raw + `)\z`)
		}
		if err != nil {
			return nil, errorf("Invalid regular expression '%s' at position %d: %s.", raw, valueAt+1, regexpReason(err))
		}
		c.re = re
	} else {
		p.literal = true
	}
	p.cmps = append(p.cmps, c)
	return c, nil
}

// quoted reads the string that starts at pos with " or ' and returns what is between the
// quotes as written; a backslash keeps the next byte from closing it.
func (p *parser) quoted() (string, error) {
	at, q := p.pos, p.src[p.pos]
	for i := at + 1; i < len(p.src); i++ {
		switch p.src[i] {
		case '\\':
			i++
		case q:
			p.pos = i + 1
			return p.src[at+1 : i], nil
		}
	}
	return "", errorf("Unbalanced quote: the %c at position %d is not closed.", q, at+1)
}

// unescape turns \x into x.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// regexpReason is what is wrong with an expression regexp refused, from its error's fields:
// the kind of mistake and the part of the expression it is in (missing closing ): `(a`).
func regexpReason(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
	}
	return err.Error()
}
