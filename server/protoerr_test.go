package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// servedServer is s behind a real listener, wrapped as the binary wraps it.
func servedServer(t *testing.T) string {
	t.Helper()
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.MaxHeaderBytes = 4 << 10
	hs.Listener = s.Listener(hs.Listener)
	hs.Start()
	t.Cleanup(hs.Close)
	return hs.Listener.Addr().String()
}

// roundTrip writes raw to a new connection and reads one response.
func roundTrip(t *testing.T, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.WriteString(c, raw) }() // the server may answer before reading it all
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, body
}

// TestProtocolErrorsInTheAPIsEnvelopes: requests net/http refuses before any handler runs
// are answered in the envelope of the API owning their path, never in net/http's plain
// text, never with a 5xx; and the server goes on serving.
func TestProtocolErrorsInTheAPIsEnvelopes(t *testing.T) {
	addr := servedServer(t)
	apis := []struct {
		name, path string
		// shape checks the envelope's error object as the API writes it.
		shape func(e map[string]any, status int) bool
	}{
		{"compute", "/compute/v1/projects/p/global/forwardingRules", func(e map[string]any, status int) bool {
			code, ok := e["code"].(float64)
			_, items := e["errors"].([]any)
			return ok && int(code) == status && items
		}},
		{"accounts", "/v2/core/accounts", func(e map[string]any, _ int) bool {
			typ, ok := e["type"].(string)
			return ok && typ != ""
		}},
		{"authorization", "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments", func(e map[string]any, _ int) bool {
			code, ok := e["code"].(string)
			return ok && code != ""
		}},
		{"admin", "/_understudy/faults", func(e map[string]any, _ int) bool {
			code, ok := e["code"].(string)
			return ok && code != ""
		}},
	}
	cases := []struct {
		name    string
		request func(path string) string
		status  int
		says    string
	}{
		{"invalid escape in the path", func(p string) string {
			return "GET " + p + "/%zz HTTP/1.1\r\nHost: x\r\n\r\n"
		}, 400, "not valid HTTP"},
		{"invalid escape, absolute form", func(p string) string {
			return "GET http://x" + p + "/%zz?a=b HTTP/1.1\r\nHost: x\r\n\r\n"
		}, 400, "not valid HTTP"},
		{"no Host header", func(p string) string {
			return "GET " + p + " HTTP/1.1\r\n\r\n"
		}, 400, "missing required Host header"},
		{"header without a colon", func(p string) string {
			return "GET " + p + " HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"
		}, 400, "not valid HTTP"},
		{"headers too large", func(p string) string {
			return "GET " + p + " HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n"
		}, 431, "larger than the server accepts"},
		{"unknown transfer coding", func(p string) string {
			return "POST " + p + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"
		}, 400, "Transfer-Encoding"},
		{"unknown HTTP version", func(p string) string {
			return "GET " + p + " HTTP/3.0\r\nHost: x\r\n\r\n"
		}, 400, "HTTP version"},
		{"unknown expectation", func(p string) string {
			return "POST " + p + " HTTP/1.1\r\nHost: x\r\nExpect: garbage\r\nContent-Length: 2\r\n\r\n{}"
		}, 417, "Expect"},
	}
	for _, api := range apis {
		for _, tc := range cases {
			t.Run(api.name+"/"+tc.name, func(t *testing.T) {
				resp, body := roundTrip(t, addr, tc.request(api.path))
				if resp.StatusCode != tc.status {
					t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
				}
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("Content-Type %q: %s", ct, body)
				}
				var env struct {
					Error map[string]any `json:"error"`
				}
				if err := json.Unmarshal(body, &env); err != nil || env.Error == nil {
					t.Fatalf("not an envelope (%v): %s", err, body)
				}
				if !api.shape(env.Error, resp.StatusCode) {
					t.Errorf("not the %s envelope: %s", api.name, body)
				}
				if msg := fmt.Sprint(env.Error["message"]); !strings.Contains(msg, tc.says) {
					t.Errorf("message %q does not say %q", msg, tc.says)
				}
			})
		}
	}

	// A connection that served a request first: the envelope follows the second request's
	// path, not the first's.
	raw := "GET /_understudy/health HTTP/1.1\r\nHost: x\r\n\r\n"
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	if _, err := io.WriteString(c, "GET /compute/v1/projects/p/global/forwardingRules/%zz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var env struct {
		Error struct {
			Code float64 `json:"code"`
		} `json:"error"`
	}
	if resp.StatusCode != 400 || json.Unmarshal(body, &env) != nil || env.Error.Code != 400 {
		t.Errorf("second request on the connection: %d %s, want compute's 400", resp.StatusCode, body)
	}

	// Requests sent at once: the malformed one is answered in its own API's envelope, not
	// in that of the one before it.
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	_ = c2.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c2, "GET /v2/core/accounts HTTP/1.1\r\nHost: x\r\n\r\nGET /v2/core/accounts HTTP/1.1\r\nHost: x\r\n\r\n"+
		"GET /compute/v1/projects/p/global/forwardingRules/%zz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br2 := bufio.NewReader(c2)
	for i := 0; i < 2; i++ { // accounts: 401 without a key
		resp, err := http.ReadResponse(br2, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err = http.ReadResponse(br2, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || json.Unmarshal(body, &env) != nil || env.Error.Code != 400 {
		t.Errorf("malformed request after two at once: %d %s, want compute's 400", resp.StatusCode, body)
	}

	// HTTP/1.0 and an unknown expectation.
	resp, body = roundTrip(t, addr, "POST /compute/v1/projects/p/global/forwardingRules HTTP/1.0\r\nHost: x\r\nExpect: garbage\r\nContent-Length: 2\r\n\r\n{}")
	if resp.StatusCode != 417 || json.Unmarshal(body, &env) != nil || env.Error.Code != 417 {
		t.Errorf("HTTP/1.0 with Expect: garbage: %d %s, want compute's 417", resp.StatusCode, body)
	}

	// A 417 that a fault rule injects is the rule's, not replaced.
	rule := `{"status":417,"message":"injected 417","path":"/compute/v1/projects/p417"}`
	resp, body = roundTrip(t, addr, fmt.Sprintf("POST /_understudy/faults HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(rule), rule))
	if resp.StatusCode != 201 {
		t.Fatalf("fault rule: %d %s", resp.StatusCode, body)
	}
	resp, body = roundTrip(t, addr, "GET /compute/v1/projects/p417/global/forwardingRules HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n")
	if resp.StatusCode != 417 || !strings.Contains(string(body), "injected 417") {
		t.Errorf("injected 417: %d %s", resp.StatusCode, body)
	}

	// And the server still serves.
	resp, body = roundTrip(t, addr, raw)
	if resp.StatusCode != 200 {
		t.Errorf("health after: %d %s", resp.StatusCode, body)
	}
}

// TestCanned: what is recognised as net/http's own answer, and what is not.
func TestCanned(t *testing.T) {
	for _, tc := range []struct {
		in     string
		status int
		detail string
		ok     bool
	}{
		{"HTTP/1.1 400 Bad Request" + cannedHeaders + "400 Bad Request", 400, "", true},
		{"HTTP/1.1 400 Bad Request: missing required Host header" + cannedHeaders + "400 Bad Request: missing required Host header", 400, "missing required Host header", true},
		{"HTTP/1.1 431 Request Header Fields Too Large" + cannedHeaders + "431 Request Header Fields Too Large", 431, "", true},
		{"HTTP/1.1 501 Not Implemented" + cannedHeaders + "Unsupported transfer encoding", 501, "", true},
		{"HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: Sat, 21 Nov 2026 22:25:21 GMT\r\nContent-Length: 0\r\n\r\n", 417, "", true},
		{"HTTP/1.0 417 Expectation Failed\r\nConnection: close\r\nDate: Sat, 21 Nov 2026 22:25:21 GMT\r\nContent-Length: 0\r\n\r\n", 417, "", true},
		// A piece of a longer response (a page echoing what a client stored) that starts
		// like net/http's answer but does not end as it does.
		{"HTTP/1.1 400 Bad Request" + cannedHeaders + "400 Bad Request</p></main>", 0, "", false},
		{"HTTP/1.0 400 Bad Request" + cannedHeaders + "400 Bad Request", 0, "", false},
		// A 417 a fault rule injected, through a handler.
		{"HTTP/1.1 417 Expectation Failed\r\nContent-Type: application/json\r\nDate: x\r\nContent-Length: 2\r\n\r\n{}", 417, "", false},
		{"HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nContent-Type: application/json\r\nDate: x\r\n\r\n{}", 417, "", false},
		{"HTTP/1.1 4x7 Odd\r\n", 0, "", false},
		// Answers written through handlers: never replaced.
		{"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nok", 0, "", false},
		{"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nDate: x\r\n\r\n{}", 0, "", false},
		{"HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nDate: x\r\n\r\n", 0, "", false},
		{"HTTP/1.1 4", 0, "", false},
		{`{"value":[]}`, 0, "", false},
	} {
		status, detail, ok := canned([]byte(tc.in))
		if status != tc.status || detail != tc.detail || ok != tc.ok {
			t.Errorf("canned(%q) = %d %q %v, want %d %q %v", tc.in, status, detail, ok, tc.status, tc.detail, tc.ok)
		}
	}
}

// TestRequestLine: the method and path an envelope is chosen by.
func TestRequestLine(t *testing.T) {
	for in, want := range map[string]string{
		"GET /compute/v1/x?y=%zz HTTP/1.1\r":        "GET /compute/v1/x",
		"POST http://h:1/v2/core/accounts HTTP/1.1": "POST /v2/core/accounts",
		"GET http://h HTTP/1.1":                     "GET /",
		"GET * HTTP/1.1":                            "GET /",
		"":                                          " /",
		"GARBAGE":                                   "GARBAGE /",
	} {
		m, p := requestLine([]byte(in))
		if got := m + " " + p; got != want {
			t.Errorf("requestLine(%q) = %q, want %q", in, got, want)
		}
	}
}
