package main

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBinaryServesAndShutsDownCleanly builds and runs the real binary: it logs its address,
// answers health, logs requests without secrets, and exits 0 on SIGTERM.
func TestBinaryServesAndShutsDownCleanly(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatalf("no start-up line: %v", lines.Err())
	}
	var first struct{ Msg, Addr string }
	if err := json.Unmarshal(lines.Bytes(), &first); err != nil || first.Addr == "" || strings.HasSuffix(first.Addr, ":0") {
		t.Fatalf("start-up line %q should be JSON naming the chosen address (%v)", lines.Text(), err)
	}
	base := "http://" + first.Addr
	resp, err := http.Get(base + "/_understudy/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %v %v", err, resp)
	}
	resp.Body.Close()
	// The healthcheck subcommand, as a container's HEALTHCHECK runs it.
	if out, err := exec.Command(bin, "healthcheck", "--addr", first.Addr).CombinedOutput(); err != nil {
		t.Errorf("healthcheck of the running server: %v %s, want exit 0", err, out)
	}

	const secret = "super-secret-token-value"
	req, _ := http.NewRequest(http.MethodGet, base+"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for lines.Scan() {
		rest.WriteString(lines.Text() + "\n")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v, want 0\n%s", err, rest.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not exit after SIGTERM")
	}
	err = exec.Command(bin, "healthcheck", "--addr", first.Addr).Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("healthcheck of the stopped server: %v, want exit 1", err)
	}
	logs := rest.String()
	if !strings.Contains(logs, `"msg":"request"`) || !strings.Contains(logs, `"status":200`) {
		t.Errorf("no request log lines:\n%s", logs)
	}
	if strings.Contains(logs, secret) {
		t.Errorf("the bearer token was logged:\n%s", logs)
	}
	if !strings.Contains(logs, "stopped") {
		t.Errorf("no clean-stop line:\n%s", logs)
	}
	_ = os.Remove(bin)
}

// TestCPUProfileIsWrittenOnStop: with --cpu-profile the binary writes a profile of its run,
// complete (gzip-compressed, as pprof writes them) once it stops on SIGTERM.
func TestCPUProfileIsWrittenOnStop(t *testing.T) {
	bin := buildBinary(t)
	profile := filepath.Join(t.TempDir(), "cpu.pprof")
	p := startBinary(t, bin, "--cpu-profile", profile)
	defer p.kill(t)
	for range 20 {
		if resp, err := http.Get(p.base + "/_understudy/health"); err == nil {
			resp.Body.Close()
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v, want 0", err)
	}
	b, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile is not a gzip-compressed pprof profile: %d bytes", len(b))
	}
}

// TestVersionAndStartupURL: --version prints the version; the start-up line's url is a URL a
// client on this machine can use, also when the server listens on every interface (links
// then follow each request's host, which the line says).
func TestVersionAndStartupURL(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || string(out) != "understudy dev\n" {
		t.Errorf("--version: %q, %v; want \"understudy dev\"", out, err)
	}

	for _, tt := range []struct{ addr, wantHost, links string }{
		{"127.0.0.1:0", "127.0.0.1", ""},
		{"0.0.0.0:0", "localhost", "each request's own host"},
	} {
		cmd := exec.Command(bin, "--addr", tt.addr)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stderr)
		var first struct{ Addr, URL, Links string }
		if !lines.Scan() || json.Unmarshal(lines.Bytes(), &first) != nil {
			t.Fatalf("--addr %s: start-up line %q", tt.addr, lines.Text())
		}
		_, port, _ := net.SplitHostPort(first.Addr)
		if want := "http://" + tt.wantHost + ":" + port; first.URL != want || first.Links != tt.links {
			t.Errorf("--addr %s: url %q, links %q; want %q, %q", tt.addr, first.URL, first.Links, want, tt.links)
		}
		resp, err := http.Get(first.URL + "/_understudy/health")
		if err != nil {
			t.Errorf("--addr %s: health at the start-up line's url: %v", tt.addr, err)
		} else {
			resp.Body.Close()
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
}
