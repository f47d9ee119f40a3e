package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestDatabaseAway: while the PostgreSQL store cannot be reached (here a proxy refuses
// connections and cuts the open ones, as a database restarting does), every API answers
// its requests, reads and writes, at once with a 503 in its own envelope and Retry-After,
// never a 500 or a hang, and health says the store is away without saying a restart is
// needed. Once the database is back the same server serves again, nothing it had
// acknowledged lost.
func TestDatabaseAway(t *testing.T) {
	p, url, _ := pgtest.ProxiedURL(t)
	srv := understudytest.Start(t, understudytest.WithStore(url))
	c := newRaw(t, srv.URL)

	const rule = "/compute/v1/projects/away-project/global/forwardingRules"
	ra := c.must(201, "PUT", durableRA, durableARM, durableRABody)
	acct := c.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody)
	c.must(200, "POST", rule, durableARM, `{"name":"before","portRange":"443-443"}`)

	p.Down()
	type envelope func(body map[string]any) bool
	errorOf := func(body map[string]any) map[string]any {
		e, _ := body["error"].(map[string]any)
		return e
	}
	arm := func(body map[string]any) bool { return errorOf(body)["code"] == "ServiceUnavailable" }
	accounts := func(body map[string]any) bool { return errorOf(body)["type"] == "api_error" }
	compute := func(body map[string]any) bool {
		e := errorOf(body)
		items, _ := e["errors"].([]any)
		if e["code"] != float64(503) || len(items) != 1 {
			return false
		}
		item, _ := items[0].(map[string]any)
		return item["reason"] == "backendError"
	}
	admin := func(body map[string]any) bool { return errorOf(body)["code"] == "Unavailable" }
	for _, r := range []struct {
		name, method, path string
		headers            map[string]string
		body               string
		envelope           envelope
	}{
		{"role assignment PUT", "PUT", strings.Replace(durableRA, "000000000001", "000000000002", 1), durableARM, durableRABody, arm},
		{"role assignment GET", "GET", durableRA, durableARM, "", arm},
		{"account create", "POST", "/v2/core/accounts", durableAcct, accountBody, accounts},
		{"account GET", "GET", "/v2/core/accounts/" + acct["id"].(string), durableAcct, "", accounts},
		{"forwarding rule insert", "POST", rule, durableARM, `{"name":"during","portRange":"443-443"}`, compute},
		{"forwarding rules list", "GET", rule, durableARM, "", compute},
		{"state export", "GET", "/_understudy/state", nil, "", admin},
		{"health", "GET", "/_understudy/health", nil, "", admin},
	} {
		start := time.Now()
		code, header, body := sendRaw(t, srv.URL, r.method, r.path, r.headers, r.body)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v while the database was away", r.name, d)
		}
		if code != http.StatusServiceUnavailable || !r.envelope(body) {
			t.Errorf("%s while the database was away: %d %v, want 503 in the API's envelope", r.name, code, body)
		}
		if r.name != "health" && header.Get("Retry-After") != "1" {
			t.Errorf("%s: Retry-After %q, want 1", r.name, header.Get("Retry-After"))
		}
		if msg, _ := errorOf(body)["message"].(string); strings.Contains(msg, "restart") {
			t.Errorf("%s says %q: this store recovers by itself", r.name, msg)
		}
	}

	p.Up()
	if got := c.must(200, "GET", durableRA, durableARM, ""); got["id"] != ra["id"] {
		t.Errorf("the assignment made before: %v", got)
	}
	c.must(201, "PUT", strings.Replace(durableRA, "000000000001", "000000000003", 1), durableARM, strings.Replace(durableRABody, "000000000002", "000000000003", 1))
	c.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody)
	c.must(200, "POST", rule, durableARM, `{"name":"after","portRange":"443-443"}`)
	c.must(200, "GET", "/_understudy/health", nil, "")
	c.must(200, "GET", rule+"/before", durableARM, "")
	if code, _, _ := sendRaw(t, srv.URL, "GET", rule+"/during", durableARM, ""); code != http.StatusNotFound {
		t.Errorf("the rule refused while the database was away: GET answered %d, want 404", code)
	}
}

// sendRaw sends a request and returns the status, the headers and the decoded JSON body.
func sendRaw(t *testing.T, base, method, path string, headers map[string]string, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, resp.Header, out
}
