package server_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/understudytest"

	admingen "github.com/understudy-dev/understudy/gen/admin"
)

// apiSpecs are every spec the server serves, as written (examples included: the walk builds
// its valid requests from them; the server validates with the same documents without
// them), with a check that a body is that API's error envelope.
var apiSpecs = []struct {
	name     string
	load     func() (*openapi3.T, error)
	envelope func(body []byte) (message string, err error)
}{
	{"authorization", authzgen.GetSpec, armEnvelope},
	{"accounts", accountsgen.GetSpec, v2Envelope},
	{"compute", computegen.GetSpec, googleEnvelope},
	{"admin", admingen.GetSpec, adminEnvelope},
}

func armEnvelope(body []byte) (string, error) {
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := strictDecode(body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		return "", fmt.Errorf("not an ARM envelope (%v)", err)
	}
	return e.Error.Message, nil
}

func v2Envelope(body []byte) (string, error) {
	var e struct {
		Error struct {
			Type, Message string
			UserMessage   *string `json:"user_message"`
		} `json:"error"`
	}
	if err := strictDecode(body, &e); err != nil || e.Error.Type == "" || e.Error.Message == "" {
		return "", fmt.Errorf("not a v2 envelope (%v)", err)
	}
	if !strings.Contains(string(body), `"user_message"`) || !strings.Contains(string(body), `"doc_url"`) {
		return "", fmt.Errorf("v2 envelope without user_message and doc_url")
	}
	return e.Error.Message, nil
}

func googleEnvelope(body []byte) (string, error) {
	var e struct {
		Error struct {
			Code    int
			Message string
			Errors  []struct{ Message, Domain, Reason string }
		} `json:"error"`
	}
	if err := strictDecode(body, &e); err != nil || e.Error.Code == 0 || e.Error.Message == "" || len(e.Error.Errors) == 0 || e.Error.Errors[0].Reason == "" {
		return "", fmt.Errorf("not a Google envelope (%v)", err)
	}
	return e.Error.Message, nil
}

func adminEnvelope(body []byte) (string, error) { return armEnvelope(body) } // same shape: {"error":{"code","message"}}

func strictDecode(body []byte, v any) error { return json.Unmarshal(body, v) }

// htmlPage is the hosted flow's "envelope": an HTML page; its text stands for the message.
func htmlPage(body []byte) (string, error) {
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(string(body))), "<!doctype html>") {
		return "", fmt.Errorf("not an HTML page")
	}
	return html.UnescapeString(string(body)), nil
}

// violation is a request that breaks one rule of an operation's spec, and the name its
// error message must mention (proof that validation, not a handler, rejected it).
type violation struct {
	what, mention string
	mutate        func(r *request)
}

type request struct {
	path        map[string]string
	query       url.Values
	headers     http.Header
	cookies     map[string]string
	body        string
	contentType string
}

// TestEveryOperationValidates walks every operation of every spec: a request that violates
// the spec must get a 4xx in the API's envelope whose message names what was wrong. This is
// what catches validation middleware silently not attached (pitfall 1 of the stack notes).
func TestEveryOperationValidates(t *testing.T) {
	srv := understudytest.Start(t)
	for _, api := range apiSpecs {
		doc, err := api.load()
		if err != nil {
			t.Fatal(err)
		}
		paths := doc.Paths.InMatchingOrder()
		sort.Strings(paths)
		ops := 0
		for _, path := range paths {
			item := doc.Paths.Value(path)
			for method, op := range item.Operations() {
				ops++
				params := append(openapi3.Parameters{}, item.Parameters...)
				params = append(params, op.Parameters...)
				base := validRequest(params, op)
				vs := violations(params, op)
				if len(vs) == 0 {
					t.Errorf("%s %s: no way found to violate its spec", api.name, op.OperationID)
				}
				for _, v := range vs {
					t.Run(api.name+"/"+op.OperationID+"/"+v.what, func(t *testing.T) {
						r := base.clone()
						v.mutate(r)
						status, body := send(t, srv.URL, method, path, r)
						if status < 400 || status >= 500 {
							t.Fatalf("status %d, want 4xx: %s", status, body)
						}
						envelope := api.envelope
						if strings.HasPrefix(path, "/r/") {
							envelope = htmlPage // the hosted flow answers browsers
						}
						msg, err := envelope(body)
						if err != nil {
							t.Fatalf("%v: %s", err, body)
						}
						if !strings.Contains(msg, v.mention) {
							t.Errorf("message %q does not mention %q", msg, v.mention)
						}
					})
				}
			}
		}
		if ops == 0 {
			t.Errorf("%s: spec has no operations", api.name)
		}
	}
}

