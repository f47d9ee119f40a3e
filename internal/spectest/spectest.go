// Package spectest checks, in tests, that every response the server sends matches the
// OpenAPI spec of the operation it answers: status, content type and body schema. Wrap a
// client's transport with Transport and every test that uses the client checks the contract
// as a side effect.
package spectest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/understudy-dev/understudy/server/validate"
)

// matcher finds the operation of a request by its path template. It is written for tests
// and follows the server's rules: {scope} spans several segments (the last match of the
// fixed part wins), other parameters one segment, fixed words compare case-insensitively.
type matcher struct {
	doc    *openapi3.T
	routes []route
}

type route struct {
	re      *regexp.Regexp
	params  []string
	literal int // length of the fixed part: the more, the more specific
	r       *routers.Route
}

var paramRe = regexp.MustCompile(`\{([^}]+)\}`)

func newMatcher(doc *openapi3.T) *matcher {
	m := &matcher{doc: doc}
	for path, item := range doc.Paths.Map() {
		var params []string
		pattern := "(?i)^"
		rest := path
		for _, loc := range paramRe.FindAllStringSubmatchIndex(path, -1) {
			name := path[loc[2]:loc[3]]
			pattern += regexp.QuoteMeta(path[len(path)-len(rest) : loc[0]])
			rest = path[loc[1]:]
			params = append(params, name)
			if name == "scope" {
				pattern += "(.+)"
			} else {
				pattern += "([^/]+)"
			}
		}
		pattern += regexp.QuoteMeta(rest) + "$"
		re := regexp.MustCompile(pattern)
		for method, op := range item.Operations() {
			m.routes = append(m.routes, route{re: re, params: params, literal: len(paramRe.ReplaceAllString(path, "")),
				r: &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}})
		}
	}
	sort.Slice(m.routes, func(i, j int) bool { return m.routes[i].literal > m.routes[j].literal })
	return m
}

func (m *matcher) find(req *http.Request) (*routers.Route, map[string]string, bool) {
	for _, rt := range m.routes {
		if rt.r.Method != req.Method {
			continue
		}
		sub := rt.re.FindStringSubmatch(req.URL.Path)
		if sub == nil {
			continue
		}
		params := map[string]string{}
		for i, name := range rt.params {
			params[name] = sub[i+1]
		}
		return rt.r, params, true
	}
	return nil, nil, false
}

// Transport returns a RoundTripper that sends requests through base (nil: the default
// transport) and fails tb when a response to an operation of doc does not match the spec.
// Responses to paths the spec does not have (404s, 405s) are only checked to be JSON.
func Transport(tb testing.TB, doc *openapi3.T, base http.RoundTripper) http.RoundTripper {
	registerDecoders.Do(func() {
		// HTML pages (the hosted flow) are plain strings in the specs; kin-openapi has no
		// decoder for text/html out of the box.
		openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	})
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{tb: tb, m: newMatcher(doc), base: base}
}

var registerDecoders sync.Once

type transport struct {
	tb   testing.TB
	m    *matcher
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := t.check(req, resp, body); err != nil {
		t.tb.Errorf("spectest: %s %s -> %d does not match the spec: %v\nbody: %.500s", req.Method, req.URL.Path, resp.StatusCode, err, body)
	}
	return resp, nil
}

func (t *transport) check(req *http.Request, resp *http.Response, body []byte) error {
	rt, params, ok := t.m.find(req)
	if !ok {
		if len(body) > 0 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			return fmt.Errorf("content type %q for a path outside the spec", resp.Header.Get("Content-Type"))
		}
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: rt},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
			// The specs' formats, as the server checks requests' (uuid, email).
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(validate.Formats())}},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}
