package authorization

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/understudy-dev/understudy/internal/store"
)

const (
	testSub = "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	testRG  = "subscriptions/" + testSub + "/resourceGroups/rg1"
)

func TestParseScopeAccepted(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		wantPath string
		wantSub  string
	}{
		{"subscription", "subscriptions/" + testSub, "subscriptions/" + testSub, testSub},
		{"resource group", testRG, testRG, testSub},
		{"resource", testRG + "/providers/Vendor.Storage/storageAccounts/acct1",
			testRG + "/providers/Vendor.Storage/storageAccounts/acct1", testSub},
		{"nested child type", testRG + "/providers/Vendor.Network/virtualNetworks/v/subnets/s",
			testRG + "/providers/Vendor.Network/virtualNetworks/v/subnets/s", testSub},
		{"two levels of child types", testRG + "/providers/A.B/t/n/c1/n1/c2/n2",
			testRG + "/providers/A.B/t/n/c1/n1/c2/n2", testSub},
		{"extension resource", testRG + "/providers/A.B/t/n/providers/C.D/t2/n2",
			testRG + "/providers/A.B/t/n/providers/C.D/t2/n2", testSub},
		{"extension of a child resource", testRG + "/providers/A.B/t/n/c/m/providers/C.D/t2/n2",
			testRG + "/providers/A.B/t/n/c/m/providers/C.D/t2/n2", testSub},
		{"management group", "providers/Microsoft.Management/managementGroups/mg",
			"providers/Microsoft.Management/managementGroups/mg", ""},
		{"management group, other case", "PROVIDERS/microsoft.management/MANAGEMENTGROUPS/MG",
			"PROVIDERS/microsoft.management/MANAGEMENTGROUPS/MG", ""},
		{"mixed case words and ids", "Subscriptions/" + strings.ToUpper(testSub) + "/RESOURCEGROUPS/My-RG/Providers/Vendor.Storage/storageAccounts/Acct",
			"Subscriptions/" + strings.ToUpper(testSub) + "/RESOURCEGROUPS/My-RG/Providers/Vendor.Storage/storageAccounts/Acct", testSub},
		{"leading slash", "/subscriptions/" + testSub, "subscriptions/" + testSub, testSub},
		{"trailing slash", "subscriptions/" + testSub + "/", "subscriptions/" + testSub, testSub},
		{"both, doubled", "//" + testRG + "//", testRG, testSub},
		{"resource group of every allowed kind of character", "subscriptions/" + testSub + "/resourceGroups/My_rg-(1).x",
			"subscriptions/" + testSub + "/resourceGroups/My_rg-(1).x", testSub},
		{"resource group of Unicode letters and digits", "subscriptions/" + testSub + "/resourceGroups/grüße-١٢-日本",
			"subscriptions/" + testSub + "/resourceGroups/grüße-١٢-日本", testSub},
		{"resource group of 90 characters", "subscriptions/" + testSub + "/resourceGroups/" + strings.Repeat("é", 90),
			"subscriptions/" + testSub + "/resourceGroups/" + strings.Repeat("é", 90), testSub},
		{"resource names of any printable character", testRG + "/providers/A.B/t/n 1:é%+~",
			testRG + "/providers/A.B/t/n 1:é%+~", testSub},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseScope(tt.raw)
			if !ok {
				t.Fatalf("ParseScope(%q) rejected, want accepted", tt.raw)
			}
			want := Scope{Path: tt.wantPath, Key: strings.ToLower(tt.wantPath), Subscription: tt.wantSub}
			if got != want {
				t.Errorf("ParseScope(%q) = %+v, want %+v", tt.raw, got, want)
			}
		})
	}
}

// TestParseScopeRootAndManagementGroups: the tenant root is "/" (or nothing), and a
// management group is one scope whichever provider spelling names it.
func TestParseScopeRootAndManagementGroups(t *testing.T) {
	for _, raw := range []string{"", "//", "///"} {
		if got, ok := ParseScope(raw); ok {
			t.Errorf("ParseScope(%q) = %+v, want refused: only \"/\" is the root", raw, got)
		}
	}
	for _, raw := range []string{"/"} {
		if got, ok := ParseScope(raw); !ok || !got.Root() || got.ID() != "" {
			t.Errorf("ParseScope(%q) = %+v, %v; want the root", raw, got, ok)
		}
	}
	vendor, ok1 := ParseScope("providers/Vendor.Management/managementGroups/MG1")
	real, ok2 := ParseScope("/providers/Microsoft.Management/managementGroups/mg1")
	if !ok1 || !ok2 || vendor.Key != real.Key || vendor.Key != mgKeyPrefix+"mg1" {
		t.Errorf("management group keys: %+v (%v) and %+v (%v), want both %q", vendor, ok1, real, ok2, mgKeyPrefix+"mg1")
	}
	if vendor.Path != "providers/Vendor.Management/managementGroups/MG1" {
		t.Errorf("Path = %q, want the scope as sent", vendor.Path)
	}
}

