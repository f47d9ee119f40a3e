package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// readBody reads the body once, rejecting one over the limit or not UTF-8 (RFC 8259
// requires it; Go's decoder would silently turn bad bytes into U+FFFD), and puts the same
// bytes back (putBack). contentType is the request's Content-Type.
func readBody(req *http.Request, contentType string) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, In: "body", Reason: fmt.Sprintf("the request body is larger than the limit of %d bytes", mbe.Limit), Cause: err}
		}
		return nil, &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body could not be read", Cause: err}
	}
	putBack(req, data)
	if err := checkCharset(contentType); err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body is not valid UTF-8"}
	}
	return data, nil
}

// putBack makes data the body of req for kin and the handler to read, as kin leaves a body
// it has read: readable again (GetBody), of known length.
func putBack(req *http.Request, data []byte) {
	req.GetBody = func() (io.ReadCloser, error) { return newBody(data), nil }
	req.Body = newBody(data)
	req.ContentLength = int64(len(data))
}

// newBody is a request body read again from its bytes: a bytes.Reader whose Close does
// nothing, in one allocation (io.NopCloser over bytes.NewReader takes two).
func newBody(data []byte) io.ReadCloser {
	r := &bodyReader{}
	r.Reset(data)
	return r
}

type bodyReader struct{ bytes.Reader }

func (*bodyReader) Close() error { return nil }

// emptyValue reports whether data, the body of a request to an operation that takes none,
// is one of the empty JSON values clients send there anyway: nothing but blanks, {}, null,
// or "" (Node's @google-cloud/compute sends "" on operations.wait). Google's front end
// takes each as no body, and so does every API here; any other body is refused.
func emptyValue(data []byte) bool {
	v := bytes.Trim(data, jsonBlanks)
	switch string(v) {
	case "", "null", `""`:
		return true
	}
	return len(v) >= 2 && v[0] == '{' && v[len(v)-1] == '}' && len(bytes.Trim(v[1:len(v)-1], jsonBlanks)) == 0
}

// jsonBlanks are the white space JSON allows around and between tokens (RFC 8259).
const jsonBlanks = " \t\r\n"

// checkCharset refuses a Content-Type whose charset is not UTF-8: the body was read as UTF-8
// whatever it said (latin1, utf-16).
func checkCharset(contentType string) error {
	if cs := charset(contentType); cs != "" && !utf8Charset(cs) {
		return &Error{Status: http.StatusUnsupportedMediaType, In: "header", Name: "Content-Type", Charset: cs,
			Reason: fmt.Sprintf("the charset %s is not supported: send the body in UTF-8", sanitize(strconv.Quote(cs)))}
	}
	return nil
}

// utf8Charset reports whether a body in charset cs is UTF-8: it is, or it is US-ASCII,
// whose bytes are UTF-8's.
func utf8Charset(cs string) bool {
	return strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8") || strings.EqualFold(cs, "us-ascii")
}

// charset is the charset parameter of a Content-Type, "" when it has none.
func charset(contentType string) string {
	if !strings.Contains(contentType, ";") {
		return ""
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return params["charset"]
}

// takesJSON reports whether kin decodes a body of this Content-Type sent to the operation as
// JSON: the operation takes the media type, and it is application/json or ends in +json
// (RFC 6839).
func (r *route) takesJSON(contentType string) bool {
	rb := r.Operation.RequestBody
	if rb == nil || rb.Value == nil || rb.Value.Content.Get(contentType) == nil {
		return false
	}
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// bodyError reports whether err is kin's error about the request body.
func bodyError(err error) bool {
	var re *openapi3filter.RequestError
	return errors.As(err, &re) && re.RequestBody != nil && re.Parameter == nil
}

// bodySchemaError reports whether err is kin's error for a body that decoded and then did
// not match its schema.
func bodySchemaError(err error) bool {
	var re *openapi3filter.RequestError
	var se *openapi3.SchemaError
	return errors.As(err, &re) && re.RequestBody != nil && re.Parameter == nil && errors.As(re.Err, &se)
}

// trailingError is the decoding error for a JSON body with data after its value, in kin's
// form, with the error encoding/json's Unmarshal reports for it ("invalid character 'x'
// after top-level value").
func trailingError(input *openapi3filter.RequestValidationInput, rb *openapi3.RequestBody, data []byte) error {
	var raw json.RawMessage
	cause := json.Unmarshal(data, &raw)
	if cause == nil {
		cause = errors.New("unexpected data after the JSON value")
	}
	return &openapi3filter.RequestError{Input: input, RequestBody: rb, Reason: "failed to decode request body",
		Err: &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: cause}}
}
