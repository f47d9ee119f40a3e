// Package localca makes a local certificate authority and a server certificate signed by
// it, keeps both in a directory as PEM files, and reuses them while they serve: so that
// understudy can serve HTTPS to clients that trust one file (the CA's), on a laptop or a CI
// runner, with no tool besides the Go standard library.
//
// Ensure reuses the CA while it is valid for more than RenewBefore, and the server
// certificate while it is valid for as long, was signed by that CA and names every host
// asked for. Otherwise it makes the one that does not serve, and only that one: a server
// certificate remade for a new host is signed by the same CA, so clients that trust the CA
// keep working.
package localca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The files Ensure keeps in its directory. The keys are written readable by their owner
// only (0600).
const (
	CAFile    = "ca.pem"     // the CA's certificate: what clients trust
	CAKeyFile = "ca-key.pem" // the CA's private key (PKCS #8)
	CertFile  = "cert.pem"   // the server's certificate
	KeyFile   = "key.pem"    // the server's private key (PKCS #8)
)

// CAName is the common name of the CA Ensure makes.
const CAName = "understudy local CA"

const (
	// CALifetime is how long a new CA is valid: long enough that a developer trusts it once.
	CALifetime = 10 * 365 * 24 * time.Hour
	// CertLifetime is how long a new server certificate is valid (or less, when the CA ends
	// sooner): within the 398 days browsers accept.
	CertLifetime = 365 * 24 * time.Hour
	// RenewBefore: a CA or server certificate valid for less than this is made anew, so
	// that a server started now does not stop being trusted while it runs.
	RenewBefore = 30 * 24 * time.Hour
	// backdate is how far before now certificates start, for clocks slightly behind ours.
	backdate = time.Hour
)

// DefaultHosts are the names every server certificate Ensure makes is valid for.
var DefaultHosts = []string{"localhost", "127.0.0.1", "::1"}

// Result is what Ensure found or made.
type Result struct {
	// CAFile is the path of the CA's certificate: what clients should trust.
	CAFile string
	// CA is the CA's certificate.
	CA *x509.Certificate
	// Certificate is the server's certificate and key, ready for tls.Config.Certificates
	// (its Leaf set).
	Certificate tls.Certificate
	// MadeCA and MadeCert say what Ensure made rather than reused; Why says why, one
	// sentence each ("the CA in DIR/ca.pem expires on 2027-01-02").
	MadeCA, MadeCert bool
	Why              []string
}

// Ensure returns the CA and server certificate kept in dir, made first where they are
// missing or do not serve (see the package documentation). The server certificate is valid
// for DefaultHosts and hosts (DNS names, wildcards such as *.example.test, or IP addresses;
// see CheckHost). dir is created (0700) if it does not exist. A file that exists but cannot
// be read (permissions) is an error; one that cannot be parsed is replaced.
func Ensure(dir string, hosts []string, now time.Time) (*Result, error) {
	for _, h := range hosts {
		if err := CheckHost(h); err != nil {
			return nil, err
		}
	}
	hosts = withDefaults(hosts)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("TLS files: %w", err)
	}
	res := &Result{CAFile: filepath.Join(dir, CAFile)}

	ca, caKey, why, err := loadCA(dir, now)
	if err != nil {
		return nil, err
	}
	if ca == nil {
		res.MadeCA, res.Why = true, append(res.Why, why)
		if ca, caKey, err = newCA(dir, now); err != nil {
			return nil, err
		}
	}
	res.CA = ca

	cert, why, err := loadCert(dir, ca, hosts, now)
	if err != nil {
		return nil, err
	}
	if cert == nil {
		res.MadeCert = true
		if !res.MadeCA {
			res.Why = append(res.Why, why)
		}
		if cert, err = newCert(dir, ca, caKey, hosts, now); err != nil {
			return nil, err
		}
	}
	res.Certificate = *cert
	return res, nil
}

// CheckHost reports whether h can be named by a server certificate: an IP address, or a DNS
// name (ASCII letters, digits, '-' and '_', dot-separated, perhaps starting with "*.").
func CheckHost(h string) error {
	if net.ParseIP(h) != nil {
		return nil
	}
	bad := fmt.Errorf("TLS host %q: want a DNS name (such as understudy.internal or *.example.test) or an IP address, without scheme or port", h)
	name := strings.TrimPrefix(h, "*.")
	if name == "" || len(name) > 253 {
		return bad
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return bad
		}
		for _, r := range label {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
				return bad
			}
		}
	}
	return nil
}

// withDefaults is DefaultHosts and then hosts, each once (names in lower case).
func withDefaults(hosts []string) []string {
	all := slices.Clone(DefaultHosts)
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			h = ip.String()
		} else {
			h = strings.ToLower(h)
		}
		if !slices.Contains(all, h) {
			all = append(all, h)
		}
	}
	return all
}

