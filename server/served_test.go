package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// servedServer is s behind a real listener, as the binary serves it, with header blocks
// limited to 4 KiB.
func servedServer(t *testing.T) string {
	t.Helper()
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.MaxHeaderBytes = 4 << 10
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

// TestMalformedHTTPIsNetHTTPs: requests that are not valid HTTP/1.1 never reach a handler;
// net/http answers them itself, in its plain text with its status, and closes the
// connection; the server goes on serving.
func TestMalformedHTTPIsNetHTTPs(t *testing.T) {
	addr := servedServer(t)
	const path = "/compute/v1/projects/p/global/forwardingRules"
	cases := []struct {
		name, raw string
		status    int
	}{
		{"invalid escape in the path", "GET " + path + "/%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"no Host header", "GET " + path + " HTTP/1.1\r\n\r\n", 400},
		{"header without a colon", "GET " + path + " HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400},
		{"headers too large", "GET " + path + " HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", 431},
		{"unknown transfer coding", "POST " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501},
		{"unknown HTTP version", "GET " + path + " HTTP/3.0\r\nHost: x\r\n\r\n", 505},
		{"unknown expectation", "POST " + path + " HTTP/1.1\r\nHost: x\r\nExpect: garbage\r\nContent-Length: 2\r\n\r\n{}", 417},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := roundTrip(t, addr, tc.raw)
			if resp.StatusCode != tc.status || !resp.Close {
				t.Errorf("status %d, close %v, want %d and a close: %s", resp.StatusCode, resp.Close, tc.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q, want net/http's own (plain text, or none): %s", ct, body)
			}
			resp, body = roundTrip(t, addr, "GET /_understudy/health HTTP/1.1\r\nHost: x\r\n\r\n")
			if resp.StatusCode != http.StatusOK {
				t.Errorf("health afterwards: %d %s", resp.StatusCode, body)
			}
		})
	}
}
