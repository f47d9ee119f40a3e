package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/localca"
)

// tlsProcess is a running binary serving HTTPS, and what its start-up line said.
type tlsProcess struct {
	cmd   *exec.Cmd
	start struct {
		Addr, URL string
		CAFile    string `json:"caFile"`
		TLSNote   string `json:"tlsNote"`
	}
}

// startTLSBinary runs bin on a free port with flags, and reads its start-up line.
func startTLSBinary(t *testing.T, bin string, flags ...string) *tlsProcess {
	t.Helper()
	p := &tlsProcess{cmd: exec.Command(bin, append([]string{"--addr", "127.0.0.1:0"}, flags...)...)}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatalf("no start-up line: %v", lines.Err())
	}
	if err := json.Unmarshal(lines.Bytes(), &p.start); err != nil || p.start.Addr == "" {
		t.Fatalf("start-up line %q (%v)", lines.Text(), err)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return p
}

// stop ends the process as SIGTERM does and wants it to exit 0.
func (p *tlsProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v, want 0", err)
	}
}

// trusting is an HTTP client whose only root is the CA in caFile; serverName, when not
// "", is the name it expects the server's certificate to have, wherever it connects.
func trusting(t *testing.T, caFile, serverName string) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", caFile)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serverName}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// getOK wants 200 from url, over TLS, and returns the body.
func getOK(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer any-token")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Fatalf("GET %s: %d (TLS %v) %s", url, resp.StatusCode, resp.TLS != nil, body)
	}
	return string(body)
}

// TestTLSAutoKeepsItsCA runs the binary with --tls auto: it serves HTTPS (HTTP/2 too) with
// a certificate that a client trusting only the CA file it logs accepts; with --data-dir
// the CA survives restarts, and a new --tls-hosts name only remakes the server
// certificate; without, the CA lives in a temporary directory removed at the stop.
func TestTLSAutoKeepsItsCA(t *testing.T) {
	bin := buildBinary(t)
	dataDir := t.TempDir()
	tlsDir := filepath.Join(dataDir, "tls")
	var caPEM, certPEM []byte

	t.Run("first start", func(t *testing.T) {
		p := startTLSBinary(t, bin, "--tls", "auto", "--data-dir", dataDir)
		if want := "https://" + p.start.Addr; p.start.URL != want {
			t.Errorf("url = %q, want %q", p.start.URL, want)
		}
		if want := filepath.Join(tlsDir, localca.CAFile); p.start.CAFile != want {
			t.Errorf("caFile = %q, want %q", p.start.CAFile, want)
		}
		if !strings.Contains(p.start.TLSNote, "made a new CA") {
			t.Errorf("tlsNote = %q, want it to say a new CA was made", p.start.TLSNote)
		}
		c := trusting(t, p.start.CAFile, "")
		resp, err := c.Get(p.start.URL + "/_understudy/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Proto != "HTTP/2.0" {
			t.Errorf("health: %d over %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto)
		}
		// Links point back at the https:// URL.
		list := getOK(t, c, p.start.URL+"/compute/v1/projects/my-project-123/global/forwardingRules")
		if !strings.Contains(list, `"selfLink":"`+p.start.URL+`/compute/v1/`) {
			t.Errorf("list %s, want a selfLink under %s", list, p.start.URL)
		}
		// Plain HTTP to the HTTPS port: net/http says what went wrong.
		resp, err = http.Get("http://" + p.start.Addr + "/_understudy/health")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTP request to an HTTPS server") {
			t.Errorf("plain HTTP: %d %q", resp.StatusCode, body)
		}
		for name, want := range map[string]os.FileMode{localca.CAKeyFile: 0o600, localca.KeyFile: 0o600, localca.CAFile: 0o644} {
			if fi, err := os.Stat(filepath.Join(tlsDir, name)); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v %v, want mode %v", name, fi.Mode().Perm(), err, want)
			}
		}
		p.stop(t)
		caPEM, certPEM = readFile(t, tlsDir, localca.CAFile), readFile(t, tlsDir, localca.CertFile)
	})

	t.Run("restart reuses the CA and the certificate", func(t *testing.T) {
		p := startTLSBinary(t, bin, "--tls", "auto", "--data-dir", dataDir)
		if !strings.Contains(p.start.TLSNote, "reused") {
			t.Errorf("tlsNote = %q, want it to say the files were reused", p.start.TLSNote)
		}
		getOK(t, trusting(t, p.start.CAFile, ""), p.start.URL+"/_understudy/health")
		p.stop(t)
		if !bytes.Equal(readFile(t, tlsDir, localca.CAFile), caPEM) || !bytes.Equal(readFile(t, tlsDir, localca.CertFile), certPEM) {
			t.Error("the CA or the server certificate changed")
		}
	})

	t.Run("a new host remakes only the server certificate", func(t *testing.T) {
		p := startTLSBinary(t, bin, "--tls", "auto", "--data-dir", dataDir, "--tls-hosts", "understudy.test")
		if !strings.Contains(p.start.TLSNote, "same CA") || !strings.Contains(p.start.TLSNote, "understudy.test") {
			t.Errorf("tlsNote = %q, want a new server certificate for understudy.test with the same CA", p.start.TLSNote)
		}
		// A client that trusted the CA before, reaching the server by its new name.
		getOK(t, trusting(t, p.start.CAFile, "understudy.test"), p.start.URL+"/_understudy/health")
		p.stop(t)
		if !bytes.Equal(readFile(t, tlsDir, localca.CAFile), caPEM) {
			t.Error("the CA changed")
		}
		if bytes.Equal(readFile(t, tlsDir, localca.CertFile), certPEM) {
			t.Error("the server certificate did not change")
		}
	})

	t.Run("without a data dir", func(t *testing.T) {
		p := startTLSBinary(t, bin, "--tls", "auto")
		if !strings.Contains(p.start.TLSNote, "--data-dir") || p.start.CAFile == "" {
			t.Errorf("caFile %q, tlsNote %q: want a CA file and a note that it changes at every start", p.start.CAFile, p.start.TLSNote)
		}
		getOK(t, trusting(t, p.start.CAFile, ""), p.start.URL+"/_understudy/health")
		p.stop(t)
		if _, err := os.Stat(filepath.Dir(p.start.CAFile)); !os.IsNotExist(err) {
			t.Errorf("the temporary directory %s is still there (%v)", filepath.Dir(p.start.CAFile), err)
		}
	})
}

