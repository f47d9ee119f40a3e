// Package understudytest runs a whole understudy server in-process for Go tests: a random
// loopback port, the full HTTP stack (validation included), ready clients for every API, and
// closed when the test ends.
//
//	srv := understudytest.Start(t, understudytest.WithOperationMode("manual"))
//	resp, err := client.CheckCompute(srv.Compute.GlobalOperationsGetWithResponse(ctx, project, name, nil))
//	srv.AdvanceClock(t, 10*time.Minute) // links expire, delayed operations finish
//	srv.Reset(t)                        // back to the seeded state
//
// With WithTLS it serves HTTPS, and its ready clients, HTTPClient and CAFile trust it.
package understudytest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/client"
	admingen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/internal/localca"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store/postgres"
	"github.com/understudy-dev/understudy/server"
)

// Credentials the ready clients use. Any bearer token works for authorization and compute;
// the accounts key belongs to the default platform, in test mode.
const (
	Token  = "understudytest-token"
	APIKey = "sk_test_understudytest"
)

// Server is a running in-process understudy.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:41234 (https://127.0.0.1:41234 with
	// WithTLS).
	URL string
	// CAFile, with WithTLS, is the PEM file of the CA that signed the server's certificate:
	// for programs that are not given HTTPClient (SSL_CERT_FILE=CAFile for a Go program,
	// curl --cacert CAFile). "" without WithTLS.
	CAFile string
	// Ready clients for each API, with credentials set (see Token and APIKey).
	Authorization *client.Authorization
	Accounts      *client.Accounts
	Compute       *client.Compute
	// Admin is the generated client of the admin API (/_understudy); it sends the admin
	// token when WithAdminToken set one.
	Admin *admingen.ClientWithResponses

	srv *server.Server
	hs  *httptest.Server
	// transport is HTTPClient's with WithTLS, which trusts the CA (nil: the default).
	transport *http.Transport
	stop      sync.Once
	tempDirs  []string // New's, removed by Close
	// dropStore, when set, is a store URL whose schema goes when the server stops.
	dropStore string
}

// Option changes the server's configuration before it starts.
type Option func(*options) error

type options struct {
	cfg  server.Config
	logs io.Writer
	tls  bool
}

// WithConfig lets a test set any server configuration.
func WithConfig(f func(*server.Config)) Option {
	return func(o *options) error { f(&o.cfg); return nil }
}

// WithOperationMode sets how compute operations finish: "immediate", "manual" (one step per
// get or wait) or a duration such as "300ms".
func WithOperationMode(mode string) Option {
	return func(o *options) error {
		m, err := operations.ParseMode(mode)
		if err != nil {
			return err
		}
		o.cfg.Compute.Operations.Mode = m
		return nil
	}
}

// WithSeedFile loads a seed file (docs/seed.md), as --seed does. Options
// apply in the order given: a later WithOperationMode, say, wins over the seed's mode.
func WithSeedFile(path string) Option {
	return func(o *options) error {
		seed, err := server.LoadSeed(path)
		if err != nil {
			return err
		}
		return seed.Apply(&o.cfg, nil)
	}
}

// WithClock makes the server's clock follow now (plus whatever AdvanceClock adds).
func WithClock(now func() time.Time) Option {
	return func(o *options) error { o.cfg.Now = now; return nil }
}

// WithDataDir keeps the server's state on disk in dir, as --data-dir does: a server started
// again on dir after Stop finds everything the first one acknowledged.
func WithDataDir(dir string) Option {
	return func(o *options) error { o.cfg.DataDir = dir; return nil }
}

// WithStore keeps the server's state in PostgreSQL, as --store does: url is a postgres://
// URL, whose search_path names the schema. Servers started with the same URL share one
// state; a server started again on it after Stop finds everything the first acknowledged.
func WithStore(url string) Option {
	return func(o *options) error { o.cfg.Store = url; return nil }
}

