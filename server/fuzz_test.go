package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/understudy-dev/understudy/server"
)

// Whole-request fuzz targets, one per API. Each builds the full handler once (validation,
// routing, error rendering: what users run) and sends every input through ServeHTTP, no
// network. An input is a method index, a path under the API's base, a query, a body, a
// content-type index and extra header lines ("Name: value", one a line). The request is
// parsed by net/http's own request reader, as a server would: an input no server would
// accept (a space in the target, a bad header) is skipped.
//
// Invariants for every request: no panic, never a 5xx (nothing is logged at error level),
// every 4xx is the API's well-formed envelope (an HTML page on the hosted flow), chosen by
// the path the client sent, and a 2xx JSON answer is valid JSON.
//
// Placeholders in the path, query, body and headers are replaced before sending, so that
// seeds can reach state that only exists at run time: {acct} (a fresh recipient account),
// {link} (acct/token of a fresh account link), {session} and {nonce} (of a link opened
// once), {fp} (the current labelFingerprint of forwarding rule fr-fuzz), {etag} (of
// attachment group fuzz-group), {op} (an operation's name).

const (
	fuzzHost        = "understudy.test"
	fuzzAcctVersion = "2026-05-27.dahlia"
	fuzzAcctKey     = "sk_test_fuzz123"
	fuzzSub         = "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	fuzzRG          = "subscriptions/" + fuzzSub + "/resourceGroups/rg1"
	fuzzReader      = "/subscriptions/" + fuzzSub + "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	fuzzRA          = "b0f43c54-e787-4862-89b1-a653fa9cf747"
	fuzzPrincipal   = "ce2ce14e-85d7-4629-bdbc-454d0519d987"
	fuzzProject     = "my-project-123"
	fuzzCompute     = "/compute/v1/projects/" + fuzzProject
	fuzzResetEvery  = 256
)

var fuzzMethods = [...]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND"}

var fuzzContentTypes = [...]string{
	"application/json",
	"application/x-www-form-urlencoded",
	"",
	"application/json; charset=utf-8",
	"text/plain",
	"multipart/form-data; boundary=fuzz",
	"application/merge-patch+json",
	"APPLICATION/JSON;CHARSET=UTF-8",
}

// errorLog keeps what the server logs at error level (internal errors and panics) during
// one request; the rest is dropped. Info stays enabled, so the request logger runs as it
// does in production.
type errorLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
	h   slog.Handler
}

func newErrorLog() *errorLog {
	l := &errorLog{}
	l.h = slog.NewTextHandler(&l.buf, nil)
	return l
}

type errorLogHandler struct {
	l *errorLog
	h slog.Handler
}

func (h errorLogHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h errorLogHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelError {
		return nil
	}
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	return h.h.Handle(ctx, r)
}
func (h errorLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return errorLogHandler{l: h.l, h: h.h.WithAttrs(as)}
}
func (h errorLogHandler) WithGroup(g string) slog.Handler {
	return errorLogHandler{l: h.l, h: h.h.WithGroup(g)}
}

func (l *errorLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	l.buf.Reset()
	return s
}

// fuzzServer is one whole server for one fuzz target (in each fuzzing process).
type fuzzServer struct {
	srv   *server.Server
	h     http.Handler
	log   *errorLog
	n     int
	prime func(fs *fuzzServer) error // builds the state seeds refer to, after every reset
	opMu  sync.Mutex
	op    string
}

func newFuzzServer(tb testing.TB, prime func(fs *fuzzServer) error) *fuzzServer {
	tb.Helper()
	l := newErrorLog()
	cfg := server.Config{Log: slog.New(errorLogHandler{l: l, h: l.h}), PublicURL: "http://" + fuzzHost}
	cfg.Compute.Operations.WaitTimeout = 20 * time.Millisecond // operations are immediate: never wait long
	srv, err := server.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	fs := &fuzzServer{srv: srv, h: srv.Handler(), log: l, prime: prime}
	if err := fs.reset(); err != nil {
		tb.Fatal(err)
	}
	return fs
}

func (fs *fuzzServer) reset() error {
	if err := fs.srv.Reset(); err != nil {
		return err
	}
	if fs.prime != nil {
		if err := fs.prime(fs); err != nil {
			return fmt.Errorf("prime: %w", err)
		}
	}
	fs.log.take()
	return nil
}

