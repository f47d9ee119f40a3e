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
	var parts []string
	switch rest := refPath(s); {
	case strings.HasPrefix(rest, "projects/"):
		parts = strings.Split(strings.TrimRight(rest, "/"), "/")
	case rest == s && (strings.HasPrefix(s, "global/") || strings.HasPrefix(s, "regions/")):
		parts = append([]string{"projects", project}, strings.Split(strings.TrimRight(s, "/"), "/")...)
	default:
		return ref{}, false
	}
	regional := regionalCollections[collection]
	switch {
	case !regional && len(parts) == 5 && parts[2] == "global" && parts[3] == collection:
		return ref{Project: parts[1], Name: parts[4]}, parts[1] != "" && parts[4] != ""
	case regional && len(parts) == 6 && parts[2] == "regions" && parts[4] == collection:
		return ref{Project: parts[1], Region: parts[3], Name: parts[5]}, parts[1] != "" && parts[3] != "" && parts[5] != ""
	}
	return ref{}, false
}

// refOrName is parseRef of a reference that may also be a plain name, of the request's
// project (a remote location's, whose member the discovery document calls a location, not
// a URL).
func refOrName(s, collection, project string) (ref, bool) {
	if validName(s) {
		return ref{Project: project, Name: s}, true
	}
	return parseRef(s, collection, project)
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
