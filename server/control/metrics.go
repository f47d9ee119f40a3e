package control

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
)

// Metrics are the server's Prometheus metrics, in a set of its own (several servers may run
// in one test process).
type Metrics struct {
	set *metrics.Set

	// series holds each label combination's counter and histogram: the combinations are few
	// (API, operation, status) and every request is observed, so a metric's name is built
	// and looked up once, not per request.
	mu     sync.RWMutex
	series map[seriesKey]series
}

type seriesKey struct {
	api, operation string
	status         int
}

type series struct {
	requests *metrics.Counter
	duration *metrics.PrometheusHistogram
}

// durationBuckets are the upper bounds, in seconds, of the request duration histogram.
var durationBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5}

// NewMetrics makes the metrics; objects reports the stored objects by kind at scrape time.
func NewMetrics(objects func() map[string]int) *Metrics {
	// TYPE lines, so that a scraper reads the histogram as one: the library's one switch for
	// it, the same for every server of a process.
	metrics.ExposeMetadata(true)
	m := &Metrics{set: metrics.NewSet(), series: map[seriesKey]series{}}
	m.set.RegisterMetricsWriter(func(w io.Writer) {
		counts := objects()
		metrics.WriteMetadataIfNeeded(w, "understudy_stored_objects", "gauge")
		for _, kind := range slices.Sorted(maps.Keys(counts)) {
			fmt.Fprintf(w, "understudy_stored_objects{kind=%q} %d\n", kind, counts[kind])
		}
	})
	return m
}

// Observe counts one request.
func (m *Metrics) Observe(api, operation string, status int, d time.Duration) {
	k := seriesKey{api, operation, status}
	m.mu.RLock()
	s, ok := m.series[k]
	m.mu.RUnlock()
	if !ok {
		// The label values are the APIs' names and their specs' operation ids: nothing in
		// them needs escaping beyond what %q does. GetOrCreate makes a series once, however
		// many requests race to it.
		labels := fmt.Sprintf("api=%q,operation=%q", api, operation)
		s = series{
			requests: m.set.GetOrCreateCounter(fmt.Sprintf("understudy_requests_total{%s,status=\"%d\"}", labels, status)),
			duration: m.set.GetOrCreatePrometheusHistogramExt("understudy_request_duration_seconds{"+labels+"}", durationBuckets),
		}
		m.mu.Lock()
		m.series[k] = s
		m.mu.Unlock()
	}
	s.requests.Inc()
	s.duration.Update(d.Seconds())
}

// Text is the Prometheus text exposition of every metric: the server's own and the Go
// runtime's and process's.
func (m *Metrics) Text() string {
	var buf bytes.Buffer
	m.set.WritePrometheus(&buf)
	metrics.WriteProcessMetrics(&buf)
	return buf.String()
}
