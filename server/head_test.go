package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestHEADIsGETWithoutTheBody: every route that answers GET answers HEAD with the same
// status and headers and no body (RFC 9110 section 9.3.2), in every API and the admin API;
// a route without GET is still 405. A hosted link's HEAD does not use the link up.
func TestHEADIsGETWithoutTheBody(t *testing.T) {
	srv := understudytest.Start(t)
	acct := newAccount(t, srv.URL)
	newRule(t, srv.URL, "fr-head")
	cases := []struct {
		path    string
		headers map[string]string
	}{
		{"/_understudy/health", nil},
		{"/compute/v1/projects/my-project-123/global/forwardingRules/fr-head", hCompute},
		{"/compute/v1/projects/my-project-123/global/forwardingRules/fr-none", hCompute},
		{"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", hCompute},
		{"/v2/core/accounts/" + acct, hAccounts},
	}
	for _, tt := range cases {
		get, getBody := do(t, "GET", srv.URL+tt.path, tt.headers, nil, 0)
		head, headBody := do(t, "HEAD", srv.URL+tt.path, tt.headers, nil, 0)
		if head != get || len(headBody) != 0 || len(getBody) == 0 {
			t.Errorf("%s: HEAD %d with %d bytes, GET %d with %d", tt.path, head, len(headBody), get, len(getBody))
		}
	}
	if status, _ := do(t, "HEAD", srv.URL+"/v2/core/account_links", hAccounts, nil, 0); status != http.StatusMethodNotAllowed {
		t.Errorf("HEAD of a POST-only route: %d, want 405", status)
	}

	status, b := do(t, "POST", srv.URL+"/v2/core/account_links", withHeaders(hAccounts, "Content-Type", "application/json"),
		strings.NewReader(`{"account":"`+acct+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://platform.example/refresh"}}}`), 0)
	var link struct{ URL string }
	if status != 200 || json.Unmarshal(b, &link) != nil {
		t.Fatalf("create link: %d %s", status, b)
	}
	u, _ := url.Parse(link.URL)
	if status, _ := do(t, "HEAD", srv.URL+u.Path, nil, nil, 0); status != http.StatusMethodNotAllowed {
		t.Errorf("HEAD of a hosted link: %d, want 405", status)
	}
	if status, page := do(t, "GET", srv.URL+u.Path, nil, nil, 0); status != 200 || !strings.Contains(string(page), "<form") {
		t.Errorf("GET of the link after a HEAD: %d %.200s", status, page)
	}
}
