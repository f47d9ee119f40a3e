package localca

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var start = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func TestEnsureMakesACAAndAServerCertificate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	res, err := Ensure(dir, []string{"understudy.test", "10.0.0.7", "*.sandbox.test"}, start)
	if err != nil {
		t.Fatal(err)
	}
	if !res.MadeCA || !res.MadeCert || res.CAFile != filepath.Join(dir, CAFile) {
		t.Errorf("result = %+v, want a new CA and certificate, the CA in %s", res, filepath.Join(dir, CAFile))
	}
	ca := res.CA
	if ca.Subject.CommonName != CAName || !ca.IsCA || ca.NotAfter.Sub(start) < 9*365*24*time.Hour {
		t.Errorf("CA: %s, CA %v, until %v", ca.Subject, ca.IsCA, ca.NotAfter)
	}
	if _, ok := ca.PublicKey.(*ecdsa.PublicKey); !ok || ca.PublicKey.(*ecdsa.PublicKey).Curve != elliptic.P256() {
		t.Errorf("CA key %T, want ECDSA P-256", ca.PublicKey)
	}
	leaf := res.Certificate.Leaf
	if got, want := leaf.DNSNames, []string{"localhost", "understudy.test", "*.sandbox.test"}; !slices.Equal(got, want) {
		t.Errorf("DNS names %q, want %q", got, want)
	}
	var ips []string
	for _, ip := range leaf.IPAddresses {
		ips = append(ips, ip.String())
	}
	if want := []string{"127.0.0.1", "::1", "10.0.0.7"}; !slices.Equal(ips, want) {
		t.Errorf("IP addresses %q, want %q", ips, want)
	}
	if !slices.Equal(leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}) || leaf.NotAfter.After(start.Add(CertLifetime)) || leaf.NotAfter.Before(start.Add(CertLifetime-time.Hour)) {
		t.Errorf("server certificate: usages %v, until %v", leaf.ExtKeyUsage, leaf.NotAfter)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, host := range []string{"localhost", "127.0.0.1", "::1", "understudy.test", "10.0.0.7", "api.sandbox.test"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, CurrentTime: start}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	for name, want := range map[string]os.FileMode{CAFile: 0o644, CAKeyFile: 0o600, CertFile: 0o644, KeyFile: 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("%d files in %s, want the 4 (no temporary ones left)", len(entries), dir)
	}
}

func TestEnsureReusesWhatServes(t *testing.T) {
	dir := t.TempDir()
	first, err := Ensure(dir, []string{"understudy.test"}, start)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, certPEM := read(t, dir, CAFile), read(t, dir, CertFile)

	tests := []struct {
		name             string
		hosts            []string
		now              time.Time
		madeCA, madeCert bool
		why              string
	}{
		{name: "the same hosts, a day later", hosts: []string{"understudy.test"}, now: start.Add(24 * time.Hour)},
		{name: "fewer hosts", now: start.Add(24 * time.Hour)},
		{name: "the same host spelt in capitals", hosts: []string{"Understudy.TEST"}, now: start},
		{name: "a new host", hosts: []string{"understudy.test", "other.test"}, now: start, madeCert: true, why: "does not name other.test"},
		{name: "a server certificate about to expire", now: start.Add(CertLifetime - RenewBefore + time.Hour), madeCert: true, why: "expires on"},
		{name: "a CA about to expire", now: start.Add(CALifetime - RenewBefore + time.Hour), madeCA: true, madeCert: true, why: "the CA in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := t.TempDir()
			for _, name := range []string{CAFile, CAKeyFile, CertFile, KeyFile} {
				if err := os.WriteFile(filepath.Join(d, name), read(t, dir, name), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Ensure(d, tt.hosts, tt.now)
			if err != nil {
				t.Fatal(err)
			}
			if res.MadeCA != tt.madeCA || res.MadeCert != tt.madeCert {
				t.Fatalf("made CA %v, certificate %v; want %v, %v (%q)", res.MadeCA, res.MadeCert, tt.madeCA, tt.madeCert, res.Why)
			}
			if tt.why != "" && (len(res.Why) != 1 || !strings.Contains(res.Why[0], tt.why)) {
				t.Errorf("why = %q, want one reason mentioning %q", res.Why, tt.why)
			}
			if !tt.madeCA && !bytes.Equal(read(t, d, CAFile), caPEM) {
				t.Error("the CA changed")
			}
			if !tt.madeCA && !res.CA.Equal(first.CA) {
				t.Error("the CA returned is not the one kept")
			}
			if !tt.madeCert && !bytes.Equal(read(t, d, CertFile), certPEM) {
				t.Error("the server certificate changed")
			}
			// Whatever was made, what is served is valid with what is in ca.pem.
			ca, err := x509.ParseCertificate(pemBlock(t, read(t, d, CAFile)))
			if err != nil {
				t.Fatal(err)
			}
			roots := x509.NewCertPool()
			roots.AddCert(ca)
			if _, err := res.Certificate.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost", CurrentTime: tt.now}); err != nil {
				t.Errorf("the server certificate is not valid with ca.pem: %v", err)
			}
		})
	}
}

