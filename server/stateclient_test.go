package server_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
)

// stateOwner is a JWT whose oid is the seed example's bootstrap owner (it enforces
// permissions).
var stateOwner = "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString([]byte(`{"oid":"11111111-1111-4111-8111-111111111111"}`)) + ".x"

// stateClient sends raw requests to one server, without following redirects.
type stateClient struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func newStateClient(t *testing.T, base string) *stateClient {
	jar, _ := cookiejar.New(nil)
	return &stateClient{t: t, base: base, hc: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request; path is relative to the server (or a whole URL of it). It returns
// the status, the Location header and the body.
func (c *stateClient) do(method, path string, header map[string]string, body string) (int, string, []byte) {
	c.t.Helper()
	u := path
	if !strings.HasPrefix(u, "http") {
		u = c.base + path
	}
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), b
}

// must sends a request that must answer want, and decodes its JSON answer.
func (c *stateClient) must(want int, method, path string, header map[string]string, body string) map[string]any {
	c.t.Helper()
	code, _, b := c.do(method, path, header, body)
	if code != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, code, b, want)
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func stateARM() map[string]string { return map[string]string{"Authorization": "Bearer " + stateOwner} }

func stateAdmin() map[string]string {
	return map[string]string{"Authorization": "Bearer " + stateAdminToken}
}

func stateCompute() map[string]string { return map[string]string{"Authorization": "Bearer any-token"} }

func stateAccounts(key string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + key, "Service-Version": "2026-05-27.dahlia"}
}

func withKey(h map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for hk, hv := range h {
		out[hk] = hv
	}
	return out
}

// finish drives a compute operation (manual mode: one step per wait) until it is DONE.
func (c *stateClient) finish(op map[string]any) map[string]any {
	c.t.Helper()
	for range 5 {
		if op["status"] == "DONE" {
			return op
		}
		self := op["selfLink"].(string)
		op = c.must(200, http.MethodPost, self+"/wait", stateCompute(), "")
	}
	c.t.Fatalf("operation %v is not DONE", op["name"])
	return nil
}
