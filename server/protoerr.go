package server

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// Why connections are wrapped (Listener): a request that is not valid
// HTTP/1.1 (an invalid %-escape in its path, a malformed header, headers over
// MaxHeaderBytes, a transfer coding other than chunked, an unknown protocol version, an
// Expect other than 100-continue) never reaches a handler. net/http answers it itself, in
// plain text, and closes the connection: 400, 431, 417, and 501 or 505, which are 5xx. A
// served connection recognises those answers as they are written and writes instead the
// envelope of the API that owns the request's path, as every other error is answered, with
// the same status except that 501 and 505 become 400: the request is the client's mistake.
//
// The API is found from the request line, kept as the connection reads it: the last line
// that looks like one among the bytes read since the previous response (a client may send
// several requests at once), else the first line read since.

// headMax is how much of a request's start a served connection keeps: enough for the
// request line of any path an API owns. tailMax is how much of the latest bytes it keeps.
const headMax, tailMax = 256, 1024

// cannedHeaders follow the status line of every plain-text error net/http writes itself
// (net/http's errorHeaders); a response written through a handler always has a Date header.
const cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// servedConn is a connection of Listener: it answers net/http's own errors in the owning
// API's envelope (see above).
type servedConn struct {
	net.Conn
	s *Server
	// answered is set by every write (a response going out): the next bytes read start
	// another request. Reads and writes may run at the same time (net/http's background
	// read); reads never do, so what follows is the readers' own.
	answered   atomic.Bool
	collecting bool   // head is not complete yet
	head       []byte // the first line read since the last response, or its first headMax bytes
	tail       []byte // the last tailMax bytes read since the last response
}

// Listener wraps ln so that its connections answer net/http's own errors in the APIs'
// envelopes (see above). An http.Server serving Handler over plain HTTP should serve this
// listener. Over TLS it is left out: beneath TLS its connections would see only encrypted
// bytes, and above it net/http would no longer see a *tls.Conn (no HTTP/2, no
// Request.TLS), so net/http's own answers go out as it writes them.
func (s *Server) Listener(ln net.Listener) net.Listener { return servedListener{ln, s} }

type servedListener struct {
	net.Listener
	s *Server
}

func (l servedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	return &servedConn{Conn: c, s: l.s, collecting: true}, nil
}

func (c *servedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		if c.answered.Load() {
			c.answered.Store(false)
			c.head, c.tail, c.collecting = c.head[:0], c.tail[:0], true
		}
		c.keep(p[:n])
	}
	return n, err
}

// keep adds b to the bytes kept of what was read since the last response.
func (c *servedConn) keep(b []byte) {
	if c.collecting {
		h := b
		if i := bytes.IndexByte(h, '\n'); i >= 0 {
			h, c.collecting = h[:i], false
		}
		if room := headMax - len(c.head); len(h) >= room {
			h, c.collecting = h[:room], false
		}
		c.head = append(c.head, h...)
	}
	if len(b) >= tailMax {
		c.tail = append(c.tail[:0], b[len(b)-tailMax:]...)
		return
	}
	if over := len(c.tail) + len(b) - tailMax; over > 0 {
		c.tail = c.tail[:copy(c.tail, c.tail[over:])]
	}
	c.tail = append(c.tail, b...)
}

