package accounts

import "strings"

// Secrets as messages, logs and the request journal may show them: API keys and the link
// tokens that open hosted pages, masked alike. LoggedPath serves every API's log lines,
// not only this one's: a token may be pasted into any path.

// LoggedPath is path as a log line or the request journal may show it: a link token is the
// credential that opens a hosted page, so it is masked as API keys are (alu_test_****abcd),
// wherever it stands in the path: a hosted page with more segments after it (/r/a/tok/x)
// and a path no API serves (/R/a/tok, /base/r/a/tok) carry it as well.
func LoggedPath(path string) string {
	if !strings.Contains(path, "alu_") {
		return path
	}
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, "alu_") {
			segs[i] = masked(seg, seg[:strings.LastIndexByte(seg, '_')+1])
		}
	}
	return strings.Join(segs, "/")
}

// maskKey keeps a key's prefix and last four characters: sk_test_****abcd.
func maskKey(k string) string {
	prefix := ""
	for _, p := range []string{"sk_test_", "sk_live_", "rk_test_", "rk_live_", "pk_test_", "pk_live_"} {
		if strings.HasPrefix(k, p) {
			prefix = p
			break
		}
	}
	return masked(k, prefix)
}

// masked is secret s, which starts with prefix, as messages and logs may show it: the
// prefix and, when at least 8 characters follow it, the last four.
func masked(s, prefix string) string {
	if len(s)-len(prefix) < 8 {
		return prefix + "****"
	}
	return prefix + "****" + s[len(s)-4:]
}
