package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// BodyLimit is how much of each body an exchange keeps.
const BodyLimit = 4 << 10

// Exchange is what a request sent and was answered, as the journal keeps it while someone
// looks: headers without credentials, and at most BodyLimit bytes of each body with secrets
// masked.
type Exchange struct {
	Host, Query     string
	RequestHeaders  []Header
	RequestBody     Body
	ResponseHeaders []Header
	ResponseBody    Body
}

// Header is one header line.
type Header struct{ Name, Value string }

// Body is the start of a body.
type Body struct {
	Data []byte
	// Truncated says the body went on past Data.
	Truncated bool
}

// Recorder captures one request's exchange: NewRecorder wraps the request's body and the
// response's writer; Exchange reads what went through them.
type Recorder struct {
	req  *http.Request
	in   *capped
	out  *capturingWriter
	host string
}

// NewRecorder returns a recorder and the request (a copy of req whose body it reads through)
// and writer (w, copying what is written) to serve in their place. The copy is what later
// middleware sees; net/http keeps deciding on its own request whether the connection can
// serve another (see limitRequest).
func NewRecorder(req *http.Request, w http.ResponseWriter) (*Recorder, *http.Request, http.ResponseWriter) {
	r := &Recorder{host: req.Host, out: &capturingWriter{ResponseWriter: w}}
	served := req
	if req.Body != nil && req.Body != http.NoBody {
		r.in = &capped{}
		cp := *req
		cp.Body = teeBody{ReadCloser: req.Body, to: r.in}
		served = &cp
	}
	r.req = req
	return r, served, r.out
}

// Exchange is the exchange as recorded, credentials left out.
func (r *Recorder) Exchange() *Exchange {
	x := &Exchange{Host: r.host, Query: maskQuery(r.req.URL.RawQuery),
		RequestHeaders: headers(r.req.Header), ResponseHeaders: headers(r.out.Header())}
	if r.in != nil {
		x.RequestBody = r.in.body(r.req.Header.Get("Content-Type"))
	}
	x.ResponseBody = r.out.buf.body(r.out.Header().Get("Content-Type"))
	return x
}

// capped keeps the first BodyLimit bytes written to it.
type capped struct {
	data      []byte
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := BodyLimit - len(c.data)
	if len(p) > room {
		c.truncated = true
		p = p[:max(room, 0)]
	}
	c.data = append(c.data, p...)
	return len(p), nil
}

func (c *capped) body(contentType string) Body {
	return Body{Data: mask(contentType, c.data), Truncated: c.truncated}
}

// teeBody copies what is read of a request body.
type teeBody struct {
	io.ReadCloser
	to *capped
}

func (t teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	_, _ = t.to.Write(p[:n])
	return n, err
}

// capturingWriter copies the start of what is written to the response.
type capturingWriter struct {
	http.ResponseWriter
	buf capped
}

func (w *capturingWriter) Write(p []byte) (int, error) {
	_, _ = w.buf.Write(p)
	return w.ResponseWriter.Write(p)
}

// Flush, Hijack and Unwrap keep what the wrapped writer can do.
func (w *capturingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *capturingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, http.ErrNotSupported
}

func (w *capturingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// secretName says whether a header, query parameter, form field or JSON member of that
// name carries a credential: authorization, cookies, keys, tokens, secrets, signatures and
// passwords. Idempotency-Key is a request's name, not a credential.
func secretName(name string) bool {
	n := strings.ToLower(name)
	if n == "idempotency-key" || n == "idempotency_key" {
		return false
	}
	for _, w := range []string{"auth", "cookie", "key", "token", "secret", "signature", "password", "session", "nonce"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretPrefixes start the credentials a body may hold whatever they are named.
var secretPrefixes = []string{"sk_test_", "sk_live_", "rk_test_", "rk_live_", "whsec_", "alu_"}

// secretValue says whether a string is a credential whatever it is named: an API key, a
// signing secret, or a hosted account link (its token opens the page).
func secretValue(v string) bool {
	for _, p := range secretPrefixes {
		if strings.Contains(v, p) {
			return true
		}
	}
	return false
}

// Masked stands for a credential left out.
const Masked = "[masked]"

// headers are h without credentials, in name order.
func headers(h http.Header) []Header {
	var out []Header
	for name, vs := range h {
		if secretName(name) {
			continue
		}
		for _, v := range vs {
			out = append(out, Header{Name: name, Value: v})
		}
	}
	slices.SortStableFunc(out, func(a, b Header) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// maskQuery masks the values of credential parameters (key=, access_token=) in a raw
// query, leaving the rest as sent.
func maskQuery(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil && secretName(n) {
			parts[i] = name + "=" + url.QueryEscape(Masked)
		}
	}
	return strings.Join(parts, "&")
}

// mask returns a body with its credentials masked: in JSON, the string values of members
// with a credential's name and any string holding one (secretValue); in a form, those
// fields' values. Other bodies are kept as they are.
func mask(contentType string, data []byte) []byte {
	ct := strings.ToLower(contentType)
	switch {
	case len(data) == 0:
		return nil
	case strings.Contains(ct, "json"):
		return maskJSON(data)
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		return []byte(maskQuery(string(data)))
	}
	return maskText(data)
}

// maskText masks, in any other body (a hosted page's HTML, say), each run of letters,
// digits and underscores that starts like a credential (secretValue's prefixes).
func maskText(data []byte) []byte {
	var out []byte
	for i := 0; i < len(data); {
		j := -1
		for _, p := range secretPrefixes {
			if bytes.HasPrefix(data[i:], []byte(p)) {
				j = i + len(p)
				break
			}
		}
		if j < 0 {
			if out != nil {
				out = append(out, data[i])
			}
			i++
			continue
		}
		if out == nil {
			out = append([]byte{}, data[:i]...)
		}
		for j < len(data) && (data[j] == '_' || '0' <= data[j] && data[j] <= '9' || 'a' <= data[j]|0x20 && data[j]|0x20 <= 'z') {
			j++
		}
		out = append(out, Masked...)
		i = j
	}
	if out == nil {
		return data
	}
	return out
}

// maskJSON masks secret strings in a JSON text, complete or cut short: it reads the tokens
// up to where the text ends (or stops being JSON) and replaces the secret strings' bytes by
// their offsets, so the rest keeps its bytes.
func maskJSON(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type span struct{ from, to int64 }
	var spans []span
	// Where the decoder is: in an object (expecting a key next, or a value) or an array.
	type frame struct {
		object, wantKey bool
		secret          bool // the value being read belongs to a secret member
	}
	var stack []frame
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				break // cut short or not JSON: what was read is masked
			}
			break
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		case string:
			if top != nil && top.object && top.wantKey {
				top.wantKey, top.secret = false, secretName(t)
				continue
			}
			if (top != nil && top.object && top.secret) || secretValue(t) {
				// The string's bytes: from its opening quote (after any separator and white
				// space since the previous token) to the decoder's offset.
				from := before
				for from < int64(len(data)) && data[from] != '"' {
					from++
				}
				spans = append(spans, span{from, dec.InputOffset()})
			}
		}
		if top != nil && top.object {
			top.wantKey = true
		}
	}
	if len(spans) == 0 {
		return data
	}
	var b bytes.Buffer
	last := int64(0)
	for _, s := range spans {
		b.Write(data[last:s.from])
		b.WriteString(`"` + Masked + `"`)
		last = s.to
	}
	b.Write(data[last:])
	return b.Bytes()
}