func TestParseScopeRejected(t *testing.T) {
	tests := []struct {
		name string
		raw  string
	}{
		{"subscriptions without id", "subscriptions"},
		{"empty segment", "subscriptions//x"},
		{"empty segment in the middle", "subscriptions/" + testSub + "//resourceGroups/rg"},
		{"tenants", "tenants/x"},
		{"unknown root word", "foo/bar"},
		{"resourceGroups without name", "subscriptions/" + testSub + "/resourceGroups"},
		{"unknown word under a subscription", "subscriptions/" + testSub + "/foo/bar"},
		{"resource group then a lone word", "subscriptions/" + testSub + "/resourceGroups/rg/x"},
		{"resource group then a word pair", "subscriptions/" + testSub + "/resourceGroups/rg/x/y"},
		{"providers without namespace", "subscriptions/" + testSub + "/resourceGroups/rg/providers"},
		{"providers without type and name", "subscriptions/" + testSub + "/resourceGroups/rg/providers/ns"},
		{"providers without name", "subscriptions/" + testSub + "/resourceGroups/rg/providers/ns/type"},
		{"odd count: child type without name", "subscriptions/" + testSub + "/resourceGroups/rg/providers/ns/t/n/child"},
		{"odd count: three child segments", "subscriptions/" + testSub + "/resourceGroups/rg/providers/ns/t/n/c/m/x"},
		{"extension without type and name", "subscriptions/" + testSub + "/resourceGroups/rg/providers/ns/t/n/providers/C.D"},
		{"extension without name", "subscriptions/" + testSub + "/resourceGroups/rg/providers/ns/t/n/providers/C.D/t2"},
		{"providers right after providers", "subscriptions/" + testSub + "/resourceGroups/rg/providers/A.B/providers/C.D/t/n"},
		{"dot-dot", ".."},
		{"dot-dot in a scope", "subscriptions/" + testSub + "/resourceGroups/../x"},
		{"dot segment", "subscriptions/./resourceGroups/rg"},
		{"management group without id", "providers/Microsoft.Management/managementGroups"},
		{"management group with more", "providers/Microsoft.Management/managementGroups/mg/x"},
		{"management group of another namespace", "providers/Vendor.Other/managementGroups/mg"},
		{"resource provider at the root", "providers/Vendor.Storage/storageAccounts/acct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := ParseScope(tt.raw); ok {
				t.Errorf("ParseScope(%q) = %+v, want rejected", tt.raw, got)
			}
		})
	}
}

// Names in a scope follow ARM's rules (scope.go), with ARM's error codes; whatever breaks
// them is never stored, so it cannot be echoed in an id that fails to read back.
func TestParseScopeNames(t *testing.T) {
	tests := []struct {
		name, raw, code string
	}{
		{"subscription that is not a GUID", "subscriptions/not-a-guid", "InvalidSubscriptionId"},
		{"subscription GUID in braces", "subscriptions/{" + testSub + "}", "InvalidSubscriptionId"},
		{"subscription GUID without hyphens", "subscriptions/" + strings.ReplaceAll(testSub, "-", ""), "InvalidSubscriptionId"},
		{"subscription of invalid UTF-8", "subscriptions/\xff\xfe", "InvalidSubscriptionId"},
		{"subscription NUL", "subscriptions/\x00", "InvalidSubscriptionId"},
		{"subscription with a newline", "subscriptions/a\nb", "InvalidSubscriptionId"},
		{"subscription not a GUID under a resource group", "subscriptions/s1/resourceGroups/rg", "InvalidSubscriptionId"},
		{"resource group with NUL", "subscriptions/" + testSub + "/resourceGroups/rg\x00x", "InvalidResourceGroup"},
		{"resource group with a newline", "subscriptions/" + testSub + "/resourceGroups/rg\n", "InvalidResourceGroup"},
		{"resource group of invalid UTF-8", "subscriptions/" + testSub + "/resourceGroups/rg\xff", "InvalidResourceGroup"},
		{"resource group with a space", "subscriptions/" + testSub + "/resourceGroups/r g", "InvalidResourceGroup"},
		{"resource group with a percent sign", "subscriptions/" + testSub + "/resourceGroups/rg%1", "InvalidResourceGroup"},
		{"resource group with U+FFFD", "subscriptions/" + testSub + "/resourceGroups/rg\ufffd", "InvalidResourceGroup"},
		{"resource group ending in a period", "subscriptions/" + testSub + "/resourceGroups/rg.", "InvalidResourceGroup"},
		{"resource group of 91 characters", "subscriptions/" + testSub + "/resourceGroups/" + strings.Repeat("r", 91), "InvalidResourceGroup"},
		{"resource group of 91 letters, not bytes", "subscriptions/" + testSub + "/resourceGroups/" + strings.Repeat("é", 91), "InvalidResourceGroup"},
		{"resource name with NUL", testRG + "/providers/A.B/t/n\x00", "InvalidScope"},
		{"resource type with a tab", testRG + "/providers/A.B/t\t/n", "InvalidScope"},
		{"namespace of invalid UTF-8", testRG + "/providers/A\xff/t/n", "InvalidScope"},
		{"resource name with DEL", testRG + "/providers/A.B/t/n\x7f", "InvalidScope"},
		{"resource name with a C1 control", testRG + "/providers/A.B/t/n\u0085", "InvalidScope"},
		{"management group with NUL", "providers/Vendor.Management/managementGroups/mg\x00", "InvalidScope"},
		{"management group ending in a period", "providers/Vendor.Management/managementGroups/mg.", "InvalidScope"},
		{"management group with a newline", "providers/Vendor.Management/managementGroups/m\ng", "InvalidScope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseScope(tt.raw)
			if err == nil {
				t.Fatalf("parseScope(%q) = %+v, want %s", tt.raw, got, tt.code)
			}
			if err.Code != tt.code || err.Status != 400 {
				t.Fatalf("parseScope(%q): %d %s, want 400 %s", tt.raw, err.Status, err.Code, tt.code)
			}
			// The message quotes what was sent, escaped where it is not printable.
			if !utf8.ValidString(err.Message) || strings.ContainsFunc(err.Message, unicode.IsControl) {
				t.Errorf("message %q carries what it should not", err.Message)
			}
			if _, ok := ParseScope(tt.raw); ok {
				t.Errorf("ParseScope(%q) accepted what parseScope refused", tt.raw)
			}
		})
	}
	t.Run("messages", func(t *testing.T) {
		for raw, want := range map[string]string{
			"subscriptions/\xff\xfe":                                "The provided subscription identifier '%FF%FE' is malformed or invalid.",
			"subscriptions/not-a-guid":                              "The provided subscription identifier 'not-a-guid' is malformed or invalid.",
			"subscriptions/" + testSub + "/resourceGroups/r g%\x00": "The provided resource group name 'r g%%00' has these invalid characters: ' %%00'. The name can only be a letter, digit, '-', '.', '(', ')' or '_'.",
			"subscriptions/" + testSub + "/resourceGroups/rg.":      "The provided resource group name 'rg.' is not valid. The name must be 1 to 90 characters long and cannot end with a period.",
		} {
			if _, err := parseScope(raw); err == nil || err.Message != want {
				t.Errorf("parseScope(%q) = %v, want message %q", raw, err, want)
			}
		}
	})
}

