package server

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestConnStateCountsOpenConnections: ConnState, wired into the http.Server, counts the
// connections open at any time (front yields only when there is more than one).
func TestConnStateCountsOpenConnections(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.ConnState = s.ConnState
	hs.Start()
	defer hs.Close()

	waitFor := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); s.conns.Load() != want; {
			if time.Now().After(deadline) {
				t.Fatalf("%d connections counted, want %d", s.conns.Load(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	// Each transport keeps its own connection open after its request.
	var clients []*http.Transport
	for i := range 3 {
		tr := &http.Transport{}
		clients = append(clients, tr)
		resp, err := (&http.Client{Transport: tr}).Get(hs.URL + "/_understudy/health")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body) // read to the end: the connection stays open
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("health: %d", resp.StatusCode)
		}
		waitFor(int64(i + 1))
	}
	for i, tr := range clients {
		tr.CloseIdleConnections()
		waitFor(int64(len(clients) - i - 1))
	}
	// A connection closed before it sends a request is counted while it is open.
	conn, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	waitFor(1)
	conn.Close()
	waitFor(0)
}
