package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	admingen "github.com/understudy-dev/understudy/gen/admin"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
)

// reference is the validation check does, written out on its own terms: the body read (and
// left as kin leaves a body it has read) and checked for UTF-8, then
// openapi3filter.ValidateRequest on the whole request, the operation as the spec has it
// (security requirements included, with a no-op AuthenticationFunc), then a JSON body's
// lone surrogate escapes and trailing data refused where kin would have decoded it.
func (v *Validator) reference(req *http.Request, r *route, params map[string]string) error {
	var data []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		data, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return &Error{Status: http.StatusRequestEntityTooLarge, In: "body", Reason: fmt.Sprintf("the request body is larger than the limit of %d bytes", mbe.Limit), Cause: err}
			}
			return &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body could not be read", Cause: err}
		}
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
		req.ContentLength = int64(len(data))
		if !utf8.Valid(data) {
			return &Error{Status: http.StatusBadRequest, In: "body", Reason: "the request body is not valid UTF-8"}
		}
		// An operation that takes no body takes an empty JSON value as none.
		v := strings.Trim(string(data), " \t\r\n")
		if inner, ok := strings.CutPrefix(v, "{"); ok && strings.HasSuffix(inner, "}") {
			v = "{" + strings.Trim(strings.TrimSuffix(inner, "}"), " \t\r\n") + "}"
		}
		if r.Operation.RequestBody == nil && (v == "" || v == "{}" || v == "null" || v == `""`) {
			req.Body, req.GetBody, req.ContentLength = http.NoBody, nil, 0
		}
	}
	rt := *r.Route
	rt.Operation = rt.PathItem.GetOperation(rt.Method)
	options := *v.options
	options.AuthenticationFunc = openapi3filter.NoopAuthenticationFunc
	input := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: &rt, Options: &options}
	err := openapi3filter.ValidateRequest(req.Context(), input)
	// A lone surrogate escape in a JSON body the operation takes is refused where the body
	// would be decoded: after the parameters, before the body is looked at otherwise.
	ct := req.Header.Get("Content-Type")
	var re *openapi3filter.RequestError
	rb := r.Operation.RequestBody
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	jsonLike := mt == "application/json" || strings.HasSuffix(mt, "+json")
	if rb != nil && len(data) > 0 && jsonLike && rb.Value.Content.Get(ct) != nil &&
		(err == nil || errors.As(err, &re) && re.RequestBody != nil && re.Parameter == nil) {
		if se := checkSurrogates(data); se != nil {
			return se
		}
	}
	// kin ignores what follows a JSON body's value; it is refused where the body is decoded,
	// before the schema is looked at.
	if (err == nil || bodySchemaError(err)) && rb != nil && len(data) > 0 && jsonLike && !json.Valid(data) {
		err = trailingError(input, rb.Value, data)
	}
	if err != nil {
		return convert(err, r.Operation, data)
	}
	return nil
}

// outcome is everything about a validated request that the handlers can see.
type outcome struct {
	Err           string
	ContentLength int64
	HasGetBody    bool
	Validated     bool
	Value         any
	Body          string
	GetBody       string
}

func observe(req *http.Request, err error) outcome {
	o := outcome{ContentLength: req.ContentLength, HasGetBody: req.GetBody != nil}
	if err != nil {
		var ve *Error
		if errors.As(err, &ve) {
			cause := ""
			if ve.Cause != nil {
				cause = ve.Cause.Error()
				// kin appends the schema (descriptions included, which the server's
				// documents leave out) and the value; clients see only Reason.
				cause, _, _ = strings.Cut(cause, "\nSchema:\n")
			}
			o.Err = fmt.Sprintf("%d|%s|%s|%s|%v|%s", ve.Status, ve.In, ve.Name, ve.Reason, ve.Missing, cause)
		} else {
			o.Err = "other: " + err.Error()
		}
		return o
	}
	vb, validated := req.Body.(interface{ ValidatedValue() any })
	if validated {
		o.Validated, o.Value = true, vb.ValidatedValue()
	}
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		o.Body = string(b)
	}
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(rc)
			o.GetBody = string(b)
		}
	}
	return o
}

type transfer int

const (
	withLength  transfer = iota // a server request with Content-Length
	chunked                     // a server request without (ContentLength -1)
	clientStyle                 // http.NewRequest: GetBody set
)

