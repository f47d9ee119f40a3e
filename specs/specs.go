// Package specs holds the hand-written OpenAPI documents of understudy's APIs, the source
// of truth the generated code under gen/ is made from, embedded as written so that a
// running server can serve them (GET /_understudy/specs/{api}.yaml).
package specs

import "embed"

//go:embed authorization.yaml accounts.yaml compute.yaml admin.yaml
var files embed.FS

// APIs are the APIs that have a document here, in the order the server mounts them.
var APIs = []string{"authorization", "accounts", "compute", "admin"}

// YAML returns the document of api, as written; false when there is no such API.
func YAML(api string) ([]byte, bool) {
	for _, a := range APIs {
		if a == api {
			b, err := files.ReadFile(a + ".yaml")
			return b, err == nil
		}
	}
	return nil, false
}
