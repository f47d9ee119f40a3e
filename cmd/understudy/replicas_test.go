package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store/postgres"
	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
)

// TestReplicasFaults is the shared sandbox's fault test: three replicas (the binary, as
// processes) on one PostgreSQL database, with writers to every API spread over them. One
// replica is killed with SIGKILL mid-run and started again; then the database itself is
// restarted under the writers. Every write a replica acknowledged is read back from every
// replica; racing requests spread over the replicas keep their one-winner rules (one
// Idempotency-Key, one requestId, one name); a request while the database is down gets a
// retryable 503 in its API's envelope, never a 500 or a hang; and background work (an
// event's delivery, operations finishing) goes on afterwards.
//
// The database it restarts is a cluster of its own (.ci/postgres.sh with a directory of the
// test's), not the shared test cluster other tests run on meanwhile; it runs where those do
// (UNDERSTUDY_TEST_POSTGRES set: skipped without, failed under CI=true).
func TestReplicasFaults(t *testing.T) {
	pgtest.Base(t)
	bin := buildBinary(t)
	db := startCluster(t)
	url, err := postgres.WithSchema(db.url, "replicas")
	if err != nil {
		t.Fatal(err)
	}
	hook := newHookLog()
	srv := httptest.NewServer(hook)
	defer srv.Close()

	flags := func(i int) []string {
		return []string{"--store", url, "--log-level", "error", "--compute-operation-mode", "200ms", "--replica-name", fmt.Sprintf("replica-%d", i)}
	}
	replicas := make([]*process, 3)
	for i := range replicas {
		replicas[i] = startBinary(t, bin, flags(i)...)
	}
	defer func() {
		for _, p := range replicas {
			p.kill(t)
		}
	}()
	bases := func() []string {
		var out []string
		for _, p := range replicas {
			out = append(out, p.base)
		}
		return out
	}
	l := newLedger()
	l.shared = true
	// An event destination, so that deliveries are background work to resume.
	code, dest, err := l.call(context.Background(), "POST", replicas[0].base+"/v2/core/event_destinations", crashAcct,
		`{"name":"hook","type":"webhook_endpoint","event_payload":"thin","enabled_events":["v2.core.account.created"],"events_from":["@self"],"webhook_endpoint":{"url":"`+srv.URL+`"}}`)
	if err != nil || code != 200 {
		t.Fatalf("event destination: %d %v %v", code, dest, err)
	}

	// writers runs the ledger's workers, each on one replica, until stop is called.
	writers := func(round int) (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range 6 {
			base := bases()[w%len(replicas)]
			wg.Add(3)
			go func() { defer wg.Done(); l.assignments(ctx, base, round, w) }()
			go func() { defer wg.Done(); l.accounts(ctx, base) }()
			go func() { defer wg.Done(); l.rules(ctx, base, round, w) }()
		}
		return func() { cancel(); wg.Wait() }
	}
	verifyAll := func(round int) {
		t.Helper()
		for _, base := range bases() {
			l.verify(t, base, round)
		}
	}

	// Round 0: a replica dies under the writers and comes back.
	stop := writers(0)
	time.Sleep(time.Duration(500+mrand.IntN(500)) * time.Millisecond)
	victim := mrand.IntN(len(replicas))
	replicas[victim].kill(t)
	time.Sleep(200 * time.Millisecond) // the others go on meanwhile
	stop()
	replicas[victim] = startBinary(t, bin, flags(victim)...)
	t.Logf("round 0: replica-%d killed; %d role assignments, %d accounts, %d rules acknowledged", victim, l.count(l.ra), len(l.accts), len(l.rls))
	verifyAll(0)
	if t.Failed() {
		return
	}

	// Round 1: the database restarts under the writers. While it is down, every API of
	// every replica answers 503 in its own envelope, promptly.
	stop = writers(1)
	time.Sleep(300 * time.Millisecond)
	l.outage.Store(true)
	db.run(t, "pause")
	down := time.Now()
	for i, p := range replicas {
		checkUnavailable(t, l, p.base, i)
	}
	time.Sleep(time.Second)
	db.run(t, "resume")
	t.Logf("round 1: the database was down %v; %d requests answered 503 meanwhile", time.Since(down).Round(time.Millisecond), l.unavailable.Load())
	time.Sleep(500 * time.Millisecond) // the writers that outlived the outage write again
	stop()
	l.outage.Store(false)
	verifyAll(1)
	if t.Failed() {
		return
	}

	// Round 2: racing requests spread over the replicas.
	raceReplicas(t, l, bases())

	// Background work resumes: an account made now is delivered to the hook (by whichever
	// replica holds the delivery), and an operation finishes.
	code, acct, err := l.call(context.Background(), "POST", replicas[1].base+"/v2/core/accounts", crashAcct, `{"display_name":"After"}`)
	if err != nil || code != 200 {
		t.Fatalf("account after the faults: %d %v %v", code, acct, err)
	}
	if !hook.wait(acct["id"].(string), 20*time.Second) {
		t.Errorf("the event of account %v was not delivered after the faults (delivered: %d events)", acct["id"], hook.count())
	}
	name := "after-faults"
	code, op, err := l.call(context.Background(), "POST", replicas[2].base+crashProject, crashARM, `{"name":"`+name+`","portRange":"443-443"}`)
	if err != nil || code != 200 {
		t.Fatalf("insert after the faults: %d %v %v", code, op, err)
	}
	for op["status"] != "DONE" {
		if code, op, err = l.call(context.Background(), "POST", replicas[0].base+crashOps+op["name"].(string)+"/wait", crashARM, ""); err != nil || code != 200 {
			t.Fatalf("wait after the faults: %d %v %v", code, op, err)
		}
	}
}

