package authorization

import (
	"regexp"
	"strings"
)

// assignmentFilter is a parsed $filter of the role-assignment list.
type assignmentFilter struct {
	// AtOrAbove limits results to the scope and its ancestors (atScope()).
	AtOrAbove bool
	// Principal, when set, limits results to one principal (lower-case).
	Principal string
	// Groups adds the assignments of every group Principal is in (assignedTo()).
	Groups bool
}

var (
	reAtScope    = regexp.MustCompile(`(?i)^atScope\(\)$`)
	rePrincipal  = regexp.MustCompile(`(?i)^principalId\s+eq\s+'([^']*)'$`)
	reAssignedTo = regexp.MustCompile(`(?i)^assignedTo\('([^']*)'\)$`)
	reAnd        = regexp.MustCompile(`(?i)\s+and\s+`)
	reRoleName   = regexp.MustCompile(`(?i)^roleName\s+eq\s+'((?:[^']|'')*)'$`) // OData doubles a quote inside a string
	reRoleType   = regexp.MustCompile(`(?i)^type\s+eq\s+'(BuiltInRole|CustomRole)'$`)
	reAndBelow   = regexp.MustCompile(`(?i)^atScopeAndBelow\(\)$`)
	reDenyName   = regexp.MustCompile(`(?i)^denyAssignmentName\s+eq\s+'((?:[^']|'')*)'$`)
	reGDPR       = regexp.MustCompile(`(?i)^gdprExportPrincipalId\s+eq\s+'([^']*)'$`)
)

// parseAssignmentFilter accepts ARM's filters: atScope(), principalId eq '{id}',
// assignedTo('{id}'), and atScope() and assignedTo('{id}') (either order).
func parseAssignmentFilter(raw string) (assignmentFilter, bool) {
	var f assignmentFilter
	s := strings.TrimSpace(raw)
	if s == "" {
		return f, true
	}
	terms := reAnd.Split(s, -1)
	if len(terms) > 2 {
		return f, false
	}
	for _, t := range terms {
		t = strings.TrimSpace(t)
		switch {
		case reAtScope.MatchString(t) && !f.AtOrAbove:
			f.AtOrAbove = true
		case rePrincipal.MatchString(t) && f.Principal == "" && len(terms) == 1:
			f.Principal = strings.ToLower(rePrincipal.FindStringSubmatch(t)[1])
		case reAssignedTo.MatchString(t) && f.Principal == "":
			f.Principal, f.Groups = strings.ToLower(reAssignedTo.FindStringSubmatch(t)[1]), true
		default:
			return f, false
		}
	}
	if len(terms) == 2 && !(f.AtOrAbove && f.Principal != "") {
		return f, false
	}
	if f.Principal == "" && len(terms) == 1 && !f.AtOrAbove {
		return f, false
	}
	return f, true
}

// roleDefinitionFilter is a parsed $filter of the role-definition list: ARM's
// RoleDefinitionFilter (roleName, type) and atScopeAndBelow(), one at a time.
type roleDefinitionFilter struct {
	// ByName limits results to the role named Name (any case); an empty Name matches none.
	ByName bool
	Name   string
	// Type, when set, is BuiltInRole or CustomRole, as the role's properties.type spells it.
	Type string
	// AndBelow adds the custom roles assignable only below the scope.
	AndBelow bool
}

// parseRoleDefinitionFilter accepts "", and the terms roleName eq '{name}', type eq
// 'BuiltInRole' or 'CustomRole' (any case) and atScopeAndBelow(), alone or joined by "and",
// each at most once (ARM's RoleDefinitionFilter has the members roleName and type).
func parseRoleDefinitionFilter(raw string) (roleDefinitionFilter, bool) {
	var f roleDefinitionFilter
	s := strings.TrimSpace(raw)
	if s == "" {
		return f, true
	}
	for _, t := range splitAnd(s) {
		t = strings.TrimSpace(t)
		if reAndBelow.MatchString(t) && !f.AndBelow {
			f.AndBelow = true
		} else if m := reRoleName.FindStringSubmatch(t); m != nil && !f.ByName {
			f.ByName, f.Name = true, strings.ReplaceAll(m[1], "''", "'")
		} else if m := reRoleType.FindStringSubmatch(t); m != nil && f.Type == "" {
			f.Type = builtInRole
			if strings.EqualFold(m[1], customRole) {
				f.Type = customRole
			}
		} else {
			return f, false
		}
	}
	return f, true
}

