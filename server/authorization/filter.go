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

// parseRoleDefinitionFilter accepts "", roleName eq '{name}', type eq 'BuiltInRole' or
// 'CustomRole' (any case), and atScopeAndBelow().
func parseRoleDefinitionFilter(raw string) (roleDefinitionFilter, bool) {
	var f roleDefinitionFilter
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
	case reAndBelow.MatchString(s):
		f.AndBelow = true
	default:
		if m := reRoleName.FindStringSubmatch(s); m != nil {
			f.ByName, f.Name = true, strings.ReplaceAll(m[1], "''", "'")
		} else if m := reRoleType.FindStringSubmatch(s); m != nil {
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
func (f roleDefinitionFilter) keeps(r RoleDefinition, scopeKey string) bool {
	switch {
	case f.ByName && !strings.EqualFold(r.Name, f.Name), f.Type != "" && r.Type != f.Type:
		return false
	case r.AssignableAt(scopeKey):
		return true
	}
	return f.AndBelow && r.AssignableBelow(scopeKey)
}