func newRequest(method, target, contentType, body string, t transfer) *http.Request {
	var req *http.Request
	switch t {
	case clientStyle:
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, _ = http.NewRequestWithContext(context.Background(), method, "http://example.com"+target, r)
	default:
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req = httptest.NewRequest(method, target, r)
		if t == chunked && body != "" {
			req.ContentLength = -1
			req.Body = io.NopCloser(strings.NewReader(body))
		}
	}
	if contentType != "-" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// TestCheckMatchesKin runs many requests against every operation of every spec, through
// the validator as the server runs it (on the documents without their documentation:
// Load) and through reference on the documents as written, and wants the same
// outcome: error, body, value bound, Content-Length and GetBody.
func TestCheckMatchesKin(t *testing.T) {
	specs := map[string]func() (*openapi3.T, error){
		"authorization": authzgen.GetSpec, "accounts": accountsgen.GetSpec, "compute": computegen.GetSpec, "admin": admingen.GetSpec,
	}
	bodies := []string{
		"", `{}`, `[]`, `null`, `1`, `"s"`, `""`, " { } \n", `{"a":1}`, `{"a":1} trailing`, `{"a":1}{"b":2}`, `{bad`, "{\"a\":\"\xff\"}",
		`{"name":"x","properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`,
		`{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","scope":"/x","principalType":"User"}}`,
		`{"properties":{"principalId":"nope","roleDefinitionId":7}}`,
		`{"account":"acct_123","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/r"}}}`,
		`{"account":"acct_123","use_case":{"type":"account_onboarding"}}`,
		`{"configuration":{"recipient":{}}}`,
		`{"name":"fr-1","portRange":"443-443"}`, `{"name":"fr-1","portRange":443}`, `{"name":"Bad Name"}`, `{"name":"fr-1","id":"123","kind":"compute#forwardingRule"}`,
		`{"labels":{"env":"prod","n":"v1"},"labelFingerprint":"42WmSpB8rSM="}`, `{"labels":{"env":1}}`,
		`{"name":"g-1","intent":{"availabilitySla":"NO_SLA"}}`, `{"name":"g-1","intent":{"availabilitySla":"MAYBE"}}`,
		`{"n":1e400}`, `{"n":12345678901234567890}`, `{"a":1,"a":2}`,
		`display_name=Jenny&nonce=abc`,
		// What follows a valid value: white space is accepted, anything else refused.
		"{\"name\":\"fr-1\",\"portRange\":\"443-443\"} \n\t\r", `{"name":"fr-1","portRange":"443-443"}xyz`,
		`{"name":"g-1","intent":{"availabilitySla":"NO_SLA"}} {}`, "{\"labels\":{\"env\":\"prod\"}}\x00\x01garbage",
		`{"display_name":"trail"}]]]]`, `{"a":1} {"a":2}`,
		// Surrogate escapes: lone ones are refused (before the schema, after a malformed
		// start), pairs are characters.
		`{"a":"\ud800"}`, `{"display_name":"x\udc00"}`, `{"name":"fr-1","description":"\ud83d\ude00"}`, `{"name":"fr-1","description":"\ud83d"}`,
		`{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","description":"\uDBFF"}}`,
		`{"\ud800":1}`, `{bad "\ud800"}`, `{"a":"\ud800"} trailing`, `{"a":"\\ud800"}`, `{"a":1,"a":"\ud800"}`,
	}
	contentTypes := []string{"application/json", "application/json; charset=utf-8", " Application/JSON ", "text/plain", "-", "",
		"application/x-www-form-urlencoded", "application/merge-patch+json", "application/json;", "application/jsonx"}
	raw := map[string]func() ([]byte, error){
		"authorization": authzgen.GetSpecJSON, "accounts": accountsgen.GetSpecJSON, "compute": computegen.GetSpecJSON, "admin": admingen.GetSpecJSON,
	}
	for api, get := range specs {
		full, err := get()
		if err != nil {
			t.Fatal(err)
		}
		full.Servers = nil // as the server loads them
		// What the server validates with: the same document without its documentation.
		lean, err := Load(api, raw[api])
		if err != nil {
			t.Fatal(err)
		}
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			compareAll(t, api, full, lean, bodies, contentTypes)
		})
	}
}

