package compute

import (
	"fmt"
	"regexp"
	"strings"
)

// nameFilter is a parsed list filter: AND and OR over comparisons of the name. A
// comparison is = or != with a literal (AIP-160 syntax) or eq or ne with an RE2 expression
// that must match the whole name (the older syntax).
type nameFilter struct {
	op    filterOp
	terms []*nameFilter // of filterAnd and filterOr

	// a comparison (filterCmp)
	negate        bool           // != or ne
	literal       string         // = and !=
	re            *regexp.Regexp // eq and ne, anchored at both ends
	parenthesized bool           // alone in its own parentheses
}

type filterOp int

const (
	filterCmp filterOp = iota
	filterAnd
	filterOr
)

// match reports whether a resource named name passes the filter.
func (f *nameFilter) match(name string) bool {
	switch f.op {
	case filterAnd:
		for _, t := range f.terms {
			if !t.match(name) {
				return false
			}
		}
		return true
	case filterOr:
		for _, t := range f.terms {
			if t.match(name) {
				return true
			}
		}
		return false
	}
	var equal bool
	if f.re != nil {
		equal = f.re.MatchString(name)
	} else {
		equal = name == f.literal
	}
	return equal != f.negate
}

// filterError says in plain words what is wrong with a filter.
type filterError struct{ reason string }

func (e *filterError) Error() string { return e.reason }

func filterErrorf(format string, args ...any) *filterError {
	return &filterError{fmt.Sprintf(format, args...)}
}

// parseFilter parses a list filter; a blank one is nil, no filter. The grammar is
// AIP-160's with the older eq and ne, cut down to the name:
//
//	filter     = expr EOF
//	expr       = factor { [ "AND" ] factor }   terms side by side are ANDed too
//	factor     = term { "OR" term }            OR binds tighter than AND, as in AIP-160
//	term       = "(" expr ")" | comparison
//	comparison = "name" ( "=" | "!=" | "eq" | "ne" ) value
//	value      = '"' { char | "\" char } '"' | "'" { char | "\" char } "'" | bare
//
// A bare value runs to the next space, parenthesis or quote. As the real service says of
// its two syntaxes, eq and ne cannot be mixed with = and !=, take no OR, and when there are
// several, each sits in its own parentheses. Nesting is bounded by the parameter's
// maxLength (2048) in the spec.
func parseFilter(src string) (*nameFilter, error) {
	p := &filterParser{src: src}
	f, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.src) { // expr stops only at the end or at a ')'
		return nil, filterErrorf("Unbalanced parenthesis: the ')' at position %d has no matching '('.", p.pos+1)
	}
	if p.regex {
		switch {
		case p.literal:
			return nil, filterErrorf("The eq and ne operators cannot be combined with = or != in one filter.")
		case p.or:
			return nil, filterErrorf("OR cannot be used with eq and ne; expressions in parentheses side by side must all hold, as in (name eq a.*) (name ne .*b).")
		case len(p.cmps) > 1:
			for _, c := range p.cmps {
				if !c.parenthesized {
					return nil, filterErrorf("Several eq and ne expressions must each be in parentheses, as in (name eq a.*) (name ne .*b).")
				}
			}
		}
	}
	return f, nil
}

type filterParser struct {
	src string
	pos int // next byte to read

	cmps           []*nameFilter
	regex, literal bool // eq or ne seen; = or != seen
	or             bool
}

func (p *filterParser) skipSpace() {
	for p.pos < len(p.src) && isFilterSpace(p.src[p.pos]) {
		p.pos++
	}
}

func isFilterSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// word returns the bare word at pos (not consumed): the bytes up to a space, a
// parenthesis, a quote or an operator character.
func (p *filterParser) word() string {
	end := p.pos
	for end < len(p.src) && !strings.ContainsRune(" \t\n\r()\"'=!<>:", rune(p.src[end])) {
		end++
	}
	return p.src[p.pos:end]
}