// ParseScope folds ASCII letters only, in the scope words and in the key alike, so a
// look-alike such as U+017F (ſ) never passes for "s" in a word while the key keeps it apart
// (which once let "ſubscriptions/s1" count towards s1's limit yet stay invisible at
// subscriptions/s1). Each variant must be rejected or have the canonical spelling's key.
func TestParseScopeKeyAgreesWithWordComparison(t *testing.T) {
	tests := []struct {
		name, variant, canonical string
	}{
		{"ſ in subscriptions", "ſubscriptions/" + testSub, "subscriptions/" + testSub},
		{"ſ in resourceGroups", "subscriptions/" + testSub + "/resourceGroupſ/rg", "subscriptions/" + testSub + "/resourceGroups/rg"},
		{"ſ in providers", "subscriptions/" + testSub + "/resourceGroups/rg/providerſ/A.B/t/n", "subscriptions/" + testSub + "/resourceGroups/rg/providers/A.B/t/n"},
		{"Kelvin sign in an id is its own name", "subscriptions/" + testSub + "/resourceGroups/\u212arg", "subscriptions/" + testSub + "/resourceGroups/\u212arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseScope(tt.variant)
			if !ok {
				return // rejecting a non-ASCII spelling of a scope word is fine
			}
			want, _ := ParseScope(tt.canonical)
			if got.Key != want.Key || got.Subscription != want.Subscription {
				t.Errorf("ParseScope(%q) = key %q, subscription %q; want key %q, subscription %q (those of %q) or rejected",
					tt.variant, got.Key, got.Subscription, want.Key, want.Subscription, tt.canonical)
			}
		})
	}
}

