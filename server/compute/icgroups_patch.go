package compute

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/sla"
	"github.com/understudy-dev/understudy/internal/store"
)

// icGroupMaskFields maps the updateMask paths an interconnect group patch takes to a field.
var icGroupMaskFields = map[string]string{
	"description": "description", "intent": "intent", "intent.topologyCapability": "intent", "intent.topology_capability": "intent",
	"interconnects": "interconnects",
}

// InterconnectGroupsPatch changes a group as an attachment group's patch does: a merge
// patch (interconnects merged key by key, an entry given as null removed), or exactly the
// fields of updateMask. A given etag must be current. Applied at accept; new interconnects
// that do not exist end the DONE operation with RESOURCE_NOT_FOUND and change nothing.
func (s *Server) InterconnectGroupsPatch(ctx context.Context, req gen.InterconnectGroupsPatchRequestObject) (gen.InterconnectGroupsPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	mask := map[string]bool{}
	for _, p := range strings.Split(deref(req.Params.UpdateMask), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		f, ok := icGroupMaskFields[p]
		if !ok {
			return nil, invalidField("updateMask", fmt.Sprintf("Invalid value for field 'updateMask': '%s'. Updatable fields are description, intent and interconnects.", p))
		}
		mask[f] = true
	}
	changes := func(field string, present bool) bool {
		if len(mask) > 0 {
			return mask[field]
		}
		return present
	}
	var intent string
	if changes("intent", b.Intent.IsSpecified()) {
		v, err := b.Intent.Get()
		if err != nil {
			return nil, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'resource.intent' not specified", Location: "resource.intent"}
		}
		if intent, err = checkTopology(v.TopologyCapability); err != nil {
			return nil, err
		}
	}
	sent := given(b.Interconnects)
	added, err := interconnectPaths(req.Project, sent)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return operations.Start{}, err
		}
		g := rec.Group
		path := *g.SelfLink
		if name := given(b.Name); name != "" && name != g.Name {
			return operations.Start{}, invalidField("resource.name", fmt.Sprintf("Invalid value for field 'resource.name': '%s'. The name of a group cannot change.", name))
		}
		if e := given(b.Etag); e != "" && e != s.icGroupEtag(tx, g) {
			return operations.Start{}, &Error{Status: http.StatusPreconditionFailed, Reason: "conditionNotMet",
				Message: "Etag either invalid or resource has changed", Location: "resource.etag"}
		}
		start := operations.Start{OperationType: "patch", Done: true, TargetLink: path, TargetID: *g.Id}
		previous := membersOf(g)
		members := previous
		next := g
		if changes("description", b.Description.IsSpecified()) {
			next.Description = optional(given(b.Description))
		}
		if intent != "" {
			next.Intent = &gen.InterconnectGroupIntent{TopologyCapability: ptr(gen.InterconnectGroupIntentTopologyCapability(intent))}
		}
		if changes("interconnects", b.Interconnects.IsSpecified()) {
			if mask["interconnects"] || b.Interconnects.IsNull() {
				members = added
			} else {
				members = maps.Clone(previous)
				for k, v := range sent {
					if v == nil {
						delete(members, k)
					} else {
						members[k] = added[k]
					}
				}
			}
		}
		if start.Failure = s.checkMembers(tx, members, previous); start.Failure != nil {
			return start, nil
		}
		if err := s.setMembership(tx, path, previous, members); err != nil {
			return start, err
		}
		next.Interconnects = memberEntries(members)
		rec.Group = next
		return start, s.putInterconnectGroup(tx, rec)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

