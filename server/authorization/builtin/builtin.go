// Package builtin is the vendor's published catalog of built-in roles, kept as data: every
// role's id, name and description (roles.txt, from the vendor's built-in roles page) and
// every role's permissions (permissions.json, whose header names where each block of
// definitions was copied from and when). Actions are as the vendor publishes them
// (Microsoft.* namespaces, the vendor's own casing); the authorization API renames its own
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

// permissionsFile is permissions.json: where the definitions were copied from, then the
// definitions by role id.
type permissionsFile struct {
	Sources []Source              `json:"sources"`
	Roles   map[string]definition `json:"roles"`
}

// Source is one block of permissions.json's definitions: how many roles, copied from where,
// on which day.
type Source struct {
	Roles int    `json:"roles"`
	From  string `json:"from"`
	Taken string `json:"taken"`
}

// definition is an entry of permissions.json. Description is the one the API returns where
// it was copied with the permissions; without it the role keeps roles.txt's.
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
	roles, _, err := parse(rolesTxt, permissionsJSON)
	if err != nil {
		panic(err)
	}
	return roles
})

// Names returns each role's name by its lower-case id, read from roles.txt alone: what
// telling a built-in role from a custom one needs, without the permissions (most of the
// catalog's memory), which Roles parses when a role's definition is first asked for.
var Names = sync.OnceValue(func() map[string]string {
	roles, err := entries(rolesTxt)
	if err != nil {
		panic(err)
	}
	names := make(map[string]string, len(roles))
	for _, r := range roles {
		names[r.ID] = r.Name
	}
	return names
})

// Sources says where permissions.json's definitions were copied from.
var Sources = sync.OnceValue(func() []Source {
	_, sources, err := parse(rolesTxt, permissionsJSON)
	if err != nil {
		panic(err)
	}
	return sources
})

func parse(txt string, perms []byte) ([]Role, []Source, error) {
	var file permissionsFile
	dec := json.NewDecoder(strings.NewReader(string(perms)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, nil, fmt.Errorf("builtin: permissions.json: %w", err)
	}
	defs := file.Roles
	counted := 0
	for _, s := range file.Sources {
		counted += s.Roles
	}
	if counted != len(defs) {
		return nil, nil, fmt.Errorf("builtin: permissions.json: its sources account for %d roles, it defines %d", counted, len(defs))
	}
	roles, err := entries(txt)
	if err != nil {
		return nil, nil, err
	}
	used := map[string]bool{}
	for i := range roles {
		r := &roles[i]
		r.AssignableScopes = []string{"/"}
		if d, ok := defs[r.ID]; ok {
			used[r.ID] = true
			r.Defined = true
			if d.Description != "" {
				r.Description = d.Description
			}
			r.Actions, r.NotActions, r.DataActions, r.NotDataActions = d.Actions, d.NotActions, d.DataActions, d.NotDataActions
			if len(d.AssignableScopes) > 0 {
				r.AssignableScopes = d.AssignableScopes
			}
		}
	}
	for id := range defs {
		if !used[id] {
			return nil, nil, fmt.Errorf("builtin: permissions.json: %s is not in roles.txt", id)
		}
	}
	return roles, file.Sources, nil
}

// entries reads roles.txt: each role's lower-case id, name and description.
func entries(txt string) ([]Role, error) {
	var roles []Role
	for n, line := range strings.Split(txt, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("builtin: roles.txt:%d: want id|roleName|description", n+1)
		}
		roles = append(roles, Role{ID: strings.ToLower(f[0]), Name: f[1], Description: f[2]})
	}
	return roles, nil
}
