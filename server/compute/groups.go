package compute

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"time"

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
	g, err := newGroup(req.Project, b, s.newID(), s.cfg.Now())
	if err != nil {
		return nil, err
	}
	urls, err := attachmentURLs(req.Project, b.Attachments)
	if err != nil {
		return nil, err
	}
	pending := !s.ops.FinishesAtAccept()
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		path := *g.SelfLink
		if _, taken := s.tables.groups.Get(tx, path); taken {
			return operations.Start{}, alreadyExists(path)
		}
		start := operations.Start{OperationType: "insert", TargetLink: path, TargetID: *g.Id, Settled: !pending}
		held, failure := s.checkAttachments(tx, req.Project, g.Name, urls)
		if failure != nil {
			start.Failure = failure
			return start, nil
		}
		rec := GroupRecord{Group: g, Lifecycle: s.born(tx, pending)}
		rec.Group.Attachments = attachmentEntries(held)
		if err := s.claim(tx, path, held, nil); err != nil {
			return start, err
		}
		return start, s.tables.groups.Put(tx, path, rec)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsInsert200JSONResponse(s.renderOperation(ctx, op)), nil
}

// newGroup checks an insert body's name and intent and makes the group it asks for in
// project, with the id and creation time given, but without its attachments (which the
// caller checks and claims): the body is the group, and the members the server sets are
// filled in. Inserts and the seed share it.
func newGroup(project string, b gen.InterconnectAttachmentGroup, id string, created time.Time) (gen.InterconnectAttachmentGroup, error) {
	if err := checkName(b.Name); err != nil {
		return b, err
	}
	if err := checkIntent(string(b.Intent.AvailabilitySla)); err != nil {
		return b, err
	}
	g := b
	// Derived when the group is read (its analysis), or checked and set by the caller.
	g.Configured, g.LogicalStructure, g.Attachments = nil, nil, nil
	g.Kind, g.Id, g.CreationTimestamp = ptr("compute#interconnectAttachmentGroup"), &id, ptr(timestamp(created))
	g.SelfLink, g.Etag = ptr(groupPath(project, b.Name)), ptr(firstEtag("interconnectAttachmentGroup", id))
	unsetEmpty(&g.Description, &g.InterconnectGroup)
	return g, nil
}

// attachmentEntries are a group's attachments as it keeps them, from the paths of the
// attachments it holds by key (nil for none).
func attachmentEntries(held map[string]string) map[string]gen.InterconnectAttachmentGroupAttachment {
	if len(held) == 0 {
		return nil
	}
	out := make(map[string]gen.InterconnectAttachmentGroupAttachment, len(held))
	for k, path := range held {
		out[k] = gen.InterconnectAttachmentGroupAttachment{Attachment: ptr(path)}
	}
	return out
}

// heldBy are the paths of the attachments a group holds, by key.
func heldBy(g gen.InterconnectAttachmentGroup) map[string]string {
	out := make(map[string]string, len(g.Attachments))
	for k, a := range g.Attachments {
		out[k] = deref(a.Attachment)
	}
	return out
}

