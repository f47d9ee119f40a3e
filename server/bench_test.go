package server_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/compute"
)

// benchServer is the full handler, as the binary serves it, without the network.
func benchServer(b *testing.B) http.Handler {
	b.Helper()
	srv, err := server.New(server.Config{
		Log:     slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Compute: computeImmediate(),
	})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	// One request per API first: each parses its spec on its first request, which is not
	// what a benchmark measures.
	serve(b, h, http.MethodGet, "/subscriptions/"+benchListSub+"/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", "", map[string]string{"Authorization": "Bearer t"}, 200)
	serve(b, h, http.MethodGet, "/v2/core/accounts", "", map[string]string{"Authorization": "Bearer sk_test_bench1", "Service-Version": "2026-05-27.dahlia"}, 200)
	serve(b, h, http.MethodGet, "/compute/v1/projects/bench-project-1/global/forwardingRules", "", map[string]string{"Authorization": "Bearer t"}, 200)
	return h
}

func serve(b *testing.B, h http.Handler, method, url, body string, headers map[string]string, want int) []byte {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, url, r)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != want {
		b.Fatalf("%s %s: %d %s", method, url, w.Code, w.Body.String())
	}
	return w.Body.Bytes()
}

// benchListSub is the subscription the list benchmarks fill.
const benchListSub = "0b1f6471-1bf0-4dda-aec3-00000000be7c"

var seq atomic.Uint64

// BenchmarkRoleAssignmentPut creates a role assignment per iteration (a new name and
// principal), spread over subscriptions so the per-subscription limit is never reached.
func BenchmarkRoleAssignmentPut(b *testing.B) {
	h := benchServer(b)
	hdr := map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := seq.Add(1)
			body := `{"properties":{"principalId":"` + uuid.NewString() + `","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`
			url := fmt.Sprintf("/subscriptions/00000000-0000-4000-8000-%012d/resourceGroups/rg/providers/Vendor.Authorization/roleAssignments/%s?api-version=2022-04-01", n/1000, uuid.NewString())
			serve(b, h, http.MethodPut, url, body, hdr, 201)
		}
	})
}

// benchAssignments is a server holding 1000 role assignments in subscription benchListSub,
// ten in each of its resource groups rg-0 to rg-99.
func benchAssignments(b *testing.B) http.Handler {
	h := benchServer(b)
	hdr := map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}
	for i := range 1000 {
		body := `{"properties":{"principalId":"` + uuid.NewString() + `","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`
		url := fmt.Sprintf("/subscriptions/"+benchListSub+"/resourceGroups/rg-%d/providers/Vendor.Authorization/roleAssignments/%s?api-version=2022-04-01", i%100, uuid.NewString())
		serve(b, h, http.MethodPut, url, body, hdr, 201)
	}
	return h
}

// BenchmarkRoleAssignmentListResourceGroup lists a resource group's ten assignments, as
// bench/scale's list measurement does.
func BenchmarkRoleAssignmentListResourceGroup(b *testing.B) {
	h := benchAssignments(b)
	hdr := map[string]string{"Authorization": "Bearer t"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body := serve(b, h, http.MethodGet, fmt.Sprintf("/subscriptions/"+benchListSub+"/resourceGroups/rg-%d/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", i%100), "", hdr, 200)
		if n := bytes.Count(body, []byte(`"principalId"`)); n != 10 {
			b.Fatalf("%d assignments listed, want 10", n)
		}
	}
}

// BenchmarkRoleAssignmentListResourceGroupWatched is BenchmarkRoleAssignmentListResourceGroup
// while a console page is open: the journal then keeps each exchange's headers and bodies.
func BenchmarkRoleAssignmentListResourceGroupWatched(b *testing.B) {
	h := benchAssignments(b)
	// A server without an admin token opens a console session to whoever asks.
	req := httptest.NewRequest(http.MethodGet, "/_understudy/console/login", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		b.Fatalf("no console session: %d %v", w.Code, w.Header())
	}
	serve(b, h, http.MethodGet, "/_understudy/console", "", map[string]string{"Cookie": cookies[0].Name + "=" + cookies[0].Value}, 200)
	hdr := map[string]string{"Authorization": "Bearer t"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body := serve(b, h, http.MethodGet, fmt.Sprintf("/subscriptions/"+benchListSub+"/resourceGroups/rg-%d/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", i%100), "", hdr, 200)
		if n := bytes.Count(body, []byte(`"principalId"`)); n != 10 {
			b.Fatalf("%d assignments listed, want 10", n)
		}
	}
}

