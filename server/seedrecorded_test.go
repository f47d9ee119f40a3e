package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestSeedRecordedState: the members a state export writes, in a seed written by hand,
// give the resources their ids, times, change counts and history; finished operations are
// read, listed and found by their requestId until their retention runs out from endTime;
// links and Idempotency-Keys behave as recorded.
func TestSeedRecordedState(t *testing.T) {
	now := time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC)
	file := writeSeedFile(t, `compute:
  operationMode: immediate
  projects:
    my-project-123:
      forwardingRules:
        - name: fr-rec
          id: "4242"
          creationTimestamp: "2026-01-02T03:04:05.123456789Z"
          labelGeneration: 3
          labels: {env: prod}
        - {name: fr-zero, labels: {env: prod}}
      operations:
        - name: operation-recorded
          id: "77"
          sequence: 5
          operationType: setLabels
          targetLink: projects/my-project-123/global/forwardingRules/fr-rec
          targetId: "4242"
          user: someone@example.com
          clientOperationId: 5E1F3A3E-7A53-4C43-9CF5-3B9D6C2A1A01
          status: DONE
          insertTime: "2026-01-02T03:30:00Z"
          endTime: "2026-01-02T03:30:01Z"
        - name: operation-old
          id: "78"
          operationType: insert
          status: DONE
          insertTime: "2025-12-01T00:00:00Z"
          endTime: "2025-12-01T00:00:01Z"
accounts:
  accounts:
    - {id: acct_1RecordedAccount01, display_name: Rec, created: "2026-01-02T03:04:05.5Z", sequence: 10, closed: true, configuration: {recipient: {}}}
    - {id: acct_1New, display_name: New}
  account_links:
    - token: alu_test_0123456789abcdefABCDEF
      account: acct_1RecordedAccount01
      consumed: true
      use_case: {type: account_onboarding, account_onboarding: {configurations: [recipient], refresh_url: "https://p.example/refresh"}}
`)
	srv := understudytest.Start(t, understudytest.WithClock(func() time.Time { return now }), understudytest.WithSeedFile(file))
	c := newStateClient(t, srv.URL)
	rule := c.must(200, http.MethodGet, seedProjectPath+"/global/forwardingRules/4242", stateCompute(), "")
	zero := c.must(200, http.MethodGet, seedProjectPath+"/global/forwardingRules/fr-zero", stateCompute(), "")
	if rule["name"] != "fr-rec" || rule["creationTimestamp"] != "2026-01-02T03:04:05.123+00:00" || rule["labelFingerprint"] == zero["labelFingerprint"] {
		t.Errorf("rule %v, fr-zero's fingerprint %v", rule, zero["labelFingerprint"])
	}
	op := c.must(200, http.MethodGet, seedProjectPath+"/global/operations/77", stateCompute(), "")
	if op["name"] != "operation-recorded" || op["targetLink"] != srv.URL+seedProjectPath+"/global/forwardingRules/fr-rec" || op["progress"] != 100.0 ||
		op["clientOperationId"] != "5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a01" || op["insertTime"] != "2026-01-02T03:30:00.000+00:00" || op["startTime"] != op["insertTime"] {
		t.Errorf("operation %v", op)
	}
	retried := c.must(200, http.MethodPost, seedProjectPath+"/global/forwardingRules?requestId=5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a01", stateCompute(), `{"name":"fr-other"}`)
	if retried["name"] != "operation-recorded" {
		t.Errorf("a retry of the requestId: %v", retried)
	}
	if code, _, _ := c.do(http.MethodGet, seedProjectPath+"/global/operations/operation-old", stateCompute(), ""); code != 404 {
		t.Errorf("an operation past its retention: %d, want 404", code)
	}
	// A new operation is listed with the recorded one.
	c.must(200, http.MethodPost, seedProjectPath+"/global/forwardingRules", stateCompute(), `{"name":"fr-new"}`)
	ops := c.must(200, http.MethodGet, seedProjectPath+"/global/operations", stateCompute(), "")["items"].([]any)
	if len(ops) != 2 {
		t.Errorf("operations %v", ops)
	}

	h := stateAccounts("sk_test_recorded1")
	open := c.must(200, http.MethodGet, "/v2/core/accounts", h, "")["data"].([]any)
	closed := c.must(200, http.MethodGet, "/v2/core/accounts?closed=true", h, "")["data"].([]any)
	if len(open) != 1 || open[0].(map[string]any)["id"] != "acct_1New" || len(closed) != 1 || closed[0].(map[string]any)["created"] != "2026-01-02T03:04:05.500Z" {
		t.Errorf("accounts %v, closed %v", open, closed)
	}
	if code, where, _ := c.do(http.MethodGet, "/r/acct_1RecordedAccount01/alu_test_0123456789abcdefABCDEF", nil, ""); code != http.StatusFound || where != "https://p.example/refresh" {
		t.Errorf("a used link: %d %s, want 302 to its refresh_url", code, where)
	}
}