// TestTLSCertAndKeyFiles: --tls-cert and --tls-key serve those files. A request net/http
// refuses itself gets its plain-text answer, over TLS as over plain HTTP, and the server
// goes on serving.
func TestTLSCertAndKeyFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := localca.Ensure(dir, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, localca.CAFile)
	addr := startServe(t, "--tls-cert", filepath.Join(dir, localca.CertFile), "--tls-key", filepath.Join(dir, localca.KeyFile))
	c := trusting(t, caFile, "")
	list := getOK(t, c, "https://"+addr+"/compute/v1/projects/my-project-123/global/forwardingRules")
	if !strings.Contains(list, `"selfLink":"https://`+addr+`/`) {
		t.Errorf("list %s: want a selfLink under https://%s", list, addr)
	}

	const malformed = "GET /compute/v1/projects/my-project-123/global/forwardingRules/%zz HTTP/1.1\r\nHost: x\r\n\r\n"
	pem, _ := os.ReadFile(caFile)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, malformed); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("malformed over TLS: %d %s %q, want net/http's plain-text 400", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	getOK(t, c, "https://"+addr+"/_understudy/health")

	plain := startServe(t)
	raw := dial(t, plain)
	defer raw.Close()
	_ = raw.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(raw, malformed); err != nil {
		t.Fatal(err)
	}
	resp, err = http.ReadResponse(bufio.NewReader(raw), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("malformed over plain HTTP: %d %s %q, want net/http's plain-text 400", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// TestTLSFilesThatCannotServeStopTheStart: a certificate that cannot be loaded is an error
// at start naming the flags, and the data dir is released.
func TestTLSFilesThatCannotServeStopTheStart(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")
	for range 2 { // the second start finds the data dir free
		cfg, err := Load([]string{"--addr", "127.0.0.1:0", "--data-dir", dataDir, "--tls-cert", cert, "--tls-key", key}, func(string) string { return "" }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		err = serve(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
		if err == nil || !strings.Contains(err.Error(), "--tls-cert and --tls-key") || strings.Contains(err.Error(), "in use") {
			t.Fatalf("serve: %v, want an error naming --tls-cert and --tls-key", err)
		}
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