func TestAncestors(t *testing.T) {
	tests := []struct {
		key  string
		want []string
	}{
		{"subscriptions", nil},
		{"subscriptions/s", []string{"subscriptions"}},
		{"subscriptions/s/resourcegroups/rg", []string{
			"subscriptions", "subscriptions/s", "subscriptions/s/resourcegroups"}},
		{"providers/vendor.management/managementgroups/mg", []string{
			"providers", "providers/vendor.management", "providers/vendor.management/managementgroups"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := Ancestors(tt.key); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Ancestors(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
	t.Run("every ancestor covers the key", func(t *testing.T) {
		key := "subscriptions/s/resourcegroups/rg/providers/a.b/t/n"
		for _, a := range Ancestors(key) {
			if !Covers(a, key) {
				t.Errorf("Covers(%q, %q) = false, want true", a, key)
			}
		}
	})
}

func TestCovers(t *testing.T) {
	tests := []struct {
		name string
		a, s string
		want bool
	}{
		{"same scope", "subscriptions/s1", "subscriptions/s1", true},
		{"subscription covers its resource group", "subscriptions/s1", "subscriptions/s1/resourcegroups/rg", true},
		{"subscription covers a resource", "subscriptions/s1", "subscriptions/s1/resourcegroups/rg/providers/a.b/t/n", true},
		{"resource group covers its resource", "subscriptions/s1/resourcegroups/rg", "subscriptions/s1/resourcegroups/rg/providers/a.b/t/n", true},
		{"sibling whose key shares the prefix", "subscriptions/s1", "subscriptions/s10", false},
		{"sibling resource group sharing the prefix", "subscriptions/s1/resourcegroups/rg", "subscriptions/s1/resourcegroups/rg2", false},
		{"below does not cover above", "subscriptions/s1/resourcegroups/rg", "subscriptions/s1", false},
		{"other subscription", "subscriptions/s2", "subscriptions/s1/resourcegroups/rg", false},
		{"management group does not cover a subscription", "providers/vendor.management/managementgroups/mg", "subscriptions/s1", false},
		{"empty key covers nothing but itself", "", "subscriptions/s1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Covers(tt.a, tt.s); got != tt.want {
				t.Errorf("Covers(%q, %q) = %v, want %v", tt.a, tt.s, got, tt.want)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	const ra = "/providers/Vendor.Authorization/roleAssignments/"
	tests := []struct {
		name      string
		path      string
		wantPath  string
		wantRaw   string
		wantScope string // the scope the route will bind: the first RawPath segment, unescaped
	}{
		{"raw scope", "/" + testRG + ra + "n",
			"/" + testRG + ra + "n",
			"/" + url.PathEscape(testRG) + ra + "n",
			testRG},
		{"scope with /providers/", "/" + testRG + "/providers/Vendor.Storage/storageAccounts/a" + ra + "n",
			"/" + testRG + "/providers/Vendor.Storage/storageAccounts/a" + ra + "n",
			"/" + url.PathEscape(testRG+"/providers/Vendor.Storage/storageAccounts/a") + ra + "n",
			testRG + "/providers/Vendor.Storage/storageAccounts/a"},
		{"scope that is itself under Vendor.Authorization: split at the last one",
			"/" + testRG + "/providers/Vendor.Authorization/locks/l" + ra + "n",
			"/" + testRG + "/providers/Vendor.Authorization/locks/l" + ra + "n",
			"/" + url.PathEscape(testRG+"/providers/Vendor.Authorization/locks/l") + ra + "n",
			testRG + "/providers/Vendor.Authorization/locks/l"},
		{"fixed words in other cases", "/" + testRG + "/PROVIDERS/vendor.authorization/roleassignments/n",
			"/" + testRG + ra + "n",
			"/" + url.PathEscape(testRG) + ra + "n",
			testRG},
		{"roleDefinitions word", "/subscriptions/s/providers/Vendor.Authorization/ROLEDEFINITIONS/x",
			"/subscriptions/s/providers/Vendor.Authorization/roleDefinitions/x",
			"/subscriptions%2Fs/providers/Vendor.Authorization/roleDefinitions/x",
			"subscriptions/s"},
		{"list: no name", "/subscriptions/s/providers/Vendor.Authorization/roleassignments",
			"/subscriptions/s/providers/Vendor.Authorization/roleAssignments",
			"/subscriptions%2Fs/providers/Vendor.Authorization/roleAssignments",
			"subscriptions/s"},
		{"unknown word is kept", "/subscriptions/s/providers/Vendor.Authorization/somethingElse/x",
			"/subscriptions/s/providers/Vendor.Authorization/somethingElse/x",
			"/subscriptions%2Fs/providers/Vendor.Authorization/somethingElse/x",
			"subscriptions/s"},
		{"trailing slash on the scope", "/subscriptions/s//providers/Vendor.Authorization/roleAssignments/n",
			"/subscriptions/s" + ra + "n",
			"/subscriptions%2Fs" + ra + "n",
			"subscriptions/s"},
		{"empty scope", "/providers/Vendor.Authorization/roleDefinitions/x",
			"/providers/Vendor.Authorization/roleDefinitions/x",
			"/providers/Vendor.Authorization/roleDefinitions/x",
			""},
		{"name with a character to escape", "/subscriptions/s" + ra + "a b",
			"/subscriptions/s" + ra + "a b",
			"/subscriptions%2Fs" + ra + "a%20b",
			"subscriptions/s"},
		{"non-ASCII before the provider segment", "/subscriptions/İſ/resourceGroups/ſİ" + ra + "n",
			"/subscriptions/İſ/resourceGroups/ſİ" + ra + "n",
			"/" + url.PathEscape("subscriptions/İſ/resourceGroups/ſİ") + ra + "n",
			"subscriptions/İſ/resourceGroups/ſİ"},
		{"ſ does not fold to s in the provider segment", "/subscriptions/s/providerſ/Vendor.Authorization/x" + ra + "n",
			"/subscriptions/s/providerſ/Vendor.Authorization/x" + ra + "n",
			"/" + url.PathEscape("subscriptions/s/providerſ/Vendor.Authorization/x") + ra + "n",
			"subscriptions/s/providerſ/Vendor.Authorization/x"},
		{"K (Kelvin) does not fold either", "/subscriptions/\u212a" + ra + "n",
			"/subscriptions/\u212a" + ra + "n",
			"/" + url.PathEscape("subscriptions/\u212a") + ra + "n",
			"subscriptions/\u212a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotPath, gotRaw, ok := rewrite(tt.path)
			if !ok {
				t.Fatalf("rewrite(%q) not ok, want ok", tt.path)
			}
			if gotPath != tt.wantPath {
				t.Errorf("path: got %q, want %q", gotPath, tt.wantPath)
			}
			if gotRaw != tt.wantRaw {
				t.Errorf("raw path: got %q, want %q", gotRaw, tt.wantRaw)
			}
			gotScope := ""
			if i := strings.Index(gotRaw, providerSegment); i > 0 {
				s, err := url.PathUnescape(gotRaw[1:i])
				if err != nil {
					t.Fatalf("raw scope %q: %v", gotRaw[1:i], err)
				}
				gotScope = s
			}
			if gotScope != tt.wantScope {
				t.Errorf("scope: got %q, want %q", gotScope, tt.wantScope)
			}
			// The raw path must decode to the path, or Echo ignores it.
			if dec, err := url.PathUnescape(gotRaw); err != nil || dec != gotPath {
				t.Errorf("raw path decodes to %q (%v), want %q", dec, err, gotPath)
			}
		})
	}

	for _, path := range []string{
		"/",
		"/_understudy/health",
		"/subscriptions/s/resourceGroups/rg",
		"/subscriptions/s/providers/Vendor.Storage/storageAccounts/a",
		"/subscriptions/s/providers/Vendor.Authorization", // no trailing slash: not the segment
		"/subscriptions/s/providerſ/Vendor.Authorization/roleAssignments/n",
		"/subscriptions/s/providers/Vendor.Authorizatİon/roleAssignments/n",
	} {
		t.Run("untouched "+path, func(t *testing.T) {
			if p, raw, ok := rewrite(path); ok {
				t.Errorf("rewrite(%q) = %q, %q, true; want ok=false", path, p, raw)
			}
		})
	}
}

func TestParseRoleDefinitionID(t *testing.T) {
	const guid = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
	accepted := []struct {
		name string
		id   string
	}{
		{"tenant form", "/providers/Vendor.Authorization/roleDefinitions/" + guid},
		{"subscription form", "/subscriptions/" + testSub + "/providers/Vendor.Authorization/roleDefinitions/" + guid},
		{"resource group prefix", "/" + testRG + "/providers/Vendor.Authorization/roleDefinitions/" + guid},
		{"resource prefix", "/" + testRG + "/providers/Vendor.Storage/storageAccounts/a/providers/Vendor.Authorization/roleDefinitions/" + guid},
		{"management group prefix", "/providers/Vendor.Management/managementGroups/mg/providers/Vendor.Authorization/roleDefinitions/" + guid},
		{"words in other cases", "/PROVIDERS/vendor.authorization/ROLEDEFINITIONS/" + guid},
		{"upper-case GUID", "/providers/Vendor.Authorization/roleDefinitions/" + strings.ToUpper(guid)},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseRoleDefinitionID(tt.id)
			if !ok || got != guid {
				t.Errorf("parseRoleDefinitionID(%q) = %q, %v; want %q, true", tt.id, got, ok, guid)
			}
		})
	}
	rejected := []struct {
		name string
		id   string
	}{
		{"empty", ""},
		{"bare GUID", guid},
		{"no leading slash", "providers/Vendor.Authorization/roleDefinitions/" + guid},
		{"scope prefix without leading slash", "subscriptions/" + testSub + "/providers/Vendor.Authorization/roleDefinitions/" + guid},
		{"another provider", "/providers/Vendor.Compute/roleDefinitions/" + guid},
		{"roleAssignments instead", "/providers/Vendor.Authorization/roleAssignments/" + guid},
		{"no GUID", "/providers/Vendor.Authorization/roleDefinitions/"},
		{"not a GUID", "/providers/Vendor.Authorization/roleDefinitions/reader"},
		{"trailing slash", "/providers/Vendor.Authorization/roleDefinitions/" + guid + "/"},
		{"something after the GUID", "/providers/Vendor.Authorization/roleDefinitions/" + guid + "/x"},
		{"braced GUID", "/providers/Vendor.Authorization/roleDefinitions/{" + guid + "}"},
	}
	for _, tt := range rejected {
		t.Run("rejects "+tt.name, func(t *testing.T) {
			if got, ok := parseRoleDefinitionID(tt.id); ok {
				t.Errorf("parseRoleDefinitionID(%q) = %q, true; want rejected", tt.id, got)
			}
		})
	}
}

// A roleDefinitionId may carry a scope before /providers/...; any other prefix is
// InvalidRoleDefinitionId (authorization.md).
func TestParseRoleDefinitionIDRejectsPrefixesThatAreNotScopes(t *testing.T) {
	const guid = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
	for _, prefix := range []string{
		"/tenants/x",
		"/foo",
		"/subscriptions",
		"/subscriptions/",
		"/",
		"/subscriptions/" + testSub + "/resourceGroups",
		"/" + testRG + "/providers/Vendor.Storage",
	} {
		t.Run(prefix, func(t *testing.T) {
			id := prefix + "/providers/Vendor.Authorization/roleDefinitions/" + guid
			if got, ok := parseRoleDefinitionID(id); ok {
				t.Errorf("parseRoleDefinitionID(%q) = %q, true; want rejected: %q is not a scope", id, got, prefix)
			}
		})
	}
}

func TestParseGUID(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"lower case", "b0f43c54-e787-4862-89b1-a653fa9cf747", "b0f43c54-e787-4862-89b1-a653fa9cf747", true},
		{"upper case is lowered", "B0F43C54-E787-4862-89B1-A653FA9CF747", "b0f43c54-e787-4862-89b1-a653fa9cf747", true},
		{"nil GUID", "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000", true},
		{"empty", "", "", false},
		{"no dashes", "b0f43c54e787486289b1a653fa9cf747", "", false},
		{"braces", "{b0f43c54-e787-4862-89b1-a653fa9cf747}", "", false},
		{"dash misplaced", "b0f43c5-4e787-4862-89b1-a653fa9cf747", "", false},
		{"not hex", "g0f43c54-e787-4862-89b1-a653fa9cf747", "", false},
		{"too short", "b0f43c54-e787-4862-89b1-a653fa9cf74", "", false},
		{"too long", "b0f43c54-e787-4862-89b1-a653fa9cf7477", "", false},
		{"space padded", " b0f43c54-e787-4862-89b1-a653fa9cf74", "", false},
		{"non-ASCII of the right byte length", "b0f43c54-e787-4862-89b1-a653fa9cf7İ", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseGUID(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseGUID(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseAssignmentFilter(t *testing.T) {
	const p = "ce2ce14e-85d7-4629-bdbc-454d0519d987"
	accepted := []struct {
		name   string
		filter string
		want   assignmentFilter
	}{
		{"empty", "", assignmentFilter{}},
		{"blank", "   ", assignmentFilter{}},
		{"atScope", "atScope()", assignmentFilter{AtOrAbove: true}},
		{"atScope any case, padded", "  ATSCOPE()  ", assignmentFilter{AtOrAbove: true}},
		{"principalId eq", "principalId eq '" + p + "'", assignmentFilter{Principal: p}},
		{"principalId eq lowers the id", "principalId eq '" + strings.ToUpper(p) + "'", assignmentFilter{Principal: p}},
		{"principalId any case and spacing", "PRINCIPALID   EQ  '" + p + "'", assignmentFilter{Principal: p}},
		{"assignedTo", "assignedTo('" + p + "')", assignmentFilter{Principal: p, Groups: true}},
		{"atScope and assignedTo", "atScope() and assignedTo('" + p + "')", assignmentFilter{AtOrAbove: true, Principal: p, Groups: true}},
		{"assignedTo and atScope", "assignedTo('" + p + "') and atScope()", assignmentFilter{AtOrAbove: true, Principal: p, Groups: true}},
		{"AND in capitals", "atScope() AND assignedTo('" + p + "')", assignmentFilter{AtOrAbove: true, Principal: p, Groups: true}},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseAssignmentFilter(tt.filter)
			if !ok || got != tt.want {
				t.Errorf("parseAssignmentFilter(%q) = %+v, %v; want %+v, true", tt.filter, got, ok, tt.want)
			}
		})
	}
	rejected := []string{
		"roleDefinitionId eq 'x'",
		"principalId eq x",
		"principalId eq ''",
		"principalId ne '" + p + "'",
		"assignedTo('')",
		"assignedTo(" + p + ")",
		"atScope",
		"atScope(x)",
		"atScope() or assignedTo('" + p + "')",
		"atScope() and atScope()",
		"assignedTo('" + p + "') and assignedTo('" + p + "')",
		"atScope() and principalId eq '" + p + "'",
		"atScope() and assignedTo('')",
		"atScope() and assignedTo('" + p + "') and atScope()",
		"atScope() and",
		"and atScope()",
		"atScope()andassignedTo('" + p + "')",
	}
	for _, f := range rejected {
		t.Run("rejects "+f, func(t *testing.T) {
			if got, ok := parseAssignmentFilter(f); ok {
				t.Errorf("parseAssignmentFilter(%q) = %+v, true; want rejected", f, got)
			}
		})
	}
}

func TestParseRoleDefinitionFilter(t *testing.T) {
	accepted := []struct {
		filter string
		want   roleDefinitionFilter
	}{
		{"", roleDefinitionFilter{}},
		{"  ", roleDefinitionFilter{}},
		{"roleName eq 'Reader'", roleDefinitionFilter{ByName: true, Name: "Reader"}},
		{"ROLENAME   EQ 'User Access Administrator'", roleDefinitionFilter{ByName: true, Name: "User Access Administrator"}},
		{"  roleName eq 'Owner'  ", roleDefinitionFilter{ByName: true, Name: "Owner"}},
		{"roleName eq ''", roleDefinitionFilter{ByName: true}},
		{"roleName eq 'Reader''s Helper'", roleDefinitionFilter{ByName: true, Name: "Reader's Helper"}},
		{"type eq 'BuiltInRole'", roleDefinitionFilter{Type: "BuiltInRole"}},
		{"Type eq 'customrole'", roleDefinitionFilter{Type: "CustomRole"}},
		{"atScopeAndBelow()", roleDefinitionFilter{AndBelow: true}},
		{"roleName eq 'Reader' and type eq 'BuiltInRole'", roleDefinitionFilter{ByName: true, Name: "Reader", Type: "BuiltInRole"}},
		{"type eq 'CustomRole' AND atScopeAndBelow()", roleDefinitionFilter{Type: "CustomRole", AndBelow: true}},
		{"roleName eq 'Reader and Data Access'", roleDefinitionFilter{ByName: true, Name: "Reader and Data Access"}},
		{"roleName eq 'Reader and Data Access' and type eq 'BuiltInRole'", roleDefinitionFilter{ByName: true, Name: "Reader and Data Access", Type: "BuiltInRole"}},
	}
	for _, tt := range accepted {
		t.Run(tt.filter, func(t *testing.T) {
			got, ok := parseRoleDefinitionFilter(tt.filter)
			if !ok || got != tt.want {
				t.Errorf("parseRoleDefinitionFilter(%q) = %+v, %v; want %+v, true", tt.filter, got, ok, tt.want)
			}
		})
	}
	for _, f := range []string{
		"roleName eq Reader",
		"roleName ne 'Reader'",
		"type eq 'OtherRole'",
		"roleName eq 'Reader' and roleName eq 'Owner'",
		"type eq 'BuiltInRole' and type eq 'CustomRole'",
		"roleName eq 'Reader' and",
		"roleName eq 'Read'er'",
		"atScope()",
	} {
		t.Run("rejects "+f, func(t *testing.T) {
			if got, ok := parseRoleDefinitionFilter(f); ok {
				t.Errorf("parseRoleDefinitionFilter(%q) = %+v, true; want rejected", f, got)
			}
		})
	}
}

func roleByID(t *testing.T, guid string) RoleDefinition {
	t.Helper()
	for _, r := range BuiltInRoles() {
		if r.GUID == guid {
			return r
		}
	}
	t.Fatalf("no built-in role %s", guid)
	return RoleDefinition{}
}

func TestBuiltInRolesAllow(t *testing.T) {
	const (
		vmWrite     = "Vendor.Compute/virtualMachines/write"
		vmRead      = "Vendor.Compute/virtualMachines/read"
		vmDelete    = "Vendor.Compute/virtualMachines/delete"
		raWrite     = "Vendor.Authorization/roleAssignments/write"
		raDelete    = "Vendor.Authorization/roleAssignments/delete"
		raRead      = "Vendor.Authorization/roleAssignments/read"
		rdWrite     = "Vendor.Authorization/roleDefinitions/write"
		elevate     = "Vendor.Authorization/elevateAccess/Action"
		supportCase = "Microsoft.Support/supportTickets/write" // only the authorization namespace is renamed
	)
	tests := []struct {
		role   string
		action string
		want   bool
	}{
		{OwnerRoleID, vmWrite, true},
		{OwnerRoleID, raWrite, true},
		{OwnerRoleID, raDelete, true},
		{OwnerRoleID, elevate, true},
		{OwnerRoleID, "anything/at/all", true},

		{ContributorRoleID, vmWrite, true},
		{ContributorRoleID, vmDelete, true},
		{ContributorRoleID, raRead, true},
		{ContributorRoleID, raWrite, false},
		{ContributorRoleID, raDelete, false},
		{ContributorRoleID, strings.ToUpper(raWrite), false},
		{ContributorRoleID, "vendor.authorization/roleassignments/WRITE", false},
		{ContributorRoleID, rdWrite, false},
		{ContributorRoleID, elevate, false},
		{ContributorRoleID, "vendor.authorization/ELEVATEACCESS/action", false},

		{ReaderRoleID, vmRead, true},
		{ReaderRoleID, raRead, true},
		{ReaderRoleID, "VENDOR.COMPUTE/VIRTUALMACHINES/READ", true},
		{ReaderRoleID, vmWrite, false},
		{ReaderRoleID, raWrite, false},
		{ReaderRoleID, raDelete, false},
		{ReaderRoleID, "read", false},
		{ReaderRoleID, "Vendor.Compute/virtualMachines/readAll", false},

		{UserAccessAdministratorRoleID, raWrite, true},
		{UserAccessAdministratorRoleID, raDelete, true},
		{UserAccessAdministratorRoleID, rdWrite, true},
		{UserAccessAdministratorRoleID, vmRead, true},
		{UserAccessAdministratorRoleID, supportCase, true},
		{UserAccessAdministratorRoleID, vmWrite, false},

		{RBACAdministratorRoleID, raWrite, true},
		{RBACAdministratorRoleID, raDelete, true},
		{RBACAdministratorRoleID, raRead, true},
		{RBACAdministratorRoleID, vmRead, true},
		{RBACAdministratorRoleID, "VENDOR.AUTHORIZATION/ROLEASSIGNMENTS/WRITE", true},
		{RBACAdministratorRoleID, vmWrite, false},
		{RBACAdministratorRoleID, rdWrite, false},
		{RBACAdministratorRoleID, vmDelete, false},
	}
	for _, tt := range tests {
		r := roleByID(t, tt.role)
		t.Run(r.Name+" "+tt.action, func(t *testing.T) {
			if got := r.Allows(tt.action); got != tt.want {
				t.Errorf("%s.Allows(%q) = %v, want %v", r.Name, tt.action, got, tt.want)
			}
		})
	}
}

func TestCustomRoleAllows(t *testing.T) {
	r := RoleDefinition{
		Name:       "custom",
		Actions:    []string{"Vendor.Compute/*/read", "Vendor.Storage/storageAccounts/listKeys/action"},
		NotActions: []string{"Vendor.Compute/secrets/*"},
	}
	tests := []struct {
		action string
		want   bool
	}{
		{"Vendor.Compute/virtualMachines/read", true},
		{"Vendor.Compute/virtualMachines/extensions/read", true},
		{"Vendor.Compute/secrets/read", false},
		{"Vendor.Storage/storageAccounts/listKeys/action", true},
		{"vendor.storage/STORAGEACCOUNTS/listkeys/ACTION", true},
		{"Vendor.Storage/storageAccounts/listKeys/actions", false},
		{"Vendor.Storage/storageAccounts/read", false},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			if got := r.Allows(tt.action); got != tt.want {
				t.Errorf("Allows(%q) = %v, want %v", tt.action, got, tt.want)
			}
		})
	}
	t.Run("no actions allows nothing", func(t *testing.T) {
		if got := (RoleDefinition{NotActions: []string{"x"}}).Allows("y"); got {
			t.Errorf("got %v, want false", got)
		}
	})
}

func TestWildcardMatch(t *testing.T) {
	// wildcardMatch itself is case-sensitive: Allows lowers both sides first.
	tests := []struct {
		p, s string
		want bool
	}{
		{"*", "", true},
		{"*", "anything/at/all", true},
		{"a/b/c", "a/b/c", true},
		{"a/b/c", "a/b/cd", false},
		{"a/b/c", "a/b", false},
		{"", "", true},
		{"", "a", false},
		{"a/*", "a/", true},
		{"a/*", "a/b/c", true},
		{"a/*", "b/a/c", false},
		{"*/read", "x/y/read", true},
		{"*/read", "read", false},
		{"*/read", "x/readme", false},
		{"a/*/write", "a/b/write", true},
		{"a/*/write", "a/b/c/write", true},
		{"a/*/write", "a/write", false},
		{"a/*/write", "b/x/write", false},
		{"a*a", "a", false},
		{"a*a", "aa", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "acb", false},
		{"*b*", "abc", true},
		{"*b*", "ac", false},
		{"a**c", "ac", true},
		{"x*y*z", "xyzyz", true},
		{"x*yz*yz", "xyz", false},
		{"A/b", "a/b", false},
	}
	for _, tt := range tests {
		t.Run(tt.p+" ~ "+tt.s, func(t *testing.T) {
			if got := wildcardMatch(tt.p, tt.s); got != tt.want {
				t.Errorf("wildcardMatch(%q, %q) = %v, want %v", tt.p, tt.s, got, tt.want)
			}
		})
	}
}

// unsignedJWT builds a compact JWT whose payload is the given bytes.
func unsignedJWT(payload []byte) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(payload) + ".sig"
}

func claimsJWT(t *testing.T, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return unsignedJWT(b)
}

func TestJWTClaims(t *testing.T) {
	t.Run("decodes the payload", func(t *testing.T) {
		got, ok := jwtClaims(claimsJWT(t, map[string]any{"oid": "x", "n": 1.5}))
		want := map[string]any{"oid": "x", "n": 1.5}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, %v; want %v, true", got, ok, want)
		}
	})
	t.Run("padded payload", func(t *testing.T) {
		payload := base64.URLEncoding.EncodeToString([]byte(`{"oid":"x"}`)) // has '=' padding
		got, ok := jwtClaims("h." + payload + ".s")
		if !ok || got["oid"] != "x" {
			t.Errorf("got %v, %v; want oid x", got, ok)
		}
	})
	for _, tt := range []struct{ name, token string }{
		{"not a JWT", "opaque-token"},
		{"two parts", "a.b"},
		{"four parts", "a.b.c.d"},
		{"bad base64", "header.!!!not-base64!!!.sig"},
		{"standard base64 alphabet", "h.eyJ+b2lkIjoieCJ9.s"},
		{"bad JSON", unsignedJWT([]byte(`{"oid":`))},
		{"JSON that is not an object", unsignedJWT([]byte(`["oid"]`))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := jwtClaims(tt.token); ok {
				t.Errorf("jwtClaims(%q) = %v, true; want false", tt.token, got)
			}
		})
	}
}

