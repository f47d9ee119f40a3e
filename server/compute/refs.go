package compute

import "strings"

// ref is a reference to a resource, as a full URL (any host, the API's path: .../compute/v1/
// projects/...), a partial path such as projects/p/regions/r/interconnectAttachments/a, or a
// path relative to the project the request names (global/interconnects/i,
// regions/r/interconnectAttachments/a), the forms Compute Engine accepts for every
// reference field.
type ref struct {
	Project, Region, Name string
}

// regionalCollections are the collections whose resources live in a region; the others
// parseRef reads are global.
var regionalCollections = map[string]bool{"interconnectAttachments": true}

// parseRef reads a reference to a resource of collection (e.g. "interconnects"), global or
// regional as the collection is. project is the request's: the project of a relative path.
func parseRef(s, collection, project string) (ref, bool) {
	// The path's segments, as strings.Split would give them, without allocating: a
	// reference has 5 or 6; a seventh means too many.
	var parts [7]string
	n, rest := 0, refPath(s)
	switch {
	case strings.HasPrefix(rest, "projects/"):
	case rest == s && (strings.HasPrefix(s, "global/") || strings.HasPrefix(s, "regions/")):
		parts[0], parts[1], n = "projects", project, 2
	default:
		return ref{}, false
	}
	rest = strings.TrimRight(rest, "/")
	for more := true; more && n < len(parts); n++ {
		parts[n], rest, more = strings.Cut(rest, "/")
	}
	regional := regionalCollections[collection]
	switch {
	case !regional && n == 5 && parts[2] == "global" && parts[3] == collection:
		return ref{Project: parts[1], Name: parts[4]}, parts[1] != "" && parts[4] != ""
	case regional && n == 6 && parts[2] == "regions" && parts[4] == collection:
		return ref{Project: parts[1], Region: parts[3], Name: parts[5]}, parts[1] != "" && parts[3] != "" && parts[5] != ""
	}
	return ref{}, false
}

// refPath is the reference without what may stand before its projects/ segment: the
// scheme, host and API path of a URL (any host, .../compute/v1/ or the beta and alpha
// versions') or a leading slash. Anything else is left as it is, and so refused unless it is
// a relative path: xprojects/..., https://h/other/projects/... and the like name nothing.
func refPath(s string) string {
	scheme := "https://"
	if !strings.HasPrefix(s, scheme) {
		if scheme = "http://"; !strings.HasPrefix(s, scheme) {
			return strings.TrimPrefix(s, "/")
		}
	}
	const api = "/compute/"
	for rest := s[len(scheme):]; ; {
		i := strings.Index(rest, api)
		if i < 0 {
			return s
		}
		after := rest[i+len(api):]
		for _, version := range [...]string{"v1/", "beta/", "alpha/"} {
			if strings.HasPrefix(after, version) {
				return after[len(version):]
			}
		}
		rest = rest[i+1:]
	}
}
