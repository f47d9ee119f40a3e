package authorization_test

// This file drives the authorization API with the vendor's own Go SDK for role assignments
// (armauthorization/v2, whose RoleAssignmentsClient speaks api-version 2022-04-01). The SDK
// talks about Microsoft.Authorization; a pipeline policy renames the namespace to
// Vendor.Authorization in the URL path and the JSON body on the way out, and otherwise the
// requests are exactly what the SDK sends (scopes with raw slashes, its own query strings,
// its own paging through nextLink).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/understudytest"
)

const (
	sdkSubscription = "5b0c3a3e-8f7d-4c55-9a61-0d2a1e6c7b14"
	sdkTenant       = "9e1f2d3c-4b5a-4678-8912-3456789abcde"
	// sdkCaller is the oid claim of the token the SDK sends: it must come back as createdBy.
	sdkCaller = "c3a1b2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"

	sdkPrincipal1 = "11111111-aaaa-4bbb-8ccc-000000000001"
	sdkPrincipal2 = "22222222-aaaa-4bbb-8ccc-000000000002"

	sdkReaderGUID = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

	sdkMSNamespace     = "Microsoft.Authorization"
	sdkVendorNamespace = "Vendor.Authorization"

	// sdkPageSize is the server's page size in this test, small so that the SDK's pagers
	// have to follow nextLink.
	sdkPageSize = 2
)

var (
	sdkSubScope      = "subscriptions/" + sdkSubscription
	sdkRGScope       = sdkSubScope + "/resourceGroups/rg-sdk"
	sdkResourceScope = sdkRGScope + "/providers/Microsoft.Storage/storageAccounts/acct1"

	// sdkReaderIDAsSent is how a client names the Reader role (the policy renames the
	// namespace in the body); sdkReaderIDAsStored is how the server always returns it.
	sdkReaderIDAsSent   = "/" + sdkSubScope + "/providers/" + sdkMSNamespace + "/roleDefinitions/" + sdkReaderGUID
	sdkReaderIDAsStored = "/providers/" + sdkVendorNamespace + "/roleDefinitions/" + sdkReaderGUID

	sdkBuiltInRoles = map[string]string{
		"8e3af657-a8ff-443c-a75c-2fe8c4bcb635": "Owner",
		"b24988ac-6180-42a0-ab88-20f7382dd24c": "Contributor",
		sdkReaderGUID:                          "Reader",
		"18d7d88d-d35e-4fb5-a5c3-7773c20a72d9": "User Access Administrator",
		"f58310d9-a9f6-439a-9e8d-f62e7b41a168": "Role Based Access Control Administrator",
		"7f951dda-4ed3-4680-a7ca-43fe172d538d": "AcrPull",
		"ba92f5b4-2d11-453d-a403-e96b0029c9fe": "Storage Blob Data Contributor",
		"4633458b-17de-408a-b874-0445c86b69e6": "Key Vault Secrets User",
	}
)

