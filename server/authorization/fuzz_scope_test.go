package authorization

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/understudy-dev/understudy/internal/condition"
)

// FuzzParseScope checks that ParseScope and rewrite never panic, that an accepted scope is
// self-consistent (Path trimmed, Key its ASCII lower case, Subscription taken from the
// second segment, Ancestors proper prefixes at '/' boundaries, parsing idempotent), and
// that RewritePath's rewrite keeps the scope of a role-assignment path intact whatever it
// holds: the rewritten Path carries the trimmed scope, the rewritten RawPath carries it as
// one escaped segment that unescapes back to it.
func FuzzParseScope(f *testing.F) {
	for _, s := range []string{
		"subscriptions/" + testSub,
		testRG,
		"/" + testRG + "/",
		"//" + testRG + "//",
		testRG + "/providers/Vendor.Storage/storageAccounts/acct1",
		testRG + "/providers/Vendor.Network/virtualNetworks/v/subnets/s",
		testRG + "/providers/A.B/t/n/providers/C.D/t2/n2",
		testRG + "/providers/A.B/t/n/c/m/providers/C.D/t2/n2",
		testRG + "/providers/Vendor.Authorization/roleAssignments/x",
		"providers/Vendor.Management/managementGroups/mg",
		"PROVIDERS/vendor.management/MANAGEMENTGROUPS/MG",
		"Subscriptions/ABC-Def/RESOURCEGROUPS/My-RG/Providers/Vendor.Storage/storageAccounts/Acct",
		"subscriptions/other",
		"subscriptions/%ff%fe",
		"subscriptions/" + testSub + "/resourceGroups/rg\x00x",
		"subscriptions/" + testSub + "/resourceGroups/gr\u00fc\u00dfe",
		testRG + "/providers/A.B/t/n\n",
		"subscriptions",
		"subscriptions/s/resourceGroups",
		"subscriptions/s/../etc",
		"subscriptions/./s",
		"subscriptions/s/resourceGroups/rg/providers/A.B",
		"ſubscriptions/s",
		"subscriptions/\xff\xfe/resourceGroups/rg",
		"subscriptions/a%2Fb",
		"",
		"/",
		"v2/core",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		sc, ok := ParseScope(raw)
		if ok {
			checkScope(t, raw, sc)
		} else if sc != (Scope{}) {
			t.Fatalf("ParseScope(%q) refused the scope but returned %+v", raw, sc)
		}
		checkRewrite(t, raw)
	})
}

