package validate

import (
	"bytes"
	"errors"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// A JSON string may spell a UTF-16 surrogate as an escape (\ud800). A high one followed by
// a low one is one character; alone, either is none. encoding/json, which kin-openapi and
// Echo's binder decode with, turns a lone one into U+FFFD without a word, so the value
// stored would not be the value sent. A strict service refuses such a string, as it
// refuses bytes that are not UTF-8, which would become U+FFFD the same way (readBody): a
// JSON body is scanned for such escapes before it is decoded, and one is refused as an
// invalid value of the member that holds it.

// reasonLoneSurrogate is the refusal's Reason.
const reasonLoneSurrogate = `the string has a UTF-16 surrogate escape (\uD800 to \uDFFF) that is not half of a pair, which is no character`

// loneSurrogate returns the offset in data of the first \uXXXX escape of a surrogate that
// is not half of a pair (a high one and then a low one), or -1 when there is none. Only
// backslashes are looked at: a body without one (most) costs one IndexByte. Escapes that
// are malformed are skipped; the decoding that follows refuses them.
func loneSurrogate(data []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
		if i+1 >= len(data) {
			return -1
		}
		if data[i+1] != 'u' {
			i += 2 // \\ \" \/ \n ...: a backslash escaped is not the start of an escape
			continue
		}
		r, ok := hex4(data, i+2)
		switch {
		case !ok || r < 0xd800 || r > 0xdfff:
			i += 2
		case r >= 0xdc00: // a low surrogate first
			return i
		default: // a high surrogate: the next escape must be a low one
			if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
				if lo, ok := hex4(data, i+8); ok && lo >= 0xdc00 && lo <= 0xdfff {
					i += 12
					continue
				}
			}
			return i
		}
	}
}

// hex4 is the value of the four hex digits at data[i:], if there are four.
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// checkSurrogates refuses a JSON body with a lone surrogate escape, naming the member whose
// string holds it (the object, for a member's name). It returns nil when there is none, and
// when the body is malformed before the escape: the decoding that follows reports that.
// Only a body with such an escape pays for finding the member: jsontext, which refuses the
// escape too, says where its decoding stopped.
func checkSurrogates(data []byte) *Error {
	at := loneSurrogate(data)
	if at < 0 {
		return nil
	}
	// Duplicate names are kin's to judge (it keeps the last), not a reason to stop here.
	err := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true)).SkipValue()
	var se *jsontext.SyntacticError
	isSyntax := errors.As(err, &se)
	if isSyntax && se.ByteOffset < int64(at) {
		return nil // malformed before the escape
	}
	var name []string
	if isSyntax {
		for tok := range se.JSONPointer.Tokens() {
			name = append(name, tok)
		}
	}
	return &Error{Status: http.StatusBadRequest, In: "body", Name: strings.Join(name, "."), Reason: reasonLoneSurrogate}
}
