package authorization

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/understudy-dev/understudy/internal/condition"
)

// Scope is a parsed role-assignment scope.
type Scope struct {
	// Path is the scope as sent, without leading or trailing slashes.
	Path string
	// Key is Path lower-cased: scopes compare case-insensitively, as in ARM. A management
	// group's key is spelled with Microsoft.Management whatever the request said.
	Key string
	// Subscription is the lower-cased subscription id, "" for management groups and the root.
	Subscription string
}

// Root reports whether the scope is the tenant root "/".
func (sc Scope) Root() bool { return sc.Path == "" }

// ManagementGroup reports whether the scope is a management group.
func (sc Scope) ManagementGroup() bool { return strings.HasPrefix(sc.Key, mgKeyPrefix) }

// ID is the scope as ids spell it before /providers/...: "/" and the path, or "" for the
// root (whose assignments are /providers/Vendor.Authorization/roleAssignments/{name}).
func (sc Scope) ID() string { return scopeID(sc.Path) }

func scopeID(path string) string {
	if path == "" {
		return ""
	}
	return "/" + path
}

// mgKeyPrefix starts the key of every management group scope, whichever provider spelling
// it was sent with.
const mgKeyPrefix = "providers/microsoft.management/managementgroups/"

// ParseScope checks that raw has one of the shapes ARM accepts:
//
//	subscriptions/{sid}
//	subscriptions/{sid}/resourceGroups/{rg}
//	subscriptions/{sid}/resourceGroups/{rg}/providers/{ns}/{type}/{name}[/{type}/{name}...]
//	providers/Microsoft.Management/managementGroups/{id}
//	/ (the tenant root)
//
// Management groups keep the real provider name, Microsoft.Management, as every provider
// but Authorization does; Vendor.Management, which turn 1 served, stays accepted as the same
// scope (the key is the same).
// A resource may itself be followed by /providers/{ns}/{type}/{name} (an extension resource).
// The names in it must also be valid: see the rules after parseScope.
func ParseScope(raw string) (Scope, bool) {
	sc, err := parseScope(raw)
	return sc, err == nil
}

// parseScope is ParseScope with the error to answer when raw is refused: InvalidScope for
// a shape ARM does not know, InvalidSubscriptionId or InvalidResourceGroup for a name that
// breaks ARM's rules for it.
func parseScope(raw string) (Scope, *Error) {
	path := strings.Trim(raw, "/")
	if raw == "/" {
		return Scope{}, nil // the tenant root; "" and "//" name nothing and are refused
	}
	segs := strings.Split(path, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return Scope{}, errInvalidScope(raw)
		}
	}
	// Words and keys fold ASCII letters only: Unicode folding would let look-alikes such as
	// U+017F (ſ) pass for "s" in the words while the key kept them apart.
	sc := Scope{Path: path, Key: asciiLower(path)}
	word := func(i int, w string) bool { return i < len(segs) && asciiEqualFold(segs[i], w) }
	switch {
	case word(0, "subscriptions") && len(segs) >= 2:
		rest := segs[2:]
		if len(rest) > 0 && (!asciiEqualFold(rest[0], "resourceGroups") || len(rest) < 2 || !validResourcePath(rest[2:])) {
			return Scope{}, errInvalidScope(raw)
		}
		if !condition.IsGUID(segs[1]) {
			return Scope{}, errInvalidSubscriptionID(segs[1])
		}
		if len(rest) > 0 && !validGroupName(rest[1]) {
			return Scope{}, errInvalidResourceGroup(rest[1])
		}
		if len(rest) > 2 && !validNames(rest[2:]) {
			return Scope{}, errInvalidScope(raw)
		}
		sc.Subscription = asciiLower(segs[1])
		return sc, nil
	case len(segs) == 4 && word(0, "providers") && (word(1, "Microsoft.Management") || word(1, "Vendor.Management")) && word(2, "managementGroups"):
		if !validGroupName(segs[3]) {
			return Scope{}, errInvalidScope(raw)
		}
		sc.Key = scopeKeyOf(path)
		return sc, nil
	}
	return Scope{}, errInvalidScope(raw)
}

// parseListScope is parseScope for the scope of a list (role assignments, permissions). The
// vendor's list paths name a resource as
// subscriptions/{sid}/resourcegroups/{rg}/providers/{ns}/{parentResourcePath}/{type}/{name}
// (Permissions_ListForResource in every version, RoleAssignments_ListForResource before
// 2022-04-01), and its clients send a top-level resource's parentResourcePath empty, so
// that the path holds providers/{ns}//{type}/{name}: the Node SDK
// (@azure/arm-authorization's permissions.listForResource) puts it in the URL as it is, as
// the .NET SDK's request tests pin against management.azure.com and as the Azure CLI sends
// every top-level resource ('parent_resource_path or ""'). One empty segment right after a
// resource's provider namespace is that empty parent, and is dropped; any other empty
// segment is still InvalidScope. The scope routes that take a scope whole (a role
// assignment by name, role definitions) have no such template and read the scope as sent.
func parseListScope(raw string) (Scope, *Error) {
	sc, err := parseScope(withoutEmptyParent(raw))
	if err != nil && err.Code == "InvalidScope" {
		return Scope{}, errInvalidScope(raw) // the scope as sent
	}
	return sc, err
}

