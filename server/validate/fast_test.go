package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/oapi-codegen/runtime"

	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	admingen "github.com/understudy-dev/understudy/gen/admin"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
)

// quickRoute is an operation whose body the quick check covers.
type quickRoute struct {
	name, id string
	r        *route
}

// quickRoutes lists, in a stable order, every operation of every spec with a quick check,
// read-only members allowed and not.
func quickRoutes(t testing.TB) []quickRoute {
	var out []quickRoute
	for _, spec := range []struct {
		api string
		get func() (*openapi3.T, error)
	}{{"authorization", authzgen.GetSpec}, {"accounts", accountsgen.GetSpec}, {"compute", computegen.GetSpec}, {"admin", admingen.GetSpec}} {
		doc, err := spec.get()
		if err != nil {
			t.Fatal(err)
		}
		for _, allowRO := range []bool{false, true} {
			v, err := New(doc, Options{AllowReadOnly: allowRO})
			if err != nil {
				t.Fatal(err)
			}
			for id, r := range v.routes {
				if r.quick != nil {
					out = append(out, quickRoute{fmt.Sprintf("%s %s ro=%v", spec.api, id, allowRO), id, r})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// kinAccepts is what kin says of body, decoded and visited as checkBody does.
func kinAccepts(r *route, body []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	mt := r.body.Content.Get("application/json")
	return v, mt.Schema.Value.VisitJSON(v, r.bodyOpts...) == nil
}

// checkQuick fails when the quick check accepts body and kin does not, or when they would
// bind different values.
func checkQuick(t testing.TB, qr quickRoute, body []byte) (quick bool) {
	t.Helper()
	if !quickAccept(qr.r.quick, body, qr.r.bodyOpts) {
		return false
	}
	kinValue, ok := kinAccepts(qr.r, body)
	if !ok {
		t.Errorf("%s: the quick check accepts a body kin rejects: %s", qr.name, body)
		return true
	}
	var bound any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&bound); err != nil || !reflect.DeepEqual(bound, kinValue) {
		t.Errorf("%s: encoding/json reads %v (%v), kin %v, from %s", qr.name, bound, err, kinValue, body)
	}
	// The handler's type, bound as before (from kin's value, as the generated handler does,
	// falling back to Echo's decoder) and as now (JSONSerializer from the bytes).
	if newBody := bodyTypes[qr.id]; newBody != nil {
		before, now := newBody(), newBody()
		if runtime.BindJSONValue(kinValue, before) != nil {
			if err := json.NewDecoder(bytes.NewReader(body)).Decode(before); err != nil {
				before = err
			}
		}
		if err := jsonv2.Unmarshal(body, now, quickBodyOptions); err != nil {
			now = err
		}
		if !reflect.DeepEqual(before, now) {
			t.Errorf("%s: %s is bound as %#v, was %#v", qr.name, body, now, before)
		}
	} else {
		t.Errorf("%s: no body type to bind into", qr.id)
	}
	return true
}

// bodyTypes makes, per operation with a JSON body, what its generated handler binds.
var bodyTypes = map[string]func() any{
	"RoleAssignments_Create":              func() any { return new(authzgen.RoleAssignmentsCreateJSONRequestBody) },
	"createAccountLink":                   func() any { return new(accountsgen.CreateAccountLinkJSONRequestBody) },
	"createAccount":                       func() any { return new(accountsgen.CreateAccountJSONRequestBody) },
	"updateAccount":                       func() any { return new(accountsgen.UpdateAccountJSONRequestBody) },
	"closeAccount":                        func() any { return new(accountsgen.CloseAccountJSONRequestBody) },
	"advanceClock":                        func() any { return new(admingen.AdvanceClockJSONRequestBody) },
	"createFault":                         func() any { return new(admingen.CreateFaultJSONRequestBody) },
	"globalForwardingRules.insert":        func() any { return new(computegen.GlobalForwardingRulesInsertJSONRequestBody) },
	"globalForwardingRules.setLabels":     func() any { return new(computegen.GlobalForwardingRulesSetLabelsJSONRequestBody) },
	"interconnectAttachmentGroups.insert": func() any { return new(computegen.InterconnectAttachmentGroupsInsertJSONRequestBody) },
	"interconnectAttachmentGroups.patch":  func() any { return new(computegen.InterconnectAttachmentGroupsPatchJSONRequestBody) },
	"interconnects.insert":                func() any { return new(computegen.InterconnectsInsertJSONRequestBody) },
	"interconnectAttachments.insert":      func() any { return new(computegen.InterconnectAttachmentsInsertJSONRequestBody) },
}

// sample builds a value for schema s from its examples, enums and defaults (minimal: only
// required members and the first of each), not always a valid one.
func sample(s *openapi3.Schema, depth int) any {
	switch {
	case s.Example != nil:
		return s.Example
	case len(s.Enum) > 0:
		return s.Enum[0]
	case s.Default != nil:
		return s.Default
	}
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		m := map[string]any{}
		if depth > 6 {
			return m
		}
		for name, p := range s.Properties {
			if p.Value.ReadOnly {
				continue
			}
			if slices.Contains(s.Required, name) || depth < 3 {
				m[name] = sample(p.Value, depth+1)
			}
		}
		return m
	case s.Type.Is("array"):
		if s.Items == nil || depth > 6 {
			return []any{}
		}
		n := max(1, int(s.MinItems))
		out := make([]any, n)
		for i := range out {
			out[i] = sample(s.Items.Value, depth+1)
		}
		return out
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is("boolean"):
		return true
	case s.Format == "uuid":
		return "ce2ce14e-85d7-4629-bdbc-454d0519d987"
	case s.Format == "uri":
		return "https://example.com/x"
	case s.Format == "date-time":
		return "2026-01-02T03:04:05Z"
	}
	return "abc-1"
}

// mutations of a sample: every member dropped, made null, given each kind of wrong value,
// renamed to another case, repeated; unknown and read-only members added; every string
// stretched; and the document cut short or followed by more.
func mutations(s *openapi3.Schema, v any) []any {
	var out []any
	switch v := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names)
		with := func(k string, x any) map[string]any {
			m := make(map[string]any, len(v)+1)
			for kk, vv := range v {
				m[kk] = vv
			}
			m[k] = x
			return m
		}
		for _, k := range names {
			m := with(k, nil)
			delete(m, k)
			out = append(out, m)
			for _, bad := range []any{nil, 1, 1.5, "x", true, map[string]any{}, []any{}, strings.Repeat("é", 300)} {
				out = append(out, with(k, bad))
			}
			if upper := strings.ToUpper(k[:1]) + k[1:]; upper != k {
				// Renamed, and given beside the member with another value.
				renamed := with(upper, v[k])
				delete(renamed, k)
				out = append(out, renamed, with(upper, "other"))
			}
			var ps *openapi3.Schema
			if s != nil && s.Properties[k] != nil {
				ps = s.Properties[k].Value
			}
			for _, mv := range mutations(ps, v[k]) {
				out = append(out, with(k, mv))
			}
		}
		out = append(out, with("unknownMember", "x"))
		if s != nil {
			for name, p := range s.Properties {
				if p.Value.ReadOnly {
					out = append(out, with(name, sample(p.Value, 5)))
				}
			}
		}
	case []any:
		out = append(out, []any{}, append(append([]any{}, v...), v...), append(append([]any{}, v...), 7))
		if len(v) > 0 {
			var is *openapi3.Schema
			if s != nil && s.Items != nil {
				is = s.Items.Value
			}
			for _, mv := range mutations(is, v[0]) {
				out = append(out, append([]any{mv}, v[1:]...))
			}
		}
	case string:
		out = append(out, "", v+"-", strings.ToUpper(v), v+strings.Repeat("a", 70), " "+v, "x\u00e9\U0001F600")
	}
	return out
}

// TestQuickCheckAgreesWithKin builds a body for every operation the quick check covers and
// hundreds of variations of each, and wants the quick check to accept only what kin
// accepts, and to accept the valid samples themselves.
func TestQuickCheckAgreesWithKin(t *testing.T) {
	routes := quickRoutes(t)
	n, quick, valid := 0, 0, 0
	for _, qr := range routes {
		schema := qr.r.body.Content.Get("application/json").Schema.Value
		base := sample(schema, 0)
		bodies := [][]byte{}
		for _, v := range append([]any{base}, mutations(schema, base)...) {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, b)
		}
		b0 := bodies[0]
		bodies = append(bodies, append(b0[:len(b0):len(b0)], " \n"...), append(b0[:len(b0):len(b0)], " {}"...), b0[:len(b0)-1])
		if len(b0) > 2 && b0[0] == '{' {
			// A repeated member, and a member name written with an escape.
			bodies = append(bodies, append([]byte(`{"unknownMember":1,"unknownMember":2,`), b0[1:]...))
			if i := bytes.IndexByte(b0[1:], '"'); i == 0 {
				bodies = append(bodies, append([]byte(`{"\u0061`), b0[2:]...))
			}
		}
		for _, b := range bodies {
			n++
			if _, ok := kinAccepts(qr.r, b); ok {
				valid++
			}
			if checkQuick(t, qr, b) {
				quick++
			}
		}
		if _, ok := kinAccepts(qr.r, b0); ok && !quickAccept(qr.r.quick, b0, qr.r.bodyOpts) {
			t.Errorf("%s: the quick check leaves a valid sample to kin: %s", qr.name, b0)
		}
	}
	t.Logf("%d operations, %d bodies, %d valid for kin, %d accepted by the quick check", len(routes), n, valid, quick)
	if quick == 0 {
		t.Fatal("the quick check accepted nothing")
	}
}

