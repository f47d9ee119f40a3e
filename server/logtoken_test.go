package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLinkTokenNotLogged: the request log and the request journal mask a link's token,
// the credential that opens its page, as API keys are masked, wherever it stands in the
// path, in the page's own path and past it.
func TestLinkTokenNotLogged(t *testing.T) {
	var logs bytes.Buffer
	s, err := New(Config{Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	v2 := func(path, body string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk_test_logTokenTest1234")
		req.Header.Set("Service-Version", "2026-05-27.dahlia")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %v %v", path, resp.StatusCode, err, out)
		}
		return out
	}
	acct := v2("/v2/core/accounts", `{"display_name":"Log Test","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`)["id"].(string)
	link := v2("/v2/core/account_links", `{"account":"`+acct+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://p.example/r","return_url":"https://p.example/d"}}}`)["url"].(string)
	token := link[strings.LastIndexByte(link, '/')+1:]
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("open: %d", resp.StatusCode)
	}
	// Paths that hold the token without being the page: more segments after it, another
	// case, another prefix. None uses the link up.
	for _, u := range []string{link + "/", link + "/x", strings.Replace(link, "/r/", "/R/", 1), strings.Replace(link, "/r/", "/base/r/", 1)} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err = http.Get(hs.URL + "/_understudy/requests?limit=20")
	if err != nil {
		t.Fatal(err)
	}
	journal, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	masked := token[:strings.LastIndexByte(token, '_')+1] + "****" + token[len(token)-4:]
	for what, text := range map[string]string{"log": logs.String(), "journal": string(journal)} {
		if strings.Contains(text, token) || !strings.Contains(text, `"path":"/r/`+acct+`/`+masked+`"`) || !strings.Contains(text, `/R/`+acct+`/`+masked) {
			t.Errorf("want the token masked as %s in the %s:\n%s", masked, what, text)
		}
	}
}
