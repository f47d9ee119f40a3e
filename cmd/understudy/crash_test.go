package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
)

// TestCrashKeepsAcknowledgedWrites is the durability test: the binary runs on a data dir
// while workers write to every API at once; it is killed with SIGKILL at a random moment,
// restarted on the same dir, and every write it acknowledged must be there (and nothing it
// refused or deleted), lists must agree with single reads, and requests whose answer was
// lost in the crash must be retryable. Several rounds, each on the state of the last.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	crashRounds(t, "--data-dir", t.TempDir())
}

// TestCrashKeepsAcknowledgedWritesPostgres is the same on the PostgreSQL store: a process
// killed with SIGKILL loses nothing it acknowledged.
func TestCrashKeepsAcknowledgedWritesPostgres(t *testing.T) {
	crashRounds(t, "--store", pgtest.URL(t))
}

// crashRounds runs the durability test on the binary started with storeFlags.
func crashRounds(t *testing.T, storeFlags ...string) {
	bin := buildBinary(t)
	flags := append(storeFlags, "--log-level", "error", "--compute-operation-mode", "200ms")
	l := newLedger()
	// A server on PostgreSQL cannot tell whether other replicas share its database, so the
	// keys its killed predecessor held stay in flight until their limit, as on a shared one.
	l.shared = storeFlags[0] == "--store"
	const rounds = 4
	for round := range rounds {
		p := startBinary(t, bin, flags...)
		l.verify(t, p.base, round)
		if t.Failed() {
			p.kill(t)
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Add(3)
			go func() { defer wg.Done(); l.assignments(ctx, p.base, round, w) }()
			go func() { defer wg.Done(); l.accounts(ctx, p.base) }()
			go func() { defer wg.Done(); l.rules(ctx, p.base, round, w) }()
		}
		time.Sleep(time.Duration(300+mrand.IntN(700)) * time.Millisecond)
		p.kill(t)
		cancel()
		wg.Wait()
		t.Logf("round %d: killed with %d role assignments, %d accounts, %d rules acknowledged so far", round, l.count(l.ra), len(l.accts), len(l.rls))
	}
	p := startBinary(t, bin, flags...)
	defer p.kill(t)
	l.verify(t, p.base, rounds)
}

type process struct {
	cmd  *exec.Cmd
	base string
}

// startBinary runs bin on a free port with these flags besides, once it has logged its
// address (the rest of its log is discarded).
func startBinary(t *testing.T, bin string, flags ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0"}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		_ = cmd.Process.Kill()
		t.Fatalf("no start-up line: %v", lines.Err())
	}
	var first struct{ Addr string }
	if err := json.Unmarshal(lines.Bytes(), &first); err != nil || first.Addr == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("start-up line %q", lines.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return &process{cmd: cmd, base: "http://" + first.Addr}
}

func (p *process) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
}

// ledger is what the server acknowledged, and what it may or may not have done (requests
// whose answer the crash swallowed).
type ledger struct {
	hc *http.Client

	mu sync.Mutex
	// ra: role assignment path -> true (created) or false (deleted); maybeRA: unknown outcome.
	ra, maybeRA map[string]bool
	// accts: account ids; maybeKeys: Idempotency-Keys of account creations with no answer.
	accts     map[string]bool
	maybeKeys []string
	// links: paths of acknowledged, never visited links.
	links []string
	// rls: rule path -> the label value last acknowledged; maybeLabel: one that may have been
	// applied after it.
	rls, maybeLabel map[string]string
	// ops: operation name -> rule path, for inserts acknowledged before they were DONE.
	ops map[string]string
	// subs: subscriptions written to, for list checks.
	subs map[string]bool
	// odd: answers no worker expected, reported by verify.
	odd []string
	// outage: the database is being restarted, so a 503 is an expected answer of unknown
	// outcome; unavailable counts them.
	outage      atomic.Bool
	unavailable atomic.Int64
	// shared: the servers are on a database others may share (PostgreSQL).
	shared bool
}

func newLedger() *ledger {
	return &ledger{
		hc: &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		ra: map[string]bool{}, maybeRA: map[string]bool{}, accts: map[string]bool{},
		rls: map[string]string{}, maybeLabel: map[string]string{}, subs: map[string]bool{}, ops: map[string]string{},
	}
}

