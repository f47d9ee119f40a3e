package compute

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/understudy-dev/understudy/internal/store"
)

// Advance finishes the operations that are due and forgets the expired ones, as a request
// to the API does before it reads: an export made after it shows what a read would.
func (s *Server) Advance() error { return s.ops.Advance(context.Background()) }

// Export is every project's state as seed entries (see SeedProject), by project: each
// resource as the store keeps it (as a read returns it, its links paths), with what the
// API keeps beside it, in the order of their paths, and the finished operations in
// acceptance order. Loaded back, every resource and operation reads and lists as it did.
// What reads do not show is left out: a resource whose insert is still running, and the
// running operations themselves, whose effect has not happened (a resource whose delete is
// running is exported, as it still reads).
func (s *Server) Export(tx *store.Tx) []SeedProject {
	projects := map[string]*SeedProject{}
	project := func(path string) *SeedProject {
		p := projectOf(path)
		if projects[p] == nil {
			projects[p] = &SeedProject{Project: p}
		}
		return projects[p]
	}
	s.tables.interconnects.Each(tx, func(path string, r InterconnectRecord) bool {
		if !r.Pending {
			e := entry(r.Interconnect, r.Lifecycle)
			flag(e, "circuitDown", r.CircuitDown)
			p := project(path)
			p.Interconnects = append(p.Interconnects, e)
		}
		return true
	})
	s.tables.attachments.Each(tx, func(path string, r AttachmentRecord) bool {
		if !r.Pending {
			e := entry(r.Attachment, r.Lifecycle)
			flag(e, "circuitDown", r.CircuitDown)
			p := project(path)
			p.Attachments = append(p.Attachments, e)
		}
		return true
	})
	s.tables.rules.Each(tx, func(path string, r RuleRecord) bool {
		if !r.Pending {
			p := project(path)
			p.ForwardingRules = append(p.ForwardingRules, entry(r.Rule, r.Lifecycle))
		}
		return true
	})
	s.tables.groups.Each(tx, func(path string, r GroupRecord) bool {
		if !r.Pending {
			e := entry(r.Group, r.Lifecycle)
			s.policyMember(tx, e, withID(path, *r.Group.Id))
			p := project(path)
			p.Groups = append(p.Groups, e)
		}
		return true
	})
	s.tables.icGroups.Each(tx, func(path string, r InterconnectGroupRecord) bool {
		if !r.Pending {
			e := s.icGroupEntry(tx, r)
			s.policyMember(tx, e, withID(path, *r.Group.Id))
			p := project(path)
			p.InterconnectGroups = append(p.InterconnectGroups, e)
		}
		return true
	})
	for _, op := range s.ops.Finished(tx) {
		e := asMap(op.Op)
		e["sequence"] = op.Seq
		p := project(deref(op.Op.SelfLink))
		p.Operations = append(p.Operations, e)
	}
	out := make([]SeedProject, 0, len(projects))
	for _, p := range projects {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Project < out[j].Project })
	return out
}

// entry is a resource as an export writes it: its members, and its place in the order of
// creation.
func entry(resource any, l Lifecycle) map[string]any {
	e := asMap(resource)
	e["sequence"] = l.Seq
	return e
}

// asMap is v's JSON members.
func asMap(v any) map[string]any {
	raw, _ := json.Marshal(v) // a generated type: it always encodes
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// flag adds a member that is shown only when true.
func flag(e map[string]any, member string, v bool) {
	if v {
		e[member] = true
	}
}

// policyMember adds a resource's stored policy to its export entry.
func (s *Server) policyMember(tx *store.Tx, e map[string]any, key string) {
	if p, ok := s.tables.policies.Get(tx, key); ok {
		e["iamPolicy"] = asMap(p)
	}
}

// icGroupEntry is an interconnect group as an export writes it: the interconnects deleted
// since they joined, which a seed does not check for, under deletedInterconnects.
func (s *Server) icGroupEntry(tx *store.Tx, r InterconnectGroupRecord) map[string]any {
	g := r.Group
	held, gone := map[string]string{}, map[string]string{}
	for k, path := range membersOf(g) {
		if ic, ok := s.tables.interconnects.Get(tx, path); ok && !ic.Pending {
			held[k] = path
		} else {
			gone[k] = path
		}
	}
	g.Interconnects = memberEntries(held)
	e := entry(g, r.Lifecycle)
	if len(gone) > 0 {
		e["deletedInterconnects"] = asMap(memberEntries(gone))
	}
	return e
}
