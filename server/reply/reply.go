// Package reply writes the JSON responses of the generated strict handlers: the one place
// where how a response body is serialized is decided. Handlers return the generated response
// types; Middleware, installed as each API's strict middleware, writes those it can with
// goccy/go-json, which writes exactly what encoding/json writes (TestSameAsEncodingJSON
// holds the two together) several times faster, into a pooled buffer. Any other response
// is left to its generated Visit method.
//
// How a response type is written (its status, its fixed headers, the headers its Headers
// member carries, whether it has a Body member) is learned once per type from its own
// generated Visit method, called on a probe value: nothing here knows the generator's naming
// rules, and a type whose Visit method does anything else is left to it.
package reply

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"

	goccy "github.com/goccy/go-json"
	"github.com/labstack/echo/v4"
)

// Middleware is a strict middleware (H is an API's generated StrictHandlerFunc): the
// response of the handler is written here when Write can, else returned to the generated
// code, which writes it.
func Middleware[H ~func(echo.Context, any) (any, error)](f H, _ string) H {
	return func(c echo.Context, request any) (any, error) {
		resp, err := f(c, request)
		if err != nil || resp == nil {
			return resp, err
		}
		if written, err := Write(c.Response(), resp); written || err != nil {
			return nil, err
		}
		return resp, nil
	}
}

// Write writes resp, a generated response value, as its Visit method would, and reports
// whether it did; false leaves resp to its Visit method.
func Write(w http.ResponseWriter, resp any) (bool, error) {
	v := reflect.ValueOf(resp)
	p := planOf(v.Type())
	if p == nil {
		return false, nil
	}
	body := resp
	if p.body >= 0 {
		body = v.Field(p.body).Interface()
	}
	b := buffers.Get().(*buffer)
	if err := b.enc.Encode(body); err != nil {
		return false, nil // the generated code's encoding/json reports it; b is not reused
	}
	defer b.release()
	h := w.Header()
	for k, vs := range p.fixed {
		h[k] = vs
	}
	for _, f := range p.headers {
		h.Set(f.name, v.Field(p.headerStruct).Field(f.index).String())
	}
	w.WriteHeader(p.status)
	_, err := w.Write(b.buf.Bytes())
	return true, err
}

// plan is how the responses of one type are written.
type plan struct {
	status int
	fixed  http.Header // headers every response of the type has (Content-Type)
	// body is the index of the Body member, or -1 when the response itself is the body.
	body int
	// headerStruct is the index of the Headers member; headers are its string members.
	headerStruct int
	headers      []headerField
}

type headerField struct {
	name  string
	index int
}

// plans holds, by response type, its *plan, or a nil *plan for a type Write leaves alone.
var plans sync.Map

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := learn(t)
	plans.Store(t, p)
	return p
}

// learn works out how responses of type t are written, from what its Visit method writes
// for a probe value: its members' zero values, and in a Headers member a marker in each
// string member, to see which header each goes to. nil when t is not a JSON response that
// Write can write the same way.
func learn(t reflect.Type) (learned *plan) {
	defer func() {
		if recover() != nil {
			learned = nil // a Visit method that cannot write a probe (a wrapper of another response)
		}
	}()
	visit, ok := visitMethod(t)
	if !ok {
		return nil
	}
	probe := reflect.New(t).Elem()
	p := &plan{body: -1, headerStruct: -1, fixed: http.Header{}}
	if t.Kind() == reflect.Struct {
		if f, ok := t.FieldByName("Body"); ok && t.NumField() <= 2 {
			p.body = f.Index[0]
		}
		if f, ok := t.FieldByName("Headers"); ok && p.body >= 0 && t.NumField() == 2 {
			p.headerStruct = f.Index[0]
			hs := probe.Field(p.headerStruct)
			for i := range f.Type.NumField() {
				if f.Type.Field(i).Type.Kind() != reflect.String {
					return nil
				}
				hs.Field(i).SetString(marker(i))
			}
		} else if p.body >= 0 && t.NumField() != 1 {
			return nil
		}
	}
	rec := httptest.NewRecorder()
	out := visit.Func.Call([]reflect.Value{probe, reflect.ValueOf(http.ResponseWriter(rec))})
	if err, _ := out[0].Interface().(error); err != nil {
		return nil
	}
	for k, vs := range rec.Header() {
		if len(vs) == 1 && strings.HasPrefix(vs[0], markerPrefix) {
			p.headers = append(p.headers, headerField{name: k, index: markerIndex(vs[0])})
			continue
		}
		p.fixed[k] = vs[:len(vs):len(vs)] // shared by every response: appending copies
	}
	if ct := p.fixed.Get("Content-Type"); ct != "application/json" || len(p.headers) != headerCount(t, p) {
		return nil
	}
	body := probe.Interface()
	if p.body >= 0 {
		body = probe.Field(p.body).Interface()
	}
	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(body); err != nil || !bytes.Equal(want.Bytes(), rec.Body.Bytes()) {
		return nil
	}
	p.status = rec.Code
	return p
}

// visitMethod is t's generated Visit...Response(http.ResponseWriter) error method.
func visitMethod(t reflect.Type) (reflect.Method, bool) {
	writer, errType := reflect.TypeFor[http.ResponseWriter](), reflect.TypeFor[error]()
	for i := range t.NumMethod() {
		m := t.Method(i)
		if strings.HasPrefix(m.Name, "Visit") && strings.HasSuffix(m.Name, "Response") &&
			m.Type.NumIn() == 2 && m.Type.In(1) == writer && m.Type.NumOut() == 1 && m.Type.Out(0) == errType {
			return m, true
		}
	}
	return reflect.Method{}, false
}

const markerPrefix = "\x00reply-probe-"

func marker(i int) string { return markerPrefix + string(rune('A'+i)) }

func markerIndex(s string) int { return int(s[len(markerPrefix)] - 'A') }

// headerCount is how many headers the Headers member of t carries (0 without one).
func headerCount(t reflect.Type, p *plan) int {
	if p.headerStruct < 0 {
		return 0
	}
	return t.Field(p.headerStruct).Type.NumField()
}

// buffer is an encoder writing into its own buffer, kept for reuse.
type buffer struct {
	buf bytes.Buffer
	enc *goccy.Encoder
}

var buffers = sync.Pool{New: func() any {
	b := &buffer{}
	b.enc = goccy.NewEncoder(&b.buf)
	return b
}}

// maxPooled is the largest buffer kept for reuse: a long list is not held on to.
const maxPooled = 64 << 10

func (b *buffer) release() {
	if b.buf.Cap() > maxPooled {
		return
	}
	b.buf.Reset()
	buffers.Put(b)
}
