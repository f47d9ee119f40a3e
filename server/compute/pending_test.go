package compute_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// TestDeletingAnUnfinishedOperation: operations.delete forgets the record, not the work. An
// insert whose operation is deleted before it is DONE still creates its resource (it once
// left the name taken by a rule nobody could read or delete until a reset), and a deleted
// delete still deletes.
func TestDeletingAnUnfinishedOperation(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{Delay: time.Second})
	c := apiClient(t, srv, "ops@example.com")

	ins := apiInsert(t, c, "fr-ghost", nil, nil).JSON200
	if *ins.Status == "DONE" {
		t.Fatal("the insert finished at accept")
	}
	if d, _ := c.GlobalOperationsDeleteWithResponse(apiCtx, apiProject, *ins.Name, nil); d.StatusCode() != 204 {
		t.Fatalf("delete operation: %d %s", d.StatusCode(), d.Body)
	}
	if r := apiGetRule(t, c, "fr-ghost"); r.StatusCode() != 200 {
		t.Fatalf("the rule of a deleted insert operation: %d %s", r.StatusCode(), r.Body)
	}
	again := apiInsert(t, c, "fr-ghost", nil, nil)
	wantGoogleError(t, again.StatusCode(), again.Body, 409, "alreadyExists")

	del, _ := c.GlobalForwardingRulesDeleteWithResponse(apiCtx, apiProject, "fr-ghost", nil)
	if del.StatusCode() != 200 || *del.JSON200.Status == "DONE" {
		t.Fatalf("delete rule: %s", del.Body)
	}
	if d, _ := c.GlobalOperationsDeleteWithResponse(apiCtx, apiProject, *del.JSON200.Name, nil); d.StatusCode() != 204 {
		t.Fatalf("delete operation: %d %s", d.StatusCode(), d.Body)
	}
	r := apiGetRule(t, c, "fr-ghost")
	wantGoogleError(t, r.StatusCode(), r.Body, 404, "notFound")
	clk.Advance(2 * time.Second)
	if ok := apiInsert(t, c, "fr-ghost", nil, nil); ok.StatusCode() != 200 {
		t.Errorf("the name after its rule was deleted: %s", ok.Body)
	}
}