// checkUnavailable: while the database is down, a write to each API of the replica answers
// 503 in the API's own envelope (never a 500), with Retry-After, within the engine's bound.
func checkUnavailable(t *testing.T, l *ledger, base string, replica int) {
	t.Helper()
	type probe struct {
		api, method, path, body string
		headers                 map[string]string
		envelope                func(map[string]any) bool
	}
	has := func(keys ...string) func(map[string]any) bool {
		return func(m map[string]any) bool {
			for _, k := range keys {
				inner, ok := m[k].(map[string]any)
				if !ok {
					return false
				}
				m = inner
			}
			return true
		}
	}
	probes := []probe{
		{"authorization", "PUT", "/subscriptions/00000000-0000-4000-8000-999999999999/providers/Vendor.Authorization/roleAssignments/" + uuid() + "?api-version=2022-04-01",
			`{"properties":{"principalId":"` + uuid() + `","roleDefinitionId":"/subscriptions/00000000-0000-4000-8000-999999999999/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`,
			crashARM, has("error")},
		{"accounts", "POST", "/v2/core/accounts", `{"display_name":"Down"}`, crashAcct, has("error")},
		{"compute", "POST", crashProject, `{"name":"down-` + fmt.Sprint(replica) + `","portRange":"443-443"}`, crashARM, has("error")},
	}
	for _, p := range probes {
		req, err := http.NewRequest(p.method, base+p.path, strings.NewReader(p.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range p.headers {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Errorf("replica-%d %s while the database is down: no answer within 30 s: %v", replica, p.api, err)
			continue
		}
		var body map[string]any
		_ = jsonDecode(resp, &body)
		took := time.Since(start)
		if resp.StatusCode != http.StatusServiceUnavailable || !p.envelope(body) {
			t.Errorf("replica-%d %s while the database is down: %d %v after %v, want a 503 in the API's envelope", replica, p.api, resp.StatusCode, body, took)
			continue
		}
		if resp.Header.Get("Retry-After") == "" {
			t.Errorf("replica-%d %s: 503 without Retry-After", replica, p.api)
		}
	}
}

// raceReplicas sends the same request to every replica at once and checks that one won:
// an Idempotency-Key reused (one account, every answer naming it, or 409 in use), a
// requestId retried (one operation), a rule name taken twice (one rule made).
func raceReplicas(t *testing.T, l *ledger, bases []string) {
	t.Helper()
	ctx := context.Background()
	all := func(fn func(base string) (int, map[string]any)) ([]int, []map[string]any) {
		codes, bodies := make([]int, len(bases)*2), make([]map[string]any, len(bases)*2)
		var wg sync.WaitGroup
		for i := range codes {
			wg.Go(func() { codes[i], bodies[i] = fn(bases[i%len(bases)]) })
		}
		wg.Wait()
		return codes, bodies
	}
	for round := range 5 {
		key := uuid()
		headers := map[string]string{"Idempotency-Key": key}
		for k, v := range crashAcct {
			headers[k] = v
		}
		codes, bodies := all(func(base string) (int, map[string]any) {
			code, out, _ := l.call(ctx, "POST", base+"/v2/core/accounts", headers, `{"display_name":"Race"}`)
			return code, out
		})
		ids := map[any]bool{}
		for i, code := range codes {
			switch code {
			case 200:
				ids[bodies[i]["id"]] = true
			case 409:
			default:
				t.Errorf("race %d, one Idempotency-Key: %d %v", round, code, bodies[i])
			}
		}
		if len(ids) != 1 {
			t.Errorf("race %d: one Idempotency-Key made accounts %v", round, ids)
		}

		requestID := uuid()
		name := fmt.Sprintf("race-%d", round)
		codes, bodies = all(func(base string) (int, map[string]any) {
			code, out, _ := l.call(ctx, "POST", base+crashProject+"?requestId="+requestID, crashARM, `{"name":"`+name+`","portRange":"443-443"}`)
			return code, out
		})
		ops := map[any]bool{}
		for i, code := range codes {
			if code != 200 {
				t.Errorf("race %d, one requestId: %d %v", round, code, bodies[i])
				continue
			}
			ops[bodies[i]["name"]] = true
		}
		if len(ops) != 1 {
			t.Errorf("race %d: one requestId made operations %v", round, ops)
		}

		name = fmt.Sprintf("race-name-%d", round)
		codes, bodies = all(func(base string) (int, map[string]any) {
			code, out, _ := l.call(ctx, "POST", base+crashProject+"?requestId="+uuid(), crashARM, `{"name":"`+name+`","portRange":"443-443"}`)
			return code, out
		})
		won := 0
		for i, code := range codes {
			switch {
			case code == 200 && bodies[i]["error"] == nil:
				won++
			case code == 409 || code == 200:
			default:
				t.Errorf("race %d, one name: %d %v", round, code, bodies[i])
			}
		}
		if won != 1 {
			t.Errorf("race %d: %d inserts of one name were accepted without error, want 1: %v %v", round, won, codes, bodies)
		}
	}
}

// cluster is a PostgreSQL cluster of the test's own, which it may stop and start.
type cluster struct {
	dir, url string
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "understudy-replicas-pg")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the cluster may run as postgres (under root)
		t.Fatal(err)
	}
	c := &cluster{dir: dir}
	out := c.run(t, "start")
	_, rest, ok := strings.Cut(out, "UNDERSTUDY_TEST_POSTGRES='")
	if !ok {
		t.Fatalf("postgres.sh start: %q", out)
	}
	c.url, _, _ = strings.Cut(rest, "'")
	t.Cleanup(func() {
		c.run(t, "stop")
		_ = os.RemoveAll(dir)
	})
	return c
}

