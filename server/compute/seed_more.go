package compute

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store/compat"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// What a state export records beyond an insert body for the methods that change resources
// after their insert (patch, setTarget, setLabels, the circuit control, the IAM methods),
// and the interconnect groups.

// takeCount removes the count of changes member from body (0 when absent).
func takeCount(body map[string]any, member string) (uint64, string, error) {
	v, given := body[member]
	if !given {
		return 0, "", nil
	}
	delete(body, member)
	n, ok := v.(int64)
	if !ok || n < 0 {
		return 0, member, fmt.Errorf("want a count of changes (0 or more), got %v", v)
	}
	return uint64(n), "", nil
}

// takeCircuitDown removes "circuitDown" (the admin API's circuit control) from body.
func takeCircuitDown(body map[string]any) (bool, string, error) {
	v, given := body["circuitDown"]
	if !given {
		return false, "", nil
	}
	delete(body, "circuitDown")
	down, ok := v.(bool)
	if !ok {
		return false, "circuitDown", fmt.Errorf("want true or false, got %v", v)
	}
	return down, "", nil
}

// seededPolicy is an "iamPolicy" member of a group entry: the policy as setIamPolicy takes
// it, and the count of its changes.
type seededPolicy struct {
	policy     IAMPolicy
	generation uint64
	given      bool
}

// takePolicy removes "iamPolicy" from body and checks it as setIamPolicy would.
func takePolicy(body map[string]any) (seededPolicy, string, error) {
	v, given := body["iamPolicy"]
	if !given {
		return seededPolicy{}, "", nil
	}
	delete(body, "iamPolicy")
	m, ok := v.(map[string]any)
	if !ok {
		return seededPolicy{}, "iamPolicy", errors.New("want a policy: version, bindings, auditConfigs, generation")
	}
	m = maps.Clone(m)
	n, field, err := takeCount(m, "generation")
	if err != nil {
		return seededPolicy{}, "iamPolicy." + field, err
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return seededPolicy{}, "iamPolicy", err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p gen.Policy
	if err := dec.Decode(&p); err != nil {
		return seededPolicy{}, "iamPolicy", err
	}
	policy, err := policyFromRequest(p)
	if err != nil {
		field, err := located(err)
		return seededPolicy{}, "iamPolicy." + field, err
	}
	return seededPolicy{policy: policy, generation: max(n, 1), given: true}, "", nil
}

// put stores the policy for the resource key.
func (p seededPolicy) put(s *Server, tx *store.Tx, key string) error {
	if !p.given {
		return nil
	}
	p.policy.Resource, p.policy.Generation = key, p.generation
	return s.tables.Policies.Put(tx, key, p.policy)
}

// policyMember adds a resource's stored policy to its export entry.
func (s *Server) policyMember(tx *store.Tx, entry map[string]any, key string) {
	p, ok := s.tables.Policies.Get(tx, key)
	if !ok {
		return
	}
	var out map[string]any
	raw, _ := json.Marshal(renderPolicy(p, 3))
	_ = json.Unmarshal(raw, &out)
	delete(out, "etag") // derived from the generation
	out["generation"] = p.Generation
	entry["iamPolicy"] = out
}

// seedICGroup loads an interconnect group: as its insert body, with "interconnects" a list
// of the project's interconnect names (each keyed by itself) or a mapping of keys to names.
func (s *Server) seedICGroup(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	rec, field, err := takeRecorded(body, "generation")
	if err != nil {
		return field, err
	}
	policy, field, err := takePolicy(body)
	if err != nil {
		return field, err
	}
	members := map[string]string{}
	switch list := body["interconnects"].(type) {
	case nil:
	case []any:
		for i, it := range list {
			n, ok := it.(string)
			if !ok || n == "" {
				return fmt.Sprintf("interconnects.%d", i), errors.New("want an interconnect's name")
			}
			members[n] = n
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(list)) {
			n, ok := list[k].(string)
			if !ok || n == "" {
				return "interconnects." + k, errors.New("want an interconnect's name")
			}
			members[k] = n
		}
	default:
		return "interconnects", errors.New("want a list of the project's interconnects, or a mapping of keys to them")
	}
	delete(body, "interconnects")
	// Members deleted since they joined: the group still holds them (they read as down).
	gone := map[string]string{}
	if list, given := body["deletedInterconnects"]; given {
		m, ok := list.(map[string]any)
		if !ok {
			return "deletedInterconnects", errors.New("want a mapping of keys to the names of deleted interconnects")
		}
		for k, v := range m {
			n, ok := v.(string)
			if _, dup := members[k]; !ok || n == "" || dup {
				return "deletedInterconnects." + k, errors.New("want an interconnect's name, under a key the interconnects do not use")
			}
			gone[k] = n
		}
		delete(body, "deletedInterconnects")
	}
	var b gen.InterconnectGroup
	if field, err := checkSeedBody("interconnectGroups.insert", project, "", body, &b); err != nil {
		return field, err
	}
	if err := checkName(b.Name); err != nil {
		return located(err)
	}
	intent, err := checkTopology(intentLevel(b.Intent))
	if err != nil {
		return located(err)
	}
	g := InterconnectGroup{Project: project, Name: b.Name, Description: deref(b.Description), Intent: intent, Interconnects: members,
		ID: rec.idOr(seedID(SeedICGroups, project, b.Name)), Created: rec.createdOr(s.cfg.Now()), Generation: rec.generation}
	if _, taken := s.tables.InterconnectGroups.Get(tx, g.Key()); taken {
		return "name", alreadyExists(icGroupPath(project, g.Name))
	}
	if f := s.checkMembers(tx, project, members, nil); f != nil {
		return "interconnects", failureError(f)
	}
	maps.Copy(g.Interconnects, gone)
	if err := s.tables.InterconnectGroups.Put(tx, g.Key(), g); err != nil {
		return idTaken(err, g.ID)
	}
	return "", policy.put(s, tx, policyKey(project, "interconnectGroups", g.ID))
}

func (s *Server) icGroupEntry(tx *store.Tx, g InterconnectGroup) map[string]any {
	e := map[string]any{"name": g.Name, "intent": map[string]any{"topologyCapability": g.Intent}}
	described(e, map[string]string{"description": g.Description})
	held, gone := map[string]any{}, map[string]any{}
	for k, n := range g.Interconnects {
		if ic, ok := s.tables.Interconnects.Get(tx, g.Project+"|"+n); ok && !ic.Pending {
			held[k] = n
		} else {
			gone[k] = n
		}
	}
	if len(held) > 0 {
		e["interconnects"] = held
	}
	if len(gone) > 0 {
		e["deletedInterconnects"] = gone
	}
	return recordedMembers(e, g.ID, timefmt.Exact(g.Created), "generation", g.Generation)
}

// counted adds a count of changes to an entry when it is not 0.
func counted(entry map[string]any, member string, n uint64) {
	if n > 0 {
		entry[member] = n
	}
}
