package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// quietPair is a quiet server-side connection and its client.
func quietPair(t testing.TB) (*quietConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := servedListener{ln, nil}.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); client.Close() })
	qc, ok := c.(*servedConn).Conn.(*quietConn)
	if !ok {
		t.Fatalf("accepted a %T, want a quiet connection", c)
	}
	return qc, client
}

type readResult struct {
	b   byte
	n   int
	err error
}

// readOne reads one byte from c in a goroutine, as net/http's background read does.
func readOne(c net.Conn) <-chan readResult {
	out := make(chan readResult, 1)
	go func() {
		var b [1]byte
		n, err := c.Read(b[:])
		out <- readResult{b[0], n, err}
	}()
	return out
}

// TestQuietReadWhileYielding: a one-byte read while yielding returns nothing at once and
// reads nothing, so the connection's next read has what the client sent before or after
// it, or its EOF; longer reads, and every read when not yielding, are the connection's own.
func TestQuietReadWhileYielding(t *testing.T) {
	// readNow reads into p from qc, failing if that takes more than a second.
	readNow := func(t *testing.T, qc *quietConn, p []byte) readResult {
		t.Helper()
		qc.SetReadDeadline(time.Now().Add(time.Second))
		defer qc.SetReadDeadline(time.Time{})
		n, err := qc.Read(p)
		return readResult{p[0], n, err}
	}
	t.Run("a byte arrived before", func(t *testing.T) {
		qc, client := quietPair(t)
		if _, err := client.Write([]byte("z")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
		yielding(qc, true)
		if r := readNow(t, qc, make([]byte, 1)); r.n != 0 || r.err != nil {
			t.Fatalf("read while yielding = %+v, want nothing and no error", r)
		}
		yielding(qc, false)
		if r := readNow(t, qc, make([]byte, 8)); r.n != 1 || r.b != 'z' || r.err != nil {
			t.Fatalf("next read = %+v, want z", r)
		}
		if qc.skipped.Load() != 1 {
			t.Errorf("skipped = %d, want 1", qc.skipped.Load())
		}
	})
	t.Run("nothing arrived", func(t *testing.T) {
		qc, client := quietPair(t)
		yielding(qc, true)
		if r := readNow(t, qc, make([]byte, 1)); r.n != 0 || r.err != nil {
			t.Fatalf("read while yielding = %+v, want nothing and no error", r)
		}
		yielding(qc, false)
		got := readOne(qc)
		if _, err := client.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if r := <-got; r.n != 1 || r.b != 'x' || r.err != nil {
			t.Fatalf("next read = %+v, want the byte sent after", r)
		}
	})
	t.Run("the client closed", func(t *testing.T) {
		qc, client := quietPair(t)
		client.Close()
		time.Sleep(10 * time.Millisecond)
		yielding(qc, true)
		if r := readNow(t, qc, make([]byte, 1)); r.n != 0 || r.err != nil {
			t.Fatalf("read while yielding = %+v, want nothing and no error", r)
		}
		yielding(qc, false)
		if r := readNow(t, qc, make([]byte, 1)); r.n != 0 || r.err != io.EOF {
			t.Fatalf("next read = %+v, want EOF", r)
		}
	})
	t.Run("a longer read while yielding", func(t *testing.T) {
		qc, client := quietPair(t)
		if _, err := client.Write([]byte("ab")); err != nil {
			t.Fatal(err)
		}
		yielding(qc, true)
		defer yielding(qc, false)
		if r := readNow(t, qc, make([]byte, 2)); r.n < 1 || r.b != 'a' || r.err != nil {
			t.Fatalf("read = %+v, want a", r)
		}
	})
	t.Run("not yielding", func(t *testing.T) {
		qc, client := quietPair(t)
		if _, err := client.Write([]byte("y")); err != nil {
			t.Fatal(err)
		}
		if r := readNow(t, qc, make([]byte, 1)); r.n != 1 || r.b != 'y' || r.err != nil {
			t.Fatalf("read = %+v, want y", r)
		}
		if qc.skipped.Load() != 0 {
			t.Errorf("skipped = %d, want 0", qc.skipped.Load())
		}
	})
}

// TestQuietConnectionsUnderLoad: clients taking turns on connections of their own (so
// that requests yield) get every answer right through quiet connections, requests with
// bodies and pipelined ones too, and background reads of yielding requests were answered
// with nothing.
func TestQuietConnectionsUnderLoad(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // as when pinned to one core
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(s.Handler())
	var mu sync.Mutex
	var conns []*quietConn
	hs.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if qc, ok := c.(*servedConn).Conn.(*quietConn); ok {
			mu.Lock()
			conns = append(conns, qc)
			mu.Unlock()
		}
		return s.ConnContext(ctx, c)
	}
	hs.Listener = s.Listener(hs.Listener)
	hs.Start()
	defer hs.Close()

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{}}
			for j := range 50 {
				body := fmt.Sprintf(`{"name":"fr-%d-%d"}`, i, j)
				req, _ := http.NewRequest(http.MethodPost, hs.URL+"/compute/v1/projects/p-quiet/global/forwardingRules", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer t")
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `"kind":"compute#operation"`) {
					t.Errorf("insert: %d %s", resp.StatusCode, got)
					return
				}
			}
		})
	}
	// Pipelined: the second request is sent while the first is being served.
	wg.Go(func() {
		raw, err := net.Dial("tcp", hs.Listener.Addr().String())
		if err != nil {
			t.Error(err)
			return
		}
		defer raw.Close()
		const get = "GET /_understudy/health HTTP/1.1\r\nHost: x\r\n\r\n"
		for range 20 {
			if _, err := io.WriteString(raw, get); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
			if _, err := io.WriteString(raw, get); err != nil {
				t.Error(err)
				return
			}
			raw.SetReadDeadline(time.Now().Add(5 * time.Second))
			var all []byte
			buf := make([]byte, 4096)
			for strings.Count(string(all), "HTTP/1.1 200 OK") < 2 {
				n, err := raw.Read(buf)
				if err != nil {
					t.Errorf("pipelined: %v after %q", err, all)
					return
				}
				all = append(all, buf[:n]...)
			}
		}
	})
	wg.Wait()

	var skipped uint64
	mu.Lock()
	for _, qc := range conns {
		skipped += qc.skipped.Load()
	}
	mu.Unlock()
	if s.yields.Load() == 0 || skipped == 0 {
		t.Errorf("%d yields, %d background reads answered with nothing: want both", s.yields.Load(), skipped)
	}
}

// BenchmarkBackgroundRead is net/http's background read of a connection whose request
// yields (see Listener): started, given the core by the yield, then stopped as
// abortPendingRead stops it, by a deadline in the past when it has not ended yet. On a
// plain connection the read makes a system call that finds nothing and waits for the
// deadline.
func BenchmarkBackgroundRead(b *testing.B) {
	for _, quiet := range []bool{false, true} {
		name := "plain"
		if quiet {
			name = "quiet"
		}
		b.Run(name, func(b *testing.B) {
			qc, _ := quietPair(b)
			var c net.Conn = qc.Conn
			if quiet {
				c = qc
			}
			for b.Loop() {
				yielding(c, true)
				got := readOne(c)
				runtime.Gosched()
				yielding(c, false)
				select {
				case <-got:
				default:
					c.SetReadDeadline(time.Unix(1, 0))
					<-got
					c.SetReadDeadline(time.Time{})
				}
			}
		})
	}
}