// EnvStore names an environment variable that moves every server's state to PostgreSQL, to
// run a test suite against that store unchanged: when it holds a postgres:// URL, a server
// started without WithStore keeps its state in a new schema of that database, dropped when
// the server stops; with WithDataDir, in a schema named after the directory, kept until
// the test ends (Start) so that a server started again on the directory finds the state.
const EnvStore = "UNDERSTUDY_TEST_STORE"

// WithTLS serves HTTPS instead of HTTP, with HTTP/2, as the binary's --tls auto does: the
// server's certificate names localhost, 127.0.0.1 and ::1 and is signed by a CA made for
// the test (in a temporary directory), which the ready clients and HTTPClient trust, and
// which CAFile holds for other programs. Links the APIs return start with https://.
func WithTLS() Option {
	return func(o *options) error { o.tls = true; return nil }
}

// WithAdminToken makes the server ask for token on every /_understudy/ endpoint but health,
// as --admin-token does; the Admin client sends it.
func WithAdminToken(token string) Option {
	return func(o *options) error { o.cfg.AdminToken = token; return nil }
}

// WithLogs sends the server's logs (warnings and above) to w instead of the test log.
func WithLogs(w io.Writer) Option {
	return func(o *options) error { o.logs = w; return nil }
}

// Start runs a server for the rest of the test.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := start(tbWriter{tb: tb}, tb.TempDir, tb.Cleanup, opts)
	if err != nil {
		tb.Fatalf("understudytest: %v", err)
	}
	tb.Cleanup(func() { s.Stop(tb) })
	return s
}

// New runs a server outside a test, for TestMain or an example, until Close; its logs
// (warnings and above) go to standard error unless WithLogs says otherwise.
func New(opts ...Option) (*Server, error) {
	var dirs []string
	s, err := start(os.Stderr, func() string {
		d, err := os.MkdirTemp("", "understudytest-")
		if err != nil {
			panic("understudytest: " + err.Error())
		}
		dirs = append(dirs, d)
		return d
	}, nil, opts)
	if err != nil {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
		return nil, err
	}
	s.tempDirs = dirs
	return s, nil
}

// Close shuts down a server New started, as Stop does, and removes its temporary files.
func (s *Server) Close() error {
	err := s.shutdown()
	for _, d := range s.tempDirs {
		os.RemoveAll(d)
	}
	return err
}

