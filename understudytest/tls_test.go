package understudytest_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/client"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestWithTLS: the server answers HTTPS, with HTTP/2; the ready clients, the admin client
// and HTTPClient trust it; links point back at https://; a client that trusts only CAFile
// connects, and one that trusts the system's roots does not.
func TestWithTLS(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithTLS(), understudytest.WithOperationMode("immediate"))
	ctx := context.Background()
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Fatalf("URL = %s, want https://127.0.0.1:port", srv.URL)
	}

	_, err := client.CheckARM(srv.Authorization.RoleAssignmentsCreateWithResponse(ctx, "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg", "b0f43c54-e787-4862-89b1-a653fa9cf747",
		&authzgen.RoleAssignmentsCreateParams{ApiVersion: client.AuthorizationAPIVersion},
		authzgen.RoleAssignmentCreateParameters{Properties: authzgen.RoleAssignmentProperties{
			PrincipalId: "ce2ce14e-85d7-4629-bdbc-454d0519d987", RoleDefinitionId: "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := client.CheckAccounts(srv.Accounts.CreateAccountWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(
		`{"display_name":"Jenny","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	link, err := client.CheckAccounts(srv.Accounts.CreateAccountLinkWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(
		`{"account":"`+acct.JSON200.Id+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/r","return_url":"https://example.com/done"}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link.JSON200.Url, srv.URL+"/r/") {
		t.Errorf("link URL %s, want it under %s/r/", link.JSON200.Url, srv.URL)
	}
	op, err := client.CheckCompute(srv.Compute.GlobalForwardingRulesInsertWithResponse(ctx, "my-project-123", nil, computegen.ForwardingRule{Name: "fr-tls"}))
	if err != nil {
		t.Fatal(err)
	}
	if self := op.JSON200.SelfLink; self == nil || !strings.HasPrefix(*self, srv.URL+"/compute/v1/") {
		t.Errorf("selfLink %v, want it under %s", self, srv.URL)
	}
	srv.AdvanceClock(t, 1) // the admin client
	srv.Reset(t)

	resp, err := srv.HTTPClient().Get(srv.URL + "/_understudy/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil || resp.Proto != "HTTP/2.0" {
		t.Errorf("health: %d over %s (TLS %v), want 200 over HTTP/2 with TLS", resp.StatusCode, resp.Proto, resp.TLS != nil)
	}

	pem, err := os.ReadFile(srv.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", srv.CAFile)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
	defer tr.CloseIdleConnections()
	localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	if resp, err := (&http.Client{Transport: tr}).Get(localhost + "/_understudy/health"); err != nil {
		t.Errorf("trusting only CAFile, at localhost: %v", err)
	} else {
		resp.Body.Close()
	}

	plain := &http.Transport{}
	defer plain.CloseIdleConnections()
	_, err = (&http.Client{Transport: plain}).Get(srv.URL + "/_understudy/health")
	var ua x509.UnknownAuthorityError
	if !errors.As(err, &ua) {
		t.Errorf("a client with the system's roots: %v, want an unknown authority", err)
	}
}

// TestWithoutTLS: without WithTLS, nothing changes: plain HTTP, no CA file.
func TestWithoutTLS(t *testing.T) {
	srv := understudytest.Start(t)
	if !strings.HasPrefix(srv.URL, "http://") || srv.CAFile != "" {
		t.Fatalf("URL %s, CA file %q; want http:// and none", srv.URL, srv.CAFile)
	}
	resp, err := srv.HTTPClient().Get(srv.URL + "/_understudy/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS != nil {
		t.Errorf("health: %d (TLS %v)", resp.StatusCode, resp.TLS != nil)
	}
}

// TestSSLCertFile: a Go program whose SSL_CERT_FILE is the server's CA file trusts it (on
// Linux, where Go reads its roots from that file), and without it does not: what docs/tls.md
// says of `SSL_CERT_FILE=ca.pem go test`.
func TestSSLCertFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Go reads SSL_CERT_FILE on Linux and the other Unix systems but macOS")
	}
	srv := understudytest.Start(t, understudytest.WithTLS())
	bin := filepath.Join(t.TempDir(), "sslcertfile")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/sslcertfile").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	get := func(env ...string) error {
		cmd := exec.Command(bin, srv.URL+"/_understudy/health")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	if err := get("SSL_CERT_FILE=" + srv.CAFile); err != nil {
		t.Errorf("with SSL_CERT_FILE=%s: %v", srv.CAFile, err)
	}
	if err := get("SSL_CERT_FILE=" + filepath.Join(t.TempDir(), "none.pem")); err == nil {
		t.Error("with an SSL_CERT_FILE that holds no CA, the program trusted the server")
	}
}
