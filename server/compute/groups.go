package compute

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/sla"
	"github.com/understudy-dev/understudy/internal/store"
)

const (
	kindGroupInsert = "interconnectAttachmentGroups.insert"
	kindGroupDelete = "interconnectAttachmentGroups.delete"
)

func groupPath(project, name string) string {
	return globalScope(project) + "/interconnectAttachmentGroups/" + name
}

// InterconnectAttachmentGroupsInsert accepts a group. Whether its attachments exist, are
// free and fit the quota is decided at accept; a group that fails is reported inside its
// DONE operation (RESOURCE_NOT_FOUND, RESOURCE_IN_USE_BY_ANOTHER_RESOURCE, QUOTA_EXCEEDED)
// and nothing is created. A group that passes claims its attachments at once.
func (s *Server) InterconnectAttachmentGroupsInsert(ctx context.Context, req gen.InterconnectAttachmentGroupsInsertRequestObject) (gen.InterconnectAttachmentGroupsInsertResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	g, err := groupFromRequest(req.Project, b)
	if err != nil {
		return nil, err
	}
	urls, err := attachmentURLs(req.Project, b.Attachments)
	if err != nil {
		return nil, err
	}
	g.ID, g.Created, g.Pending = s.newID(), s.cfg.Now(), !s.ops.FinishesAtAccept()
	key := g.Key()
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		if _, taken := s.tables.Groups.Get(tx, key); taken {
			return operations.Start{}, alreadyExists(groupPath(g.Project, g.Name))
		}
		start := operations.Start{Kind: kindGroupInsert, OperationType: "insert", Target: key, TargetID: g.ID, Settled: !g.Pending}
		keys, failure := s.checkAttachments(tx, g, urls)
		if failure != nil {
			start.Failure = failure
			return start, nil
		}
		g.Attachments, g.AttachmentURLs = keys, urls
		if err := s.claim(tx, g, nil); err != nil {
			return start, err
		}
		return start, s.tables.Groups.Put(tx, key, g)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// groupFromRequest checks an insert body's name and intent and builds the group it asks
// for (without id, creation time or attachments): inserts and the seed share it.
func groupFromRequest(project string, b gen.InterconnectAttachmentGroup) (AttachmentGroup, error) {
	if err := checkName(b.Name); err != nil {
		return AttachmentGroup{}, err
	}
	if err := checkIntent(string(b.Intent.AvailabilitySla)); err != nil {
		return AttachmentGroup{}, err
	}
	return AttachmentGroup{Project: project, Name: b.Name, Description: deref(b.Description),
		Intent: string(b.Intent.AvailabilitySla), InterconnectGroup: deref(b.InterconnectGroup)}, nil
}

// InterconnectAttachmentGroupsGet reads a group, with its analysis as of now.
func (s *Server) InterconnectAttachmentGroupsGet(ctx context.Context, req gen.InterconnectAttachmentGroupsGetRequestObject) (gen.InterconnectAttachmentGroupsGetResponseObject, error) {
	var out gen.InterconnectAttachmentGroup
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.readableGroup(tx, req.Project, req.InterconnectAttachmentGroup)
		if err != nil {
			return err
		}
		out = s.renderGroup(ctx, tx, g)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsGet200JSONResponse(out), nil
}

// InterconnectAttachmentGroupsList lists a project's groups.
func (s *Server) InterconnectAttachmentGroupsList(ctx context.Context, req gen.InterconnectAttachmentGroupsListRequestObject) (gen.InterconnectAttachmentGroupsListResponseObject, error) {
	p := req.Params
	q, err := parseListQuery[gen.InterconnectAttachmentGroup](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := globalScope(req.Project) + "/interconnectAttachmentGroups"
	out := gen.InterconnectAttachmentGroupList{Kind: gen.InterconnectAttachmentGroupListKindComputeInterconnectAttachmentGroup, Id: path, SelfLink: s.link(ctx, path)}
	if err := s.db.View(func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.GroupsByName, req.Project+"|", q, func(r AttachmentGroup) gen.InterconnectAttachmentGroup { return s.renderGroup(ctx, tx, r) })
		return err
	}); err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsList200JSONResponse(out), nil
}

