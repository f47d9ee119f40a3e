// Command scale measures understudy at size and over time, the two things the per-operation
// harness (make bench) does not:
//
//	cd bench && go run ./scale -mode assignments -n 1000000
//
// starts understudy, measures role-assignment PUT latency on the empty store, loads n role
// assignments over HTTP (10 per resource group, 1000 per subscription), then reports the
// server's RSS, list-by-scope latency (a resource group of 10; a subscription:
// the first page) and PUT latency again.
//
//	cd bench && go run ./scale -mode soak -duration 60s -retention 15s
//
// runs a steady compute load (insert a forwarding rule, delete it: both answer operations)
// and samples the server's RSS every few seconds: once the retention period has passed,
// finished operations are collected as fast as they are made, and RSS must stay flat.
//
//	cd bench && go run ./scale -mode links -duration 180s -retention 20s [-durable]
//
// runs a steady accounts load (create an account link with a fresh Idempotency-Key, as
// stripe-go sends on every POST) with short link lifetime, link retention and Idempotency-Key
// window, and samples RSS (and with -durable the --data-dir file's size): once links and keys
// are removed as fast as they are made, both must stay flat.
//
// All print Markdown. Run them on a quiet machine; numbers depend on it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	mode := flag.String("mode", "assignments", "assignments, soak or links")
	n := flag.Int("n", 1_000_000, "assignments: how many role assignments to load")
	conns := flag.Int("connections", 64, "concurrent connections for loads")
	samples := flag.Int("samples", 2000, "assignments: requests per latency measurement")
	flag.IntVar(&latencyConns, "latency-connections", 1, "assignments: connections for the latency measurements (1: one request at a time)")
	duration := flag.Duration("duration", 60*time.Second, "soak: how long the load runs")
	retention := flag.Duration("retention", 15*time.Second, "soak: --compute-operation-retention of the server; links: --accounts-link-retention and --accounts-idempotency-window")
	src := flag.String("src", "..", "checkout of understudy to build it from (bench is a module of its own in its bench/ directory)")
	serverArgs := flag.String("server-args", "", "extra flags for understudy, e.g. \"--memory-limit 900MiB\"")
	durable := flag.Bool("durable", false, "assignments: run understudy with --data-dir, and time a restart after the load; links: run it with --data-dir and report the file's size")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "understudy-scale-")
	check(err)
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "understudy")
	build := exec.Command("go", "build", "-o", bin, "./cmd/understudy")
	build.Dir, build.Stderr = *src, os.Stderr
	check(build.Run())

	fmt.Printf("Machine: %d CPUs, %s; %s\n\n", runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	switch *mode {
	case "assignments":
		extra := strings.Fields(*serverArgs)
		dataDir := ""
		if *durable {
			dataDir = filepath.Join(tmp, "data")
			extra = append(extra, "--data-dir", dataDir)
		}
		assignments(bin, extra, dataDir != "", *n, *conns, *samples)
	case "soak":
		soak(bin, strings.Fields(*serverArgs), *duration, *retention, *conns)
	case "links":
		dataDir := ""
		if *durable {
			dataDir = filepath.Join(tmp, "data")
		}
		linkSoak(bin, strings.Fields(*serverArgs), dataDir, *duration, *retention, *conns)
	default:
		check(fmt.Errorf("unknown -mode %q", *mode))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

type proc struct {
	cmd  *exec.Cmd
	base string
}

func start(bin string, args ...string) *proc {
	cmd := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--log-level", "warn"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		check(fmt.Errorf("no start-up line"))
	}
	var first struct{ Addr string }
	check(json.Unmarshal(lines.Bytes(), &first))
	go func() { _, _ = io.Copy(os.Stderr, stderr) }()
	return &proc{cmd: cmd, base: "http://" + first.Addr}
}

func (p *proc) stop() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() }

func (p *proc) rss() (cur, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	check(err)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.ParseFloat(f[1], 64)
			if f[0] == "VmRSS:" {
				cur = kb / 1024
			} else {
				peak = kb / 1024
			}
		}
	}
	return cur, peak
}

var hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}

// do sends one request and returns its status and latency; the body is drained.
func do(method, url, body string) (int, time.Duration, []byte) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	check(err)
	req.Header.Set("Authorization", "Bearer scale")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	t0 := time.Now()
	resp, err := hc.Do(req)
	check(err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(t0), b
}

