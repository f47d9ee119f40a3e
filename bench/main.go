// Command bench measures understudy's throughput and latency on its seed operations against
// a bare Echo server (bench/baseline) and the ceiling of its stack, an Echo server that only
// runs kin-openapi's request validation with understudy's specs and options
// (bench/ceiling), on the same machine, and prints a Markdown report.
//
//	make bench BENCHFLAGS="-duration 3s -ops roleassign,frinsert"
//	cd bench && go run . -h
//
// It builds the three servers into a temporary directory, starts each once on 127.0.0.1 with
// a free port (pinned to CPU 1 with taskset when there are two CPUs or more; the harness then
// keeps to CPU 0), and for each operation alternates baseline, ceiling and understudy runs
// (-rounds times each) with a vegeta attack at the highest rate -connections connections
// sustain.
// Medians of the rounds are reported. It also measures start-to-healthy time and RSS.
//
// With -durable (the default) it also starts understudy with the same flags plus
// --data-dir (state on disk, every acknowledged write synced first), pinned to the same CPU,
// with its own state and setup, runs it after the memory target in each round, and prints
// durable against memory. The data directory is a fresh one in the harness's temporary
// directory, or in the -src checkout (.bench-data-*) when that one is in memory (tmpfs),
// and is removed on exit.
//
// Every subprocess is stopped on exit, error or Ctrl-C (and killed by the kernel if the
// harness itself is killed); every phase is bounded in time (-timeout); traffic goes to
// loopback addresses only (the dialer refuses others).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

type config struct {
	duration    time.Duration
	connections int
	ops         []string
	rounds      int
	starts      int
	accounts    int
	rules       int
	src         string
	pin         bool
	timeout     time.Duration
	quietWait   time.Duration
	retries     int
	durable     bool
	reset       bool
}

// noisyCores: a run during which the rest of the machine used more CPU than this is redone
// (up to -retries times), keeping the quietest attempt.
const noisyCores = 0.3

// waitQuiet waits, at most max, until the machine is nearly idle (other processes use less
// than 0.15 cores over half a second): this machine may be shared.
func waitQuiet(ctx context.Context, max time.Duration) {
	if max <= 0 {
		return
	}
	deadline := time.Now().Add(max)
	told := false
	for time.Now().Before(deadline) && ctx.Err() == nil {
		b0, _ := machineCPU()
		time.Sleep(500 * time.Millisecond)
		b1, _ := machineCPU()
		busy := float64(b1-b0) / float64(500*time.Millisecond)
		if busy < 0.15 {
			return
		}
		if !told {
			progress("the machine is busy (%.2f cores used by other processes): waiting up to %s for it to calm down", busy, max)
			told = true
		}
	}
}

func main() {
	os.Exit(run())
}

