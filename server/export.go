package server

import (
	"bytes"
	"context"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/compute"
)

// exportHeader starts every export: what the file is and how to use it.
const exportHeader = `# understudy state, as GET /_understudy/state exported it: a seed file. Start a server with
# --seed on it (or reset one started so) and every resource reads and lists as it did.
`

// Export is the whole current state as a seed file (the YAML --seed reads): the settings a
// seed can give (custom roles, tokens, platforms, locations, remote locations, the
// operation mode, ...) and every resource of every API, with what a seed would otherwise
// derive or make anew (ids, creation times, fingerprints' and etags' change counts,
// account links with their tokens, finished operations, remembered Idempotency-Keys). It is
// deterministic: the same state gives the same bytes. Each API's Export says what it leaves out: what is in flight
// (running operations and the resources they insert, hosted form sessions, keys of
// requests not yet answered), none of which a read shows as state.
//
// It is read in one read transaction, after due operations are finished as a read would
// finish them.
func (s *Server) Export() ([]byte, error) {
	if err := s.comp.Advance(); err != nil {
		return nil, err
	}
	seed := &Seed{}
	a := s.cfg.Authorization
	seed.Authorization = AuthorizationSeed{Enforce: a.Enforce, DefaultPrincipal: a.DefaultPrincipal, BootstrapOwners: slices.Clone(a.BootstrapOwners),
		MaxPerSubscription: a.MaxPerSubscription, Tokens: a.Tokens,
		StrictPrincipals: a.StrictPrincipals, ManagementGroups: a.ManagementGroups}
	seed.Accounts = AccountsSeed{AccountConcurrency: s.cfg.Accounts.AccountConcurrency, Platforms: s.cfg.Accounts.Platforms}
	seed.Compute = ComputeSeed{OperationMode: s.cfg.Compute.Operations.Mode.String(), Locations: s.cfg.Compute.Locations,
		RemoteLocations: s.cfg.Compute.RemoteLocations}
	err := s.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		// Custom roles as they are now, PUTs included.
		if seed.Authorization.RoleDefinitions, err = s.authz.ExportRoles(tx); err != nil {
			return err
		}
		if seed.Authorization.RoleAssignments, err = s.authz.Export(tx); err != nil {
			return err
		}
		seed.Authorization.Directory = s.authz.ExportDirectory(tx)
		if seed.Authorization.DenyAssignments, err = s.authz.ExportDenyAssignments(tx); err != nil {
			return err
		}
		st := s.accts.Export(tx)
		seed.Accounts.Accounts, seed.Accounts.Persons, seed.Accounts.Links, seed.Accounts.IdempotencyKeys = st.Accounts, st.Persons, st.Links, st.IdempotencyKeys
		seed.Accounts.EventDestinations = st.Destinations
		for _, p := range s.comp.Export(tx) {
			if seed.Compute.Projects == nil {
				seed.Compute.Projects = map[string]compute.SeedProject{}
			}
			seed.Compute.Projects[p.Project] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := doc.Encode(seed); err != nil {
		return nil, err
	}
	nameFirst(&doc)
	var b bytes.Buffer
	b.WriteString(exportHeader)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// nameFirst moves the name of each compute resource to the front of its entry, where a
// reader looks for it: the entries are mappings, which YAML writes in key order.
func nameFirst(doc *yaml.Node) {
	projects := member(member(doc, "compute"), "projects")
	if projects == nil {
		return
	}
	for i := 1; i < len(projects.Content); i += 2 {
		collections := projects.Content[i]
		for j := 1; j < len(collections.Content); j += 2 {
			for _, entry := range collections.Content[j].Content {
				for k := 2; k+1 < len(entry.Content); k += 2 {
					if entry.Content[k].Value == "name" {
						name := []*yaml.Node{entry.Content[k], entry.Content[k+1]}
						entry.Content = append(name, append(entry.Content[:k:k], entry.Content[k+2:]...)...)
						break
					}
				}
			}
		}
	}
}

// member is the value of key in mapping n (nil when n is nil, not a mapping or lacks it).
func member(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
