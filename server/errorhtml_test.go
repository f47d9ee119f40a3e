package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestErrorBodiesKeepHTMLCharacters: an error message quoting what the client sent shows
// '<', '>' and '&' as sent, in every API's envelope, not as \u003c, \u003e and \u0026.
func TestErrorBodiesKeepHTMLCharacters(t *testing.T) {
	srv := understudytest.Start(t)
	for _, tt := range []struct {
		name, method, path, body string
		headers                  map[string]string
	}{
		{"compute", http.MethodPost, "/compute/v1/projects/my-project-123/global/forwardingRules", `{"name":"<b>&amp;"}`,
			map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}},
		{"authorization", http.MethodPut, "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01",
			`{"properties":{"principalId":"<b>&amp;","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`,
			map[string]string{"Authorization": "Bearer t", "Content-Type": "application/json"}},
		{"accounts", http.MethodGet, "/v2/core/<b>&amp;", "",
			map[string]string{"Authorization": "Bearer sk_test_x", "Service-Version": "2026-05-27.dahlia"}},
		{"admin", http.MethodGet, "/_understudy/<b>&amp;", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := do(t, tt.method, srv.URL+tt.path, tt.headers, strings.NewReader(tt.body), 0)
			if status < 400 || !strings.Contains(string(body), "<b>&") || strings.Contains(string(body), `\u00`) {
				t.Errorf("%d %s, want an error quoting <b>& as sent", status, body)
			}
		})
	}
}
