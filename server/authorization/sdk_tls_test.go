package authorization_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestRoleAssignmentsSDKOverHTTPS drives the vendor's SDK against understudy over HTTPS, as
// it is used against the real service: without InsecureAllowCredentialWithHTTP, trusting
// only the CA understudy made (its CAFile). It creates, reads, lists (following nextLink,
// which points back at the https URL) and deletes role assignments.
func TestRoleAssignmentsSDKOverHTTPS(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithTLS(), understudytest.WithConfig(func(c *server.Config) {
		c.Authorization.PageSize = sdkPageSize
	}))
	assignments := newStrictSDKClient(t, srv.URL, srv.CAFile)
	ctx := context.Background()

	names := []string{
		"5e1c2b7a-3d4f-4a6b-8c9d-0e1f2a3b4c01",
		"5e1c2b7a-3d4f-4a6b-8c9d-0e1f2a3b4c02",
		"5e1c2b7a-3d4f-4a6b-8c9d-0e1f2a3b4c03",
	}
	for i, name := range names {
		resp, err := assignments.Create(ctx, sdkRGScope, name, sdkCreateParams(sdkSubPrincipal(100+i), "over HTTPS"), nil)
		if err != nil {
			t.Fatalf("Create %s: %v", name, err)
		}
		if got := sdkView(resp.RoleAssignment); got.Name != name || got.CreatedBy != sdkCaller || got.Description != "over HTTPS" {
			t.Errorf("created %+v", got)
		}
	}

	got, err := assignments.Get(ctx, sdkRGScope, names[0], nil)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if v := sdkView(got.RoleAssignment); v.Name != names[0] || v.PrincipalID != sdkSubPrincipal(100) {
		t.Errorf("Get: %+v", v)
	}

	// Three assignments, two per page: the pager follows an https nextLink.
	var listed []string
	pages := 0
	pager := assignments.NewListForScopePager(sdkRGScope, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("list page %d: %v", pages+1, err)
		}
		pages++
		if page.NextLink != nil && !strings.HasPrefix(*page.NextLink, srv.URL+"/") {
			t.Errorf("nextLink %s, want it under %s", *page.NextLink, srv.URL)
		}
		for _, ra := range page.Value {
			listed = append(listed, sdkDeref(ra.Name))
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, names) || pages != 2 {
		t.Errorf("listed %q in %d pages, want %q in 2", listed, pages, names)
	}

	for _, name := range names {
		if _, err := assignments.Delete(ctx, sdkRGScope, name, nil); err != nil {
			t.Fatalf("Delete %s: %v", name, err)
		}
	}
	_, err = assignments.Get(ctx, sdkRGScope, names[0], nil)
	sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")
}

// TestSDKRefusesATokenOverPlainHTTP: what the HTTPS test proves the SDK can do without.
// Over plain HTTP, the SDK sends no bearer token unless told InsecureAllowCredentialWithHTTP.
func TestSDKRefusesATokenOverPlainHTTP(t *testing.T) {
	srv := understudytest.Start(t)
	assignments := newStrictSDKClient(t, srv.URL, "")
	_, err := assignments.Get(context.Background(), sdkRGScope, "5e1c2b7a-3d4f-4a6b-8c9d-0e1f2a3b4c01", nil)
	if err == nil || !strings.Contains(err.Error(), "non-TLS") {
		t.Errorf("err = %v, want the SDK's refusal to send a credential without TLS", err)
	}
}

// newStrictSDKClient is the role assignments client for the server at baseURL as a
// program would make it against the real cloud, its endpoint aside: no
// InsecureAllowCredentialWithHTTP, and, when caFile is not "", an HTTP client whose only
// root is the CA in caFile. The namespace rename and the static token are newSDKEnv's.
func newStrictSDKClient(t *testing.T, baseURL, caFile string) *armauthorization.RoleAssignmentsClient {
	t.Helper()
	opts := &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: "https://login.understudy.local/",
				Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
					cloud.ResourceManager: {Endpoint: baseURL, Audience: "https://management.understudy.local"},
				},
			},
			Retry:           policy.RetryOptions{MaxRetries: -1},
			Telemetry:       policy.TelemetryOptions{Disabled: true},
			PerCallPolicies: []policy.Policy{sdkNamespacePolicy{}},
		},
		DisableRPRegistration: true,
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			t.Fatalf("%s holds no certificate", caFile)
		}
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}
		t.Cleanup(tr.CloseIdleConnections)
		opts.Transport = &http.Client{Transport: tr}
	}
	cred := sdkStaticToken(sdkUnsignedJWT(map[string]any{
		"aud": "https://management.understudy.local",
		"iss": fmt.Sprintf("https://login.understudy.local/%s/v2.0", sdkTenant),
		"tid": sdkTenant,
		"oid": sdkCaller,
	}))
	assignments, err := armauthorization.NewRoleAssignmentsClient(sdkSubscription, cred, opts)
	if err != nil {
		t.Fatalf("NewRoleAssignmentsClient: %v", err)
	}
	return assignments
}
