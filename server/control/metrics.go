package control

import (
	"bytes"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// Metrics are the server's Prometheus metrics, in a registry of its own (several servers
// may run in one test process).
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec

	// series caches each label combination's counter and histogram, because WithLabelValues
	// hashes its labels on every call and every request is observed. The combinations are
	// few (API, operation, status).
	mu     sync.RWMutex
	series map[seriesKey]series
}

type seriesKey struct {
	api, operation string
	status         int
}

type series struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// NewMetrics registers the metrics; objects reports the stored objects by kind at scrape time.
func NewMetrics(objects func() map[string]int) *Metrics {
	m := &Metrics{
		series: map[seriesKey]series{},
		reg:    prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "understudy_requests_total", Help: "Requests served, by API, operation and status.",
		}, []string{"api", "operation", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "understudy_request_duration_seconds", Help: "Time to serve a request, by API and operation.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5},
		}, []string{"api", "operation"}),
	}
	m.reg.MustRegister(m.requests, m.duration, objectsCollector{objects}, collectors.NewGoCollector())
	return m
}

// Observe counts one request.
func (m *Metrics) Observe(api, operation string, status int, d time.Duration) {
	k := seriesKey{api, operation, status}
	m.mu.RLock()
	s, ok := m.series[k]
	m.mu.RUnlock()
	if !ok {
		s = series{m.requests.WithLabelValues(api, operation, strconv.Itoa(status)), m.duration.WithLabelValues(api, operation)}
		m.mu.Lock()
		m.series[k] = s
		m.mu.Unlock()
	}
	s.requests.Inc()
	s.duration.Observe(d.Seconds())
}

// Text is the Prometheus text exposition of every metric.
func (m *Metrics) Text() (string, error) {
	families, err := m.reg.Gather()
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return "", err
		}
	}
	return buf.String(), nil
}

// objectsCollector reports stored objects by kind when scraped.
type objectsCollector struct{ counts func() map[string]int }

var objectsDesc = prometheus.NewDesc("understudy_stored_objects", "Objects stored, by kind.", []string{"kind"}, nil)

func (c objectsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- objectsDesc }

func (c objectsCollector) Collect(ch chan<- prometheus.Metric) {
	for kind, n := range c.counts() {
		ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, float64(n), kind)
	}
}