// parallel runs f(i) for i in [0, n) on conns goroutines.
func parallel(n, conns int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

func uuidOf(kind, i int) string { return fmt.Sprintf("%08x-%04x-4000-8000-%012x", i, kind, i) }

const reader = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

func scopeOf(i int) (sub, rg string) {
	sub = uuidOf(1, i/1000)
	return sub, "/subscriptions/" + sub + "/resourceGroups/rg-" + strconv.Itoa(i/100)
}

func putAssignment(base string, i int) (int, time.Duration) {
	sub, rg := scopeOf(i)
	code, d, _ := do("PUT", base+rg+"/providers/Vendor.Authorization/roleAssignments/"+uuidOf(2, i)+"?api-version=2022-04-01",
		`{"properties":{"principalId":"`+uuidOf(3, i)+`","roleDefinitionId":"/subscriptions/`+sub+`/providers/Vendor.Authorization/roleDefinitions/`+reader+`"}}`)
	return code, d
}

// latencyConns is how many connections the latency measurements use.
var latencyConns = 1

// latencies runs f count times on latencyConns connections and returns p50 and p99.
func latencies(count int, f func(i int) (int, time.Duration)) (p50, p99 time.Duration) {
	ds := make([]time.Duration, count)
	var bad atomic.Int64
	parallel(count, latencyConns, func(i int) {
		code, d := f(i)
		if code >= 300 {
			bad.Add(1)
		}
		ds[i] = d
	})
	if bad.Load() > 0 {
		check(fmt.Errorf("%d of %d requests failed", bad.Load(), count))
	}
	slices.Sort(ds)
	return ds[count/2], ds[count*99/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func assignments(bin string, extra []string, durable bool, n, conns, samples int) {
	args := append([]string{"--authz-max-per-subscription", "1000"}, extra...)
	p := start(bin, args...)
	defer func() { p.stop() }()
	idle, _ := p.rss()
	// PUTs on the empty store use indexes far beyond the load's, so they land in their own
	// subscriptions and never collide with it.
	emptyP50, emptyP99 := latencies(samples, func(i int) (int, time.Duration) { return putAssignment(p.base, 10*n+i) })

	t0 := time.Now()
	var failed atomic.Int64
	parallel(n, conns, func(i int) {
		if code, _ := putAssignment(p.base, i); code != 201 {
			failed.Add(1)
		}
	})
	load := time.Since(t0)
	if failed.Load() > 0 {
		check(fmt.Errorf("%d of %d PUTs failed", failed.Load(), n))
	}
	runtime.GC()
	time.Sleep(2 * time.Second) // let the server's heap settle after the load
	rss, peak := p.rss()

	rgP50, rgP99 := latencies(samples, func(i int) (int, time.Duration) {
		_, rg := scopeOf((i * 7919 % n / 10) * 10)
		code, d, _ := do("GET", p.base+rg+"/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", "")
		return code, d
	})
	subP50, subP99 := latencies(samples/4, func(i int) (int, time.Duration) {
		sub, _ := scopeOf((i * 7919 % n / 1000) * 1000)
		code, d, _ := do("GET", p.base+"/subscriptions/"+sub+"/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01", "")
		return code, d
	})
	fullP50, fullP99 := latencies(samples, func(i int) (int, time.Duration) { return putAssignment(p.base, 20*n+i) })

	var restart time.Duration
	var restartRSS float64
	if durable {
		// Stop (SIGTERM, draining) and start again on the same data dir: the time to the
		// start-up line is the time to read everything back.
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		_ = p.cmd.Wait()
		t0 := time.Now()
		p = start(bin, args...)
		restart = time.Since(t0)
		if code, _, _ := do("GET", p.base+"/_understudy/health", ""); code != 200 {
			check(fmt.Errorf("health after restart: %d", code))
		}
		restartRSS, _ = p.rss()
	}

	fmt.Printf("`cd bench && go run ./scale -mode assignments -n %d` (understudy %s; load over HTTP with %d connections; latencies with %d):\n\n", n, strings.Join(extra, " "), conns, latencyConns)
	fmt.Println("| measure | value |")
	fmt.Println("|---|---:|")
	fmt.Printf("| RSS idle, empty store | %.0f MiB |\n", idle)
	fmt.Printf("| load of %d role assignments | %.1f s (%.0f PUT/s) |\n", n, load.Seconds(), float64(n)/load.Seconds())
	fmt.Printf("| RSS with %d assignments (peak during the load) | %.0f MiB (%.0f MiB) |\n", n, rss, peak)
	fmt.Printf("| list a resource group (10 assignments; p50 / p99) | %s / %s |\n", ms(rgP50), ms(rgP99))
	fmt.Printf("| list a subscription's first page (p50 / p99) | %s / %s |\n", ms(subP50), ms(subP99))
	fmt.Printf("| PUT on the empty store (p50 / p99) | %s / %s |\n", ms(emptyP50), ms(emptyP99))
	fmt.Printf("| PUT with %d stored (p50 / p99) | %s / %s (p50 %+.0f%%) |\n", n, ms(fullP50), ms(fullP99),
		100*(float64(fullP50)/float64(emptyP50)-1))
	if durable {
		fmt.Printf("| restart with %d stored: start to listening (RSS after) | %.1f s (%.0f MiB) |\n", n, restart.Seconds(), restartRSS)
	}
}

func soak(bin string, extra []string, duration, retention time.Duration, conns int) {
	p := start(bin, append([]string{"--compute-operation-mode", "immediate", "--compute-operation-retention", retention.String()}, extra...)...)
	defer p.stop()
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var pairs, bad atomic.Int64
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rules := p.base + "/compute/v1/projects/soak-project/global/forwardingRules"
			for i := 0; ctx.Err() == nil; i++ {
				name := fmt.Sprintf("soak-%d-%d", w, i)
				if code, _, _ := do("POST", rules, `{"name":"`+name+`","portRange":"443-443"}`); code != 200 {
					bad.Add(1)
					continue
				}
				if code, _, _ := do("DELETE", rules+"/"+name, ""); code != 200 {
					bad.Add(1)
				}
				pairs.Add(1)
			}
		}()
	}
	type sample struct {
		at   time.Duration
		rss  float64
		done int64
	}
	var series []sample
	t0 := time.Now()
	tick := time.NewTicker(5 * time.Second)
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			rss, _ := p.rss()
			series = append(series, sample{time.Since(t0).Round(time.Second), rss, pairs.Load()})
		}
	}
	wg.Wait()
	fmt.Printf("`cd bench && go run ./scale -mode soak -duration %s -retention %s` (%d connections, each: insert a rule, delete it; operations finish at once):\n\n", duration, retention, conns)
	fmt.Println("| time | RSS | insert+delete pairs so far |")
	fmt.Println("|---:|---:|---:|")
	var after []float64
	for _, s := range series {
		fmt.Printf("| %s | %.0f MiB | %d |\n", s.at, s.rss, s.done)
		if s.at > 2*retention {
			after = append(after, s.rss)
		}
	}
	if len(after) >= 2 {
		lo, hi := slices.Min(after), slices.Max(after)
		fmt.Printf("\nAfter twice the retention: RSS between %.0f and %.0f MiB (spread %.0f%%); %d failed requests.\n", lo, hi, 100*(hi-lo)/lo, bad.Load())
	}
}