func run() int {
	var c config
	var ops string
	flag.DurationVar(&c.duration, "duration", 5*time.Second, "length of each run (one side, one round, one operation)")
	flag.IntVar(&c.connections, "connections", 64, "connections (and vegeta workers) per run")
	flag.StringVar(&ops, "ops", "", "comma-separated operations to run (default all): "+strings.Join(opKeys(), ","))
	flag.IntVar(&c.rounds, "rounds", 3, "baseline/target alternations per operation; medians are reported")
	flag.IntVar(&c.starts, "starts", 10, "starts of understudy for the start-to-healthy median")
	flag.IntVar(&c.accounts, "accounts", 2000, "accounts created for the account-link runs")
	flag.IntVar(&c.rules, "rules", 512, "forwarding rules carrying the setLabels chains")
	flag.StringVar(&c.src, "src", "..", "directory (a checkout of understudy) to build understudy from; bench is a module of its own in its bench/ directory")
	flag.BoolVar(&c.pin, "pin", true, "pin servers to CPU 1 and the harness to CPU 0 with taskset, when it exists and there are 2+ CPUs")
	flag.DurationVar(&c.timeout, "timeout", 0, "bound on the whole run (default: from the other flags)")
	flag.DurationVar(&c.quietWait, "quiet-wait", 10*time.Second, "before each run, wait up to this long for other processes to leave the CPUs idle (0: don't)")
	flag.IntVar(&c.retries, "retries", 1, "times a run is redone when other processes used more than 0.3 cores during it")
	flag.BoolVar(&c.durable, "durable", true, "also run understudy with --data-dir (state on disk, synced writes) after the memory target in each round, and compare the two")
	flag.BoolVar(&c.reset, "reset", true, "reset understudy to its seed (POST /_understudy/reset) and redo the operation's setup before each run, so that every round of a row measures the same thing, not the state the runs before it left; false: set up once per operation and keep everything")
	flag.Parse()
	if flag.NArg() > 0 || c.duration <= 0 || c.connections < 1 || c.rounds < 1 || c.starts < 1 || c.accounts < 1 || c.rules < 1 {
		fmt.Fprintln(os.Stderr, "bench: bad flags (see -h)")
		return 2
	}
	all := operations()
	var selected []*operation
	if ops == "" {
		selected = all
	} else {
		for _, k := range strings.Split(ops, ",") {
			k = strings.TrimSpace(k)
			i := slices.IndexFunc(all, func(o *operation) bool { return o.key == k })
			if i < 0 {
				fmt.Fprintf(os.Stderr, "bench: unknown operation %q; known: %s\n", k, strings.Join(opKeys(), ","))
				return 2
			}
			selected = append(selected, all[i])
		}
	}
	if c.timeout == 0 {
		sides := 3
		if c.durable {
			sides = 4
		}
		perOp := time.Minute + time.Duration(sides*c.rounds*(1+c.retries))*(c.duration+c.quietWait+15*time.Second)
		if c.durable {
			perOp += 2 * time.Minute // the setup against the durable server
		}
		c.timeout = 5*time.Minute + time.Duration(len(selected))*perOp
	}

	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stopSignals() // a second Ctrl-C kills the harness; the kernel then kills the servers
	}()
	defer stopAll()

	if err := bench(ctx, c, selected); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, context.Cause(ctx))
		}
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	return 0
}

func opKeys() []string {
	var k []string
	for _, o := range operations() {
		k = append(k, o.key)
	}
	return k
}

// result is everything the report prints.
type result struct {
	cfg        config
	started    time.Time
	machine    []string
	pinned     bool
	startTimes []time.Duration
	rss        map[string]float64
	idleBusy   float64 // cores busy on the machine in the second before the runs
	noisyRuns  int     // runs kept although other processes used more than noisyCores
	// targetRequests is every request the attacks sent to understudy (setup not included).
	targetRequests int
	ops            []*opResult
	// With -durable: where the durable server kept its state, the filesystem there, and
	// how many bytes the directory held after the runs.
	dataDir      string
	dataFS       string
	dataDirBytes int64
}

type opResult struct {
	op               *operation
	target, baseline []*runStats
	ceiling          []*runStats // Echo + kin-openapi's validation
	durable          []*runStats // understudy --data-dir (-durable)
	discarded        []*runStats // runs redone because other processes used the CPUs
}

