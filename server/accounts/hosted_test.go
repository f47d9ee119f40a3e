package accounts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// The hosted flow (/r/{account}/{token}) is tested the way a browser uses it: plain
// net/http, a cookie jar, redirects not followed so that 302s and 303s can be seen. Every
// response of a client made by browser() is also checked against the spec.

const (
	hostedKey           = "sk_test_hostedFlow1234"
	hostedVersion       = "2026-05-27.dahlia"
	hostedRefresh       = "https://platform.example/refresh"
	hostedReturn        = "https://platform.example/return"
	hostedCookie        = "understudy_link_session"
	hostedRecipientJSON = `{"stripe_balance":{"stripe_transfers":{"requested":true}}}`
)

// hostedClock is a clock the test moves.
type hostedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *hostedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *hostedClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type hostedEnv struct {
	t     *testing.T
	url   string
	clock *hostedClock
}

func newHostedEnv(t *testing.T, configure func(*server.Config)) *hostedEnv {
	t.Helper()
	clock := &hostedClock{now: time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)}
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Accounts.Now = clock.Now
		c.Accounts.LinkLifetime = 10 * time.Minute
		c.Accounts.SessionLifetime = 30 * time.Minute
		if configure != nil {
			configure(c)
		}
	}))
	return &hostedEnv{t: t, url: srv.URL, clock: clock}
}

// api sends a JSON request to the v2 API and decodes the answer.
func (e *hostedEnv) api(method, path, body string) (int, map[string]any) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+hostedKey)
	req.Header.Set("Service-Version", hostedVersion)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		e.t.Fatalf("%s %s: %d, body is not JSON: %v", method, path, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

// createAccount makes a recipient account; extra holds more members of the body, as JSON
// ("" for none), e.g. `"display_name":"Jenny"`.
func (e *hostedEnv) createAccount(extra string) string {
	e.t.Helper()
	body := `{"configuration":{"recipient":{"capabilities":` + hostedRecipientJSON + `}}`
	if extra != "" {
		body += "," + extra
	}
	body += "}"
	status, out := e.api(http.MethodPost, "/v2/core/accounts", body)
	if status != http.StatusOK {
		e.t.Fatalf("create account: %d %v", status, out)
	}
	return out["id"].(string)
}

type hostedLinkOptions struct {
	useCase   string // account_onboarding (default) or account_update
	noReturn  bool
	fields    string // collection_options.fields, "" for the default
	returnURL string // instead of hostedReturn
	refresh   string // instead of hostedRefresh
	// configurations are the link's configurations (default: recipient).
	configurations []string
}

// createLink makes an account link and returns its url.
func (e *hostedEnv) createLink(account string, o hostedLinkOptions) string {
	e.t.Helper()
	if o.useCase == "" {
		o.useCase = "account_onboarding"
	}
	if o.configurations == nil {
		o.configurations = []string{"recipient"}
	}
	flow := map[string]any{"configurations": o.configurations, "refresh_url": hostedRefresh}
	if o.refresh != "" {
		flow["refresh_url"] = o.refresh
	}
	if !o.noReturn {
		flow["return_url"] = hostedReturn
		if o.returnURL != "" {
			flow["return_url"] = o.returnURL
		}
	}
	if o.fields != "" {
		flow["collection_options"] = map[string]any{"fields": o.fields}
	}
	raw, _ := json.Marshal(map[string]any{"account": account, "use_case": map[string]any{"type": o.useCase, o.useCase: flow}})
	status, out := e.api(http.MethodPost, "/v2/core/account_links", string(raw))
	if status != http.StatusOK {
		e.t.Fatalf("create link: %d %v", status, out)
	}
	return out["url"].(string)
}

// account reads an account with the sections the flow changes.
func (e *hostedEnv) account(id string) map[string]any {
	e.t.Helper()
	status, out := e.api(http.MethodGet, "/v2/core/accounts/"+id+"?include=requirements&include=configuration.recipient&include=identity", "")
	if status != http.StatusOK {
		e.t.Fatalf("get account: %d %v", status, out)
	}
	return out
}

// browser is one browser: its own cookies, redirects not followed, responses checked
// against the spec.
func (e *hostedEnv) browser() *http.Client {
	e.t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	spec, err := hostedSpec()
	if err != nil {
		e.t.Fatal(err)
	}
	return &http.Client{
		Jar:           jar,
		Transport:     spectest.Transport(e.t, spec, nil),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

var hostedSpec = sync.OnceValues(gen.GetSpec)

// hostedPage is an HTML answer, parsed.
type hostedPage struct {
	status int
	header http.Header
	raw    string
	doc    *html.Node
}

func (p hostedPage) byID(id string) *html.Node {
	return hostedFind(p.doc, func(n *html.Node) bool { return hostedAttr(n, "id") == id })
}

func (p hostedPage) text() string { return hostedText(p.doc) }

func (p hostedPage) value(id string) string {
	n := p.byID(id)
	if n == nil {
		return ""
	}
	return hostedAttr(n, "value")
}

// hostedGet visits url.
func hostedGet(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// hostedPost submits the form to url.
func hostedPost(t *testing.T, c *http.Client, u string, form url.Values) *http.Response {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// hostedReadPage checks that resp is a well-formed HTML5 page with the wanted status and parses it.
func hostedReadPage(t *testing.T, resp *http.Response, wantStatus int) hostedPage {
	t.Helper()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != wantStatus {
		t.Fatalf("status %d, want %d; body: %.600s", resp.StatusCode, wantStatus, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q, want text/html; charset=utf-8", ct)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", resp.Header.Get("Cache-Control"))
	}
	if resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("the page may be framed: X-Frame-Options %q, CSP %q", resp.Header.Get("X-Frame-Options"), resp.Header.Get("Content-Security-Policy"))
	}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		t.Fatalf("JSON where a page was expected: %.300s", raw)
	}
	if !bytes.HasPrefix(raw, []byte("<!doctype html>")) {
		t.Errorf("the page does not start with <!doctype html>: %.80s", raw)
	}
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not HTML: %v", err)
	}
	p := hostedPage{status: resp.StatusCode, header: resp.Header, raw: string(raw), doc: doc}
	if doc.FirstChild == nil || doc.FirstChild.Type != html.DoctypeNode || doc.FirstChild.Data != "html" {
		t.Error("no HTML5 doctype")
	}
	root := hostedFind(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "html" })
	if root == nil || hostedAttr(root, "lang") != "en" {
		t.Error(`no <html lang="en">`)
	}
	if hostedFind(doc, func(n *html.Node) bool {
		return n.Data == "meta" && strings.EqualFold(hostedAttr(n, "charset"), "utf-8")
	}) == nil {
		t.Error(`no <meta charset="utf-8">`)
	}
	if hostedFind(doc, func(n *html.Node) bool { return n.Data == "meta" && hostedAttr(n, "name") == "viewport" }) == nil {
		t.Error(`no <meta name="viewport">`)
	}
	if title := hostedFind(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "title" }); title == nil || title.FirstChild == nil || strings.TrimSpace(title.FirstChild.Data) == "" {
		t.Error("no <title>")
	}
	if hostedFind(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "script" }) != nil {
		t.Error("the page has a <script>")
	}
	return p
}