// InterconnectAttachmentGroupsGet reads a group, with its analysis as of now.
func (s *Server) InterconnectAttachmentGroupsGet(ctx context.Context, req gen.InterconnectAttachmentGroupsGetRequestObject) (gen.InterconnectAttachmentGroupsGetResponseObject, error) {
	var out gen.InterconnectAttachmentGroup
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rec, err := s.readableGroup(tx, req.Project, req.InterconnectAttachmentGroup)
		if err != nil {
			return err
		}
		out = s.renderGroup(s.links(ctx), tx, rec.Group)
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
	l := s.links(ctx)
	out := gen.InterconnectAttachmentGroupList{Kind: gen.InterconnectAttachmentGroupListKindComputeInterconnectAttachmentGroup, Id: path, SelfLink: l.url(path)}
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var err error
		out.Items, out.NextPageToken, err = listPage(tx, s.tables.groups, path+"/", q, func(r GroupRecord) gen.InterconnectAttachmentGroup { return s.renderGroup(l, tx, r.Group) })
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
		rec, err := s.readableGroup(tx, req.Project, req.InterconnectAttachmentGroup)
		if err != nil {
			return operations.Start{}, err
		}
		path := *rec.Group.SelfLink
		if err := beginDelete(s, tx, s.tables.groups, path, rec); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "delete", TargetLink: path, TargetID: *rec.Group.Id}, nil
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
	err := s.db.View(ctx, func(tx *store.Tx) error {
		rec, err := s.readableGroup(tx, req.Project, req.InterconnectAttachmentGroup)
		if err != nil {
			return err
		}
		g := rec.Group
		inputs := s.slaInputs(s.links(ctx), tx, g)
		intent, atts := sla.Level(g.Intent.AvailabilitySla), plain(inputs)
		where := placed(atts)
		configured, operational := renderAnalysis(sla.Analyze(intent, where)), renderAnalysis(sla.Operational(intent, where))
		result := gen.InterconnectAttachmentGroupsOperationalStatus{
			GroupStatus: gen.InterconnectAttachmentGroupsOperationalStatusGroupStatus(sla.GroupStatus(atts)),
			Intent:      g.Intent, Configured: &configured, Operational: &operational,
		}
		for _, in := range inputs {
			status := gen.InterconnectAttachmentGroupsOperationalStatusAttachmentStatus{
				Attachment: in.URL, AdminEnabled: in.adminEnabled, IsActive: "INACTIVE", Status: "CONNECTION_UP"}
			switch {
			case in.state != "":
				status.Status = gen.InterconnectAttachmentGroupsOperationalStatusAttachmentStatusStatus(in.state)
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

// readableGroup and changeableGroup find a group by name or id (see readable).
func (s *Server) readableGroup(tx *store.Tx, project, nameOrID string) (GroupRecord, error) {
	return readable(tx, s.tables.groups, s.tables.groupID, groupPath(project, nameOrID))
}

func (s *Server) changeableGroup(tx *store.Tx, project, nameOrID string) (GroupRecord, error) {
	return changeable(tx, s.tables.groups, s.tables.groupID, groupPath(project, nameOrID))
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

// checkAttachments decides, inside the accept transaction, whether the group named group
// of project may hold the attachments named by urls: their paths by key, or the failure
// its operation must end with.
func (s *Server) checkAttachments(tx *store.Tx, project, group string, urls map[string]string) (map[string]string, *operations.Failure) {
	if len(urls) > s.cfg.AttachmentsPerGroup {
		return nil, quotaExceeded(s.cfg.AttachmentsPerGroup, len(urls))
	}
	if len(urls) == 0 {
		return nil, nil
	}
	self := groupPath(project, group)
	held := make(map[string]string, len(urls))
	for _, k := range slices.Sorted(maps.Keys(urls)) {
		r, _ := parseRef(urls[k], "interconnectAttachments", project)
		path := attachmentPath(r.Project, r.Region, r.Name)
		rec, ok := s.tables.attachments.Get(tx, path)
		if r.Project != project || !ok || rec.Pending {
			return nil, &operations.Failure{HTTPStatus: 404, HTTPMessage: "NOT FOUND", Errors: []gen.OperationErrorItem{{
				Code: "RESOURCE_NOT_FOUND", Message: ptr(fmt.Sprintf("The resource '%s' was not found", path))}}}
		}
		if rec.Deleting {
			return nil, &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []gen.OperationErrorItem{{
				Code: "RESOURCE_NOT_READY", Location: ptr("resource.attachments." + k),
				Message: ptr(fmt.Sprintf("The resource '%s' is not ready", path))}}}
		}
		holder := deref(rec.Attachment.AttachmentGroup)
		if (holder != "" && holder != self) || hasValue(held, path) {
			if holder == "" || holder == self {
				holder = self // the same attachment twice in one group
			}
			return nil, &operations.Failure{HTTPStatus: 400, HTTPMessage: "BAD REQUEST", Errors: []gen.OperationErrorItem{{
				Code: "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE", Location: ptr("resource.attachments." + k),
				Message: ptr(fmt.Sprintf("The interconnectAttachment resource '%s' is already being used by '%s'", path, holder))}}}
		}
		held[k] = path
	}
	return held, nil
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
	return &operations.Failure{HTTPStatus: 403, HTTPMessage: "FORBIDDEN", Errors: []gen.OperationErrorItem{{
		Code:    "QUOTA_EXCEEDED",
		Message: ptr(fmt.Sprintf("Quota 'INTERCONNECT_ATTACHMENTS_PER_GROUP' exceeded.  Limit: %d.0 globally.", limit)),
		ErrorDetails: []gen.OperationErrorDetail{
			{ErrorInfo: &gen.ErrorInfo{Reason: ptr("QUOTA_EXCEEDED"), Domain: ptr("compute.googleapis.com"),
				Metadatas: map[string]string{"quotaResource": "INTERCONNECT_ATTACHMENTS_PER_GROUP", "quotaLimit": fmt.Sprint(limit), "requested": fmt.Sprint(got)}}},
			{QuotaInfo: &gen.QuotaExceededInfo{MetricName: ptr("compute.googleapis.com/interconnect_attachments_per_group"),
				LimitName: ptr("INTERCONNECT-ATTACHMENTS-PER-GROUP-per-group"), Dimensions: map[string]string{"global": "global"}, Limit: ptr(float64(limit))}},
		},
	}}}
}

// claim marks the attachments of held (paths by key) as held by the group at group, and
// releases those of previous that it no longer holds.
func (s *Server) claim(tx *store.Tx, group string, held, previous map[string]string) error {
	keep := map[string]bool{}
	for _, path := range held {
		keep[path] = true
	}
	for _, path := range previous {
		if keep[path] {
			continue
		}
		if rec, ok := s.tables.attachments.Get(tx, path); ok && deref(rec.Attachment.AttachmentGroup) == group {
			rec.Attachment.AttachmentGroup = nil
			if err := s.tables.attachments.Put(tx, path, rec); err != nil {
				return err
			}
		}
	}
	for path := range keep {
		rec, ok := s.tables.attachments.Get(tx, path)
		if !ok || deref(rec.Attachment.AttachmentGroup) == group {
			continue
		}
		rec.Attachment.AttachmentGroup = &group
		if err := s.tables.attachments.Put(tx, path, rec); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) finishGroupInsert(tx *store.Tx, op operations.Record) error {
	return finishInsert(tx, s.tables.groups, deref(op.Op.TargetLink), "attachment group")
}

func (s *Server) finishGroupDelete(tx *store.Tx, op operations.Record) error {
	rec, ok := s.tables.groups.Get(tx, deref(op.Op.TargetLink))
	if !ok {
		return nil // nothing left to delete
	}
	if err := s.claim(tx, deref(op.Op.TargetLink), nil, heldBy(rec.Group)); err != nil {
		return err
	}
	s.tables.groups.Delete(tx, deref(op.Op.TargetLink))
	s.tables.policies.Delete(tx, withID(deref(op.Op.TargetLink), *rec.Group.Id))
	return nil
}

// slaInput is an attachment as the analysis sees it, plus what the status report needs.
type slaInput struct {
	sla.Attachment
	adminEnabled bool
	// state is the state of a partner attachment that is not ACTIVE (not yet provisioned
	// or activated, or DEFUNCT), which its status reports.
	state gen.InterconnectAttachmentState
}

// slaInputs describes g's attachments for the analysis: where each is, and whether it is
// active (ACTIVE and admin-enabled, on an admin-enabled interconnect). Sorted by URL.
func (s *Server) slaInputs(l links, tx *store.Tx, g gen.InterconnectAttachmentGroup) []slaInput {
	var out []slaInput
	for _, path := range heldBy(g) {
		rec, ok := s.tables.attachments.Get(tx, path)
		if !ok {
			continue
		}
		a := rec.Attachment
		in := slaInput{Attachment: sla.Attachment{URL: l.url(path), Region: regionOf(path)}, adminEnabled: deref(orDefault(a.AdminEnabled, true))}
		if state := deref(a.State); state != gen.InterconnectAttachmentStateACTIVE {
			in.state = state
		}
		if loc, ic, ok := s.attachmentLocation(tx, a); ok {
			in.Metro, in.Facility, in.Zone = loc.Metro, loc.Facility(), loc.Zone
			in.Active = carries(a) && deref(ic.Interconnect.AdminEnabled) && !rec.CircuitDown && !ic.CircuitDown
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

// placed leaves out the attachments that are nowhere yet (a PARTNER attachment its partner
// has not provisioned): the SLA analyses and the logical structure are of the attachments
// with a metro and a zone, while the group's status counts the others as down.
func placed(in []sla.Attachment) []sla.Attachment {
	var out []sla.Attachment
	for _, a := range in {
		if a.Metro != "" {
			out = append(out, a)
		}
	}
	return out
}

// groupEtag is the etag a group is read with: its own version (the etag it keeps), and the
// state of each attachment it holds and of their interconnects, which its operational
// status shows. It changes whenever one of them changes.
func (s *Server) groupEtag(tx *store.Tx, g gen.InterconnectAttachmentGroup) string {
	h := sha256.New()
	h.Write([]byte(deref(g.Etag)))
	held := heldBy(g)
	for _, k := range slices.Sorted(maps.Keys(held)) {
		a, _ := s.tables.attachments.Get(tx, held[k])
		fmt.Fprintf(h, "|%s|", k)
		writeState(h, a.Attachment, a.CircuitDown)
		if ic, ok := s.port(tx, a.Attachment); ok {
			writeState(h, ic.Interconnect, ic.CircuitDown)
		}
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)[:12])
}

// writeState writes a resource's state to h: its JSON, and whether its circuit is down.
func writeState(h io.Writer, resource any, circuitDown bool) {
	_ = json.NewEncoder(h).Encode(resource) // a generated type: it always encodes
	fmt.Fprintf(h, "%t", circuitDown)
}

// firstEtag is the version of a group of kind with the id when it is made; nextEtag the one
// after a change from previous: every change moves it on, and never back to a value it had.
func firstEtag(kind, id string) string {
	return base64.StdEncoding.EncodeToString(firstFingerprint(kind, id))
}

func nextEtag(previous *string) *string {
	return ptr(base64.StdEncoding.EncodeToString(nextFingerprint([]byte(deref(previous)), "change")))
}

// renderGroup is a group as a read returns it: its links URLs, with its analysis as of now
// and its etag.
func (s *Server) renderGroup(l links, tx *store.Tx, g gen.InterconnectAttachmentGroup) gen.InterconnectAttachmentGroup {
	inputs := placed(plain(s.slaInputs(l, tx, g)))
	configured := renderAnalysis(sla.Analyze(sla.Level(g.Intent.AvailabilitySla), inputs))
	structure := renderStructure(sla.LogicalStructure(inputs))
	g.Configured, g.LogicalStructure, g.Etag = &configured, &structure, ptr(s.groupEtag(tx, g))
	l.set(&g.SelfLink)
	entries := make(map[string]gen.InterconnectAttachmentGroupAttachment, len(g.Attachments))
	for k, a := range g.Attachments {
		l.set(&a.Attachment)
		entries[k] = a
	}
	g.Attachments = entries
	return g
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
