package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// loadState PUTs a seed file to srv's /_understudy/state through the generated admin
// client, and returns the status and body of the answer.
func loadState(t *testing.T, srv *understudytest.Server, seed []byte) (int, []byte) {
	t.Helper()
	resp, err := srv.Admin.LoadStateWithBodyWithResponse(context.Background(), "application/yaml", bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode(), resp.Body
}

// answers reads every path of reads on c: status, Location and body of each.
func answers(c *stateClient, reads []stateRead) []string {
	out := make([]string, len(reads))
	for i, r := range reads {
		code, where, body := c.do(http.MethodGet, r.path, r.header, "")
		out[i] = fmt.Sprintf("%d %s %s", code, where, body)
	}
	return out
}

// sameAsBefore checks that every read answers as it did.
func sameAsBefore(t *testing.T, c *stateClient, reads []stateRead, before []string, when string) {
	t.Helper()
	for i, got := range answers(c, reads) {
		if got != before[i] {
			t.Errorf("%s: GET %s:\nbefore %.400s\nnow    %.400s", when, reads[i].path, before[i], got)
		}
	}
}

// TestLoadStateRoundTrip: the state exported, then changed through every API, then loaded
// back with PUT /_understudy/state, answers every get and list as before; a reset then
// comes back to it, and the server exports the same file again.
func TestLoadStateRoundTrip(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithSeedFile("../testdata/seed-example.yaml"), understudytest.WithOperationMode("manual"),
		understudytest.WithAdminToken(stateAdminToken))
	c := newStateClient(t, srv.URL)
	buildState(t, c)
	exported := exportState(t, srv)
	reads := statePaths(t, c)
	if len(reads) < 150 {
		t.Fatalf("only %d reads to compare", len(reads))
	}
	before := answers(c, reads)

	change := func() {
		c.must(201, http.MethodPut, "/"+stateSub+stateRoleProvider+"roleAssignments/a1a1a1a1-0000-4000-8000-000000000009"+armVersion, stateARM(),
			`{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000009","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`)
		c.must(200, http.MethodDelete, "/"+stateSub+stateRoleProvider+"roleAssignments/a1a1a1a1-0000-4000-8000-000000000001"+armVersion, stateARM(), "")
		c.finish(c.must(200, http.MethodPost, "/compute/v1/projects/"+stateProject+"/global/forwardingRules", stateCompute(), `{"name":"fr-new"}`))
		c.must(200, http.MethodPost, "/v2/core/accounts", stateAccounts(stateKeys[0]), `{"display_name":"New"}`)
		c.must(201, http.MethodPut, "/_understudy/authorization/principals/c1c1c1c1-0000-4000-8000-00000000000a", stateAdmin(), `{"type":"User"}`)
	}
	change()
	if bytes.Equal(exportState(t, srv), exported) {
		t.Fatal("the changes changed nothing")
	}
	if code, body := loadState(t, srv, exported); code != 200 || !bytes.Equal(bytes.TrimSpace(body), []byte(`{"status":"loaded"}`)) {
		t.Fatalf("load: %d %s", code, body)
	}
	t.Logf("%d reads compared", len(reads))
	sameAsBefore(t, c, reads, before, "after the load")
	if again := exportState(t, srv); !bytes.Equal(again, exported) {
		t.Errorf("after the load, the server exports another file:\n%s", again)
	}

	// The loaded state is the seed now: a reset comes back to it.
	change()
	if r, err := srv.Admin.ResetWithResponse(context.Background()); err != nil || r.StatusCode() != 200 {
		t.Fatalf("reset: %v", err)
	}
	sameAsBefore(t, c, reads, before, "after a reset")
}

