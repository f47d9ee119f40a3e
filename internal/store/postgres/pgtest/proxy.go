package pgtest

import (
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/understudy-dev/understudy/internal/store/postgres"
)

// Proxy stands between servers and the test cluster, so that a test can take the database
// away (Down: connections refused, open ones cut, as while it restarts) or make it stop
// answering (Silent: connections accepted, nothing forwarded), without stopping the
// cluster other tests use.
type Proxy struct {
	t      testing.TB
	target string // network address of the cluster: "unix:/path" or a host:port
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
	silent bool
}

// NewProxy starts a proxy to the test cluster (skipping t when there is none) and returns
// it with the URL of schema through it. The proxy stops when t ends.
func NewProxy(t testing.TB, schema string) (*Proxy, string) {
	t.Helper()
	base := Base(t)
	cfg, err := pgconn.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	target := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		target = "unix:" + cfg.Host + "/.s.PGSQL." + strconv.Itoa(int(cfg.Port))
	}
	p := &Proxy{t: t, target: target, addr: "127.0.0.1:0"}
	p.Up()
	t.Cleanup(p.Down)
	u := url.URL{Scheme: "postgres", Host: p.addr, Path: "/" + cfg.Database,
		RawQuery: url.Values{"sslmode": {"disable"}, "search_path": {schema}}.Encode()}
	u.User = url.User(cfg.User)
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	}
	return p, u.String()
}

// ProxiedURL makes a schema no other test uses, dropped when t ends, and a Proxy to it
// (NewProxy): it returns the proxy, the schema's URL through it and its direct URL.
func ProxiedURL(t testing.TB) (p *Proxy, proxied, direct string) {
	t.Helper()
	schema := NewSchema()
	direct, err := postgres.WithSchema(Base(t), schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Drop(direct) })
	p, proxied = NewProxy(t, schema)
	return p, proxied, direct
}

// Up serves connections again, on the same address.
func (p *Proxy) Up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			p.conns = append(p.conns, c)
			silent := p.silent
			p.mu.Unlock()
			if silent {
				continue // accepted, never answered
			}
			network, addr := "tcp", p.target
			if a, ok := strings.CutPrefix(addr, "unix:"); ok {
				network, addr = "unix", a
			}
			s, err := net.Dial(network, addr)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
}

// Down refuses new connections and cuts the open ones.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Silent makes the connections Up accepts from now on never answered (a host gone from the
// network), or answered again.
func (p *Proxy) Silent(silent bool) {
	p.mu.Lock()
	p.silent = silent
	p.mu.Unlock()
}