func TestRoleAssignmentsSDK(t *testing.T) {
	clock := &sdkClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Now = clock.Now
		c.Authorization.PageSize = sdkPageSize
	}))
	sdk := newSDKEnv(t, srv.URL)
	ctx := context.Background()

	const (
		nameRG       = "0a3c1f52-7e9b-4d21-8f60-3b5e9c2d1a01" // Reader for principal 1 at rg-sdk
		nameDup      = "0a3c1f52-7e9b-4d21-8f60-3b5e9c2d1a02" // same triple, other name: refused
		nameResource = "0a3c1f52-7e9b-4d21-8f60-3b5e9c2d1a03" // Reader for principal 2 at acct1
		nameMissing  = "0a3c1f52-7e9b-4d21-8f60-3b5e9c2d1aff"
	)
	createdAt := clock.Now()
	updatedAt := createdAt.Add(time.Minute)

	// wantRG is the rg-level assignment as the server should return it after the update.
	wantRG := sdkAssignment{
		ID:               "/" + sdkRGScope + "/providers/" + sdkVendorNamespace + "/roleAssignments/" + nameRG,
		Name:             nameRG,
		Type:             sdkVendorNamespace + "/roleAssignments",
		Scope:            "/" + sdkRGScope,
		RoleDefinitionID: sdkReaderIDAsStored,
		PrincipalID:      sdkPrincipal1,
		PrincipalType:    "User",
		Description:      "read access, first version",
		CreatedBy:        sdkCaller,
		UpdatedBy:        sdkCaller,
		CreatedOn:        sdkTime(createdAt),
		UpdatedOn:        sdkTime(createdAt),
	}
	var createdID string

	t.Run("CreateAtResourceGroup", func(t *testing.T) {
		resp, err := sdk.assignments.Create(ctx, sdkRGScope, nameRG, sdkCreateParams(sdkPrincipal1, wantRG.Description), nil)
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
		if got := sdkView(resp.RoleAssignment); got != wantRG {
			t.Errorf("created assignment:\n got %+v\nwant %+v", got, wantRG)
		}
		createdID = sdkDeref(resp.ID)

		// The SDK sends the scope raw, slashes and all; the policy only renamed the namespace.
		wantPath := "/" + sdkRGScope + "/providers/" + sdkVendorNamespace + "/roleAssignments/" + nameRG
		if got := sdk.rec.last().Path; got != wantPath {
			t.Errorf("request path on the wire: got %q, want %q", got, wantPath)
		}
	})

	t.Run("UpdateSameName", func(t *testing.T) {
		clock.Set(updatedAt)
		wantRG.Description = "read access, second version"
		wantRG.UpdatedOn = sdkTime(updatedAt)
		resp, err := sdk.assignments.Create(ctx, sdkRGScope, nameRG, sdkCreateParams(sdkPrincipal1, wantRG.Description), nil)
		if err != nil {
			t.Fatalf("Create (update): %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusOK)
		if got := sdkView(resp.RoleAssignment); got != wantRG {
			t.Errorf("updated assignment:\n got %+v\nwant %+v", got, wantRG)
		}
	})

	t.Run("SameTripleNewName", func(t *testing.T) {
		_, err := sdk.assignments.Create(ctx, sdkRGScope, nameDup, sdkCreateParams(sdkPrincipal1, "duplicate"), nil)
		sdkWantError(t, err, http.StatusConflict, "RoleAssignmentExists")
	})

	t.Run("Get", func(t *testing.T) {
		resp, err := sdk.assignments.Get(ctx, sdkRGScope, nameRG, nil)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got := sdkView(resp.RoleAssignment); got != wantRG {
			t.Errorf("Get:\n got %+v\nwant %+v", got, wantRG)
		}
	})

	t.Run("GetMissing", func(t *testing.T) {
		_, err := sdk.assignments.Get(ctx, sdkRGScope, nameMissing, nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")
	})

	t.Run("GetByID", func(t *testing.T) {
		if createdID == "" {
			t.Skip("no id: CreateAtResourceGroup failed")
		}
		resp, err := sdk.assignments.GetByID(ctx, createdID, nil)
		if err != nil {
			t.Fatalf("GetByID(%q): %v", createdID, err)
		}
		if got := sdkView(resp.RoleAssignment); got != wantRG {
			t.Errorf("GetByID:\n got %+v\nwant %+v", got, wantRG)
		}
	})

	wantResource := sdkAssignment{
		ID:               "/" + sdkResourceScope + "/providers/" + sdkVendorNamespace + "/roleAssignments/" + nameResource,
		Name:             nameResource,
		Type:             sdkVendorNamespace + "/roleAssignments",
		Scope:            "/" + sdkResourceScope,
		RoleDefinitionID: sdkReaderIDAsStored,
		PrincipalID:      sdkPrincipal2,
		PrincipalType:    "User",
		Description:      "reader on one storage account",
		CreatedBy:        sdkCaller,
		UpdatedBy:        sdkCaller,
		CreatedOn:        sdkTime(updatedAt),
		UpdatedOn:        sdkTime(updatedAt),
	}

	t.Run("CreateAtResourceScope", func(t *testing.T) {
		resp, err := sdk.assignments.Create(ctx, sdkResourceScope, nameResource, sdkCreateParams(sdkPrincipal2, wantResource.Description), nil)
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
		if got := sdkView(resp.RoleAssignment); got != wantResource {
			t.Errorf("created assignment:\n got %+v\nwant %+v", got, wantResource)
		}
		// Microsoft.Storage belongs to the scope and must reach the server untouched.
		wantPath := "/" + sdkResourceScope + "/providers/" + sdkVendorNamespace + "/roleAssignments/" + nameResource
		if got := sdk.rec.last().Path; got != wantPath {
			t.Errorf("request path on the wire: got %q, want %q", got, wantPath)
		}

		got, err := sdk.assignments.Get(ctx, sdkResourceScope, nameResource, nil)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got := sdkView(got.RoleAssignment); got != wantResource {
			t.Errorf("Get:\n got %+v\nwant %+v", got, wantResource)
		}
	})

	// Five more principals, each Reader on the whole subscription.
	var subNames []string
	t.Run("CreateMore", func(t *testing.T) {
		for i := range 5 {
			name := fmt.Sprintf("7d2e4f60-1b3c-4a5d-9e8f-%012d", i+1)
			resp, err := sdk.assignments.Create(ctx, sdkSubScope, name, sdkCreateParams(sdkSubPrincipal(i+1), ""), nil)
			if err != nil {
				t.Fatalf("Create %s: %v", name, err)
			}
			if got, want := sdkDeref(resp.Properties.Scope), "/"+sdkSubScope; got != want {
				t.Errorf("Create %s: scope got %q, want %q", name, got, want)
			}
			subNames = append(subNames, name)
		}
	})

	t.Run("List", func(t *testing.T) {
		if len(subNames) != 5 {
			t.Skip("CreateMore failed")
		}
		all := append([]string{nameRG, nameResource}, subNames...)
		atRG := append([]string{nameRG}, subNames...)
		// The SDK copies Filter into the query string unescaped (the REST spec marks $filter
		// x-ms-skip-url-encoding), so a filter with spaces must be escaped by the caller, as
		// against the real service (Azure/azure-sdk-for-go#20847): sent raw, the space ends
		// the HTTP request line and any server answers 400.
		tests := []struct {
			name   string
			scope  string
			filter string // as given to the SDK
			want   []string
		}{
			{"subscription, no filter: at and below", sdkSubScope, "", all},
			{"resource group, no filter: at, above and below", sdkRGScope, "", all},
			{"resource group, atScope(): at and above", sdkRGScope, "atScope()", atRG},
			{"resource, atScope(): at and above", sdkResourceScope, "atScope()", all},
			{"subscription, principal 1", sdkSubScope, url.QueryEscape("principalId eq '" + sdkPrincipal1 + "'"), []string{nameRG}},
			{"subscription, principal 2", sdkSubScope, url.QueryEscape("principalId eq '" + sdkPrincipal2 + "'"), []string{nameResource}},
			{"resource group, assignedTo principal 2", sdkRGScope, "assignedTo('" + sdkPrincipal2 + "')", []string{nameResource}},
			{"resource group, atScope() and assignedTo: that principal above", sdkRGScope, url.QueryEscape("atScope() and assignedTo('" + sdkSubPrincipal(1) + "')"), subNames[:1]},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				var opts *armauthorization.RoleAssignmentsClientListForScopeOptions
				if tc.filter != "" {
					opts = &armauthorization.RoleAssignmentsClientListForScopeOptions{Filter: to.Ptr(tc.filter)}
				}
				pager := sdk.assignments.NewListForScopePager(tc.scope, opts)
				var got []string
				pages := 0
				for pager.More() {
					page, err := pager.NextPage(ctx)
					if err != nil {
						t.Fatalf("page %d: %v", pages+1, err)
					}
					pages++
					if n := len(page.Value); n > sdkPageSize {
						t.Errorf("page %d has %d assignments, want at most %d", pages, n, sdkPageSize)
					}
					for _, ra := range page.Value {
						got = append(got, sdkDeref(ra.Name))
						if ra.Name != nil && *ra.Name == nameRG {
							if v := sdkView(*ra); v != wantRG {
								t.Errorf("listed assignment:\n got %+v\nwant %+v", v, wantRG)
							}
						}
					}
				}
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tc.want))
				if !slices.Equal(got, want) {
					t.Errorf("listed names:\n got %v\nwant %v", got, want)
				}
				if wantPages := (len(tc.want) + sdkPageSize - 1) / sdkPageSize; pages < wantPages {
					t.Errorf("pages: got %d, want at least %d", pages, wantPages)
				}
			})
		}
	})

	t.Run("InvalidCondition", func(t *testing.T) {
		params := sdkCreateParams("44444444-aaaa-4bbb-8ccc-000000000001", "bad condition")
		params.Properties.Condition = to.Ptr("@Resource[x:y] StringEquals")
		params.Properties.ConditionVersion = to.Ptr("2.0")
		_, err := sdk.assignments.Create(ctx, sdkRGScope, "0a3c1f52-7e9b-4d21-8f60-3b5e9c2d1a04", params, nil)
		sdkWantError(t, err, http.StatusBadRequest, "InvalidRoleAssignmentCondition")
	})

	t.Run("Delete", func(t *testing.T) {
		resp, err := sdk.assignments.Delete(ctx, sdkRGScope, nameRG, nil)
		if err != nil {
			t.Fatalf("Delete: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusOK)
		if got := sdkView(resp.RoleAssignment); got != wantRG {
			t.Errorf("deleted assignment:\n got %+v\nwant %+v", got, wantRG)
		}

		// Deleting again is not an error: 204 and an empty RoleAssignment.
		resp, err = sdk.assignments.Delete(ctx, sdkRGScope, nameRG, nil)
		if err != nil {
			t.Fatalf("second Delete: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusNoContent)
		if got := sdkView(resp.RoleAssignment); got != (sdkAssignment{}) {
			t.Errorf("second Delete returned %+v, want an empty assignment", got)
		}

		_, err = sdk.assignments.Get(ctx, sdkRGScope, nameRG, nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")
	})

	t.Run("RoleDefinitionGet", func(t *testing.T) {
		resp, err := sdk.definitions.Get(ctx, sdkSubScope, sdkReaderGUID, nil)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		got := [...]string{sdkDeref(resp.ID), sdkDeref(resp.Name), sdkDeref(resp.Type), "", ""}
		if p := resp.Properties; p != nil {
			got[3], got[4] = sdkDeref(p.RoleName), sdkDeref(p.RoleType)
		}
		want := [...]string{sdkReaderIDAsStored, sdkReaderGUID, sdkVendorNamespace + "/roleDefinitions", "Reader", "BuiltInRole"}
		if got != want {
			t.Errorf("role definition (id, name, type, roleName, roleType):\n got %q\nwant %q", got, want)
		}
	})

	t.Run("RoleDefinitionList", func(t *testing.T) {
		pager := sdk.definitions.NewListPager(sdkSubScope, nil)
		got := map[string]string{}
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("NextPage: %v", err)
			}
			for _, rd := range page.Value {
				if rd.Properties != nil {
					got[sdkDeref(rd.Name)] = sdkDeref(rd.Properties.RoleName)
				}
			}
		}
		for guid, name := range sdkBuiltInRoles {
			if got[guid] != name {
				t.Errorf("role definition %s: got name %q, want %q", guid, got[guid], name)
			}
		}
	})

	t.Run("RoleDefinitionListByType", func(t *testing.T) {
		// The filter az and PowerShell send to list custom roles only (ARM's
		// RoleDefinitionFilter); the seed has none, so the built-in catalog is all there is.
		// The scope "" is the tenant root, as the custom-roles REST doc lists a tenant's.
		for _, scope := range []string{sdkSubScope, ""} {
			// Every built-in role is listed at the root; in a subscription, those assignable
			// at "/" (not the few the vendor makes assignable under a provider only).
			builtIns := len(authorization.BuiltInRoles())
			if scope != "" {
				builtIns = 0
				for _, r := range authorization.BuiltInRoles() {
					if slices.Contains(r.AssignableScopes, "/") {
						builtIns++
					}
				}
			}
			for filter, want := range map[string]int{"type eq 'CustomRole'": 0, "type eq 'BuiltInRole'": builtIns} {
				pager := sdk.definitions.NewListPager(scope, &armauthorization.RoleDefinitionsClientListOptions{Filter: to.Ptr(filter)})
				n := 0
				for pager.More() {
					page, err := pager.NextPage(ctx)
					if err != nil {
						t.Fatalf("scope %q, %s: NextPage: %v", scope, filter, err)
					}
					n += len(page.Value)
				}
				if n != want {
					t.Errorf("scope %q, %s: %d role definitions, want %d", scope, filter, n, want)
				}
			}
		}
	})

	t.Run("RawScopesOnTheWire", func(t *testing.T) {
		// Every scope the SDK sent went out with raw slashes, never %2F.
		raw := false
		for _, ex := range sdk.rec.all() {
			if strings.Contains(strings.ToLower(ex.Path), "%2f") {
				t.Errorf("%s %s: scope slashes escaped", ex.Method, ex.Path)
			}
			if strings.HasPrefix(ex.Path, "/"+sdkRGScope+"/") {
				raw = true
			}
		}
		if !raw {
			t.Errorf("no request went to a raw /%s/... path", sdkRGScope)
		}
	})
}

// sdkEnv holds SDK clients wired to an understudy server.
type sdkEnv struct {
	assignments *armauthorization.RoleAssignmentsClient
	definitions *armauthorization.RoleDefinitionsClient
	permissions *armauthorization.PermissionsClient
	denies      *armauthorization.DenyAssignmentsClient
	rec         *sdkRecorder
}

// newSDKEnv builds the SDK clients for the server at baseURL: its cloud configuration, a static
// token whose oid is sdkCaller, no retries, the namespace rename and a recorder.
func newSDKEnv(t *testing.T, baseURL string) *sdkEnv {
	t.Helper()
	return newSDKEnvWith(t, baseURL)
}

// newSDKEnvWith is newSDKEnv with more per-call policies after the namespace rename.
func newSDKEnvWith(t *testing.T, baseURL string, more ...policy.Policy) *sdkEnv {
	t.Helper()
	rec := &sdkRecorder{}
	opts, cred := sdkClientOptions(baseURL, rec, more...), sdkCredential()
	assignments, err := armauthorization.NewRoleAssignmentsClient(sdkSubscription, cred, opts)
	if err != nil {
		t.Fatalf("NewRoleAssignmentsClient: %v", err)
	}
	definitions, err := armauthorization.NewRoleDefinitionsClient(cred, opts)
	if err != nil {
		t.Fatalf("NewRoleDefinitionsClient: %v", err)
	}
	permissions, err := armauthorization.NewPermissionsClient(sdkSubscription, cred, opts)
	if err != nil {
		t.Fatalf("NewPermissionsClient: %v", err)
	}
	denies, err := armauthorization.NewDenyAssignmentsClient(sdkSubscription, cred, opts)
	if err != nil {
		t.Fatalf("NewDenyAssignmentsClient: %v", err)
	}
	return &sdkEnv{assignments: assignments, definitions: definitions, permissions: permissions, denies: denies, rec: rec}
}

// sdkClientOptions are the client options of newSDKEnvWith, for any version of the SDK: the
// server's cloud configuration, no retries, the namespace rename, then more, then rec.
func sdkClientOptions(baseURL string, rec *sdkRecorder, more ...policy.Policy) *arm.ClientOptions {
	return &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: "https://login.understudy.local/",
				Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
					cloud.ResourceManager: {Endpoint: baseURL, Audience: "https://management.understudy.local"},
				},
			},
			InsecureAllowCredentialWithHTTP: true, // the test server is plain http
			Retry:                           policy.RetryOptions{MaxRetries: -1},
			Telemetry:                       policy.TelemetryOptions{Disabled: true},
			PerCallPolicies:                 append([]policy.Policy{sdkNamespacePolicy{}}, more...),
			PerRetryPolicies:                []policy.Policy{rec},
		},
		DisableRPRegistration: true,
	}
}

