package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

const seededSub = "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"

func startSeeded(t *testing.T, path string) *understudytest.Server {
	t.Helper()
	seed, err := server.LoadSeed(path)
	if err != nil {
		t.Fatal(err)
	}
	return understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		seed.ApplyAuthorization(&c.Authorization, func(string) bool { return false })
	}))
}

func authzClient(t *testing.T, base, token string) *gen.ClientWithResponses {
	t.Helper()
	c, err := gen.NewClientWithResponses(base, gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func listCount(t *testing.T, c *gen.ClientWithResponses, scope string) int {
	t.Helper()
	resp, err := c.RoleAssignmentsListForScopeWithResponse(context.Background(), scope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: "2022-04-01"})
	if err != nil || resp.StatusCode() != 200 {
		t.Fatalf("list: %v %s", err, resp.Body)
	}
	return len(resp.JSON200.Value)
}

func TestSeedLoadsAndResetRestores(t *testing.T) {
	srv := startSeeded(t, "../testdata/seed-authorization.yaml")
	alice := authzClient(t, srv.URL, "alice-token") // mapped to a principal with the seeded custom role
	ctx := context.Background()

	if n := listCount(t, alice, seededSub); n != 2 {
		t.Fatalf("seeded assignments listed: %d, want 2", n)
	}
	got, err := alice.RoleAssignmentsGetWithResponse(ctx, seededSub+"/resourceGroups/rg1", "55555555-5555-4555-8555-555555555555", &gen.RoleAssignmentsGetParams{ApiVersion: "2022-04-01"})
	if err != nil || got.StatusCode() != 200 || *got.JSON200.Properties.PrincipalType != gen.PrincipalTypeGroup {
		t.Fatalf("seeded assignment: %v %s", err, got.Body)
	}

	// Enforcement is on: alice's custom role lets her write; an unknown token may not.
	body := gen.RoleAssignmentCreateParameters{Properties: gen.RoleAssignmentProperties{
		PrincipalId: "77777777-7777-4777-8777-777777777777", RoleDefinitionId: "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}
	params := &gen.RoleAssignmentsCreateParams{ApiVersion: "2022-04-01"}
	created, err := alice.RoleAssignmentsCreateWithResponse(ctx, seededSub, "88888888-8888-4888-8888-888888888888", params, body)
	if err != nil || created.StatusCode() != http.StatusCreated {
		t.Fatalf("alice create: %v %d %s", err, created.StatusCode(), created.Body)
	}
	if *created.JSON201.Properties.CreatedBy != "22222222-2222-4222-8222-222222222222" {
		t.Errorf("createdBy = %s, want alice's principal", *created.JSON201.Properties.CreatedBy)
	}
	denied, _ := authzClient(t, srv.URL, "stranger").RoleAssignmentsCreateWithResponse(ctx, seededSub, "99999999-9999-4999-8999-999999999999", params, body)
	if denied.StatusCode() != http.StatusForbidden {
		t.Errorf("stranger create: %d, want 403: %s", denied.StatusCode(), denied.Body)
	}

	// Reset: what was created is gone, what was seeded is back.
	if n := listCount(t, alice, seededSub); n != 3 {
		t.Fatalf("before reset: %d assignments, want 3", n)
	}
	resp, err := http.Post(srv.URL+"/_understudy/reset", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reset: %v %v", err, resp)
	}
	resp.Body.Close()
	if n := listCount(t, alice, seededSub); n != 2 {
		t.Errorf("after reset: %d assignments, want the 2 seeded", n)
	}
}

func TestSeedErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown field, with its line", "authorization:\n  enforce: true\n  enforcement: true\n", "line 3"},
		{"wrong type", "authorization:\n  maxPerSubscription: many\n", "line 2"},
		{"unknown section", "billing: {}\n", "billing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := server.ParseSeed([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	t.Run("an assignment that breaks a rule stops the start", func(t *testing.T) {
		seed, err := server.ParseSeed([]byte("authorization:\n  roleAssignments:\n    - {scope: subscriptions/s, name: not-a-guid, principalId: 77777777-7777-4777-8777-777777777777, roleDefinitionId: /providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7}\n"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := server.Config{}
		seed.ApplyAuthorization(&cfg.Authorization, func(string) bool { return false })
		_, err = server.New(cfg)
		if err == nil || !strings.Contains(err.Error(), "roleAssignments[0]") || !strings.Contains(err.Error(), "InvalidRoleAssignmentId") {
			t.Fatalf("err = %v, want one naming roleAssignments[0] and the rule", err)
		}
	})
	t.Run("a missing file", func(t *testing.T) {
		if _, err := server.LoadSeed("no-such-seed.yaml"); err == nil || !strings.Contains(err.Error(), "no-such-seed.yaml") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestSeedAddsInterconnectLocations(t *testing.T) {
	seed, err := server.ParseSeed([]byte(`
compute:
  interconnectLocations:
    - name: ams-zone1-2
      metro: ams
      availabilityZone: zone1
      city: Amsterdam
      continent: EUROPE
      facilityProvider: Equinix
      peeringdbFacilityId: "2"
      regions: [europe-west4]
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		if err := seed.ApplyCompute(&c.Compute); err != nil {
			t.Fatal(err)
		}
	}))
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/compute/v1/projects/my-project-123/global/interconnectLocations/ams-zone1-2", nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("seeded location: %d", resp.StatusCode)
	}
	bad, _ := server.ParseSeed([]byte("compute:\n  interconnectLocations:\n    - {name: x-1, metro: amsterdam, availabilityZone: zone1, peeringdbFacilityId: '1', regions: [r]}\n"))
	var cfg server.Config
	if err := bad.ApplyCompute(&cfg.Compute); err == nil || !strings.Contains(err.Error(), "interconnectLocations[0]") || !strings.Contains(err.Error(), "metro") {
		t.Errorf("a bad location: %v", err)
	}
}
