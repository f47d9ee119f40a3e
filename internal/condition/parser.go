package condition

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxLength is the longest condition, in bytes, that Parse accepts.
const MaxLength = 8192

// MaxDepth is how deeply parentheses and NOT may nest. "!(" and "NOT ("
// count as a single level.
const MaxDepth = 64

// Error is the error Parse returns. Offset is the byte offset in the input
// where the problem was found; Message says what was expected and what was
// found, and ends with "at offset N".
type Error struct {
	Offset  int
	Message string
}

// Error returns the message.
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	return e.Message
}

// errAt builds an *Error at offset off.
func errAt(off int, format string, args ...any) *Error {
	return &Error{Offset: off, Message: fmt.Sprintf(format, args...) + " at offset " + strconv.Itoa(off)}
}

// Parse parses and validates a condition expression. On error it returns
// an *Error; it never panics.
func Parse(src string) (*Expr, error) {
	if len(src) > MaxLength {
		return nil, errAt(MaxLength, "condition is %d bytes, longer than the maximum of %d; the excess starts", len(src), MaxLength)
	}
	if strings.Trim(src, " \t\r\n") == "" {
		return nil, errAt(0, "condition is empty")
	}
	p := &parser{lex: lexer{src: src}}
	e, err := p.parse()
	if err != nil {
		return nil, err
	}
	return e, nil
}

// parser is a recursive-descent parser with one token of lookahead.
type parser struct {
	lex   lexer
	tok   token
	depth int
}

func (p *parser) parse() (*Expr, *Error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	e, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	switch p.tok.kind {
	case tokEOF:
		return e, nil
	case tokRParen:
		return nil, errAt(p.tok.pos, "unexpected ')' with no matching '('")
	}
	return nil, errAt(p.tok.pos, "expected AND, OR or end of input, found %s", describe(p.tok))
}

// advance moves to the next token.
func (p *parser) advance() *Error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

// isWord reports whether the current token is the word w, ignoring case.
func (p *parser) isWord(w string) bool {
	return p.tok.kind == tokWord && strings.EqualFold(p.tok.text, w)
}

// enter records one more level of nesting at offset pos.
func (p *parser) enter(pos int) *Error {
	if p.depth >= MaxDepth {
		return errAt(pos, "condition nested too deeply (more than %d levels of parentheses and NOT)", MaxDepth)
	}
	p.depth++
	return nil
}