// Write sends p, unless p is one of net/http's own answers (see above), which it replaces.
// Those are written by the goroutine that read the request, after its reads: what was
// kept is complete and safe to read.
func (c *servedConn) Write(p []byte) (int, error) {
	if status, detail, ok := canned(p); ok {
		if _, err := c.Conn.Write(c.envelope(status, detail)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	c.answered.Store(true)
	return c.Conn.Write(p)
}

// requestStart is the request line an answer is chosen by: the last line kept that looks
// like one, else the first line read since the last response.
func (c *servedConn) requestStart() []byte {
	rest := c.tail
	for len(rest) > 0 {
		i := bytes.LastIndexByte(rest[:len(rest)-1], '\n')
		line := rest[i+1:]
		if looksLikeRequestLine(line) {
			return line
		}
		if i < 0 {
			break
		}
		rest = rest[:i+1]
	}
	return c.head
}

// looksLikeRequestLine reports whether line has the shape "TOKEN SP TARGET SP HTTP/".
func looksLikeRequestLine(line []byte) bool {
	method, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(method) == 0 || bytes.ContainsAny(method, "\r\t\x00") {
		return false
	}
	target, proto, ok := bytes.Cut(rest, []byte(" "))
	return ok && len(target) > 0 && bytes.HasPrefix(proto, []byte("HTTP/"))
}

// CloseWrite lets net/http half-close the connection after a 431, as it does with a bare
// TCP connection, so that the client reads the answer before the connection goes.
func (c *servedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// canned recognises a response net/http wrote itself for a request no handler saw: one of
// its plain-text errors, or its 417, each written whole in one write. It returns the
// status and the text after the status's name ("missing required Host header"), if any.
// Nothing else can match: a handler's response has a Date header, and a piece of a longer
// one would have to end exactly as net/http's answer ends.
func canned(p []byte) (status int, detail string, ok bool) {
	const proto, proto10 = "HTTP/1.1 ", "HTTP/1.0 "
	if len(p) < len(proto)+3 || string(p[:len(proto)]) != proto && string(p[:len(proto)]) != proto10 || p[len(proto)] < '4' {
		return 0, "", false // the usual response: a 1xx, 2xx or 3xx
	}
	for _, d := range p[len(proto) : len(proto)+3] {
		if d < '0' || d > '9' {
			return 0, "", false
		}
		status = status*10 + int(d-'0')
	}
	line, _, found := bytes.Cut(p, []byte("\r\n"))
	if !found {
		return 0, "", false
	}
	rest := p[len(line):]
	if status == http.StatusExpectationFailed {
		// Written through a response of net/http's own (in the request's HTTP version), not
		// in plain text; a handler's (an injected fault's) has its Content-Type before its
		// Date.
		const head, date, tail = "\r\nConnection: close\r\nDate: ", len("Mon, 02 Jan 2006 15:04:05 GMT"), "\r\nContent-Length: 0\r\n\r\n"
		return status, "", len(rest) == len(head)+date+len(tail) && bytes.HasPrefix(rest, []byte(head)) && bytes.HasSuffix(rest, []byte(tail))
	}
	if string(p[:len(proto)]) != proto || !bytes.HasPrefix(rest, []byte(cannedHeaders)) {
		return 0, "", false
	}
	// The body: the status line again, or (501) the one fixed sentence.
	if body := rest[len(cannedHeaders):]; !bytes.Equal(body, line[len(proto):]) &&
		!(status == http.StatusNotImplemented && string(body) == "Unsupported transfer encoding") {
		return 0, "", false
	}
	if _, after, found := bytes.Cut(line, []byte(": ")); found {
		detail = string(after)
	}
	return status, detail, true
}

// envelope is the whole response, headers and body, that answers a request net/http
// refused with status, in the envelope of the API owning the path of the request's line.
func (c *servedConn) envelope(status int, detail string) []byte {
	method, path := requestLine(c.requestStart())
	msg := protocolMessage(status, detail)
	if status >= 500 {
		status = http.StatusBadRequest
	}
	req := &http.Request{Method: method, URL: &url.URL{Path: path}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}}
	rec := &recorder{header: http.Header{}}
	c.s.handleError(echo.NewHTTPError(status, msg), c.s.echo.NewContext(req, rec))
	rec.header.Set("Connection", "close")
	rec.header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	resp := http.Response{StatusCode: rec.status, ProtoMajor: 1, ProtoMinor: 1, Header: rec.header,
		ContentLength: int64(rec.body.Len()), Body: io.NopCloser(&rec.body), Close: true}
	var out bytes.Buffer
	_ = resp.Write(&out) // into memory: cannot fail
	return out.Bytes()
}

// requestLine is the method and path of a request line ("POST /a/b?x HTTP/1.1"), as far
// as start holds it; "/" if it holds none.
func requestLine(start []byte) (method, path string) {
	m, rest, _ := bytes.Cut(bytes.TrimRight(start, "\r"), []byte(" "))
	target, _, _ := bytes.Cut(rest, []byte(" "))
	if i := bytes.Index(target, []byte("://")); i >= 0 { // absolute-form: drop scheme and host
		target = target[i+3:]
		if j := bytes.IndexByte(target, '/'); j >= 0 {
			target = target[j:]
		} else {
			target = nil
		}
	}
	target, _, _ = bytes.Cut(target, []byte("?"))
	if len(target) == 0 || target[0] != '/' {
		target = []byte("/")
	}
	return string(m), string(target)
}

// protocolMessage says what was wrong with a request net/http refused with status; detail
// is net/http's own reason for a 400, when it gives one ("missing required Host header").
func protocolMessage(status int, detail string) string {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return "The request line and headers are larger than the server accepts."
	case http.StatusNotImplemented:
		return "The request's Transfer-Encoding is not supported: only chunked is."
	case http.StatusHTTPVersionNotSupported:
		return "The request's HTTP version is not supported: use HTTP/1.1 or HTTP/1.0."
	case http.StatusExpectationFailed:
		return "The request's Expect header is not supported: only 100-continue is."
	}
	if detail != "" {
		return "The request is not valid HTTP: " + detail + "."
	}
	return "The request is not valid HTTP: its request line (an invalid %-escape in the path, for example) or a header is malformed."
}

// recorder is the response writer an envelope is rendered into.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
