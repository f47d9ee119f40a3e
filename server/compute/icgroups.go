package compute

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/sla"
	"github.com/understudy-dev/understudy/internal/store"
)

const (
	kindICGroupInsert = "interconnectGroups.insert"
	kindICGroupDelete = "interconnectGroups.delete"
)

// interconnectsPerGroup is the "Interconnects per group" quota. The real value is not
// published; 16 is the attachment groups' default.
const interconnectsPerGroup = 16

func icGroupPath(project, name string) string {
	return globalScope(project) + "/interconnectGroups/" + name
}

// InterconnectGroupsInsert accepts a group. Whether its interconnects exist and fit the
// quota is decided at accept; a group that fails is reported in its DONE operation
// (RESOURCE_NOT_FOUND, QUOTA_EXCEEDED) and nothing is created. Unlike an attachment, an
// interconnect may belong to several groups.
func (s *Server) InterconnectGroupsInsert(ctx context.Context, req gen.InterconnectGroupsInsertRequestObject) (gen.InterconnectGroupsInsertResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	sent := map[string]*gen.InterconnectGroupInterconnect{}
	for k, v := range b.Interconnects {
		sent[k] = &v
	}
	members, err := interconnectPaths(req.Project, sent)
	if err != nil {
		return nil, err
	}
	g, err := newInterconnectGroup(req.Project, b, members, s.newID(), s.cfg.Now())
	if err != nil {
		return nil, err
	}
	pending := !s.ops.FinishesAtAccept()
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		path := *g.SelfLink
		if _, taken := s.tables.icGroups.Get(tx, path); taken {
			return operations.Start{}, alreadyExists(path)
		}
		start := operations.Start{OperationType: "insert", TargetLink: path, TargetID: *g.Id, Settled: !pending}
		if start.Failure = s.checkMembers(tx, members, nil); start.Failure != nil {
			return start, nil
		}
		if err := s.setMembership(tx, path, nil, members); err != nil {
			return start, err
		}
		return start, s.tables.icGroups.Put(tx, path, InterconnectGroupRecord{Group: g, Lifecycle: s.born(tx, pending)})
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// newInterconnectGroup checks an insert body's name and intent and makes the group it asks
// for in project, holding members (interconnect paths by key, checked by the caller), with
// the id and creation time given. Inserts and the seed share it.
func newInterconnectGroup(project string, b gen.InterconnectGroup, members map[string]string, id string, created time.Time) (gen.InterconnectGroup, error) {
	if err := checkName(b.Name); err != nil {
		return b, err
	}
	intent, err := checkTopology(intentLevel(b.Intent))
	if err != nil {
		return b, err
	}
	g := b
	// Derived when the group is read (its analysis).
	g.Configured, g.PhysicalStructure = nil, nil
	g.Kind, g.Id, g.CreationTimestamp = ptr("compute#InterconnectGroup"), &id, ptr(timestamp(created))
	g.SelfLink, g.Etag = ptr(icGroupPath(project, b.Name)), ptr(firstEtag("interconnectGroup", id))
	g.Intent = &gen.InterconnectGroupIntent{TopologyCapability: ptr(gen.InterconnectGroupIntentTopologyCapability(intent))}
	unsetEmpty(&g.Description)
	g.Interconnects = memberEntries(members)
	return g, nil
}

// memberEntries are a group's interconnects as it keeps them, from their paths by key
// (nil for none); membersOf reads them back.
func memberEntries(members map[string]string) map[string]gen.InterconnectGroupInterconnect {
	if len(members) == 0 {
		return nil
	}
	out := make(map[string]gen.InterconnectGroupInterconnect, len(members))
	for k, path := range members {
		out[k] = gen.InterconnectGroupInterconnect{Interconnect: ptr(path)}
	}
	return out
}

func membersOf(g gen.InterconnectGroup) map[string]string {
	out := make(map[string]string, len(g.Interconnects))
	for k, m := range g.Interconnects {
		out[k] = deref(m.Interconnect)
	}
	return out
}

// setMembership keeps the interconnectGroups of interconnects in step with the members of
// the group at group, which change from before to after (paths by key): an interconnect
// lists the groups that hold it.
func (s *Server) setMembership(tx *store.Tx, group string, before, after map[string]string) error {
	was, is := map[string]bool{}, map[string]bool{}
	for _, p := range before {
		was[p] = true
	}
	for _, p := range after {
		is[p] = true
	}
	for _, path := range slices.Sorted(maps.Keys(mergedKeys(was, is))) {
		if was[path] == is[path] {
			continue
		}
		rec, ok := s.tables.interconnects.Get(tx, path)
		if !ok {
			continue
		}
		groups := slices.DeleteFunc(rec.Interconnect.InterconnectGroups, func(g string) bool { return g == group })
		if is[path] {
			groups = append(groups, group)
			slices.Sort(groups)
		}
		rec.Interconnect.InterconnectGroups = groups
		if len(groups) == 0 {
			rec.Interconnect.InterconnectGroups = nil
		}
		if err := s.tables.interconnects.Put(tx, path, rec); err != nil {
			return err
		}
	}
	return nil
}

func mergedKeys(a, b map[string]bool) map[string]bool {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// checkTopology reads intent.topologyCapability: required, and one of the three levels.
// intentLevel is the topology capability an intent asks for; nil when none is given.
func intentLevel(in *gen.InterconnectGroupIntent) *gen.InterconnectGroupIntentTopologyCapability {
	if in == nil {
		return nil
	}
	return in.TopologyCapability
}

func checkTopology(level *gen.InterconnectGroupIntentTopologyCapability) (string, error) {
	if level == nil {
		return "", &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'resource.intent.topologyCapability' not specified", Location: "resource.intent.topologyCapability"}
	}
	if !sla.Level(*level).Valid() {
		return "", invalidField("resource.intent.topologyCapability", fmt.Sprintf("Invalid value for field 'resource.intent.topologyCapability': '%s'. Must be one of NO_SLA, PRODUCTION_NON_CRITICAL, PRODUCTION_CRITICAL.", *level))
	}
	return string(*level), nil
}

// interconnectPaths reads a group's interconnects map (user key -> interconnect URL) into
// user key -> interconnect path; a malformed URL, another project's, or one interconnect
// under two keys is a synchronous 400. Entries given as null are skipped (the patch reads
// them as removals).
func interconnectPaths(project string, m map[string]*gen.InterconnectGroupInterconnect) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if v == nil {
			continue
		}
		field := "resource.interconnects." + k + ".interconnect"
		u := deref(v.Interconnect)
		if u == "" {
			return nil, &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", field), Location: field}
		}
		r, ok := parseRef(u, "interconnects", project)
		if !ok || r.Project != project {
			return nil, invalidField(field, fmt.Sprintf("Invalid value for field '%s': '%s'. It must name an interconnect of project %s.", field, u, project))
		}
		out[k] = interconnectPath(project, r.Name)
	}
	return out, nil
}