// BenchmarkRoleAssignmentListSubscription lists a subscription's first page: all 1000 of
// its assignments.
func BenchmarkRoleAssignmentListSubscription(b *testing.B) {
	h := benchAssignments(b)
	hdr := map[string]string{"Authorization": "Bearer t"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		body := serve(b, h, http.MethodGet, "/subscriptions/"+benchListSub+"/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", "", hdr, 200)
		if n := bytes.Count(body, []byte(`"principalId"`)); n != 1000 {
			b.Fatalf("%d assignments listed, want 1000", n)
		}
	}
}

// BenchmarkAccountLinkCreate creates account links round-robin over 1000 accounts.
func BenchmarkAccountLinkCreate(b *testing.B) {
	h := benchServer(b)
	hdr := map[string]string{"Authorization": "Bearer sk_test_bench1", "Service-Version": "2026-05-27.dahlia", "Content-Type": "application/json"}
	var accounts []string
	for i := 0; i < 1000; i++ {
		body := serve(b, h, http.MethodPost, "/v2/core/accounts", `{"configuration":{"recipient":{}}}`, hdr, 200)
		accounts = append(accounts, string(body[strings.Index(string(body), `"id":"`)+6:][:21]))
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			a := accounts[seq.Add(1)%uint64(len(accounts))]
			body := `{"account":"` + a + `","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/r"}}}`
			req := httptest.NewRequest(http.MethodPost, "/v2/core/account_links", strings.NewReader(body))
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 && w.Code != 429 {
				b.Fatalf("%d %s", w.Code, w.Body.String())
			}
		}
	})
}

// BenchmarkAccountCreate creates an account per iteration with a configuration, identity
// and contact details, answered with its configuration and requirements: the create's
// events (created) and requirements are computed in its transaction.
func BenchmarkAccountCreate(b *testing.B) {
	h := benchServer(b)
	hdr := map[string]string{"Authorization": "Bearer sk_test_bench1", "Service-Version": "2026-05-27.dahlia", "Content-Type": "application/json"}
	body := `{"display_name":"Bench","contact_email":"bench@example.com","identity":{"country":"us","entity_type":"company"},` +
		`"configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}},` +
		`"include":["configuration.recipient","identity","requirements"]}`
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			serve(b, h, http.MethodPost, "/v2/core/accounts", body, hdr, 200)
		}
	})
}

// BenchmarkAccountCreateRecipient creates an account per iteration as bench/wrk's
// accountcreate does: a display name and a recipient configuration requesting a capability.
func BenchmarkAccountCreateRecipient(b *testing.B) {
	h := benchServer(b)
	hdr := map[string]string{"Authorization": "Bearer sk_test_bench1", "Service-Version": "2026-05-27.dahlia", "Content-Type": "application/json"}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := fmt.Sprintf(`{"display_name":"Bench %d","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`, seq.Add(1))
			serve(b, h, http.MethodPost, "/v2/core/accounts", body, hdr, 200)
		}
	})
}

// BenchmarkForwardingRuleInsert inserts a rule per iteration (immediate operations).
func BenchmarkForwardingRuleInsert(b *testing.B) {
	benchComputeInserts(b, "/compute/v1/projects/bench-project-1/global/forwardingRules", `{"name":"fr-%d","portRange":"443-443"}`)
}

// benchComputeInserts posts, per iteration, bodyFormat with a fresh number to path with a
// fresh requestId, and wants a 200 (a DONE operation: operations are immediate).
func benchComputeInserts(b *testing.B, path, bodyFormat string) {
	benchComputeInsertsOn(b, benchServer(b), path, bodyFormat)
}

func benchComputeInsertsOn(b *testing.B, h http.Handler, path, bodyFormat string) {
	hdr := map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			serve(b, h, http.MethodPost, path+"?requestId="+uuid.NewString(), fmt.Sprintf(bodyFormat, seq.Add(1)), hdr, 200)
		}
	})
}

