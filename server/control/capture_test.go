package control

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestMaskJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"name":"x","signing_secret":"whsec_abc"}`, `{"name":"x","signing_secret":"[masked]"}`},
		{`{"a":[{"password": "p", "b": 1}], "url":"http://h/r/acct_1/alu_test_xyz"}`, `{"a":[{"password": "[masked]", "b": 1}], "url":"[masked]"}`},
		{`{"key":"sk_test_123","idempotency_key":"k1"}`, `{"key":"[masked]","idempotency_key":"k1"}`},
		// cut short: what was read is still masked
		{`{"webhook_endpoint":{"signing_secret":"whsec_abc","url":"http://exa`, `{"webhook_endpoint":{"signing_secret":"[masked]","url":"http://exa`},
		{`not json sk_test_1`, `not json sk_test_1`},
	} {
		if got := string(maskJSON([]byte(c.in))); got != c.want {
			t.Errorf("maskJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := string(maskText([]byte(`<form action="/r/acct_1/alu_test_AbC9_x?y">`))); got != `<form action="/r/acct_1/[masked]?y">` {
		t.Errorf("maskText: %s", got)
	}
	if got := maskQuery("key=AIza&fields=a%2Cb&access_token=t"); got != "key=%5Bmasked%5D&fields=a%2Cb&access_token=%5Bmasked%5D" {
		t.Errorf("maskQuery: %s", got)
	}
}

func TestRecorderLeavesCredentialsOut(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "/v2/core/accounts?x=1", strings.NewReader(`{"display_name":"`+strings.Repeat("a", BodyLimit)+`"}`))
	req.Header.Set("Authorization", "Bearer sk_test_123")
	req.Header.Set("Cookie", "s=1")
	req.Header.Set("Idempotency-Key", "k1")
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	rec, served, out := NewRecorder(req, w)
	buf := make([]byte, 100)
	for {
		if _, err := served.Body.Read(buf); err != nil {
			break
		}
	}
	out.Header().Set("Content-Type", "application/json")
	out.Header().Set("Set-Cookie", "s=2")
	_, _ = out.Write([]byte(`{"id":"acct_1","signing_secret":"whsec_1"}`))
	x := rec.Exchange()
	for _, h := range append(x.RequestHeaders, x.ResponseHeaders...) {
		if h.Name == "Authorization" || h.Name == "Cookie" || h.Name == "Set-Cookie" {
			t.Errorf("header %s kept", h.Name)
		}
	}
	if len(x.RequestHeaders) != 2 || x.RequestHeaders[1].Name != "Idempotency-Key" {
		t.Errorf("request headers %v", x.RequestHeaders)
	}
	if !x.RequestBody.Truncated || len(x.RequestBody.Data) != BodyLimit {
		t.Errorf("request body %d bytes, truncated %v", len(x.RequestBody.Data), x.RequestBody.Truncated)
	}
	if string(x.ResponseBody.Data) != `{"id":"acct_1","signing_secret":"[masked]"}` || w.Body.String() != `{"id":"acct_1","signing_secret":"whsec_1"}` {
		t.Errorf("response body kept %s, sent %s", x.ResponseBody.Data, w.Body.String())
	}
}

func TestJournalSeqGetSubscribe(t *testing.T) {
	j := NewJournal(3)
	ch, stop := j.Subscribe()
	defer stop()
	for i := 0; i < 5; i++ {
		j.Add(Entry{Path: string(rune('a' + i))})
	}
	if _, ok := j.Get(2); ok {
		t.Error("entry 2 should be gone")
	}
	if e, ok := j.Get(4); !ok || e.Path != "d" || e.Seq != 4 {
		t.Errorf("Get(4) = %+v, %v", e, ok)
	}
	if e := <-ch; e.Seq != 1 {
		t.Errorf("first entry seen %d", e.Seq)
	}
	now := time.Now()
	if j.Capturing(now) {
		t.Error("capturing before anyone looked")
	}
	j.Capture(now.Add(time.Minute))
	j.Capture(now) // never shortens
	if !j.Capturing(now.Add(30*time.Second)) || j.Capturing(now.Add(2*time.Minute)) {
		t.Error("capture window")
	}
	j.Clear()
	if _, ok := j.Get(5); ok {
		t.Error("cleared")
	}
}