func checkScope(t *testing.T, raw string, sc Scope) {
	t.Helper()
	if want := strings.Trim(raw, "/"); sc.Path != want {
		t.Fatalf("ParseScope(%q).Path = %q, want %q", raw, sc.Path, want)
	}
	if sc.Path == "" {
		if sc != (Scope{}) || strings.Trim(raw, "/") != "" {
			t.Fatalf("ParseScope(%q) = %+v: only slashes are the root", raw, sc)
		}
		return // the tenant root
	}
	wantKey := asciiLower(sc.Path)
	if strings.HasPrefix(wantKey, "providers/") {
		// A management group's key names Microsoft.Management, however it was sent.
		wantKey = mgKeyPrefix + wantKey[strings.LastIndexByte(wantKey, '/')+1:]
	}
	if sc.Key != wantKey {
		t.Fatalf("ParseScope(%q).Key = %q, want %q", raw, sc.Key, wantKey)
	}
	segs := strings.Split(sc.Path, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			t.Fatalf("ParseScope(%q) accepted segment %q", raw, s)
		}
	}
	// What is accepted is echoed in ids as it is: it must be text that JSON and URLs carry.
	if !utf8.ValidString(sc.Path) || strings.ContainsFunc(sc.Path, unicode.IsControl) {
		t.Fatalf("ParseScope(%q) accepted invalid UTF-8 or a control character", raw)
	}
	if strings.HasPrefix(sc.Key, "subscriptions/") && !condition.IsGUID(segs[1]) {
		t.Fatalf("ParseScope(%q) accepted subscription id %q, not a GUID", raw, segs[1])
	}
	if strings.HasPrefix(sc.Key, "subscriptions/") {
		if want := asciiLower(segs[1]); sc.Subscription != want {
			t.Fatalf("ParseScope(%q).Subscription = %q, want %q", raw, sc.Subscription, want)
		}
		if sc.Subscription != asciiLower(sc.Subscription) || !strings.HasPrefix(sc.Key, "subscriptions/"+sc.Subscription) {
			t.Fatalf("ParseScope(%q).Subscription = %q is not the lower-case id of Key %q", raw, sc.Subscription, sc.Key)
		}
	} else {
		if sc.Subscription != "" {
			t.Fatalf("ParseScope(%q).Subscription = %q for a scope outside subscriptions", raw, sc.Subscription)
		}
		if !strings.HasPrefix(sc.Key, mgKeyPrefix) {
			t.Fatalf("ParseScope(%q) accepted %q, neither a subscription nor a management group", raw, sc.Key)
		}
	}
	anc := Ancestors(sc.Key)
	if want := strings.Count(sc.Key, "/"); len(anc) != want {
		t.Fatalf("Ancestors(%q) = %q: %d, want %d (one per '/')", sc.Key, anc, len(anc), want)
	}
	prev := -1
	for _, a := range anc {
		if len(a) <= prev || len(a) >= len(sc.Key) || !strings.HasPrefix(sc.Key, a) || sc.Key[len(a)] != '/' {
			t.Fatalf("Ancestors(%q) = %q: %q is not a proper prefix at a '/' boundary, in order", sc.Key, anc, a)
		}
		if !Covers(a, sc.Key) || Covers(sc.Key, a) {
			t.Fatalf("Covers disagrees with Ancestors for %q and %q", a, sc.Key)
		}
		prev = len(a)
	}
	if !Covers(sc.Key, sc.Key) {
		t.Fatalf("Covers(%q, itself) is false", sc.Key)
	}
	// Parsing is idempotent, and indifferent to the slashes around the scope.
	for _, again := range []string{sc.Path, "/" + sc.Path + "/"} {
		if sc2, ok := ParseScope(again); !ok || sc2 != sc {
			t.Fatalf("ParseScope(%q) = %+v, %v; ParseScope(%q) = %+v", raw, sc, true, again, sc2)
		}
	}
}

func checkRewrite(t *testing.T, raw string) {
	t.Helper()
	// rewrite takes any decoded path: it must not panic, whatever the input.
	_, _, _ = rewrite(raw)
	_, _, _ = rewrite(raw + providerSegment)

	trimmed := strings.Trim(raw, "/")
	for _, words := range []string{"roleAssignments", "ROLEASSIGNMENTS", "roleassignments"} {
		path := "/" + raw + "/providers/Vendor.Authorization/" + words + "/x"
		if strings.HasPrefix(raw, "/") || strings.HasSuffix(raw, "/") {
			path = "/" + raw + "/PROVIDERS/vendor.authorization/" + words + "/x" // case of the segment too
		}
		p, rawPath, ok := rewrite(path)
		if !ok {
			t.Fatalf("rewrite(%q) did not rewrite", path)
		}
		suffix := providerSegment + "roleAssignments/x"
		wantPath := "//" + suffix // the root travels as the scope "/"
		if trimmed != "" {
			wantPath = "/" + trimmed + suffix
		}
		if p != wantPath {
			t.Fatalf("rewrite(%q) Path = %q, want %q", path, p, wantPath)
		}
		if !strings.HasSuffix(rawPath, suffix) {
			t.Fatalf("rewrite(%q) RawPath = %q, want suffix %q", path, rawPath, suffix)
		}
		rawScope := strings.TrimSuffix(rawPath, suffix)
		if trimmed == "" {
			if rawScope != "/%2F" {
				t.Fatalf("rewrite(%q) RawPath = %q: the root is not the scope %%2F", path, rawPath)
			}
			continue
		}
		if !strings.HasPrefix(rawScope, "/") || strings.Contains(rawScope[1:], "/") {
			t.Fatalf("rewrite(%q) RawPath = %q: scope %q is not one segment", path, rawPath, rawScope)
		}
		got, err := url.PathUnescape(rawScope[1:])
		if err != nil || got != trimmed {
			t.Fatalf("rewrite(%q) RawPath scope %q unescapes to %q (%v), want %q", path, rawScope, got, err, trimmed)
		}
		// The path Echo routes on (RawPath) unescapes to the Path the handlers see.
		if un, err := url.PathUnescape(rawPath); err != nil || un != p {
			t.Fatalf("rewrite(%q): RawPath %q unescapes to %q (%v), Path is %q", path, rawPath, un, err, p)
		}
	}
}
