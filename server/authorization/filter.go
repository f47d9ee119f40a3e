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
}

var (
	reAtScope    = regexp.MustCompile(`(?i)^atScope\(\)$`)
	rePrincipal  = regexp.MustCompile(`(?i)^principalId\s+eq\s+'([^']*)'$`)
	reAssignedTo = regexp.MustCompile(`(?i)^assignedTo\('([^']*)'\)$`)
	reAnd        = regexp.MustCompile(`(?i)\s+and\s+`)
	reRoleName   = regexp.MustCompile(`(?i)^roleName\s+eq\s+'([^']*)'$`)
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
			f.Principal = strings.ToLower(reAssignedTo.FindStringSubmatch(t)[1])
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

// parseRoleNameFilter accepts "" or roleName eq '{name}'.
func parseRoleNameFilter(raw string) (name string, ok bool) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", true
	}
	m := reRoleName.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}