// TestAResourceBeingDeleted: between a delete's accept and its DONE the resource is still
// readable, but nothing may change it, delete it again or start using it: the real service
// answers 400 resourceNotReady. (Two deletes were once both accepted, and an attachment
// whose delete was running could join a group, which then held an attachment that no
// longer existed.)
func TestAResourceBeingDeleted(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{Delay: time.Second})
	c := apiClient(t, srv, "ops@example.com")
	url := func(path string) string { return srv.URL + "/compute/v1/projects/" + apiProject + "/" + path }
	ok := func(status int, body []byte, what string) {
		t.Helper()
		if status != 200 {
			t.Fatalf("%s: %d %s", what, status, body)
		}
	}

	apiInsert(t, c, "fr-1", nil, nil)
	icURL := url("global/interconnects/ic-1")
	ic, _ := c.InterconnectsInsertWithResponse(apiCtx, apiProject, nil, gen.Interconnect{Name: "ic-1", Location: url("global/interconnectLocations/iad-zone1-1"),
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"})
	ok(ic.StatusCode(), ic.Body, "interconnect")
	ic2, _ := c.InterconnectsInsertWithResponse(apiCtx, apiProject, nil, gen.Interconnect{Name: "ic-2", Location: url("global/interconnectLocations/iad-zone2-1"),
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"})
	ok(ic2.StatusCode(), ic2.Body, "interconnect")
	clk.Advance(2 * time.Second)
	att, _ := c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, "us-east4", nil, gen.InterconnectAttachment{Name: "att-1", Interconnect: &icURL})
	ok(att.StatusCode(), att.Body, "attachment")
	grp, _ := c.InterconnectAttachmentGroupsInsertWithResponse(apiCtx, apiProject, nil, gen.InterconnectAttachmentGroup{Name: "g-1",
		Intent: gen.InterconnectAttachmentGroupIntent{AvailabilitySla: "NO_SLA"}})
	ok(grp.StatusCode(), grp.Body, "group")
	clk.Advance(2 * time.Second)

	// The deletes are accepted; their operations run for a second.
	d1, _ := c.GlobalForwardingRulesDeleteWithResponse(apiCtx, apiProject, "fr-1", nil)
	ok(d1.StatusCode(), d1.Body, "delete rule")
	d2, _ := c.InterconnectAttachmentsDeleteWithResponse(apiCtx, apiProject, "us-east4", "att-1", nil)
	ok(d2.StatusCode(), d2.Body, "delete attachment")
	d3, _ := c.InterconnectAttachmentGroupsDeleteWithResponse(apiCtx, apiProject, "g-1", nil)
	ok(d3.StatusCode(), d3.Body, "delete group")
	d4, _ := c.InterconnectsDeleteWithResponse(apiCtx, apiProject, "ic-2", nil)
	ok(d4.StatusCode(), d4.Body, "delete interconnect")

	if r := apiGetRule(t, c, "fr-1"); r.StatusCode() != 200 {
		t.Errorf("a rule being deleted is still readable: %d", r.StatusCode())
	}
	rule := apiGetRule(t, c, "fr-1").JSON200
	refused := map[string]func() (int, []byte){
		"the rule deleted again": func() (int, []byte) {
			r, _ := c.GlobalForwardingRulesDeleteWithResponse(apiCtx, apiProject, "fr-1", nil)
			return r.StatusCode(), r.Body
		},
		"the rule's labels set": func() (int, []byte) {
			r, _ := c.GlobalForwardingRulesSetLabelsWithResponse(apiCtx, apiProject, "fr-1", nil,
				gen.GlobalSetLabelsRequest{LabelFingerprint: rule.LabelFingerprint, Labels: &gen.Labels{"env": "prod"}})
			return r.StatusCode(), r.Body
		},
		"the attachment deleted again": func() (int, []byte) {
			r, _ := c.InterconnectAttachmentsDeleteWithResponse(apiCtx, apiProject, "us-east4", "att-1", nil)
			return r.StatusCode(), r.Body
		},
		"the group deleted again": func() (int, []byte) {
			r, _ := c.InterconnectAttachmentGroupsDeleteWithResponse(apiCtx, apiProject, "g-1", nil)
			return r.StatusCode(), r.Body
		},
		"the group patched": func() (int, []byte) {
			r, _ := c.InterconnectAttachmentGroupsPatchWithResponse(apiCtx, apiProject, "g-1", nil,
				gen.InterconnectAttachmentGroupPatch{Description: set("new")})
			return r.StatusCode(), r.Body
		},
		"the interconnect deleted again": func() (int, []byte) {
			r, _ := c.InterconnectsDeleteWithResponse(apiCtx, apiProject, "ic-2", nil)
			return r.StatusCode(), r.Body
		},
		"an attachment put on the interconnect": func() (int, []byte) {
			u := url("global/interconnects/ic-2")
			r, _ := c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, "us-east4", nil, gen.InterconnectAttachment{Name: "att-2", Interconnect: &u})
			return r.StatusCode(), r.Body
		},
	}
	for what, call := range refused {
		t.Run(what, func(t *testing.T) {
			status, body := call()
			e := wantGoogleError(t, status, body, 400, "resourceNotReady")
			if e.Message == "" {
				t.Error("no message")
			}
		})
	}
	t.Run("a group taking the attachment fails inside its operation", func(t *testing.T) {
		u := url("regions/us-east4/interconnectAttachments/att-1")
		r, _ := c.InterconnectAttachmentGroupsInsertWithResponse(apiCtx, apiProject, nil, gen.InterconnectAttachmentGroup{Name: "g-2",
			Intent:      gen.InterconnectAttachmentGroupIntent{AvailabilitySla: "NO_SLA"},
			Attachments: map[string]gen.InterconnectAttachmentGroupAttachment{"a": {Attachment: &u}}})
		ok(r.StatusCode(), r.Body, "group insert")
		clk.Advance(2 * time.Second)
		op := apiGetOp(t, c, *r.JSON200.Name)
		if op.Error == nil || len(op.Error.Errors) == 0 || op.Error.Errors[0].Code != "RESOURCE_NOT_READY" {
			t.Fatalf("operation: %+v", op)
		}
		g, _ := c.InterconnectAttachmentGroupsGetWithResponse(apiCtx, apiProject, "g-2", nil)
		wantGoogleError(t, g.StatusCode(), g.Body, 404, "notFound")
	})

	// Once the deletes are DONE, everything is gone and nothing refers to it.
	clk.Advance(2 * time.Second)
	for _, op := range []*gen.Operation{d1.JSON200, d3.JSON200, d4.JSON200} {
		if o := apiGetOp(t, c, *op.Name); *o.Status != "DONE" || o.Error != nil {
			t.Errorf("%s: %s %+v", *o.Name, *o.Status, o.Error)
		}
	}
	if o, _ := c.RegionOperationsGetWithResponse(apiCtx, apiProject, "us-east4", *d2.JSON200.Name, nil); o.StatusCode() != 200 || *o.JSON200.Status != "DONE" {
		t.Errorf("the attachment's delete: %s", o.Body)
	}
	for what, status := range map[string]int{
		"attachment":   mustStatus(c.InterconnectAttachmentsGetWithResponse(apiCtx, apiProject, "us-east4", "att-1", nil)),
		"group":        mustStatus(c.InterconnectAttachmentGroupsGetWithResponse(apiCtx, apiProject, "g-1", nil)),
		"interconnect": mustStatus(c.InterconnectsGetWithResponse(apiCtx, apiProject, "ic-2", nil)),
	} {
		if status != 404 {
			t.Errorf("the deleted %s: %d", what, status)
		}
	}
	r := apiGetRule(t, c, "fr-1")
	wantGoogleError(t, r.StatusCode(), r.Body, 404, "notFound")
}

// TestStartTimeDoesNotMove: a timed operation shows the same startTime while it runs and
// once it is DONE (it once became the end time at DONE).
func TestStartTimeDoesNotMove(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{Delay: 400 * time.Millisecond})
	c := apiClient(t, srv, "ops@example.com")
	op := apiInsert(t, c, "fr-1", nil, nil).JSON200
	clk.Advance(200 * time.Millisecond)
	running := apiGetOp(t, c, *op.Name)
	if *running.Status != "RUNNING" || running.StartTime == nil {
		t.Fatalf("after half the delay: %s, startTime %v", *running.Status, running.StartTime)
	}
	clk.Advance(time.Second)
	done := apiGetOp(t, c, *op.Name)
	if *done.Status != "DONE" || done.StartTime == nil || *done.StartTime != *running.StartTime {
		t.Errorf("startTime %v while running, %v when DONE", *running.StartTime, done.StartTime)
	}
	if *done.EndTime == *done.StartTime {
		t.Errorf("endTime = startTime = %s", *done.EndTime)
	}
}