// sdkCredential is the static token of newSDKEnv: its oid is sdkCaller.
func sdkCredential() sdkStaticToken {
	return sdkStaticToken(sdkUnsignedJWT(map[string]any{
		"aud": "https://management.understudy.local",
		"iss": "https://login.understudy.local/" + sdkTenant + "/v2.0",
		"tid": sdkTenant,
		"oid": sdkCaller,
	}))
}

// sdkSubPrincipal is the principal of the i-th (from 1) subscription-level assignment.
func sdkSubPrincipal(i int) string { return fmt.Sprintf("33333333-aaaa-4bbb-8ccc-%012d", i) }

func sdkCreateParams(principal, description string) armauthorization.RoleAssignmentCreateParameters {
	p := armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		RoleDefinitionID: to.Ptr(sdkReaderIDAsSent),
		PrincipalID:      to.Ptr(principal),
		PrincipalType:    to.Ptr(armauthorization.PrincipalTypeUser),
	}}
	if description != "" {
		p.Properties.Description = to.Ptr(description)
	}
	return p
}

// sdkAssignment is a role assignment flattened to comparable strings.
type sdkAssignment struct {
	ID, Name, Type                             string
	Scope, RoleDefinitionID, PrincipalID       string
	PrincipalType, Description                 string
	Condition, ConditionVersion                string
	CreatedBy, UpdatedBy, CreatedOn, UpdatedOn string
	DelegatedManagedIdentityResourceID         string
}

