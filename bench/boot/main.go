// Command boot compares the start-up of servers side by side: it starts each command given
// in turn (alternating, -n rounds), with --addr on a free loopback port, and reports per
// command the medians of: the wall time from exec to the first 200 from
// GET /_understudy/health, the CPU time all its threads ran by then (from
// /proc/PID/task/*/schedstat: on a machine shared with other work, wall time is mostly
// waiting, CPU time is not), and its RSS one second later.
//
//	cd bench && go build -o /tmp/baseline ./baseline && (cd .. && go build -o /tmp/understudy ./cmd/understudy)
//	go run ./boot -n 15 /tmp/baseline "/tmp/understudy --log-level warn"
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func rss(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// cpu is the CPU time the process's threads ran so far (schedstat), in ms.
func cpu(pid int) float64 {
	dirs, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var ns float64
	for _, d := range dirs {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, d.Name()))
		f := strings.Fields(string(b))
		if len(f) > 0 {
			v, _ := strconv.ParseFloat(f[0], 64)
			ns += v
		}
	}
	return ns / 1e6
}

func main() {
	rounds := flag.Int("n", 10, "rounds: starts of each command")
	flag.Parse()
	n, bins := *rounds, flag.Args()
	times := make([][]float64, len(bins))
	rsses := make([][]float64, len(bins))
	cpus := make([][]float64, len(bins))
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := 0; i < n; i++ {
		for j, spec := range bins {
			args := strings.Fields(spec)
			addr := freeAddr()
			cmd := exec.Command(args[0], append(args[1:], "--addr", addr)...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			t0 := time.Now()
			if err := cmd.Start(); err != nil {
				fail(err)
			}
			for {
				resp, err := hc.Get("http://" + addr + "/_understudy/health")
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode == 200 {
						break
					}
				}
				if time.Since(t0) > 30*time.Second {
					fail(fmt.Errorf("%s: not healthy within 30 s", spec))
				}
				time.Sleep(500 * time.Microsecond)
			}
			times[j] = append(times[j], float64(time.Since(t0).Microseconds())/1000)
			cpus[j] = append(cpus[j], cpu(cmd.Process.Pid))
			time.Sleep(1 * time.Second)
			rsses[j] = append(rsses[j], rss(cmd.Process.Pid))
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	for j, spec := range bins {
		t, r, c := times[j], rsses[j], cpus[j]
		slices.Sort(c)
		fmt.Printf("%-60s CPU to healthy median %.1f ms (min %.1f max %.1f)\n", spec, c[len(c)/2], c[0], c[len(c)-1])
		slices.Sort(t)
		slices.Sort(r)
		fmt.Printf("%-60s start-to-healthy median %.1f ms (min %.1f max %.1f); idle RSS median %.1f MiB (min %.1f max %.1f)\n", spec, t[len(t)/2], t[0], t[len(t)-1], r[len(r)/2], r[0], r[len(r)-1])
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "boot:", err)
	os.Exit(1)
}
