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
	"github.com/understudy-dev/understudy/internal/store/compat"
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
	added, err := interconnectNames(req.Project, sent)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		g, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return operations.Start{}, err
		}
		if g.Deleting {
			return operations.Start{}, notReady(icGroupPath(g.Project, g.Name))
		}
		if name := given(b.Name); name != "" && name != g.Name {
			return operations.Start{}, invalidField("resource.name", fmt.Sprintf("Invalid value for field 'resource.name': '%s'. The name of a group cannot change.", name))
		}
		if e := given(b.Etag); e != "" && e != s.icGroupEtag(tx, g) {
			return operations.Start{}, &Error{Status: http.StatusPreconditionFailed, Reason: "conditionNotMet",
				Message: "Etag either invalid or resource has changed", Location: "resource.etag"}
		}
		start := operations.Start{OperationType: "patch", Done: true, TargetLink: s.link(ctx, icGroupPath(g.Project, g.Name)), TargetID: g.ID}
		next := g
		if changes("description", b.Description.IsSpecified()) {
			next.Description = given(b.Description)
		}
		if intent != "" {
			next.Intent = intent
		}
		if changes("interconnects", b.Interconnects.IsSpecified()) {
			if mask["interconnects"] || b.Interconnects.IsNull() {
				next.Interconnects = added
			} else {
				next.Interconnects = maps.Clone(g.Interconnects)
				if next.Interconnects == nil {
					next.Interconnects = map[string]string{}
				}
				for k, v := range sent {
					if v == nil {
						delete(next.Interconnects, k)
					} else {
						next.Interconnects[k] = added[k]
					}
				}
			}
		}
		if start.Failure = s.checkMembers(tx, g.Project, next.Interconnects, g.Interconnects); start.Failure != nil {
			return start, nil
		}
		next.Generation++
		return start, s.tables.InterconnectGroups.Put(tx, next.Key(), next)
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
	var created []Interconnect
	for i, in := range r.Interconnects {
		ic, err := s.memberFromInput(req.Project, fmt.Sprintf("request.interconnects[%d]", i), r.TemplateInterconnect, in, turn)
		if err != nil {
			return nil, err
		}
		for _, c := range created {
			if c.Name == ic.Name {
				return nil, invalidField(fmt.Sprintf("request.interconnects[%d].name", i), fmt.Sprintf("Invalid value for field 'request.interconnects[%d].name': '%s'. Names must be unique within the call.", i, ic.Name))
			}
		}
		ic.ID, ic.Created = s.newID(), s.cfg.Now()
		created = append(created, ic)
	}
	op, err := s.mutate(ctx, req.Project, "", "", func(tx *store.Tx) (operations.Start, error) {
		g, err := s.readableInterconnectGroup(tx, req.Project, req.InterconnectGroup)
		if err != nil {
			return operations.Start{}, err
		}
		if g.Deleting {
			return operations.Start{}, notReady(icGroupPath(g.Project, g.Name))
		}
		next := g
		next.Interconnects = maps.Clone(g.Interconnects)
		if next.Interconnects == nil {
			next.Interconnects = map[string]string{}
		}
		for _, ic := range created {
			if _, taken := s.tables.Interconnects.Get(tx, ic.Key()); taken {
				return operations.Start{}, alreadyExists(interconnectPath(ic.Project, ic.Name))
			}
			if _, taken := next.Interconnects[ic.Name]; taken {
				return operations.Start{}, invalidField("request.interconnects", fmt.Sprintf("Invalid value for field 'request.interconnects': the group already has an interconnect under key '%s'.", ic.Name))
			}
			next.Interconnects[ic.Name] = ic.Name
		}
		if len(next.Interconnects) > interconnectsPerGroup {
			return operations.Start{}, &Error{Status: http.StatusForbidden, Reason: "quotaExceeded",
				Message: fmt.Sprintf("Quota 'INTERCONNECTS_PER_GROUP' exceeded.  Limit: %d.0 globally.", interconnectsPerGroup)}
		}
		if deref(r.IntentMismatchBehavior) == "REJECT" {
			if err := s.wouldMeetIntent(ctx, tx, next, created); err != nil {
				return operations.Start{}, err
			}
		}
		for _, ic := range created {
			if err := s.tables.Interconnects.Put(tx, ic.Key(), ic); err != nil {
				return operations.Start{}, err
			}
		}
		next.Generation++
		if err := s.tables.InterconnectGroups.Put(tx, next.Key(), next); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "createMembers", Done: true, TargetLink: s.link(ctx, icGroupPath(g.Project, g.Name)), TargetID: g.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectGroupsCreateMembersResponseObject(gen.InterconnectGroupsCreateMembers200JSONResponse(s.renderOperation(ctx, op))), nil
}

// wouldMeetIntent refuses a createMembers with intentMismatchBehavior REJECT after which
// the group's supported capability would not be its intent. The new interconnects are not
// stored yet, so they are described from what the call would store.
func (s *Server) wouldMeetIntent(ctx context.Context, tx *store.Tx, g InterconnectGroup, created []Interconnect) error {
	fresh := map[string]Interconnect{}
	for _, ic := range created {
		fresh[ic.Name] = ic
	}
	var all []sla.Interconnect
	for _, name := range g.Interconnects {
		ic, ok := fresh[name]
		if !ok {
			if ic, ok = s.tables.Interconnects.Get(tx, g.Project+"|"+name); !ok || ic.Pending {
				continue
			}
		}
		l := s.locations.byName[ic.Location]
		all = append(all, sla.Interconnect{URL: s.link(ctx, interconnectPath(g.Project, name)), Metro: l.Metro, Facility: zoneFree(l.Name), Zone: l.Zone})
	}
	if c := sla.AnalyzeInterconnects(sla.Level(g.Intent), all); c.Supported != sla.Level(g.Intent) {
		return invalidField("request.intentMismatchBehavior", fmt.Sprintf("Invalid value for field 'request.intentMismatchBehavior': 'REJECT'. After this call the group would support %s, not its intent %s: %s",
			c.Supported, g.Intent, c.Blockers[0].Explanation))
	}
	return nil
}

// memberFromInput builds the interconnect an entry of createMembers asks for, from the
// template and the entry (the entry wins), at field (for errors). turn counts, per
// facility, the interconnects this call has placed there.
func (s *Server) memberFromInput(project, field string, template *gen.InterconnectGroupsCreateMembersInterconnectInput, in gen.InterconnectGroupsCreateMembersInterconnectInput, turn map[string]int) (Interconnect, error) {
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
		return Interconnect{}, required("name")
	}
	if !validName(name) {
		return Interconnect{}, mustMatch(field+".name", name, nameRegex)
	}
	if pick(in.RemoteLocation, t.RemoteLocation) != "" {
		return Interconnect{}, invalidField(field+".remoteLocation", fmt.Sprintf("Invalid value for field '%s.remoteLocation'. understudy does not model Cross-Cloud Interconnect.", field))
	}
	facility := pick(in.Facility, t.Facility)
	if facility == "" {
		return Interconnect{}, required("facility")
	}
	locations := s.locations.facility(facility)
	if len(locations) == 0 {
		return Interconnect{}, invalidField(field+".facility", fmt.Sprintf("Invalid value for field '%s.facility': '%s'. No interconnect location is in this facility.", field, facility))
	}
	ic := Interconnect{Project: project, Name: name, Location: locations[turn[facility]%len(locations)], AdminEnabled: true,
		Description: pick(in.Description, t.Description), CustomerName: pick(in.CustomerName, t.CustomerName), NocContactEmail: pick(in.NocContactEmail, t.NocContactEmail)}
	turn[facility]++
	switch {
	case in.LinkType != nil:
		ic.LinkType = string(*in.LinkType)
	case t.LinkType != nil:
		ic.LinkType = string(*t.LinkType)
	default:
		return Interconnect{}, required("linkType")
	}
	switch {
	case in.InterconnectType != nil:
		ic.InterconnectType = string(*in.InterconnectType)
	case t.InterconnectType != nil:
		ic.InterconnectType = string(*t.InterconnectType)
	default:
		return Interconnect{}, required("interconnectType")
	}
	switch {
	case in.RequestedLinkCount != nil:
		ic.RequestedLinkCount = int(*in.RequestedLinkCount)
	case t.RequestedLinkCount != nil:
		ic.RequestedLinkCount = int(*t.RequestedLinkCount)
	}
	if ic.RequestedLinkCount <= 0 {
		return Interconnect{}, required("requestedLinkCount")
	}
	switch {
	case in.AdminEnabled != nil:
		ic.AdminEnabled = *in.AdminEnabled
	case t.AdminEnabled != nil:
		ic.AdminEnabled = *t.AdminEnabled
	}
	return ic, nil
}