func sdkView(ra armauthorization.RoleAssignment) sdkAssignment {
	v := sdkAssignment{ID: sdkDeref(ra.ID), Name: sdkDeref(ra.Name), Type: sdkDeref(ra.Type)}
	if p := ra.Properties; p != nil {
		v.Scope, v.RoleDefinitionID, v.PrincipalID = sdkDeref(p.Scope), sdkDeref(p.RoleDefinitionID), sdkDeref(p.PrincipalID)
		v.PrincipalType, v.Description = string(sdkDeref(p.PrincipalType)), sdkDeref(p.Description)
		v.Condition, v.ConditionVersion = sdkDeref(p.Condition), sdkDeref(p.ConditionVersion)
		v.CreatedBy, v.UpdatedBy = sdkDeref(p.CreatedBy), sdkDeref(p.UpdatedBy)
		if p.CreatedOn != nil {
			v.CreatedOn = sdkTime(*p.CreatedOn)
		}
		if p.UpdatedOn != nil {
			v.UpdatedOn = sdkTime(*p.UpdatedOn)
		}
		v.DelegatedManagedIdentityResourceID = sdkDeref(p.DelegatedManagedIdentityResourceID)
	}
	return v
}

func sdkTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func sdkDeref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// sdkWantError checks that err is the SDK's *azcore.ResponseError with this status and
// error code.
func sdkWantError(t *testing.T, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %d %s", status, code)
	}
	var respErr *azcore.ResponseError
	if !errors.As(err, &respErr) {
		t.Fatalf("got error %T %v, want *azcore.ResponseError", err, err)
	}
	if respErr.StatusCode != status || respErr.ErrorCode != code {
		t.Errorf("got %d %s, want %d %s\n%v", respErr.StatusCode, respErr.ErrorCode, status, code, err)
	}
}