// compareAll checks every operation of lean with this package's check against kin-openapi's
// own validation of the same operation of full: the same outcome for every request.
func compareAll(t *testing.T, api string, full, lean *openapi3.T, bodies, contentTypes []string) {
	{
		for _, allowRO := range []bool{false, true} {
			v, err := New(lean, Options{AllowReadOnly: allowRO})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := New(full, Options{AllowReadOnly: allowRO})
			if err != nil {
				t.Fatal(err)
			}
			if len(ref.routes) != len(v.routes) {
				t.Fatalf("%s: %d operations in the full document, %d in the lean one", api, len(ref.routes), len(v.routes))
			}
			ids := make([]string, 0, len(v.routes))
			for id := range v.routes {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			n, validated := 0, 0
			for _, id := range ids {
				r, refRoute := v.routes[id], ref.routes[id]
				if refRoute == nil {
					t.Fatalf("%s %s: not in the full document", api, id)
				}
				params := map[string]string{}
				headers := map[string]string{}
				target := r.Path
				// The full document's parameters, with their examples.
				for _, ref := range slices.Concat(refRoute.PathItem.Parameters, refRoute.Operation.Parameters) {
					p := ref.Value
					switch p.In {
					case openapi3.ParameterInPath:
						params[p.Name] = paramValue(p)
						target = strings.ReplaceAll(target, "{"+p.Name+"}", params[p.Name])
					case openapi3.ParameterInHeader:
						if p.Required {
							headers[p.Name] = paramValue(p)
						}
					}
				}
				for qi, query := range []string{"?api-version=2022-04-01&requestId=ce2ce14e-85d7-4629-bdbc-454d0519d987&limit=5", "", "?api-version=1&limit=x&limit=3"} {
					// Every body, content type and transfer with valid parameters; a few
					// with missing or invalid ones.
					bodies, contentTypes, transfers := bodies, contentTypes, []transfer{withLength, chunked, clientStyle}
					if qi > 0 {
						bodies, contentTypes, transfers = []string{"", `{}`, "{\"a\":\"\xff\"}", `{bad`}, contentTypes[:1], transfers[:2]
					}
					for _, body := range bodies {
						for _, ct := range contentTypes {
							for _, tr := range transfers {
								want := checkOutcome(ref, refRoute, params, headers, r.Method, target+query, ct, body, tr, true)
								got := checkOutcome(v, r, params, headers, r.Method, target+query, ct, body, tr, false)
								if !reflect.DeepEqual(want, got) {
									t.Errorf("%s %s %s%s, %q, body %q, transfer %d:\nkin:  %+v\nhere: %+v", api, id, r.Method, query, ct, body, tr, want, got)
								}
								n++
								if got.Validated {
									validated++
								}
							}
						}
					}
				}
			}
			t.Logf("%s (read-only allowed %v): %d requests compared, %d valid with a body value", api, allowRO, n, validated)
		}
	}
}

func checkOutcome(v *Validator, r *route, params, headers map[string]string, method, target, ct, body string, tr transfer, reference bool) outcome {
	req := newRequest(method, target, ct, body, tr)
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	p := make(map[string]string, len(params))
	for k, val := range params {
		p[k] = val
	}
	if reference {
		return observe(req, v.reference(req, r, p))
	}
	_, err := v.check(req, r, p, req.URL.Query(), nil)
	return observe(req, err)
}

// paramValue is a valid value for p where the spec gives an example.
func paramValue(p *openapi3.Parameter) string {
	ex := p.Example
	if ex == nil && p.Schema != nil && p.Schema.Value != nil {
		ex = p.Schema.Value.Example
		if ex == nil && p.Schema.Value.Format == "uuid" {
			ex = "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
		}
	}
	for _, e := range p.Examples {
		if ex == nil && e.Value != nil {
			ex = e.Value.Value
		}
	}
	if s, ok := ex.(string); ok {
		return s
	}
	if ex != nil {
		return fmt.Sprint(ex)
	}
	return "abc-1"
}

// TestCheckBodyLimit: a body over the limit is a 413 whatever else is wrong.
func TestCheckBodyLimit(t *testing.T) {
	doc, err := computegen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []transfer{withLength, chunked} {
		req := newRequest(http.MethodPost, "/compute/v1/projects/p/global/forwardingRules", "application/json", `{"name":"fr-1","portRange":"443-443"}`, tr)
		req.Body = http.MaxBytesReader(httptest.NewRecorder(), req.Body, 10)
		_, err := v.check(req, v.routes["globalForwardingRules.insert"], map[string]string{"project": "p"}, req.URL.Query(), nil)
		var ve *Error
		if !errors.As(err, &ve) || ve.Status != http.StatusRequestEntityTooLarge || !strings.Contains(ve.Reason, "limit of 10 bytes") {
			t.Errorf("transfer %d: %v", tr, err)
		}
	}
}

// BenchmarkCheckBody validates typical JSON bodies as the server does, from reading the
// body to the handler's turn: a role assignment PUT (no escapes in it; the common case)
// and one whose description has escapes (\", \u00e9, an escaped pair for an emoji), and an
// account link. Parameters and bodies are valid.
func BenchmarkCheckBody(b *testing.B) {
	authz, err := Load("authorization", authzgen.GetSpecJSON)
	if err != nil {
		b.Fatal(err)
	}
	accts, err := Load("accounts", accountsgen.GetSpecJSON)
	if err != nil {
		b.Fatal(err)
	}
	const assignment = `{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7","description":%s}}`
	for _, bc := range []struct {
		name, op, target string
		doc              *openapi3.T
		params           map[string]string
		headers          map[string]string
		body             string
	}{
		{"assignment", "RoleAssignments_Create", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01", authz,
			map[string]string{"scope": "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2", "roleAssignmentName": "b0f43c54-e787-4862-89b1-a653fa9cf747"}, nil,
			fmt.Sprintf(assignment, `"Reader for the nightly export job of the billing team"`)},
		{"assignment escapes", "RoleAssignments_Create", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01", authz,
			map[string]string{"scope": "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2", "roleAssignmentName": "b0f43c54-e787-4862-89b1-a653fa9cf747"}, nil,
			fmt.Sprintf(assignment, `"Reader for the \"nightly\" export job of the caf\u00e9 team \ud83d\ude00"`)},
		{"account link", "createAccountLink", "/v2/core/account_links", accts, map[string]string{}, map[string]string{"Service-Version": "2026-05-27.dahlia"},
			`{"account":"acct_1Nv0FGQ9RKHgCVdK","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh","return_url":"https://example.com/return"}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			v, err := New(bc.doc, Options{AllowReadOnly: bc.doc == authz})
			if err != nil {
				b.Fatal(err)
			}
			r := v.routes[bc.op]
			req := newRequest(r.Method, bc.target, "application/json", bc.body, withLength)
			for k, val := range bc.headers {
				req.Header.Set(k, val)
			}
			query := req.URL.Query()
			body := strings.NewReader(bc.body)
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(bc.body)
				req.Body, req.GetBody = io.NopCloser(body), nil
				if _, err := v.check(req, r, maps.Clone(bc.params), query, nil); err != nil {
					b.Fatal(err)
				}
				if _, ok := req.Body.(interface{ ValidatedValue() any }); !ok {
					b.Fatal("no validated value")
				}
			}
		})
	}
}

// TestDeepValueErrorStaysSmall: a body refused for a deeply nested value (an unknown member
// holding 3000 nested arrays) is described without the value. kin's SchemaError.Error()
// appends the value as indented JSON, which grows with the square of the nesting (18 MB
// for this 6 KB body, gigabytes for a 1 MB one), and convert asks for it.
func TestDeepValueErrorStaysSmall(t *testing.T) {
	doc, err := Load("accounts", accountsgen.GetSpecJSON)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(doc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const depth = 3000
	for _, body := range []string{
		`{"zz":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`,
		`{"metadata":{"a":` + strings.Repeat(`{"b":`, depth) + `1` + strings.Repeat("}", depth) + `}}`,
	} {
		req := newRequest(http.MethodPost, "/v2/core/accounts", "application/json", body, withLength)
		req.Header.Set("Service-Version", "2026-05-27.dahlia")
		err := v.CheckRequest("createAccount", req, nil)
		var ve *Error
		if !errors.As(err, &ve) || ve.Status != http.StatusBadRequest {
			t.Fatalf("got %v, want a 400", err)
		}
		var se *openapi3.SchemaError
		if !errors.As(err, &se) {
			t.Fatalf("got %v, want a schema error", err)
		}
		if n := len(se.Error()); n > 1000 {
			t.Errorf("%.40s...: the schema error is %d bytes long, want it without the value", body, n)
		}
	}
}