// FuzzQuickCheck: the quick check never accepts a body kin rejects, for any operation.
func FuzzQuickCheck(f *testing.F) {
	routes := quickRoutes(f)
	for i, qr := range routes {
		schema := qr.r.body.Content.Get("application/json").Schema.Value
		if b, err := json.Marshal(sample(schema, 0)); err == nil {
			f.Add(uint16(i), b)
		}
	}
	f.Add(uint16(0), []byte(`{"a":1,"A":2}`))
	f.Fuzz(func(t *testing.T, op uint16, body []byte) {
		checkQuick(t, routes[int(op)%len(routes)], body)
	})
}

// specValidators is a validator with the default options for each API's spec.
func specValidators(t testing.TB) []*Validator {
	var out []*Validator
	for _, spec := range []func() (*openapi3.T, error){authzgen.GetSpec, accountsgen.GetSpec, computegen.GetSpec, admingen.GetSpec} {
		doc, err := spec()
		if err != nil {
			t.Fatal(err)
		}
		v, err := New(doc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestQuickParamsAgreeWithKin tries values of every parameter the quick check covers, of
// every operation of every spec: the quick check must accept only what kin's
// ValidateParameter accepts, and accept the spec's own examples.
func TestQuickParamsAgreeWithKin(t *testing.T) {
	values := []string{"", "a", "abc-1", "Bad Value", "a/b", "..", "%2F", "é", "x\u00e9\U0001F600", strings.Repeat("a", 64),
		strings.Repeat("b", 5000), "0", "-1", "1.5", "true", "ce2ce14e-85d7-4629-bdbc-454d0519d987", "2022-04-01", "2026-05-27.dahlia",
		"CE2CE14E-85D7-4629-BDBC-454D0519D987", "ce2ce14e-85d7-4629-bdbc-454d0519d98g", "ce2ce14e85d74629bdbc454d0519d987",
		"00000000-0000-0000-0000-000000000000", "ce2ce14e-85d7-4629-bdbc-454d0519d987\n"}
	checked, quick, headers := 0, 0, 0
	for _, v := range specValidators(t) {
		for id, r := range v.routes {
			for i, p := range r.params {
				q := r.quickParams[i]
				if q == nil {
					continue
				}
				for _, val := range append([]string{paramValue(p)}, values...) {
					// How many times the parameter is sent: not at all, once, or (query and
					// header parameters) twice, the second time with a valid value.
					for times := range 3 {
						pathParams := map[string]string{}
						query := url.Values{}
						header := http.Header{}
						for i := range times {
							v := val
							if i == 1 {
								v = paramValue(p)
							}
							switch p.In {
							case openapi3.ParameterInPath:
								pathParams[p.Name] = v
							case openapi3.ParameterInQuery:
								query.Add(p.Name, v)
							case openapi3.ParameterInHeader:
								header.Add(p.Name, v)
							}
						}
						query.Set("other", "x")
						header.Set("Other", "x")
						req := httptest.NewRequest(http.MethodGet, "/x?"+query.Encode(), nil)
						req.Header = header
						input := &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, QueryParams: query, Route: r.Route, Options: v.options}
						kinErr := openapi3filter.ValidateParameter(context.Background(), input, p)
						checked++
						if !q.accepts(pathParams, input) {
							continue
						}
						quick++
						if p.In == openapi3.ParameterInHeader {
							headers++
						}
						if kinErr != nil {
							t.Errorf("%s: parameter %s (%s) %q sent %d times: quick check accepts, kin: %v", id, p.Name, p.In, val, times, kinErr)
						}
					}
				}
			}
		}
	}
	t.Logf("%d parameter values checked, %d accepted by the quick check (%d of them headers)", checked, quick, headers)
	if quick == 0 || headers == 0 {
		t.Fatal("the quick check accepted no parameter, or no header parameter")
	}
}

// TestStringLengthIsKins holds stringLength, for strings and bytes, to kin's count for
// minLength and maxLength: range's runes, a surrogate counting twice.
func TestStringLengthIsKins(t *testing.T) {
	kin := func(s string) uint64 {
		n := uint64(0)
		for _, r := range s {
			if utf16.IsSurrogate(r) {
				n += 2
			} else {
				n++
			}
		}
		return n
	}
	for _, s := range []string{"", "a", "0b1f6471-1bf0-4dda-aec3-00000000be7c", "é", "aé", "éa", "ab€cd",
		"😀", "x😀y", "\xff", "a\xffb", "\xed\xa0\x80", "ascii then ü and 😀 and \xc3"} {
		want := kin(s)
		if got := stringLength(s); got != want {
			t.Errorf("stringLength(%q) = %d, want %d", s, got, want)
		}
		if got := stringLength([]byte(s)); got != want {
			t.Errorf("stringLength([]byte(%q)) = %d, want %d", s, got, want)
		}
	}
}

// TestMediaTypeIsKins: the route's media type for a Content-Type header is kin-openapi's
// Content.Get's, for every operation with a body, the usual header and others alike.
func TestMediaTypeIsKins(t *testing.T) {
	headers := []string{"application/json", "Application/JSON", " application/json", "application/json; charset=utf-8",
		"application/merge-patch+json", "application/x-www-form-urlencoded", "text/plain", "application", ""}
	checked := 0
	for _, v := range specValidators(t) {
		for id, r := range v.routes {
			if r.body == nil {
				continue
			}
			for _, h := range headers {
				if got, want := r.mediaType(h), r.body.Content.Get(h); got != want {
					t.Errorf("%s, Content-Type %q: media type %p, kin's %p", id, h, got, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no operation with a body")
	}
}
