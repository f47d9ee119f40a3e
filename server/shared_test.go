package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestSharedStore: servers on one PostgreSQL store serve one state. The first seeds it;
// one started later finds the state as it is (no second seed); a write through one is read
// through the other; a reset through either wipes and reseeds it for both; the clock's
// offset is kept for a server started later.
func TestSharedStore(t *testing.T) {
	url := pgtest.URL(t)
	seed := filepath.Join(t.TempDir(), "seed.yaml")
	err := os.WriteFile(seed, []byte(`authorization:
  roleDefinitions:
    - id: 0b5fe924-9a61-425c-96af-cfe6e287ca2d
      roleName: Seeded Role
      actions: ["*/read"]
      assignableScopes: [/]
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	a := understudytest.Start(t, understudytest.WithStore(url), understudytest.WithSeedFile(seed))
	ca := newRaw(t, a.URL)
	ra := ca.must(201, "PUT", durableRA, durableARM, durableRABody)
	acct := ca.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody)
	ca.must(200, "POST", "/_understudy/clock/advance", nil, `{"seconds":600}`)

	// The same seed file: a reset loads the seed of the server it goes through.
	b := understudytest.Start(t, understudytest.WithStore(url), understudytest.WithSeedFile(seed))
	cb := newRaw(t, b.URL)
	if got := cb.must(200, "GET", durableRA, durableARM, ""); got["id"] != ra["id"] {
		t.Errorf("the second server reads %v, want %v", got["id"], ra["id"])
	}
	if clk := cb.must(200, "GET", "/_understudy/clock", nil, ""); clk["offsetSeconds"].(float64) < 600 {
		t.Errorf("the second server's clock offset = %v, want the 600 s advanced through the first", clk["offsetSeconds"])
	}
	acct2 := cb.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody)
	if acct2["id"] == acct["id"] {
		t.Fatal("two servers made accounts with one id")
	}
	if got := ca.must(200, "GET", "/v2/core/accounts/"+acct2["id"].(string), durableAcct, ""); got["id"] != acct2["id"] {
		t.Errorf("the first server reads %v", got)
	}

	cb.must(200, "POST", "/_understudy/reset", nil, "")
	for _, c := range []rawClient{ca, cb} {
		if code, _, _ := c.do("GET", durableRA, durableARM, ""); code != 404 {
			t.Errorf("role assignment after a reset through the second server: %d, want 404", code)
		}
		if code, _, _ := c.do("GET", "/v2/core/accounts/"+acct["id"].(string), durableAcct, ""); code != 404 {
			t.Errorf("account after a reset: %d, want 404", code)
		}
		// The seed is back: its role.
		c.must(200, "GET", "/providers/Vendor.Authorization/roleDefinitions/0b5fe924-9a61-425c-96af-cfe6e287ca2d?api-version=2022-04-01", durableARM, "")
	}
}

// TestStoreAndDataDir: a server is given one place for its state.
func TestStoreAndDataDir(t *testing.T) {
	_, err := server.New(server.Config{Store: "postgres://localhost/x", DataDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "--store and --data-dir") {
		t.Fatalf("got %v, want an error naming both", err)
	}
	_, err = server.New(server.Config{Store: "mysql://localhost/x"})
	if err == nil || !strings.Contains(err.Error(), "postgres://") {
		t.Fatalf("got %v, want an error asking for a postgres:// URL", err)
	}
}
