package compute

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

// maskFields maps the updateMask paths we accept (camelCase and snake_case) to a field.
var maskFields = map[string]string{
	"description": "description", "intent": "intent", "intent.availabilitySla": "intent", "intent.availability_sla": "intent",
	"attachments": "attachments", "interconnectGroup": "interconnectGroup", "interconnect_group": "interconnectGroup",
}

// InterconnectAttachmentGroupsPatch changes a group. Without updateMask it is a merge patch
// (fields present replace the current ones; attachments merge key by key, and a key given
// as null is removed); with updateMask the listed fields are set from the body,
// or cleared when the body lacks them. A given etag must be current (412 conditionNotMet).
// The change is decided and applied at accept and its operation comes back DONE; attachment
// failures end it with errors and change nothing.
func (s *Server) InterconnectAttachmentGroupsPatch(ctx context.Context, req gen.InterconnectAttachmentGroupsPatchRequestObject) (gen.InterconnectAttachmentGroupsPatchResponseObject, error) {
	requestID, err := checkRequestID(req.Params.RequestId)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	mask, err := parseUpdateMask(deref(req.Params.UpdateMask))
	if err != nil {
		return nil, err
	}
	// With updateMask, the body's members it does not list are ignored, valid or not.
	changes := func(field string) bool { return len(mask) == 0 || mask[field] }
	if changes("intent") {
		if intent, err := b.Intent.Get(); err == nil {
			if err := checkIntent(string(intent.AvailabilitySla)); err != nil {
				return nil, err
			}
		} else if mask["intent"] || b.Intent.IsNull() {
			return nil, &Error{Status: http.StatusBadRequest, Reason: "required", Message: "Required field 'resource.intent' not specified", Location: "resource.intent"}
		}
	}
	// As a merge patch (RFC 7386) has it, an entry given as null is removed (Google's Go
	// client sends one for a key in NullFields), and one given as {} merges nothing into the
	// entry already there: without an attachment it can only name an entry the group has.
	present := map[string]gen.InterconnectAttachmentGroupAttachment{}
	var removed, blank []string
	sent := given(b.Attachments)
	if !changes("attachments") {
		sent = nil
	}
	for k, v := range sent {
		switch {
		case v == nil:
			removed = append(removed, k)
		case v.Attachment == nil:
			blank = append(blank, k)
		case *v.Attachment == "":
			return nil, attachmentRequired(k) // as insert answers it
		default:
			present[k] = *v
		}
	}
	urls, err := attachmentURLs(req.Project, present)
	if err != nil {
		return nil, err
	}
	op, err := s.mutate(ctx, req.Project, "", requestID, func(tx *store.Tx) (operations.Start, error) {
		rec, err := s.changeableGroup(tx, req.Project, req.InterconnectAttachmentGroup)
		if err != nil {
			return operations.Start{}, err
		}
		g := rec.Group
		path := *g.SelfLink
		// Compared with the group found, which the path may name by its number.
		if name := given(b.Name); name != "" && name != g.Name {
			return operations.Start{}, invalidField("resource.name", fmt.Sprintf("Invalid value for field 'resource.name': '%s'. The name of a group cannot change.", name))
		}
		if err := checkBlankEntries(g, blank, mask); err != nil {
			return operations.Start{}, err
		}
		if e := given(b.Etag); e != "" && e != s.groupEtag(tx, g) {
			return operations.Start{}, &Error{Status: http.StatusPreconditionFailed, Reason: "conditionNotMet",
				Message: "Etag either invalid or resource has changed", Location: "resource.etag"}
		}
		start := operations.Start{OperationType: "patch", Done: true, TargetLink: path, TargetID: *g.Id}
		previous := heldBy(g)
		next := g
		applyScalars(&next, b, mask)
		held, failure := s.checkAttachments(tx, req.Project, g.Name, mergeAttachments(previous, urls, removed, mask, b.Attachments.IsNull()))
		if failure != nil {
			start.Failure = failure
			return start, nil
		}
		next.Attachments, next.Etag = attachmentEntries(held), nextEtag(g.Etag)
		if err := s.claim(tx, path, held, previous); err != nil {
			return start, err
		}
		rec.Group = next
		return start, s.tables.groups.Put(tx, path, rec)
	})
	if err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentGroupsPatch200JSONResponse(s.renderOperation(ctx, op)), nil
}

// checkBlankEntries refuses attachment entries without an attachment that would not leave
// an entry of g as it is: a new key, or any key when updateMask replaces the whole map.
func checkBlankEntries(g gen.InterconnectAttachmentGroup, blank []string, mask map[string]bool) error {
	if len(mask) > 0 && !mask["attachments"] {
		return nil // the mask leaves attachments alone
	}
	for _, k := range blank {
		if _, kept := g.Attachments[k]; !kept || mask["attachments"] {
			return attachmentRequired(k)
		}
	}
	return nil
}

// attachmentRequired is the error for an attachments entry under key k without an
// attachment.
func attachmentRequired(k string) *Error {
	quoted := strconv.Quote(k) // the key as JSON would escape it, whatever it holds
	field := "resource.attachments." + quoted[1:len(quoted)-1] + ".attachment"
	return &Error{Status: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", field), Location: field}
}

func parseUpdateMask(s string) (map[string]bool, error) {
	mask := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		f, ok := maskFields[p]
		if !ok {
			return nil, invalidField("updateMask", fmt.Sprintf("Invalid value for field 'updateMask': '%s'. Updatable fields are description, intent, attachments and interconnectGroup.", p))
		}
		mask[f] = true
	}
	return mask, nil
}

// mergeAttachments is the group's attachment map after a patch; cleared says the patch
// gave attachments as null.
func mergeAttachments(current, sent map[string]string, removed []string, mask map[string]bool, cleared bool) map[string]string {
	if mask["attachments"] || cleared && len(mask) == 0 {
		out := map[string]string{}
		for k, v := range sent {
			out[k] = v
		}
		return out
	}
	if len(mask) > 0 {
		return current // a mask that does not name attachments leaves them alone
	}
	out := map[string]string{}
	for k, v := range current {
		out[k] = v
	}
	for k, v := range sent {
		out[k] = v
	}
	for _, k := range removed {
		delete(out, k)
	}
	return out
}

// applyScalars sets description, intent and interconnectGroup from a patch body.
func applyScalars(g *gen.InterconnectAttachmentGroup, b gen.InterconnectAttachmentGroupPatch, mask map[string]bool) {
	set := func(field string, present bool) bool {
		if len(mask) > 0 {
			return mask[field]
		}
		return present
	}
	if set("description", b.Description.IsSpecified()) {
		g.Description = optional(given(b.Description))
	}
	if intent, err := b.Intent.Get(); set("intent", b.Intent.IsSpecified()) && err == nil {
		g.Intent = intent
	}
	if set("interconnectGroup", b.InterconnectGroup.IsSpecified()) {
		g.InterconnectGroup = optional(given(b.InterconnectGroup))
	}
}

// given is a patch member's value: the zero value when it is absent or null (a null
// member clears the field, as RFC 7386 has it).
func given[T any](n nullable.Nullable[T]) T {
	v, _ := n.Get()
	return v
}
