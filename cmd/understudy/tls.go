package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/localca"
)

// TLSOptions say whether and how the server serves HTTPS (--tls, --tls-cert, --tls-key,
// --tls-hosts). The zero value serves plain HTTP.
type TLSOptions struct {
	// Auto serves a certificate signed by a local CA that the server makes and keeps (see
	// internal/localca) in the data dir's tls directory, or in a temporary one.
	Auto bool
	// CertFile and KeyFile, both given or neither, serve that certificate.
	CertFile, KeyFile string
	// Hosts are what Auto's certificate names besides localhost, 127.0.0.1 and ::1.
	Hosts []string
}

// On reports whether the server serves HTTPS.
func (o TLSOptions) On() bool { return o.Auto || o.CertFile != "" }

// scheme is the scheme of the server's URL.
func (o TLSOptions) scheme() string {
	if o.On() {
		return "https"
	}
	return "http"
}

// set reads --tls (mode) and --tls-hosts (hosts) into o, whose files --tls-cert and
// --tls-key have set, and checks that they go together.
func (o *TLSOptions) set(mode, hosts string) error {
	switch mode {
	case "off":
	case "auto":
		o.Auto = true
	default:
		return fmt.Errorf("--tls %q: want auto or off", mode)
	}
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if err := localca.CheckHost(h); err != nil {
			return fmt.Errorf("--tls-hosts: %w", err)
		}
		o.Hosts = append(o.Hosts, h)
	}
	switch {
	case (o.CertFile == "") != (o.KeyFile == ""):
		return errors.New("--tls-cert and --tls-key go together: give both, the certificate and its private key, or neither")
	case o.Auto && o.CertFile != "":
		return errors.New("--tls auto makes its own certificate: give either it or --tls-cert and --tls-key, not both")
	case len(o.Hosts) > 0 && !o.Auto:
		return errors.New("--tls-hosts names hosts for the certificate that --tls auto makes: give --tls auto too")
	}
	return nil
}

// load returns what the server serves HTTPS with (nil: plain HTTP), attributes for the
// start-up line (the CA file's path, with auto), and what to do once the server has
// stopped. dataDir is --data-dir: auto keeps its files in its tls directory, or, without
// one, in a temporary directory removed at the stop.
func (o TLSOptions) load(dataDir string, now time.Time) (cfg *tls.Config, attrs []any, cleanup func(), err error) {
	cleanup = func() {}
	var cert tls.Certificate
	switch {
	case o.CertFile != "":
		if cert, err = tls.LoadX509KeyPair(o.CertFile, o.KeyFile); err != nil {
			return nil, nil, cleanup, fmt.Errorf("--tls-cert and --tls-key: %w", err)
		}
		attrs = []any{"tls", "files", "certFile", o.CertFile}
	case o.Auto:
		dir, note := filepath.Join(dataDir, "tls"), ""
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs // the logged path works from any directory
		}
		if dataDir == "" {
			if dir, err = os.MkdirTemp("", "understudy-tls-"); err != nil {
				return nil, nil, cleanup, fmt.Errorf("--tls auto: %w", err)
			}
			cleanup = func() { _ = os.RemoveAll(dir) }
			note = "without --data-dir the CA is made anew at every start and removed at the stop: give --data-dir to keep it"
		}
		res, err := localca.Ensure(dir, o.Hosts, now)
		if err != nil {
			cleanup()
			return nil, nil, func() {}, fmt.Errorf("--tls auto: %w", err)
		}
		if note == "" {
			switch why := strings.Join(res.Why, "; "); {
			case res.MadeCA:
				note = "made a new CA, which clients must be given (" + why + ")"
			case res.MadeCert:
				note = "made a new server certificate with the same CA (" + why + ")"
			default:
				note = "reused the CA and the server certificate"
			}
		}
		cert = res.Certificate
		attrs = []any{"tls", "auto", "caFile", res.CAFile, "tlsNote", note}
	default:
		return nil, nil, cleanup, nil
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, attrs, cleanup, nil
}
