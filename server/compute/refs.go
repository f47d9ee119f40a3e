package compute

import "strings"

// ref is a reference to a resource, as a full URL (any host), a partial path such as
// projects/p/regions/r/interconnectAttachments/a, or a path relative to the project the
// request names (global/interconnects/i, regions/r/interconnectAttachments/a), the forms
// Compute Engine accepts for every reference field.
type ref struct {
	Project, Region, Name string
}

// parseRef reads a reference to a resource of collection (e.g. "interconnects"); global
// references have no region. project is the request's: the project of a relative path.
func parseRef(s, collection, project string) (ref, bool) {
	// The path's segments, as strings.Split would give them, without allocating: a
	// reference has 5 or 6; a seventh means too many.
	var parts [7]string
	n, rest := 0, ""
	switch i := lastProjects(s); {
	case i >= 0:
		rest = s[i:]
	case strings.HasPrefix(s, "global/") || strings.HasPrefix(s, "regions/"):
		parts[0], parts[1], n, rest = "projects", project, 2, s
	default:
		return ref{}, false
	}
	rest = strings.Trim(rest, "/")
	for more := true; more && n < len(parts); n++ {
		parts[n], rest, more = strings.Cut(rest, "/")
	}
	switch {
	case n == 5 && parts[2] == "global" && parts[3] == collection:
		return ref{Project: parts[1], Name: parts[4]}, parts[1] != "" && parts[4] != ""
	case n == 6 && parts[2] == "regions" && parts[4] == collection:
		return ref{Project: parts[1], Region: parts[3], Name: parts[5]}, parts[1] != "" && parts[3] != "" && parts[5] != ""
	}
	return ref{}, false
}

// lastProjects is strings.LastIndex(s, "projects/"), found with forward searches: a URL holds
// "projects/" once, and strings.Index finds it with vector instructions where LastIndex
// hashes its way back byte by byte (a third of parseRef's time for a full URL).
func lastProjects(s string) int {
	const p = "projects/"
	i := strings.Index(s, p)
	if i < 0 {
		return -1
	}
	for {
		j := strings.Index(s[i+1:], p)
		if j < 0 {
			return i
		}
		i += 1 + j
	}
}
