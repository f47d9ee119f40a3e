package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// exchange writes raw to a new connection and returns everything the server sends until it
// closes the connection (or 5 s pass: then timedOut).
func exchange(t *testing.T, addr, raw string) (got string, timedOut bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	go func() { _, _ = io.WriteString(c, raw) }()
	b, err := io.ReadAll(c)
	var ne net.Error
	return string(b), errors.As(err, &ne) && ne.Timeout()
}

// TestBodyThatFailsClosesTheConnection: when a request's body cannot be read to its end (a
// bad chunk, more than the body limit), the answer closes the connection, and what followed
// in the body never runs as a request of its own; a request waiting for "100 Continue" that
// is refused before its body is read is answered at once, and the connection closed.
func TestBodyThatFailsClosesTheConnection(t *testing.T) {
	addr := servedServer(t)
	const rule = "fr-smuggled"
	smuggled := func(name string) string {
		body := `{"name":"` + name + `"}`
		return fmt.Sprintf("POST /compute/v1/projects/my-project-123/global/forwardingRules HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
	chunked := func(path, chunks string) string {
		return "PUT " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks
	}
	ra := "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01"
	big := strings.Repeat("x", DefaultBodyLimit+1)
	cases := []struct{ name, raw string }{
		{"bad chunk size, authorization", chunked(ra, "1\r\n{\r\nzz\r\n"+smuggled(rule+"-1"))},
		{"bad chunk size, compute", strings.Replace(chunked("/compute/v1/projects/my-project-123/global/forwardingRules", "1\r\n{\r\nzz\r\n"+smuggled(rule+"-2")), "PUT", "POST", 1)},
		{"bad chunk size, admin", strings.Replace(chunked("/_understudy/clock/advance", "1\r\n{\r\nzz\r\n"+smuggled(rule+"-3")), "PUT", "POST", 1)},
		// One chunk declared long enough to hold the limit, what net/http reads past a
		// refused body looking for its end (256 KiB), and the smuggled request.
		{"over the body limit", chunked(ra, fmt.Sprintf("%x\r\n", len(big)+256<<10+len(smuggled(rule+"-4")))+big+strings.Repeat("y", 256<<10)+smuggled(rule+"-4"))},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, timedOut := exchange(t, addr, tt.raw)
			if n := strings.Count(got, "HTTP/1.1 "); n != 1 || timedOut {
				t.Errorf("%d responses (connection left open: %v), want one and a close:\n%.600s", n, timedOut, got)
			}
			if !strings.Contains(got, "Connection: close") {
				t.Errorf("answer does not say Connection: close:\n%.600s", got)
			}
		})
	}
	for i := 1; i <= 4; i++ {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://%s/compute/v1/projects/my-project-123/global/forwardingRules/%s-%d", addr, rule, i), nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("smuggled rule %d: GET answered %d", i, resp.StatusCode)
		}
	}
	t.Run("100-continue refused before the body", func(t *testing.T) {
		for _, path := range []string{"/compute/v1/projects/my-project-123/global/forwardingRules", "/nope", "/_understudy/nope"} {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			_, _ = io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
			// The body is never sent: the client waits for 100 Continue, and the answer
			// must come without it.
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			c.Close()
			if err != nil {
				t.Errorf("%s: no answer: %v", path, err)
				continue
			}
			resp.Body.Close()
			if resp.StatusCode < 400 || !resp.Close {
				t.Errorf("%s: %d, close %v; want a refusal that closes the connection", path, resp.StatusCode, resp.Close)
			}
		}
	})
}