// InterconnectAttachmentGroupsDelete accepts a delete; the group and its claims stay until
// the operation is DONE.
func (s *Server) InterconnectAttachmentGroupsDelete(ctx context.Context, req gen.InterconnectAttachmentGroupsDeleteRequestObject) (gen.InterconnectAttachmentGroupsDeleteResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		g, err := s.readableGroup(tx, req.Project, req.InterconnectAttachmentGroup)
		if err != nil {
			return operations.Start{}, err
		}
		if err := beginDelete(s, tx, s.tables.Groups, g, groupPath(g.Project, g.Name), groupDeleting); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{Kind: kindGroupDelete, OperationType: "delete", Target: g.Key(),
			TargetID: g.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsDelete200JSONResponse(s.renderOperation(ctx, op)), nil
}

// InterconnectAttachmentGroupsGetOperationalStatus reports the group's status over its
// active attachments (admin-disabled ones, or ones on a disabled interconnect, are inactive).
func (s *Server) InterconnectAttachmentGroupsGetOperationalStatus(ctx context.Context, req gen.InterconnectAttachmentGroupsGetOperationalStatusRequestObject) (gen.InterconnectAttachmentGroupsGetOperationalStatusResponseObject, error) {
	var out gen.InterconnectAttachmentGroupsGetOperationalStatusResponseBody
	err := s.db.View(func(tx *store.Tx) error {
		g, err := s.readableGroup(tx, req.Project, req.InterconnectAttachmentGroup)
		if err != nil {
			return err
		}
		inputs := s.slaInputs(ctx, tx, g)
		intent, atts := sla.Level(g.Intent), plain(inputs)
		configured, operational := renderAnalysis(sla.Analyze(intent, atts)), renderAnalysis(sla.Operational(intent, atts))
		result := gen.InterconnectAttachmentGroupsOperationalStatus{
			GroupStatus: gen.InterconnectAttachmentGroupsOperationalStatusGroupStatus(sla.GroupStatus(atts)),
			Intent:      gen.InterconnectAttachmentGroupIntent{AvailabilitySla: gen.InterconnectAttachmentGroupIntentAvailabilitySla(g.Intent)},
			Configured:  &configured, Operational: &operational,
		}
		for _, in := range inputs {
			status := gen.InterconnectAttachmentGroupsOperationalStatusAttachmentStatus{
				Attachment: in.URL, AdminEnabled: in.adminEnabled, IsActive: "INACTIVE", Status: "CONNECTION_UP"}
			switch {
			case !in.adminEnabled:
				status.Status = "CONNECTION_DISABLED"
			case !in.Active:
				status.Status = "CONNECTION_DOWN"
			default:
				status.IsActive = "ACTIVE"
			}
			result.AttachmentStatuses = append(result.AttachmentStatuses, status)
		}
		out = gen.InterconnectAttachmentGroupsGetOperationalStatusResponseBody{Etag: s.groupEtag(tx, g), Result: result}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsGetOperationalStatus200JSONResponse(out), nil
}

func (s *Server) readableGroup(tx *store.Tx, project, nameOrID string) (AttachmentGroup, error) {
	g, ok := s.tables.Groups.Get(tx, project+"|"+nameOrID)
	if !ok {
		_, g, ok = s.tables.GroupID.Get(tx, project+"|"+nameOrID)
	}
	if !ok || g.Pending {
		return g, notFound(groupPath(project, nameOrID))
	}
	return g, nil
}

func checkIntent(level string) error {
	if !sla.Level(level).Valid() {
		return invalidField("resource.intent.availabilitySla", fmt.Sprintf("Invalid value for field 'resource.intent.availabilitySla': '%s'. Must be one of NO_SLA, PRODUCTION_NON_CRITICAL, PRODUCTION_CRITICAL.", level))
	}
	return nil
}

// attachmentURLs reads a group's attachments map (user key -> attachment URL, relative
// ones to project); a malformed URL is a synchronous 400. A group without attachments has
// none (nil).
func attachmentURLs(project string, m map[string]gen.InterconnectAttachmentGroupAttachment) (map[string]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		u := deref(v.Attachment)
		if u == "" {
			return nil, attachmentRequired(k)
		}
		if _, ok := parseRef(u, "interconnectAttachments", project); !ok {
			return nil, invalidField("resource.attachments."+k+".attachment", fmt.Sprintf("Invalid value for field 'resource.attachments.%s.attachment': '%s'. The URL is malformed.", k, u))
		}
		out[k] = u
	}
	return out, nil
}

// checkAttachments decides, inside the accept transaction, whether group g may hold the
// attachments named by urls: their keys, or the failure its operation must end with.
func (s *Server) checkAttachments(tx *store.Tx, g AttachmentGroup, urls map[string]string) (map[string]string, *operations.Failure) {
	if len(urls) > s.cfg.AttachmentsPerGroup {
		return nil, quotaExceeded(s.cfg.AttachmentsPerGroup, len(urls))
	}
	if len(urls) == 0 {
		return nil, nil
	}
	userKeys := make([]string, 0, len(urls))
	for k := range urls {
		userKeys = append(userKeys, k)
	}
	sort.Strings(userKeys)
	keys := make(map[string]string, len(urls))
	for _, k := range userKeys {
		r, _ := parseRef(urls[k], "interconnectAttachments", g.Project)
		key := AttachmentKey(r.Project, r.Region, r.Name)
		a, ok := s.tables.Attachments.Get(tx, key)
		if r.Project != g.Project || !ok || a.Pending {
			return nil, &operations.Failure{HTTPStatus: 404, HTTPMessage: "NOT FOUND", Errors: []operations.ErrorItem{{
				Code: "RESOURCE_NOT_FOUND", Message: fmt.Sprintf("The resource '%s' was not found", attachmentPath(r.Project, r.Region, r.Name))}}}
		}
		if a.Deleting {
			return nil, &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []operations.ErrorItem{{
				Code: "RESOURCE_NOT_READY", Location: "resource.attachments." + k,
				Message: fmt.Sprintf("The resource '%s' is not ready", attachmentPath(r.Project, r.Region, r.Name))}}}
		}
		if (a.Group != "" && a.Group != g.Name) || hasValue(keys, key) {
			holder := a.Group
			if holder == "" || holder == g.Name {
				holder = g.Name // the same attachment twice in one group
			}
			return nil, &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []operations.ErrorItem{{
				Code: "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE", Location: "resource.attachments." + k,
				Message: fmt.Sprintf("The interconnectAttachment resource '%s' is already being used by '%s'",
					attachmentPath(r.Project, r.Region, r.Name), groupPath(g.Project, holder))}}}
		}
		keys[k] = key
	}
	return keys, nil
}

