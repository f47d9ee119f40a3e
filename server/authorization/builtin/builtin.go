// Package builtin is the vendor's published catalog of built-in roles, kept as data: every
// role's id, name and description (roles.txt, from the vendor's built-in roles page) and, for
// the roles whose definitions were transcribed, the permissions and description the API
// returns (permissions.json, from the same page's per-category definitions). Actions are
// as the vendor publishes them (Microsoft.* namespaces); the authorization API renames its own
// namespace when it loads them.
package builtin

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Taken is the day the catalog was copied from the vendor's pages.
const Taken = "2026-11-26"

//go:embed roles.txt
var rolesTxt string

//go:embed permissions.json
var permissionsJSON []byte

// Role is one built-in role.
type Role struct {
	ID          string // lower-case GUID
	Name        string
	Description string
	// Permissions are known when Defined; a role the catalog only names has none.
	Defined          bool
	Actions          []string
	NotActions       []string
	DataActions      []string
	NotDataActions   []string
	AssignableScopes []string // "/" unless the vendor says otherwise
}

// definition is an entry of permissions.json.
type definition struct {
	Description      string   `json:"description"`
	Actions          []string `json:"actions"`
	NotActions       []string `json:"notActions"`
	DataActions      []string `json:"dataActions"`
	NotDataActions   []string `json:"notDataActions"`
	AssignableScopes []string `json:"assignableScopes"`
}

// Roles returns the catalog in the order of roles.txt. It panics if the embedded data is
// malformed, which TestCatalogShape rules out.
var Roles = sync.OnceValue(func() []Role {
	roles, err := parse(rolesTxt, permissionsJSON)
	if err != nil {
		panic(err)
	}
	return roles
})

func parse(txt string, perms []byte) ([]Role, error) {
	defs := map[string]definition{}
	dec := json.NewDecoder(strings.NewReader(string(perms)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&defs); err != nil {
		return nil, fmt.Errorf("builtin: permissions.json: %w", err)
	}
	var roles []Role
	used := map[string]bool{}
	for n, line := range strings.Split(txt, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("builtin: roles.txt:%d: want id|roleName|description", n+1)
		}
		r := Role{ID: strings.ToLower(f[0]), Name: f[1], Description: f[2], AssignableScopes: []string{"/"}}
		if d, ok := defs[r.ID]; ok {
			used[r.ID] = true
			r.Defined = true
			r.Description = d.Description
			r.Actions, r.NotActions, r.DataActions, r.NotDataActions = d.Actions, d.NotActions, d.DataActions, d.NotDataActions
			if len(d.AssignableScopes) > 0 {
				r.AssignableScopes = d.AssignableScopes
			}
		}
		roles = append(roles, r)
	}
	for id := range defs {
		if !used[id] {
			return nil, fmt.Errorf("builtin: permissions.json: %s is not in roles.txt", id)
		}
	}
	return roles, nil
}
