package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthcheckTimeout bounds the whole check: a server that cannot answer its health
// endpoint within it is not healthy. Container runtimes give a check more than this (the
// Dockerfile's HEALTHCHECK allows 5s), so the check reports its own reason first.
const healthcheckTimeout = 3 * time.Second

// healthcheck is `understudy healthcheck [flags]`: it asks the server that the same flags
// and environment would start for GET /_understudy/health, and returns 0 when it answers
// 200, else 1 with the reason on stderr. It exists for container images, which have no curl:
// a Dockerfile's HEALTHCHECK runs it with the container's environment (UNDERSTUDY_ADDR), not
// with its command's arguments.
func healthcheck(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := Load(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		var url string
		if url, err = healthURL(cfg.TLS.scheme(), cfg.Addr); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), healthcheckTimeout)
			defer cancel()
			err = checkHealth(ctx, url)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "understudy healthcheck:", err)
		return 1
	}
	fmt.Fprintln(stdout, "healthy")
	return 0
}

// healthURL is the health endpoint of a server serving scheme on addr, reached over
// loopback when addr listens on every interface (0.0.0.0, [::] or no host).
func healthURL(scheme, addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", addr, err)
	}
	if port == "0" {
		return "", fmt.Errorf("--addr %q picks a free port at each start: the healthcheck needs the port itself", addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/_understudy/health", nil
}

// plainToTLS is what net/http's server answers to a plain HTTP request on a TLS listener.
const plainToTLS = "HTTP request to an HTTPS server"

// checkHealth GETs url and wants a 200. It does not verify an https server's certificate:
// the question is whether the process on this address answers, and the certificate names
// the server's public names, perhaps not the address the check dials.
//
// A server told to serve HTTPS by a flag the check does not see (a container's HEALTHCHECK
// sees its environment, not its command's arguments) answers a plain request with
// net/http's 400 "Client sent an HTTP request to an HTTPS server"; the check then asks again
// over https. The server logs that request as a TLS handshake error.
func checkHealth(ctx context.Context, url string) error {
	// No proxy from the environment: the server is on this machine.
	rt := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer rt.CloseIdleConnections()
	status, body, err := get(ctx, rt, url)
	if err == nil && status == http.StatusBadRequest && strings.Contains(body, plainToTLS) {
		url = "https" + strings.TrimPrefix(url, "http")
		status, body, err = get(ctx, rt, url)
	}
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", url, status, strings.TrimSpace(body))
	}
	return nil
}

// get returns the status and (the start of) the body of a GET of url.
func get(ctx context.Context, rt http.RoundTripper, url string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b), nil
}
