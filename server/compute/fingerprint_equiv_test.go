package compute

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

// labelFingerprintReference is how the fingerprint was first computed; the faster one must
// give the same bytes.
func labelFingerprintReference(labels map[string]string, generation uint64) []byte {
	if generation == 0 && len(labels) == 0 {
		return emptyLabelFingerprint
	}
	h := sha256.New()
	var g [8]byte
	binary.BigEndian.PutUint64(g[:], generation)
	h.Write(g[:])
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%d:%s=%d:%s;", len(k), k, len(labels[k]), labels[k])
	}
	return h.Sum(nil)[:8]
}

func TestLabelFingerprintMatchesReference(t *testing.T) {
	words := []string{"", "a", "env", "prod", "ü", "\xff", "a-b_c", "x:y", "=;", "0123456789012345678901234567890123456789012345678901234567890123"}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 20000; n++ {
		labels := map[string]string{}
		for k := r.IntN(70); k > 0; k-- {
			labels[words[r.IntN(len(words))]+fmt.Sprint(r.IntN(100))] = words[r.IntN(len(words))]
		}
		if r.IntN(10) == 0 {
			labels = nil
		}
		gen := uint64(r.IntN(3))
		if got, want := labelFingerprint(labels, gen), labelFingerprintReference(labels, gen); !bytes.Equal(got, want) {
			t.Fatalf("labelFingerprint(%v, %d) = %x, want %x", labels, gen, got, want)
		}
	}
}
