// Package understudytest runs a whole understudy server in-process for Go tests: a random
// loopback port, the full HTTP stack (validation included), closed when the test ends.
//
//	srv := understudytest.Start(t)
//	resp, err := http.Get(srv.URL + "/_understudy/health")
package understudytest

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/understudy-dev/understudy/server"
)

// Server is a running in-process understudy.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:41234.
	URL string
	srv *server.Server
}

// Option changes the server's configuration before it starts.
type Option func(*server.Config)

// WithConfig lets a test set any server configuration.
func WithConfig(f func(*server.Config)) Option { return Option(f) }

// Start runs a server for the rest of the test. Server logs at warning level and above go
// to the test log.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	cfg := server.Config{Log: slog.New(slog.NewTextHandler(tbWriter{tb: tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		tb.Fatalf("understudytest: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	tb.Cleanup(hs.Close)
	return &Server{URL: hs.URL, srv: srv}
}

// Reset puts every API back into its seeded state.
func (s *Server) Reset() error { return s.srv.Reset() }

// tbWriter sends log lines to the test log, and stops once the test is over (a server
// goroutine may still log while the test is being cleaned up).
type tbWriter struct {
	tb testing.TB
}

var logMu sync.Mutex

func (w tbWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	defer func() { _ = recover() }() // t.Log after the test ended panics
	w.tb.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
