package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// jsonReason says in plain words why data, a request body, is not JSON, from the error
// encoding/json gave decoding it; ok is false for any other error. encoding/json's own
// wording ("invalid character 'h' looking for beginning of value") names its parser's
// states, not what the client got wrong, and is not read: where the parser stopped is the
// SyntaxError's Offset, the byte there is the body's, and what was due there is the state
// of a jsontext decoder that has read the body up to it.
func jsonReason(err error, data []byte) (reason string, ok bool) {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return "the body is empty or white space only; it must be one JSON value", true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends before its JSON value does", true
	case !errors.As(err, &se):
		return "", false
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return "the body starts with a byte order mark, which JSON does not allow", true
	case se.Offset < 1 || se.Offset > int64(len(data)):
		return "the body ends before its JSON value does", true
	}
	bad := int(se.Offset) - 1 // the byte the parser stopped at
	at := fmt.Sprintf(" (byte %d)", se.Offset)
	found := quoteByte(data[bad])
	st, verdict := stateAt(data, bad)
	switch {
	case verdict == truncated:
		return "the body ends before its JSON value does", true
	case verdict == disagree || bad < st.next:
		return "the body is not valid JSON" + at, true
	}
	if bad > st.next && jsontext.Value(data[st.next:bad]).IsValid() {
		// A whole value, then the byte: what was due is what follows that value.
		st.length, st.sepMissing = st.length+1, true
		st.next = bad
	}
	switch {
	case st.depth >= maxDepth && (data[bad] == '{' || data[bad] == '['):
		return "the JSON value is nested too deeply" + at, true
	case st.depth == 0 && st.length > 0:
		return "unexpected data after the JSON value" + at, true
	case bad == st.next && st.sepMissing && st.kind == '{' && st.length%2 == 1:
		return "expected ':' after a member name, found " + found + at, true
	case bad == st.next && st.sepMissing && st.kind == '{':
		return "expected ',' or '}' after a member, found " + found + at, true
	case bad == st.next && st.sepMissing:
		return "expected ',' or ']' after an array element, found " + found + at, true
	case bad == st.next && st.kind == '{' && st.length%2 == 0:
		return "expected a member name in double quotes, found " + found + at, true
	case bad == st.next:
		return "expected a JSON value, found " + found + at, true
	}
	switch data[st.next] { // inside the value that starts at next
	case '"':
		if data[bad] < ' ' && !inEscape(data[st.next+1:bad]) {
			return "a string holds a control character, which must be escaped" + at, true
		}
		return "a string holds an invalid escape sequence" + at, true
	case 't', 'f', 'n':
		return "expected true, false or null, found a misspelled literal" + at, true
	}
	return "a number is malformed" + at, true
}

// inEscape reports whether the byte after s, the start of a string's contents, is part of
// an escape sequence (\n, \u00e9) that s starts.
func inEscape(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		end := i + 2 // past the escaped character
		if i+1 < len(s) && s[i+1] == 'u' {
			end = i + 6 // past the four hex digits
		}
		if end > len(s) {
			return true
		}
		i = end - 1
	}
	return false
}

// maxDepth is how deeply encoding/json (and jsontext) let values nest.
const maxDepth = 10000

// jsonState is where a JSON decoder stands before a token: in a value of kind '{' or '['
// (or at the top, depth 0) holding length tokens so far (an object's names and values both
// count); the token starts at next, after the ':' or ',' due before it, or where that
// separator is missing (sepMissing).
type jsonState struct {
	depth, length int
	kind          jsontext.Kind
	next          int
	sepMissing    bool
}

type stateVerdict int

const (
	found     stateVerdict = iota // the state before the token at or around the position
	truncated                     // the body is the start of a JSON value, cut short
	disagree                      // jsontext reads past the position without a complaint
)

// stateAt reads data with a jsontext decoder up to the token that starts at or holds pos
// and reports where it stands before that token.
func stateAt(data []byte, pos int) (jsonState, stateVerdict) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		st := jsonState{depth: dec.StackDepth()}
		kind, length := dec.StackIndex(st.depth)
		st.kind, st.length = kind, int(length)
		st.next = skipSpace(data, int(dec.InputOffset()))
		if st.depth > 0 && st.length > 0 {
			due := byte(',')
			if st.kind == '{' && st.length%2 == 1 {
				due = ':'
			}
			if st.next < len(data) && data[st.next] == due {
				st.next = skipSpace(data, st.next+1)
			} else {
				st.sepMissing = true
			}
		}
		if st.next >= pos {
			return st, found
		}
		_, err := dec.ReadToken()
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return st, truncated
		case err != nil:
			return st, found
		case int(dec.InputOffset()) > pos:
			return st, disagree
		}
	}
}

func skipSpace(data []byte, off int) int {
	for off < len(data) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r') {
		off++
	}
	return off
}

// quoteByte quotes b as a Go character literal ('h', '\”), as messages show the byte
// found (a byte beyond ASCII as the character of that number, as encoding/json shows it).
func quoteByte(b byte) string { return strconv.QuoteRune(rune(b)) }