// call is a plain request for setting up state; it must succeed with a 2xx.
func (fs *fuzzServer) call(method, target string, headers map[string]string, body string) ([]byte, error) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = fuzzHost
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	fs.h.ServeHTTP(rec, req)
	if rec.Code >= 300 && !(rec.Code == 302 || rec.Code == 303) {
		return nil, fmt.Errorf("%s %s: %d %s", method, target, rec.Code, rec.Body.Bytes())
	}
	if rec.Code == 200 && strings.Contains(target, "/compute/") {
		var op struct{ Kind, Name string }
		if json.Unmarshal(rec.Body.Bytes(), &op) == nil && op.Kind == "compute#operation" {
			fs.opMu.Lock()
			fs.op = op.Name
			fs.opMu.Unlock()
		}
	}
	return rec.Body.Bytes(), nil
}

// fuzzInput is one decoded input.
type fuzzInput struct {
	method      uint8
	path, query string
	body        []byte
	ctype       uint8
	headers     string
}

// request builds the request as net/http's server would read it off the wire, or reports
// that no server would accept it.
func (in fuzzInput) request(defaults map[string]string) (*http.Request, bool) {
	target := in.path
	if in.query != "" {
		target += "?" + in.query
	}
	var raw strings.Builder
	raw.WriteString(fuzzMethods[int(in.method)%len(fuzzMethods)] + " " + target + " HTTP/1.1\r\nHost: " + fuzzHost + "\r\n")
	given := map[string]bool{}
	var lines []string
	for _, line := range strings.Split(in.headers, "\n") {
		line = strings.TrimRight(line, "\r")
		name, _, ok := strings.Cut(line, ":")
		if !ok || name == "" {
			continue
		}
		switch http.CanonicalHeaderKey(strings.TrimSpace(name)) {
		case "Host", "Content-Length", "Transfer-Encoding":
			continue // framing is the harness's
		}
		given[http.CanonicalHeaderKey(name)] = true
		lines = append(lines, line)
	}
	if ct := fuzzContentTypes[int(in.ctype)%len(fuzzContentTypes)]; ct != "" && !given["Content-Type"] {
		lines = append(lines, "Content-Type: "+ct)
	}
	for k, v := range defaults {
		if !given[k] {
			lines = append(lines, k+": "+v)
		}
	}
	for _, l := range lines {
		raw.WriteString(l + "\r\n")
	}
	if len(in.body) > 0 {
		raw.WriteString("Content-Length: " + strconv.Itoa(len(in.body)) + "\r\n")
	}
	raw.WriteString("\r\n")
	raw.Write(in.body)
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw.String())))
	if err != nil {
		return nil, false
	}
	// What net/http's server refuses with 400 before any handler runs.
	for k, vs := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, false
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, false
			}
		}
	}
	if len(req.Header["Host"]) > 1 || !httpguts.ValidHostHeader(req.Host) {
		return nil, false
	}
	req.RemoteAddr = "192.0.2.1:40000"
	return req, true
}

// envelopeFor is the error rendering a client of path expects, by the same ownership
// rules as the server: admin, accounts (HTML under /r/), compute, else authorization.
func envelopeFor(path string) (string, func([]byte) (string, error)) {
	switch {
	case strings.HasPrefix(path, "/_understudy/"):
		return "admin", adminEnvelope
	case strings.HasPrefix(path, "/v2/"):
		return "accounts", v2Envelope
	case strings.HasPrefix(path, "/r/"):
		return "hosted", htmlPage
	case strings.HasPrefix(path, "/compute/"):
		return "compute", googleEnvelope
	}
	return "authorization", armEnvelopeStrict
}

// answeringEnvelope is the API whose envelope answers a request for path, and that
// envelope: the owner of the path as sent, or, for a path no other API owns as sent, the
// API it was meant for once its start is tidied (envelopePath: //compute/..., /./v2/...,
// and a query that cut an ARM path short, as in //r/?/providers/...). A path meant for
// the hosted pages but not one of theirs as sent gets the accounts API's JSON envelope:
// their HTML pages are for their own paths.
func answeringEnvelope(path string) (string, func([]byte) (string, error)) {
	api, envelope := envelopeFor(path)
	if api != "authorization" {
		return api, envelope
	}
	switch meant, meantEnvelope := envelopeFor(server.EnvelopePath(path)); meant {
	case "hosted":
		return "accounts", v2Envelope
	default:
		return meant, meantEnvelope
	}
}

