package accounts

import (
	"regexp"
	"strings"
	"testing"
)

// TestIsDefaultKey: isDefaultKey accepts exactly what the regexp it stands for accepts, for
// the keys clients send and for every insertion, replacement and deletion of one character
// in them.
func TestIsDefaultKey(t *testing.T) {
	re := regexp.MustCompile(`^[sr]k_(test|live)_[A-Za-z0-9]+$`)
	keys := []string{"", "sk_test_", "sk_live_", "sk_test_a", "sk_live_Z9", "sk_test_bench1", "sk_live_abc def",
		"sk_test_abc\n", "sk_test_é", "rk_test_abc", "pk_live_abc", "sk_test", "sk_prod_abc", "SK_TEST_abc",
		"sk_test_abc_def", "sk_test_abc-def", "xsk_test_abc", "rk_live_Q1", "rk_prod_abc", "sk_test_" + strings.Repeat("a", 300)}
	edits := []byte("az AZ09_-\x00\xff/é")
	for _, k := range append([]string(nil), keys...) {
		for i := 0; i <= len(k) && len(k) < 40; i++ {
			for _, b := range edits {
				keys = append(keys, k[:i]+string(b)+k[i:]) // inserted
				if i < len(k) {
					keys = append(keys, k[:i]+string(b)+k[i+1:]) // replaced
				}
			}
			if i < len(k) {
				keys = append(keys, k[:i]+k[i+1:]) // deleted
			}
		}
	}
	accepted := 0
	for _, k := range keys {
		if got, want := isDefaultKey(k), re.MatchString(k); got != want {
			t.Errorf("isDefaultKey(%q) = %v, the regexp says %v", k, got, want)
		}
		if isDefaultKey(k) {
			accepted++
		}
	}
	if accepted == 0 || accepted == len(keys) {
		t.Fatalf("%d of %d keys accepted: the cases do not tell the shapes apart", accepted, len(keys))
	}
}
