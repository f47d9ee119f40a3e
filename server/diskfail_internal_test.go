package server

import (
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/understudy-dev/understudy/internal/store"
)

// failingDisk is a backend that syncs every batch until told to fail, then refuses them,
// as a full disk does.
type failingDisk struct {
	mu   sync.Mutex
	fail bool
}

func (d *failingDisk) Load(func(table, pk string, value []byte) error) (bool, error) {
	return false, nil
}

func (d *failingDisk) Write(*store.Batch) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail {
		return errors.New("no space left on device")
	}
	return nil
}

func (d *failingDisk) Close() error { return nil }

// TestNoReadShowsAWriteTheDiskRefused: once the disk refuses a write, that write answers
// 503 and no read of any API shows it, since a restart would lose it: reads answer 503 in
// their API's envelope, with Retry-After, and health 503 saying a restart recovers. The
// accounts and authorization APIs once served the refused account or assignment with 200
// (their reads dropped the store's error).
func TestNoReadShowsAWriteTheDiskRefused(t *testing.T) {
	disk := &failingDisk{}
	s, err := New(Config{backend: disk, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	var retryAfter string
	call := func(method, path, body string, headers map[string]string) (int, string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		retryAfter = rec.Header().Get("Retry-After")
		return rec.Code, rec.Body.String()
	}
	acct := map[string]string{"Authorization": "Bearer sk_test_disk1", "Service-Version": "2026-05-27.dahlia"}
	arm := map[string]string{"Authorization": "Bearer t"}
	const sub = "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	const ra = sub + "/providers/Vendor.Authorization/roleAssignments/"
	put := `{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"` + sub + `/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`
	if code, body := call("POST", "/v2/core/accounts", `{"display_name":"Kept"}`, acct); code != 200 {
		t.Fatalf("an account before the failure: %d %s", code, body)
	}
	if code, body := call("GET", "/_understudy/health", "", nil); code != 200 {
		t.Fatalf("health before the failure: %d %s", code, body)
	}

	disk.mu.Lock()
	disk.fail = true
	disk.mu.Unlock()
	if code, _ := call("POST", "/v2/core/accounts", `{"display_name":"Refused"}`, acct); code != 503 {
		t.Fatalf("the write the disk refused answered %d", code)
	}
	if code, _ := call("PUT", ra+"b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01", put, arm); code != 503 {
		t.Fatalf("the assignment the disk refused answered %d", code)
	}
	for _, read := range []struct {
		name, path string
		headers    map[string]string
	}{
		{"accounts list", "/v2/core/accounts", acct},
		{"role assignment", ra + "b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01", arm},
		{"role assignments list", sub + "/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", arm},
		{"forwarding rules list", "/compute/v1/projects/disk-project-1/global/forwardingRules", arm},
	} {
		code, body := call("GET", read.path, "", read.headers)
		if code != 503 || retryAfter == "" || strings.Contains(body, "Refused") {
			t.Errorf("%s after the disk failed: %d (Retry-After %q) %.300s", read.name, code, retryAfter, body)
		}
	}
	// Health says so: nothing will work again until a restart.
	if code, body := call("GET", "/_understudy/health", "", nil); code != 503 || !strings.Contains(body, "Unavailable") || !strings.Contains(body, "restart") {
		t.Errorf("health after the disk failed: %d %s", code, body)
	}
}
