package understudytest_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
)

// azureRoleAssignments is an Azure role assignments client of understudy's at baseURL.
func azureRoleAssignments(baseURL, subscriptionID string) (*armauthorization.RoleAssignmentsClient, error) {
	opts := &arm.ClientOptions{
		ClientOptions: policy.ClientOptions{
			Cloud: cloud.Configuration{
				ActiveDirectoryAuthorityHost: "https://login.understudy.local/",
				Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
					cloud.ResourceManager: {Endpoint: baseURL, Audience: "https://management.understudy.local"},
				},
			},
			InsecureAllowCredentialWithHTTP: true, // not needed over HTTPS (--tls auto)
			PerCallPolicies:                 []policy.Policy{vendorNamespace{}},
		},
		DisableRPRegistration: true,
	}
	return armauthorization.NewRoleAssignmentsClient(subscriptionID, &azfake.TokenCredential{}, opts)
}

// vendorNamespace sends the SDK's Microsoft.Authorization requests to Vendor.Authorization.
type vendorNamespace struct{}

func (vendorNamespace) Do(req *policy.Request) (*http.Response, error) {
	u := req.Raw().URL
	u.Path = strings.ReplaceAll(u.Path, "Microsoft.Authorization", "Vendor.Authorization")
	u.RawPath = strings.ReplaceAll(u.RawPath, "Microsoft.Authorization", "Vendor.Authorization")
	if body := req.Body(); body != nil {
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		b = bytes.ReplaceAll(b, []byte("Microsoft.Authorization"), []byte("Vendor.Authorization"))
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), "application/json"); err != nil {
			return nil, err
		}
	}
	return req.Next()
}
