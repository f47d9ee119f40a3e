package accounts

import (
	"regexp"
	"testing"
)

// TestRequestIDShape: a Request-Id drawn without a configured source is req_ and 14
// alphanumerics, as the real API's, and ids do not repeat.
func TestRequestIDShape(t *testing.T) {
	s := &Server{}
	shape := regexp.MustCompile(`^req_[0-9A-Za-z]{14}$`)
	seen := map[string]bool{}
	counts := map[byte]int{}
	for range 10000 {
		id := s.requestIDValue()
		if !shape.MatchString(id) || seen[id] {
			t.Fatalf("Request-Id %q: want a fresh req_ and 14 alphanumerics", id)
		}
		seen[id] = true
		for i := len("req_"); i < len(id); i++ {
			counts[id[i]]++
		}
	}
	if len(counts) != len(alphanumerics) {
		t.Errorf("%d of the %d alphanumerics drawn in 140,000 characters", len(counts), len(alphanumerics))
	}
}