func TestEnsureReplacesDamagedFiles(t *testing.T) {
	tests := []struct {
		name             string
		damage           string // the file overwritten
		madeCA, madeCert bool
	}{
		{name: "CA certificate", damage: CAFile, madeCA: true, madeCert: true},
		{name: "CA key", damage: CAKeyFile, madeCA: true, madeCert: true},
		{name: "server certificate", damage: CertFile, madeCert: true},
		{name: "server key", damage: KeyFile, madeCert: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Ensure(dir, nil, start); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tt.damage), []byte("not PEM"), 0o600); err != nil {
				t.Fatal(err)
			}
			res, err := Ensure(dir, nil, start)
			if err != nil {
				t.Fatal(err)
			}
			if res.MadeCA != tt.madeCA || res.MadeCert != tt.madeCert || len(res.Why) != 1 {
				t.Errorf("made CA %v, certificate %v (%q); want %v, %v and one reason", res.MadeCA, res.MadeCert, res.Why, tt.madeCA, tt.madeCert)
			}
		})
	}

	t.Run("a server certificate from another CA", func(t *testing.T) {
		dir, other := t.TempDir(), t.TempDir()
		if _, err := Ensure(dir, nil, start); err != nil {
			t.Fatal(err)
		}
		if _, err := Ensure(other, nil, start); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{CertFile, KeyFile} {
			if err := os.WriteFile(filepath.Join(dir, name), read(t, other, name), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Ensure(dir, nil, start)
		if err != nil {
			t.Fatal(err)
		}
		if res.MadeCA || !res.MadeCert || len(res.Why) != 1 || !strings.Contains(res.Why[0], "not valid with the CA") {
			t.Errorf("made CA %v, certificate %v (%q); want a new certificate from the same CA", res.MadeCA, res.MadeCert, res.Why)
		}
	})
}

func TestEnsureRefusesBadHosts(t *testing.T) {
	for _, h := range []string{"", "host:8443", "https://host", "a b", "*.", "a..b", "[::1]", "ünïcode.test"} {
		if _, err := Ensure(t.TempDir(), []string{h}, start); err == nil {
			t.Errorf("%q: no error", h)
		}
	}
	for _, h := range []string{"host", "under_score.test", "*.example.test", "10.1.2.3", "fd00::1"} {
		if err := CheckHost(h); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
}

func TestEnsureCannotReadIsAnError(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := t.TempDir()
	if _, err := Ensure(dir, nil, start); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, CAKeyFile), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(dir, nil, start); err == nil || !strings.Contains(err.Error(), CAKeyFile) {
		t.Errorf("err = %v, want one naming %s", err, CAKeyFile)
	}
}

// TestAClientTrustingOnlyTheCAConnects: a Go client whose only root is the CA reaches a
// server serving the certificate, at 127.0.0.1 and at localhost.
func TestAClientTrustingOnlyTheCAConnects(t *testing.T) {
	res, err := Ensure(t.TempDir(), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{res.Certificate}}
	srv.StartTLS()
	defer srv.Close()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(read(t, filepath.Dir(res.CAFile), CAFile)) {
		t.Fatal("ca.pem holds no certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	defer client.CloseIdleConnections()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, host := range []string{"127.0.0.1", "localhost"} {
		resp, err := client.Get("https://" + net.JoinHostPort(host, port) + "/")
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		resp.Body.Close()
	}
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pemBlock(t *testing.T, b []byte) []byte {
	t.Helper()
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatal("no PEM block")
	}
	return block.Bytes
}