// TestLoadStateRefused: a bad seed file is refused with the words --seed uses, a setting
// that is not the running one with 409, a request without the admin token with 401; in
// each case nothing changes.
func TestLoadStateRefused(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithSeedFile("../testdata/seed-example.yaml"), understudytest.WithOperationMode("manual"),
		understudytest.WithAdminToken(stateAdminToken))
	c := newStateClient(t, srv.URL)
	buildState(t, c)
	exported := exportState(t, srv)
	// The export with one more project (compute's projects is the one member of that name
	// and indent).
	valid := strings.Replace(string(exported), "\n  projects:\n", "\n  projects:\n    proj-loaded-1:\n      forwardingRules:\n        - name: fr-loaded\n", 1)
	if strings.Count(string(exported), "\n  projects:\n") != 1 {
		t.Fatalf("the export's compute section is not as the test expects it:\n%s", exported)
	}
	for _, tt := range []struct {
		name, seed string
		status     int
		code, msg  string
	}{
		{"syntax", "compute:\n  projects: [\n", 400, "InvalidSeed", "seed (request body):2: "},
		{"unknown field", "compute:\n  projects:\n    proj-loaded-1:\n      forwardingRules:\n        - name: fr-x\n          colour: red\n", 400, "InvalidSeed",
			"seed (request body):6: compute.projects.proj-loaded-1.forwardingRules[0].colour: "},
		{"key given twice", "accounts: {}\naccounts: {}\n", 400, "InvalidSeed", "seed (request body):2: accounts: given twice (first at line 1)"},
		{"a rule broken, after good entries", strings.Replace(valid, "        - name: fr-loaded\n", "        - name: fr-loaded\n        - name: fr-loaded\n", 1), 400, "InvalidSeed",
			"compute.projects.proj-loaded-1.forwardingRules[1]"},
		{"another operation mode", "compute:\n  operationMode: immediate\n", 409, "SettingDiffers",
			"seed (request body):2: compute.operationMode: not the running server's setting (manual)"},
		{"another platform", "accounts:\n  platforms:\n    - id: other\n      keys: [sk_test_other]\n", 409, "SettingDiffers", "accounts.platforms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := loadState(t, srv, []byte(tt.seed))
			want := fmt.Sprintf(`{"error":{"code":%q,"message":`, tt.code)
			if code != tt.status || !bytes.HasPrefix(body, []byte(want)) || !bytes.Contains(body, []byte(tt.msg)) {
				t.Errorf("%d %s, want %d %s...%s", code, body, tt.status, tt.code, tt.msg)
			}
			if now := exportState(t, srv); !bytes.Equal(now, exported) {
				t.Errorf("a refused load changed the state:\n%s", now)
			}
		})
	}

	// Without the admin token: 401, nothing loaded.
	code, _, body := c.do(http.MethodPut, "/_understudy/state", map[string]string{"Content-Type": "application/yaml"}, valid)
	if code != 401 || !bytes.Contains(body, []byte(`"code":"Unauthorized"`)) {
		t.Errorf("without the token: %d %s", code, body)
	}
	code, _, body = c.do(http.MethodPut, "/_understudy/state", map[string]string{"Content-Type": "application/yaml", "Authorization": "Bearer wrong"}, valid)
	if code != 401 {
		t.Errorf("with a wrong token: %d %s", code, body)
	}
	// JSON is not a seed file's media type.
	code, _, body = c.do(http.MethodPut, "/_understudy/state", withKey(stateAdmin(), "Content-Type", "application/json"), `{}`)
	if code != 415 || !bytes.Contains(body, []byte("send application/yaml")) {
		t.Errorf("as JSON: %d %s", code, body)
	}
	if now := exportState(t, srv); !bytes.Equal(now, exported) {
		t.Errorf("a refused load changed the state:\n%s", now)
	}
	// With it, the valid file loads.
	if code, body := loadState(t, srv, []byte(valid)); code != 200 {
		t.Fatalf("load: %d %s", code, body)
	}
	c.must(200, http.MethodGet, "/compute/v1/projects/proj-loaded-1/global/forwardingRules/fr-loaded", stateCompute(), "")
}

// TestLoadStateRacesWrites: loads of two states alternate while other requests write and
// list. Each list sees one loaded state whole (all its rules, never some of each or none),
// and every write is answered as if there were no load (a 200, its operation DONE).
func TestLoadStateRacesWrites(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithOperationMode("immediate"))
	c := newStateClient(t, srv.URL)
	const project = "proj-race-1"
	rules := "/compute/v1/projects/" + project + "/global/forwardingRules"
	// Two states of many rules each, so that loading one takes a while.
	const loaded = 100
	states := map[string][]byte{}
	for _, s := range []string{"a", "b"} {
		states[s] = fmt.Appendf(nil, "compute:\n  operationMode: immediate\n  projects:\n    %s:\n      forwardingRules:\n", project)
		for i := range loaded {
			states[s] = fmt.Appendf(states[s], "        - name: fr-%s-%d\n", s, i)
		}
	}
	if code, body := loadState(t, srv, states["a"]); code != 200 {
		t.Fatalf("load: %d %s", code, body)
	}

	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan string, 100)
	report := func(format string, args ...any) {
		select {
		case errs <- fmt.Sprintf(format, args...):
		default:
		}
	}
	wg.Go(func() {
		defer close(done)
		for i := range 20 {
			s := "ab"[i%2 : i%2+1]
			if code, body := loadState(t, srv, states[s]); code != 200 {
				report("load %s: %d %s", s, code, body)
			}
		}
	})
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				code, _, body := c.do(http.MethodPost, rules, stateCompute(), fmt.Sprintf(`{"name":"fr-w%d-%d"}`, w, i))
				if code != 200 || !bytes.Contains(body, []byte(`"status":"DONE"`)) {
					report("insert: %d %s", code, body)
				}
			}
		})
	}
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			code, _, body := c.do(http.MethodGet, rules+"?maxResults=500", stateCompute(), "")
			if code != 200 {
				report("list: %d %s", code, body)
				continue
			}
			a, b := bytes.Count(body, []byte(`"name":"fr-a-`)), bytes.Count(body, []byte(`"name":"fr-b-`))
			if !(a == loaded && b == 0) && !(a == 0 && b == loaded) {
				report("a list saw %d rules of state a and %d of state b, want %d of one", a, b, loaded)
			}
		}
	})
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// The last load (b) is what a reset goes back to.
	if r, err := srv.Admin.ResetWithResponse(context.Background()); err != nil || r.StatusCode() != 200 {
		t.Fatalf("reset: %v", err)
	}
	list := c.must(200, http.MethodGet, rules+"?maxResults=500", stateCompute(), "")
	var names []string
	for _, it := range list["items"].([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	if len(names) != loaded || !slices.Contains(names, "fr-b-0") {
		t.Errorf("after a reset: %v, want the last loaded state's rules", names)
	}
}
