package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// procs is every subprocess the harness started and has not yet seen exit; stopAll ends
// them (on success, error, panic and Ctrl-C alike).
var procs = struct {
	sync.Mutex
	m map[int]*server
}{m: map[int]*server{}}

// server is a started subprocess that serves HTTP on a loopback address.
type server struct {
	name   string
	cmd    *exec.Cmd
	pid    int
	addr   string // host:port, always 127.0.0.1
	exited chan struct{}
	err    error // Wait's result, once exited is closed

	mu     sync.Mutex
	stderr []string // the last lines of stderr, for error messages
}

// startServer starts argv (optionally under taskset -c cpu), and waits until it listens on
// a loopback address and answers GET /_understudy/health with 200, at most timeout.
//
// The address comes from the first stderr line that is JSON with an "addr" member (as
// understudy and the baseline log it). Understudy logs that line at level info, so with
// --log-level warn it never comes: the address is then found the way ss(8) does, by
// matching the process's socket inodes (/proc/PID/fd) with the listening sockets in
// /proc/PID/net/tcp. Whichever answers first wins.
func startServer(ctx context.Context, name string, cpu int, timeout time.Duration, argv ...string) (*server, error) {
	if cpu >= 0 {
		argv = append([]string{"taskset", "-c", strconv.Itoa(cpu)}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = serverEnv()
	// Pdeathsig: if the harness dies without cleaning up (SIGKILL), the kernel kills the
	// server too. taskset execs the server, so the setting carries over.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, pid: cmd.Process.Pid, exited: make(chan struct{})}
	procs.Lock()
	procs.m[s.pid] = s
	procs.Unlock()

	addrc := make(chan string, 2)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			if len(s.stderr) < 200 {
				s.stderr = append(s.stderr, line)
			} else {
				s.stderr = append(s.stderr[1:], line)
			}
			s.mu.Unlock()
			var l struct{ Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Addr != "" {
				select {
				case addrc <- l.Addr:
				default:
				}
			}
		}
	}()
	go func() {
		// Wait only after stderr is drained (as os/exec asks), then mark the exit.
		<-stderrDone
		s.err = cmd.Wait()
		procs.Lock()
		delete(procs.m, s.pid)
		procs.Unlock()
		close(s.exited)
	}()

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error) (*server, error) {
		s.stop()
		return nil, fmt.Errorf("%s: %w%s", name, err, s.stderrTail())
	}
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for s.addr == "" {
		select {
		case a := <-addrc:
			s.addr = a
		case <-tick.C:
			if a, ok := listeningAddr(s.pid); ok {
				s.addr = a
			}
		case <-s.exited:
			return fail(fmt.Errorf("exited before listening: %v", s.err))
		case <-ctx.Done():
			return fail(fmt.Errorf("no listening address within %s", timeout))
		}
	}
	host, _, err := net.SplitHostPort(s.addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		return fail(fmt.Errorf("listens on %q, not a loopback address: refusing to send traffic there", s.addr))
	}
	hc := &http.Client{Transport: loopbackTransport(1), Timeout: time.Second}
	defer hc.CloseIdleConnections()
	for {
		resp, err := hc.Get("http://" + s.addr + "/_understudy/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-s.exited:
			return fail(fmt.Errorf("exited before healthy: %v", s.err))
		case <-ctx.Done():
			return fail(fmt.Errorf("not healthy within %s (last: %v)", timeout, err))
		case <-time.After(time.Millisecond):
		}
	}
}

// serverEnv is the harness's environment without UNDERSTUDY_* variables, so that a stray
// setting in the shell cannot change what is measured. GOGC and GOMAXPROCS pass through.
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "UNDERSTUDY_") {
			env = append(env, kv)
		}
	}
	return env
}

func (s *server) stderrTail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.stderr) == 0 {
		return ""
	}
	tail := s.stderr
	if len(tail) > 10 {
		tail = tail[len(tail)-10:]
	}
	return "\n  stderr: " + strings.Join(tail, "\n  stderr: ")
}

