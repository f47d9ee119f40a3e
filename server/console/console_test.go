package console_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	admingen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/understudytest"
)

// consoleClient is an HTTP client that keeps cookies by hand and never follows redirects.
type consoleClient struct {
	t      *testing.T
	http   *http.Client
	base   string
	cookie string
	bearer string
}

func newConsoleClient(t *testing.T, srv *understudytest.Server) *consoleClient {
	h := srv.HTTPClient()
	h.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &consoleClient{t: t, http: h, base: srv.URL}
}

func (c *consoleClient) do(method, path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.cookie != "" {
		req.Header.Set("Cookie", c.cookie)
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// login opens a session with the admin token and returns the page's CSRF token.
func (c *consoleClient) login(token string) string {
	c.t.Helper()
	resp, _ := c.do(http.MethodPost, "/_understudy/console/login", url.Values{"token": {token}, "next": {"/_understudy/console/controls"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/_understudy/console/controls" {
		c.t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	ck := resp.Cookies()
	if len(ck) != 1 || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode || ck[0].Path != "/_understudy/console" {
		c.t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/_understudy/console", ck)
	}
	c.cookie = ck[0].Name + "=" + ck[0].Value
	_, page := c.do(http.MethodGet, "/_understudy/console/controls", nil)
	_, rest, ok := strings.Cut(page, `name="csrf" value="`)
	if !ok {
		c.t.Fatal("no CSRF token on the controls page")
	}
	csrf, _, _ := strings.Cut(rest, `"`)
	return csrf
}

// TestConsoleSession: with an admin token, pages redirect to the login page and changes
// are refused until a session is opened; a wrong token opens none; a change needs the
// session's CSRF token; scripts may use the admin token itself; the login never sends the
// browser to another site.
func TestConsoleSession(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithAdminToken(adminToken))
	c := newConsoleClient(t, srv)

	resp, _ := c.do(http.MethodGet, "/_understudy/console/requests?api=compute", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/_understudy/console/login?next="+url.QueryEscape("/_understudy/console/requests?api=compute") {
		t.Fatalf("a page without a session: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := c.do(http.MethodPost, "/_understudy/console/controls/clock", url.Values{"seconds": {"60"}, "csrf": {"x"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "log in again") {
		t.Fatalf("a change without a session: %d %s", resp.StatusCode, body)
	}
	resp, body = c.do(http.MethodPost, "/_understudy/console/login", url.Values{"token": {"wrong"}})
	if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 || !strings.Contains(body, `id="error"`) {
		t.Fatalf("a wrong token: %d, cookies %v: %s", resp.StatusCode, resp.Cookies(), body)
	}
	// Another site as the place to go after logging in: the console's home instead.
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/_understudy/console\\@evil.example"} {
		resp, _ = c.do(http.MethodPost, "/_understudy/console/login", url.Values{"token": {adminToken}, "next": {next}})
		// The spec's pattern refuses it (400), or safeNext does.
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusBadRequest && loc != "/_understudy/console" {
			t.Errorf("next=%s: %d to %q", next, resp.StatusCode, loc)
		}
	}

	csrf := c.login(adminToken)
	for _, tc := range []struct {
		form url.Values
		want int
	}{
		{url.Values{"seconds": {"60"}}, http.StatusBadRequest}, // the spec requires the field
		{url.Values{"seconds": {"60"}, "csrf": {"forged"}}, http.StatusForbidden},
		{url.Values{"seconds": {"60"}, "csrf": {csrf}}, http.StatusSeeOther},
	} {
		resp, body := c.do(http.MethodPost, "/_understudy/console/controls/clock", tc.form)
		if resp.StatusCode != tc.want || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && tc.want != http.StatusSeeOther {
			t.Errorf("advance with %v: %d %s, want %d as a page", tc.form, resp.StatusCode, resp.Header.Get("Content-Type"), tc.want)
		}
		if tc.want == http.StatusForbidden && !strings.Contains(body, "CSRF") {
			t.Errorf("a forged CSRF token: %s", body)
		}
	}
	clk, err := srv.Admin.GetClockWithResponse(context.Background())
	if err != nil || clk.JSON200.OffsetSeconds != 60 {
		t.Fatalf("clock offset %v (%v), want 60: only the change with the CSRF token counts", clk.JSON200, err)
	}

	// A page's headers: no caching, no framing, scripts by nonce only.
	resp, _ = c.do(http.MethodGet, "/_understudy/console", nil)
	if h := resp.Header; h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" || !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'nonce-") ||
		h.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("page headers %v", h)
	}

	// A script with the admin token needs neither a session nor a CSRF token.
	s := newConsoleClient(t, srv)
	s.bearer = adminToken
	if resp, body := s.do(http.MethodPost, "/_understudy/console/controls/clock", url.Values{"seconds": {"1"}, "csrf": {""}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("with the admin token: %d %s", resp.StatusCode, body)
	}
	s.bearer = "wrong"
	if resp, _ := s.do(http.MethodPost, "/_understudy/console/controls/clock", url.Values{"seconds": {"1"}, "csrf": {""}}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("with a wrong bearer token: %d", resp.StatusCode)
	}
}

// TestConsoleSecureCookie: over TLS the session cookie is Secure.
func TestConsoleSecureCookie(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithTLS(), understudytest.WithAdminToken(adminToken))
	c := newConsoleClient(t, srv)
	resp, _ := c.do(http.MethodPost, "/_understudy/console/login", url.Values{"token": {adminToken}})
	if ck := resp.Cookies(); len(ck) != 1 || !ck[0].Secure {
		t.Fatalf("cookies over TLS %+v, want one Secure", ck)
	}
}

// TestConsoleRequestsFilter: the requests page and its live view keep only the entries
// the filters pass; bodies are kept only once someone looks, never credentials.
func TestConsoleRequestsFilter(t *testing.T) {
	srv := understudytest.Start(t)
	c := newConsoleClient(t, srv)
	ctx := context.Background()
	get := func(path, bearer string) int {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// A server without an admin token opens a session to whoever asks.
	resp, _ := c.do(http.MethodGet, "/_understudy/console/login", nil)
	if ck := resp.Cookies(); resp.StatusCode != http.StatusSeeOther || len(ck) != 1 {
		t.Fatalf("the login page of a server without a token: %d, cookies %v", resp.StatusCode, ck)
	} else {
		c.cookie = ck[0].Name + "=" + ck[0].Value
	}
	// Before anyone looks: journaled without bodies.
	get("/compute/v1/projects/proj-one/global/forwardingRules/unseen", "secret-before")
	_, page := c.do(http.MethodGet, "/_understudy/console/requests?q=unseen", nil)
	seq := between(page, `<a href="/_understudy/console/requests/`, `"`)
	if seq == "" {
		t.Fatalf("the request is not listed: %s", page)
	}
	if _, page := c.do(http.MethodGet, "/_understudy/console/requests/"+seq, nil); !strings.Contains(page, `id="not-captured"`) {
		t.Errorf("a request made while nobody looked shows captured headers")
	}

	// Now someone looks (the page above): exchanges are kept, credentials masked.
	get("/compute/v1/projects/proj-one/global/forwardingRules/missing-rule", "secret-token-1")
	get("/v2/core/accounts/acct_missing", "sk_test_secret1")
	_, page = c.do(http.MethodGet, "/_understudy/console/requests?api=compute&status=4xx&q=missing-rule", nil)
	if strings.Contains(page, "acct_missing") || !strings.Contains(page, "missing-rule") {
		t.Fatalf("filters api=compute, status=4xx, q=missing-rule: %s", page)
	}
	seq = between(page, `<a href="/_understudy/console/requests/`, `"`)
	_, page = c.do(http.MethodGet, "/_understudy/console/requests/"+seq, nil)
	if strings.Contains(page, "secret-token-1") || !strings.Contains(page, `id="response-body"`) || !strings.Contains(page, "notFound") {
		t.Errorf("the request page shows the token, or not the error envelope: %s", page)
	}
	if _, page = c.do(http.MethodGet, "/_understudy/console/requests?status=200", nil); strings.Contains(page, "missing-rule") {
		t.Errorf("status=200 lists a 404")
	}
	if _, page = c.do(http.MethodGet, "/_understudy/console/requests?operationId=retrieveAccount", nil); strings.Contains(page, "missing-rule") || !strings.Contains(page, "acct_missing") {
		t.Errorf("operationId=retrieveAccount: %s", page)
	}

	// The live view: only what passes its filters.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/_understudy/console/requests/events?api=accounts", nil)
	req.Header.Set("Cookie", c.cookie)
	resp, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("live view content type %q", ct)
	}
	events := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var ev strings.Builder
		for sc.Scan() {
			if sc.Text() == "" {
				events <- ev.String()
				ev.Reset()
				continue
			}
			ev.WriteString(sc.Text() + "\n")
		}
		close(events)
	}()
	<-events // the greeting
	get("/compute/v1/projects/proj-one/global/forwardingRules/not-for-the-view", "t")
	get("/v2/core/accounts/acct_live1", "sk_test_secret1")
	select {
	case ev := <-events:
		if !strings.HasPrefix(ev, "event: request\n") || !strings.Contains(ev, "acct_live1") || strings.Contains(ev, "not-for-the-view") {
			t.Errorf("live event %q", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no live event")
	}

	// A live view reconnecting with Last-Event-ID gets what it missed first, in order.
	replayCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ = http.NewRequestWithContext(replayCtx, http.MethodGet, srv.URL+"/_understudy/console/requests/events?api=accounts", nil)
	req.Header.Set("Cookie", c.cookie)
	req.Header.Set("Last-Event-ID", "1")
	again, err := srv.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Body.Close()
	sc := bufio.NewScanner(again.Body)
	var ids, paths []string
	for sc.Scan() && len(paths) < 2 {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			ids = append(ids, id)
		}
		for _, acct := range []string{"acct_missing", "acct_live1"} {
			if strings.HasPrefix(line, "data: ") && strings.Contains(line, "/v2/core/accounts/"+acct+"<") {
				paths = append(paths, acct)
			}
		}
	}
	if len(paths) != 2 || paths[0] != "acct_missing" || paths[1] != "acct_live1" || len(ids) != 2 || ids[0] >= ids[1] && len(ids[0]) == len(ids[1]) {
		t.Errorf("replayed %v with ids %v, want acct_missing then acct_live1", paths, ids)
	}
}

// TestConsoleDenyAssignments: the authorization page lists the deny assignments that apply
// at the scope shown, as the API's list with atScope() does: at it, and inherited from above
// (through a management group too) unless they apply at their scope only; with their
// principals by name, and a note under the access check that they are not enforced.
func TestConsoleDenyAssignments(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithSeedFile("../../testdata/seed-example.yaml"), understudytest.WithAdminToken(adminToken))
	c := newConsoleClient(t, srv)
	c.bearer = adminToken
	const (
		sub     = "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
		managed = sub + "/resourceGroups/managed-rg" // the seed's deny assignment
		writers = "55555555-5555-4555-8555-555555555555"
	)
	put := func(name, scope, display string, more map[string]any) {
		t.Helper()
		props := map[string]any{"scope": scope, "denyAssignmentName": display, "principals": []any{map[string]any{"id": writers}}}
		for k, v := range more {
			props[k] = v
		}
		r, err := srv.Admin.PutDenyAssignmentWithResponse(context.Background(), name, admingen.DenyAssignment{"properties": props})
		if err != nil || r.StatusCode() != http.StatusCreated {
			t.Fatalf("putting deny assignment %s: %v %s", display, err, r.Body)
		}
	}
	put("77777777-7777-4777-8777-777777777777", "/providers/Microsoft.Management/managementGroups/mg-example", "Group blob lock",
		map[string]any{"permissions": []any{map[string]any{"dataActions": []any{"Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"}}}, "denyAssignmentEffect": "audit"})
	put("88888888-8888-4888-8888-888888888888", sub, "Subscription only",
		map[string]any{"permissions": []any{map[string]any{"actions": []any{"Microsoft.Compute/virtualMachines/delete"}}}, "doNotApplyToChildScopes": true})

	denies := func(query string) map[string]string { // each row's text by its display name
		t.Helper()
		resp, page := c.do(http.MethodGet, "/_understudy/console/authorization?"+query, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", query, resp.StatusCode, page)
		}
		rows := map[string]string{}
		for _, row := range strings.Split(between(page, `<table id="denies">`, `</table>`), "<tr>")[2:] {
			for _, name := range []string{"Managed application lock", "Group blob lock", "Subscription only", "No deny assignments"} {
				if strings.Contains(row, name) {
					rows[name] = row
				}
			}
		}
		return rows
	}

	// The scope tree leads to the seed's deny assignment, at a scope holding no role
	// assignment.
	if _, page := c.do(http.MethodGet, "/_understudy/console/authorization", nil); !strings.Contains(between(page, `id="scope-tree">`, `</section>`), `>managed-rg</a>`) {
		t.Errorf("the scope tree lacks the managed resource group: %s", between(page, `id="scope-tree">`, `</section>`))
	}

	rows := denies("scope=" + url.QueryEscape(managed))
	if len(rows) != 2 {
		t.Fatalf("at the managed resource group: %v, want the seed's and the management group's", rows)
	}
	for _, want := range []string{managed, "Everyone but alice may only read the managed resource group.", ">*<", "*/read", "All Principals", alice + `</span> <span class="muted">(alice@example.com)`, "enforced"} {
		if row := rows["Managed application lock"]; !strings.Contains(row, want) || strings.Contains(row, "inherited") {
			t.Errorf("the seed's deny assignment lacks %q, or is inherited: %s", want, row)
		}
	}
	for _, want := range []string{"mg-example", "inherited", "blobs/read", writers + `</span> <span class="muted">(writers)`, "audit"} {
		if row := rows["Group blob lock"]; !strings.Contains(row, want) {
			t.Errorf("the management group's deny assignment lacks %q: %s", want, row)
		}
	}
	if rows := denies("scope=" + url.QueryEscape(sub)); len(rows) != 2 || !strings.Contains(rows["Subscription only"], "its scope only") || strings.Contains(rows["Subscription only"], "inherited") {
		t.Errorf("at the subscription: %v, want its own and the management group's", rows)
	}
	if rows := denies(""); len(rows) != 3 {
		t.Errorf("without a scope: %v, want every deny assignment", rows)
	}
	// The overview counts them too, in words that agree with the numbers.
	if _, home := c.do(http.MethodGet, "/_understudy/console", nil); !strings.Contains(between(home, `id="overview">`, `<h2>`), "role assignment, 3 deny assignments, 2 principals in") {
		t.Errorf("the overview does not count the seed's one role assignment and the three deny assignments: %s", between(home, `id="overview">`, `<h2>`))
	}
	if rows := denies("scope=/subscriptions/00000000-0000-0000-0000-000000000001"); len(rows) != 1 || !strings.Contains(rows["No deny assignments"], "No deny assignments apply here.") {
		t.Errorf("at a subscription out of the management group: %v, want none", rows)
	}

	_, page := c.do(http.MethodGet, "/_understudy/console/authorization?scope="+url.QueryEscape(managed)+"&principal="+alice+"&action=Microsoft.Compute/virtualMachines/delete", nil)
	if note := between(page, `id="deny-note">`, `</p>`); !strings.Contains(note, "neither the permission checks of --authz-enforce nor the permissions operation subtract what they deny") {
		t.Errorf("the access check says nothing of deny assignments: %q", note)
	}
}

func between(s, start, end string) string {
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, end)
	return v
}