// linkSoak creates account links steadily, each with a fresh Idempotency-Key, on a server
// whose links expire after 5s and are removed retention later, with keys remembered for
// retention, and samples RSS (and the data file's size).
func linkSoak(bin string, extra []string, dataDir string, duration, retention time.Duration, conns int) {
	args := []string{"--accounts-link-lifetime", "5s", "--accounts-link-retention", retention.String(),
		"--accounts-idempotency-window", retention.String(), "--accounts-concurrency", "1000"}
	if dataDir != "" {
		args = append(args, "--data-dir", dataDir)
	}
	p := start(bin, append(args, extra...)...)
	defer p.stop()
	v2 := func(path, body, key string) (int, []byte) {
		req, err := http.NewRequest("POST", p.base+path, strings.NewReader(body))
		check(err)
		req.Header.Set("Authorization", "Bearer sk_test_soak")
		req.Header.Set("Service-Version", "2026-05-27.dahlia")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := hc.Do(req)
		check(err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, b
	}
	code, body := v2("/v2/core/accounts", `{"display_name":"Soak","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`, "soak-account")
	if code != 200 {
		check(fmt.Errorf("create account: %d %s", code, body))
	}
	var acct struct{ ID string }
	check(json.Unmarshal(body, &acct))
	link := `{"account":"` + acct.ID + `","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh","return_url":"https://example.com/return"}}}`
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var made, bad atomic.Int64
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if code, _ := v2("/v2/core/account_links", link, fmt.Sprintf("soak-%d-%d", w, i)); code != 200 {
					bad.Add(1)
					continue
				}
				made.Add(1)
			}
		}()
	}
	type sample struct {
		at   time.Duration
		rss  float64
		file float64
		done int64
	}
	fileSize := func() float64 {
		if dataDir == "" {
			return 0
		}
		var total int64
		_ = filepath.Walk(dataDir, func(_ string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				total += info.Size()
			}
			return nil
		})
		return float64(total) / (1 << 20)
	}
	var series []sample
	t0 := time.Now()
	tick := time.NewTicker(10 * time.Second)
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			rss, _ := p.rss()
			series = append(series, sample{time.Since(t0).Round(time.Second), rss, fileSize(), made.Load()})
		}
	}
	wg.Wait()
	durableFlag := ""
	if dataDir != "" {
		durableFlag = " -durable"
	}
	fmt.Printf("`cd bench && go run ./scale -mode links -duration %s -retention %s -connections %d%s` (links live 5s, then kept %s; keys kept %s):\n\n", duration, retention, conns, durableFlag, retention, retention)
	fmt.Println("| time | RSS | data file | links made so far |")
	fmt.Println("|---:|---:|---:|---:|")
	var after, files []float64
	for _, s := range series {
		fmt.Printf("| %s | %.0f MiB | %.1f MiB | %d |\n", s.at, s.rss, s.file, s.done)
		if s.at > 3*retention {
			after = append(after, s.rss)
			files = append(files, s.file)
		}
	}
	if len(after) >= 2 {
		lo, hi := slices.Min(after), slices.Max(after)
		fmt.Printf("\nAfter three times the retention: RSS between %.0f and %.0f MiB (spread %.0f%%)", lo, hi, 100*(hi-lo)/lo)
		if dataDir != "" {
			fmt.Printf(", data file between %.1f and %.1f MiB", slices.Min(files), slices.Max(files))
		}
		fmt.Printf("; %d failed requests.\n", bad.Load())
	}
}