func TestCallerForToken(t *testing.T) {
	const (
		oid      = "6f8bbbb4-9e2b-4b35-a3ad-0c0b0a5a8d27"
		mapped   = "d1e3c6a0-6f1b-4c5e-9a0e-2b7c1f3e4d5a"
		fallback = "00000000-0000-0000-0000-00000000beef"
	)
	badBase64 := "header.!!!.sig"
	badJSON := unsignedJWT([]byte(`{"oid":"` + oid))
	mappedBadOID := unsignedJWT([]byte(`{"oid":"not-a-guid"}`))
	s, err := New(Config{
		DefaultPrincipal: fallback,
		Tokens: map[string]Principal{
			"alice-token": {ID: strings.ToUpper(mapped), Name: "alice@example.com"},
			"svc-token":   {ID: mapped, Type: "ServicePrincipal"},
			badJSON:       {ID: mapped, Name: "mapped-bad-jwt"},
			mappedBadOID:  {ID: mapped, Name: "mapped-bad-oid"},
		},
	}, store.New(store.NewMemory()))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		token string
		want  Caller
	}{
		{"oid and upn", claimsJWT(t, map[string]any{"oid": oid, "upn": "someone@example.com"}),
			Caller{PrincipalID: oid, Name: "someone@example.com", Type: "User"}},
		{"oid is lowered, named by it when nothing else", claimsJWT(t, map[string]any{"oid": strings.ToUpper(oid)}),
			Caller{PrincipalID: oid, Name: strings.ToUpper(oid), Type: "User"}},
		{"application token", claimsJWT(t, map[string]any{"oid": oid, "appid": "app-1", "idtyp": "app"}),
			Caller{PrincipalID: oid, Name: "app-1", Type: "Application"}},
		{"idtyp compares case-insensitively", claimsJWT(t, map[string]any{"oid": oid, "azp": "app-2", "idtyp": "APP"}),
			Caller{PrincipalID: oid, Name: "app-2", Type: "Application"}},
		{"upn wins over appid", claimsJWT(t, map[string]any{"oid": oid, "appid": "app-1", "upn": "u@example.com"}),
			Caller{PrincipalID: oid, Name: "u@example.com", Type: "User"}},
		{"preferred_username", claimsJWT(t, map[string]any{"oid": oid, "preferred_username": "p@example.com"}),
			Caller{PrincipalID: oid, Name: "p@example.com", Type: "User"}},
		{"JWT without oid: default", claimsJWT(t, map[string]any{"sub": "x"}),
			Caller{PrincipalID: strings.ToLower(fallback), Name: fallback, Type: "User"}},
		{"oid that is not a string: default", claimsJWT(t, map[string]any{"oid": 42}),
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"non-JWT token mapped in the seed", "alice-token",
			Caller{PrincipalID: mapped, Name: "alice@example.com", Type: "User"}},
		{"mapped token with a type", "svc-token",
			Caller{PrincipalID: mapped, Name: mapped, Type: "ServicePrincipal"}},
		{"non-JWT token not mapped: default", "opaque",
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"JWT with bad base64: default", badBase64,
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"JWT with bad JSON: falls back to the seed", badJSON,
			Caller{PrincipalID: mapped, Name: "mapped-bad-jwt", Type: "User"}},
		// Unverified claims count only when plausible; else as if absent.
		{"oid not a GUID, with control characters: default", claimsJWT(t, map[string]any{"oid": "not-a-guid\u0000\n<x>", "upn": "u@example.com"}),
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"oid of 5000 characters: default", claimsJWT(t, map[string]any{"oid": strings.Repeat("a", 5000)}),
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"oid of invalid UTF-8: default", unsignedJWT([]byte("{\"oid\":\"\xff\"}")),
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"GUID oid with a NUL after it: default", claimsJWT(t, map[string]any{"oid": oid + "\u0000"}),
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"braced GUID oid: default", claimsJWT(t, map[string]any{"oid": "{" + oid + "}"}),
			Caller{PrincipalID: fallback, Name: fallback, Type: "User"}},
		{"oid not a GUID, token mapped in the seed: the seed", mappedBadOID,
			Caller{PrincipalID: mapped, Name: "mapped-bad-oid", Type: "User"}},
		{"upn with control characters: the next name claim", claimsJWT(t, map[string]any{"oid": oid, "upn": "u\u0000@example.com", "appid": "app-1"}),
			Caller{PrincipalID: oid, Name: "app-1", Type: "User"}},
		{"every name claim implausible: the oid", claimsJWT(t, map[string]any{"oid": oid, "upn": "a\nb", "unique_name": strings.Repeat("n", 257), "preferred_username": "\ufffd", "appid": "x\u202e", "azp": 7}),
			Caller{PrincipalID: oid, Name: oid, Type: "User"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.callerForToken(tt.token); got != tt.want {
				t.Errorf("callerForToken(%q) = %+v, want %+v", tt.token, got, tt.want)
			}
		})
	}
}

var benchScopes = []string{
	"subscriptions/" + testSub,
	"/" + testRG + "/",
	testRG + "/providers/Vendor.Network/virtualNetworks/v/subnets/s",
	testRG + "/providers/A.B/t/n/providers/C.D/t2/n2",
	"providers/Vendor.Management/managementGroups/mg",
}

var benchSink Scope

func BenchmarkParseScope(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		benchSink, _ = ParseScope(benchScopes[i%len(benchScopes)])
	}
}

var benchPathSink string

func BenchmarkRewrite(b *testing.B) {
	paths := []string{
		"/" + testRG + "/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747",
		"/" + testRG + "/providers/Vendor.Storage/storageAccounts/a/PROVIDERS/vendor.authorization/roleassignments/b0f43c54-e787-4862-89b1-a653fa9cf747",
		"/subscriptions/" + testSub + "/providers/Vendor.Authorization/roleAssignments",
		"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		benchPathSink, _, _ = rewrite(paths[i%len(paths)])
	}
}
