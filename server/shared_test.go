package server_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestReplicasShareControls: the sandbox's controls are shared by servers on one store. A
// clock advance through one moves the other's clock at its next request (and advances
// through both add up); a fault rule added through one applies to requests to the other,
// its count spent once across both; a reset through one leaves the rules, the clock and
// the journal; the journal lists both servers' requests, each naming its server.
func TestReplicasShareControls(t *testing.T) {
	url := pgtest.URL(t)
	a := understudytest.Start(t, understudytest.WithStore(url), understudytest.WithConfig(func(c *server.Config) { c.ReplicaName = "replica-a" }))
	b := understudytest.Start(t, understudytest.WithStore(url), understudytest.WithConfig(func(c *server.Config) { c.ReplicaName = "replica-b" }))
	ca, cb := newRaw(t, a.URL), newRaw(t, b.URL)

	ca.must(200, "POST", "/_understudy/clock/advance", nil, `{"seconds":600}`)
	if clk := cb.must(200, "GET", "/_understudy/clock", nil, ""); clk["offsetSeconds"].(float64) != 600 {
		t.Errorf("b's clock offset = %v after a's advance by 600 s", clk["offsetSeconds"])
	}
	cb.must(200, "POST", "/_understudy/clock/advance", nil, `{"seconds":60}`)
	if clk := ca.must(200, "GET", "/_understudy/clock", nil, ""); clk["offsetSeconds"].(float64) != 660 {
		t.Errorf("a's clock offset = %v after advances by 600 s and 60 s", clk["offsetSeconds"])
	}

	ca.must(201, "POST", "/_understudy/faults", nil, `{"api":"accounts","operationId":"createAccount","status":503,"count":2}`)
	for i, c := range []rawClient{cb, ca} {
		if code, _, body := c.do("POST", "/v2/core/accounts", durableAcct, accountBody); code != 503 {
			t.Errorf("request %d: %d %v, want the fault's 503", i, code, body)
		}
	}
	cb.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody) // the count is spent

	ca.must(201, "POST", "/_understudy/faults", nil, `{"api":"accounts","operationId":"createAccount","status":429}`)
	cb.must(200, "POST", "/_understudy/reset", nil, "")
	if faults := ca.must(200, "GET", "/_understudy/faults", nil, "")["faults"].([]any); len(faults) != 1 {
		t.Errorf("after a reset: %d rules, want the one in force", len(faults))
	}
	if code, _, _ := cb.do("POST", "/v2/core/accounts", durableAcct, accountBody); code != 429 {
		t.Errorf("after a reset: %d, want the rule's 429", code)
	}
	ca.must(204, "DELETE", "/_understudy/faults", nil, "")
	cb.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody)
	if clk := cb.must(200, "GET", "/_understudy/clock", nil, ""); clk["offsetSeconds"].(float64) != 660 {
		t.Errorf("after a reset: b's clock offset = %v, want 660", clk["offsetSeconds"])
	}

	// Each server writes its entries to the store in the background, in a moment.
	var replicas map[string]int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		replicas = map[string]int{}
		for _, e := range ca.must(200, "GET", "/_understudy/requests?api=accounts&limit=1000", nil, "")["requests"].([]any) {
			replicas[e.(map[string]any)["replica"].(string)]++
		}
		if replicas["replica-b"] >= 4 || time.Now().After(deadline) {
			break
		}
	}
	if replicas["replica-a"] != 1 || replicas["replica-b"] != 4 || len(replicas) != 2 {
		t.Errorf("journal through a: requests by replica %v, want replica-a 1, replica-b 4", replicas)
	}
	cb.must(204, "DELETE", "/_understudy/requests", nil, "")
	if n := len(ca.must(200, "GET", "/_understudy/requests", nil, "")["requests"].([]any)); n != 0 {
		t.Errorf("a's journal after b cleared it: %d entries", n)
	}
}

// TestReplicasShareAccountLimit: the per-account concurrency limit (1 update at a time)
// holds across servers on one store: of two updates at once through two servers, one gets
// 429 account_rate_limit_exceeded.
func TestReplicasShareAccountLimit(t *testing.T) {
	url := pgtest.URL(t)
	// Long enough that the second request meets the first on a loaded machine (at 500 ms
	// both once went through, one after the other, with the machine's load at 9 on 2 cores).
	slow := understudytest.WithConfig(func(c *server.Config) { c.Accounts.UpdateLatency = 2 * time.Second })
	a := understudytest.Start(t, understudytest.WithStore(url), slow)
	b := understudytest.Start(t, understudytest.WithStore(url), slow)
	ca, cb := newRaw(t, a.URL), newRaw(t, b.URL)
	id := ca.must(200, "POST", "/v2/core/accounts", durableAcct, accountBody)["id"].(string)
	codes := make([]int, 2)
	var wg sync.WaitGroup
	for i, c := range []rawClient{ca, cb} {
		wg.Go(func() {
			codes[i], _, _ = c.do("POST", "/v2/core/accounts/"+id, durableAcct, `{"display_name":"Renamed"}`)
		})
	}
	wg.Wait()
	slices.Sort(codes)
	if codes[0] != 200 || codes[1] != 429 {
		t.Errorf("two updates at once through two servers: %v, want one 200 and one 429", codes)
	}
	// Released: the next update goes through.
	cb.must(200, "POST", "/v2/core/accounts/"+id, durableAcct, `{"display_name":"Again"}`)
}

// TestReplicasShareLoadedState: a state loaded through one replica (PUT /_understudy/state)
// is what a reset through any replica goes back to, as on one process.
func TestReplicasShareLoadedState(t *testing.T) {
	url := pgtest.URL(t)
	a := understudytest.Start(t, understudytest.WithStore(url))
	b := understudytest.Start(t, understudytest.WithStore(url))
	ca, cb := newRaw(t, a.URL), newRaw(t, b.URL)

	ra := ca.must(201, "PUT", durableRA, durableARM, durableRABody)
	resp, err := http.Get(a.URL + "/_understudy/state")
	if err != nil {
		t.Fatal(err)
	}
	state, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("export: %d %v", resp.StatusCode, err)
	}
	ca.must(200, "POST", "/_understudy/reset", nil, "") // the assignment is gone
	req, err := http.NewRequest("PUT", a.URL+"/_understudy/state", bytes.NewReader(state))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/yaml")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("loading the state through a: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	cb.must(200, "DELETE", durableRA, durableARM, "")
	cb.must(200, "POST", "/_understudy/reset", nil, "")
	for name, c := range map[string]rawClient{"a": ca, "b": cb} {
		if got := c.must(200, "GET", durableRA, durableARM, ""); got["id"] != ra["id"] {
			t.Errorf("after a reset through b, %s reads %v, want the loaded state's %v", name, got["id"], ra["id"])
		}
	}
}