// hasValue reports whether v is one of m's values: for the few attachments a group holds,
// a look through them is cheaper than a second map keyed the other way.
func hasValue(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}

func quotaExceeded(limit, got int) *operations.Failure {
	return &operations.Failure{HTTPStatus: 403, HTTPMessage: "FORBIDDEN", Errors: []operations.ErrorItem{{
		Code:    "QUOTA_EXCEEDED",
		Message: fmt.Sprintf("Quota 'INTERCONNECT_ATTACHMENTS_PER_GROUP' exceeded.  Limit: %d.0 globally.", limit),
		Details: []map[string]any{
			{"errorInfo": map[string]any{"reason": "QUOTA_EXCEEDED", "domain": "compute.googleapis.com",
				"metadatas": map[string]string{"quotaResource": "INTERCONNECT_ATTACHMENTS_PER_GROUP", "quotaLimit": fmt.Sprint(limit), "requested": fmt.Sprint(got)}}},
			{"quotaInfo": map[string]any{"metricName": "compute.googleapis.com/interconnect_attachments_per_group",
				"limitName": "INTERCONNECT-ATTACHMENTS-PER-GROUP-per-group", "dimensions": map[string]string{"global": "global"}, "limit": limit}},
		},
	}}}
}

// claim marks g's attachments as held by it and releases those in previous that it no
// longer holds; each touched attachment's generation moves, so etags change.
func (s *Server) claim(tx *store.Tx, g AttachmentGroup, previous map[string]string) error {
	keep := map[string]bool{}
	for _, key := range g.Attachments {
		keep[key] = true
	}
	for _, key := range previous {
		if keep[key] {
			continue
		}
		if a, ok := s.tables.Attachments.Get(tx, key); ok && a.Group == g.Name {
			a.Group, a.Generation = "", a.Generation+1
			if err := s.tables.Attachments.Put(tx, key, a); err != nil {
				return err
			}
		}
	}
	for key := range keep {
		a, ok := s.tables.Attachments.Get(tx, key)
		if !ok || a.Group == g.Name {
			continue
		}
		a.Group, a.Generation = g.Name, a.Generation+1
		if err := s.tables.Attachments.Put(tx, key, a); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) finishGroupInsert(tx *store.Tx, op operations.Operation) error {
	return finishInsert(tx, s.tables.Groups, op.Target, "attachment group", groupPending)
}

func (s *Server) finishGroupDelete(tx *store.Tx, op operations.Operation) error {
	g, ok := s.tables.Groups.Get(tx, op.Target)
	if !ok {
		return nil // nothing left to delete
	}
	released := g
	released.Attachments = nil
	if err := s.claim(tx, released, g.Attachments); err != nil {
		return err
	}
	if _, _, err := s.tables.Groups.Delete(tx, op.Target); err != nil {
		return err
	}
	return s.dropPolicy(tx, g.Project, "interconnectAttachmentGroups", g.ID)
}

// slaInput is an attachment as the analysis sees it, plus what the status report needs.
type slaInput struct {
	sla.Attachment
	adminEnabled bool
}

// slaInputs describes g's attachments for the analysis: where each is, and whether it is
// active (admin-enabled, on an admin-enabled interconnect). Sorted by URL.
func (s *Server) slaInputs(ctx context.Context, tx *store.Tx, g AttachmentGroup) []slaInput {
	var out []slaInput
	for _, key := range g.Attachments {
		a, ok := s.tables.Attachments.Get(tx, key)
		if !ok {
			continue
		}
		in := slaInput{Attachment: sla.Attachment{URL: s.link(ctx, attachmentPath(a.Project, a.Region, a.Name)), Region: a.Region}, adminEnabled: a.AdminEnabled}
		if l, ic, ok := s.attachmentLocation(tx, a); ok {
			in.Metro, in.Facility, in.Zone = l.Metro, l.Facility(), l.Zone
			in.Active = a.AdminEnabled && ic.AdminEnabled && !a.CircuitDown && !ic.CircuitDown
		}
		out = append(out, in)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

func plain(in []slaInput) []sla.Attachment {
	out := make([]sla.Attachment, len(in))
	for i, a := range in {
		out[i] = a.Attachment
	}
	return out
}

// groupEtag changes whenever the group or one of its attachments changes.
func (s *Server) groupEtag(tx *store.Tx, g AttachmentGroup) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%d", g.Key(), g.ID, g.Generation)
	keys := make([]string, 0, len(g.Attachments))
	for _, k := range g.Attachments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, _ := s.tables.Attachments.Get(tx, k)
		fmt.Fprintf(h, "|%s:%d:%t:%t", k, a.Generation, a.AdminEnabled, a.CircuitDown)
		// The interconnect's state shows in the group's operational status.
		if ic, ok := s.tables.Interconnects.Get(tx, a.Project+"|"+a.Interconnect); ok {
			fmt.Fprintf(h, ":%s:%d:%t", ic.ID, ic.Generation, ic.CircuitDown)
		}
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)[:12])
}