// loadCA reads the CA kept in dir. It returns a nil certificate, and why, when there is
// none that serves.
func loadCA(dir string, now time.Time) (*x509.Certificate, crypto.Signer, string, error) {
	certPath, keyPath := filepath.Join(dir, CAFile), filepath.Join(dir, CAKeyFile)
	certPEM, keyPEM, missing, err := readPair(certPath, keyPath)
	if err != nil || missing != "" {
		return nil, nil, fmt.Sprintf("there was no CA (%s is missing)", missing), err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Sprintf("the CA in %s could not be used with its key %s (%v)", certPath, keyPath, err), nil
	}
	ca := pair.Leaf
	signer, ok := pair.PrivateKey.(crypto.Signer)
	switch {
	case !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 || !ok:
		return nil, nil, fmt.Sprintf("%s is not a CA certificate", certPath), nil
	case now.Before(ca.NotBefore):
		return nil, nil, fmt.Sprintf("the CA in %s is not valid before %s", certPath, ca.NotBefore.UTC().Format(time.DateOnly)), nil
	case ca.NotAfter.Sub(now) < RenewBefore:
		return nil, nil, fmt.Sprintf("the CA in %s expires on %s", certPath, ca.NotAfter.UTC().Format(time.DateOnly)), nil
	}
	return ca, signer, "", nil
}

// loadCert reads the server certificate kept in dir. It returns nil, and why, when there
// is none that serves hosts and was signed by ca.
func loadCert(dir string, ca *x509.Certificate, hosts []string, now time.Time) (*tls.Certificate, string, error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	certPEM, keyPEM, missing, err := readPair(certPath, keyPath)
	if err != nil || missing != "" {
		return nil, fmt.Sprintf("there was no server certificate (%s is missing)", missing), err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Sprintf("the server certificate in %s could not be used with its key %s (%v)", certPath, keyPath, err), nil
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	leaf := pair.Leaf
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return nil, fmt.Sprintf("the server certificate in %s is not valid with the CA in %s (%v)", certPath, CAFile, err), nil
	}
	if leaf.NotAfter.Sub(now) < RenewBefore {
		return nil, fmt.Sprintf("the server certificate in %s expires on %s", certPath, leaf.NotAfter.UTC().Format(time.DateOnly)), nil
	}
	for _, h := range hosts {
		if !names(leaf, h) {
			return nil, fmt.Sprintf("the server certificate in %s does not name %s", certPath, h), nil
		}
	}
	return &pair, "", nil
}

// names reports whether cert lists host (as withDefaults spells it) among its names.
func names(cert *x509.Certificate, host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		return slices.ContainsFunc(cert.IPAddresses, ip.Equal)
	}
	return slices.ContainsFunc(cert.DNSNames, func(n string) bool { return strings.EqualFold(n, host) })
}

// readPair reads a certificate and its key. missing names the first of the two that does
// not exist ("" when both do).
func readPair(certPath, keyPath string) (certPEM, keyPEM []byte, missing string, err error) {
	if certPEM, err = os.ReadFile(certPath); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, certPath, nil
	} else if err != nil {
		return nil, nil, "", fmt.Errorf("TLS files: %w", err)
	}
	if keyPEM, err = os.ReadFile(keyPath); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, keyPath, nil
	} else if err != nil {
		return nil, nil, "", fmt.Errorf("TLS files: %w", err)
	}
	return certPEM, keyPEM, "", nil
}

// newCA makes a CA (ECDSA P-256), writes it to dir and returns it.
func newCA(dir string, now time.Time) (*x509.Certificate, crypto.Signer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: CAName, Organization: []string{"understudy"}},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(CALifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true, // it signs server certificates only, no intermediate CA
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	if err := writePair(dir, CAFile, CAKeyFile, der, key); err != nil {
		return nil, nil, err
	}
	return ca, key, nil
}

// newCert makes a server certificate for hosts signed by ca, writes it to dir and returns it.
func newCert(dir string, ca *x509.Certificate, caKey crypto.Signer, hosts []string, now time.Time) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: hosts[0], Organization: []string{"understudy"}},
		NotBefore:    now.Add(-backdate),
		NotAfter:     now.Add(CertLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if tmpl.NotAfter.After(ca.NotAfter) {
		tmpl.NotAfter = ca.NotAfter // a certificate cannot outlive its CA
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	if err := writePair(dir, CertFile, KeyFile, der, key); err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// serialNumber is a random 128-bit serial number, as CAs use.
func serialNumber() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
}

// writePair writes a certificate (0644) and its key (0600) into dir, each replaced whole
// (written aside, then renamed), the key first: a crash between the two leaves a pair that
// does not match, which the next Ensure replaces.
func writePair(dir, certName, keyName string, der []byte, key *ecdsa.PrivateKey) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := writeFile(dir, keyName, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return err
	}
	return writeFile(dir, certName, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

// writeFile replaces dir/name with data: written to a new file, synced, then renamed over it.
func writeFile(dir, name string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(dir, name+".*")
	if err != nil {
		return fmt.Errorf("TLS files: %w", err)
	}
	tmp := f.Name()
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("TLS files: %w", err)
	}
	return nil
}