// sdkNamespacePolicy renames Microsoft.Authorization to Vendor.Authorization in the request
// path and JSON body; everything else goes out as the SDK made it.
type sdkNamespacePolicy struct{}

func (sdkNamespacePolicy) Do(req *policy.Request) (*http.Response, error) {
	u := req.Raw().URL
	u.Path = strings.ReplaceAll(u.Path, sdkMSNamespace, sdkVendorNamespace)
	if u.RawPath != "" {
		u.RawPath = strings.ReplaceAll(u.RawPath, sdkMSNamespace, sdkVendorNamespace)
	}
	if body := req.Body(); body != nil {
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		b = bytes.ReplaceAll(b, []byte(sdkMSNamespace), []byte(sdkVendorNamespace))
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), req.Raw().Header.Get("Content-Type")); err != nil {
			return nil, err
		}
	}
	return req.Next()
}

// sdkExchange is one request as it went on the wire, with the status that came back.
type sdkExchange struct {
	Method string
	Path   string // the escaped path as sent, e.g. /subscriptions/…/roleAssignments/…
	Status int
}

// sdkRecorder is a per-retry policy that logs every exchange.
type sdkRecorder struct {
	mu  sync.Mutex
	log []sdkExchange
}

func (r *sdkRecorder) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	ex := sdkExchange{Method: req.Raw().Method, Path: req.Raw().URL.EscapedPath()}
	if resp != nil {
		ex.Status = resp.StatusCode
	}
	r.mu.Lock()
	r.log = append(r.log, ex)
	r.mu.Unlock()
	return resp, err
}

func (r *sdkRecorder) all() []sdkExchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

func (r *sdkRecorder) last() sdkExchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.log) == 0 {
		return sdkExchange{}
	}
	return r.log[len(r.log)-1]
}

func (r *sdkRecorder) wantLast(t *testing.T, method string, status int) {
	t.Helper()
	if got := r.last(); got.Method != method || got.Status != status {
		t.Errorf("last exchange: got %s %d, want %s %d (%s)", got.Method, got.Status, method, status, got.Path)
	}
}

// sdkStaticToken is an azcore.TokenCredential that always returns the same token.
type sdkStaticToken string

func (s sdkStaticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(s), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// sdkUnsignedJWT is a compact JWT with these claims and no signature.
func sdkUnsignedJWT(claims map[string]any) string {
	enc := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT"})
	payload, _ := json.Marshal(claims)
	return enc.EncodeToString(header) + "." + enc.EncodeToString(payload) + "."
}

// sdkClock is the server's clock, set by the test.
type sdkClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *sdkClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *sdkClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