func (s *Server) renderGroup(ctx context.Context, tx *store.Tx, g AttachmentGroup) gen.InterconnectAttachmentGroup {
	kind, created, self, etag := "compute#interconnectAttachmentGroup", timestamp(g.Created), s.link(ctx, groupPath(g.Project, g.Name)), s.groupEtag(tx, g)
	inputs := plain(s.slaInputs(ctx, tx, g))
	configured := renderAnalysis(sla.Analyze(sla.Level(g.Intent), inputs))
	structure := renderStructure(sla.LogicalStructure(inputs))
	out := gen.InterconnectAttachmentGroup{
		Kind: &kind, Id: &g.ID, Name: g.Name, Description: optional(g.Description), SelfLink: &self, CreationTimestamp: &created,
		Etag: &etag, Intent: gen.InterconnectAttachmentGroupIntent{AvailabilitySla: gen.InterconnectAttachmentGroupIntentAvailabilitySla(g.Intent)},
		InterconnectGroup: optional(g.InterconnectGroup), Configured: &configured, LogicalStructure: &structure,
		Attachments: map[string]gen.InterconnectAttachmentGroupAttachment{},
	}
	for userKey, key := range g.Attachments {
		parts := strings.SplitN(key, "|", 3)
		u := s.link(ctx, attachmentPath(parts[0], parts[1], parts[2]))
		out.Attachments[userKey] = gen.InterconnectAttachmentGroupAttachment{Attachment: &u}
	}
	return out
}

