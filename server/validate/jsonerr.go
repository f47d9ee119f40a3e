package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// jsonReason says in plain words why a request body is not JSON, from the error
// encoding/json gave decoding it; ok is false for any other error. encoding/json's own
// wording ("invalid character 'h' looking for beginning of value", "unexpected EOF") names
// its parser's states, not what the client got wrong.
func jsonReason(err error) (reason string, ok bool) {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return "the body is empty or white space only; it must be one JSON value", true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends before its JSON value does", true
	case !errors.As(err, &se):
		return "", false
	}
	at := fmt.Sprintf(" (byte %d)", se.Offset)
	msg := se.Error()
	if se.Offset == 1 && msg == "invalid character 'ï' looking for beginning of value" {
		// The first byte of UTF-8's byte order mark, EF BB BF.
		return "the body starts with a byte order mark, which JSON does not allow", true
	}
	if msg == "unexpected end of JSON input" {
		return "the body ends before its JSON value does", true
	}
	if strings.Contains(msg, "exceeded max depth") {
		return "the JSON value is nested too deeply" + at, true
	}
	m := syntaxMessage.FindStringSubmatch(msg)
	if m == nil {
		return "the body is not valid JSON" + at, true
	}
	found, where := m[1], m[2]
	switch {
	case where == "looking for beginning of value":
		return "expected a JSON value, found " + found + at, true
	case where == "looking for beginning of object key string":
		return "expected a member name in double quotes, found " + found + at, true
	case where == "after object key":
		return "expected ':' after a member name, found " + found + at, true
	case where == "after object key:value pair":
		return "expected ',' or '}' after a member, found " + found + at, true
	case where == "after array element":
		return "expected ',' or ']' after an array element, found " + found + at, true
	case where == "after top-level value":
		return "unexpected data after the JSON value" + at, true
	case where == "in string literal":
		return "a string holds a control character, which must be escaped" + at, true
	case where == "in string escape code" || strings.HasPrefix(where, "in \\u hexadecimal"):
		return "a string holds an invalid escape sequence" + at, true
	case strings.HasPrefix(where, "in literal"):
		return "expected true, false or null, found a misspelled literal" + at, true
	case strings.HasPrefix(where, "in numeric literal") || strings.HasPrefix(where, "after decimal point") || strings.HasPrefix(where, "in exponent"):
		return "a number is malformed" + at, true
	}
	return "the body is not valid JSON" + at, true
}

// syntaxMessage is the shape of encoding/json's syntax errors: the character, as Go quotes
// it, and where the parser was.
var syntaxMessage = regexp.MustCompile(`^invalid character (.+?) (looking for .*|after .*|in .*)$`)
