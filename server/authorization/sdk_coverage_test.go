package authorization_test

// The SDK methods the other SDK tests leave out, each called as a program would call it:
// the by-id forms of the role-assignment PUT and DELETE, the subscription, resource group
// and resource lists of role assignments (paths of their own in the SDK, served by
// RoleAssignments_ListForScope), the permissions of a nested resource, and everything the
// 2015-07-01 SDK (armauthorization v1) does. The namespace policy and the recorder are
// sdk_test.go's.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	armauthorizationv1 "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// The scopes of the coverage tests, in sdkSubscription.
var (
	covRG       = sdkSubScope + "/resourceGroups/rg-cov"
	covOtherRG  = sdkSubScope + "/resourceGroups/rg-cov-other"
	covAccount  = covRG + "/providers/Microsoft.Storage/storageAccounts/acct1"
	covSlot     = covRG + "/providers/Microsoft.Web/sites/site1/slots/staging" // a nested resource
	covOtherSub = "subscriptions/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
)

// covAssignmentID is the id of the assignment name at scope as a client spells it (the
// policy renames the namespace on the way out).
func covAssignmentID(scope, name string) string {
	return "/" + scope + "/providers/" + sdkMSNamespace + "/roleAssignments/" + name
}

// covStoredID is the same id as the server returns it.
func covStoredID(scope, name string) string {
	return "/" + scope + "/providers/" + sdkVendorNamespace + "/roleAssignments/" + name
}

// covPrincipal is the principal of the i-th assignment of a coverage test.
func covPrincipal(i int) string { return fmt.Sprintf("44444444-bbbb-4ccc-8ddd-%012d", i) }

// covName is the name of the i-th assignment of a coverage test.
func covName(i int) string { return fmt.Sprintf("8c9d0e1f-2a3b-4c4d-9e5f-%012d", i) }

// covMaxPages is more pages than any list of these tests takes.
const covMaxPages = 20

// covPages drains a pager of the SDK (any version, any list), returning the names of the
// items and the number of pages; each page must hold at most sdkPageSize items.
func covPages[R any](t *testing.T, pager *runtime.Pager[R], names func(R) []string) ([]string, int) {
	t.Helper()
	var got []string
	pages := 0
	for pager.More() {
		// A nextLink that leads back to a page already seen would loop for ever.
		if pages == covMaxPages {
			t.Fatalf("still more after %d pages", pages)
		}
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		n := names(page)
		if len(n) > sdkPageSize {
			t.Errorf("page %d holds %d items, want at most %d", pages, len(n), sdkPageSize)
		}
		got = append(got, n...)
	}
	slices.Sort(got)
	return got, pages
}

// covWantList checks a list's names (in any order) and that it took as many pages as
// sdkPageSize makes of them.
func covWantList(t *testing.T, what string, got []string, pages int, want ...string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
	if wantPages := max(1, (len(want)+sdkPageSize-1)/sdkPageSize); pages != wantPages {
		t.Errorf("%s: %d pages, want %d", what, pages, wantPages)
	}
}

func v2Names[R any](values func(R) []*armauthorization.RoleAssignment) func(R) []string {
	return func(page R) []string {
		var out []string
		for _, ra := range values(page) {
			out = append(out, sdkDeref(ra.Name))
		}
		return out
	}
}

