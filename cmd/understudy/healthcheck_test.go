package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

func TestHealthURL(t *testing.T) {
	for _, tt := range []struct {
		name, scheme, addr, want, err string
	}{
		{name: "every IPv4 interface", addr: "0.0.0.0:8080", want: "http://127.0.0.1:8080/_understudy/health"},
		{name: "every IPv6 interface", addr: "[::]:9000", want: "http://127.0.0.1:9000/_understudy/health"},
		{name: "no host", addr: ":8080", want: "http://127.0.0.1:8080/_understudy/health"},
		{name: "loopback", addr: "127.0.0.1:8080", want: "http://127.0.0.1:8080/_understudy/health"},
		{name: "one interface", addr: "10.1.2.3:80", want: "http://10.1.2.3:80/_understudy/health"},
		{name: "IPv6 loopback", addr: "[::1]:8080", want: "http://[::1]:8080/_understudy/health"},
		{name: "a name", addr: "localhost:8080", want: "http://localhost:8080/_understudy/health"},
		{name: "https", scheme: "https", addr: "0.0.0.0:8443", want: "https://127.0.0.1:8443/_understudy/health"},
		{name: "a free port", addr: "127.0.0.1:0", err: "needs the port itself"},
		{name: "no port", addr: "127.0.0.1", err: "missing port"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			scheme := tt.scheme
			if scheme == "" {
				scheme = "http"
			}
			got, err := healthURL(scheme, tt.addr)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("healthURL(%q) = %q, %v; want an error saying %q", tt.addr, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("healthURL(%q) = %q, %v; want %q", tt.addr, got, err, tt.want)
			}
		})
	}
}

// runHealthcheck runs the subcommand with args and env (name=value pairs), and returns its
// exit code and what it wrote.
func runHealthcheck(args []string, env ...string) (code int, stdout, stderr string) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	var out, errs strings.Builder
	code = healthcheck(args, func(k string) string { return vars[k] }, &out, &errs)
	return code, out.String(), errs.String()
}

func addrOf(url string) string {
	return strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
}

func TestHealthcheckAgainstTheServer(t *testing.T) {
	srv := understudytest.Start(t)
	addr := addrOf(srv.URL)
	if code, out, errs := runHealthcheck([]string{"--addr", addr}); code != 0 || out != "healthy\n" {
		t.Errorf("--addr %s: exit %d, %q %q; want 0, healthy", addr, code, out, errs)
	}
	// The container's way: the address from the environment.
	if code, _, errs := runHealthcheck(nil, "UNDERSTUDY_ADDR="+addr); code != 0 {
		t.Errorf("UNDERSTUDY_ADDR=%s: exit %d, %q; want 0", addr, code, errs)
	}
	// A flag wins over the environment, as for the server.
	if code, _, errs := runHealthcheck([]string{"--addr", addr}, "UNDERSTUDY_ADDR=127.0.0.1:1"); code != 0 {
		t.Errorf("--addr over UNDERSTUDY_ADDR: exit %d, %q; want 0", code, errs)
	}
	srv.Stop(t)
	if code, _, errs := runHealthcheck([]string{"--addr", addr}); code != 1 || !strings.Contains(errs, "understudy healthcheck:") {
		t.Errorf("stopped server: exit %d, %q; want 1 with the reason", code, errs)
	}
}

func TestHealthcheckWantsA200(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/_understudy/health" {
			http.NotFound(w, r)
			return
		}
		http.Error(w, `{"status":"Unavailable"}`, http.StatusServiceUnavailable)
	}))
	defer hs.Close()
	code, _, errs := runHealthcheck([]string{"--addr", addrOf(hs.URL)})
	if code != 1 || !strings.Contains(errs, "503") || !strings.Contains(errs, "Unavailable") {
		t.Errorf("503: exit %d, %q; want 1 naming the status and body", code, errs)
	}
}

func TestHealthcheckOverTLS(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithTLS())
	addr := addrOf(srv.URL)
	// As the server is told: https at once, its certificate not verified.
	if code, _, errs := runHealthcheck([]string{"--addr", addr, "--tls", "auto"}); code != 0 {
		t.Errorf("--tls auto: exit %d, %q; want 0", code, errs)
	}
	if code, _, errs := runHealthcheck(nil, "UNDERSTUDY_ADDR="+addr, "UNDERSTUDY_TLS=auto"); code != 0 {
		t.Errorf("UNDERSTUDY_TLS=auto: exit %d, %q; want 0", code, errs)
	}
	// Told nothing of TLS: the plain request gets net/http's 400, and the check asks again
	// over https.
	if code, _, errs := runHealthcheck([]string{"--addr", addr}); code != 0 {
		t.Errorf("TLS not given: exit %d, %q; want 0", code, errs)
	}
	// Told of TLS where there is none: no second try.
	plain := understudytest.Start(t)
	if code, _, errs := runHealthcheck([]string{"--addr", addrOf(plain.URL), "--tls", "auto"}); code != 1 {
		t.Errorf("--tls auto against plain HTTP: exit %d, %q; want 1", code, errs)
	}
}

func TestHealthcheckBadConfig(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  []string
		says string
	}{
		{name: "a free port", args: []string{"--addr", "127.0.0.1:0"}, says: "needs the port itself"},
		{name: "unknown flag", args: []string{"--nope"}, says: "not defined"},
		{name: "bad environment", env: []string{"UNDERSTUDY_LOG_LEVEL=loud"}, says: "log-level"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, _, errs := runHealthcheck(tt.args, tt.env...); code != 1 || !strings.Contains(errs, tt.says) {
				t.Errorf("exit %d, %q; want 1 saying %q", code, errs, tt.says)
			}
		})
	}
}