// start builds and starts the server; tempDir gives a directory that lives as long as it,
// and atEnd, when not nil, runs a function when the test ends.
func start(logs io.Writer, tempDir func() string, atEnd func(func()), opts []Option) (*Server, error) {
	o := &options{logs: logs}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	dropStore, err := storeFromEnv(&o.cfg, atEnd)
	if err != nil {
		return nil, err
	}
	if o.cfg.Log == nil {
		o.cfg.Log = slog.New(slog.NewTextHandler(o.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	srv, err := server.New(o.cfg)
	if err != nil {
		if dropStore != "" {
			_ = dropSchema(dropStore)
		}
		return nil, err
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	s := &Server{srv: srv, hs: hs, dropStore: dropStore}
	var clientOpts []client.Option // the clients' own defaults over plain HTTP
	if o.tls {
		// As the binary serves HTTPS: net/http's own TLS, HTTP/2 offered.
		ca, err := localca.Ensure(tempDir(), nil, time.Now())
		if err != nil {
			_ = srv.Close()
			return nil, err
		}
		hs.EnableHTTP2 = true
		hs.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Certificate}, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
		hs.StartTLS()
		roots := x509.NewCertPool()
		roots.AddCert(ca.CA)
		s.transport = http.DefaultTransport.(*http.Transport).Clone()
		s.transport.TLSClientConfig = &tls.Config{RootCAs: roots}
		s.CAFile = ca.CAFile
		clientOpts = append(clientOpts, client.WithHTTPClient(s.HTTPClient()))
	} else {
		hs.Start()
	}
	s.URL = hs.URL
	if s.Authorization, err = client.NewAuthorization(hs.URL, append(clientOpts, client.WithBearerToken(Token))...); err == nil {
		if s.Accounts, err = client.NewAccounts(hs.URL, append(clientOpts, client.WithAPIKey(APIKey))...); err == nil {
			if s.Compute, err = client.NewCompute(hs.URL, append(clientOpts, client.WithBearerToken(Token))...); err == nil {
				s.Admin, err = admingen.NewClientWithResponses(hs.URL, admingen.WithHTTPClient(s.HTTPClient()), adminAuth(o.cfg.AdminToken))
			}
		}
	}
	if err != nil {
		_ = s.shutdown()
		return nil, fmt.Errorf("clients: %w", err)
	}
	return s, nil
}

// Stop shuts the server down: it stops serving, then writes what is queued for the disk and
// releases its data dir. The end of the test stops it too.
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	if err := s.shutdown(); err != nil {
		tb.Errorf("understudytest: stop: %v", err)
	}
}

// shutdown stops serving, then closes the server, once.
func (s *Server) shutdown() (err error) {
	s.stop.Do(func() {
		s.hs.Close()
		if s.transport != nil {
			s.transport.CloseIdleConnections()
		}
		err = s.srv.Close()
		if s.dropStore != "" {
			err = errors.Join(err, dropSchema(s.dropStore))
		}
	})
	return err
}

// storeFromEnv moves cfg's state to the PostgreSQL database EnvStore names, if any, and
// returns the store URL whose schema goes with the server ("" when it stays).
func storeFromEnv(cfg *server.Config, atEnd func(func())) (drop string, err error) {
	base := os.Getenv(EnvStore)
	if base == "" || cfg.Store != "" {
		return "", nil
	}
	if cfg.DataDir == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		cfg.Store, err = postgres.WithSchema(base, "understudytest_"+hex.EncodeToString(b))
		return cfg.Store, err
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(dir))
	if cfg.Store, err = postgres.WithSchema(base, "understudytest_dir_"+hex.EncodeToString(sum[:8])); err != nil {
		return "", err
	}
	cfg.DataDir = ""
	if atEnd != nil {
		url := cfg.Store
		atEnd(func() { _ = dropSchema(url) })
	}
	return "", nil
}

func dropSchema(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := postgres.DropSchema(ctx, url); err != nil {
		return fmt.Errorf("dropping the schema of %s: %w", postgres.Redact(url), err)
	}
	return nil
}

// HTTPClient returns an HTTP client for requests of the test's own, or for a vendor's SDK
// (which takes one: option.WithHTTPClient, policy.ClientOptions.Transport,
// stripe.BackendConfig.HTTPClient). With WithTLS it trusts the server's CA, and only it.
// With WithTLS its connections are closed when the server stops; without, it uses
// http.DefaultTransport.
func (s *Server) HTTPClient() *http.Client {
	if s.transport == nil {
		return &http.Client{}
	}
	return &http.Client{Transport: s.transport}
}

// Reset puts every API back into its seeded state.
func (s *Server) Reset(tb testing.TB) {
	tb.Helper()
	if err := s.srv.Reset(); err != nil {
		tb.Fatalf("understudytest: reset: %v", err)
	}
}

// AdvanceClock moves the server's clock forward by d.
func (s *Server) AdvanceClock(tb testing.TB, d time.Duration) {
	tb.Helper()
	resp, err := s.Admin.AdvanceClockWithResponse(context.Background(), admingen.ClockAdvance{Seconds: d.Seconds()})
	if err != nil || resp.StatusCode() != 200 {
		tb.Fatalf("understudytest: advance clock: %v %s", err, bodyOf(resp))
	}
}

// adminAuth has the admin client send the admin token, when there is one.
func adminAuth(token string) admingen.ClientOption {
	return admingen.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	})
}

func bodyOf(r interface{ GetBody() []byte }) string {
	if r == nil {
		return ""
	}
	return string(r.GetBody())
}

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
