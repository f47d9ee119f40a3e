package authorization

import (
	"fmt"
	"slices"
	"strings"

	"github.com/understudy-dev/understudy/internal/condition"
)

// ManagementGroup is a management group as the seed file declares it: which group it sits
// in (none: directly under the tenant root group) and which subscriptions sit directly in it.
// ARM puts every subscription in one management group; one the seed file places nowhere is
// under the root only.
type ManagementGroup struct {
	ID            string   `yaml:"id" json:"id"`
	DisplayName   string   `yaml:"displayName,omitempty" json:"displayName,omitempty"`
	Parent        string   `yaml:"parent,omitempty" json:"parent,omitempty"`
	Subscriptions []string `yaml:"subscriptions,omitempty" json:"subscriptions,omitempty"`
}

// hierarchy is the scope tree above subscriptions: the tenant root (key ""), management
// groups and the subscriptions in them. Below a subscription the tree is textual: a
// scope's path prefixes are its ancestors.
type hierarchy struct {
	// parent maps a management group's or subscription's key to its group's key; absent:
	// directly under the root.
	parent map[string]string
	// children maps a management group's key to the keys directly in it.
	children map[string][]string
}

// newHierarchy checks the seed's management groups: valid ids, each declared once, parents
// that are declared groups without a cycle, subscriptions that are GUIDs in one group only.
func newHierarchy(groups []ManagementGroup) (*hierarchy, error) {
	h := &hierarchy{parent: map[string]string{}, children: map[string][]string{}}
	declared := map[string]bool{}
	fail := func(i int, format string, args ...any) error {
		return &SeedError{Collection: SeedManagementGroups, Index: i, Err: fmt.Errorf(format, args...)}
	}
	for i, g := range groups {
		if !validGroupName(g.ID) {
			return nil, fail(i, "management group %q: the id must be 1 to %d letters, digits, '-', '_', '.', '(' or ')', not ending in '.'", g.ID, maxGroupName)
		}
		key := mgKeyPrefix + asciiLower(g.ID)
		if declared[key] {
			return nil, fail(i, "management group %q is declared twice", g.ID)
		}
		declared[key] = true
	}
	for i, g := range groups {
		key := mgKeyPrefix + asciiLower(g.ID)
		if g.Parent != "" {
			pk := mgKeyPrefix + asciiLower(g.Parent)
			if !declared[pk] {
				return nil, fail(i, "management group %q: parent %q is not a declared management group", g.ID, g.Parent)
			}
			h.parent[key] = pk
			h.children[pk] = append(h.children[pk], key)
		}
		for _, sid := range g.Subscriptions {
			if !condition.IsGUID(sid) {
				return nil, fail(i, "management group %q: subscription %q is not a GUID", g.ID, sid)
			}
			sk := "subscriptions/" + asciiLower(sid)
			if other, taken := h.parent[sk]; taken {
				return nil, fail(i, "subscription %s is in two management groups (%s and %s); a subscription has one", sid, strings.TrimPrefix(other, mgKeyPrefix), g.ID)
			}
			h.parent[sk] = key
			h.children[key] = append(h.children[key], sk)
		}
	}
	for i, g := range groups {
		key := mgKeyPrefix + asciiLower(g.ID)
		seen := map[string]bool{key: true}
		for p, ok := h.parent[key]; ok; p, ok = h.parent[p] {
			if seen[p] {
				return nil, fail(i, "management group %q is its own ancestor", g.ID)
			}
			seen[p] = true
		}
	}
	return h, nil
}

// groupsAbove returns the keys of the management groups above the scope key, nearest first.
func (h *hierarchy) groupsAbove(key string) []string {
	k := key
	if rest, ok := strings.CutPrefix(key, "subscriptions/"); ok {
		sid, _, _ := strings.Cut(rest, "/")
		k = "subscriptions/" + sid
	} else if !strings.HasPrefix(key, mgKeyPrefix) {
		return nil
	}
	var out []string
	for p, ok := h.parent[k]; ok; p, ok = h.parent[p] {
		out = append(out, p)
	}
	return out
}

// above returns the keys of every scope above key: the root, the management groups above
// it, and its path prefixes (which include words such as "subscriptions" that no
// assignment is at; looking them up finds nothing).
func (h *hierarchy) above(key string) []string {
	if key == "" {
		return nil
	}
	return append(append([]string{""}, h.groupsAbove(key)...), Ancestors(key)...)
}

// covers reports whether an assignment at scope key a applies at scope key s: a is s, the
// root, a path prefix of s, or a management group above s.
func (h *hierarchy) covers(a, s string) bool {
	return a == "" || Covers(a, s) || strings.HasPrefix(a, mgKeyPrefix) && slices.Contains(h.groupsAbove(s), a)
}

// below returns the [lo, hi) ranges of the ByScope index that hold the scopes strictly
// below key, in ascending order and disjoint: everything for the root; for a management
// group, the groups and subscriptions under it and what is below those; for any other
// scope, its path subtree.
func (h *hierarchy) below(key string) [][2]string {
	if key == "" {
		// Every key but the root's own (atScope("")) starts with a letter, and keys are
		// valid UTF-8, which never holds the byte 0xff.
		return [][2]string{{"\x02", "\xff"}}
	}
	if !strings.HasPrefix(key, mgKeyPrefix) {
		return [][2]string{scopeAndBelow(key)[1]}
	}
	var out [][2]string
	var walk func(k string)
	walk = func(k string) {
		for _, c := range h.children[k] {
			out = append(out, scopeAndBelow(c)...)
			walk(c)
		}
	}
	walk(key)
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}