func (p *parser) parseOr() (*Expr, *Error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokOrOr || p.isWord("OR") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = &Expr{Kind: KindOr, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) parseAnd() (*Expr, *Error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokAndAnd || p.isWord("AND") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		left = &Expr{Kind: KindAnd, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) parseUnary() (*Expr, *Error) {
	if p.tok.kind != tokBang && !p.isWord("NOT") {
		return p.parsePrimary()
	}
	pos := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	// "!(" is one level: the parenthesis counts it.
	counted := p.tok.kind != tokLParen
	if counted {
		if err := p.enter(pos); err != nil {
			return nil, err
		}
	}
	x, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	if counted {
		p.depth--
	}
	return &Expr{Kind: KindNot, X: x}, nil
}

const expectedCondition = "expected a condition (@Resource[...], @Request[...], @Principal[...], @Environment[...], ActionMatches{...}, SubOperationMatches{...}, '(' or NOT)"

func (p *parser) parsePrimary() (*Expr, *Error) {
	switch p.tok.kind {
	case tokLParen:
		open := p.tok.pos
		if err := p.enter(open); err != nil {
			return nil, err
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, errAt(p.tok.pos, "expected AND, OR or ')' to close the '(' at offset %d, found %s", open, describe(p.tok))
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		p.depth--
		return e, nil
	case tokAttr:
		return p.parseComparison()
	case tokWord:
		switch {
		case p.isWord("ActionMatches"):
			return p.parseMatch(KindActionMatches, "ActionMatches", "action")
		case p.isWord("SubOperationMatches"):
			return p.parseMatch(KindSubOperationMatches, "SubOperationMatches", "suboperation")
		}
	}
	return nil, errAt(p.tok.pos, "%s, found %s", expectedCondition, describe(p.tok))
}

// parseMatch parses ActionMatches{'...'} or SubOperationMatches{'...'}.
func (p *parser) parseMatch(kind ExprKind, name, what string) (*Expr, *Error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokLBrace {
		return nil, errAt(p.tok.pos, "expected '{' after %s, found %s", name, describe(p.tok))
	}
	open := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokString {
		return nil, errAt(p.tok.pos, "expected a quoted %s in %s{...}, found %s", what, name, describe(p.tok))
	}
	if strings.TrimSpace(p.tok.text) == "" {
		return nil, errAt(p.tok.pos, "empty %s in %s{...}", what, name)
	}
	match := p.tok.text
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokRBrace {
		return nil, errAt(p.tok.pos, "expected '}' to close the '{' of %s at offset %d, found %s", name, open, describe(p.tok))
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return &Expr{Kind: kind, Match: match}, nil
}

// parseComparison parses "attribute operator operand".
func (p *parser) parseComparison() (*Expr, *Error) {
	left := Attribute{Source: p.tok.source, Name: p.tok.text}
	leftText := quoteText("@"+left.Source.String()+"[", left.Name, "]")
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokWord || p.isWord("AND") || p.isWord("OR") || p.isWord("NOT") {
		return nil, errAt(p.tok.pos, "expected operator after attribute %s, found %s", leftText, describe(p.tok))
	}
	q, op, err := parseOperator(p.tok.text, p.tok.pos, leftText)
	if err != nil {
		return nil, err
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	c := &Comparison{Left: left, Quantifier: q, Operator: op}
	switch p.tok.kind {
	case tokAttr:
		c.RightAttr = &Attribute{Source: p.tok.source, Name: p.tok.text}
		if err := p.advance(); err != nil {
			return nil, err
		}
	case tokLBrace:
		if err := p.parseList(c); err != nil {
			return nil, err
		}
	default:
		v, err := p.parseValue(op)
		if err != nil {
			return nil, err
		}
		c.Values = []Value{v}
	}
	return &Expr{Kind: KindComparison, Comparison: c}, nil
}

// parseOperator splits an operator word into its quantifier and basic
// operator. pos is the word's offset.
func parseOperator(word string, pos int, leftText string) (Quantifier, Operator, *Error) {
	q := NoQuantifier
	name, namePos := word, pos
	if i := strings.IndexByte(word, ':'); i >= 0 {
		for k := ForAnyOfAnyValues; k <= ForAllOfAllValues; k++ {
			if strings.EqualFold(word[:i], k.String()) {
				q = k
			}
		}
		if q == NoQuantifier {
			return 0, 0, errAt(pos, "unknown quantifier %q in operator %q (expected ForAnyOfAnyValues, ForAllOfAnyValues, ForAnyOfAllValues or ForAllOfAllValues)", shorten(word[:i]), shorten(word))
		}
		name, namePos = word[i+1:], pos+i+1
		if name == "" {
			return 0, 0, errAt(namePos, "expected operator name right after %q", shorten(word))
		}
	}
	for o := StringEquals; o < operatorEnd; o++ {
		if strings.EqualFold(name, o.String()) {
			return q, o, nil
		}
	}
	return 0, 0, errAt(namePos, "unknown operator %q after attribute %s", shorten(name), leftText)
}

// parseList parses "{value, value, ...}" into c.
func (p *parser) parseList(c *Comparison) *Error {
	open := p.tok.pos
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind == tokRBrace {
		return errAt(p.tok.pos, "empty value list (a list needs at least one value)")
	}
	c.List = true
	for {
		v, err := p.parseValue(c.Operator)
		if err != nil {
			return err
		}
		c.Values = append(c.Values, v)
		switch p.tok.kind {
		case tokComma:
			if err := p.advance(); err != nil {
				return err
			}
		case tokRBrace:
			return p.advance()
		default:
			return errAt(p.tok.pos, "expected ',' or '}' in the value list opened at offset %d, found %s", open, describe(p.tok))
		}
	}
}

// parseValue parses one literal value and checks it suits op.
func (p *parser) parseValue(op Operator) (Value, *Error) {
	t := p.tok
	var v Value
	switch op.Type() {
	case TypeString:
		if t.kind != tokString {
			return v, errAt(t.pos, "%s needs a quoted string value, found %s", op, describe(t))
		}
		v = Value{Text: t.text, Quoted: true}
	case TypeNumber:
		if t.kind != tokWord || !isNumber(t.text) {
			return v, errAt(t.pos, "%s needs an unquoted number such as 42 or -1.5, found %s", op, describe(t))
		}
		v = Value{Text: t.text}
	case TypeBool:
		if t.kind != tokWord || !strings.EqualFold(t.text, "true") && !strings.EqualFold(t.text, "false") {
			return v, errAt(t.pos, "%s needs true or false (unquoted), found %s", op, describe(t))
		}
		v = Value{Text: strings.ToLower(t.text)}
	case TypeDateTime:
		if t.kind != tokString {
			return v, errAt(t.pos, "%s needs a quoted date-time such as '2023-05-01T13:00:00.0Z', found %s", op, describe(t))
		}
		if !isDateTime(t.text) {
			return v, errAt(t.pos, "%s needs an RFC 3339 date-time such as '2023-05-01T13:00:00.0Z', found %s", op, describe(t))
		}
		v = Value{Text: t.text, Quoted: true}
	case TypeGuid:
		if t.kind != tokString && t.kind != tokWord || !IsGUID(t.text) {
			return v, errAt(t.pos, "%s needs a GUID such as 2a2b9908-6ea1-4ae2-8e65-a410df84e7d1, found %s", op, describe(t))
		}
		v = Value{Text: t.text, Quoted: t.kind == tokString}
	default:
		return v, errAt(t.pos, "internal error: operator without a value type")
	}
	return v, p.advance()
}