// run runs .ci/postgres.sh with cmd on the cluster.
func (c *cluster) run(t *testing.T, cmd string) string {
	t.Helper()
	script, err := filepath.Abs("../../.ci/postgres.sh")
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command(script, cmd)
	x.Env = append(os.Environ(), "UNDERSTUDY_PG_DIR="+c.dir)
	out, err := x.Output()
	if err != nil {
		t.Fatalf("postgres.sh %s: %v", cmd, err)
	}
	return string(out)
}

// hookLog is an event destination's endpoint that notes the events delivered to it.
type hookLog struct {
	mu     sync.Mutex
	bodies []string
	n      atomic.Int64
}

func newHookLog() *hookLog { return &hookLog{} }

func (h *hookLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body strings.Builder
	_, _ = fmt.Fprint(&body, readAll(r))
	h.mu.Lock()
	h.bodies = append(h.bodies, body.String())
	h.mu.Unlock()
	h.n.Add(1)
}

func (h *hookLog) count() int { return int(h.n.Load()) }

// wait reports whether an event naming id arrives within d.
func (h *hookLog) wait(id string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		h.mu.Lock()
		for _, b := range h.bodies {
			if strings.Contains(b, id) {
				h.mu.Unlock()
				return true
			}
		}
		h.mu.Unlock()
	}
	return false
}

func readAll(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

func jsonDecode(resp *http.Response, v any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
