package accounts_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestSDKOverHTTPS: stripe-go with an https backend URL and an HTTP client whose only root
// is the CA understudy made (its CAFile) creates an account and an account link; the link
// points at the https URL, and its hosted page opens there with a Secure session cookie.
func TestSDKOverHTTPS(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithTLS())
	pem, err := os.ReadFile(srv.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", srv.CAFile)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	httpClient := &http.Client{Timeout: 30 * time.Second, Transport: serviceVersionTransport{base: tr}}
	client := stripe.NewClient("sk_test_sdk4242", stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(srv.URL),
		HTTPClient:        httpClient,
		MaxNetworkRetries: stripe.Int64(0),
		EnableTelemetry:   stripe.Bool(false),
		LeveledLogger:     sdkLogger{t: t},
	})))
	ctx := context.Background()

	a, err := client.V2CoreAccounts.Create(ctx, recipientParams("Jenny Rosen"))
	if err != nil {
		t.Fatalf("create account: %v", err)
	}
	if !strings.HasPrefix(a.ID, "acct_") || a.DisplayName != "Jenny Rosen" {
		t.Errorf("account %s %q", a.ID, a.DisplayName)
	}
	l, err := client.V2CoreAccountLinks.Create(ctx, onboardingLinkParams(a.ID, "recipient"))
	if err != nil {
		t.Fatalf("create link: %v", err)
	}
	if prefix := srv.URL + "/r/" + a.ID + "/"; !strings.HasPrefix(l.URL, prefix) || len(l.URL) == len(prefix) {
		t.Fatalf("link URL %q, want %s<token>", l.URL, prefix)
	}

	resp, err := (&http.Client{Transport: tr}).Get(l.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("hosted page: %d %s %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	cookies := resp.Cookies()
	if len(cookies) == 0 || !cookies[0].Secure {
		t.Errorf("hosted page cookies %v, want a Secure session cookie", cookies)
	}
}
