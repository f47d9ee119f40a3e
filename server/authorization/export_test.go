package authorization

// APIVersions are the api-versions served for a resource type, oldest first, for the
// external tests.
func APIVersions(kind string) []string { return apiVersions[kind] }
