package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// groupStats is what one run measured for one group of requests.
type groupStats struct {
	count    int               // answered requests (any status) plus transport errors
	rps      float64           // count / the run's span
	p50, p99 time.Duration     // over every request of the group, errors included
	bytesIn  uint64            // response bytes
	errs     map[string]int    // by kind: "429 account_rate_limit_exceeded", "transport: ..."
	samples  map[string]string // the first response body of each kind
}

// runStats is one run (one op, one side, one round).
type runStats struct {
	groups    map[string]*groupStats
	span      time.Duration
	serverCPU float64 // cores the server used on average
	loaderCPU float64 // cores the harness used on average
	// otherCPU is the cores the rest of the machine kept busy on average: other processes
	// (a noisy neighbour makes the numbers unreliable) and kernel work not charged to the
	// two processes (some loopback softirq time).
	otherCPU float64
}

// attack runs drv against base at the highest rate conns connections sustain, for d.
// serverPID is sampled for CPU time; target says whether understudy is the server (checks
// apply to its answers only).
func attack(ctx context.Context, drv *driver, conns int, d time.Duration, serverPID int, target bool) *runStats {
	tr := loopbackTransport(conns)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	atk := vegeta.NewAttacker(
		vegeta.Client(client),
		vegeta.Connections(conns),
		vegeta.MaxConnections(conns),
		vegeta.Workers(uint64(conns)),
		vegeta.MaxWorkers(uint64(conns)),
		vegeta.KeepAlive(true),
	)
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			atk.Stop()
		case <-stopped:
		}
	}()

	type acc struct {
		lat []time.Duration
		gs  *groupStats
	}
	groups := map[string]*acc{}
	var first, last time.Time
	srv0, _ := cpuTime(strconv.Itoa(serverPID))
	self0, _ := cpuTime("self")
	busy0, _ := machineCPU()
	wall0 := time.Now()
	for res := range atk.Attack(vegeta.Targeter(drv.next), vegeta.Rate{Freq: 0}, d, "") {
		g := ""
		if drv.done != nil {
			g = drv.done(res)
		}
		a := groups[g]
		if a == nil {
			a = &acc{gs: &groupStats{errs: map[string]int{}, samples: map[string]string{}}}
			groups[g] = a
		}
		a.lat = append(a.lat, res.Latency)
		a.gs.count++
		a.gs.bytesIn += res.BytesIn
		if first.IsZero() || res.Timestamp.Before(first) {
			first = res.Timestamp
		}
		if e := res.End(); e.After(last) {
			last = e
		}
		kind := ""
		switch {
		case res.Code == 0:
			kind = "transport: " + transportError(res.Error)
		case res.Code/100 != 2:
			kind = strconv.Itoa(int(res.Code)) + " " + errorReason(res.Body)
		case target && drv.check != nil:
			kind = drv.check(res)
		}
		if kind != "" {
			if a.gs.errs[kind] == 0 {
				sample := string(res.Body)
				if sample == "" {
					sample = res.Error
				}
				a.gs.samples[kind] = res.Method + " " + res.URL + " → " + truncate(sample, 600)
			}
			a.gs.errs[kind]++
		}
	}
	wall := time.Since(wall0)
	srv1, _ := cpuTime(strconv.Itoa(serverPID))
	self1, _ := cpuTime("self")
	busy1, _ := machineCPU()

	rs := &runStats{groups: map[string]*groupStats{}, span: last.Sub(first)}
	if wall > 0 {
		rs.serverCPU = float64(srv1-srv0) / float64(wall)
		rs.loaderCPU = float64(self1-self0) / float64(wall)
		rs.otherCPU = max(0, float64(busy1-busy0)/float64(wall)-rs.serverCPU-rs.loaderCPU)
	}
	for name, a := range groups {
		slices.Sort(a.lat)
		a.gs.p50 = quantile(a.lat, 0.50)
		a.gs.p99 = quantile(a.lat, 0.99)
		if rs.span > 0 {
			a.gs.rps = float64(a.gs.count) / rs.span.Seconds()
		}
		rs.groups[name] = a.gs
	}
	return rs
}

// quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// transportError drops the per-request part (`Post "http://...": `) of a client error.
func transportError(e string) string {
	if i := strings.LastIndex(e, `": `); i >= 0 {
		e = e[i+3:]
	}
	return truncate(e, 120)
}

// errorReason names an error answer by its envelope: Google's error.errors[0].reason, ARM's
// error.code, the accounts API's error.code or error.type.
func errorReason(body []byte) string {
	var env struct {
		Error struct {
			Code   any
			Type   string
			Status string
			Errors []struct{ Reason string }
		}
	}
	if json.Unmarshal(body, &env) != nil {
		return "(not JSON)"
	}
	e := env.Error
	switch {
	case len(e.Errors) > 0 && e.Errors[0].Reason != "":
		return e.Errors[0].Reason
	case e.Code != nil:
		if s, ok := e.Code.(string); ok && s != "" {
			return s
		}
	}
	if e.Type != "" {
		return e.Type
	}
	if e.Status != "" {
		return e.Status
	}
	return "(no reason)"
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// totalRPS is the run's request rate over all its groups.
func (r *runStats) totalRPS() float64 {
	t := 0.0
	for _, g := range r.groups {
		t += g.rps
	}
	return t
}