// checkMembers decides whether a group may hold members (interconnect paths by key): each
// new one (not in previous) must exist, none twice, and no more than the quota.
func (s *Server) checkMembers(tx *store.Tx, members, previous map[string]string) *operations.Failure {
	if len(members) > interconnectsPerGroup {
		return &operations.Failure{HTTPStatus: 403, HTTPMessage: "FORBIDDEN", Errors: []gen.OperationErrorItem{{
			Code:    "QUOTA_EXCEEDED",
			Message: ptr(fmt.Sprintf("Quota 'INTERCONNECTS_PER_GROUP' exceeded.  Limit: %d.0 globally.", interconnectsPerGroup)),
			ErrorDetails: []gen.OperationErrorDetail{{QuotaInfo: &gen.QuotaExceededInfo{MetricName: ptr("compute.googleapis.com/interconnects_per_group"),
				LimitName: ptr("INTERCONNECTS-PER-GROUP-per-group"), Dimensions: map[string]string{"global": "global"}, Limit: ptr(float64(interconnectsPerGroup))}}},
		}}}
	}
	known := map[string]bool{}
	for _, p := range previous {
		known[p] = true
	}
	seen := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		path := members[k]
		if other, dup := seen[path]; dup {
			return &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []gen.OperationErrorItem{{
				Code: "INVALID_USAGE", Location: ptr("resource.interconnects." + k),
				Message: ptr(fmt.Sprintf("The interconnect '%s' is already in the group under key '%s'; all interconnects in a group are unique.", path, other))}}}
		}
		seen[path] = k
		if known[path] {
			continue
		}
		rec, ok := s.tables.interconnects.Get(tx, path)
		if !ok || rec.Pending {
			return &operations.Failure{HTTPStatus: 404, HTTPMessage: "NOT FOUND", Errors: []gen.OperationErrorItem{{
				Code: "RESOURCE_NOT_FOUND", Message: ptr(fmt.Sprintf("The resource '%s' was not found", path))}}}
		}
		if rec.Deleting {
			return &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []gen.OperationErrorItem{{
				Code: "RESOURCE_NOT_READY", Location: ptr("resource.interconnects." + k), Message: ptr(fmt.Sprintf("The resource '%s' is not ready", path))}}}
		}
	}
	return nil
}

