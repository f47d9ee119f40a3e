package compute

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/sla"
	"github.com/understudy-dev/understudy/internal/store/compat"
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
	if err := checkName(b.Name); err != nil {
		return nil, err
	}
	intent, err := checkTopology(intentLevel(b.Intent))
	if err != nil {
		return nil, err
	}
	sent := map[string]*gen.InterconnectGroupInterconnect{}
	for k, v := range b.Interconnects {
		sent[k] = &v
	}
	members, err := interconnectNames(req.Project, sent)
	if err != nil {
		return nil, err
	}
	g := InterconnectGroup{Project: req.Project, Name: b.Name, Description: deref(b.Description), Intent: intent, Interconnects: members,
		ID: s.newID(), Created: s.cfg.Now(), Pending: !s.ops.FinishesAtAccept()}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		if _, taken := s.tables.InterconnectGroups.Get(tx, g.Key()); taken {
			return operations.Start{}, alreadyExists(icGroupPath(g.Project, g.Name))
		}
		start := operations.Start{Kind: kindICGroupInsert, OperationType: "insert", Target: g.Key(), TargetID: g.ID, Settled: !g.Pending}
		if start.Failure = s.checkMembers(tx, g.Project, members, nil); start.Failure != nil {
			return start, nil
		}
		return start, s.tables.InterconnectGroups.Put(tx, g.Key(), g)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
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

// interconnectNames reads a group's interconnects map (user key -> interconnect URL) into
// user key -> interconnect name; a malformed URL, another project's, or one interconnect
// under two keys is a synchronous 400. Entries given as null are skipped (the patch reads
// them as removals).
func interconnectNames(project string, m map[string]*gen.InterconnectGroupInterconnect) (map[string]string, error) {
	out := map[string]string{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
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
		out[k] = r.Name
	}
	return out, nil
}

// checkMembers decides whether a group of project may hold members: each new one (not in
// previous) must exist, none twice, and no more than the quota.
func (s *Server) checkMembers(tx *store.Tx, project string, members, previous map[string]string) *operations.Failure {
	if len(members) > interconnectsPerGroup {
		return &operations.Failure{HTTPStatus: 403, HTTPMessage: "FORBIDDEN", Errors: []operations.ErrorItem{{
			Code:    "QUOTA_EXCEEDED",
			Message: fmt.Sprintf("Quota 'INTERCONNECTS_PER_GROUP' exceeded.  Limit: %d.0 globally.", interconnectsPerGroup),
			Details: []map[string]any{{"quotaInfo": map[string]any{"metricName": "compute.googleapis.com/interconnects_per_group",
				"limitName": "INTERCONNECTS-PER-GROUP-per-group", "dimensions": map[string]string{"global": "global"}, "limit": interconnectsPerGroup}}},
		}}}
	}
	known := map[string]bool{}
	for _, n := range previous {
		known[n] = true
	}
	seen := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(members)) {
		name := members[k]
		if other, dup := seen[name]; dup {
			return &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []operations.ErrorItem{{
				Code: "INVALID_USAGE", Location: "resource.interconnects." + k,
				Message: fmt.Sprintf("The interconnect '%s' is already in the group under key '%s'; all interconnects in a group are unique.", interconnectPath(project, name), other)}}}
		}
		seen[name] = k
		if known[name] {
			continue
		}
		ic, ok := s.tables.Interconnects.Get(tx, project+"|"+name)
		if !ok || ic.Pending {
			return &operations.Failure{HTTPStatus: 404, HTTPMessage: "NOT FOUND", Errors: []operations.ErrorItem{{
				Code: "RESOURCE_NOT_FOUND", Message: fmt.Sprintf("The resource '%s' was not found", interconnectPath(project, name))}}}
		}
		if ic.Deleting {
			return &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []operations.ErrorItem{{
				Code: "RESOURCE_NOT_READY", Location: "resource.interconnects." + k, Message: fmt.Sprintf("The resource '%s' is not ready", interconnectPath(project, name))}}}
		}
	}
	return nil
}

// InterconnectGroupsGet reads a group, with its analysis as of now.
func (s *Server) InterconnectGroupsGet(ctx context.Context, req gen.InterconnectGroupsGetRequestObject) (gen.InterconnectGroupsGetResponseObject, error) {
	var out gen.InterconnectGroup
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return err
		}
		out = s.renderInterconnectGroup(ctx, tx, g)
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
	out := gen.InterconnectGroupsListResponseBody{Kind: ptr("compute#interconnectGroupsList"), Id: path, SelfLink: s.link(ctx, path)}
	if err := s.db.View(func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.InterconnectGroupsByName, req.Project+"|", q, func(r InterconnectGroup) gen.InterconnectGroup { return s.renderInterconnectGroup(ctx, tx, r) })
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
		g, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return operations.Start{}, err
		}
		if err := beginDelete(s, tx, s.tables.InterconnectGroups, g, icGroupPath(g.Project, g.Name), icGroupDeleting); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{Kind: kindICGroupDelete, OperationType: "delete", Target: g.Key(), TargetID: g.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

func icGroupPending(g *InterconnectGroup) *bool  { return &g.Pending }
func icGroupDeleting(g *InterconnectGroup) *bool { return &g.Deleting }

func (s *Server) finishICGroupInsert(tx *store.Tx, op operations.Operation) error {
	return finishInsert(tx, s.tables.InterconnectGroups, op.Target, "interconnect group", icGroupPending)
}

func (s *Server) finishICGroupDelete(tx *store.Tx, op operations.Operation) error {
	g, ok, err := s.tables.InterconnectGroups.Delete(tx, op.Target)
	if err != nil || !ok {
		return err
	}
	return s.dropPolicy(tx, g.Project, "interconnectGroups", g.ID)
}

func (s *Server) readableInterconnectGroup(tx *store.Tx, project, nameOrID string) (InterconnectGroup, error) {
	g, ok := s.tables.InterconnectGroups.Get(tx, project+"|"+nameOrID)
	if !ok {
		_, g, ok = s.tables.InterconnectGroupID.Get(tx, project+"|"+nameOrID)
	}
	if !ok || g.Pending {
		return g, notFound(icGroupPath(project, nameOrID))
	}
	return g, nil
}

// interconnectGroupsOf lists the project's interconnect groups (accepted ones included)
// holding the interconnect named name.
func (s *Server) interconnectGroupsOf(tx *store.Tx, project, name string) []InterconnectGroup {
	var out []InterconnectGroup
	prefix := project + "|"
	s.tables.InterconnectGroupsByName.Scan(tx, prefix, prefix+"\xff", nil, func(_ store.Cursor, g InterconnectGroup) bool {
		for _, n := range g.Interconnects {
			if n == name {
				out = append(out, g)
				break
			}
		}
		return true
	})
	return out
}
