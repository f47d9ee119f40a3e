package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// Bodies with data after their JSON value are refused on every API the way that API refuses
// malformed JSON, and nothing stored changes: ignoring the rest would let a handler bind
// something else than what was validated.

// errorCode is what identifies an error in any of the envelopes: ARM's and the admin API's
// code, the v2 type/code, Google's first reason.
func errorCode(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error struct {
			Code   any
			Type   string
			Errors []struct{ Reason string }
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not JSON: %v: %.300s", err, body)
	}
	switch {
	case len(e.Error.Errors) > 0:
		return e.Error.Errors[0].Reason
	case e.Error.Type != "":
		code, _ := e.Error.Code.(string)
		return e.Error.Type + "/" + code
	}
	code, _ := e.Error.Code.(string)
	return code
}

// trailers follow a valid body: each is refused.
var trailers = []string{"xyz", `{"properties":{"principalId":"not-a-guid"}}`, "]]]]", ` {"name":"INVALID NAME"}`, " {}", "\x00\x01garbage", "\n,", `"s"`, "0"}

// spaces follow a valid body: each is accepted.
var spaces = []string{" ", "\n", "\r\n\t  \n"}

// get returns the body of a GET that must answer 200.
func get(t *testing.T, url string, headers map[string]string) string {
	t.Helper()
	status, b := do(t, http.MethodGet, url, headers, nil, 0)
	if status != 200 {
		t.Fatalf("GET %s: %d %.300s", url, status, b)
	}
	return string(b)
}

// newGroup creates interconnect attachment group name with description desc and waits
// for it.
func newGroup(t *testing.T, base, name, desc string) {
	t.Helper()
	insertAndWait(t, base, "interconnectAttachmentGroups", name, `{"name":"`+name+`","description":"`+desc+`","intent":{"availabilitySla":"NO_SLA"}}`)
}

func TestTrailingDataAfterTheBody(t *testing.T) {
	srv := understudytest.Start(t)
	base := srv.URL
	acct := newAccount(t, base)
	newRule(t, base, "fr-labels")
	newGroup(t, base, "grp1", "kept")
	const guid = "b0f43c54-e787-4862-89b1-a653fa9cf747"
	raBody := `{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"` + hReader + `"}}`
	group := base + hProject + "/global/interconnectAttachmentGroups/grp1"
	linkBody := `{"account":"` + acct + `","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/r","return_url":"https://example.com/done"}}}`

	cases := []struct {
		name, method, path string
		headers            map[string]string
		body               string // valid
		envelope           func([]byte) (string, error)
		// state is what must not change when a request is refused ("" = nothing to look at).
		state func() string
	}{
		{name: "authorization role assignment PUT", method: "PUT", path: hRG + hRA + guid + hV, headers: hARM, body: raBody, envelope: armEnvelopeStrict,
			state: func() string {
				return get(t, base+hRG+"/providers/Vendor.Authorization/roleAssignments"+hV, hARM)
			}},
		{name: "accounts create account", method: "POST", path: "/v2/core/accounts", headers: hAccounts, body: `{"display_name":"trail"}`, envelope: v2Envelope,
			state: func() string { return get(t, base+"/v2/core/accounts?limit=100", hAccounts) }},
		{name: "accounts create link", method: "POST", path: "/v2/core/account_links", headers: hAccounts, body: linkBody, envelope: v2Envelope},
		{name: "compute insert rule", method: "POST", path: hProject + "/global/forwardingRules", headers: hCompute, body: `{"name":"fr-trail"}`, envelope: googleEnvelope,
			state: func() string { return get(t, base+hProject+"/global/forwardingRules", hCompute) }},
		{name: "compute setLabels", method: "POST", path: hProject + "/global/forwardingRules/fr-labels/setLabels", headers: hCompute,
			body: `{"labels":{"env":"prod"},"labelFingerprint":"42WmSpB8rSM="}`, envelope: googleEnvelope,
			state: func() string { return get(t, base+hProject+"/global/forwardingRules/fr-labels", hCompute) }},
		{name: "compute patch group", method: "PATCH", path: hProject + "/global/interconnectAttachmentGroups/grp1?updateMask=description", headers: hCompute,
			body: `{"description":"changed"}`, envelope: googleEnvelope,
			state: func() string { return get(t, group, hCompute) }},
		{name: "admin clock advance", method: "POST", path: "/_understudy/clock/advance", body: `{"seconds":0}`, envelope: adminEnvelope},
		{name: "admin add fault", method: "POST", path: "/_understudy/faults", body: `{"api":"compute","path":"/nowhere","status":503}`, envelope: adminEnvelope,
			state: func() string { return get(t, base+"/_understudy/faults", nil) }},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			headers := withHeaders(tt.headers, "Content-Type", "application/json")
			// What the API answers for malformed JSON: the answer wanted for trailing data.
			wantStatus, malformed := do(t, tt.method, base+tt.path, headers, strings.NewReader(tt.body[:len(tt.body)-1]), 0)
			if wantStatus != 400 {
				t.Fatalf("malformed JSON: %d %.300s", wantStatus, malformed)
			}
			wantCode := errorCode(t, malformed)
			var before string
			if tt.state != nil {
				before = tt.state()
			}
			for _, trailer := range trailers {
				status, got := do(t, tt.method, base+tt.path, headers, strings.NewReader(tt.body+trailer), 0)
				if status != wantStatus {
					t.Errorf("%q after the body: status %d, want %d: %.300s", trailer, status, wantStatus, got)
					continue
				}
				if _, err := tt.envelope(got); err != nil {
					t.Errorf("%q after the body: %v: %.300s", trailer, err, got)
				}
				if code := errorCode(t, got); code != wantCode {
					t.Errorf("%q after the body: error %q, want %q as for malformed JSON: %.300s", trailer, code, wantCode, got)
				}
				if tt.state != nil {
					if after := tt.state(); after != before {
						t.Errorf("%q after the body: a refused request changed what is stored:\nbefore %.500s\nafter  %.500s", trailer, before, after)
					}
				}
			}
			// White space after the value is still fine.
			for _, sp := range spaces {
				status, got := do(t, tt.method, base+tt.path, headers, strings.NewReader(tt.body+sp), 0)
				if status >= 300 && status != 409 && status != 412 { // after the first: the assignment exists (409), the fingerprint changed (412)
					t.Errorf("%q after the body: status %d: %.300s", sp, status, got)
				}
			}
		})
	}
	// The PATCH that succeeded at last did change the group: the check above looked at the
	// right thing.
	if g := get(t, group, hCompute); !strings.Contains(g, `"changed"`) {
		t.Errorf("the accepted PATCH did not change the description: %.300s", g)
	}
}

// TestTrailingDataChunked: a body without Content-Length is read whole too.
func TestTrailingDataChunked(t *testing.T) {
	srv := understudytest.Start(t)
	status, got := do(t, "POST", srv.URL+hProject+"/global/forwardingRules", withHeaders(hCompute, "Content-Type", "application/json"),
		strings.NewReader(`{"name":"fr-chunked"} {"name":"INVALID NAME"}`), -1)
	if status != 400 {
		t.Fatalf("status %d: %.300s", status, got)
	}
	if status, _ := do(t, "GET", srv.URL+hProject+"/global/forwardingRules/fr-chunked", hCompute, nil, 0); status != 404 {
		t.Errorf("the rule was created: %d", status)
	}
}
