// Command understudy serves the authorization, accounts and compute APIs on one port,
// validated against their OpenAPI specs, with state kept in memory.
//
// It logs one line with the address once it listens; GET /_understudy/health answers 200 when
// it is ready. SIGINT and SIGTERM drain in-flight requests and exit 0. `understudy --help`
// lists the flags; each is also an UNDERSTUDY_* environment variable.
//
// `understudy healthcheck [flags]` asks the server those flags and environment describe for
// its health instead, and exits 0 when it answers 200, else 1: for container images, which
// have no curl. `understudy --version` prints the version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/understudy-dev/understudy/internal/store/postgres"
	"github.com/understudy-dev/understudy/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "healthcheck" {
		os.Exit(healthcheck(os.Args[2:], os.Getenv, os.Stdout, os.Stderr))
	}
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Println("understudy", version)
		return
	}
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "understudy:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	cfg, err := Load(args, os.Getenv, os.Stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.CPUProfile != "" {
		stopProfile, err := startCPUProfile(cfg.CPUProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	return serve(ctx, cfg, log, nil)
}

// startCPUProfile profiles the process into file until the returned function is called.
func startCPUProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// serve listens, serves until ctx is done, then drains in-flight requests. ready, when not
// nil, receives the address once the server listens.
func serve(ctx context.Context, cfg Config, log *slog.Logger, ready chan<- string) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	cfg.Server.Log = log
	cfg.Server.Version = version
	// Links name the listening address, unless it is every interface (as in a container):
	// that names no host a client can use, so links then follow each request's own Host.
	if host, _, _ := net.SplitHostPort(addr); cfg.Server.PublicURL == "" && !net.ParseIP(host).IsUnspecified() {
		cfg.Server.PublicURL = cfg.TLS.scheme() + "://" + addr
	}
	// On one CPU the runtime has one P, and a goroutine blocked in fdatasync keeps it until
	// the runtime's monitor takes it back (up to 10 ms later): nothing else runs meanwhile.
	// A second P lets requests run while the disk syncs.
	if cfg.Server.DataDir != "" && runtime.GOMAXPROCS(0) < 2 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(2)
	}
	if cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	srv, err := server.New(cfg.Server)
	if err != nil {
		ln.Close()
		return err
	}
	// After server.New, which holds the data dir, so that no other server shares the TLS
	// files kept in it.
	tlsConfig, tlsAttrs, tlsCleanup, err := cfg.TLS.load(cfg.Server.DataDir, time.Now())
	if err != nil {
		ln.Close()
		return errors.Join(err, srv.Close())
	}
	defer tlsCleanup()
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout, // above the compute wait timeout (checked in Load)
		IdleTimeout:       cfg.HTTP.IdleTimeout,
		MaxHeaderBytes:    cfg.HTTP.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		TLSConfig:         tlsConfig,
	}
	// The start-up line is how callers learn the chosen address: it is written whatever the
	// log level.
	announce := log
	if !log.Enabled(ctx, slog.LevelInfo) {
		announce = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	// url is where a client on this machine reaches the server: the links' base, or, when
	// links follow each request's Host (every interface), localhost on the chosen port.
	attrs := []any{"addr", addr, "url", cfg.Server.PublicURL}
	if cfg.Server.PublicURL == "" {
		_, port, _ := net.SplitHostPort(addr)
		attrs = []any{"addr", addr, "url", cfg.TLS.scheme() + "://" + net.JoinHostPort("localhost", port), "links", "each request's own host"}
	}
	if cfg.Server.Store != "" {
		attrs = append(attrs, "store", postgres.Redact(cfg.Server.Store))
	} else {
		attrs = append(attrs, "dataDir", cfg.Server.DataDir)
	}
	announce.Info("understudy listening", append(append(attrs, "version", version), tlsAttrs...)...)
	if ready != nil {
		ready <- addr
	}
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			errc <- hs.ServeTLS(ln, "", "") // net/http's own TLS, with HTTP/2
			return
		}
		errc <- hs.Serve(ln)
	}()
	select {
	case err := <-errc:
		return errors.Join(err, srv.Close())
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests")
	srv.Draining() // waits answer now: the default wait (2 min) outlasts the drain (30 s)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.HTTP.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return errors.Join(fmt.Errorf("shutdown: %w", err), srv.Close())
	}
	// Everything acknowledged is already on disk (or in PostgreSQL); Close releases the
	// data dir or the connections.
	if err := srv.Close(); err != nil {
		return fmt.Errorf("closing the store: %w", err)
	}
	log.Info("stopped")
	return nil
}