// armEnvelopeStrict is armEnvelope that also refuses members ARM's envelope does not have,
// so that another API's {"error":{"code","message",...}} does not pass for it.
func armEnvelopeStrict(body []byte) (string, error) {
	msg, err := armEnvelope(body)
	if err != nil {
		return "", err
	}
	var top map[string]json.RawMessage
	var inner map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || len(top) != 1 || json.Unmarshal(top["error"], &inner) != nil {
		return "", fmt.Errorf("not an ARM envelope: members besides error")
	}
	for k := range inner {
		switch k {
		case "code", "message", "target", "details", "additionalInfo":
		default:
			return "", fmt.Errorf("not an ARM envelope: error.%s", k)
		}
	}
	return msg, nil
}

var placeholder = regexp.MustCompile(`\{(acct|link|session|nonce|fp|etag|op)\}`)

// fill replaces the placeholders the input uses, creating what they stand for.
func (fs *fuzzServer) fill(t *testing.T, in *fuzzInput) {
	all := in.path + "\x00" + in.query + "\x00" + string(in.body) + "\x00" + in.headers
	used := map[string]bool{}
	for _, m := range placeholder.FindAllStringSubmatch(all, -1) {
		used[m[1]] = true
	}
	if len(used) == 0 {
		return
	}
	vals := map[string]string{}
	if used["acct"] || used["link"] || used["session"] || used["nonce"] {
		acct, err := fs.newAccount()
		if err != nil {
			t.Fatalf("setting up an account: %v", err)
		}
		vals["acct"] = acct
		if used["link"] || used["session"] || used["nonce"] {
			link, err := fs.newLink(acct)
			if err != nil {
				t.Fatalf("setting up a link: %v", err)
			}
			vals["link"] = link
			if used["session"] || used["nonce"] {
				session, nonce, err := fs.openLink(link)
				if err != nil {
					t.Fatalf("opening a link: %v", err)
				}
				vals["session"], vals["nonce"] = session, nonce
			}
		}
	}
	if used["fp"] || used["etag"] {
		if b, err := fs.call("GET", fuzzCompute+"/global/forwardingRules/fr-fuzz", computeHeaders, ""); err == nil {
			var r struct{ LabelFingerprint string }
			_ = json.Unmarshal(b, &r)
			vals["fp"] = r.LabelFingerprint
		}
		if b, err := fs.call("GET", fuzzCompute+"/global/interconnectAttachmentGroups/fuzz-group", computeHeaders, ""); err == nil {
			var g struct{ Etag string }
			_ = json.Unmarshal(b, &g)
			vals["etag"] = g.Etag
		}
	}
	fs.opMu.Lock()
	vals["op"] = fs.op
	fs.opMu.Unlock()
	repl := func(s string) string {
		return placeholder.ReplaceAllStringFunc(s, func(m string) string { return vals[m[1:len(m)-1]] })
	}
	in.path, in.query, in.headers = repl(in.path), repl(in.query), repl(in.headers)
	in.body = []byte(repl(string(in.body)))
}

func (fs *fuzzServer) newAccount() (string, error) {
	b, err := fs.call("POST", "/v2/core/accounts", accountsHeaders,
		`{"display_name":"Fuzz","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`)
	if err != nil {
		return "", err
	}
	var a struct{ ID string }
	if err := json.Unmarshal(b, &a); err != nil || a.ID == "" {
		return "", fmt.Errorf("no account id in %s", b)
	}
	return a.ID, nil
}

