package httperr

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
)

// WriteJSON writes v with status exactly as the generated strict handlers' Visit methods do
// (encoding/json's Encoder, so HTML-escaped and with a trailing newline; Content-Type
// application/json), but encodes into a pooled buffer instead of a new one per response.
// v should be a pointer, so that passing it allocates nothing.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	j, err := EncodeJSON(v)
	if err != nil {
		return err
	}
	return j.Write(w, status)
}

// JSON is a response body encoded by EncodeJSON, waiting to be written.
type JSON struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// EncodeJSON encodes v as json.NewEncoder(&buf).Encode(v) would, into a pooled buffer. The
// result must be written (Write), which returns the buffer to the pool.
func EncodeJSON(v any) (*JSON, error) {
	j := encoders.Get().(*JSON)
	j.buf.Reset()
	if err := j.enc.Encode(v); err != nil {
		return nil, err // not reused: an Encoder may keep an error
	}
	return j, nil
}

// WriteAppended writes v as WriteJSON does, with the body appendBody appends to the
// pooled buffer when it reports true: it must append what encoding/json writes for v
// (without the Encoder's newline, added here). When it reports false, encoding/json
// writes v.
func WriteAppended(w http.ResponseWriter, status int, v any, appendBody func(b []byte) ([]byte, bool)) error {
	j := encoders.Get().(*JSON)
	j.buf.Reset()
	b, ok := appendBody(j.buf.AvailableBuffer())
	if !ok {
		encoders.Put(j)
		return WriteJSON(w, status, v)
	}
	j.buf.Write(b)
	j.buf.WriteByte('\n')
	return j.Write(w, status)
}

// Write sets Content-Type application/json, writes the status and the body, and releases j.
func (j *JSON) Write(w http.ResponseWriter, status int) error {
	// As Set("Content-Type", "application/json"), sharing one value slice: nothing changes
	// a header's values in place (Set and Add replace the slice), so it is never written.
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(status)
	_, err := w.Write(j.buf.Bytes())
	if j.buf.Cap() <= maxPooledJSON {
		encoders.Put(j)
	}
	return err
}

var jsonContentType = []string{"application/json"}[:1:1]

// maxPooledJSON is the largest buffer kept for reuse.
const maxPooledJSON = 64 << 10

var encoders = sync.Pool{New: func() any {
	j := &JSON{}
	j.enc = json.NewEncoder(&j.buf)
	return j
}}