// InterconnectGroupsGet reads a group, with its analysis as of now.
func (s *Server) InterconnectGroupsGet(ctx context.Context, req gen.InterconnectGroupsGetRequestObject) (gen.InterconnectGroupsGetResponseObject, error) {
	var out gen.InterconnectGroup
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rec, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return err
		}
		out = s.renderInterconnectGroup(s.links(ctx), tx, rec.Group)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsGet200JSONResponse(out), nil
}

// InterconnectGroupsList lists a project's groups.
func (s *Server) InterconnectGroupsList(ctx context.Context, req gen.InterconnectGroupsListRequestObject) (gen.InterconnectGroupsListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.InterconnectGroup](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := globalScope(req.Project) + "/interconnectGroups"
	l := s.links(ctx)
	// The discovery document gives the list the resource's kind, not a list kind of its own.
	out := gen.InterconnectGroupsListResponseBody{Kind: ptr("compute#InterconnectGroup"), Id: path, SelfLink: l.url(path)}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.icGroups, path+"/", q, func(r InterconnectGroupRecord) gen.InterconnectGroup {
			return s.renderInterconnectGroup(l, tx, r.Group)
		})
		return err
	}); err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsList200JSONResponse(out), nil
}

// InterconnectGroupsDelete accepts a delete; the group stays readable until it is DONE.
// Its interconnects are not deleted.
func (s *Server) InterconnectGroupsDelete(ctx context.Context, req gen.InterconnectGroupsDeleteRequestObject) (gen.InterconnectGroupsDeleteResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return operations.Start{}, err
		}
		path := *rec.Group.SelfLink
		if err := beginDelete(s, tx, s.tables.icGroups, path, rec); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "delete", TargetLink: path, TargetID: *rec.Group.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

func (s *Server) finishICGroupInsert(tx *store.Tx, op operations.Record) error {
	return finishInsert(tx, s.tables.icGroups, deref(op.Op.TargetLink), "interconnect group")
}

func (s *Server) finishICGroupDelete(tx *store.Tx, op operations.Record) error {
	rec, ok := s.tables.icGroups.Get(tx, deref(op.Op.TargetLink))
	if !ok {
		return nil
	}
	if err := s.setMembership(tx, deref(op.Op.TargetLink), membersOf(rec.Group), nil); err != nil {
		return err
	}
	s.tables.icGroups.Delete(tx, deref(op.Op.TargetLink))
	s.tables.policies.Delete(tx, withID(deref(op.Op.TargetLink), *rec.Group.Id))
	return nil
}

// readableInterconnectGroup and changeableInterconnectGroup find an interconnect group by
// name or id (see readable).
func (s *Server) readableInterconnectGroup(tx *store.Tx, project, nameOrID string) (InterconnectGroupRecord, error) {
	return readable(tx, s.tables.icGroups, s.tables.icGroupID, icGroupPath(project, nameOrID))
}

func (s *Server) changeableInterconnectGroup(tx *store.Tx, project, nameOrID string) (InterconnectGroupRecord, error) {
	return changeable(tx, s.tables.icGroups, s.tables.icGroupID, icGroupPath(project, nameOrID))
}

// interconnectGroupsOf lists the interconnect groups (accepted ones included) of the
// interconnect's project holding the interconnect at path.
func (s *Server) interconnectGroupsOf(tx *store.Tx, path string) []InterconnectGroupRecord {
	var out []InterconnectGroupRecord
	scanPrefix(tx, s.tables.icGroups, globalScope(projectOf(path))+"/interconnectGroups/", func(g InterconnectGroupRecord) bool {
		for _, m := range g.Group.Interconnects {
			if deref(m.Interconnect) == path {
				out = append(out, g)
				break
			}
		}
		return true
	})
	return out
}

// putInterconnectGroup stores a changed group, its version moved on.
func (s *Server) putInterconnectGroup(tx *store.Tx, rec InterconnectGroupRecord) error {
	rec.Group.Etag = nextEtag(rec.Group.Etag)
	return s.tables.icGroups.Put(tx, *rec.Group.SelfLink, rec)
}
