package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestYieldsOnlyWhenOtherConnectionsWereAnswered: a request yields before its response
// goes (see yieldToOthers) when responses went out on other connections since the previous
// one on its own; a client making one request at a time never does, even with idle
// connections open beside it.
func TestYieldsOnlyWhenOtherConnectionsWereAnswered(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.ConnContext = s.ConnContext
	hs.Start()
	defer hs.Close()

	// Each client has a transport, so a connection, of its own.
	client := func() *http.Client { return &http.Client{Transport: &http.Transport{}} }
	get := func(c *http.Client) {
		t.Helper()
		resp, err := c.Get(hs.URL + "/_understudy/health")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body) // read to the end: the connection stays open
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("health: %d", resp.StatusCode)
		}
	}
	idle, a, b := client(), client(), client()
	get(idle) // an idle connection stays open beside the others
	get(a)

	before := s.yields.Load()
	for range 20 {
		get(a)
	}
	if n := s.yields.Load() - before; n != 0 {
		t.Errorf("one client, one request at a time: %d yields, want 0", n)
	}

	before = s.yields.Load()
	for range 20 {
		get(b)
		get(a)
	}
	if n := s.yields.Load() - before; n < 39 {
		t.Errorf("two clients taking turns: %d yields in 40 requests, want at least 39", n)
	}

	// A client opening a connection per request never yields either.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	before = s.yields.Load()
	for range 20 {
		get(fresh)
	}
	if n := s.yields.Load() - before; n != 0 {
		t.Errorf("one client, a new connection per request: %d yields, want 0", n)
	}

	// Without ConnContext nothing is known of connections and nothing yields.
	plain := httptest.NewServer(s.Handler())
	defer plain.Close()
	before = s.yields.Load()
	for _, c := range []*http.Client{a, b, a, b} {
		resp, err := c.Get(plain.URL + "/_understudy/health")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if n := s.yields.Load() - before; n != 0 {
		t.Errorf("without ConnContext: %d yields, want 0", n)
	}
}
