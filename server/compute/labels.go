package compute

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf8"
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
		if n := utf8.RuneCountInString(k); n < 1 || n > 63 || !startsLower(k) || !labelChars(k) {
			return invalidField("labels."+k, fmt.Sprintf("Invalid value for field 'labels': '%s'. Label keys must be between 1 and 63 characters long, start with a lowercase letter or an international character, and contain only lowercase letters, numeric characters, underscores and dashes.", k))
		}
		if utf8.RuneCountInString(v) > 63 || !labelChars(v) {
			return invalidField("labels."+k, fmt.Sprintf("Invalid value for field 'labels.%s': '%s'. Label values must be between 0 and 63 characters long and contain only lowercase letters, numeric characters, underscores and dashes.", k, v))
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

// labelFingerprint is 8 bytes derived from the label set and the resource's label
// generation, so it changes after every setLabels, even one that writes the same labels.
func labelFingerprint(labels map[string]string, generation uint64) []byte {
	if generation == 0 && len(labels) == 0 {
		return emptyLabelFingerprint
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// The generation, then "%d:%s=%d:%s;" per label (key length, key, value length, value).
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 256), generation)
	for _, k := range keys {
		v := labels[k]
		b = strconv.AppendInt(b, int64(len(k)), 10)
		b = append(append(append(b, ':'), k...), '=')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(append(append(b, ':'), v...), ';')
	}
	sum := sha256.Sum256(b)
	return sum[:8]
}

func fingerprintString(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
