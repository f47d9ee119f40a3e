package compute

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf8"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/wirebytes"
)

// maxLabels is the most labels a resource may carry.
const maxLabels = 64

// validateLabels applies the label rules: at most 64 labels; keys 1-63 characters starting
// with a lowercase letter; keys and values only lowercase letters (international ones too),
// digits, '_' and '-'; values 0-63 characters. The error names the offending label.
func validateLabels(labels map[string]string) error {
	if len(labels) > maxLabels {
		return invalidField("labels", fmt.Sprintf("Invalid value for field 'labels': a resource may have at most %d labels, %d were given.", maxLabels, len(labels)))
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := labels[k]
		// The real service's words. The location, which its error item does not have, points
		// a seed file's error at the label's line.
		if n := utf8.RuneCountInString(k); n < 1 || n > 63 || !startsLower(k) || !labelChars(k) {
			return invalidField("labels."+k, fmt.Sprintf("Invalid value for field 'resource.labels': ''. Label key '%s' violates format constraints. The key must start with a lowercase character, can only contain lowercase letters, numeric characters, underscores and dashes. The key can be at most 63 characters long. International characters are allowed.", k))
		}
		if utf8.RuneCountInString(v) > 63 || !labelChars(v) {
			return invalidField("labels."+k, fmt.Sprintf("Invalid value for field 'resource.labels': ''. Label value '%s' violates format constraints. The value can only contain lowercase letters, numeric characters, underscores and dashes. The value can be at most 63 characters long. International characters are allowed.", v))
		}
	}
	return nil
}

// startsLower reports whether a label key starts as the real service requires: with a
// lowercase letter or an international character (\p{Ll} or \p{Lo}, such as 日).
func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r) || unicode.Is(unicode.Lo, r)
}

func labelChars(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !(unicode.IsLower(r) || unicode.IsDigit(r) || r == '_' || r == '-' || (unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r))) {
			return false
		}
	}
	return true
}

// emptyLabelFingerprint is the fingerprint of a resource that never had labels, as the
// real service returns it ("42WmSpB8rSM="); no hash of an empty input gives these bytes.
var emptyLabelFingerprint = []byte{0xe3, 0x65, 0xa6, 0x4a, 0x90, 0x7c, 0xad, 0x23}

// labelFingerprint is the fingerprint of a resource's first label set, 8 bytes derived
// from the labels; generation, a count of label changes before (0 for a new resource), is
// what seed files written by earlier versions give instead of the fingerprint.
func labelFingerprint(labels map[string]string, generation uint64) []byte {
	if generation == 0 && len(labels) == 0 {
		return emptyLabelFingerprint
	}
	sum := sha256.Sum256(appendLabels(binary.BigEndian.AppendUint64(make([]byte, 0, 256), generation), labels))
	return sum[:8]
}

// nextLabelFingerprint is the fingerprint after a label change from the fingerprint
// previous: derived from both, so it changes on every change, even one that writes the
// labels there were (A, B, A again), as a compare-and-set needs.
func nextLabelFingerprint(previous []byte, labels map[string]string) []byte {
	sum := sha256.Sum256(appendLabels(append(make([]byte, 0, 256), previous...), labels))
	return sum[:8]
}

// appendLabels appends "%d:%s=%d:%s;" per label, in key order (key length, key, value
// length, value).
func appendLabels(b []byte, labels map[string]string) []byte {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := labels[k]
		b = strconv.AppendInt(b, int64(len(k)), 10)
		b = append(append(append(b, ':'), k...), '=')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(append(append(b, ':'), v...), ';')
	}
	return b
}

// relabel sets a resource's labels and moves its label fingerprint on.
func relabel(labels **gen.Labels, fingerprint *wirebytes.Bytes, to map[string]string) {
	l := gen.Labels(to)
	*labels, *fingerprint = &l, nextLabelFingerprint(*fingerprint, to)
}

// shownLabels are labels as a read shows them: none at all when there are none, as the
// real service writes an empty map (proto3 JSON leaves it out), only the labelFingerprint.
func shownLabels(l *gen.Labels) *gen.Labels {
	if l == nil || len(*l) == 0 {
		return nil
	}
	return l
}

// labelsOf are a resource's labels ({} when it has none).
func labelsOf(l *gen.Labels) map[string]string {
	if l == nil || *l == nil {
		return map[string]string{}
	}
	return *l
}

// firstFingerprint is the fingerprint (or etag) a resource of kind with the id starts
// with; nextFingerprint the one after a change from previous, derived from what changed:
// every change moves it on, and never back to a value it had.
func firstFingerprint(kind, id string) []byte {
	sum := sha256.Sum256([]byte(kind + "|" + id))
	return sum[:8]
}

func nextFingerprint(previous []byte, change string) []byte {
	sum := sha256.Sum256(append(append(append(make([]byte, 0, 64), previous...), '|'), change...))
	return sum[:8]
}
