package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// One representative operation per API that takes a JSON body, with the headers it needs.
var bodyTargets = []struct {
	api, method, path string
	headers           map[string]string
	envelope          func([]byte) (string, error)
}{
	{"authorization", http.MethodPut, "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01",
		map[string]string{"Authorization": "Bearer t"}, armEnvelope},
	{"accounts", http.MethodPost, "/v2/core/account_links",
		map[string]string{"Authorization": "Bearer sk_test_x", "Service-Version": "2026-05-27.dahlia"}, v2Envelope},
	{"compute", http.MethodPost, "/compute/v1/projects/my-project-123/global/forwardingRules/fr-1/setLabels",
		map[string]string{"Authorization": "Bearer t"}, googleEnvelope},
	// A merge patch, whose nulls are read before validation (patchNulls).
	{"compute patch", http.MethodPatch, "/compute/v1/projects/my-project-123/global/forwardingRules/fr-1",
		map[string]string{"Authorization": "Bearer t"}, googleEnvelope},
}

func do(t *testing.T, method, url string, headers map[string]string, body io.Reader, contentLength int64) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if contentLength != 0 {
		req.ContentLength = contentLength
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestHostileBodies(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) { c.BodyLimit = 4096 }))
	big := `{"x":"` + strings.Repeat("a", 5000) + `"}`
	deep := strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)
	cases := []struct {
		name        string
		body        string
		contentType string
		chunked     bool
		wantStatus  int
	}{
		{"malformed JSON", `{"properties": {`, "application/json", false, 400},
		{"truncated JSON", `{"labels":{"a":"b"}`, "application/json", false, 400},
		{"not JSON at all", `<xml/>`, "application/json", false, 400},
		{"invalid UTF-8", "{\"labels\":{\"a\":\"\xff\xfe\"}}", "application/json", false, 400},
		{"empty body", ``, "application/json", false, 400},
		{"array instead of object", `[1,2,3]`, "application/json", false, 400},
		{"number out of range", `{"labels":{"a":1e999}}`, "application/json", false, 400},
		{"deep nesting", deep, "application/json", false, 413},
		{"over the limit with Content-Length", big, "application/json", false, 413},
		{"over the limit, chunked", big, "application/json", true, 413},
		{"wrong content type", `{"a":1}`, "text/plain", false, 415},
		{"form encoded", `a=1`, "application/x-www-form-urlencoded", false, 415},
	}
	for _, target := range bodyTargets {
		for _, tt := range cases {
			t.Run(target.api+"/"+tt.name, func(t *testing.T) {
				headers := map[string]string{"Content-Type": tt.contentType}
				for k, v := range target.headers {
					headers[k] = v
				}
				var body io.Reader = strings.NewReader(tt.body)
				var cl int64
				if tt.chunked {
					body = io.MultiReader(strings.NewReader(tt.body)) // hides the length: sent chunked
					cl = -1
				}
				status, got := do(t, target.method, srv.URL+target.path, headers, body, cl)
				if status != tt.wantStatus {
					t.Errorf("status %d, want %d: %.300s", status, tt.wantStatus, got)
				}
				if _, err := target.envelope(got); err != nil {
					t.Errorf("%v: %.300s", err, got)
				}
			})
		}
	}
}