func (fs *fuzzServer) newLink(acct string) (string, error) {
	b, err := fs.call("POST", "/v2/core/account_links", accountsHeaders,
		`{"account":"`+acct+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh","return_url":"https://example.com/return"}}}`)
	if err != nil {
		return "", err
	}
	var l struct{ URL string }
	if err := json.Unmarshal(b, &l); err != nil {
		return "", err
	}
	_, path, ok := strings.Cut(l.URL, "/r/")
	if !ok {
		return "", fmt.Errorf("link url %q", l.URL)
	}
	return path, nil
}

var nonceField = regexp.MustCompile(`name="nonce" value="([^"]*)"`)

func (fs *fuzzServer) openLink(link string) (session, nonce string, err error) {
	req := httptest.NewRequest("GET", "/r/"+link, nil)
	req.Host = fuzzHost
	rec := httptest.NewRecorder()
	fs.h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		return "", "", fmt.Errorf("open: %d %s", rec.Code, rec.Body.Bytes())
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == "understudy_link_session" {
			session = c.Value
		}
	}
	if m := nonceField.FindStringSubmatch(rec.Body.String()); m != nil {
		nonce = m[1]
	}
	if session == "" || nonce == "" {
		return "", "", fmt.Errorf("no session (%q) or nonce (%q)", session, nonce)
	}
	return session, nonce, nil
}

var (
	armHeaders      = map[string]string{"Authorization": "Bearer fuzz-token"}
	accountsHeaders = map[string]string{"Authorization": "Bearer " + fuzzAcctKey, "Service-Version": fuzzAcctVersion}
	computeHeaders  = map[string]string{"Authorization": "Bearer fuzz-token"}
	hostedHeaders   = map[string]string{}
)

// run sends one input and checks the invariants.
func (fs *fuzzServer) run(t *testing.T, in fuzzInput, defaults map[string]string) {
	fs.n++
	if fs.n%fuzzResetEvery == 0 {
		if err := fs.reset(); err != nil {
			t.Fatal(err)
		}
	}
	fs.fill(t, &in)
	req, ok := in.request(defaults)
	if !ok {
		return
	}
	fs.log.take()
	api, envelope := answeringEnvelope(req.URL.Path)
	rec := httptest.NewRecorder()
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic serving %s %q: %v", req.Method, req.RequestURI, r)
			}
		}()
		fs.h.ServeHTTP(rec, req)
	}()
	body := rec.Body.Bytes()
	desc := func() string {
		return fmt.Sprintf("%s %q (%s API)\nheaders: %q\nbody: %.300q\nstatus %d, answer: %.500s", req.Method, req.RequestURI, api, req.Header, in.body, rec.Code, body)
	}
	if logged := fs.log.take(); logged != "" {
		t.Fatalf("logged at error level: %.2000s\n%s", logged, desc())
	}
	if rec.Code < 100 || rec.Code > 599 {
		t.Fatalf("invalid status: %s", desc())
	}
	if rec.Code >= 500 {
		t.Fatalf("5xx: %s", desc())
	}
	if rec.Code >= 200 && rec.Code < 300 && req.Method != "HEAD" && rec.Code != http.StatusNoContent &&
		strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && !json.Valid(body) {
		t.Fatalf("2xx with a body that is not JSON: %s", desc())
	}
	if rec.Code >= 200 && rec.Code < 300 {
		// A query url.ParseQuery refuses (a parameter it drops) is never accepted, but by
		// the hosted pages, which read no query (see limitRequest); nor is a JSON body that is
		// not exactly one value sent to write something (Echo answers OPTIONS itself,
		// ignoring any body).
		if _, err := url.ParseQuery(req.URL.RawQuery); err != nil && api != "hosted" {
			t.Fatalf("accepted a query string that does not parse (%v): %s", err, desc())
		}
		ct, _, _ := strings.Cut(req.Header.Get("Content-Type"), ";")
		writes := req.Method == http.MethodPost || req.Method == http.MethodPut || req.Method == http.MethodPatch
		if writes && len(in.body) > 0 && strings.EqualFold(strings.TrimSpace(ct), "application/json") && !json.Valid(in.body) {
			t.Fatalf("accepted a JSON body that is not one JSON value: %s", desc())
		}
	}
	if rec.Code >= 400 && req.Method != "HEAD" {
		if _, err := envelope(body); err != nil {
			t.Fatalf("error not in the %s envelope (%v): %s", api, err, desc())
		}
	}
}