func mustStatus[R interface{ StatusCode() int }](r R, err error) int {
	if err != nil {
		return -1
	}
	return r.StatusCode()
}

// TestRequestIDsAreKeptPerScope: a requestId used by a regional operation does not answer a
// global method with that regional operation (the client would then wait for it among the
// global operations and get 404); each scope keeps its own.
func TestRequestIDsAreKeptPerScope(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-1", "iad-zone1-1")
	id := uuid.NewString()
	ic := w.url("global/interconnects/ic-1")
	att, err := w.c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, "us-east4", &gen.InterconnectAttachmentsInsertParams{RequestId: &id},
		gen.InterconnectAttachment{Name: "att-1", Interconnect: &ic})
	if err != nil || att.StatusCode() != 200 || att.JSON200.Region == nil {
		t.Fatalf("attachment: %v %s", err, att.Body)
	}
	rule := apiInsert(t, w.c, "fr-1", &id, nil)
	if rule.StatusCode() != 200 || rule.JSON200.Region != nil || *rule.JSON200.Name == *att.JSON200.Name || *rule.JSON200.OperationType != "insert" {
		t.Fatalf("a global insert with a regional operation's requestId: %s", rule.Body)
	}
	if r := apiGetRule(t, w.c, "fr-1"); r.StatusCode() != 200 {
		t.Errorf("the rule was not created: %d", r.StatusCode())
	}
	// Within a scope, the requestId still returns the original operation.
	again := apiInsert(t, w.c, "fr-2", &id, nil)
	if again.StatusCode() != 200 || *again.JSON200.Name != *rule.JSON200.Name {
		t.Errorf("a retry in the same scope: %s", again.Body)
	}
}

// TestNameErrorsInTheRealServicesWords: a name the spec's rule refuses gets the real
// service's message, quoting the name (compute.md), over HTTP, where the validator answers
// before the handler's own check would (it once answered "string doesn't match the regular
// expression ..." and "minimum string length is 1").
func TestNameErrorsInTheRealServicesWords(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "ops@example.com")
	long := strings.Repeat("a", 64)
	for name, want := range map[string]string{
		"BAD": "Invalid value for field 'resource.name': 'BAD'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'",
		"a-":  "Invalid value for field 'resource.name': 'a-'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'",
		long:  "Invalid value for field 'resource.name': '" + long + "'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'",
		"":    "Required field 'resource.name' not specified",
		// Too long, or not printable, to be quoted back.
		strings.Repeat("a", 300): "Invalid value for field 'resource.name'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'",
		`a\u0001b`:               "Invalid value for field 'resource.name'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'",
	} {
		r, err := c.GlobalForwardingRulesInsertWithBodyWithResponse(apiCtx, apiProject, nil, "application/json", strings.NewReader(`{"name":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		reason := "invalid"
		if name == "" {
			reason = "required"
		}
		if e := wantGoogleError(t, r.StatusCode(), r.Body, 400, reason); e.Message != want || e.Errors[0].Location != "resource.name" {
			t.Errorf("%q: %q at %s, want %q", name, e.Message, e.Errors[0].Location, want)
		}
	}
}

// TestPathNamesInTheRealServicesWords: a name in the path that its rule refuses is quoted
// with the rule, as the real service words it, rather than in the validator's terms.
func TestPathNamesInTheRealServicesWords(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "ops@example.com")
	r := apiGetRule(t, c, "BAD")
	e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")
	if !strings.HasPrefix(e.Message, "Invalid value for field 'forwardingRule': 'BAD'. Must be a match of regex '") || e.Errors[0].Location != "forwardingRule" {
		t.Errorf("%q at %q", e.Message, e.Errors[0].Location)
	}
	// Not printable: the same words, without the value.
	for _, name := range []string{"fr\x00x", "fr\xffx"} {
		r := apiGetRule(t, c, name)
		e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")
		if !strings.HasPrefix(e.Message, "Invalid value for field 'forwardingRule'. Must be a match of regex '") {
			t.Errorf("%q: %q", name, e.Message)
		}
	}
}