// expr parses factors ANDed together, up to the end or a ')'.
func (p *filterParser) expr() (*nameFilter, error) {
	and := &nameFilter{op: filterAnd}
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
func (p *filterParser) connective(kw string) (found bool, err error) {
	if p.word() != kw {
		return false, nil
	}
	at := p.pos
	p.pos += len(kw)
	p.skipSpace()
	if p.pos == len(p.src) || p.src[p.pos] == ')' {
		return false, filterErrorf("%s at position %d has no expression after it.", kw, at+1)
	}
	return true, nil
}

// factor parses terms ORed together.
func (p *filterParser) factor() (*nameFilter, error) {
	t, err := p.term()
	if err != nil {
		return nil, err
	}
	or := &nameFilter{op: filterOr, terms: []*nameFilter{t}}
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
func (p *filterParser) term() (*nameFilter, error) {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '(' {
		at := p.pos
		p.pos++
		inner, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.pos == len(p.src) {
			return nil, filterErrorf("Unbalanced parenthesis: the '(' at position %d is not closed.", at+1)
		}
		if inner == nil {
			return nil, filterErrorf("Empty parentheses at position %d.", at+1)
		}
		p.pos++ // the ')' that expr stopped at
		if inner.op == filterCmp {
			inner.parenthesized = true
		}
		return inner, nil
	}
	return p.comparison()
}

// comparison parses name, an operator and a value.
func (p *filterParser) comparison() (*nameFilter, error) {
	at := p.pos
	field := p.word()
	switch {
	case field == "AND" || field == "OR":
		return nil, filterErrorf("%s at position %d has no expression before it.", field, at+1)
	case field == "NOT":
		return nil, filterErrorf("NOT at position %d is not supported: use != or ne.", at+1)
	case field == "":
		if p.src[at] == '"' || p.src[at] == '\'' {
			if _, err := p.quoted(); err != nil {
				return nil, err
			}
			return nil, filterErrorf("Expected a field name at position %d, found a quoted string.", at+1)
		}
		return nil, filterErrorf("Expected a field name at position %d, found '%c'.", at+1, p.src[at])
	case field != "name":
		return nil, filterErrorf("Unknown field '%s': understudy filters on name only.", field)
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
	case "=", "!=", "eq", "ne":
	case "":
		return nil, filterErrorf("Expected an operator after 'name' at position %d: =, !=, eq or ne.", opAt+1)
	default:
		return nil, filterErrorf("Unsupported operator '%s' at position %d: understudy takes =, !=, eq and ne.", op, opAt+1)
	}
	p.pos += len(op)

	p.skipSpace()
	valueAt := p.pos
	var raw, value string
	switch {
	case p.pos == len(p.src) || p.src[p.pos] == '(' || p.src[p.pos] == ')':
		return nil, filterErrorf("Expected a value after '%s' at position %d.", op, valueAt+1)
	case p.src[p.pos] == '"' || p.src[p.pos] == '\'':
		var err error
		if raw, err = p.quoted(); err != nil {
			return nil, err
		}
		value = unescapeFilterString(raw)
	default:
		end := p.pos
		for end < len(p.src) && !strings.ContainsRune(" \t\n\r()\"'", rune(p.src[end])) {
			end++
		}
		raw, value = p.src[p.pos:end], p.src[p.pos:end]
		p.pos = end
		if (op == "eq" || op == "ne") && end < len(p.src) && p.src[end] == '(' {
			// "name eq fr-(a|b)": the expression goes on past where a bare value stops.
			return nil, filterErrorf("The regular expression at position %d goes on with '(': quote it, as in name %s \"%s(...)\".", valueAt+1, op, raw)
		}
	}

	c := &nameFilter{op: filterCmp, negate: op == "!=" || op == "ne"}
	if op == "eq" || op == "ne" {
		p.regex = true
		// The expression as written, escapes and all, is RE2's to read; \" and \' are
		// RE2 escapes for the quotes themselves.
		// It is compiled alone first so that an error quotes it as written.
		re, err := regexp.Compile(raw)
		if err == nil {
			re, err = regexp.Compile(`\A(?:` + raw + `)\z`)
		}
		if err != nil {
			return nil, filterErrorf("Invalid regular expression '%s' at position %d: %s.", raw, valueAt+1, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		c.re = re
	} else {
		p.literal = true
		c.literal = value
	}
	p.cmps = append(p.cmps, c)
	return c, nil
}

// quoted reads the string that starts at pos with " or ' and returns what is between the
// quotes as written; a backslash keeps the next byte from closing it.
func (p *filterParser) quoted() (string, error) {
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
	return "", filterErrorf("Unbalanced quote: the %c at position %d is not closed.", q, at+1)
}

// unescapeFilterString turns \x into x.
func unescapeFilterString(s string) string {
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