func (l *ledger) count(m map[string]bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// unexpected notes an answer no worker expected.
func (l *ledger) unexpected(method, path string, code int, body map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.odd = append(l.odd, fmt.Sprintf("%s %s: %d %v", method, path, code, body))
}

// call sends a request; err is set when no answer came (the server died).
func (l *ledger) call(ctx context.Context, method, u string, headers map[string]string, body string) (int, map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := l.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if resp.StatusCode == http.StatusServiceUnavailable && l.outage.Load() {
		// The database is down (replicas_test.go): the outcome is unknown, as when no
		// answer came.
		l.unavailable.Add(1)
		return 0, nil, fmt.Errorf("%s %s: 503 during the database's restart: %v", method, u, out)
	}
	return resp.StatusCode, out, nil
}

func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

var (
	crashARM  = map[string]string{"Authorization": "Bearer crash-test"}
	crashAcct = map[string]string{"Authorization": "Bearer sk_test_crash1", "Service-Version": "2026-05-27.dahlia"}
)

const (
	crashProject = "/compute/v1/projects/crash-project/global/forwardingRules"
	crashOps     = "/compute/v1/projects/crash-project/global/operations/"
)

// assignments creates role assignments and deletes every fourth one it made.
func (l *ledger) assignments(ctx context.Context, base string, round, w int) {
	sub := fmt.Sprintf("00000000-0000-4000-8000-%012d", round*100+w)
	l.mu.Lock()
	l.subs[sub] = true
	l.mu.Unlock()
	var mine []string
	for i := 0; ctx.Err() == nil; i++ {
		path := "/subscriptions/" + sub + "/resourceGroups/rg-" + fmt.Sprint(i%3) + "/providers/Vendor.Authorization/roleAssignments/" + uuid()
		body := `{"properties":{"principalId":"` + uuid() + `","roleDefinitionId":"/subscriptions/` + sub + `/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`
		method, want, created := "PUT", 201, true
		if i%4 == 3 && len(mine) > 0 {
			path, mine = mine[0], mine[1:]
			method, want, created, body = "DELETE", 200, false, ""
		}
		l.mu.Lock()
		l.maybeRA[path] = true
		l.mu.Unlock()
		code, out, err := l.call(ctx, method, base+path+"?api-version=2022-04-01", crashARM, body)
		if err != nil {
			return
		}
		l.mu.Lock()
		if code == want {
			delete(l.maybeRA, path)
			l.ra[path] = created
		}
		l.mu.Unlock()
		if code != want {
			l.unexpected(method, path, code, out)
			return
		}
		if created {
			mine = append(mine, path)
		}
	}
}

// accounts creates accounts with Idempotency-Keys and a link for each.
func (l *ledger) accounts(ctx context.Context, base string) {
	for ctx.Err() == nil {
		key := uuid()
		headers := map[string]string{"Idempotency-Key": key}
		for k, v := range crashAcct {
			headers[k] = v
		}
		code, a, err := l.call(ctx, "POST", base+"/v2/core/accounts", headers, `{"display_name":"Crash","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`)
		if err != nil {
			l.mu.Lock()
			l.maybeKeys = append(l.maybeKeys, key)
			l.mu.Unlock()
			return
		}
		if code != 200 {
			l.unexpected("POST", "/v2/core/accounts", code, a)
			return
		}
		id := a["id"].(string)
		l.mu.Lock()
		l.accts[id] = true
		l.mu.Unlock()
		code, link, err := l.call(ctx, "POST", base+"/v2/core/account_links", crashAcct,
			`{"account":"`+id+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://platform.example/refresh","return_url":"https://platform.example/return"}}}`)
		if err != nil {
			return
		}
		if code != 200 {
			l.unexpected("POST", "/v2/core/account_links", code, link)
			return
		}
		u, perr := url.Parse(link["url"].(string))
		if perr != nil {
			return
		}
		l.mu.Lock()
		l.links = append(l.links, u.Path)
		l.mu.Unlock()
	}
}

// rules inserts a rule, waits for its operation, then changes its labels in a chain: read
// the fingerprint, set.
func (l *ledger) rules(ctx context.Context, base string, round, w int) {
	for i := 0; ctx.Err() == nil; i++ {
		name := fmt.Sprintf("crash-%d-%d-%d", round, w, i)
		path := crashProject + "/" + name
		code, op, err := l.call(ctx, "POST", base+crashProject+"?requestId="+uuid(), crashARM, `{"name":"`+name+`","portRange":"443-443"}`)
		if err != nil {
			return
		}
		if code != 200 {
			l.unexpected("POST", crashProject, code, op)
			return
		}
		opName := op["name"].(string)
		l.mu.Lock()
		l.ops[opName] = path
		l.mu.Unlock()
		for op["status"] != "DONE" {
			if code, op, err = l.call(ctx, "POST", base+crashOps+opName+"/wait", crashARM, ""); err != nil {
				return
			}
			if code != 200 {
				l.unexpected("POST", crashOps+opName+"/wait", code, op)
				return
			}
		}
		l.mu.Lock()
		delete(l.ops, opName)
		l.rls[path] = ""
		l.mu.Unlock()
		for n := 1; n <= 5 && ctx.Err() == nil; n++ {
			code, rule, err := l.call(ctx, "GET", base+path, crashARM, "")
			if err != nil {
				return
			}
			if code != 200 {
				l.unexpected("GET", path, code, rule)
				return
			}
			value := fmt.Sprint(n)
			l.mu.Lock()
			l.maybeLabel[path] = value
			l.mu.Unlock()
			code, out, err := l.call(ctx, "POST", base+path+"/setLabels", crashARM,
				`{"labels":{"n":"`+value+`"},"labelFingerprint":"`+rule["labelFingerprint"].(string)+`"}`)
			if err != nil {
				return
			}
			l.mu.Lock()
			delete(l.maybeLabel, path)
			if code == 200 {
				l.rls[path] = value
			}
			l.mu.Unlock()
			if code != 200 {
				l.unexpected("POST", path+"/setLabels", code, out)
				return
			}
		}
	}
}

// verify checks the restarted server against the ledger, then settles what was uncertain.
func (l *ledger) verify(t *testing.T, base string, round int) {
	t.Helper()
	ctx := context.Background()
	l.mu.Lock()
	defer l.mu.Unlock()
	get := func(path string, headers map[string]string) (int, map[string]any) {
		code, out, err := l.call(ctx, "GET", base+path, headers, "")
		if err != nil {
			t.Fatalf("round %d: GET %s: %v", round, path, err)
		}
		return code, out
	}
	for path, exists := range l.ra {
		if l.maybeRA[path] {
			continue
		}
		code, _ := get(path+"?api-version=2022-04-01", crashARM)
		if exists && code != 200 || !exists && code != 404 {
			t.Errorf("round %d: acknowledged %s (exists=%v) reads %d", round, path, exists, code)
		}
	}
	// Lists agree with single reads: every listed assignment was at least attempted, and
	// every acknowledged one is listed.
	for sub := range l.subs {
		listed := map[string]bool{}
		next := base + "/subscriptions/" + sub + "/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01"
		for next != "" {
			code, page, err := l.call(ctx, "GET", next, crashARM, "")
			if err != nil || code != 200 {
				t.Fatalf("round %d: list %s: %d %v", round, sub, code, err)
			}
			for _, v := range page["value"].([]any) {
				listed["/"+strings.TrimPrefix(v.(map[string]any)["id"].(string), "/")] = true
			}
			next, _ = page["nextLink"].(string)
		}
		for path, exists := range l.ra {
			if strings.Contains(path, sub) && !l.maybeRA[path] && exists != listed[path] {
				t.Errorf("round %d: %s acknowledged (exists=%v) but listed=%v", round, path, exists, listed[path])
			}
		}
		for path := range listed {
			if _, known := l.ra[path]; !known && !l.maybeRA[path] {
				t.Errorf("round %d: listed %s was never written", round, path)
			}
		}
	}
	for path := range l.maybeRA {
		code, _ := get(path+"?api-version=2022-04-01", crashARM)
		if code == 200 || code == 404 {
			l.ra[path] = code == 200
		}
	}
	clear(l.maybeRA)

	for id := range l.accts {
		if code, _ := get("/v2/core/accounts/"+id, crashAcct); code != 200 {
			t.Errorf("round %d: acknowledged account %s reads %d", round, id, code)
		}
	}
	// A creation whose answer was lost can be retried with its key: it replays or runs now,
	// never "in flight" forever. On a database other servers share, the key of a request
	// whose server died stays in flight (409, try again later) until its running limit
	// (30 s) has passed, as a client retrying a 409 finds: retried for up to 45 s.
	for _, key := range l.maybeKeys {
		headers := map[string]string{"Idempotency-Key": key}
		for k, v := range crashAcct {
			headers[k] = v
		}
		var code int
		var a map[string]any
		var err error
		for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			code, a, err = l.call(ctx, "POST", base+"/v2/core/accounts", headers, `{"display_name":"Crash","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`)
			if err != nil || code != 409 || !l.shared || time.Now().After(deadline) {
				break
			}
		}
		if err != nil || code != 200 {
			t.Errorf("round %d: retry of key %s after the crash: %d %v %v", round, key, code, err, a)
			continue
		}
		l.accts[a["id"].(string)] = true
	}
	l.maybeKeys = nil
	for _, path := range l.links {
		if code, _ := get(path, nil); code != 200 {
			t.Errorf("round %d: acknowledged link %s opens with %d, want the form", round, path, code)
		}
	}
	l.links = nil // visited: consumed now

	// Inserts acknowledged while their operation ran: the operation resumes and finishes.
	for opName, path := range l.ops {
		status := ""
		for range 20 {
			code, op, err := l.call(ctx, "POST", base+crashOps+opName+"/wait", crashARM, "")
			if err != nil || code != 200 {
				t.Fatalf("round %d: wait for %s: %d %v %v", round, opName, code, err, op)
			}
			if status, _ = op["status"].(string); status == "DONE" {
				break
			}
		}
		if status != "DONE" {
			t.Errorf("round %d: operation %s acknowledged before the crash never finished", round, opName)
		}
		l.rls[path] = ""
	}
	clear(l.ops)
	for path, value := range l.rls {
		code, rule := get(path, crashARM)
		if code != 200 {
			t.Errorf("round %d: acknowledged rule %s reads %d", round, path, code)
			continue
		}
		labels, _ := rule["labels"].(map[string]any)
		got, _ := labels["n"].(string)
		if got != value && got != l.maybeLabel[path] {
			t.Errorf("round %d: rule %s has label %q, acknowledged %q (maybe %q)", round, path, got, value, l.maybeLabel[path])
		}
		l.rls[path] = got
	}
	clear(l.maybeLabel)
	for _, odd := range l.odd {
		t.Errorf("before round %d's crash: %s", round, odd)
	}
	l.odd = nil
}

// buildBinary builds the command into a temporary directory; -short skips the test.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "understudy")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}