// stop sends SIGTERM (understudy drains and exits 0), then SIGKILL after 5 seconds, and
// waits for the exit. Safe to call more than once.
func (s *server) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return
	case <-time.After(5 * time.Second):
	}
	fmt.Fprintf(os.Stderr, "bench: %s (pid %d) did not stop on SIGTERM within 5s: killing it\n", s.name, s.pid)
	_ = s.cmd.Process.Kill()
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		fmt.Fprintf(os.Stderr, "bench: %s (pid %d) still not reaped\n", s.name, s.pid)
	}
}

// stopAll stops every subprocess still running, one by one, by its own pid.
func stopAll() {
	procs.Lock()
	var all []*server
	for _, s := range procs.m {
		all = append(all, s)
	}
	procs.Unlock()
	for _, s := range all {
		s.stop()
	}
}

// listeningAddr finds a TCP socket of process pid in state LISTEN on 127.0.0.1 or [::1].
func listeningAddr(pid int) (string, bool) {
	inodes := map[string]bool{}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return "", false
	}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(target, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	if len(inodes) == 0 {
		return "", false
	}
	for _, file := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, file))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			if a, ok := decodeProcAddr(f[1]); ok {
				return a, true
			}
		}
	}
	return "", false
}

// decodeProcAddr turns /proc/net/tcp's "0100007F:1F90" (IPv4 in host byte order on
// little-endian machines, port in hex) into "127.0.0.1:8080".
func decodeProcAddr(s string) (string, bool) {
	hexIP, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return "", false
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return "", false
	}
	var ip net.IP
	switch len(hexIP) {
	case 8:
		v, err := strconv.ParseUint(hexIP, 16, 32)
		if err != nil {
			return "", false
		}
		ip = net.IPv4(byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	case 32:
		ip = make(net.IP, 16)
		for w := 0; w < 4; w++ {
			v, err := strconv.ParseUint(hexIP[w*8:w*8+8], 16, 32)
			if err != nil {
				return "", false
			}
			ip[w*4], ip[w*4+1], ip[w*4+2], ip[w*4+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	default:
		return "", false
	}
	if !ip.IsLoopback() {
		return "", false
	}
	return net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10)), true
}

// rssMiB reads VmRSS (or VmHWM, the peak) of pid from /proc/PID/status, in MiB.
func rssMiB(pid int, field string) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v) // "12345 kB"
			if len(f) >= 1 {
				kb, err := strconv.ParseFloat(f[0], 64)
				return kb / 1024, err
			}
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// cpuTime is the user+system CPU time pid (or "self") has used so far, from
// /proc/PID/stat, in clock ticks of 1/100 s (USER_HZ is 100 on Linux).
func cpuTime(pid string) (time.Duration, error) {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may contain spaces: fields are counted after its ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, errors.New("bad /proc/PID/stat")
	}
	f := strings.Fields(string(data[i+1:]))
	// After ')': state(3) ... utime is field 14, stime 15: indexes 11 and 12 here.
	if len(f) < 13 {
		return 0, errors.New("short /proc/PID/stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad utime/stime in /proc/PID/stat")
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// machineCPU is the CPU time all CPUs spent busy (user, nice, system, irq, softirq) and
// stolen by the hypervisor so far, from /proc/stat, in clock ticks of 1/100 s.
func machineCPU() (busy, steal time.Duration) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0
	}
	v := func(i int) time.Duration {
		n, _ := strconv.ParseInt(f[i], 10, 64)
		return time.Duration(n) * 10 * time.Millisecond
	}
	return v(1) + v(2) + v(3) + v(6) + v(7), v(8)
}

// loopbackTransport is an HTTP transport that dials only loopback addresses and ignores
// proxy settings: the harness never sends traffic anywhere else.
func loopbackTransport(conns int) *http.Transport {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return nil, fmt.Errorf("bench: refusing to dial %s: not a loopback address", addr)
			}
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
}
