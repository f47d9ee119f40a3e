package compute_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/option"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestVendorClientOverHTTPS: the vendor's client over HTTPS, given an endpoint and an HTTP
// client whose only root is the CA understudy made (its CAFile), with the token added as
// a program adds it (oauth2.Transport). It inserts a forwarding rule, waits for the
// operation and reads the rule back; every link points at the https URL.
func TestVendorClientOverHTTPS(t *testing.T) {
	vendorIsolate(t)
	srv := understudytest.Start(t, understudytest.WithTLS(), understudytest.WithConfig(func(c *server.Config) {
		c.Compute.Operations.Mode = operations.Mode{Delay: 300 * time.Millisecond}
	}))
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
	hc := &http.Client{Timeout: time.Minute, Transport: &oauth2.Transport{
		Source: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: vendorToken(vendorEmail), TokenType: "Bearer"}),
		Base:   tr,
	}}
	ctx := context.Background()
	svc, err := compute.NewService(ctx, option.WithEndpoint(srv.URL+"/compute/v1/"), option.WithHTTPClient(hc))
	if err != nil {
		t.Fatalf("compute.NewService: %v", err)
	}

	op, err := svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{
		Name: "fr-https", IPProtocol: "TCP", PortRange: "443-443", LoadBalancingScheme: "EXTERNAL_MANAGED", Target: vendorTarget,
	}).RequestId(vendorUUID(t)).Context(ctx).Do()
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if op.Status == "DONE" {
		t.Errorf("status DONE at once, want PENDING or RUNNING (300ms operations)")
	}
	if want := srv.URL + "/compute/v1/projects/" + vendorProject + "/global/operations/" + op.Name; op.SelfLink != want {
		t.Errorf("operation selfLink %q, want %q", op.SelfLink, want)
	}
	done := vendorWait(t, svc, op.Name)
	if done.Error != nil || done.User != vendorEmail {
		t.Errorf("operation: error %+v, user %q", done.Error, done.User)
	}

	rule, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-https").Context(ctx).Do()
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if !strings.HasPrefix(rule.SelfLink, srv.URL+"/compute/v1/") || rule.PortRange != "443-443" {
		t.Errorf("rule: selfLink %q, port range %q", rule.SelfLink, rule.PortRange)
	}
}