func TestUnknownRoutesAndMethodsUseTheirAPIsEnvelope(t *testing.T) {
	srv := understudytest.Start(t)
	cases := []struct {
		name, method, path string
		wantStatus         int
		envelope           func([]byte) (string, error)
	}{
		{"ARM unknown path", "GET", "/nothing/here", 404, armEnvelope},
		{"ARM unknown provider resource", "GET", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleThings?api-version=2022-04-01", 404, armEnvelope},
		{"ARM wrong method", "POST", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", 405, armEnvelope},
		{"accounts unknown path", "GET", "/v2/core/nothing", 404, v2Envelope},
		{"accounts wrong method", "DELETE", "/v2/core/accounts", 405, v2Envelope},
		{"compute unknown path", "GET", "/compute/v1/projects/my-project-123/global/nothing", 404, googleEnvelope},
		{"compute wrong method", "PUT", "/compute/v1/projects/my-project-123/global/operations/op-1", 405, googleEnvelope},
		{"admin unknown path", "GET", "/_understudy/nothing", 404, adminEnvelope},
		{"admin wrong method", "DELETE", "/_understudy/health", 405, adminEnvelope},
		{"path traversal", "GET", "/v2/core/../../etc/passwd", 404, armEnvelope},
		{"very long path", "GET", "/compute/v1/" + strings.Repeat("a/", 3000), 404, googleEnvelope},
		// Paths a client meant for an API but wrote oddly (a base URL ending in /, a dot
		// segment, a capital letter, no trailing slash): that API's envelope, which the
		// client can read, not the authorization API's.
		{"compute after a double slash", "GET", "//compute/v1/projects/my-project-123/global/forwardingRules", 404, googleEnvelope},
		{"compute after a dot segment", "GET", "/./compute/v1/projects/my-project-123/global/forwardingRules", 404, googleEnvelope},
		{"compute alone", "GET", "/compute", 404, googleEnvelope},
		{"accounts in capitals", "GET", "/V2/core/accounts", 404, v2Envelope},
		{"accounts after a double slash", "GET", "//v2/core/accounts", 404, v2Envelope},
		// An ARM operation's words under another API's prefix are that API's path.
		{"ARM words under accounts", "GET", "/v2/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", 404, v2Envelope},
		{"ARM words under compute", "GET", "/compute/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", 404, googleEnvelope},
		{"compute's batch endpoint without a batch", "POST", "/batch/compute/v1", 400, googleEnvelope},
		{"a batch endpoint not served", "POST", "/batch/compute/beta", 404, googleEnvelope},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			status, body := do(t, tt.method, srv.URL+tt.path, map[string]string{"Authorization": "Bearer t"}, nil, 0)
			if status != tt.wantStatus {
				t.Errorf("status %d, want %d: %.300s", status, tt.wantStatus, body)
			}
			if _, err := tt.envelope(body); err != nil {
				t.Errorf("%v: %.300s", err, body)
			}
		})
	}
}

func TestBadParameterFormats(t *testing.T) {
	srv := understudytest.Start(t)
	cases := []struct {
		name, method, path, body string
		headers                  map[string]string
		envelope                 func([]byte) (string, error)
		mention                  string
	}{
		{"compute requestId not a UUID", "POST", "/compute/v1/projects/my-project-123/global/interconnectAttachmentGroups?requestId=123",
			`{"name":"g1","intent":{"availabilitySla":"NO_SLA"}}`, map[string]string{"Authorization": "Bearer t"}, googleEnvelope, "requestId"},
		{"ARM $top not a number", "GET", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01&$top=ten",
			"", map[string]string{"Authorization": "Bearer t"}, armEnvelope, "$top"},
		{"accounts limit out of range", "GET", "/v2/core/accounts?limit=100000",
			"", map[string]string{"Authorization": "Bearer sk_test_x", "Service-Version": "2026-05-27.dahlia"}, v2Envelope, "limit"},
		{"accounts Service-Version malformed", "GET", "/v2/core/accounts",
			"", map[string]string{"Authorization": "Bearer sk_test_x", "Service-Version": "yesterday"}, v2Envelope, "Service-Version"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			headers := map[string]string{}
			for k, v := range tt.headers {
				headers[k] = v
			}
			if tt.body != "" {
				body = strings.NewReader(tt.body)
				headers["Content-Type"] = "application/json"
			}
			status, got := do(t, tt.method, srv.URL+tt.path, headers, body, 0)
			if status != 400 {
				t.Errorf("status %d, want 400: %.300s", status, got)
			}
			msg, err := tt.envelope(got)
			if err != nil {
				t.Fatalf("%v: %.300s", err, got)
			}
			if !strings.Contains(msg, tt.mention) {
				t.Errorf("message %q does not name %q", msg, tt.mention)
			}
		})
	}
}
