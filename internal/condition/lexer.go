package condition

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenKind classifies a token.
type tokenKind int

const (
	tokEOF    tokenKind = iota
	tokLParen           // (
	tokRParen           // )
	tokLBrace           // {
	tokRBrace           // }
	tokComma            // ,
	tokBang             // !
	tokAndAnd           // &&
	tokOrOr             // ||
	tokString           // 'text'; text holds what is between the quotes
	tokAttr             // @Source[name]; source and text (the name) are set
	tokWord             // a run of word bytes: keywords, operators, numbers, bools, GUIDs
)

// token is one lexical element. pos is the byte offset of its first byte.
type token struct {
	kind   tokenKind
	pos    int
	text   string
	source Source
}

// lexer splits a condition into tokens on demand, so that errors are
// reported in input order.
type lexer struct {
	src string
	pos int
}

// isSpace reports whether c is whitespace between tokens.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

// isWordByte reports whether c may appear in a bare word. Words cover
// keywords, operator names (including the quantifier's colon), numbers,
// booleans and unquoted GUIDs; the parser decides which one a word is.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == ':' || c == '-' || c == '+'
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// next returns the next token, or an error for input that is not a token.
func (l *lexer) next() (token, *Error) {
	for l.pos < len(l.src) && isSpace(l.src[l.pos]) {
		l.pos++
	}
	start := l.pos
	if start >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[start]
	single := func(k tokenKind) (token, *Error) {
		l.pos++
		return token{kind: k, pos: start, text: l.src[start:l.pos]}, nil
	}
	switch c {
	case '(':
		return single(tokLParen)
	case ')':
		return single(tokRParen)
	case '{':
		return single(tokLBrace)
	case '}':
		return single(tokRBrace)
	case ',':
		return single(tokComma)
	case '!':
		return single(tokBang)
	case '&', '|':
		if start+1 < len(l.src) && l.src[start+1] == c {
			l.pos += 2
			if c == '&' {
				return token{kind: tokAndAnd, pos: start, text: "&&"}, nil
			}
			return token{kind: tokOrOr, pos: start, text: "||"}, nil
		}
		if c == '&' {
			return token{}, errAt(start, "unexpected '&' (use '&&' or AND)")
		}
		return token{}, errAt(start, "unexpected '|' (use '||' or OR)")
	case '\'':
		end := strings.IndexByte(l.src[start+1:], '\'')
		if end < 0 {
			return token{}, errAt(start, "unterminated string literal (no closing single quote)")
		}
		l.pos = start + 1 + end + 1
		return token{kind: tokString, pos: start, text: l.src[start+1 : start+1+end]}, nil
	case '@':
		return l.attribute()
	case '"':
		return token{}, errAt(start, "unexpected '\"' (strings use single quotes)")
	}
	if isWordByte(c) {
		for l.pos < len(l.src) && isWordByte(l.src[l.pos]) {
			l.pos++
		}
		return token{kind: tokWord, pos: start, text: l.src[start:l.pos]}, nil
	}
	r, size := utf8.DecodeRuneInString(l.src[start:])
	if r == utf8.RuneError && size <= 1 {
		return token{}, errAt(start, "invalid UTF-8 byte 0x%02x", c)
	}
	return token{}, errAt(start, "unexpected character %q", r)
}

// attribute lexes @Source[name]; l.pos is at the "@".
func (l *lexer) attribute() (token, *Error) {
	start := l.pos
	i := start + 1
	for i < len(l.src) && (isLetter(l.src[i]) || l.src[i] >= '0' && l.src[i] <= '9' || l.src[i] == '_') {
		i++
	}
	word := l.src[start+1 : i]
	if word == "" {
		return token{}, errAt(start, "expected attribute source (Resource, Request, Principal or Environment) after '@', found %s", describeByte(l.src, i))
	}
	var src Source
	for s := SourceResource; s <= SourceEnvironment; s++ {
		if strings.EqualFold(word, s.String()) {
			src = s
			break
		}
	}
	if src == 0 {
		return token{}, errAt(start, "unknown attribute source %q (expected @Resource, @Request, @Principal or @Environment)", "@"+shorten(word))
	}
	if i >= len(l.src) || l.src[i] != '[' {
		return token{}, errAt(i, "expected '[' after @%s, found %s", src, describeByte(l.src, i))
	}
	end := strings.IndexByte(l.src[i+1:], ']')
	if end < 0 {
		return token{}, errAt(i, "unterminated attribute name: no ']' closes the '[' of @%s", src)
	}
	name := l.src[i+1 : i+1+end]
	if strings.TrimSpace(name) == "" {
		return token{}, errAt(i+1+end, "empty attribute name in @%s[]", src)
	}
	l.pos = i + 1 + end + 1
	return token{kind: tokAttr, pos: start, text: name, source: src}, nil
}

// describeByte describes the input at offset i for an error message.
func describeByte(src string, i int) string {
	if i >= len(src) {
		return "end of input"
	}
	r, size := utf8.DecodeRuneInString(src[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", src[i])
	}
	return strconv.QuoteRune(r)
}

// describe names a token for an error message.
func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return "string " + quoteText("'", t.text, "'")
	case tokAttr:
		return "attribute " + quoteText("@"+t.source.String()+"[", t.text, "]")
	case tokWord:
		return strconv.Quote(shorten(t.text))
	}
	return "'" + t.text + "'"
}

// quoteText wraps a shortened s in open and close when it prints cleanly,
// and Go-quotes it otherwise (invalid UTF-8, control characters).
func quoteText(open, s, close string) string {
	s = shorten(s)
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return strconv.Quote(open + s + close)
		}
	}
	return open + s + close
}

// shorten cuts s to a length fit for an error message.
func shorten(s string) string {
	const max = 48
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