func renderAnalysis(a sla.Analysis) gen.InterconnectAttachmentGroupConfigured {
	eff := gen.InterconnectAttachmentGroupConfiguredAvailabilitySLAEffectiveSla(a.Effective)
	av := gen.InterconnectAttachmentGroupConfiguredAvailabilitySLA{EffectiveSla: &eff, IntendedSlaBlockers: []gen.InterconnectAttachmentGroupConfiguredAvailabilitySLAIntendedSlaBlockers{}}
	for _, b := range a.Blockers {
		typ := gen.InterconnectAttachmentGroupConfiguredAvailabilitySLAIntendedSlaBlockersBlockerType(b.Type)
		explanation, link := b.Explanation, b.DocumentationLink
		av.IntendedSlaBlockers = append(av.IntendedSlaBlockers, gen.InterconnectAttachmentGroupConfiguredAvailabilitySLAIntendedSlaBlockers{
			BlockerType: &typ, Explanation: &explanation, DocumentationLink: &link,
			Regions: b.Regions, Metros: b.Metros, Zones: b.Zones, Attachments: b.Attachments,
		})
	}
	return gen.InterconnectAttachmentGroupConfigured{AvailabilitySla: &av}
}

func renderStructure(structure sla.Structure) gen.InterconnectAttachmentGroupLogicalStructure {
	out := gen.InterconnectAttachmentGroupLogicalStructure{Regions: []gen.InterconnectAttachmentGroupLogicalStructureRegion{}}
	for _, r := range structure.Regions {
		region := gen.InterconnectAttachmentGroupLogicalStructureRegion{Region: ptr(r.Region)}
		for _, m := range r.Metros {
			metro := gen.InterconnectAttachmentGroupLogicalStructureRegionMetro{Metro: ptr(m.Metro)}
			for _, f := range m.Facilities {
				facility := gen.InterconnectAttachmentGroupLogicalStructureRegionMetroFacility{Facility: ptr(f.Facility)}
				for _, z := range f.Zones {
					facility.Zones = append(facility.Zones, gen.InterconnectAttachmentGroupLogicalStructureRegionMetroFacilityZone{Zone: ptr(z.Zone), Attachments: z.Attachments})
				}
				metro.Facilities = append(metro.Facilities, facility)
			}
			region.Metros = append(region.Metros, metro)
		}
		out.Regions = append(out.Regions, region)
	}
	return out
}
