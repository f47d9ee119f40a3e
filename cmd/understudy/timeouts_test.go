package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Slow and greedy clients against the real http.Server that serve builds (its fixed
// timeouts: ReadHeaderTimeout 10s, ReadTimeout 60s, WriteTimeout 5m, IdleTimeout 2m,
// MaxHeaderBytes 64 KiB). None of them may stop the server from answering others promptly.

// startServe runs serve on a free port, with these flags besides, for the rest of the test
// and returns its address.
func startServe(t *testing.T, flags ...string) string {
	addr, _ := serving(t, flags...)
	return addr
}

// serving is startServe, with a stop that ends serve as SIGTERM does and returns what serve
// returned (the test's cleanup stops it too, once).
func serving(t *testing.T, flags ...string) (addr string, stop func() error) {
	t.Helper()
	cfg, err := Load(append([]string{"--addr", "127.0.0.1:0"}, flags...), func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), ready) }()
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("serve did not start")
	}
	var once sync.Once
	var served error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case served = <-done:
			case <-time.After(40 * time.Second):
				served = errors.New("serve did not stop")
			}
		})
		return served
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return addr, stop
}

// healthWithin checks that a fresh client (new connection) gets 200 from the health
// endpoint within limit.
func healthWithin(t *testing.T, addr string, limit time.Duration) time.Duration {
	t.Helper()
	client := &http.Client{Timeout: limit, Transport: &http.Transport{DisableKeepAlives: true}}
	start := time.Now()
	resp, err := client.Get("http://" + addr + "/_understudy/health")
	took := time.Since(start)
	if err != nil {
		t.Fatalf("health did not answer within %v: %v", limit, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %d", resp.StatusCode)
	}
	return took
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSlowlorisDoesNotStarveOthers: 50 connections that send their headers one byte a
// second do not keep other clients from being answered within 1s. With -short it stops
// there; otherwise it also measures when the server gives up on a slow header
// (ReadHeaderTimeout, 10s today).
func TestSlowlorisDoesNotStarveOthers(t *testing.T) {
	t.Parallel()
	addr := startServe(t)
	const slow = 50
	conns := make([]net.Conn, slow)
	for i := range conns {
		conns[i] = dial(t, addr)
		if _, err := io.WriteString(conns[i], "GET /_understudy/health HTTP/1.1\r\nHost: x\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	closedAfter := make([]time.Duration, slow)
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			header := "X-Slow-" + fmt.Sprint(i) + ": " + strings.Repeat("a", 100)
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for j := 0; ; j = (j + 1) % len(header) {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				if _, err := c.Write([]byte{header[j]}); err != nil {
					closedAfter[i] = time.Since(start) // the server closed it
					return
				}
			}
		}()
	}
	var once sync.Once
	finish := func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			for _, c := range conns {
				c.Close()
			}
		})
	}
	defer finish()

	for round := 0; round < 3; round++ {
		time.Sleep(time.Second)
		took := healthWithin(t, addr, time.Second)
		t.Logf("round %d: health answered in %v with %d slowloris connections open", round, took, slow)
	}
	if testing.Short() {
		return
	}
	// The server closes a connection whose headers are not complete ReadHeaderTimeout after
	// it started reading them: a read from it then ends (EOF or reset), without a response.
	probe := dial(t, addr)
	defer probe.Close()
	probeStart := time.Now()
	if _, err := io.WriteString(probe, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
		t.Fatal(err)
	}
	keepWriting := make(chan struct{})
	go func() {
		for {
			select {
			case <-keepWriting:
				return
			case <-time.After(time.Second):
				if _, err := probe.Write([]byte("a")); err != nil {
					return
				}
			}
		}
	}()
	defer close(keepWriting)
	_ = probe.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(probe)
	closed := time.Since(probeStart)
	t.Logf("a slow header was cut after %v (read: %q, %v)", closed.Round(100*time.Millisecond), got, err)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept a connection sending one header byte a second for 30s")
	}
	if closed < 5*time.Second || closed > 20*time.Second {
		t.Errorf("slow header cut after %v, want about ReadHeaderTimeout (10s)", closed)
	}
	healthWithin(t, addr, time.Second)
	// By now (13s and more) the server has cut every slowloris connection too.
	finish()
	cut := 0
	for _, d := range closedAfter {
		if d > 0 {
			cut++
		}
	}
	t.Logf("%d of %d slowloris connections were cut by the server", cut, slow)
	if cut != slow {
		t.Errorf("only %d of %d slowloris connections were cut after %v", cut, slow, time.Since(start).Round(time.Second))
	}
}

// TestOversizedHeadersGet431: headers over MaxHeaderBytes (64 KiB; net/http allows 4 KiB
// of slack) are refused by net/http with 431 before any handler runs, in its own plain
// text, and the server keeps serving.
func TestOversizedHeadersGet431(t *testing.T) {
	t.Parallel()
	addr := startServe(t)
	for _, size := range []int{60 << 10, 80 << 10, 1 << 20} {
		t.Run(fmt.Sprintf("%dKiB", size>>10), func(t *testing.T) {
			c := dial(t, addr)
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			// Written from a goroutine: the server may answer and close before reading it all.
			go func() {
				w := bufio.NewWriter(c)
				fmt.Fprintf(w, "GET /_understudy/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n", strings.Repeat("a", size))
				_ = w.Flush()
			}()
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no response: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Logf("%d KiB header: %d %q %q", size>>10, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			want := http.StatusRequestHeaderFieldsTooLarge
			if size < 64<<10 {
				want = http.StatusOK
			}
			if resp.StatusCode != want {
				t.Errorf("status %d, want %d", resp.StatusCode, want)
			}
			if ct := resp.Header.Get("Content-Type"); want == http.StatusOK && !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want the admin API's JSON", ct)
			}
			healthWithin(t, addr, time.Second)
		})
	}
}

// TestIdleKeepAliveConnectionsDoNotBlockNewOnes: 300 connections, each idle after one
// keep-alive request (and 100 more that never sent anything), leave room for new clients.
func TestIdleKeepAliveConnectionsDoNotBlockNewOnes(t *testing.T) {
	t.Parallel()
	addr := startServe(t)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 300; i++ {
		c := dial(t, addr)
		conns = append(conns, c)
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "GET /_understudy/health HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("keep-alive request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("keep-alive request %d: %d, close=%v", i, resp.StatusCode, resp.Close)
		}
	}
	for i := 0; i < 100; i++ {
		conns = append(conns, dial(t, addr)) // connected, silent
	}
	for round := 0; round < 3; round++ {
		took := healthWithin(t, addr, time.Second)
		t.Logf("health answered in %v with %d idle connections open", took, len(conns))
	}
	// A kept-alive connection still serves a second request after being idle.
	c := conns[0]
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET /_understudy/health HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("second request on an idle keep-alive connection: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("second request: %d", resp.StatusCode)
	}
}