// withoutEmptyParent is raw without the empty parentResourcePath of a resource below a
// resource group: an empty segment after providers/{ns} (the provider namespace not empty)
// at segment 6 or later. It returns raw itself when there is none, the usual case.
func withoutEmptyParent(raw string) string {
	if !strings.Contains(raw, "//") {
		return raw
	}
	segs := strings.Split(strings.Trim(raw, "/"), "/")
	out := segs[:0:0]
	for i, s := range segs {
		if s == "" && i >= 6 && segs[i-1] != "" && asciiEqualFold(segs[i-2], "providers") &&
			i+1 < len(segs) && segs[i+1] != "" {
			continue
		}
		out = append(out, s)
	}
	if len(out) == len(segs) {
		return raw
	}
	return strings.Join(out, "/")
}

// scopeKeyOf is the Key of a scope parseScope accepts, from its path (with or without
// slashes around it) alone: the path lower-cased, and a management group's spelled with
// Microsoft.Management. The only accepted scopes that start with "providers/" are
// management groups.
func scopeKeyOf(path string) string {
	path = strings.Trim(path, "/")
	if hasProvidersPrefix(path) {
		return mgKeyPrefix + asciiLower(path[strings.LastIndexByte(path, '/')+1:])
	}
	return asciiLower(path)
}

// hasProvidersPrefix reports whether the scope path (trimmed of slashes) starts with
// providers/ and more: a management group's.
func hasProvidersPrefix(path string) bool {
	const providers = "providers/"
	return len(path) > len(providers) && asciiEqualFold(path[:len(providers)], providers)
}

// The rules for the names in a scope. Whatever is accepted is stored and echoed byte for
// byte, so it must survive JSON and a URL unchanged: the id a response carries, escaped as
// any client escapes a path, reads the assignment back.
//
//   - A subscription id is a GUID, as in ARM, else 400 InvalidSubscriptionId, "The provided
//     subscription identifier '{id}' is malformed or invalid." [observed: ARM's envelope in
//     Azure/apiops#460 (400), hashicorp/terraform-provider-azurerm#25954 (400)].
//   - A resource group name is 1 to 90 characters, each a letter or digit (Unicode, as .NET's
//     Char.IsLetterOrDigit: categories L and Nd), '_', '-', '.', '(' or ')', not ending in
//     '.' [spec: Microsoft.Resources resourceGroups name pattern ^[-\w\._\(\)]+$ and
//     maxLength 90, as generated in Azure/bicep-types-az; docs: resource-name-rules], else
//     400 InvalidResourceGroup [observed: Azure/azure-cli#14481, code and message]. A
//     management group id follows the same rule (docs: resource-name-rules,
//     Microsoft.Management), else InvalidScope.
//   - Every other name (provider namespace, resource type and name) is valid UTF-8 without
//     control characters (Unicode category Cc), else InvalidScope [our choice: ARM's rules
//     differ per resource type; these are the ones no type allows].
//
// Word and GUID comparisons fold ASCII only; a non-ASCII name is its own name, compared
// byte for byte.

// maxGroupName is the longest resource group name (or management group id) ARM accepts.
const maxGroupName = 90

// validGroupName reports whether s may name a resource group or management group.
func validGroupName(s string) bool {
	if s == "" || s[len(s)-1] == '.' {
		return false
	}
	n := 0
	for i := 0; i < len(s); n++ {
		if n == maxGroupName {
			return false
		}
		if c := s[i]; c < utf8.RuneSelf {
			if !groupRune(rune(c)) {
				return false
			}
			i++
			continue
		}
		// Invalid UTF-8 decodes as U+FFFD, which is no letter.
		r, size := utf8.DecodeRuneInString(s[i:])
		if !groupRune(r) {
			return false
		}
		i += size
	}
	return true
}

// groupRune reports whether r may appear in a resource group name.
func groupRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
			r == '_' || r == '-' || r == '.' || r == '(' || r == ')'
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nd, r)
}

// validNames reports whether every name in segs is valid UTF-8 without control characters.
func validNames(segs []string) bool {
	for _, s := range segs {
		for i := 0; i < len(s); {
			if c := s[i]; c < utf8.RuneSelf {
				if c < 0x20 || c == 0x7f {
					return false
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || unicode.IsControl(r) {
				return false
			}
			i += size
		}
	}
	return true
}

// validResourcePath accepts "" or providers/{ns}/{type}/{name} followed by {type}/{name}
// pairs, repeated for extension resources.
func validResourcePath(segs []string) bool {
	for len(segs) > 0 {
		if !asciiEqualFold(segs[0], "providers") || len(segs) < 4 {
			return false
		}
		segs = segs[2:] // providers/{ns}
		pairs := 0
		for len(segs) >= 2 && !asciiEqualFold(segs[0], "providers") {
			segs = segs[2:]
			pairs++
		}
		if pairs == 0 || (len(segs) == 1) {
			return false
		}
	}
	return true
}

// Ancestors returns the keys of every scope above key (its proper prefixes at segment
// boundaries), shortest first.
func Ancestors(key string) []string {
	var out []string
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			out = append(out, key[:i])
		}
	}
	return out
}

// Covers reports whether an assignment at scope key a applies at scope key s: a is s or
// one of its ancestors.
func Covers(a, s string) bool {
	return a == s || (strings.HasPrefix(s, a) && len(s) > len(a) && s[len(a)] == '/')
}

// asciiEqualFold is strings.EqualFold for ASCII letters only.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	if a == b {
		return true // the usual case (a word spelled as the routes spell it), compared whole
	}
	for i := 0; i < len(a); i++ {
		if asciiLowerByte(a[i]) != asciiLowerByte(b[i]) {
			return false
		}
	}
	return true
}
