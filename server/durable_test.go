package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// rawClient speaks plain HTTP to one server, so that a test can go on with the same state
// against a restarted server on another port.
type rawClient struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func newRaw(t *testing.T, base string) rawClient {
	return rawClient{t: t, base: base, hc: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// do sends a request and returns the status, the Location header and the decoded JSON body
// (nil when the body is not JSON).
func (c rawClient) do(method, path string, headers map[string]string, body string) (int, string, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, resp.Header.Get("Location"), out
}

func (c rawClient) must(want int, method, path string, headers map[string]string, body string) map[string]any {
	c.t.Helper()
	code, _, out := c.do(method, path, headers, body)
	if code != want {
		c.t.Fatalf("%s %s: %d, want %d: %v", method, path, code, want, out)
	}
	return out
}

var (
	durableARM  = map[string]string{"Authorization": "Bearer durable-test"}
	durableAcct = map[string]string{"Authorization": "Bearer sk_test_durable1", "Service-Version": "2026-05-27.dahlia"}
)

const (
	durableScope  = "/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/rg-durable"
	durableRA     = durableScope + "/providers/Vendor.Authorization/roleAssignments/5a4b9d2f-2c1e-4e0a-9f4e-000000000001?api-version=2022-04-01"
	durableRABody = `{"properties":{"principalId":"6e1c2d3a-0000-4000-8000-000000000002","roleDefinitionId":"/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`
	durableRules  = "/compute/v1/projects/durable-project/global/forwardingRules"
	durableOps    = "/compute/v1/projects/durable-project/global/operations/"
	accountBody   = `{"display_name":"Durable","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`
	linkBodyFmt   = `{"account":"%s","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://platform.example/refresh","return_url":"https://platform.example/return"}}}`
)

func startDurable(t *testing.T, dir string) *understudytest.Server {
	return understudytest.Start(t, understudytest.WithDataDir(dir), understudytest.WithConfig(func(c *server.Config) {
		c.Compute.Operations.Mode.Delay = time.Minute
	}))
}

func linkPath(t *testing.T, link map[string]any) string {
	t.Helper()
	u, err := url.Parse(link["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

// TestRestartRestoresEverything drives every API against a server with a data dir, stops
// it, starts another on the same dir and finds everything: resources with their ids and
// fingerprints, consumed and live links, idempotency keys, requestIds, the clock, and a
// pending operation that then finishes. A reset is kept across a restart as well.
func TestRestartRestoresEverything(t *testing.T) {
	dir := t.TempDir()
	first := startDurable(t, dir)
	c := newRaw(t, first.URL)

	ra := c.must(201, "PUT", durableRA, durableARM, durableRABody)

	acctIdem := map[string]string{"Idempotency-Key": "durable-key-1"}
	for k, v := range durableAcct {
		acctIdem[k] = v
	}
	acct := c.must(200, "POST", "/v2/core/accounts", acctIdem, accountBody)
	acctID := acct["id"].(string)
	consumed := linkPath(t, c.must(200, "POST", "/v2/core/account_links", durableAcct, strings.Replace(linkBodyFmt, "%s", acctID, 1)))
	live := linkPath(t, c.must(200, "POST", "/v2/core/account_links", durableAcct, strings.Replace(linkBodyFmt, "%s", acctID, 1)))
	if code, _, _ := c.do("GET", consumed, nil, ""); code != 200 {
		t.Fatalf("first visit of a link: %d", code)
	}

	op1 := c.must(200, "POST", durableRules+"?requestId=7f6e5d4c-0000-4000-8000-000000000001", durableARM, `{"name":"rule-done","portRange":"443-443"}`)
	c.must(200, "POST", "/_understudy/clock/advance", nil, `{"seconds":120}`)
	if op := c.must(200, "GET", durableOps+op1["name"].(string), durableARM, ""); op["status"] != "DONE" {
		t.Fatalf("operation after two minutes: %v", op)
	}
	rule := c.must(200, "GET", durableRules+"/rule-done", durableARM, "")
	op2 := c.must(200, "POST", durableRules+"?requestId=7f6e5d4c-0000-4000-8000-000000000002", durableARM, `{"name":"rule-pending","portRange":"443-443"}`)
	first.Stop(t)

	second := startDurable(t, dir)
	c = newRaw(t, second.URL)
	if got := c.must(200, "GET", durableRA, durableARM, ""); got["id"] != ra["id"] || got["properties"].(map[string]any)["createdOn"] != ra["properties"].(map[string]any)["createdOn"] {
		t.Errorf("role assignment after restart = %v, want %v", got, ra)
	}
	if got := c.must(200, "GET", "/v2/core/accounts/"+acctID, durableAcct, ""); got["created"] != acct["created"] {
		t.Errorf("account after restart = %v, want %v", got, acct)
	}
	if got := c.must(200, "POST", "/v2/core/accounts", acctIdem, accountBody); got["id"] != acctID {
		t.Errorf("idempotent retry after restart made %v, want %s", got["id"], acctID)
	}
	newer := c.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody)
	list := c.must(200, "GET", "/v2/core/accounts?limit=2", durableAcct, "")
	if data := list["data"].([]any); len(data) != 2 || data[0].(map[string]any)["id"] != newer["id"] || data[1].(map[string]any)["id"] != acctID {
		t.Errorf("newest-first list after restart = %v", data)
	}
	if code, loc, _ := c.do("GET", consumed, nil, ""); code != 302 || loc != "https://platform.example/refresh" {
		t.Errorf("consumed link after restart: %d to %q, want 302 to refresh_url", code, loc)
	}
	if code, _, _ := c.do("GET", live, nil, ""); code != 200 {
		t.Errorf("live link after restart: %d, want the form", code)
	}
	if got := c.must(200, "GET", durableRules+"/rule-done", durableARM, ""); got["id"] != rule["id"] || got["labelFingerprint"] != rule["labelFingerprint"] {
		t.Errorf("rule after restart = %v, want %v", got, rule)
	}
	if clk := c.must(200, "GET", "/_understudy/clock", nil, ""); clk["offsetSeconds"].(float64) < 120 {
		t.Errorf("clock offset after restart = %v, want the 120 s advanced before", clk["offsetSeconds"])
	}
	retry := c.must(200, "POST", durableRules+"?requestId=7f6e5d4c-0000-4000-8000-000000000002", durableARM, `{"name":"rule-pending","portRange":"443-443"}`)
	if retry["name"] != op2["name"] || retry["status"] == "DONE" {
		t.Errorf("requestId retry after restart = %v, want the pending %v", retry["name"], op2["name"])
	}
	if code, _, _ := c.do("GET", durableRules+"/rule-pending", durableARM, ""); code != 404 {
		t.Errorf("a rule whose insert is still running is readable: %d", code)
	}
	c.must(200, "POST", "/_understudy/clock/advance", nil, `{"seconds":120}`)
	if op := c.must(200, "GET", durableOps+op2["name"].(string), durableARM, ""); op["status"] != "DONE" {
		t.Errorf("the operation running at the restart did not finish: %v", op)
	}
	c.must(200, "GET", durableRules+"/rule-pending", durableARM, "")

	c.must(200, "POST", "/_understudy/reset", nil, "")
	second.Stop(t)
	third := startDurable(t, dir)
	c = newRaw(t, third.URL)
	if code, _, _ := c.do("GET", durableRA, durableARM, ""); code != 404 {
		t.Errorf("role assignment after reset and restart: %d, want 404", code)
	}
	if code, _, _ := c.do("GET", durableRules+"/rule-done", durableARM, ""); code != 404 {
		t.Errorf("rule after reset and restart: %d, want 404", code)
	}
	if code, _, _ := c.do("GET", "/v2/core/accounts/"+acctID, durableAcct, ""); code != 404 {
		t.Errorf("account after reset and restart: %d, want 404", code)
	}
}

// TestDataDirInUse: a second server on a data dir in use fails to start, naming the dir.
func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	startDurable(t, dir)
	_, err := server.New(server.Config{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second server on %s: %v, want an in-use error naming it", dir, err)
	}
}
