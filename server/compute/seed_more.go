package compute

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// What a seed entry gives beside the insert body of the resources that other methods
// change (the circuit control, the IAM methods), and the interconnect groups.

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
// it, with its etag, or the count of its changes of an earlier version's seed file.
type seededPolicy struct {
	policy     gen.Policy
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
		return seededPolicy{}, "iamPolicy", errors.New("want a policy: version, bindings, auditConfigs, etag")
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
	policy.Etag = p.Etag
	return seededPolicy{policy: policy, generation: n, given: true}, "", nil
}

// put stores the policy for the resource of collection with the id. Without an etag it
// gets the one of a policy set once, or the one an earlier version derived from the count
// of its changes.
func (p seededPolicy) put(s *Server, tx *store.Tx, project, collection, id string) (string, error) {
	if !p.given {
		return "", nil
	}
	key := policyKey(project, collection, id)
	if len(p.policy.Etag) == 0 {
		p.policy.Etag = policyEtag(key, emptyPolicyEtag)
		if p.generation > 0 {
			p.policy.Etag = generatedEtag(project+"|"+collection+"|"+id, p.generation)
		}
	}
	if err := s.tables.policies.Put(tx, key, p.policy); err != nil {
		return "iamPolicy", err
	}
	return "", nil
}

// seedICGroup loads an interconnect group: as its insert body, with "interconnects" a list
// of the project's interconnect names (each keyed by itself) or a mapping of keys to names,
// and "deletedInterconnects" the members deleted since they joined.
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
	const what = "an interconnect's name"
	refs, _, _, field, err := seedRefs(body, "interconnects", "interconnect", what)
	if err != nil {
		return field, err
	}
	// Members deleted since they joined: the group still holds them (they read as down).
	gone, _, _, field, err := seedRefs(body, "deletedInterconnects", "interconnect", what)
	if err != nil {
		return field, err
	}
	members, all := map[string]string{}, map[string]string{}
	for k, ref := range refs {
		members[k], all[k] = interconnectRef(project, ref), interconnectRef(project, ref)
	}
	for k, ref := range gone {
		if _, dup := members[k]; dup {
			return "deletedInterconnects." + k, errors.New("want an interconnect's name, under a key the interconnects do not use")
		}
		all[k] = interconnectRef(project, ref)
	}
	var b gen.InterconnectGroup
	if field, err := s.checkSeedBody("interconnectGroups.insert", project, "", body, &b); err != nil {
		return field, err
	}
	g, err := newInterconnectGroup(project, b, all, rec.idOr(seedID(SeedICGroups, project, b.Name)), rec.createdOr(s.cfg.Now()))
	if err != nil {
		return located(err)
	}
	if b.Etag != nil {
		g.Etag = b.Etag
	}
	path := *g.SelfLink
	if _, taken := s.tables.icGroups.Get(tx, path); taken {
		return "name", alreadyExists(path)
	}
	if f := s.checkMembers(tx, members, nil); f != nil {
		return "interconnects", failureError(f)
	}
	if err := s.setMembership(tx, path, nil, members); err != nil {
		return "", err
	}
	if err := s.tables.icGroups.Put(tx, path, InterconnectGroupRecord{Group: g, Lifecycle: rec.lifecycle(tx)}); err != nil {
		return idTaken(err, *g.Id)
	}
	return policy.put(s, tx, project, "interconnectGroups", *g.Id)
}

// interconnectRef is the path of an interconnect a seed entry names by name or reference.
func interconnectRef(project, ref string) string {
	if r, ok := parseRef(ref, "interconnects", project); ok {
		return interconnectPath(r.Project, r.Name)
	}
	return interconnectPath(project, strings.TrimSpace(ref))
}