// hostedRedirect checks that resp redirects with status to location.
func hostedRedirect(t *testing.T, resp *http.Response, status int, location string) {
	t.Helper()
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status || resp.Header.Get("Location") != location {
		t.Fatalf("got %d to %q, want %d to %q", resp.StatusCode, resp.Header.Get("Location"), status, location)
	}
}

func hostedFind(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := hostedFind(c, match); f != nil {
			return f
		}
	}
	return nil
}

func hostedAttr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func hostedHasAttr(n *html.Node, name string) bool {
	for _, a := range n.Attr {
		if a.Key == name {
			return true
		}
	}
	return false
}

func hostedText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.Data == "style" || n.Data == "title") {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// open visits a fresh link with a new browser and returns the browser and the form.
func (e *hostedEnv) open(t *testing.T, link string) (*http.Client, hostedPage) {
	t.Helper()
	c := e.browser()
	return c, hostedReadPage(t, hostedGet(t, c, link), http.StatusOK)
}

// hostedValidForm is a complete, valid submission of form p.
func hostedValidForm(p hostedPage) url.Values {
	return url.Values{
		"nonce":            {p.value("nonce")},
		"contact_email":    {"jenny.rosen@example.com"},
		"display_name":     {"Jenny Rosen"},
		"country":          {"us"},
		"entity_type":      {"individual"},
		"given_name":       {"Jenny"},
		"surname":          {"Rosen"},
		"date_of_birth":    {"1990-01-31"},
		"terms_of_service": {"accepted"},
	}
}

// hostedPath is the path of a URL.
func hostedPath(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Path
}

func hostedDig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

func TestHostedFlow(t *testing.T) {
	e := newHostedEnv(t, func(c *server.Config) { c.Accounts.UpdateLatency = 20 * time.Millisecond })

	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"first visit answers the form and opens a session", func(t *testing.T) {
			acct := e.createAccount("")
			link := e.createLink(acct, hostedLinkOptions{})
			_, p := e.open(t, link)
			var session *http.Cookie
			for _, c := range (&http.Response{Header: p.header}).Cookies() {
				if c.Name == hostedCookie {
					session = c
				}
			}
			if session == nil || len(session.Value) < 32 {
				t.Fatalf("no session cookie: %q", p.header.Values("Set-Cookie"))
			}
			if session.Path != hostedPath(t, link) || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Secure {
				t.Errorf("cookie %q: want Path=%s; HttpOnly; SameSite=Strict and not Secure over http", p.header.Get("Set-Cookie"), hostedPath(t, link))
			}
			form := p.byID("hosted_form")
			if form == nil || hostedAttr(form, "method") != "post" || hostedAttr(form, "action") != hostedPath(t, link) {
				t.Fatalf("no form posting to %s: %v", hostedPath(t, link), form)
			}
			for _, id := range []string{"contact_email", "display_name", "country", "entity_type", "terms_of_service", "nonce", "submit"} {
				n := p.byID(id)
				if n == nil {
					t.Errorf("no #%s", id)
					continue
				}
				if id != "submit" && hostedAttr(n, "name") != id {
					t.Errorf("#%s is named %q", id, hostedAttr(n, "name"))
				}
				if id != "submit" && id != "nonce" && !hostedHasAttr(n, "required") {
					t.Errorf("#%s is not required, though the account lacks it", id)
				}
			}
			if tos := p.byID("terms_of_service"); hostedAttr(tos, "type") != "checkbox" || hostedAttr(tos, "value") != "accepted" {
				t.Errorf("terms_of_service is not a checkbox worth accepted")
			}
			if len(p.value("nonce")) < 16 {
				t.Errorf("nonce %q too short", p.value("nonce"))
			}
			if c := p.byID("country"); hostedAttr(c, "pattern") != "[A-Za-z]{2}" || hostedAttr(c, "maxlength") != "2" {
				t.Errorf("country input: pattern %q maxlength %q", hostedAttr(c, "pattern"), hostedAttr(c, "maxlength"))
			}
			title := hostedFind(p.doc, func(n *html.Node) bool { return n.Data == "title" }).FirstChild.Data
			if !strings.Contains(strings.ToLower(title), "onboarding") || !strings.Contains(title, "recipient") {
				t.Errorf("title %q names neither the use case nor the configuration", title)
			}
			for _, want := range []string{"I accept the terms of service", "Submit", "Configurations: recipient"} {
				if !strings.Contains(p.text(), want) {
					t.Errorf("page lacks %q", want)
				}
			}
		}},
		{"session cookie is Secure behind https", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			req, _ := http.NewRequest(http.MethodGet, link, nil)
			req.Header.Set("X-Forwarded-Proto", "https") // as a TLS-terminating proxy says
			resp, err := e.browser().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			p := hostedReadPage(t, resp, http.StatusOK)
			cookies := (&http.Response{Header: p.header}).Cookies()
			if len(cookies) != 1 || !cookies[0].Secure || !cookies[0].HttpOnly {
				t.Errorf("cookie %q: want Secure and HttpOnly", p.header.Get("Set-Cookie"))
			}
		}},
		{"second visit goes to refresh_url", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			c, _ := e.open(t, link)
			hostedRedirect(t, hostedGet(t, c, link), http.StatusFound, hostedRefresh)
			hostedRedirect(t, hostedGet(t, e.browser(), link), http.StatusFound, hostedRefresh)
		}},
		{"expired link goes to refresh_url", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{refresh: "https://platform.example/refresh?expired=1"})
			e.clock.Advance(10 * time.Minute) // now == expires_at
			hostedRedirect(t, hostedGet(t, e.browser(), link), http.StatusFound, "https://platform.example/refresh?expired=1")
		}},
		{"link used just before it expires answers the form", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			e.clock.Advance(10*time.Minute - time.Millisecond)
			e.open(t, link)
		}},
		{"unknown token is not a valid link", func(t *testing.T) {
			acct := e.createAccount("")
			p := hostedReadPage(t, hostedGet(t, e.browser(), e.url+"/r/"+acct+"/alu_test_"+strings.Repeat("Ab3", 11)), http.StatusNotFound)
			if !strings.Contains(p.text(), "This link is not valid.") {
				t.Errorf("page: %s", p.text())
			}
		}},
		{"link of another account is not a valid link and is not used up", func(t *testing.T) {
			acct, other := e.createAccount(""), e.createAccount("")
			link := e.createLink(acct, hostedLinkOptions{})
			wrong := strings.Replace(link, "/r/"+acct+"/", "/r/"+other+"/", 1)
			p := hostedReadPage(t, hostedGet(t, e.browser(), wrong), http.StatusNotFound)
			if !strings.Contains(p.text(), "This link is not valid.") {
				t.Errorf("page: %s", p.text())
			}
			c, form := e.open(t, link)
			// Submitting to the wrong account's URL is not found either, even with the session.
			hostedReadPage(t, hostedPost(t, c, wrong, hostedValidForm(form)), http.StatusNotFound)
		}},
		{"valid submission onboards the account and returns", func(t *testing.T) {
			acct := e.createAccount("")
			before := e.account(acct)
			if n := len(hostedDig(before, "requirements", "entries").([]any)); n != 5 {
				t.Fatalf("a new account has %d requirements, want 5", n)
			}
			// Every entry has its errors, empty here (stripe-go's type always has them).
			for _, en := range hostedDig(before, "requirements", "entries").([]any) {
				if errs, ok := en.(map[string]any)["errors"].([]any); !ok || len(errs) != 0 {
					t.Errorf("requirement entry %v: want errors []", en)
				}
			}
			link := e.createLink(acct, hostedLinkOptions{})
			c, p := e.open(t, link)
			hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusSeeOther, hostedReturn)
			a := e.account(acct)
			if n := len(hostedDig(a, "requirements", "entries").([]any)); n != 0 {
				t.Errorf("requirements left: %v", hostedDig(a, "requirements", "entries"))
			}
			if s := hostedDig(a, "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers", "status"); s != "active" {
				t.Errorf("stripe_transfers status %v, want active", s)
			}
			// An active capability has nothing to say of its status: its details are [].
			if d, ok := hostedDig(a, "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers", "status_details").([]any); !ok || len(d) != 0 {
				t.Errorf("stripe_transfers status_details %v, want []", hostedDig(a, "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers"))
			}
			if hostedDig(a, "identity", "country") != "US" || hostedDig(a, "identity", "entity_type") != "individual" ||
				a["contact_email"] != "jenny.rosen@example.com" || a["display_name"] != "Jenny Rosen" {
				t.Errorf("account not updated: identity %v, contact_email %v, display_name %v", a["identity"], a["contact_email"], a["display_name"])
			}
			hostedRedirect(t, hostedGet(t, c, link), http.StatusFound, hostedRefresh)
		}},
		{"a query on the link's URL is ignored, even one that does not parse", func(t *testing.T) {
			// Go's form parsing refuses ';' and bad %-escapes in a query; a browser may
			// still be sent such a URL, and the link means the same with it.
			acct := e.createAccount("")
			link := e.createLink(acct, hostedLinkOptions{})
			c, p := e.open(t, link+"?utm_source=x;y")
			hostedRedirect(t, hostedPost(t, c, link+"?a;b&c=%zz", hostedValidForm(p)), http.StatusSeeOther, hostedReturn)
			if s := hostedDig(e.account(acct), "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers", "status"); s != "active" {
				t.Errorf("stripe_transfers status %v, want active", s)
			}
		}},
		{"submission without the session cookie is refused", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			_, p := e.open(t, link)
			q := hostedReadPage(t, hostedPost(t, e.browser(), link, hostedValidForm(p)), http.StatusForbidden)
			if !strings.Contains(q.text(), "This form has expired or was already submitted. Ask for a new link.") {
				t.Errorf("page: %s", q.text())
			}
		}},
		{"replayed submission is refused", func(t *testing.T) {
			acct := e.createAccount("")
			link := e.createLink(acct, hostedLinkOptions{})
			c, p := e.open(t, link)
			hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusSeeOther, hostedReturn)
			replay := hostedValidForm(p)
			replay.Set("display_name", "Mallory")
			hostedReadPage(t, hostedPost(t, c, link, replay), http.StatusForbidden)
			if name := e.account(acct)["display_name"]; name != "Jenny Rosen" {
				t.Errorf("the replay changed the account: display_name %v", name)
			}
		}},
		{"wrong nonce is refused and leaves the session usable", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			c, p := e.open(t, link)
			bad := hostedValidForm(p)
			bad.Set("nonce", strings.Repeat("x", len(p.value("nonce"))))
			hostedReadPage(t, hostedPost(t, c, link, bad), http.StatusForbidden)
			bad.Set("nonce", "")
			hostedReadPage(t, hostedPost(t, c, link, bad), http.StatusForbidden)
			hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusSeeOther, hostedReturn)
		}},
		{"session of another link is refused", func(t *testing.T) {
			acct := e.createAccount("")
			link1, link2 := e.createLink(acct, hostedLinkOptions{}), e.createLink(acct, hostedLinkOptions{})
			c1, p1 := e.open(t, link1)
			c2, p2 := e.open(t, link2)
			var session string
			for _, ck := range c1.Jar.Cookies(hostedURL(t, link1)) {
				session = ck.Value
			}
			// link 1's cookie with link 2's form.
			req, _ := http.NewRequest(http.MethodPost, link2, strings.NewReader(hostedValidForm(p2).Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: hostedCookie, Value: session})
			resp, err := e.browser().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			hostedReadPage(t, resp, http.StatusForbidden)
			// link 2's cookie with link 1's nonce.
			mixed := hostedValidForm(p2)
			mixed.Set("nonce", p1.value("nonce"))
			hostedReadPage(t, hostedPost(t, c2, link2, mixed), http.StatusForbidden)
			// Both sessions still work.
			hostedRedirect(t, hostedPost(t, c1, link1, hostedValidForm(p1)), http.StatusSeeOther, hostedReturn)
			hostedRedirect(t, hostedPost(t, c2, link2, hostedValidForm(p2)), http.StatusSeeOther, hostedReturn)
		}},
		{"late submission is refused", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			c, p := e.open(t, link)
			e.clock.Advance(30 * time.Minute)
			hostedReadPage(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusForbidden)
		}},
		{"invalid email answers the form again, then a corrected form is accepted", func(t *testing.T) {
			acct := e.createAccount("")
			link := e.createLink(acct, hostedLinkOptions{})
			c, p := e.open(t, link)
			bad := hostedValidForm(p)
			bad.Set("contact_email", "jenny at example")
			q := hostedReadPage(t, hostedPost(t, c, link, bad), http.StatusBadRequest)
			if q.byID("hosted_form") == nil || q.byID("form_errors") == nil {
				t.Fatal("the form is not answered again with its errors")
			}
			if errNode := q.byID("contact_email_error"); errNode == nil || !strings.Contains(hostedText(errNode), "email address") {
				t.Errorf("no error next to contact_email")
			}
			if q.byID("display_name_error") != nil || q.byID("country_error") != nil {
				t.Error("valid fields are marked as errors")
			}
			if q.value("contact_email") != "jenny at example" || q.value("display_name") != "Jenny Rosen" || q.value("country") != "us" {
				t.Errorf("values not kept: %q %q %q", q.value("contact_email"), q.value("display_name"), q.value("country"))
			}
			if sel := hostedFind(q.byID("entity_type"), func(n *html.Node) bool { return n.Data == "option" && hostedHasAttr(n, "selected") }); sel == nil || hostedAttr(sel, "value") != "individual" {
				t.Error("entity_type choice not kept")
			}
			if tos := q.byID("terms_of_service"); !hostedHasAttr(tos, "checked") {
				t.Error("terms_of_service not kept")
			}
			if q.value("nonce") != p.value("nonce") {
				t.Errorf("nonce changed: %q -> %q", p.value("nonce"), q.value("nonce"))
			}
			if s := hostedDig(e.account(acct), "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers", "status"); s != "restricted" {
				t.Errorf("an invalid form changed the account: status %v", s)
			}
			hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(q)), http.StatusSeeOther, hostedReturn)
		}},
		{"every field and the terms are checked", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			c, p := e.open(t, link)
			bad := url.Values{"nonce": {p.value("nonce")}, "contact_email": {"Jenny <jenny@example.com>"}, "display_name": {"   "}, "country": {"USA"}, "entity_type": {"pirate"}}
			q := hostedReadPage(t, hostedPost(t, c, link, bad), http.StatusBadRequest)
			for _, id := range []string{"contact_email_error", "display_name_error", "country_error", "entity_type_error", "terms_of_service_error"} {
				if q.byID(id) == nil {
					t.Errorf("no #%s", id)
				}
			}
			if !strings.Contains(q.text(), "Accept the terms of service") {
				t.Errorf("terms error not said: %s", q.text())
			}
		}},
		{"text that is not UTF-8 is refused like control characters", func(t *testing.T) {
			// Bytes that are not UTF-8 (a lone surrogate's encoding among them) would be
			// stored as U+FFFD: the field is refused, and the page stays UTF-8.
			for _, bad := range []string{"\xff\xfe", "\xed\xa0\x80", "Acme \xc3"} {
				acct := e.createAccount("")
				link := e.createLink(acct, hostedLinkOptions{})
				c, p := e.open(t, link)
				form := hostedValidForm(p)
				form.Set("display_name", bad)
				q := hostedReadPage(t, hostedPost(t, c, link, form), http.StatusBadRequest)
				if errNode := q.byID("display_name_error"); errNode == nil || !strings.Contains(hostedText(errNode), "Use letters, digits, spaces and punctuation only.") {
					t.Errorf("%q: no error next to display_name", bad)
				}
				if !utf8.ValidString(q.raw) {
					t.Errorf("%q: the page answered is not UTF-8", bad)
				}
				if name := e.account(acct)["display_name"]; name != nil {
					t.Errorf("%q: display_name stored as %q", bad, name)
				}
				hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(q)), http.StatusSeeOther, hostedReturn)
			}
		}},
		{"no return_url answers a completion page", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{noReturn: true})
			c, p := e.open(t, link)
			q := hostedReadPage(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusOK)
			if !strings.Contains(q.text(), "You're all set. You can close this page.") {
				t.Errorf("page: %s", q.text())
			}
		}},
		{"what the account has is not asked again", func(t *testing.T) {
			acct := e.createAccount(`"display_name":"Acme Corp","contact_email":"ops@acme.example"`)
			link := e.createLink(acct, hostedLinkOptions{})
			c, p := e.open(t, link)
			if p.byID("contact_email") != nil || p.byID("display_name") != nil {
				t.Error("fields the account has are asked")
			}
			if p.byID("country") == nil || p.byID("entity_type") == nil {
				t.Fatal("fields the account lacks are not asked")
			}
			if n := p.byID("account_name"); n == nil || hostedText(n) != "Acme Corp" {
				t.Error("the account's name is not shown")
			}
			form := url.Values{"nonce": {p.value("nonce")}, "country": {"FR"}, "entity_type": {"company"}, "terms_of_service": {"accepted"},
				"representative_given_name": {"Jenny"}, "representative_surname": {"Rosen"}}
			hostedRedirect(t, hostedPost(t, c, link, form), http.StatusSeeOther, hostedReturn)
			a := e.account(acct)
			if a["contact_email"] != "ops@acme.example" || hostedDig(a, "identity", "country") != "FR" {
				t.Errorf("account: %v", a)
			}
			// What is left is eventually due (the company's owners, directors, executives),
			// which the platform provides through persons; the form collected the rest.
			for _, en := range hostedDig(a, "requirements", "entries").([]any) {
				if s := hostedDig(en.(map[string]any), "minimum_deadline", "status"); s != "eventually_due" {
					t.Errorf("requirement %v is %v after the form, want nothing currently due", en, s)
				}
			}
			if s := hostedDig(a, "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers", "status"); s != "active" {
				t.Errorf("stripe_transfers %v, want active", s)
			}
		}},
		{"eventually_due shows every field, prefilled", func(t *testing.T) {
			acct := e.createAccount(`"display_name":"Acme Corp","contact_email":"ops@acme.example","identity":{"country":"DE","entity_type":"company"}`)
			link := e.createLink(acct, hostedLinkOptions{fields: "eventually_due"})
			_, p := e.open(t, link)
			for id, want := range map[string]string{"display_name": "Acme Corp", "contact_email": "ops@acme.example", "country": "DE"} {
				if p.value(id) != want {
					t.Errorf("#%s = %q, want %q", id, p.value(id), want)
				}
				if hostedHasAttr(p.byID(id), "required") {
					t.Errorf("#%s is required though known", id)
				}
			}
			if sel := hostedFind(p.byID("entity_type"), func(n *html.Node) bool { return n.Data == "option" && hostedHasAttr(n, "selected") }); sel == nil || hostedAttr(sel, "value") != "company" {
				t.Error("entity_type not prefilled")
			}
		}},
		{"account_update link is titled as an update", func(t *testing.T) {
			acct := e.createAccount(`"display_name":"Acme Corp","contact_email":"ops@acme.example","identity":{"country":"DE","entity_type":"company"}`)
			link := e.createLink(acct, hostedLinkOptions{useCase: "account_update"})
			c, p := e.open(t, link)
			if h := p.byID("heading"); h == nil || !strings.Contains(hostedText(h), "update") {
				t.Errorf("heading does not name the update")
			}
			if p.value("contact_email") != "ops@acme.example" {
				t.Error("an update link does not show the fields to update")
			}
			form := url.Values{"nonce": {p.value("nonce")}, "contact_email": {"new@acme.example"}, "terms_of_service": {"accepted"},
				"representative_given_name": {"Jenny"}, "representative_surname": {"Rosen"}}
			hostedRedirect(t, hostedPost(t, c, link, form), http.StatusSeeOther, hostedReturn)
			if got := e.account(acct)["contact_email"]; got != "new@acme.example" {
				t.Errorf("contact_email %v", got)
			}
		}},
		{"everything printed is escaped", func(t *testing.T) {
			acct := e.createAccount(`"display_name":"<script>alert(1)</script>"`)
			link := e.createLink(acct, hostedLinkOptions{fields: "eventually_due"})
			c, p := e.open(t, link)
			if !strings.Contains(p.raw, "&lt;script&gt;") || strings.Contains(p.raw, "<script>alert") {
				t.Errorf("display name not escaped: %s", p.raw)
			}
			if p.value("display_name") != "<script>alert(1)</script>" {
				t.Errorf("prefilled display name %q", p.value("display_name"))
			}
			bad := hostedValidForm(p)
			bad.Set("display_name", `"><script>alert(2)</script>`)
			bad.Set("contact_email", `x"><img src=x onerror=alert(3)>`)
			q := hostedReadPage(t, hostedPost(t, c, link, bad), http.StatusBadRequest)
			if strings.Contains(q.raw, "<script>alert") || strings.Contains(q.raw, "<img") {
				t.Errorf("submitted values not escaped: %s", q.raw)
			}
			if q.value("contact_email") != `x"><img src=x onerror=alert(3)>` {
				t.Errorf("value not kept as sent: %q", q.value("contact_email"))
			}
		}},
		{"racing first visits open one session", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			const n = 20
			statuses := make(chan int, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range n {
				c := e.browser()
				wg.Go(func() {
					<-start
					resp, err := c.Get(link)
					if err != nil {
						t.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == http.StatusFound && resp.Header.Get("Location") != hostedRefresh {
						t.Errorf("302 to %q", resp.Header.Get("Location"))
					}
					statuses <- resp.StatusCode
				})
			}
			close(start)
			wg.Wait()
			close(statuses)
			count := map[int]int{}
			for s := range statuses {
				count[s]++
			}
			if count[http.StatusOK] != 1 || count[http.StatusFound] != n-1 {
				t.Errorf("statuses %v, want one 200 and %d 302", count, n-1)
			}
		}},
		{"racing double submit updates once", func(t *testing.T) {
			link := e.createLink(e.createAccount(""), hostedLinkOptions{})
			c, p := e.open(t, link)
			const n = 8
			statuses := make(chan int, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range n {
				wg.Go(func() {
					<-start
					resp, err := c.PostForm(link, hostedValidForm(p))
					if err != nil {
						t.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					statuses <- resp.StatusCode
				})
			}
			close(start)
			wg.Wait()
			close(statuses)
			count := map[int]int{}
			for s := range statuses {
				count[s]++
			}
			if count[http.StatusSeeOther] != 1 || count[http.StatusForbidden] != n-1 {
				t.Errorf("statuses %v, want one 303 and %d 403", count, n-1)
			}
		}},
		{"spec violations answer HTML pages", func(t *testing.T) {
			acct := e.createAccount("")
			link := e.createLink(acct, hostedLinkOptions{})
			c, p := e.open(t, link)
			noNonce := hostedValidForm(p)
			noNonce.Del("nonce")
			q := hostedReadPage(t, hostedPost(t, c, link, noNonce), http.StatusBadRequest)
			if !strings.Contains(q.text(), "nonce") {
				t.Errorf("the page does not say what is wrong: %s", q.text())
			}
			// JSON instead of a form.
			req, _ := http.NewRequest(http.MethodPost, link, strings.NewReader(`{"nonce":"x"}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			hostedReadPage(t, resp, http.StatusUnsupportedMediaType)
			// A malformed token.
			q = hostedReadPage(t, hostedGet(t, c, e.url+"/r/"+acct+"/alu_test_short"), http.StatusBadRequest)
			if !strings.Contains(q.text(), "This link is not valid.") {
				t.Errorf("page: %s", q.text())
			}
			// A path the spec does not have (so not through the spec-checking client).
			plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			hostedReadPage(t, hostedGet(t, plain, e.url+"/r/"+acct), http.StatusNotFound)
			// A wrong method.
			req, _ = http.NewRequest(http.MethodDelete, link, nil)
			resp, err = plain.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			hostedReadPage(t, resp, http.StatusMethodNotAllowed)
			// The session survives all of that.
			hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusSeeOther, hostedReturn)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

// TestHostedFlowAccountLimit: the update a form makes counts toward the account's
// concurrency limit; a form refused for it (429) can be sent again.
func TestHostedFlowAccountLimit(t *testing.T) {
	// Wide margins: the other update must hold the account when the form arrives, even on a
	// busy machine.
	e := newHostedEnv(t, func(c *server.Config) { c.Accounts.UpdateLatency = 2 * time.Second })
	acct := e.createAccount("")
	link := e.createLink(acct, hostedLinkOptions{})
	c, p := e.open(t, link)

	done := make(chan int)
	go func() {
		// Another update of the same account, holding it for UpdateLatency.
		raw := fmt.Sprintf(`{"account":%q,"use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":%q}}}`, acct, hostedRefresh)
		req, _ := http.NewRequest(http.MethodPost, e.url+"/v2/core/account_links", strings.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+hostedKey)
		req.Header.Set("Service-Version", hostedVersion)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	time.Sleep(600 * time.Millisecond) // the other update holds the account by now, for 1.4s more
	q := hostedReadPage(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusTooManyRequests)
	if !strings.Contains(q.text(), "Too many updates at once; try again.") {
		t.Errorf("page: %s", q.text())
	}
	if status := <-done; status != http.StatusOK {
		t.Fatalf("the other update: %d", status)
	}
	hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusSeeOther, hostedReturn)
}

// TestHostedFlowActivatesOnlyTheLinksConfigurations: a submitted form completes the
// onboarding of its link's configurations, and only theirs; the other configurations of
// the account stay restricted until a link for them is submitted, onboarding or update.
func TestHostedFlowActivatesOnlyTheLinksConfigurations(t *testing.T) {
	e := newHostedEnv(t, nil)
	status, out := e.api(http.MethodPost, "/v2/core/accounts", `{"configuration":{"recipient":{"capabilities":`+hostedRecipientJSON+`},`+
		`"merchant":{"capabilities":{"card_payments":{"requested":true}}}}}`)
	if status != http.StatusOK {
		t.Fatalf("create account: %d %v", status, out)
	}
	acct := out["id"].(string)
	read := func() map[string]any {
		t.Helper()
		status, a := e.api(http.MethodGet, "/v2/core/accounts/"+acct+"?include=requirements&include=configuration.recipient&include=configuration.merchant", "")
		if status != http.StatusOK {
			t.Fatalf("get account: %d %v", status, a)
		}
		return a
	}
	statuses := func(a map[string]any) string {
		return fmt.Sprintf("merchant %v, recipient %v",
			hostedDig(a, "configuration", "merchant", "capabilities", "card_payments", "status"),
			hostedDig(a, "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers", "status"))
	}
	// restricts lists, per requirement, the capabilities it holds back.
	restricts := func(a map[string]any) string {
		var out []string
		for _, en := range hostedDig(a, "requirements", "entries").([]any) {
			var caps []string
			list, _ := hostedDig(en.(map[string]any), "impact", "restricts_capabilities").([]any)
			for _, c := range list {
				caps = append(caps, fmt.Sprint(c.(map[string]any)["configuration"], ".", c.(map[string]any)["capability"]))
			}
			out = append(out, fmt.Sprintf("%v:%s", en.(map[string]any)["description"], strings.Join(caps, "+")))
		}
		return strings.Join(out, " ")
	}

	link := e.createLink(acct, hostedLinkOptions{configurations: []string{"merchant"}})
	c, p := e.open(t, link)
	hostedRedirect(t, hostedPost(t, c, link, hostedValidForm(p)), http.StatusSeeOther, hostedReturn)
	a := read()
	if got, want := statuses(a), "merchant active, recipient restricted"; got != want {
		t.Errorf("after the merchant link: %s, want %s", got, want)
	}
	if got, want := restricts(a), "identity.attestations.terms_of_service.account:recipient.stripe_balance.stripe_transfers"; got != want {
		t.Errorf("after the merchant link, requirements %s, want %s", got, want)
	}

	// An update link for the recipient configuration: nothing is missing but its terms.
	link = e.createLink(acct, hostedLinkOptions{useCase: "account_update", configurations: []string{"recipient"}})
	c, p = e.open(t, link)
	if p.value("display_name") != "Jenny Rosen" || hostedHasAttr(p.byID("display_name"), "required") {
		t.Errorf("the update form does not show what the account has, as optional")
	}
	form := url.Values{"nonce": {p.value("nonce")}, "terms_of_service": {"accepted"}}
	hostedRedirect(t, hostedPost(t, c, link, form), http.StatusSeeOther, hostedReturn)
	a = read()
	if got, want := statuses(a), "merchant active, recipient active"; got != want {
		t.Errorf("after the recipient update link: %s, want %s", got, want)
	}
	if got := restricts(a); got != "" {
		t.Errorf("after both links, requirements %s, want none", got)
	}
}

func hostedURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
