package server_test

import (
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestInvalidQueryEscapes: a query string with an invalid %-escape (or a ';'), whose bad
// parameter the query parsers would silently drop (an idempotency key, an api-version, a
// page size), is answered 400 by every API in its own envelope naming the parameter, and
// nothing is stored.
func TestInvalidQueryEscapes(t *testing.T) {
	srv := understudytest.Start(t)
	base := srv.URL
	raPath := hRG + hRA + "b0f43c54-e787-4862-89b1-a653fa9cf747"
	raBody := `{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"` + hReader + `"}}`
	cases := []struct {
		hostileCase
		mention string // the parameter the message names
		// absent is a path (GET with the case's headers) that must still answer 404.
		absent string
	}{
		{hostileCase{name: "compute insert requestId", method: "POST", path: hProject + "/global/forwardingRules?requestId=%zz", headers: hCompute,
			body: `{"name":"fr-q"}`, envelope: googleEnvelope}, "requestId", hProject + "/global/forwardingRules/fr-q"},
		{hostileCase{name: "compute list maxResults", method: "GET", path: hProject + "/global/forwardingRules?maxResults=%zz", headers: hCompute,
			envelope: googleEnvelope}, "maxResults", ""},
		{hostileCase{name: "compute semicolon", method: "GET", path: hProject + "/global/forwardingRules?maxResults=1;pageToken=x", headers: hCompute,
			envelope: googleEnvelope}, "maxResults", ""},
		{hostileCase{name: "compute unknown route", method: "GET", path: hProject + "/global/nothing?x=%zz", headers: hCompute,
			envelope: googleEnvelope}, "x", ""},
		{hostileCase{name: "ARM api-version", method: "PUT", path: raPath + "?api-version=%zz", headers: hARM, body: raBody,
			envelope: armEnvelopeStrict}, "api-version", raPath + hV},
		{hostileCase{name: "ARM other parameter", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&x=%zz", headers: hARM,
			envelope: armEnvelopeStrict}, "'x'", ""},
		{hostileCase{name: "ARM bad name", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&%zz=1", headers: hARM,
			envelope: armEnvelopeStrict}, "%zz", ""},
		{hostileCase{name: "accounts list limit", method: "GET", path: "/v2/core/accounts?limit=%zz", headers: hAccounts,
			envelope: v2Envelope}, "limit", ""},
		{hostileCase{name: "accounts create", method: "POST", path: "/v2/core/accounts?x=%2", headers: hAccounts, body: `{"display_name":"q"}`,
			envelope: v2Envelope}, "x", ""},
		{hostileCase{name: "admin requests limit", method: "GET", path: "/_understudy/requests?limit=%zz", envelope: adminEnvelope}, "limit", ""},
		{hostileCase{name: "admin clock advance", method: "POST", path: "/_understudy/clock/advance?x=%", body: `{"seconds":0}`, envelope: adminEnvelope}, "x", ""},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			tt.want = []int{400}
			_, got := tt.run(t, base)
			if msg, err := tt.envelope(got); err == nil && !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not name %s", msg, tt.mention)
			}
			if tt.absent != "" {
				if status, b := do(t, "GET", base+tt.absent, tt.headers, nil, 0); status != 404 {
					t.Errorf("GET %s after the refused request: %d %.300s", tt.absent, status, b)
				}
			}
		})
	}
	// A valid escape is still fine.
	if status, b := do(t, "GET", base+hProject+"/global/forwardingRules?filter=name%3D%22fr-x%22", hCompute, nil, 0); status != 200 {
		t.Errorf("valid escapes: %d %.300s", status, b)
	}
}
