package server

import "testing"

// TestOwnerOf: which API answers a path is decided from its prefix alone, once; a path no
// prefix claims as sent goes to the API it was meant for once its start is tidied, and any
// other to the authorization API, whose ARM scopes start at the root.
func TestOwnerOf(t *testing.T) {
	for _, tt := range []struct {
		path string
		want api
	}{
		{"/_understudy/health", apiAdmin},
		{"/v2/core/accounts", apiAccounts},
		{"/r/acct_1/tok", apiAccounts},
		{"/r/../../etc", apiAccounts},
		{"/compute/v1/projects/p/global/forwardingRules", apiCompute},
		{"/batch/compute/v1", apiCompute},
		{"/subscriptions/s/providers/Vendor.Authorization/roleAssignments", apiAuthorization},
		{"/providers/Vendor.Authorization/roleDefinitions", apiAuthorization},
		{"/", apiAuthorization},
		{"/nothing/here", apiAuthorization},
		// Another API's prefix wins over ARM's words.
		{"/v2/providers/Vendor.Authorization/roleAssignments", apiAccounts},
		{"/compute/x/providers/Vendor.Authorization/roleAssignments", apiCompute},
		// Tidied: what a client meant.
		{"//compute/v1/projects/p", apiCompute},
		{"/./compute/v1", apiCompute},
		{"/../v2/core/accounts", apiAccounts},
		{"/compute", apiCompute},
		{"/V2/core/accounts", apiAccounts},
		{"/_UNDERSTUDY/health", apiAdmin},
		{"//r/x", apiAccounts},
		// ARM's words after an odd start stay ARM's: a scope may start with anything.
		{"//compute/x/providers/Vendor.Authorization/roleAssignments", apiAuthorization},
		{"/V2/providers/Vendor.Authorization/roleAssignments", apiAuthorization},
	} {
		if got := ownerOf(tt.path); got != tt.want {
			t.Errorf("ownerOf(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}