// BenchmarkSetLabels chains setLabels on one rule: each call reads the fingerprint first.
func BenchmarkSetLabels(b *testing.B) {
	h := benchServer(b)
	hdr := map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}
	serve(b, h, http.MethodPost, "/compute/v1/projects/bench-project-1/global/forwardingRules", `{"name":"fr-labels"}`, hdr, 200)
	fp := "42WmSpB8rSM="
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		serve(b, h, http.MethodPost, "/compute/v1/projects/bench-project-1/global/forwardingRules/fr-labels/setLabels",
			fmt.Sprintf(`{"labels":{"env":"prod","n":"v%d"},"labelFingerprint":%q}`, i, fp), hdr, 200)
		body := serve(b, h, http.MethodGet, "/compute/v1/projects/bench-project-1/global/forwardingRules/fr-labels", "", hdr, 200)
		s := string(body)
		i0 := strings.Index(s, `"labelFingerprint":"`) + len(`"labelFingerprint":"`)
		fp = s[i0 : i0+strings.IndexByte(s[i0:], '"')]
	}
}

func computeImmediate() compute.Config {
	c := compute.DefaultConfig()
	c.Operations.Mode = operations.Mode{}
	return c
}

// BenchmarkAttachmentGroupInsert inserts an empty NO_SLA attachment group per iteration
// (immediate operations), as make bench's groupinsert does.
func BenchmarkAttachmentGroupInsert(b *testing.B) {
	benchComputeInserts(b, "/compute/v1/projects/bench-project-3/global/interconnectAttachmentGroups", `{"name":"g-%d","intent":{"availabilitySla":"NO_SLA"}}`)
}

// BenchmarkAttachmentGroupInsertHeld inserts a PRODUCTION_CRITICAL group naming two
// attachments another group holds, as make bench's groupheld does: every insert is accepted
// and its operation fails with RESOURCE_IN_USE_BY_ANOTHER_RESOURCE.
func BenchmarkAttachmentGroupInsertHeld(b *testing.B) {
	h := benchServer(b)
	hdr := map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}
	proj := "/compute/v1/projects/bench-project-3"
	var urls []string
	for i, loc := range []string{"iad-zone1-1", "iad-zone2-1"} {
		ic := fmt.Sprintf("ic-bench-%d", i+1)
		serve(b, h, http.MethodPost, proj+"/global/interconnects", `{"name":"`+ic+`","location":"http://example.com`+proj+
			`/global/interconnectLocations/`+loc+`","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1,"interconnectType":"DEDICATED"}`, hdr, 200)
		att := fmt.Sprintf("att-bench-%d", i+1)
		serve(b, h, http.MethodPost, proj+"/regions/us-east4/interconnectAttachments", `{"name":"`+att+`","interconnect":"http://example.com`+
			proj+`/global/interconnects/`+ic+`","adminEnabled":true}`, hdr, 200)
		urls = append(urls, "http://example.com"+proj+"/regions/us-east4/interconnectAttachments/"+att)
	}
	atts := `"attachments":{"a0":{"attachment":"` + urls[0] + `"},"a1":{"attachment":"` + urls[1] + `"}}`
	serve(b, h, http.MethodPost, proj+"/global/interconnectAttachmentGroups", `{"name":"g-bench-held","intent":{"availabilitySla":"NO_SLA"},`+atts+`}`, hdr, 200)
	benchComputeInsertsOn(b, h, proj+"/global/interconnectAttachmentGroups", `{"name":"g-%d","intent":{"availabilitySla":"PRODUCTION_CRITICAL"},`+atts+`}`)
}

// BenchmarkHarness is the cost of the benchmarks' own request building and recording
// (what the numbers above include besides the server), against a bare Echo handler.
func BenchmarkHarness(b *testing.B) {
	e := echo.New()
	resp := []byte(`{"ok":true}`)
	e.PUT("/*", func(c echo.Context) error { return c.JSONBlob(http.StatusCreated, resp) })
	hdr := map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := seq.Add(1)
			body := `{"properties":{"principalId":"` + uuid.NewString() + `","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`
			url := fmt.Sprintf("/subscriptions/00000000-0000-4000-8000-%012d/resourceGroups/rg/providers/Vendor.Authorization/roleAssignments/%s?api-version=2022-04-01", n/1000, uuid.NewString())
			serve(b, e, http.MethodPut, url, body, hdr, 201)
		}
	})
}
