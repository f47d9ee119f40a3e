package server

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
)

// TestARMRequestIDs: every authorization answer, errors included, carries
// x-ms-request-id (a fresh version 4 GUID) and x-ms-correlation-request-id (the client's
// GUID, or the request id), as ARM's do; the other APIs keep their own ids: compute an
// X-Request-Id, accounts their Request-Id only.
func TestARMRequestIDs(t *testing.T) {
	addr := servedServer(t)
	get := func(path, corr string) http.Header {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		req.Header.Set("Authorization", "Bearer t")
		if corr != "" {
			req.Header.Set("x-ms-correlation-request-id", corr)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header
	}
	list := "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01"
	seen := map[string]bool{}
	for _, tt := range []struct{ path, corr, wantCorr string }{
		{list, "", ""},
		{list, "6a0e1e6c-3f0b-4c52-9d53-3a4c1e0c9b11", "6a0e1e6c-3f0b-4c52-9d53-3a4c1e0c9b11"},
		{list, "not a guid", ""},
		{"/subscriptions/not-a-guid/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", "", ""},
	} {
		h := get(tt.path, tt.corr)
		id := h.Get("x-ms-request-id")
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || len(id) != 36 || seen[id] {
			t.Errorf("x-ms-request-id %q (%v)", id, err)
		}
		seen[id] = true
		want := tt.wantCorr
		if want == "" {
			want = id
		}
		if got := h.Get("x-ms-correlation-request-id"); got != want {
			t.Errorf("correlation id %q, want %q", got, want)
		}
		if h.Get("X-Request-Id") != "" {
			t.Errorf("authorization answer with X-Request-Id")
		}
	}
	if h := get("/compute/v1/projects/my-project-123/global/forwardingRules", ""); h.Get("X-Request-Id") == "" || h.Get("x-ms-request-id") != "" {
		t.Errorf("compute answer headers: %v", h)
	}
	for _, path := range []string{"/v2/core/accounts", "/v2/nowhere", "/r/acct_x/alu_y"} {
		if h := get(path, ""); h.Get("Request-Id") == "" || h.Get("X-Request-Id") != "" || h.Get("x-ms-request-id") != "" {
			t.Errorf("accounts answer headers for %s: %v", path, h)
		}
	}
}