// FuzzAuthorizationRequest: /{scope}/providers/Vendor.Authorization/{rest}.
func FuzzAuthorizationRequest(f *testing.F) {
	const v = "api-version=2022-04-01"
	put := `{"properties":{"principalId":"` + fuzzPrincipal + `","roleDefinitionId":"` + fuzzReader + `","description":"billing readers"}}`
	seeds := []struct {
		method      uint8
		scope, rest string
		query, body string
		ctype       uint8
		headers     string
	}{
		{2, fuzzRG, "roleAssignments/" + fuzzRA, v, put, 0, ""},
		{2, fuzzRG, "roleAssignments/4d2ba3e5-6a5c-4c0e-8a71-4b9c3d1f2e10", v,
			`{"properties":{"principalId":"6f8bbbb4-9e2b-4b35-a3ad-0c0b0a5a8d27","roleDefinitionId":"` + fuzzReader + `","principalType":"Group","condition":"@Resource[Vendor.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'","conditionVersion":"2.0"}}`, 0, ""},
		{0, fuzzRG, "roleAssignments/" + fuzzRA, v, "", 2, ""},
		{4, fuzzRG, "roleAssignments/" + fuzzRA, v, "", 2, ""},
		{0, fuzzRG, "roleAssignments", v + "&$filter=atScope()", "", 2, ""},
		{0, "subscriptions/" + fuzzSub, "roleAssignments", v + "&$filter=principalId%20eq%20'" + fuzzPrincipal + "'&$top=2", "", 2, ""},
		{0, fuzzRG, "roleAssignments", v + "&$skipToken=abc", "", 2, ""},
		{0, "subscriptions/" + fuzzSub, "roleDefinitions", v + "&$filter=roleName%20eq%20'Reader'", "", 2, ""},
		{0, "subscriptions/" + fuzzSub, "roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", v, "", 2, ""},
		{0, "", "roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7", v, "", 2, ""},
		{0, "providers/Vendor.Management/managementGroups/mg1", "roleAssignments", v, "", 2, ""},
		{2, fuzzRG + "/providers/Vendor.Storage/storageAccounts/acct1", "roleAssignments/" + fuzzRA, v, put, 0, "Authorization: Bearer e30.eyJvaWQiOiIxMTExMTExMS0xMTExLTQxMTEtODExMS0xMTExMTExMTExMTEifQ.sig"},
		{2, fuzzRG, "ROLEASSIGNMENTS/" + fuzzRA, v, `{"properties":{"principalId":"x","roleDefinitionId":"y"}}`, 0, ""},
		{2, fuzzRG, "roleAssignments/not-a-guid", v, put, 0, ""},
		{2, fuzzRG, "roleAssignments/" + fuzzRA, "api-version=2015-01-01", put, 0, ""},
		{2, fuzzRG, "roleAssignments/" + fuzzRA, v, put, 4, ""},
		{2, fuzzRG, "roleAssignments/" + fuzzRA, v, `{"properties":{"principalId":"a","principalId":"b"}}`, 0, ""},
		{0, "subscriptions/..%2F..%2Fetc", "roleAssignments", v, "", 2, ""},
		{0, "subscriptions/%FF%FE", "roleAssignments/%FF", v + "&x=%FF", "", 2, "Authorization: Basic Zm9vOmJhcg=="},
		{1, "subscriptions/s", "roleAssignments", v, "", 0, ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.scope, s.rest, s.query, []byte(s.body), s.ctype, s.headers)
	}
	fs := newFuzzServer(f, func(fs *fuzzServer) error {
		_, err := fs.call("PUT", "/"+fuzzRG+"/providers/Vendor.Authorization/roleAssignments/"+fuzzRA+"?api-version=2022-04-01", armHeaders, put)
		return err
	})
	f.Fuzz(func(t *testing.T, method uint8, scope, rest, query string, body []byte, ctype uint8, headers string) {
		fs.run(t, fuzzInput{method: method, path: "/" + scope + "/providers/Vendor.Authorization/" + rest, query: query, body: body, ctype: ctype, headers: headers}, armHeaders)
	})
}

