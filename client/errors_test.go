package client_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/understudy-dev/understudy/client"
	"github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/understudytest"
)

// specChecked is an HTTP client that fails t when a response does not match spec.
func specChecked(t *testing.T, spec func() (*openapi3.T, error)) client.Option {
	t.Helper()
	doc, err := spec()
	if err != nil {
		t.Fatal(err)
	}
	return client.WithHTTPClient(&http.Client{Transport: spectest.Transport(t, doc, nil)})
}

func TestARMErrorFromTheServer(t *testing.T) {
	srv := understudytest.Start(t)
	c, err := client.NewAuthorization(srv.URL, client.WithBearerToken("tok"), specChecked(t, authorization.GetSpec))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.CheckARM(c.RoleAssignmentsGetWithResponse(ctx, testScope, testName, &authorization.RoleAssignmentsGetParams{ApiVersion: client.AuthorizationAPIVersion}))
	var e *client.ARMError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *client.ARMError", err, err)
	}
	if resp == nil || resp.StatusCode() != http.StatusNotFound {
		t.Errorf("the response is not returned with the error")
	}
	if e.StatusCode != 404 || e.Code != "RoleAssignmentNotFound" || !strings.Contains(e.Message, testName) || len(e.Body) == 0 {
		t.Errorf("error = %+v", e)
	}
	if got, want := e.Error(), "authorization: 404 RoleAssignmentNotFound: The role assignment '"+testName+"' is not found."; got != want {
		t.Errorf("Error()\n got %s\nwant %s", got, want)
	}

	// A request the validator rejects names its target.
	_, err = client.CheckARM(c.RoleAssignmentsCreateWithResponse(ctx, testScope, testName, &authorization.RoleAssignmentsCreateParams{ApiVersion: client.AuthorizationAPIVersion},
		authorization.RoleAssignmentCreateParameters{Properties: authorization.RoleAssignmentProperties{PrincipalId: "not-a-guid", RoleDefinitionId: "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}))
	if !errors.As(err, &e) || e.StatusCode != 400 || e.Target == "" {
		t.Errorf("bad principal: %v (%+v)", err, e)
	}
}

func TestAccountsErrorFromTheServer(t *testing.T) {
	srv := understudytest.Start(t)
	const badKey = "sk_test_bad-key-5678"
	c, err := client.NewAccounts(srv.URL, client.WithAPIKey(badKey), specChecked(t, accounts.GetSpec))
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.CheckAccounts(c.CreateAccountWithResponse(ctx, nil, accounts.CreateAccountRequest{}))
	var e *client.AccountsError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *client.AccountsError", err, err)
	}
	if e.StatusCode != 401 || e.Type != "invalid_request_error" || e.Code != "" || !strings.HasPrefix(e.RequestID, "req_") || len(e.Body) == 0 {
		t.Errorf("error = %+v", e)
	}
	if !strings.Contains(e.Message, "sk_test_****5678") || strings.Contains(err.Error(), badKey) {
		t.Errorf("the key is not masked: %s", err)
	}
	if got, want := e.Error(), "accounts: 401 invalid_request_error: Invalid API Key provided: sk_test_****5678 (request "+e.RequestID+")"; got != want {
		t.Errorf("Error()\n got %s\nwant %s", got, want)
	}

	// With a code: a link for an account that does not exist.
	c, err = client.NewAccounts(srv.URL, client.WithAPIKey(testKey), specChecked(t, accounts.GetSpec))
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.CheckAccounts(c.CreateAccountLinkWithResponse(ctx, nil, accounts.CreateAccountLinkRequest{Account: "acct_nope",
		UseCase: accounts.AccountLinkUseCaseParams{Type: accounts.AccountLinkUseCaseTypeAccountOnboarding, AccountOnboarding: &accounts.AccountLinkFlowParams{
			Configurations: []accounts.ConfigurationType{accounts.ConfigurationTypeRecipient}, RefreshUrl: "https://example.com/refresh"}}}))
	if !errors.As(err, &e) || e.StatusCode != 404 || e.Code != "not_found" || !strings.Contains(e.Error(), "accounts: 404 invalid_request_error/not_found: ") {
		t.Errorf("unknown account: %v (%+v)", err, e)
	}
}

func TestComputeErrorFromTheServer(t *testing.T) {
	srv := understudytest.Start(t) // operations finish at once
	c, err := client.NewCompute(srv.URL, client.WithBearerToken("tok"), specChecked(t, compute.GetSpec))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CheckCompute(c.GlobalForwardingRulesInsertWithResponse(ctx, "my-project-123", nil, compute.ForwardingRule{Name: "fr-web"})); err != nil {
		t.Fatal(err)
	}
	labels := compute.Labels{"env": "prod"}
	resp, err := client.CheckCompute(c.GlobalForwardingRulesSetLabelsWithResponse(ctx, "my-project-123", "fr-web", nil,
		compute.GlobalSetLabelsRequest{Labels: &labels, LabelFingerprint: []byte("stale!!!")}))
	var e *client.ComputeError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *client.ComputeError", err, err)
	}
	if resp.JSON412 == nil {
		t.Errorf("the response is not returned with the error")
	}
	if e.StatusCode != 412 || e.Reason != "conditionNotMet" || e.Location != "If-Match" || e.LocationType != "header" || len(e.Body) == 0 {
		t.Errorf("error = %+v", e)
	}
	if got, want := e.Error(), "compute: 412 conditionNotMet: Labels fingerprint either invalid or resource labels have changed (header If-Match)"; got != want {
		t.Errorf("Error()\n got %s\nwant %s", got, want)
	}
}

func TestCheckPassesTransportErrorsThrough(t *testing.T) {
	boom := errors.New("boom")
	if _, err := client.CheckARM((*authorization.RoleAssignmentsGetResponse)(nil), boom); err != boom {
		t.Errorf("CheckARM: %v", err)
	}
	if _, err := client.CheckAccounts((*accounts.RetrieveAccountResponse)(nil), boom); err != boom {
		t.Errorf("CheckAccounts: %v", err)
	}
	if _, err := client.CheckCompute((*compute.GlobalOperationsGetResponse)(nil), boom); err != boom {
		t.Errorf("CheckCompute: %v", err)
	}

	rs := newRecordingServer(t)
	c, err := client.NewCompute(rs.URL)
	if err != nil {
		t.Fatal(err)
	}
	rs.Close()
	_, err = client.CheckCompute(c.GlobalOperationsGetWithResponse(ctx, "p", "op", nil))
	var e *client.ComputeError
	if err == nil || errors.As(err, &e) {
		t.Errorf("a closed server: err = %v, want a transport error", err)
	}
}

func TestCheckSuccessIsNoError(t *testing.T) {
	rs := newRecordingServer(t) // answers 200 {}
	c, err := client.NewAccounts(rs.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.CheckAccounts(c.RetrieveAccountWithResponse(ctx, "acct_1", nil))
	if err != nil || resp.StatusCode() != 200 {
		t.Errorf("got %v %v", resp, err)
	}
}

func TestErrorsFromOtherBodies(t *testing.T) {
	// What a proxy in front of the server might answer: not the API's envelope.
	html := []byte("<html><body>502 Bad Gateway</body></html>\n")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"ARM, HTML", client.NewARMError(502, html), "authorization: 502: <html><body>502 Bad Gateway</body></html>"},
		{"ARM, empty", client.NewARMError(503, nil), "authorization: 503: Service Unavailable"},
		{"ARM, other JSON", client.NewARMError(400, []byte(`{"message":"x"}`)), `authorization: 400: {"message":"x"}`},
		{"accounts, HTML", client.NewAccountsError(502, http.Header{"Request-Id": {"req_1"}}, html), "accounts: 502: <html><body>502 Bad Gateway</body></html> (request req_1)"},
		{"accounts, empty", client.NewAccountsError(500, nil, nil), "accounts: 500: Internal Server Error"},
		{"compute, HTML", client.NewComputeError(502, html), "compute: 502: <html><body>502 Bad Gateway</body></html>"},
		{"compute, empty", client.NewComputeError(504, []byte("  ")), "compute: 504: Gateway Timeout"},
		{"long bodies are cut", client.NewComputeError(500, []byte(strings.Repeat("é", 300))), "compute: 500: " + strings.Repeat("é", 256) + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error()\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestARMErrorWithDetails(t *testing.T) {
	body := []byte(`{"error":{"code":"InvalidRoleAssignmentCondition","message":"The given role assignment condition is invalid.","target":"properties.condition",
		"details":[{"code":"InvalidCondition","message":"unexpected token","target":"properties.condition"}]}}`)
	e := client.NewARMError(400, body)
	if len(e.Details) != 1 || e.Details[0].Code != "InvalidCondition" || e.Details[0].Target != "properties.condition" {
		t.Errorf("details = %+v", e.Details)
	}
	want := "authorization: 400 InvalidRoleAssignmentCondition: The given role assignment condition is invalid. (target properties.condition) [InvalidCondition: unexpected token (target properties.condition)]"
	if got := e.Error(); got != want {
		t.Errorf("Error()\n got %s\nwant %s", got, want)
	}
}

func TestAccountsErrorFields(t *testing.T) {
	body := []byte(`{"error":{"type":"idempotency_error","code":null,"message":"Keys for idempotent requests can only be used with the same parameters.","user_message":"Try again.","doc_url":"https://docs.example/idempotency"}}`)
	e := client.NewAccountsError(400, nil, body)
	if e.Type != "idempotency_error" || e.Code != "" || e.UserMessage != "Try again." || e.DocURL != "https://docs.example/idempotency" || e.RequestID != "" {
		t.Errorf("error = %+v", e)
	}
}
