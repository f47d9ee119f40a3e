package validate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONReasonInPlainWords: what encoding/json says of a body that is not JSON comes out
// as what the client got wrong, with where, never in the parser's own terms.
func TestJSONReasonInPlainWords(t *testing.T) {
	for body, want := range map[string]string{
		"hello":                    "expected a JSON value, found 'h' (byte 1)",
		`{"a":1,}`:                 "expected a member name in double quotes, found '}' (byte 8)",
		`{'a':1}`:                  "expected a member name in double quotes, found '\\'' (byte 2)",
		`{"a" 1}`:                  "expected ':' after a member name, found '1' (byte 6)",
		`{"a":1 "b":2}`:            "expected ',' or '}' after a member, found '\"' (byte 8)",
		`[1 2]`:                    "expected ',' or ']' after an array element, found '2' (byte 4)",
		"{\"a\":\"x\ny\"}":         "a string holds a control character, which must be escaped (byte 8)",
		`{"a":"\q"}`:               "a string holds an invalid escape sequence (byte 8)",
		`{"a":nul}`:                "expected true, false or null, found a misspelled literal (byte 9)",
		`{"a":01}`:                 "expected ',' or '}' after a member, found '1' (byte 7)",
		`{"a":1.}`:                 "a number is malformed (byte 8)",
		`{"a":1e}`:                 "a number is malformed (byte 8)",
		"\xef\xbb\xbf{}":           "the body starts with a byte order mark, which JSON does not allow",
		`{"a":[1,2`:                "the body ends before its JSON value does",
		"   ":                      "the body is empty or white space only; it must be one JSON value",
		strings.Repeat("[", 10001): "the JSON value is nested too deeply (byte 10001)",
		`{"a"}`:                    "expected ':' after a member name, found '}' (byte 5)",
		`{"a"x:1}`:                 "expected ':' after a member name, found 'x' (byte 5)",
		`{"a",1}`:                  "expected ':' after a member name, found ',' (byte 5)",
		`{"a":1]`:                  "expected ',' or '}' after a member, found ']' (byte 7)",
		`{"a":"x"y}`:               "expected ',' or '}' after a member, found 'y' (byte 9)",
		`{"a":truex}`:              "expected ',' or '}' after a member, found 'x' (byte 10)",
		`{"a":-}`:                  "a number is malformed (byte 7)",
		`{"a":[1,]}`:               "expected a JSON value, found ']' (byte 9)",
		`[,1]`:                     "expected a JSON value, found ',' (byte 2)",
		`[[1] 2]`:                  "expected ',' or ']' after an array element, found '2' (byte 6)",
		`{"a":é}`:                  "expected a JSON value, found 'Ã' (byte 6)",
		`{"a":"\u12"}`:             "a string holds an invalid escape sequence (byte 11)",
		"{\"a\":1}\n\n{":           "unexpected data after the JSON value (byte 10)",
		"{\"a\":\"\\\t\"}":         "a string holds an invalid escape sequence (byte 8)",
		"{\"a\":\"\\u0\t00\"}":     "a string holds an invalid escape sequence (byte 10)",
	} {
		var v any
		err := json.NewDecoder(bytes.NewReader([]byte(body))).Decode(&v)
		if err == nil {
			err = json.Unmarshal([]byte(body), &v) // what follows the value, as kin never reads it
		}
		if err == nil {
			t.Fatalf("%.20q decoded", body)
		}
		got, ok := jsonReason(err, []byte(body))
		if !ok || got != want {
			t.Errorf("%.20q (%v): %q, want %q", body, err, got, want)
		}
	}
	if _, ok := jsonReason(&json.UnmarshalTypeError{Value: "number"}, nil); ok {
		t.Error("a type error is not about the body's syntax")
	}
}