// FuzzAccountsRequest: /v2/core/{path}.
func FuzzAccountsRequest(f *testing.F) {
	link := `{"account":"{acct}","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh","return_url":"https://example.com/return"}}}`
	seeds := []struct {
		method            uint8
		path, query, body string
		ctype             uint8
		headers           string
	}{
		{1, "accounts", "", `{"display_name":"Furever Pet Supplies","contact_email":"jenny.rosen@example.com","dashboard":"express","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}},"include":["configuration.recipient","requirements"],"metadata":{"order_id":"6735"}}`, 0, ""},
		{1, "accounts", "", `{}`, 0, "Idempotency-Key: fuzz-key-1"},
		{1, "account_links", "", link, 0, ""},
		{1, "account_links", "", link, 0, "Idempotency-Key: fuzz-key-2"},
		{1, "account_links", "", `{"account":"{acct}","use_case":{"type":"account_update","account_update":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh"}}}`, 0, ""},
		{1, "account_links", "", `{"account":"{acct}","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["merchant"],"refresh_url":"https://example.com/refresh"}}}`, 0, ""},
		{1, "account_links", "", `{"account":"acct_1Nv0FGQ9RKHgCVdK","use_case":{"type":"account_onboarding"}}`, 0, ""},
		{0, "accounts/{acct}", "include=requirements&include=configuration.recipient", "", 2, ""},
		{1, "accounts/{acct}", "", `{"display_name":"Renamed","metadata":{"a":"b","c":null}}`, 0, ""},
		{0, "accounts", "limit=2", "", 2, ""},
		{0, "accounts", "limit=100000", "", 2, ""},
		{0, "accounts", "page=abc&applied_configurations=recipient", "", 2, ""},
		{0, "accounts/..%2F..%2Fetc", "", "", 2, ""},
		{0, "accounts/%FF%FE", "x=%FF", "", 2, ""},
		{0, "accounts", "", "", 2, "Authorization: Bearer sk_live_nope\nService-Version: yesterday"},
		{0, "accounts", "", "", 2, "Authorization: Bearer rk_test_x"},
		{4, "accounts", "", "", 2, ""},
		{1, "accounts", "", `{"display_name":"a","display_name":"b"}`, 0, ""},
		{1, "accounts", "", `display_name=a`, 1, ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, []byte(s.body), s.ctype, s.headers)
	}
	fs := newFuzzServer(f, nil)
	f.Fuzz(func(t *testing.T, method uint8, path, query string, body []byte, ctype uint8, headers string) {
		fs.run(t, fuzzInput{method: method, path: "/v2/core/" + path, query: query, body: body, ctype: ctype, headers: headers}, accountsHeaders)
	})
}

// FuzzHostedFlowRequest: /r/{path}, the pages a browser opens.
func FuzzHostedFlowRequest(f *testing.F) {
	form := "nonce={nonce}&display_name=Jenny+Rosen&contact_email=jenny.rosen%40example.com&country=US&entity_type=individual&terms_of_service=accepted"
	seeds := []struct {
		method            uint8
		path, query, body string
		ctype             uint8
		headers           string
	}{
		{0, "{link}", "", "", 2, ""},
		{1, "{link}", "", form, 1, "Cookie: understudy_link_session={session}"},
		{1, "{link}", "", "nonce={nonce}&display_name=&contact_email=nope&country=ZZ", 1, "Cookie: understudy_link_session={session}"},
		{1, "{link}", "", form, 1, ""},
		{1, "{link}", "", "nonce=wrong&display_name=x", 1, "Cookie: understudy_link_session={session}"},
		{1, "{link}", "", `{"nonce":"{nonce}"}`, 0, "Cookie: understudy_link_session={session}"},
		{0, "acct_1Nv0FGQ9RKHgCVdK/alu_test_61SGhyomRuz7xsw5216SGhyj0ASQdCLwM", "", "", 2, ""},
		{0, "acct_1Nv0FGQ9RKHgCVdK/nope", "", "", 2, ""},
		{0, "..%2F..%2Fetc/alu_test_61SGhyomRuz7xsw5216SGhyj0ASQdCLwM", "", "", 2, ""},
		{0, "%FF%FE/%FF", "x=%FF", "", 2, ""},
		{2, "{link}", "", "", 2, ""},
		{0, "{link}/extra", "", "", 2, ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, []byte(s.body), s.ctype, s.headers)
	}
	fs := newFuzzServer(f, nil)
	f.Fuzz(func(t *testing.T, method uint8, path, query string, body []byte, ctype uint8, headers string) {
		fs.run(t, fuzzInput{method: method, path: "/r/" + path, query: query, body: body, ctype: ctype, headers: headers}, hostedHeaders)
	})
}