// validRequest fills every parameter from the spec's examples, so that each violation
// breaks exactly one thing.
func validRequest(params openapi3.Parameters, op *openapi3.Operation) *request {
	r := &request{path: map[string]string{}, query: url.Values{}, headers: http.Header{}, cookies: map[string]string{}}
	if op.RequestBody != nil {
		r.body, r.contentType = exampleBody(op.RequestBody.Value)
	}
	r.headers.Set("Authorization", "Bearer sk_test_understudy")
	for _, p := range params {
		v := exampleOf(p.Value)
		switch p.Value.In {
		case "path":
			r.path[p.Value.Name] = v
		case "query":
			if p.Value.Required {
				r.query.Set(p.Value.Name, v)
			}
		case "header":
			if p.Value.Required {
				r.headers.Set(p.Value.Name, v)
			}
		}
	}
	return r
}

// exampleBody is the operation's example body, encoded for its content type.
func exampleBody(rb *openapi3.RequestBody) (body, contentType string) {
	if mt := rb.Content.Get("application/json"); mt != nil && mt.Example != nil {
		b, _ := json.Marshal(mt.Example)
		return string(b), "application/json"
	}
	if mt := rb.Content.Get("application/x-www-form-urlencoded"); mt != nil {
		form := url.Values{}
		if ex, ok := mt.Example.(map[string]any); ok {
			for k, v := range ex {
				form.Set(k, fmt.Sprint(v))
			}
		}
		return form.Encode(), "application/x-www-form-urlencoded"
	}
	return "", "application/json"
}

func exampleOf(p *openapi3.Parameter) string {
	if p.Example != nil {
		return fmt.Sprint(p.Example)
	}
	if s := p.Schema.Value; s != nil {
		if s.Example != nil {
			return fmt.Sprint(s.Example)
		}
		if len(s.Enum) > 0 {
			return fmt.Sprint(s.Enum[0])
		}
	}
	return "example"
}

func violations(params openapi3.Parameters, op *openapi3.Operation) []violation {
	var vs []violation
	for _, pr := range params {
		p := pr.Value
		if p.Schema == nil || p.Schema.Value == nil || p.Name == "api-version" {
			continue // api-version is ARM's own check, before validation
		}
		s := p.Schema.Value
		var bad string
		switch {
		case s.MaxLength != nil && *s.MaxLength < 5000:
			bad = strings.Repeat("a", int(*s.MaxLength)+1)
		case len(s.Enum) > 0 || s.Pattern != "":
			bad = "!not-valid!"
		case s.Type.Is("integer"):
			bad = "not-a-number"
		case s.Format == "uuid":
			bad = "not-a-uuid"
		default:
			continue
		}
		name, in := p.Name, p.In
		vs = append(vs, violation{what: in + " " + name, mention: name, mutate: func(r *request) {
			switch in {
			case "path":
				r.path[name] = bad
			case "query":
				r.query.Set(name, bad)
			case "header":
				r.headers.Set(name, bad)
			case "cookie":
				r.cookies[name] = bad
			}
		}})
		if p.Required && in != "path" {
			vs = append(vs, violation{what: "missing " + in + " " + name, mention: name, mutate: func(r *request) {
				r.query.Del(name)
				r.headers.Del(name)
			}})
		}
	}
	if op.RequestBody == nil {
		vs = append(vs, violation{what: "unexpected body", mention: "no request body", mutate: func(r *request) { r.body = `{"unexpected":true}` }})
		return vs
	}
	for ct, mt := range op.RequestBody.Value.Content {
		if mt.Schema != nil && len(mt.Schema.Value.Required) > 0 {
			req, empty := mt.Schema.Value.Required[0], "{}"
			if ct != "application/json" {
				empty = "unrelated=1"
			}
			vs = append(vs, violation{what: "body without " + req, mention: req, mutate: func(r *request) { r.body, r.contentType = empty, ct }})
		}
	}
	vs = append(vs, violation{what: "body of the wrong type", mention: "", mutate: func(r *request) { r.body, r.contentType = `["an array"]`, "application/json" }})
	if op.RequestBody.Value.Required {
		vs = append(vs, violation{what: "missing body", mention: "body", mutate: func(r *request) { r.body = "" }})
	}
	return vs
}

func (r *request) clone() *request {
	c := &request{path: map[string]string{}, query: url.Values{}, headers: r.headers.Clone(), cookies: map[string]string{}, body: r.body, contentType: r.contentType}
	for k, v := range r.cookies {
		c.cookies[k] = v
	}
	for k, v := range r.path {
		c.path[k] = v
	}
	for k, v := range r.query {
		c.query[k] = append([]string(nil), v...)
	}
	return c
}

func send(t *testing.T, base, method, template string, r *request) (int, []byte) {
	t.Helper()
	path := template
	for k, v := range r.path {
		esc := url.PathEscape(v)
		if k == "scope" {
			esc = v // ARM clients send the scope raw
		}
		path = strings.ReplaceAll(path, "{"+k+"}", esc)
	}
	u := base + path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	headers := map[string]string{}
	for k := range r.headers {
		headers[k] = r.headers.Get(k)
	}
	var cookies []string
	for k, v := range r.cookies {
		cookies = append(cookies, k+"="+v)
	}
	if len(cookies) > 0 {
		headers["Cookie"] = strings.Join(cookies, "; ")
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
		headers["Content-Type"] = r.contentType
	}
	return do(t, strings.ToUpper(method), u, headers, body, 0)
}
