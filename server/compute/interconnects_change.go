package compute

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"reflect"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// An interconnect's changes after its insert: patch, setLabels and setName.

// InterconnectsPatch applies a merge patch to an interconnect: description, adminEnabled,
// nocContactEmail, customerName, requestedLinkCount and labels change; the rest must be
// sent as it is. Draining (adminEnabled false) shows in every group over it.
func (s *Server) InterconnectsPatch(ctx context.Context, req gen.InterconnectsPatchRequestObject) (gen.InterconnectsPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	labels, labelsSent := labelsGiven(b.Labels, b.LabelFingerprint)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	if b.RequestedLinkCount < 0 {
		return nil, invalidField("resource.requestedLinkCount", fmt.Sprintf("Invalid value for field 'resource.requestedLinkCount': '%d'. Must be greater than 0.", b.RequestedLinkCount))
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		ic := rec.Interconnect
		var f fixed
		sameName(&f, b.Name, ic.Name)
		if b.Location != "" {
			loc, _ := parseRef(b.Location, "interconnectLocations", req.Project)
			same(&f, "location", &loc.Name, nameOf(ic.Location))
		}
		if b.RemoteLocation != nil {
			sent := *b.RemoteLocation
			if r, ok := refOrName(sent, "interconnectRemoteLocations", req.Project); ok {
				sent = r.Name
			}
			same(&f, "remoteLocation", &sent, nameOf(deref(ic.RemoteLocation)))
		}
		if b.LinkType != "" {
			same(&f, "linkType", &b.LinkType, ic.LinkType)
		}
		if b.InterconnectType != "" {
			same(&f, "interconnectType", &b.InterconnectType, ic.InterconnectType)
		}
		if f.err != nil {
			return operations.Start{}, f.err
		}
		if err := s.fixedMembers(ctx, "Interconnect", s.renderInterconnect(s.links(ctx), tx, ic), b, interconnectPatchable...); err != nil {
			return operations.Start{}, err
		}
		next := ic
		patchText(&next.Description, b.Description)
		patchText(&next.NocContactEmail, b.NocContactEmail)
		patchText(&next.CustomerName, b.CustomerName)
		if b.AdminEnabled != nil {
			next.AdminEnabled = b.AdminEnabled
		}
		patchFlag(&next.MacsecEnabled, b.MacsecEnabled)
		patchFlag(&next.AaiEnabled, b.AaiEnabled)
		if b.Macsec != nil {
			next.Macsec = b.Macsec
		}
		if b.ApplicationAwareInterconnect != nil {
			next.ApplicationAwareInterconnect = b.ApplicationAwareInterconnect
		}
		if deref(next.MacsecEnabled) && next.Macsec == nil {
			return operations.Start{}, invalidField("resource.macsecEnabled", "Invalid value for field 'resource.macsecEnabled': 'true'. MACsec cannot be enabled without a macsec configuration.")
		}
		if b.RequestedLinkCount > 0 {
			next.RequestedLinkCount = b.RequestedLinkCount
		}
		// A Cross-Cloud Interconnect's bundle stays within what its remote location takes.
		if r, cross := s.remoteLocations.byName[nameOf(deref(ic.RemoteLocation))]; cross && next.RequestedLinkCount != ic.RequestedLinkCount {
			if err := r.checkLinks(next.LinkType, next.RequestedLinkCount); err != nil {
				return operations.Start{}, err
			}
		}
		if labelsSent && !maps.Equal(labels, labelsOf(ic.Labels)) {
			// Changing labels takes the current labelFingerprint, missing or stale alike, as
			// the discovery document says (412 conditionNotMet); gcloud sends the one it read.
			if err := checkLabelFingerprint(b.LabelFingerprint, ic.LabelFingerprint); err != nil {
				return operations.Start{}, err
			}
			relabel(&next.Labels, &next.LabelFingerprint, labels)
		}
		s.fillInterconnect(req.Project, &next)
		if !reflect.DeepEqual(ic, next) {
			rec.Interconnect = next
			if err := s.tables.interconnects.Put(tx, *ic.SelfLink, rec); err != nil {
				return operations.Start{}, err
			}
		}
		return operations.Start{OperationType: "patch", Done: true, TargetLink: *ic.SelfLink, TargetID: *ic.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

// interconnectPatchable are the members an interconnect's patch changes (labels aside):
// the configuration of the connection, as the real service lets it be updated in place.
// name, location, remoteLocation, linkType and interconnectType are checked above; params
// is input only.
var interconnectPatchable = []string{"name", "location", "remoteLocation", "linkType", "interconnectType", "labels", "labelFingerprint", "params", "description", "adminEnabled", "nocContactEmail", "customerName", "requestedLinkCount",
	"macsecEnabled", "macsec", "aaiEnabled", "applicationAwareInterconnect"}

// patchText sets a text member a patch sends ("" clears it, as an insert without it has it).
func patchText(member **string, sent *string) {
	if sent != nil {
		*member = optional(*sent)
	}
}

// patchFlag sets a flag a patch sends that is shown only when true.
func patchFlag(member **bool, sent *bool) {
	if sent != nil {
		*member = nil
		if *sent {
			*member = ptr(true)
		}
	}
}

// InterconnectsSetLabels replaces an interconnect's labels, as setLabels of a rule does.
func (s *Server) InterconnectsSetLabels(ctx context.Context, req gen.InterconnectsSetLabelsRequestObject) (gen.InterconnectsSetLabelsResponseObject, error) {
	labels := labelsOf(req.Body.Labels)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", "", func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableInterconnect(tx, req.Project, req.Resource)
		if err != nil {
			return operations.Start{}, err
		}
		ic := &rec.Interconnect
		if err := checkLabelFingerprint(req.Body.LabelFingerprint, ic.LabelFingerprint); err != nil {
			return operations.Start{}, err
		}
		relabel(&ic.Labels, &ic.LabelFingerprint, labels)
		if err := s.tables.interconnects.Put(tx, *ic.SelfLink, rec); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "setLabels", Done: true, TargetLink: *ic.SelfLink, TargetID: *ic.Id}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsSetLabels200JSONResponse(s.renderOperation(ctx, op)), nil
}

// InterconnectsSetName renames an interconnect; its attachments and the interconnect groups
// holding it follow.
func (s *Server) InterconnectsSetName(ctx context.Context, req gen.InterconnectsSetNameRequestObject) (gen.InterconnectsSetNameResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	name := deref(req.Body.Name)
	if name == "" {
		return nil, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'name' not specified", Location: "name"}
	}
	if !validName(name) {
		return nil, mustMatch("name", name, nameRegex)
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		ic := rec.Interconnect
		if cur := deref(req.Body.CurrentName); cur != "" && cur != ic.Name {
			return operations.Start{}, invalidField("currentName", fmt.Sprintf("Invalid value for field 'currentName': '%s'. The interconnect's name is '%s'.", cur, ic.Name))
		}
		to := interconnectPath(req.Project, name)
		start := operations.Start{OperationType: "setName", Done: true, TargetLink: to, TargetID: *ic.Id}
		if name == ic.Name {
			return start, nil
		}
		if _, taken := s.tables.interconnects.Get(tx, to); taken {
			return operations.Start{}, alreadyExists(to)
		}
		return start, s.rename(tx, req.Project, rec, name)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsSetName200JSONResponse(s.renderOperation(ctx, op)), nil
}

// rename moves the interconnect of rec to name, with the attachments on it and the groups
// that hold it.
func (s *Server) rename(tx *store.Tx, project string, rec InterconnectRecord, name string) error {
	from := *rec.Interconnect.SelfLink
	users, groups := s.attachmentsOn(tx, from), s.interconnectGroupsOf(tx, from)
	s.tables.interconnects.Delete(tx, from)
	rec.Interconnect.Name = name
	s.fillInterconnect(project, &rec.Interconnect)
	to := *rec.Interconnect.SelfLink
	for _, a := range users {
		a.Attachment.Interconnect = &to
		if err := s.tables.attachments.Put(tx, *a.Attachment.SelfLink, a); err != nil {
			return err
		}
	}
	for _, g := range groups {
		for k, m := range g.Group.Interconnects {
			if deref(m.Interconnect) == from {
				g.Group.Interconnects[k] = gen.InterconnectGroupInterconnect{Interconnect: &to}
			}
		}
		if err := s.putInterconnectGroup(tx, g); err != nil {
			return err
		}
	}
	// Its groups, and those that held an interconnect of the new name deleted since.
	rec.Interconnect.InterconnectGroups = nil
	for _, g := range s.interconnectGroupsOf(tx, to) {
		rec.Interconnect.InterconnectGroups = append(rec.Interconnect.InterconnectGroups, *g.Group.SelfLink)
	}
	return s.tables.interconnects.Put(tx, to, rec)
}