// TestSDKCoverage drives, through armauthorization/v2 (api-version 2022-04-01), the
// role-assignment methods no other test calls: CreateByID, DeleteByID, GetByID of an
// assignment on a resource, NewListForSubscriptionPager, NewListForResourceGroupPager and
// NewListForResourcePager; and the permissions of a nested resource.
func TestSDKCoverage(t *testing.T) {
	clock := &sdkClock{now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Now = clock.Now
		c.Authorization.PageSize = sdkPageSize
	}))
	sdk := newSDKEnv(t, srv.URL)
	ctx := context.Background()
	created := clock.Now()

	// One assignment of Reader per scope (two at the subscription), each to its own
	// principal; the last gives the caller Reader in rg-cov, for the permissions.
	scopes := []string{sdkSubScope, sdkSubScope, covRG, covAccount, covOtherRG, covOtherSub, covSlot, covRG}
	principal := func(i int) string {
		if i == len(scopes)-1 {
			return sdkCaller
		}
		return covPrincipal(i)
	}
	want := func(i int, description string) sdkAssignment {
		return sdkAssignment{
			ID: covStoredID(scopes[i], covName(i)), Name: covName(i), Type: sdkVendorNamespace + "/roleAssignments",
			Scope: "/" + scopes[i], RoleDefinitionID: sdkReaderIDAsStored, PrincipalID: principal(i),
			PrincipalType: "User", Description: description,
			CreatedBy: sdkCaller, UpdatedBy: sdkCaller, CreatedOn: sdkTime(created), UpdatedOn: sdkTime(created),
		}
	}

	t.Run("CreateByID", func(t *testing.T) {
		for i, scope := range scopes {
			id := covAssignmentID(scope, covName(i))
			resp, err := sdk.assignments.CreateByID(ctx, id, sdkCreateParams(principal(i), "by id"), nil)
			if err != nil {
				t.Fatalf("CreateByID(%s): %v", id, err)
			}
			sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
			if got := sdkView(resp.RoleAssignment); got != want(i, "by id") {
				t.Errorf("CreateByID(%s):\n got %+v\nwant %+v", id, got, want(i, "by id"))
			}
			// The SDK puts the id in the path as it is; the policy renames the namespace only.
			if got, wantPath := sdk.rec.last().Path, covStoredID(scope, covName(i)); got != wantPath {
				t.Errorf("path on the wire: got %q, want %q", got, wantPath)
			}
		}
	})

	t.Run("CreateByIDUpdates", func(t *testing.T) {
		updated := created.Add(time.Minute)
		clock.Set(updated)
		defer clock.Set(created)
		w := want(2, "by id, updated")
		w.UpdatedOn = sdkTime(updated)
		resp, err := sdk.assignments.CreateByID(ctx, covAssignmentID(covRG, covName(2)), sdkCreateParams(principal(2), w.Description), nil)
		if err != nil {
			t.Fatalf("CreateByID (update): %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusOK)
		if got := sdkView(resp.RoleAssignment); got != w {
			t.Errorf("updated:\n got %+v\nwant %+v", got, w)
		}
		// Put it back as the lists below expect it.
		if _, err := sdk.assignments.CreateByID(ctx, covAssignmentID(covRG, covName(2)), sdkCreateParams(principal(2), "by id"), nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("GetByIDOfAResource", func(t *testing.T) {
		// A resource's assignment id holds /providers/ twice; the SDK sends it whole.
		for _, i := range []int{3, 6} {
			resp, err := sdk.assignments.GetByID(ctx, covAssignmentID(scopes[i], covName(i)), nil)
			if err != nil {
				t.Fatalf("GetByID: %v", err)
			}
			if got := sdkView(resp.RoleAssignment); got != want(i, "by id") {
				t.Errorf("GetByID:\n got %+v\nwant %+v", got, want(i, "by id"))
			}
			// The id it answers reads it back.
			again, err := sdk.assignments.GetByID(ctx, sdkDeref(resp.ID), nil)
			if err != nil || sdkDeref(again.Name) != covName(i) {
				t.Errorf("GetByID(the id returned, %s): %v", sdkDeref(resp.ID), err)
			}
		}
		_, err := sdk.assignments.GetByID(ctx, covAssignmentID(covAccount, covName(99)), nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")
	})

	t.Run("ListForSubscription", func(t *testing.T) {
		// Everything in the subscription, at it and below; not the other subscription's.
		got, pages := covPages(t, sdk.assignments.NewListForSubscriptionPager(nil),
			v2Names(func(p armauthorization.RoleAssignmentsClientListForSubscriptionResponse) []*armauthorization.RoleAssignment {
				return p.Value
			}))
		covWantList(t, "subscription", got, pages, covName(0), covName(1), covName(2), covName(3), covName(4), covName(6), covName(7))

		// $filter as the SDK sends it: unescaped (x-ms-skip-url-encoding), so escaped here.
		got, pages = covPages(t, sdk.assignments.NewListForSubscriptionPager(&armauthorization.RoleAssignmentsClientListForSubscriptionOptions{
			Filter: to.Ptr(url.QueryEscape("principalId eq '" + covPrincipal(3) + "'")),
		}), v2Names(func(p armauthorization.RoleAssignmentsClientListForSubscriptionResponse) []*armauthorization.RoleAssignment {
			return p.Value
		}))
		covWantList(t, "subscription, principalId eq", got, pages, covName(3))
		// The listed item is the whole assignment, as its GET gives it; tenantId (the
		// caller's own tenant) changes nothing.
		page, err := sdk.assignments.NewListForSubscriptionPager(&armauthorization.RoleAssignmentsClientListForSubscriptionOptions{
			Filter: to.Ptr(url.QueryEscape("principalId eq '" + covPrincipal(3) + "'")), TenantID: to.Ptr(sdkTenant),
		}).NextPage(ctx)
		if err != nil {
			t.Fatalf("ListForSubscription with tenantId: %v", err)
		}
		if len(page.Value) != 1 || sdkView(*page.Value[0]) != want(3, "by id") {
			t.Errorf("listed with tenantId: %d items, want %+v", len(page.Value), want(3, "by id"))
			for _, ra := range page.Value {
				t.Errorf("  %+v", sdkView(*ra))
			}
		}
		got, pages = covPages(t, sdk.assignments.NewListForSubscriptionPager(&armauthorization.RoleAssignmentsClientListForSubscriptionOptions{
			Filter: to.Ptr("atScope()"),
		}), v2Names(func(p armauthorization.RoleAssignmentsClientListForSubscriptionResponse) []*armauthorization.RoleAssignment {
			return p.Value
		}))
		covWantList(t, "subscription, atScope()", got, pages, covName(0), covName(1))
	})

	t.Run("ListForScopeFromASkipToken", func(t *testing.T) {
		// A program that kept a nextLink's $skipToken resumes the list with the SDK's
		// SkipToken option: the first page and the rest make the whole list once.
		first, err := sdk.assignments.NewListForScopePager(sdkSubScope, nil).NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if first.NextLink == nil {
			t.Fatal("the first page has no nextLink")
		}
		next, err := url.Parse(*first.NextLink)
		if err != nil {
			t.Fatalf("nextLink %q: %v", *first.NextLink, err)
		}
		token := next.Query().Get("$skipToken")
		if token == "" {
			t.Fatalf("nextLink %q has no $skipToken", *first.NextLink)
		}
		rest, pages := covPages(t, sdk.assignments.NewListForScopePager(sdkSubScope, &armauthorization.RoleAssignmentsClientListForScopeOptions{SkipToken: to.Ptr(token)}),
			v2Names(func(p armauthorization.RoleAssignmentsClientListForScopeResponse) []*armauthorization.RoleAssignment {
				return p.Value
			}))
		got := append(v2Names(func(p armauthorization.RoleAssignmentsClientListForScopeResponse) []*armauthorization.RoleAssignment {
			return p.Value
		})(first), rest...)
		slices.Sort(got)
		covWantList(t, "first page and the rest", got, pages+1, covName(0), covName(1), covName(2), covName(3), covName(4), covName(6), covName(7))
	})

	t.Run("ListForResourceGroup", func(t *testing.T) {
		list := func(filter string) ([]string, int) {
			var opts *armauthorization.RoleAssignmentsClientListForResourceGroupOptions
			if filter != "" {
				opts = &armauthorization.RoleAssignmentsClientListForResourceGroupOptions{Filter: to.Ptr(filter)}
			}
			return covPages(t, sdk.assignments.NewListForResourceGroupPager("rg-cov", opts),
				v2Names(func(p armauthorization.RoleAssignmentsClientListForResourceGroupResponse) []*armauthorization.RoleAssignment {
					return p.Value
				}))
		}
		got, pages := list("")
		covWantList(t, "rg-cov", got, pages, covName(0), covName(1), covName(2), covName(3), covName(6), covName(7))
		got, pages = list("atScope()")
		covWantList(t, "rg-cov, atScope()", got, pages, covName(0), covName(1), covName(2), covName(7))
		got, pages = list("assignedTo('" + covPrincipal(4) + "')")
		covWantList(t, "rg-cov, assignedTo the other group's principal", got, pages)
	})

	t.Run("ListForResource", func(t *testing.T) {
		list := func(namespace, resourceType, name string) ([]string, int) {
			return covPages(t, sdk.assignments.NewListForResourcePager("rg-cov", namespace, resourceType, name, nil),
				v2Names(func(p armauthorization.RoleAssignmentsClientListForResourceResponse) []*armauthorization.RoleAssignment {
					return p.Value
				}))
		}
		got, pages := list("Microsoft.Storage", "storageAccounts", "acct1")
		covWantList(t, "acct1", got, pages, covName(0), covName(1), covName(2), covName(3), covName(7))
		// A nested resource: v2 has no parentResourcePath, the type carries it.
		got, pages = list("Microsoft.Web", "sites/site1/slots", "staging")
		covWantList(t, "site1/slots/staging", got, pages, covName(0), covName(1), covName(2), covName(6), covName(7))
	})

	t.Run("PermissionsOfANestedResource", func(t *testing.T) {
		// Reader's, through the caller's assignment in rg-cov: actions */read and the
		// other three lists empty.
		var got [][4][]string
		pager := sdk.permissions.NewListForResourcePager("rg-cov", "Microsoft.Web", "sites/site1", "slots", "staging", nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("ListForResource: %v", err)
			}
			for _, p := range page.Value {
				got = append(got, [4][]string{vals(p.Actions), vals(p.NotActions), vals(p.DataActions), vals(p.NotDataActions)})
			}
		}
		if len(got) != 1 || !slices.Equal(got[0][0], []string{"*/read"}) || len(got[0][1])+len(got[0][2])+len(got[0][3]) != 0 {
			t.Errorf("the caller's permissions on the slot: %v, want Reader's [[*/read] [] [] []]", got)
		}
		wantPath := "/" + sdkSubScope + "/resourcegroups/rg-cov/providers/Microsoft.Web/sites/site1/slots/staging/providers/" + sdkVendorNamespace + "/permissions"
		if got := sdk.rec.last().Path; got != wantPath {
			t.Errorf("path on the wire: got %q, want %q", got, wantPath)
		}
		// Elsewhere in the subscription the caller holds nothing.
		page, err := sdk.permissions.NewListForResourceGroupPager("rg-cov-other", nil).NextPage(ctx)
		if err != nil {
			t.Fatalf("ListForResourceGroup: %v", err)
		}
		if len(page.Value) != 0 {
			t.Errorf("permissions in rg-cov-other: %d entries, want none", len(page.Value))
		}
	})

	t.Run("DeleteByID", func(t *testing.T) {
		id := covAssignmentID(covAccount, covName(3))
		resp, err := sdk.assignments.DeleteByID(ctx, id, &armauthorization.RoleAssignmentsClientDeleteByIDOptions{TenantID: to.Ptr(sdkTenant)})
		if err != nil {
			t.Fatalf("DeleteByID: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusOK)
		if got := sdkView(resp.RoleAssignment); got != want(3, "by id") {
			t.Errorf("deleted:\n got %+v\nwant %+v", got, want(3, "by id"))
		}
		// Again: nothing to delete, 204 and an empty assignment.
		resp, err = sdk.assignments.DeleteByID(ctx, id, nil)
		if err != nil {
			t.Fatalf("DeleteByID again: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusNoContent)
		if got := sdkView(resp.RoleAssignment); got != (sdkAssignment{}) {
			t.Errorf("DeleteByID again returned %+v", got)
		}
		_, err = sdk.assignments.GetByID(ctx, id, &armauthorization.RoleAssignmentsClientGetByIDOptions{TenantID: to.Ptr(sdkTenant)})
		sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")
		got, pages := covPages(t, sdk.assignments.NewListForResourcePager("rg-cov", "Microsoft.Storage", "storageAccounts", "acct1", nil),
			v2Names(func(p armauthorization.RoleAssignmentsClientListForResourceResponse) []*armauthorization.RoleAssignment {
				return p.Value
			}))
		covWantList(t, "acct1 after the delete", got, pages, covName(0), covName(1), covName(2), covName(7))
	})
}

// v1Env holds the clients of armauthorization v1, which send api-version 2015-07-01 to
// every operation.
type v1Env struct {
	assignments *armauthorizationv1.RoleAssignmentsClient
	definitions *armauthorizationv1.RoleDefinitionsClient
	permissions *armauthorizationv1.PermissionsClient
	rec         *sdkRecorder
}

func newV1Env(t *testing.T, baseURL string) *v1Env {
	t.Helper()
	rec := &sdkRecorder{}
	opts, cred := sdkClientOptions(baseURL, rec), sdkCredential()
	a, err := armauthorizationv1.NewRoleAssignmentsClient(sdkSubscription, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := armauthorizationv1.NewRoleDefinitionsClient(cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := armauthorizationv1.NewPermissionsClient(sdkSubscription, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &v1Env{assignments: a, definitions: d, permissions: p, rec: rec}
}

// v1Assignment is a 2015-07-01 role assignment flattened: all that version has.
type v1Assignment struct{ ID, Name, Type, Scope, RoleDefinitionID, PrincipalID string }

func v1View(ra armauthorizationv1.RoleAssignment) v1Assignment {
	v := v1Assignment{ID: sdkDeref(ra.ID), Name: sdkDeref(ra.Name), Type: sdkDeref(ra.Type)}
	if p := ra.Properties; p != nil {
		v.Scope, v.RoleDefinitionID, v.PrincipalID = sdkDeref(p.Scope), sdkDeref(p.RoleDefinitionID), sdkDeref(p.PrincipalID)
	}
	return v
}

func v1Names[R any](values func(R) []*armauthorizationv1.RoleAssignment) func(R) []string {
	return func(page R) []string {
		var out []string
		for _, ra := range values(page) {
			out = append(out, sdkDeref(ra.Name))
		}
		return out
	}
}

// TestSDKV1Coverage drives every role-assignment, role-definition and permissions method of
// armauthorization v1 (api-version 2015-07-01) that the spec's operations serve.
func TestSDKV1Coverage(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Authorization.PageSize = sdkPageSize
	}))
	sdk := newV1Env(t, srv.URL)
	ctx := context.Background()

	scopes := []string{sdkSubScope, covRG, covAccount, covSlot, covOtherRG, covRG}
	principal := func(i int) string {
		if i == len(scopes)-1 {
			return sdkCaller
		}
		return covPrincipal(i)
	}
	params := func(i int) armauthorizationv1.RoleAssignmentCreateParameters {
		return armauthorizationv1.RoleAssignmentCreateParameters{Properties: &armauthorizationv1.RoleAssignmentProperties{
			RoleDefinitionID: to.Ptr(sdkReaderIDAsSent), PrincipalID: to.Ptr(principal(i)),
		}}
	}
	want := func(i int) v1Assignment {
		return v1Assignment{
			ID: covStoredID(scopes[i], covName(i)), Name: covName(i), Type: sdkVendorNamespace + "/roleAssignments",
			Scope: "/" + scopes[i], RoleDefinitionID: sdkReaderIDAsStored, PrincipalID: principal(i),
		}
	}

	t.Run("CreateAndCreateByID", func(t *testing.T) {
		for i, scope := range scopes {
			var got armauthorizationv1.RoleAssignment
			if i%2 == 0 {
				resp, err := sdk.assignments.Create(ctx, scope, covName(i), params(i), nil)
				if err != nil {
					t.Fatalf("Create at %s: %v", scope, err)
				}
				got = resp.RoleAssignment
			} else {
				resp, err := sdk.assignments.CreateByID(ctx, covAssignmentID(scope, covName(i)), params(i), nil)
				if err != nil {
					t.Fatalf("CreateByID at %s: %v", scope, err)
				}
				got = resp.RoleAssignment
			}
			sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
			if v := v1View(got); v != want(i) {
				t.Errorf("created at %s:\n got %+v\nwant %+v", scope, v, want(i))
			}
		}
		// The same again by id is an update, which 2015-07-01 answers 201 (all it defines).
		resp, err := sdk.assignments.CreateByID(ctx, covAssignmentID(scopes[1], covName(1)), params(1), nil)
		if err != nil {
			t.Fatalf("CreateByID (update): %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
		if v := v1View(resp.RoleAssignment); v != want(1) {
			t.Errorf("updated:\n got %+v\nwant %+v", v, want(1))
		}
	})

	t.Run("GetAndGetByID", func(t *testing.T) {
		resp, err := sdk.assignments.Get(ctx, covAccount, covName(2), nil)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if v := v1View(resp.RoleAssignment); v != want(2) {
			t.Errorf("Get:\n got %+v\nwant %+v", v, want(2))
		}
		byID, err := sdk.assignments.GetByID(ctx, covAssignmentID(covSlot, covName(3)), nil)
		if err != nil {
			t.Fatalf("GetByID: %v", err)
		}
		if v := v1View(byID.RoleAssignment); v != want(3) {
			t.Errorf("GetByID:\n got %+v\nwant %+v", v, want(3))
		}
		_, err = sdk.assignments.Get(ctx, covRG, covName(99), nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")
	})

	t.Run("Lists", func(t *testing.T) {
		all := []string{covName(0), covName(1), covName(2), covName(3), covName(4), covName(5)}
		got, pages := covPages(t, sdk.assignments.NewListPager(nil),
			v1Names(func(p armauthorizationv1.RoleAssignmentsClientListResponse) []*armauthorizationv1.RoleAssignment {
				return p.Value
			}))
		covWantList(t, "subscription", got, pages, all...)
		// v1 escapes $filter itself (its REST specification does not skip the encoding).
		got, pages = covPages(t, sdk.assignments.NewListPager(&armauthorizationv1.RoleAssignmentsClientListOptions{
			Filter: to.Ptr("principalId eq '" + covPrincipal(4) + "'"),
		}), v1Names(func(p armauthorizationv1.RoleAssignmentsClientListResponse) []*armauthorizationv1.RoleAssignment {
			return p.Value
		}))
		covWantList(t, "subscription, principalId eq", got, pages, covName(4))

		got, pages = covPages(t, sdk.assignments.NewListForResourceGroupPager("rg-cov", nil),
			v1Names(func(p armauthorizationv1.RoleAssignmentsClientListForResourceGroupResponse) []*armauthorizationv1.RoleAssignment {
				return p.Value
			}))
		covWantList(t, "rg-cov", got, pages, covName(0), covName(1), covName(2), covName(3), covName(5))

		forResource := func(namespace, parent, resourceType, name string) ([]string, int) {
			return covPages(t, sdk.assignments.NewListForResourcePager("rg-cov", namespace, parent, resourceType, name, nil),
				v1Names(func(p armauthorizationv1.RoleAssignmentsClientListForResourceResponse) []*armauthorizationv1.RoleAssignment {
					return p.Value
				}))
		}
		got, pages = forResource("Microsoft.Web", "sites/site1", "slots", "staging")
		covWantList(t, "the slot", got, pages, covName(0), covName(1), covName(3), covName(5))
		// No parent: an empty parentResourcePath, which azcore's JoinPaths (path.Join) drops
		// from the URL; the Node SDK sends it as an empty segment (scope_http_test.go).
		got, pages = forResource("Microsoft.Storage", "", "storageAccounts", "acct1")
		covWantList(t, "acct1", got, pages, covName(0), covName(1), covName(2), covName(5))

		got, pages = covPages(t, sdk.assignments.NewListForScopePager(covRG, &armauthorizationv1.RoleAssignmentsClientListForScopeOptions{Filter: to.Ptr("atScope()")}),
			v1Names(func(p armauthorizationv1.RoleAssignmentsClientListForScopeResponse) []*armauthorizationv1.RoleAssignment {
				return p.Value
			}))
		covWantList(t, "rg-cov, atScope()", got, pages, covName(0), covName(1), covName(5))
	})

	t.Run("Permissions", func(t *testing.T) {
		var got [][]string
		pager := sdk.permissions.NewListForResourcePager("rg-cov", "Microsoft.Web", "sites/site1", "slots", "staging", nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("ListForResource: %v", err)
			}
			for _, p := range page.Value {
				got = append(got, vals(p.Actions))
			}
		}
		if len(got) != 1 || !slices.Equal(got[0], []string{"*/read"}) {
			t.Errorf("permissions on the slot: %v, want Reader's", got)
		}
		page, err := sdk.permissions.NewListForResourceGroupPager("rg-cov", nil).NextPage(ctx)
		if err != nil {
			t.Fatalf("ListForResourceGroup: %v", err)
		}
		if len(page.Value) != 1 || !slices.Equal(vals(page.Value[0].Actions), []string{"*/read"}) {
			t.Errorf("permissions in rg-cov: %+v, want Reader's", page.Value)
		}
	})

	t.Run("RoleDefinitions", func(t *testing.T) {
		const roleID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
		subID := "/" + sdkSubScope
		resp, err := sdk.definitions.CreateOrUpdate(ctx, sdkSubScope, roleID, armauthorizationv1.RoleDefinition{Properties: &armauthorizationv1.RoleDefinitionProperties{
			RoleName: to.Ptr("Slot Reader v1"), Description: to.Ptr("2015-07-01"), RoleType: to.Ptr("CustomRole"),
			Permissions:      []*armauthorizationv1.Permission{{Actions: to.SliceOfPtrs("Microsoft.Web/sites/slots/read")}},
			AssignableScopes: to.SliceOfPtrs(subID),
		}}, nil)
		if err != nil {
			t.Fatalf("CreateOrUpdate: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodPut, http.StatusCreated)
		wantID := "/providers/" + sdkVendorNamespace + "/roleDefinitions/" + roleID
		check := func(what string, rd armauthorizationv1.RoleDefinition) {
			t.Helper()
			p := rd.Properties
			if sdkDeref(rd.ID) != wantID || sdkDeref(rd.Name) != roleID || sdkDeref(rd.Type) != sdkVendorNamespace+"/roleDefinitions" || p == nil ||
				sdkDeref(p.RoleName) != "Slot Reader v1" || sdkDeref(p.RoleType) != "CustomRole" || sdkDeref(p.Description) != "2015-07-01" ||
				len(p.Permissions) != 1 || !slices.Equal(vals(p.Permissions[0].Actions), []string{"Microsoft.Web/sites/slots/read"}) ||
				!slices.Equal(vals(p.AssignableScopes), []string{subID}) {
				t.Errorf("%s: %+v %+v", what, rd, p)
			}
		}
		check("created", resp.RoleDefinition)
		got, err := sdk.definitions.Get(ctx, covRG, roleID, nil)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		check("Get", got.RoleDefinition)
		byID, err := sdk.definitions.GetByID(ctx, "/providers/"+sdkMSNamespace+"/roleDefinitions/"+roleID, nil)
		if err != nil {
			t.Fatalf("GetByID: %v", err)
		}
		check("GetByID", byID.RoleDefinition)

		var names []string
		pager := sdk.definitions.NewListPager(sdkSubScope, &armauthorizationv1.RoleDefinitionsClientListOptions{Filter: to.Ptr("type eq 'CustomRole'")})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			for _, rd := range page.Value {
				names = append(names, sdkDeref(rd.Properties.RoleName))
			}
		}
		if !slices.Equal(names, []string{"Slot Reader v1"}) {
			t.Errorf("custom roles listed: %v", names)
		}
		// Built-in roles at 2015-07-01 carry no data actions (the version has none).
		reader, err := sdk.definitions.Get(ctx, sdkSubScope, sdkReaderGUID, nil)
		if err != nil || sdkDeref(reader.Properties.RoleName) != "Reader" {
			t.Fatalf("Get Reader: %v", err)
		}

		del, err := sdk.definitions.Delete(ctx, sdkSubScope, roleID, nil)
		if err != nil {
			t.Fatalf("Delete: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusOK)
		check("deleted", del.RoleDefinition)
		_, err = sdk.definitions.GetByID(ctx, "/providers/"+sdkMSNamespace+"/roleDefinitions/"+roleID, nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleDefinitionDoesNotExist")
	})

	t.Run("DeleteAndDeleteByID", func(t *testing.T) {
		resp, err := sdk.assignments.DeleteByID(ctx, covAssignmentID(covSlot, covName(3)), nil)
		if err != nil {
			t.Fatalf("DeleteByID: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusOK)
		if v := v1View(resp.RoleAssignment); v != want(3) {
			t.Errorf("deleted:\n got %+v\nwant %+v", v, want(3))
		}
		if _, err := sdk.assignments.DeleteByID(ctx, covAssignmentID(covSlot, covName(3)), nil); err != nil {
			t.Fatalf("DeleteByID again: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusNoContent)
		_, err = sdk.assignments.GetByID(ctx, covAssignmentID(covSlot, covName(3)), nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")

		if _, err := sdk.assignments.Delete(ctx, covAccount, covName(2), nil); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		sdk.rec.wantLast(t, http.MethodDelete, http.StatusOK)
		_, err = sdk.assignments.Get(ctx, covAccount, covName(2), nil)
		sdkWantError(t, err, http.StatusNotFound, "RoleAssignmentNotFound")
	})

	t.Run("RawPathsOnTheWire", func(t *testing.T) {
		for _, ex := range sdk.rec.all() {
			if strings.Contains(strings.ToLower(ex.Path), "%2f") {
				t.Errorf("%s %s: slashes escaped", ex.Method, ex.Path)
			}
		}
	})
}

// TestSDKPagesOfAResourceWhoseNameNeedsEscaping: a resource's name escaped in the list's
// path, the nextLink the SDK is given back must be a URL that leads to the next page of the
// same list. A metric alert may be called "High CPU" in ARM (its names exclude
// *#&+:<>?@%{}\/ only); understudy also takes '#' and '?' in a name (ARM's naming rules
// advise against '#'), and ids with them read back, so their lists must page too.
func TestSDKPagesOfAResourceWhoseNameNeedsEscaping(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Authorization.PageSize = sdkPageSize
	}))
	sdk := newSDKEnv(t, srv.URL)
	ctx := context.Background()
	for k, name := range []string{"High CPU", "alert #1", "why?", "café (prod)"} {
		t.Run(name, func(t *testing.T) {
			// The SDK puts Create's scope in the path as it is: a caller escapes the name.
			scope := covRG + "/providers/Microsoft.Insights/metricAlerts/" + url.PathEscape(name)
			var want []string
			for i := range 3 {
				n := covName(100*(k+1) + i)
				if _, err := sdk.assignments.Create(ctx, scope, n, sdkCreateParams(covPrincipal(i), ""), nil); err != nil {
					t.Fatalf("Create: %v", err)
				}
				want = append(want, n)
			}
			// So does ListForResource's resourceName (x-ms-skip-url-encoding in the REST spec).
			pager := sdk.assignments.NewListForResourcePager("rg-cov", "Microsoft.Insights", "metricAlerts", url.PathEscape(name),
				&armauthorization.RoleAssignmentsClientListForResourceOptions{Filter: to.Ptr("atScope()")})
			var got []string
			for pages := 0; pager.More(); pages++ {
				if pages == covMaxPages {
					t.Fatalf("still more after %d pages", pages)
				}
				page, err := pager.NextPage(ctx)
				if err != nil {
					t.Fatalf("page %d: %v", pages+1, err)
				}
				for _, ra := range page.Value {
					got = append(got, sdkDeref(ra.Name))
					if s := sdkDeref(ra.Properties.Scope); s != "/"+covRG+"/providers/Microsoft.Insights/metricAlerts/"+name {
						t.Errorf("scope %q", s)
					}
				}
				if page.NextLink == nil {
					continue
				}
				// A URL: nothing in it a URL may not hold raw, and its path is the list's.
				next, err := url.Parse(*page.NextLink)
				if err != nil || strings.ContainsAny(*page.NextLink, " #") || strings.ContainsFunc(*page.NextLink, func(r rune) bool { return r > 0x7e }) {
					t.Fatalf("nextLink %q is no URL (%v)", *page.NextLink, err)
				}
				if wantPath := "/" + covRG + "/providers/Microsoft.Insights/metricAlerts/" + name + "/providers/" + sdkVendorNamespace + "/roleAssignments"; next.Path != wantPath {
					t.Errorf("nextLink's path %q, want %q", next.Path, wantPath)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("listed %v, want %v", got, want)
			}
		})
	}
}