// InterconnectGroupsCreateMembers creates interconnects and adds them to the group in one
// step. Each is the template completed (or overridden) by its own entry; its location is
// one of the facility's (a zone-free location such as iad-1), taken in turn so that the
// interconnects of one call spread over the facility's zones.
func (s *Server) InterconnectGroupsCreateMembers(ctx context.Context, req gen.InterconnectGroupsCreateMembersRequestObject) (gen.InterconnectGroupsCreateMembersResponseObject, error) {
	r := req.Body.Request
	if r == nil || len(r.Interconnects) == 0 {
		return nil, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'request.interconnects' not specified", Location: "request.interconnects"}
	}
	turn := map[string]int{}
	var created []gen.Interconnect
	for i, in := range r.Interconnects {
		field := fmt.Sprintf("request.interconnects[%d]", i)
		body, err := s.memberFromInput(req.Project, field, r.TemplateInterconnect, in, turn)
		if err != nil {
			return nil, err
		}
		for _, c := range created {
			if c.Name == body.Name {
				return nil, invalidField(field+".name", fmt.Sprintf("Invalid value for field '%s.name': '%s'. Names must be unique within the call.", field, body.Name))
			}
		}
		ic, err := s.newInterconnect(req.Project, body, s.newID(), s.cfg.Now())
		if err != nil {
			return nil, err
		}
		created = append(created, ic)
	}
	op, err := s.mutate(ctx, req.Project, "", "", func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return operations.Start{}, err
		}
		g := rec.Group
		path := *g.SelfLink
		previous := membersOf(g)
		members := maps.Clone(previous)
		for _, ic := range created {
			if _, taken := s.tables.interconnects.Get(tx, *ic.SelfLink); taken {
				return operations.Start{}, alreadyExists(*ic.SelfLink)
			}
			if _, taken := members[ic.Name]; taken {
				return operations.Start{}, invalidField("request.interconnects", fmt.Sprintf("Invalid value for field 'request.interconnects': the group already has an interconnect under key '%s'.", ic.Name))
			}
			members[ic.Name] = *ic.SelfLink
		}
		if len(members) > interconnectsPerGroup {
			return operations.Start{}, &Error{Status: http.StatusForbidden, Reason: "quotaExceeded",
				Message: fmt.Sprintf("Quota 'INTERCONNECTS_PER_GROUP' exceeded.  Limit: %d.0 globally.", interconnectsPerGroup)}
		}
		if deref(r.IntentMismatchBehavior) == "REJECT" {
			if err := s.wouldMeetIntent(s.links(ctx), tx, g, members, created); err != nil {
				return operations.Start{}, err
			}
		}
		for _, ic := range created {
			if err := s.putNewInterconnect(tx, ic, s.born(tx, false)); err != nil {
				return operations.Start{}, err
			}
		}
		if err := s.setMembership(tx, path, previous, members); err != nil {
			return operations.Start{}, err
		}
		rec.Group.Interconnects = memberEntries(members)
		if err := s.putInterconnectGroup(tx, rec); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "createMembers", Done: true, TargetLink: path, TargetID: *g.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsCreateMembersResponseObject(gen.InterconnectGroupsCreateMembers200JSONResponse(s.renderOperation(ctx, op))), nil
}

// wouldMeetIntent refuses a createMembers with intentMismatchBehavior REJECT after which
// the group g, holding members, would not support its intent. The new interconnects are
// not stored yet, so they are described from what the call would store.
func (s *Server) wouldMeetIntent(l links, tx *store.Tx, g gen.InterconnectGroup, members map[string]string, created []gen.Interconnect) error {
	fresh := map[string]gen.Interconnect{}
	for _, ic := range created {
		fresh[*ic.SelfLink] = ic
	}
	intent := sla.Level(deref(g.Intent.TopologyCapability))
	var all []sla.Interconnect
	for _, path := range members {
		ic, ok := fresh[path]
		if !ok {
			rec, found := s.tables.interconnects.Get(tx, path)
			if !found || rec.Pending {
				continue
			}
			ic = rec.Interconnect
		}
		loc := s.locations.byName[nameOf(ic.Location)]
		all = append(all, sla.Interconnect{URL: l.url(path), Metro: loc.Metro, Facility: zoneFree(loc.Name), Zone: loc.Zone})
	}
	if c := sla.AnalyzeInterconnects(intent, all); c.Supported != intent {
		return invalidField("request.intentMismatchBehavior", fmt.Sprintf("Invalid value for field 'request.intentMismatchBehavior': 'REJECT'. After this call the group would support %s, not its intent %s: %s",
			c.Supported, intent, c.Blockers[0].Explanation))
	}
	return nil
}

