// Command baseline is the bare Echo server the benchmark harness (../) compares understudy
// with: one handler per method, each answering any path with a constant JSON body shaped and
// sized like understudy's answers to the benchmarked operations (../internal/answers). It
// reads and discards the request body, validates nothing and keeps no state.
//
// It logs one JSON line with "addr" on stderr once it listens (like understudy) and stops
// on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/bench/internal/answers"
)

func constant(status int, body string) echo.HandlerFunc {
	b := []byte(body)
	return func(c echo.Context) error {
		if r := c.Request().Body; r != nil {
			_, _ = io.Copy(io.Discard, r)
		}
		return c.JSONBlob(status, b)
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on; a port of 0 picks a free one")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		e.Add(method, "/*", constant(answers.For(method)))
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(2)
	}
	// The same server timeouts as understudy's.
	hs := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	log.Info("baseline listening", "addr", ln.Addr().String())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdownCtx)
}
