package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEveryAPIReadsTheAdminClock serves as the binary does (Load, then serve): an advance of
// the admin clock moves every API's time, so links expire and delayed operations finish
// without waiting. Each API's default configuration once carried time.Now, which the
// server took as a clock of the API's own, and only tests that built the server by hand
// saw the admin clock.
func TestEveryAPIReadsTheAdminClock(t *testing.T) {
	base := "http://" + startServe(t, "--log-level", "error", "--compute-operation-mode", "1h")
	const days300 = 300 * 24 * 3600 // an advance may be at most 366 days
	call := func(method, path string, headers map[string]string, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return resp.StatusCode, out
	}
	advance := func(seconds int) {
		t.Helper()
		if code, out := call("POST", "/_understudy/clock/advance", nil, `{"seconds":`+strconv.Itoa(seconds)+`}`); code != 200 {
			t.Fatalf("advance: %d %v", code, out)
		}
	}
	// 150 days tell the admin clock (300 days ahead) from real time whatever the test's pace.
	later := time.Now().Add(days300 * time.Second / 2)
	stamp := func(what string, v any) {
		t.Helper()
		s, _ := v.(string)
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("%s: %q is not a time (%v)", what, s, err)
		}
		if at.Before(later) {
			t.Errorf("%s is %s: real time, not the advanced clock", what, s)
		}
	}

	// An account link made before the advance has expired after it (lifetime 10 minutes).
	acct := map[string]string{"Authorization": "Bearer sk_test_clock1", "Service-Version": "2026-05-27.dahlia"}
	code, a := call("POST", "/v2/core/accounts", acct, `{"display_name":"Clock","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`)
	if code != 200 {
		t.Fatalf("create account: %d %v", code, a)
	}
	code, link := call("POST", "/v2/core/account_links", acct, `{"account":"`+a["id"].(string)+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://platform.example/refresh","return_url":"https://platform.example/return"}}}`)
	if code != 200 {
		t.Fatalf("create link: %d %v", code, link)
	}
	// An operation made before the advance, due in an hour, is done after it.
	code, op := call("POST", "/compute/v1/projects/clock-project/global/forwardingRules", map[string]string{"Authorization": "Bearer clock"}, `{"name":"fr-clock","portRange":"443-443"}`)
	if code != 200 || op["status"] == "DONE" {
		t.Fatalf("insert: %d %v (want an operation not done yet)", code, op)
	}

	// 90 minutes on: the link (10 minutes) has expired, the operation (an hour) is done, and
	// kept (for an hour after it finished).
	advance(90 * 60)
	linkURL := link["url"].(string)
	if code, _ := call("GET", linkURL[strings.Index(linkURL, "/r/"):], nil, ""); code != http.StatusFound {
		t.Errorf("a link 90 minutes old answered %d, want 302 to its refresh_url", code)
	}
	code, op = call("GET", "/compute/v1/projects/clock-project/global/operations/"+op["name"].(string), map[string]string{"Authorization": "Bearer clock"}, "")
	if code != 200 || op["status"] != "DONE" {
		t.Errorf("an operation due in an hour, 90 minutes later: %d %v", code, op["status"])
	}

	advance(days300)
	// What each API makes now carries the advanced time.
	code, a = call("POST", "/v2/core/accounts", acct, `{"display_name":"Later"}`)
	if code != 200 {
		t.Fatalf("create account: %d %v", code, a)
	}
	stamp("a new account's created", a["created"])
	code, ra := call("PUT", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01",
		map[string]string{"Authorization": "Bearer clock"},
		`{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`)
	if code != 201 {
		t.Fatalf("create role assignment: %d %v", code, ra)
	}
	stamp("a new role assignment's createdOn", ra["properties"].(map[string]any)["createdOn"])
	code, op = call("POST", "/compute/v1/projects/clock-project/global/forwardingRules", map[string]string{"Authorization": "Bearer clock"}, `{"name":"fr-later","portRange":"443-443"}`)
	if code != 200 {
		t.Fatalf("insert: %d %v", code, op)
	}
	stamp("a new operation's insertTime", op["insertTime"])
}
