package compute

import (
	"bytes"
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

// changeableInterconnect is a readable interconnect that no running delete holds.
func (s *Server) changeableInterconnect(tx *store.Tx, project, nameOrID string) (Interconnect, error) {
	ic, err := s.readableInterconnect(tx, project, nameOrID)
	if err == nil && ic.Deleting {
		err = notReady(interconnectPath(ic.Project, ic.Name))
	}
	return ic, err
}

// InterconnectsPatch applies a merge patch to an interconnect: description, adminEnabled,
// nocContactEmail, customerName, requestedLinkCount and labels change; the rest must be
// sent as it is. Draining (adminEnabled false) shows in every group over it.
func (s *Server) InterconnectsPatch(ctx context.Context, req gen.InterconnectsPatchRequestObject) (gen.InterconnectsPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	labels, labelsSent := labelsGiven(b.Labels)
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	if b.RequestedLinkCount < 0 {
		return nil, invalidField("resource.requestedLinkCount", fmt.Sprintf("Invalid value for field 'resource.requestedLinkCount': '%d'. Must be greater than 0.", b.RequestedLinkCount))
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		ic, err := s.changeableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		var f fixed
		sameName(&f, b.Name, ic.Name)
		if b.Location != "" {
			loc, _ := parseRef(b.Location, "interconnectLocations", req.Project)
			same(&f, "location", &loc.Name, ic.Location)
		}
		if b.LinkType != "" {
			same(&f, "linkType", ptr(string(b.LinkType)), ic.LinkType)
		}
		if b.InterconnectType != "" {
			same(&f, "interconnectType", ptr(string(b.InterconnectType)), ic.InterconnectType)
		}
		if f.err != nil {
			return operations.Start{}, f.err
		}
		if err := s.fixedMembers("Interconnect", s.renderInterconnect(ctx, tx, ic), b, interconnectPatchable...); err != nil {
			return operations.Start{}, err
		}
		next := ic
		setIf(&next.Description, b.Description)
		setIf(&next.AdminEnabled, b.AdminEnabled)
		setIf(&next.NocContactEmail, b.NocContactEmail)
		setIf(&next.CustomerName, b.CustomerName)
		setIf(&next.MacsecEnabled, b.MacsecEnabled)
		setIf(&next.AAIEnabled, b.AaiEnabled)
		if b.Macsec != nil {
			next.Macsec = keepJSON(b.Macsec)
		}
		if b.ApplicationAwareInterconnect != nil {
			next.ApplicationAwareInterconnect = keepJSON(b.ApplicationAwareInterconnect)
		}
		if next.MacsecEnabled && len(next.Macsec) == 0 {
			return operations.Start{}, invalidField("resource.macsecEnabled", "Invalid value for field 'resource.macsecEnabled': 'true'. MACsec cannot be enabled without a macsec configuration.")
		}
		if b.RequestedLinkCount > 0 {
			next.RequestedLinkCount = int(b.RequestedLinkCount)
		}
		if labelsSent && !maps.Equal(labels, ic.Labels) {
			if len(b.LabelFingerprint) > 0 && !bytes.Equal(b.LabelFingerprint, labelFingerprint(ic.Labels, ic.LabelGeneration)) {
				return operations.Start{}, staleLabels()
			}
			next.Labels, next.LabelGeneration = labels, ic.LabelGeneration+1
		}
		if err := s.putInterconnectIfChanged(tx, ic, next); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "patch", Done: true, TargetLink: s.link(ctx, interconnectPath(ic.Project, ic.Name)), TargetID: ic.ID}, nil
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

// interconnectPatchable are the members an interconnect's patch changes (labels aside):
// the configuration of the connection, as the real service lets it be updated in place.
// name, location, linkType and interconnectType are checked above; params is input only.
var interconnectPatchable = []string{"name", "location", "linkType", "interconnectType", "labels", "labelFingerprint", "params", "description", "adminEnabled", "nocContactEmail", "customerName", "requestedLinkCount",
	"macsecEnabled", "macsec", "aaiEnabled", "applicationAwareInterconnect"}

// putInterconnectIfChanged stores next, with a new generation, when it differs from ic.
func (s *Server) putInterconnectIfChanged(tx *store.Tx, ic, next Interconnect) error {
	if reflect.DeepEqual(ic, next) {
		return nil
	}
	next.Generation = ic.Generation + 1
	return s.tables.Interconnects.Put(tx, next.Key(), next)
}

func setIf[T any](field *T, sent *T) {
	if sent != nil {
		*field = *sent
	}
}

// InterconnectsSetLabels replaces an interconnect's labels, as setLabels of a rule does.
func (s *Server) InterconnectsSetLabels(ctx context.Context, req gen.InterconnectsSetLabelsRequestObject) (gen.InterconnectsSetLabelsResponseObject, error) {
	labels := map[string]string(deref(req.Body.Labels))
	if labels == nil {
		labels = map[string]string{}
	}
	if err := validateLabels(labels); err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", "", func(tx *store.Tx) (operations.Start, error) {
		ic, err := s.changeableInterconnect(tx, req.Project, req.Resource)
		if err != nil {
			return operations.Start{}, err
		}
		if err := checkLabelFingerprint(req.Body.LabelFingerprint, ic.Labels, ic.LabelGeneration); err != nil {
			return operations.Start{}, err
		}
		ic.Labels, ic.LabelGeneration, ic.Generation = labels, ic.LabelGeneration+1, ic.Generation+1
		if err := s.tables.Interconnects.Put(tx, ic.Key(), ic); err != nil {
			return operations.Start{}, err
		}
		return operations.Start{OperationType: "setLabels", Done: true, TargetLink: s.link(ctx, interconnectPath(ic.Project, ic.Name)), TargetID: ic.ID}, nil
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
		ic, err := s.changeableInterconnect(tx, req.Project, req.Interconnect)
		if err != nil {
			return operations.Start{}, err
		}
		if cur := deref(req.Body.CurrentName); cur != "" && cur != ic.Name {
			return operations.Start{}, invalidField("currentName", fmt.Sprintf("Invalid value for field 'currentName': '%s'. The interconnect's name is '%s'.", cur, ic.Name))
		}
		start := operations.Start{OperationType: "setName", Done: true, TargetLink: s.link(ctx, interconnectPath(ic.Project, name)), TargetID: ic.ID}
		if name == ic.Name {
			return start, nil
		}
		if _, taken := s.tables.Interconnects.Get(tx, ic.Project+"|"+name); taken {
			return operations.Start{}, alreadyExists(interconnectPath(ic.Project, name))
		}
		return start, s.rename(tx, ic, name)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectsSetName200JSONResponse(s.renderOperation(ctx, op)), nil
}

// rename moves ic to name, with the attachments on it and the groups that hold it.
func (s *Server) rename(tx *store.Tx, ic Interconnect, name string) error {
	users := s.attachmentsOn(tx, ic)
	if _, _, err := s.tables.Interconnects.Delete(tx, ic.Key()); err != nil {
		return err
	}
	old := ic.Name
	ic.Name, ic.Generation = name, ic.Generation+1
	if err := s.tables.Interconnects.Put(tx, ic.Key(), ic); err != nil {
		return err
	}
	for _, a := range users {
		a.Interconnect, a.Generation = name, a.Generation+1
		if err := s.tables.Attachments.Put(tx, a.Key(), a); err != nil {
			return err
		}
	}
	for _, g := range s.interconnectGroupsOf(tx, ic.Project, old) {
		for k, v := range g.Interconnects {
			if v == old {
				g.Interconnects[k] = name
			}
		}
		g.Generation++
		if err := s.tables.InterconnectGroups.Put(tx, g.Key(), g); err != nil {
			return err
		}
	}
	return nil
}