func bench(ctx context.Context, c config, selected []*operation) error {
	r := &result{cfg: c, started: time.Now().UTC(), rss: map[string]float64{}}
	r.machine = machineInfo(ctx, c.src)

	tmp, err := os.MkdirTemp("", "understudy-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	usBin, baseBin, ceilBin := filepath.Join(tmp, "understudy"), filepath.Join(tmp, "baseline"), filepath.Join(tmp, "ceiling")
	progress("building understudy (%s), the Echo baseline and the Echo+kin ceiling", c.src)
	if err := goBuild(ctx, c.src, usBin, "./cmd/understudy"); err != nil {
		return err
	}
	if err := goBuild(ctx, ".", baseBin, "./baseline"); err != nil {
		return err
	}
	if err := goBuild(ctx, ".", ceilBin, "./ceiling"); err != nil {
		return err
	}

	// The load generator is the bottleneck against the bare baseline: collect its garbage
	// less often (measured: ~15% more requests per core). The servers are not told anything:
	// understudy runs with its own GC percent default (GOGC when set), the baseline with
	// the environment's GOGC.
	debug.SetGCPercent(400)
	// Pin after building (the compiler may use every CPU).
	serverCPU := -1
	if _, err := exec.LookPath("taskset"); err == nil && c.pin && runtime.NumCPU() >= 2 {
		out, err := exec.CommandContext(ctx, "taskset", "-a", "-p", "-c", "0", fmt.Sprint(os.Getpid())).CombinedOutput()
		if err != nil {
			return fmt.Errorf("taskset the harness to CPU 0: %v: %s", err, out)
		}
		runtime.GOMAXPROCS(1)
		serverCPU, r.pinned = 1, true
	}

	usArgs := []string{usBin, "--addr", "127.0.0.1:0", "--compute-operation-mode", "immediate"}
	progress("start to healthy: %d starts", c.starts)
	waitQuiet(ctx, c.quietWait)
	for i := 0; i < c.starts; i++ {
		t0 := time.Now()
		s, err := startServer(ctx, "understudy", serverCPU, 10*time.Second, append(usArgs, "--log-level", "info")...)
		if err != nil {
			return err
		}
		r.startTimes = append(r.startTimes, time.Since(t0))
		s.stop()
	}

	us, err := startServer(ctx, "understudy", serverCPU, 10*time.Second, append(usArgs, "--log-level", "warn")...)
	if err != nil {
		return err
	}
	defer us.stop()
	base, err := startServer(ctx, "baseline", serverCPU, 10*time.Second, baseBin, "--addr", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer base.stop()
	ceil, err := startServer(ctx, "ceiling", serverCPU, 10*time.Second, ceilBin, "--addr", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ceil.stop()
	progress("understudy on %s (pid %d), baseline on %s (pid %d), ceiling on %s (pid %d)", us.addr, us.pid, base.addr, base.pid, ceil.addr, ceil.pid)
	var dur *server // understudy --data-dir, with -durable
	if c.durable {
		dir, cleanup, err := durableDataDir(tmp, c.src)
		if err != nil {
			return err
		}
		defer cleanup()
		r.dataDir = dir
		dur, err = startServer(ctx, "durable", serverCPU, 30*time.Second, append(usArgs, "--log-level", "warn", "--data-dir", dir)...)
		if err != nil {
			return err
		}
		defer dur.stop() // before cleanup removes its directory
		r.dataFS = filesystemOf(ctx, dir)
		progress("understudy --data-dir %s (%s) on %s (pid %d)", dir, r.dataFS, dur.addr, dur.pid)
	}
	time.Sleep(500 * time.Millisecond)
	r.rss["understudy idle after start"], _ = rssMiB(us.pid, "VmRSS")
	r.rss["baseline idle after start"], _ = rssMiB(base.pid, "VmRSS")
	r.rss["ceiling idle after start"], _ = rssMiB(ceil.pid, "VmRSS")
	if dur != nil {
		r.rss[rssDurableIdle], _ = rssMiB(dur.pid, "VmRSS")
	}

	// How busy is the machine without us? Other processes' load skews every number.
	b0, _ := machineCPU()
	time.Sleep(time.Second)
	b1, _ := machineCPU()
	r.idleBusy = float64(b1-b0) / float64(time.Second)

	setupClient := &http.Client{Transport: loopbackTransport(16), Timeout: 10 * time.Second}
	defer setupClient.CloseIdleConnections()
	w := newWorld(setupClient, "http://"+us.addr, c.accounts, c.rules)
	// The durable server has its own state, so its own world: names, setup and chains.
	type side struct {
		s       *server
		w       *world
		target  bool // understudy (answers checked), memory or durable
		durable bool
		ceiling bool
	}
	sides := []side{{base, w, false, false, false}, {ceil, w, false, false, true}, {us, w, true, false, false}}
	if dur != nil {
		sides = append(sides, side{dur, newWorld(setupClient, "http://"+dur.addr, c.accounts, c.rules), true, true, false})
	}
	// prepare brings a target to the state a run of op starts from: its seed (with -reset)
	// and op's setup.
	prepare := func(op *operation, sd side) error {
		if c.reset {
			if err := sd.w.reset(ctx); err != nil {
				return fmt.Errorf("%s: reset %s: %w%s", op.key, sd.s.name, err, sd.s.stderrTail())
			}
		}
		if op.setup == nil {
			return nil
		}
		progress("[%s] setup (%s)", op.key, sd.s.name)
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		if err := op.setup(sctx, sd.w); err != nil {
			return fmt.Errorf("%s setup (%s): %w%s", op.key, sd.s.name, err, sd.s.stderrTail())
		}
		return nil
	}
	for _, op := range selected {
		res := &opResult{op: op}
		r.ops = append(r.ops, res)
		// Prepared once before the rounds: the baseline's requests use the setup's names too.
		for _, sd := range sides {
			if sd.target {
				if err := prepare(op, sd); err != nil {
					return err
				}
			}
		}
		for round := 1; round <= c.rounds; round++ {
			for _, side := range sides {
				if err := ctx.Err(); err != nil {
					return err
				}
				var rs *runStats
				for attempt := 0; ; attempt++ {
					if side.target && c.reset && (round > 1 || attempt > 0) {
						if err := prepare(op, side); err != nil {
							return err
						}
					}
					waitQuiet(ctx, c.quietWait)
					drv := op.driver(side.w, "http://"+side.s.addr, side.target)
					run := attack(ctx, drv, c.connections, c.duration, side.s.pid, side.target)
					if side.target && !side.durable {
						for _, g := range run.groups {
							r.targetRequests += g.count
						}
					}
					select {
					case <-side.s.exited:
						return fmt.Errorf("%s exited during %s: %v%s", side.s.name, op.key, side.s.err, side.s.stderrTail())
					default:
					}
					if err := ctx.Err(); err != nil {
						return err
					}
					m := run.groups[mainGroup(op)]
					if m == nil {
						m = &groupStats{}
					}
					progress("[%s] round %d/%d %-10s %8.0f req/s  p50 %s  p99 %s  errors %d  (cores: server %.2f, harness %.2f, rest of the machine %.2f)",
						op.key, round, c.rounds, side.s.name, m.rps, ms(m.p50), ms(m.p99), sumErrs(m.errs), run.serverCPU, run.loaderCPU, run.otherCPU)
					switch {
					case rs == nil || run.otherCPU < rs.otherCPU:
						if rs != nil {
							res.discarded = append(res.discarded, rs)
						}
						rs = run
					default:
						res.discarded = append(res.discarded, run)
					}
					if rs.otherCPU <= noisyCores || attempt >= c.retries {
						break
					}
					progress("[%s] other processes used %.2f cores during that run: running it again", op.key, run.otherCPU)
				}
				if rs.otherCPU > noisyCores {
					r.noisyRuns++
				}
				switch {
				case side.durable:
					res.durable = append(res.durable, rs)
				case side.ceiling:
					res.ceiling = append(res.ceiling, rs)
				case side.target:
					res.target = append(res.target, rs)
				default:
					res.baseline = append(res.baseline, rs)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
	}
	r.rss["understudy after the runs"], _ = rssMiB(us.pid, "VmRSS")
	r.rss["understudy peak (VmHWM)"], _ = rssMiB(us.pid, "VmHWM")
	r.rss["baseline after the runs"], _ = rssMiB(base.pid, "VmRSS")
	if dur != nil {
		r.rss[rssDurableAfter], _ = rssMiB(dur.pid, "VmRSS")
		r.rss[rssDurablePeak], _ = rssMiB(dur.pid, "VmHWM")
		r.dataDirBytes = dirBytes(r.dataDir)
	}
	r.print(os.Stdout)
	return nil
}

const (
	rssDurableIdle  = "understudy --data-dir idle after start"
	rssDurableAfter = "understudy --data-dir after the runs"
	rssDurablePeak  = "understudy --data-dir peak (VmHWM)"
)

// durableDataDir picks the durable server's data directory: data in the harness's temporary
// directory tmp, unless tmp is in memory (tmpfs, ramfs), where fsync costs nothing and
// the comparison would mean nothing: then a fresh .bench-data-* directory in the src
// checkout. cleanup removes what was made outside tmp (tmp itself is removed by the caller).
func durableDataDir(tmp, src string) (dir string, cleanup func(), err error) {
	if !inMemoryFS(tmp) {
		return filepath.Join(tmp, "data"), func() {}, nil
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", nil, err
	}
	parent, err := os.MkdirTemp(abs, ".bench-data-")
	if err != nil {
		return "", nil, fmt.Errorf("%s is in memory (tmpfs), and no data directory in %s: %w", tmp, abs, err)
	}
	progress("%s is in memory (tmpfs): the durable server keeps its data in %s instead (removed on exit)", tmp, parent)
	return filepath.Join(parent, "data"), func() { _ = os.RemoveAll(parent) }, nil
}

// inMemoryFS says whether dir is on tmpfs or ramfs (statfs, as stat -f does).
func inMemoryFS(dir string) bool {
	const tmpfsMagic, ramfsMagic = 0x01021994, 0x858458f6
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return uint32(st.Type) == tmpfsMagic || uint32(st.Type) == ramfsMagic
}

// filesystemOf describes the filesystem dir is on: type, device and mount point from
// df -T -P, else the type from stat -f.
func filesystemOf(ctx context.Context, dir string) string {
	if out, err := exec.CommandContext(ctx, "df", "-T", "-P", dir).Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		// Filesystem Type 1024-blocks Used Available Capacity Mounted-on
		if f := strings.Fields(lines[len(lines)-1]); len(lines) >= 2 && len(f) >= 7 {
			return fmt.Sprintf("%s (%s, mounted on %s)", f[1], f[0], strings.Join(f[6:], " "))
		}
	}
	if out, err := exec.CommandContext(ctx, "stat", "-f", "-c", "%T", dir).Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return "unknown"
}

// dirBytes is the size of the regular files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func mainGroup(op *operation) string {
	if len(op.groups) == 0 {
		return ""
	}
	return op.groups[0].name
}

func goBuild(ctx context.Context, dir, out, pkg string) error {
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", out, pkg)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s (in %s): %v\n%s", pkg, dir, err, buf.String())
	}
	return nil
}

func machineInfo(ctx context.Context, src string) []string {
	var lines []string
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	nproc := fmt.Sprint(runtime.NumCPU())
	if out, err := exec.CommandContext(ctx, "nproc").Output(); err == nil {
		nproc = strings.TrimSpace(string(out))
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	lines = append(lines, fmt.Sprintf("machine: nproc %s, %s, Linux %s", nproc, model, strings.TrimSpace(string(kernel))))
	goVersion := runtime.Version()
	if out, err := exec.CommandContext(ctx, "go", "version").Output(); err == nil {
		goVersion = strings.TrimSpace(string(out))
	}
	lines = append(lines, "Go: "+goVersion)
	var env []string
	for _, k := range []string{"GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GODEBUG"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if len(env) > 0 {
		lines = append(lines, "environment (passed to the servers): "+strings.Join(env, " "))
	}
	// Read-only git: which code was measured.
	if out, err := exec.CommandContext(ctx, "git", "-C", src, "rev-parse", "--short", "HEAD").Output(); err == nil {
		rev := strings.TrimSpace(string(out))
		if st, err := exec.CommandContext(ctx, "git", "-C", src, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			rev += fmt.Sprintf(" plus uncommitted changes in %d files", len(strings.Split(strings.TrimSpace(string(st)), "\n")))
		}
		lines = append(lines, "understudy source: "+src+" at "+rev)
	}
	vegetaVersion := "?"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tsenart/vegeta/v12" {
				vegetaVersion = d.Version
			}
		}
	}
	lines = append(lines, "load generator: vegeta "+vegetaVersion)
	return lines
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func sumErrs(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// --- report ---

func (r *result) print(out io.Writer) {
	c := r.cfg
	p := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	p("## understudy benchmark, %s", r.started.Format("2006-01-02 15:04 MST"))
	p("")
	for _, l := range r.machine {
		p("- %s", l)
	}
	if r.pinned {
		p("- pinning: yes (taskset): understudy, the baseline and the ceiling on CPU 1, the load generator on CPU 0 (the load generator itself with GOMAXPROCS 1 and GC percent 400; each server with its own defaults)")
	} else {
		p("- pinning: no (taskset missing, -pin=false or fewer than 2 CPUs): servers and load generator share the CPUs")
	}
	var others []float64
	for _, o := range r.ops {
		for _, rs := range slices.Concat(o.target, o.baseline, o.ceiling) {
			others = append(others, rs.otherCPU)
		}
	}
	noisy := ""
	if r.idleBusy > 0.15 || median(others) > 0.25 {
		noisy = " **Other processes were using the CPUs: the numbers are skewed (see the rest-of-the-machine column).**"
	}
	p("- machine load: %.2f cores busy in the second before the runs (servers idle); during the runs the rest of the machine used %.2f cores (median over runs).%s",
		r.idleBusy, median(others), noisy)
	if r.noisyRuns > 0 {
		p("- %d run(s) kept although other processes used more than %.1f cores during them (after %d retries and waits of up to %s)", r.noisyRuns, noisyCores, r.cfg.retries, r.cfg.quietWait)
	}
	p("- understudy flags: --log-level warn --compute-operation-mode immediate (other flags at their defaults)")
	if c.reset {
		p("- state: understudy is reset to its seed, and the operation's setup redone, before each run (each round starts from the same state; a run keeps what it creates)")
	} else {
		p("- state: understudy keeps everything every operation creates (-reset=false)")
	}
	p("- load: %d connections, %d workers, max rate, %s per run; per operation %d rounds of baseline, ceiling, then understudy; medians of the rounds",
		c.connections, c.connections, c.duration, c.rounds)
	p("- baseline: bare Echo answering constant JSON of understudy's sizes; ceiling: Echo running only kin-openapi's ValidateRequest per operation with understudy's specs and options, then the same constant JSON (bench/ceiling)")
	p("- req/s counts every answered request (errors included) over the run's first request to last answer; p50/p99 are understudy's latencies, errors included; errors are summed over the rounds")
	p("")
	p("| operation | understudy req/s | p50 | p99 | Echo req/s | Echo+kin req/s | ratio to Echo | ratio to Echo+kin | errors |")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, o := range r.ops {
		for _, g := range groupsOf(o.op) {
			t, b, k := summarize(o.target, g.name), summarize(o.baseline, g.name), summarize(o.ceiling, g.name)
			p("| %s | %.0f | %s | %s | %.0f | %.0f | %s | %s | %s |", g.title, t.rps, ms(t.p50), ms(t.p99), b.rps, k.rps,
				ratioText(t.rps, b.rps), ratioText(t.rps, k.rps), errText(t.errs, t.count))
		}
	}
	p("")
	if c.durable {
		r.printDurable(p)
	}
	p("### Start-up and memory (understudy)")
	p("")
	p("| measure | value |")
	p("|---|---:|")
	st := slices.Clone(r.startTimes)
	slices.Sort(st)
	if len(st) > 0 {
		p("| start to healthy (median of %d; min–max), exec to first 200 from /_understudy/health | %s (%s–%s) |",
			len(st), ms(st[len(st)/2]), ms(st[0]), ms(st[len(st)-1]))
	}
	for _, k := range []string{"understudy idle after start", "understudy after the runs", "understudy peak (VmHWM)", "baseline idle after start", "baseline after the runs",
		"ceiling idle after start", rssDurableIdle, rssDurableAfter, rssDurablePeak} {
		if v, ok := r.rss[k]; ok {
			p("| RSS, %s | %.1f MiB |", k, v)
		}
	}
	p("| requests sent to understudy by the runs (setup not counted) | %d |", r.targetRequests)
	if r.targetRequests > 0 {
		grow := r.rss["understudy after the runs"] - r.rss["understudy idle after start"]
		p("| RSS growth per request (after the runs minus idle, over those requests) | %.2f KiB |", grow*1024/float64(r.targetRequests))
	}
	p("")
	p("### Per operation: rounds, baseline latency, CPU, response size")
	p("")
	p("| operation | target req/s by round | baseline req/s by round | ceiling req/s by round | ceiling p99 | baseline p50 | baseline p99 | server CPU target / baseline (cores) | harness CPU target / baseline | rest of the machine target / baseline | req/s per server core target / baseline (ratio) | bottleneck target / baseline | response bytes target / baseline |")
	p("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
	for _, o := range r.ops {
		for _, g := range groupsOf(o.op) {
			t, b, k := summarize(o.target, g.name), summarize(o.baseline, g.name), summarize(o.ceiling, g.name)
			perCore := "n/a"
			if t.perCore > 0 && b.perCore > 0 {
				perCore = fmt.Sprintf("%.0f / %.0f (%.2f)", t.perCore, b.perCore, t.perCore/b.perCore)
			}
			p("| %s | %s | %s | %s | %s | %s | %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %s | %s / %s | %.0f / %.0f |", g.title, t.byRound, b.byRound, k.byRound, ms(k.p99), ms(b.p50), ms(b.p99),
				t.serverCPU, b.serverCPU, t.loaderCPU, b.loaderCPU, t.otherCPU, b.otherCPU, perCore, bottleneck(t, r.pinned), bottleneck(b, r.pinned), t.bytes, b.bytes)
		}
	}
	p("")
	p("Bottleneck: \"server\" when the server used ≥0.9 of its core, \"load generator\" when the harness used ≥0.95 of its core (the server could have done more: " +
		"its req/s is a lower bound and a ratio against it flatters understudy; compare req/s per server core instead), \"neither\" otherwise " +
		"(waiting: locks, sleeps, or other processes on the CPUs). req/s per server core counts every request of the run (for the setLabels chain, GETs and setLabels together).")
	p("")
	p("### Errors observed")
	p("")
	anyErr := false
	redone := "a run redone for noise (either side)"
	if c.durable {
		redone = "a run redone for noise (any side)"
	}
	for _, o := range r.ops {
		for _, g := range groupsOf(o.op) {
			for _, side := range []struct {
				name string
				runs []*runStats
			}{{"understudy", o.target}, {"baseline", o.baseline}, {"ceiling (Echo+kin)", o.ceiling}, {"understudy --data-dir", o.durable}, {redone, o.discarded}} {
				s := summarize(side.runs, g.name)
				kinds := make([]string, 0, len(s.errs))
				for k := range s.errs {
					kinds = append(kinds, k)
				}
				sort.Strings(kinds)
				for _, k := range kinds {
					anyErr = true
					p("- %s, %s: **%s** ×%d; first: `%s`", g.title, side.name, k, s.errs[k], strings.ReplaceAll(s.samples[k], "`", "'"))
				}
			}
		}
	}
	if !anyErr {
		p("None: every answer was the expected 2xx (and, for compute, the expected DONE operation).")
	}
	p("")
	p("### How each operation is driven")
	p("")
	for _, o := range r.ops {
		p("- **%s** (`-ops %s`): %s", o.op.title, o.op.key, o.op.how)
	}
}

// ratioText is a/b to two places, or "n/a" when b is zero.
func ratioText(a, b float64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// printDurable prints the durable (--data-dir) against memory table (-durable).
func (r *result) printDurable(p func(format string, args ...any)) {
	p("### Durable (--data-dir) vs memory")
	p("")
	p("| operation | memory req/s | memory p50 | memory p99 | durable req/s | durable p50 | durable p99 | ratio (durable/memory) | durable errors |")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, o := range r.ops {
		for _, g := range groupsOf(o.op) {
			m, d := summarize(o.target, g.name), summarize(o.durable, g.name)
			p("| %s | %.0f | %s | %s | %.0f | %s | %s | %s | %s |", g.title, m.rps, ms(m.p50), ms(m.p99), d.rps, ms(d.p50), ms(d.p99), ratioText(d.rps, m.rps), errText(d.errs, d.count))
		}
	}
	p("")
	size := ""
	if r.dataDirBytes > 0 {
		size = fmt.Sprintf("; %.1f MiB of files there after the runs", float64(r.dataDirBytes)/(1<<20))
	}
	warn := ""
	if strings.HasPrefix(r.dataFS, "tmpfs") || strings.HasPrefix(r.dataFS, "ramfs") {
		warn = " **In memory: fsync costs nothing there, so this understates the cost of durability.**"
	}
	p("- data dir filesystem: %s (the data dir was %s%s); fsync cost depends on the filesystem and the device under it.%s", r.dataFS, r.dataDir, size, warn)
	p("- durable: understudy with the same flags plus --data-dir (state in bbolt, every acknowledged write synced before the answer, group commit), pinned like the memory one, "+
		"with its own state and its own setup; in each round it runs after the baseline and the memory target with the same driver. Medians of the %d rounds, as above.", r.cfg.rounds)
	p("")
}

// bottleneck names what limited a run, from where the CPU went (only meaningful pinned).
func bottleneck(s summary, pinned bool) string {
	switch {
	case !pinned:
		return "?"
	case s.serverCPU >= 0.9:
		return "server"
	case s.loaderCPU >= 0.95:
		return "load generator"
	default:
		return "neither"
	}
}

func groupsOf(op *operation) []group {
	if len(op.groups) == 0 {
		return []group{{"", op.title}}
	}
	return op.groups
}

type summary struct {
	rps, bytes           float64
	p50, p99             time.Duration
	count                int
	errs                 map[string]int
	samples              map[string]string
	byRound              string
	serverCPU, loaderCPU float64
	otherCPU             float64
	perCore              float64 // median over rounds of the run's req/s (all groups) / server cores
}

// summarize takes the median of each measure over the rounds, and sums the errors.
func summarize(runs []*runStats, g string) summary {
	s := summary{errs: map[string]int{}, samples: map[string]string{}}
	var rps, p50, p99, bytes, scpu, lcpu, ocpu, pc []float64
	var rounds []string
	for _, r := range runs {
		scpu = append(scpu, r.serverCPU)
		lcpu = append(lcpu, r.loaderCPU)
		ocpu = append(ocpu, r.otherCPU)
		if total := r.totalRPS(); r.serverCPU > 0.05 {
			pc = append(pc, total/r.serverCPU)
		}
		gs := r.groups[g]
		if gs == nil {
			rounds = append(rounds, "0")
			rps = append(rps, 0)
			continue
		}
		rps = append(rps, gs.rps)
		rounds = append(rounds, fmt.Sprintf("%.0f", gs.rps))
		p50 = append(p50, float64(gs.p50))
		p99 = append(p99, float64(gs.p99))
		if gs.count > 0 {
			bytes = append(bytes, float64(gs.bytesIn)/float64(gs.count))
		}
		s.count += gs.count
		for k, v := range gs.errs {
			if s.errs[k] == 0 {
				s.samples[k] = gs.samples[k]
			}
			s.errs[k] += v
		}
	}
	s.rps, s.bytes = median(rps), median(bytes)
	s.p50, s.p99 = time.Duration(median(p50)), time.Duration(median(p99))
	s.serverCPU, s.loaderCPU, s.otherCPU, s.perCore = median(scpu), median(lcpu), median(ocpu), median(pc)
	s.byRound = strings.Join(rounds, " / ")
	return s
}

func errText(errs map[string]int, count int) string {
	if len(errs) == 0 {
		return "none"
	}
	kinds := make([]string, 0, len(errs))
	for k := range errs {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return errs[kinds[i]] > errs[kinds[j]] })
	var parts []string
	total := 0
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, errs[k]))
		total += errs[k]
	}
	return fmt.Sprintf("%d of %d: %s", total, count, strings.Join(parts, "; "))
}