// keeps reports whether the filter lets role r, listed at scope key, through.
func (f roleDefinitionFilter) keeps(h *hierarchy, r RoleDefinition, scopeKey string) bool {
	switch {
	case f.ByName && !strings.EqualFold(r.Name, f.Name), f.Type != "" && r.Type != f.Type:
		return false
	case h.assignableAt(r, scopeKey):
		return true
	}
	return f.AndBelow && h.assignableBelow(r, scopeKey)
}

// splitAnd splits an OData filter at each "and" outside quoted strings: role names such as
// 'Reader and Data Access' hold the word. A quote doubled inside a string toggles
// twice, so it needs no case of its own.
func splitAnd(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		if loc := reAnd.FindStringIndex(s[i:]); loc != nil && loc[0] == 0 {
			out = append(out, s[start:i])
			start = i + loc[1]
			i = start - 1
		}
	}
	return append(out, s[start:])
}

// denyFilter is a parsed $filter of the deny-assignment list: ARM's DenyAssignmentFilter
// (denyAssignmentName, principalId, gdprExportPrincipalId) and atScope(), as its REST
// specification describes them, and assignedTo(), as the vendor's article on listing deny
// assignments adds.
type denyFilter struct {
	// AtOrAbove limits results to the scope and its ancestors (atScope(), and
	// denyAssignmentName, which searches at the scope).
	AtOrAbove bool
	// ByName limits results to the deny assignments of display name Name (any case).
	ByName bool
	Name   string
	// Principal, when set, limits results to the deny assignments that name it (lower-case):
	// in principals, or in excludePrincipals too with GDPR, or (Applies) that apply to it.
	Principal string
	GDPR      bool
	// Applies is assignedTo(): the principal's, its groups' and All Principals' deny
	// assignments that exclude none of them.
	Applies bool
}

// parseDenyFilter accepts "", atScope(), denyAssignmentName eq '{name}', principalId eq
// '{id}', gdprExportPrincipalId eq '{id}', assignedTo('{id}'), and atScope() and
// assignedTo('{id}') (either order).
func parseDenyFilter(raw string) (denyFilter, bool) {
	var f denyFilter
	s := strings.TrimSpace(raw)
	if s == "" {
		return f, true
	}
	terms := splitAnd(s)
	if len(terms) > 2 {
		return f, false
	}
	byPrincipal := false // an empty id would otherwise read as no principal term at all
	for _, t := range terms {
		t = strings.TrimSpace(t)
		if reAtScope.MatchString(t) && !f.AtOrAbove {
			f.AtOrAbove = true
		} else if m := reAssignedTo.FindStringSubmatch(t); m != nil && !byPrincipal {
			byPrincipal, f.Principal, f.Applies = true, strings.ToLower(m[1]), true
		} else if len(terms) > 1 {
			return f, false // only atScope() and assignedTo() go together
		} else if m := reDenyName.FindStringSubmatch(t); m != nil {
			f.AtOrAbove, f.ByName, f.Name = true, true, strings.ReplaceAll(m[1], "''", "'")
		} else if m := rePrincipal.FindStringSubmatch(t); m != nil {
			byPrincipal, f.Principal = true, strings.ToLower(m[1])
		} else if m := reGDPR.FindStringSubmatch(t); m != nil {
			byPrincipal, f.Principal, f.GDPR = true, strings.ToLower(m[1]), true
		} else {
			return f, false
		}
	}
	if byPrincipal && f.Principal == "" {
		return f, false
	}
	return f, len(terms) == 1 || f.AtOrAbove && f.Applies
}