// memberFromInput is the insert body of the interconnect an entry of createMembers asks
// for, from the template and the entry (the entry wins), at field (for errors). turn counts,
// per facility, the interconnects this call has placed there.
func (s *Server) memberFromInput(project, field string, template *gen.InterconnectGroupsCreateMembersInterconnectInput, in gen.InterconnectGroupsCreateMembersInterconnectInput, turn map[string]int) (gen.Interconnect, error) {
	var t gen.InterconnectGroupsCreateMembersInterconnectInput
	if template != nil {
		t = *template
	}
	pick := func(a, b *string) string {
		if v := deref(a); v != "" {
			return v
		}
		return deref(b)
	}
	required := func(name string) error {
		return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s.%s' not specified", field, name), Location: field + "." + name}
	}
	name := pick(in.Name, t.Name)
	if name == "" {
		return gen.Interconnect{}, required("name")
	}
	if !validName(name) {
		return gen.Interconnect{}, mustMatch(field+".name", name, nameRegex)
	}
	if pick(in.RemoteLocation, t.RemoteLocation) != "" {
		// Its facility's turn would choose the location, which the remote location may not
		// permit: a Cross-Cloud Interconnect is inserted on its own, then patched in.
		return gen.Interconnect{}, invalidField(field+".remoteLocation", fmt.Sprintf("Invalid value for field '%s.remoteLocation'. createMembers makes Dedicated Interconnects only: insert a Cross-Cloud Interconnect with interconnects.insert, then add it to the group with a patch.", field))
	}
	facility := pick(in.Facility, t.Facility)
	if facility == "" {
		return gen.Interconnect{}, required("facility")
	}
	locations := s.locations.facility(facility)
	if len(locations) == 0 {
		return gen.Interconnect{}, invalidField(field+".facility", fmt.Sprintf("Invalid value for field '%s.facility': '%s'. No interconnect location is in this facility.", field, facility))
	}
	ic := gen.Interconnect{Name: name, Location: locationPath(project, locations[turn[facility]%len(locations)]), AdminEnabled: ptr(true),
		Description: ptr(pick(in.Description, t.Description)), CustomerName: ptr(pick(in.CustomerName, t.CustomerName)), NocContactEmail: ptr(pick(in.NocContactEmail, t.NocContactEmail))}
	turn[facility]++
	switch {
	case in.LinkType != nil:
		ic.LinkType = gen.InterconnectLinkType(*in.LinkType)
	case t.LinkType != nil:
		ic.LinkType = gen.InterconnectLinkType(*t.LinkType)
	default:
		return gen.Interconnect{}, required("linkType")
	}
	switch {
	case in.InterconnectType != nil:
		ic.InterconnectType = gen.InterconnectInterconnectType(*in.InterconnectType)
	case t.InterconnectType != nil:
		ic.InterconnectType = gen.InterconnectInterconnectType(*t.InterconnectType)
	default:
		return gen.Interconnect{}, required("interconnectType")
	}
	switch {
	case in.RequestedLinkCount != nil:
		ic.RequestedLinkCount = *in.RequestedLinkCount
	case t.RequestedLinkCount != nil:
		ic.RequestedLinkCount = *t.RequestedLinkCount
	}
	if ic.RequestedLinkCount <= 0 {
		return gen.Interconnect{}, required("requestedLinkCount")
	}
	switch {
	case in.AdminEnabled != nil:
		ic.AdminEnabled = in.AdminEnabled
	case t.AdminEnabled != nil:
		ic.AdminEnabled = t.AdminEnabled
	}
	// The entry's features, else the template's; newInterconnect holds them to the
	// location's, as on insert.
	features := in.RequestedFeatures
	if len(features) == 0 {
		features = t.RequestedFeatures
	}
	for _, f := range features {
		ic.RequestedFeatures = append(ic.RequestedFeatures, gen.InterconnectRequestedFeatures(f))
	}
	return ic, nil
}