// computePrime makes what compute seeds refer to: forwarding rule fr-fuzz, two
// interconnects with an attachment each in us-east4, and attachment group fuzz-group.
func computePrime(fs *fuzzServer) error {
	const loc = "https://www.googleapis.com/compute/v1/projects/" + fuzzProject + "/global/interconnectLocations/"
	const base = "https://www.googleapis.com/compute/v1/projects/" + fuzzProject
	steps := []struct{ method, path, body string }{
		{"POST", "/global/forwardingRules", `{"name":"fr-fuzz","portRange":"443-443","labels":{"env":"prod"}}`},
		{"POST", "/global/interconnects", `{"name":"ic-1","location":"` + loc + `iad-zone1-1","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":2,"interconnectType":"DEDICATED"}`},
		{"POST", "/global/interconnects", `{"name":"ic-2","location":"` + loc + `iad-zone2-1","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":2,"interconnectType":"DEDICATED"}`},
		{"POST", "/regions/us-east4/interconnectAttachments", `{"name":"att-1","interconnect":"` + base + `/global/interconnects/ic-1","type":"DEDICATED","router":"` + base + `/regions/us-east4/routers/r","vlanTag8021q":1001}`},
		{"POST", "/regions/us-east4/interconnectAttachments", `{"name":"att-2","interconnect":"` + base + `/global/interconnects/ic-2","type":"DEDICATED","router":"` + base + `/regions/us-east4/routers/r","vlanTag8021q":1002}`},
		{"POST", "/global/interconnectAttachmentGroups", `{"name":"fuzz-group","intent":{"availabilitySla":"PRODUCTION_NON_CRITICAL"},"attachments":{"a1":{"attachment":"` + base + `/regions/us-east4/interconnectAttachments/att-1"}}}`},
	}
	for _, s := range steps {
		if _, err := fs.call(s.method, fuzzCompute+s.path, computeHeaders, s.body); err != nil {
			return err
		}
	}
	return nil
}

