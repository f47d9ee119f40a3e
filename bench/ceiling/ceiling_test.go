package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"
)

// The ceiling in process, for instruction counts (docs/performance.md): each benchmark
// sends the request of understudy's benchmark of the same name (server/bench_test.go), so
// the difference between the two is what understudy runs beyond Echo and kin's validation.

var seq atomic.Uint64

// uuid is a version-4 UUID made from n (the benchmarks' requests need fresh, valid ones).
func uuid(kind, n uint64) string {
	return fmt.Sprintf("%08x-%04x-4000-8000-%012x", n>>32, kind, n&0xffffffffffff)
}

func ceiling(b *testing.B) *echo.Echo {
	b.Helper()
	e, err := newHandler()
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func send(b *testing.B, h http.Handler, method, url, body string, headers map[string]string) {
	req := httptest.NewRequest(method, url, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code >= 300 {
		b.Fatalf("%s %s: %d %s", method, url, w.Code, w.Body.String())
	}
}

var (
	jsonHeaders    = map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}
	accountHeaders = map[string]string{"Authorization": "Bearer sk_test_bench1", "Service-Version": "2026-05-27.dahlia", "Content-Type": "application/json"}
)

func BenchmarkRoleAssignmentPut(b *testing.B) {
	h := ceiling(b)
	for b.Loop() {
		n := seq.Add(1)
		body := `{"properties":{"principalId":"` + uuid(3, n) + `","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`
		url := fmt.Sprintf("/subscriptions/00000000-0000-4000-8000-%012d/resourceGroups/rg/providers/Vendor.Authorization/roleAssignments/%s?api-version=2022-04-01", n/1000, uuid(2, n))
		send(b, h, http.MethodPut, url, body, jsonHeaders)
	}
}

func BenchmarkAccountCreate(b *testing.B) {
	h := ceiling(b)
	body := `{"display_name":"Bench","contact_email":"bench@example.com","identity":{"country":"us","entity_type":"company"},` +
		`"configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}},` +
		`"include":["configuration.recipient","identity","requirements"]}`
	for b.Loop() {
		send(b, h, http.MethodPost, "/v2/core/accounts", body, accountHeaders)
	}
}

func BenchmarkAccountCreateRecipient(b *testing.B) {
	h := ceiling(b)
	for b.Loop() {
		body := fmt.Sprintf(`{"display_name":"Bench %d","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`, seq.Add(1))
		send(b, h, http.MethodPost, "/v2/core/accounts", body, accountHeaders)
	}
}

func BenchmarkAccountLinkCreate(b *testing.B) {
	h := ceiling(b)
	for b.Loop() {
		a := fmt.Sprintf("acct_bench%011d", seq.Add(1)%1000)
		body := `{"account":"` + a + `","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/r"}}}`
		send(b, h, http.MethodPost, "/v2/core/account_links", body, accountHeaders)
	}
}

func BenchmarkForwardingRuleInsert(b *testing.B) {
	benchComputeInserts(b, "/compute/v1/projects/bench-project-1/global/forwardingRules", `{"name":"fr-%d","portRange":"443-443"}`)
}

func BenchmarkAttachmentGroupInsert(b *testing.B) {
	benchComputeInserts(b, "/compute/v1/projects/bench-project-3/global/interconnectAttachmentGroups", `{"name":"g-%d","intent":{"availabilitySla":"NO_SLA"}}`)
}

func benchComputeInserts(b *testing.B, path, bodyFormat string) {
	h := ceiling(b)
	for b.Loop() {
		n := seq.Add(1)
		send(b, h, http.MethodPost, path+"?requestId="+uuid(4, n), fmt.Sprintf(bodyFormat, n), jsonHeaders)
	}
}

// BenchmarkSetLabels is the chain of understudy's: a setLabels, then a GET of the rule.
func BenchmarkSetLabels(b *testing.B) {
	h := ceiling(b)
	for i := 0; b.Loop(); i++ {
		send(b, h, http.MethodPost, "/compute/v1/projects/bench-project-1/global/forwardingRules/fr-labels/setLabels",
			fmt.Sprintf(`{"labels":{"env":"prod","n":"v%d"},"labelFingerprint":%q}`, i, "42WmSpB8rSM="), jsonHeaders)
		send(b, h, http.MethodGet, "/compute/v1/projects/bench-project-1/global/forwardingRules/fr-labels", "", jsonHeaders)
	}
}
