// Package wirebytes is a bytes member of a Google API as the protobuf JSON mapping reads
// and writes it: written as standard base64 with padding, read in either the standard or
// the URL-safe alphabet, padded or not. Google's clients write bytes members back in either
// form (the Google Cloud CLI's encoder writes every one URL-safe), so a fingerprint read as
// "AB+/..." may come back as "AB-_...": both are the same bytes.
package wirebytes

import (
	"encoding/base64"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Bytes is a bytes member: compare two with bytes.Equal, never as the text a client sent.
type Bytes []byte

// MarshalJSON writes b in standard padded base64, as encoding/json writes a []byte (base64
// needs no escaping in a JSON string).
func (b Bytes) MarshalJSON() ([]byte, error) {
	if b == nil {
		return []byte("null"), nil
	}
	out := make([]byte, 0, base64.StdEncoding.EncodedLen(len(b))+2)
	out = base64.StdEncoding.AppendEncode(append(out, '"'), b)
	return append(out, '"'), nil
}

// UnmarshalJSON reads a JSON string in standard or URL-safe base64, with or without its
// padding, or null (which leaves b as it is, as for a []byte).
func (b *Bytes) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	s, err := jsontext.AppendUnquote(nil, data)
	if err != nil {
		return err
	}
	out, err := Decode(string(s))
	if err != nil {
		return err
	}
	*b = out
	return nil
}

// Decode reads s in standard or URL-safe base64, with or without its padding.
func Decode(s string) ([]byte, error) {
	s = strings.TrimRight(strings.Map(func(r rune) rune {
		switch r {
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s), "=")
	return base64.RawStdEncoding.DecodeString(s)
}