// FuzzComputeRequest: /compute/v1/projects/{path}.
func FuzzComputeRequest(f *testing.F) {
	const p = fuzzProject
	const base = "https://www.googleapis.com/compute/v1/projects/" + fuzzProject
	seeds := []struct {
		method            uint8
		path, query, body string
		ctype             uint8
		headers           string
	}{
		{1, p + "/global/forwardingRules", "requestId=5b0c4d1e-2f3a-4b5c-8d6e-7f8091a2b3c4", `{"name":"fr-web","description":"HTTPS entry point","IPAddress":"34.117.59.12","IPProtocol":"TCP","portRange":"443-443","target":"` + base + `/global/targetHttpsProxies/web-proxy","loadBalancingScheme":"EXTERNAL_MANAGED","ipVersion":"IPV4","labels":{"env":"prod"}}`, 0, ""},
		{1, p + "/global/forwardingRules/fr-fuzz/setLabels", "", `{"labels":{"env":"prod","team":"web","canary":""},"labelFingerprint":"{fp}"}`, 0, ""},
		{1, p + "/global/forwardingRules/fr-fuzz/setLabels", "", `{"labels":{"env":"prod"},"labelFingerprint":"42WmSpB8rSM="}`, 0, ""},
		{1, p + "/global/forwardingRules/fr-fuzz/setLabels", "", `{"labels":{"Env":"x","a":"b"},"labelFingerprint":"{fp}"}`, 0, ""},
		{0, p + "/global/forwardingRules/fr-fuzz", "", "", 2, ""},
		{0, p + "/global/forwardingRules", "filter=name%3Dfr-*&maxResults=1&orderBy=creationTimestamp%20desc", "", 2, ""},
		{0, p + "/global/forwardingRules", "filter=(name%20eq%20'fr-.*')%20(name%20ne%20%22fr-x%5C%22%22)&maxResults=1", "", 2, ""},
		{0, p + "/global/forwardingRules", "filter=name%20%3D%20fr-fuzz%20OR%20name%20!%3D%20''%20AND%20(name%20%3D%20%22%5C%22)", "", 2, ""},
		{0, p + "/global/operations/{op}", "", "", 2, ""},
		{1, p + "/global/operations/{op}/wait", "", "", 2, ""},
		{0, p + "/global/operations", "filter=status%3DDONE", "", 2, ""},
		{0, p + "/aggregated/operations", "filter=operationType%20%3D%20insert%20progress%20%3E%3D%2050&maxResults=1&fields=items%2F*%2Foperations(name%2Cstatus)%2CnextPageToken", "", 2, ""},
		{0, p + "/aggregated/interconnectAttachments", "filter=(labels.env%20eq%20'p.*')&includeAllScopes=true&fields=items(*)", "", 2, ""},
		{0, p + "/global/forwardingRules", "filter=labels.env%3Aprod&fields=items(name%2Clabels)&quotaUser=q&%24.xgafv=2", "", 2, ""},
		{0, p + "/regions/us-east4/operations", "", "", 2, ""},
		{0, p + "/global/interconnectLocations", "filter=metro%3Diad", "", 2, ""},
		{0, p + "/global/interconnectLocations/iad-zone1-1", "", "", 2, ""},
		{0, p + "/global/interconnectRemoteLocations", "filter=remoteService%3D%22Microsoft%20Azure%22", "", 2, ""},
		{0, p + "/global/interconnectRemoteLocations/aws-iad-1", "", "", 2, ""},
		{1, p + "/global/interconnects", "", `{"name":"iad-ic-zone1","description":"Dedicated","location":"` + base + `/global/interconnectLocations/iad-zone1-1","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":2,"interconnectType":"DEDICATED","customerName":"Example Corp","nocContactEmail":"noc@example.com","adminEnabled":true}`, 0, ""},
		{1, p + "/global/interconnects", "", `{"name":"big","location":"global/interconnectLocations/iad-zone1-1","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1e20,"interconnectType":"DEDICATED"}`, 0, ""},
		{0, p + "/global/interconnects/ic-1", "", "", 2, ""},
		{1, p + "/regions/us-east4/interconnectAttachments", "", `{"name":"att-3","interconnect":"` + base + `/global/interconnects/ic-1","type":"DEDICATED","router":"` + base + `/regions/us-east4/routers/r","adminEnabled":true,"vlanTag8021q":1003,"bandwidth":"BPS_10G","stackType":"IPV4_ONLY","mtu":1440}`, 0, ""},
		{0, p + "/regions/us-east4/interconnectAttachments/att-1", "", "", 2, ""},
		{1, p + "/global/interconnectAttachmentGroups", "", `{"name":"g2","intent":{"availabilitySla":"PRODUCTION_CRITICAL"},"attachments":{"a2":{"attachment":"` + base + `/regions/us-east4/interconnectAttachments/att-2"}}}`, 0, ""},
		{3, p + "/global/interconnectAttachmentGroups/fuzz-group", "updateMask=intent", `{"etag":"{etag}","intent":{"availabilitySla":"PRODUCTION_CRITICAL"}}`, 0, ""},
		{0, p + "/global/interconnectAttachmentGroups/fuzz-group/getOperationalStatus", "", "", 2, ""},
		{0, p + "/global/interconnectAttachmentGroups", "", "", 2, ""},
		{0, "..%2F..%2Fetc/global/forwardingRules", "", "", 2, ""},
		{0, p + "/global/forwardingRules/%FF%FE", "filter=%FF", "", 2, ""},
		{0, p + "/global/forwardingRules", "", "", 2, "Authorization: Basic Zm9vOmJhcg=="},
		{1, p + "/global/forwardingRules/fr-fuzz/setLabels", "", `{"labels":{"a":"1","a":"2"},"labelFingerprint":"{fp}"}`, 0, ""},
		{4, p + "/global/forwardingRules/fr-fuzz", "requestId=5b0c4d1e-2f3a-4b5c-8d6e-7f8091a2b3c5", "", 2, ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, []byte(s.body), s.ctype, s.headers)
	}
	fs := newFuzzServer(f, computePrime)
	f.Fuzz(func(t *testing.T, method uint8, path, query string, body []byte, ctype uint8, headers string) {
		fs.run(t, fuzzInput{method: method, path: "/compute/v1/projects/" + path, query: query, body: body, ctype: ctype, headers: headers}, computeHeaders)
	})
}
