package compute_test

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/understudytest"
)

// world builds interconnects and attachments in an immediate-mode server and returns URLs.
type world struct {
	t   *testing.T
	srv *understudytest.Server
	c   *gen.ClientWithResponses
}

func newWorld(t *testing.T, mode operations.Mode) *world {
	srv, _ := apiServer(t, mode)
	return &world{t: t, srv: srv, c: apiClient(t, srv, "net@example.com")}
}

func (w *world) url(path string) string {
	return w.srv.URL + "/compute/v1/projects/" + apiProject + "/" + path
}

// raw sends body (JSON, when not empty) to path under the world's project as any caller
// would, without the generated client, and returns the status and body.
func (w *world) raw(method, path, body string) (int, []byte) {
	w.t.Helper()
	req, _ := http.NewRequest(method, w.url(path), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer t")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (w *world) interconnect(name, location string) {
	w.t.Helper()
	resp, err := w.c.InterconnectsInsertWithResponse(apiCtx, apiProject, nil, gen.Interconnect{Name: name, Location: w.url("global/interconnectLocations/" + location),
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"})
	if err != nil || resp.StatusCode() != 200 || *resp.JSON200.Status != "DONE" {
		w.t.Fatalf("interconnect %s: %v %s", name, err, resp.Body)
	}
}

func (w *world) attachment(region, name, interconnect string, adminEnabled bool) string {
	w.t.Helper()
	ic := w.url("global/interconnects/" + interconnect)
	resp, err := w.c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, region, nil, gen.InterconnectAttachment{Name: name, Interconnect: &ic, AdminEnabled: &adminEnabled})
	if err != nil || resp.StatusCode() != 200 || *resp.JSON200.Status != "DONE" {
		w.t.Fatalf("attachment %s: %v %s", name, err, resp.Body)
	}
	return w.url("regions/" + region + "/interconnectAttachments/" + name)
}

func (w *world) insertGroup(name, intent string, urls ...string) gen.Operation {
	w.t.Helper()
	atts := map[string]gen.InterconnectAttachmentGroupAttachment{}
	for i, u := range urls {
		u := u
		atts[fmt.Sprintf("a%d", i)] = gen.InterconnectAttachmentGroupAttachment{Attachment: &u}
	}
	resp, err := w.c.InterconnectAttachmentGroupsInsertWithResponse(apiCtx, apiProject, nil, gen.InterconnectAttachmentGroup{
		Name: name, Intent: gen.InterconnectAttachmentGroupIntent{AvailabilitySla: gen.InterconnectAttachmentGroupIntentAvailabilitySla(intent)}, Attachments: atts})
	if err != nil || resp.StatusCode() != 200 {
		w.t.Fatalf("group %s: %v %s", name, err, resp.Body)
	}
	return *resp.JSON200
}

func (w *world) group(name string) (*gen.InterconnectAttachmentGroupsGetResponse, error) {
	return w.c.InterconnectAttachmentGroupsGetWithResponse(apiCtx, apiProject, name, nil)
}

// standard builds two complete metros in two regions: iad (us-east4) and sjc (us-west1).
func (w *world) standard() map[string]string {
	w.interconnect("ic-iad-1", "iad-zone1-1")
	w.interconnect("ic-iad-2", "iad-zone2-1")
	w.interconnect("ic-sjc-1", "sjc-zone1-6")
	w.interconnect("ic-sjc-2", "sjc-zone2-6")
	return map[string]string{
		"iad1": w.attachment("us-east4", "att-iad-1", "ic-iad-1", true),
		"iad2": w.attachment("us-east4", "att-iad-2", "ic-iad-2", true),
		"sjc1": w.attachment("us-west1", "att-sjc-1", "ic-sjc-1", true),
		"sjc2": w.attachment("us-west1", "att-sjc-2", "ic-sjc-2", true),
	}
}

func TestLocationCatalog(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	resp, err := w.c.InterconnectLocationsListWithResponse(apiCtx, apiProject, nil)
	if err != nil || resp.StatusCode() != 200 {
		t.Fatal(err, string(resp.Body))
	}
	zones := map[string]map[string]bool{}
	for _, l := range resp.JSON200.Items {
		metro := strings.SplitN(*l.Name, "-", 2)[0]
		if zones[metro] == nil {
			zones[metro] = map[string]bool{}
		}
		zones[metro][*l.AvailabilityZone] = true
	}
	complete := 0
	for _, z := range zones {
		if z["zone1"] && z["zone2"] {
			complete++
		}
	}
	if complete < 4 {
		t.Errorf("%d metros with both zones, want at least 4: %v", complete, zones)
	}
	one, _ := w.c.InterconnectLocationsGetWithResponse(apiCtx, apiProject, "fra-zone2-4", nil)
	if one.StatusCode() != 200 || *one.JSON200.City != "Frankfurt" || len(one.JSON200.RegionInfos) == 0 {
		t.Errorf("get: %s", one.Body)
	}
	missing, _ := w.c.InterconnectLocationsGetWithResponse(apiCtx, apiProject, "xyz-zone1-1", nil)
	wantGoogleError(t, missing.StatusCode(), missing.Body, 404, "notFound")
}

func TestInterconnectAndAttachmentRules(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-a", "lax-zone1-8")
	ic := w.url("global/interconnects/ic-a")
	attach := func(a gen.InterconnectAttachment) *gen.InterconnectAttachmentsInsertResponse {
		resp, err := w.c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, "us-west2", nil, a)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	vlan := int32(100)
	ok := attach(gen.InterconnectAttachment{Name: "att-1", Interconnect: &ic, VlanTag8021q: &vlan})
	if ok.StatusCode() != 200 {
		t.Fatal(string(ok.Body))
	}
	got, _ := w.c.InterconnectAttachmentsGetWithResponse(apiCtx, apiProject, "us-west2", "att-1", nil)
	if got.StatusCode() != 200 || *got.JSON200.EdgeAvailabilityDomain != "AVAILABILITY_DOMAIN_1" || *got.JSON200.VlanTag8021q != 100 ||
		*got.JSON200.Mtu != 1440 || *got.JSON200.Type != "DEDICATED" || !strings.HasSuffix(*got.JSON200.Interconnect, "/global/interconnects/ic-a") {
		t.Fatalf("attachment: %s", got.Body)
	}
	partner, badMTU := gen.InterconnectAttachmentType("PARTNER"), int32(9000)
	otherProject := strings.Replace(ic, apiProject, "other-project-1", 1)
	tests := []struct {
		name   string
		a      gen.InterconnectAttachment
		status int
		reason string
	}{
		{"VLAN tag taken", gen.InterconnectAttachment{Name: "att-2", Interconnect: &ic, VlanTag8021q: &vlan}, 400, "invalid"},
		{"a PARTNER attachment's interconnect is its partner's", gen.InterconnectAttachment{Name: "att-2", Interconnect: &ic, Type: &partner}, 400, "invalid"},
		{"no interconnect", gen.InterconnectAttachment{Name: "att-2"}, 400, "required"},
		{"unknown interconnect", gen.InterconnectAttachment{Name: "att-2", Interconnect: ptr(w.url("global/interconnects/nope"))}, 404, "notFound"},
		{"another project's interconnect", gen.InterconnectAttachment{Name: "att-2", Interconnect: &otherProject}, 400, "invalid"},
		{"unsupported MTU", gen.InterconnectAttachment{Name: "att-2", Interconnect: &ic, Mtu: &badMTU}, 400, "invalid"},
		{"name taken", gen.InterconnectAttachment{Name: "att-1", Interconnect: &ic}, 409, "alreadyExists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := attach(tt.a)
			wantGoogleError(t, r.StatusCode(), r.Body, tt.status, tt.reason)
		})
	}
	t.Run("only in a region the interconnect's location serves", func(t *testing.T) {
		for _, region := range []string{"europe-west3", "mars-north1"} {
			r, err := w.c.InterconnectAttachmentsInsertWithResponse(apiCtx, apiProject, region, nil, gen.InterconnectAttachment{Name: "att-far", Interconnect: &ic})
			if err != nil {
				t.Fatal(err)
			}
			e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")
			if e.Errors[0].Location != "resource.interconnect" || !strings.Contains(e.Message, region) {
				t.Errorf("%s: %+v", region, e)
			}
		}
	})
	t.Run("the lowest free VLAN tag is picked", func(t *testing.T) {
		attach(gen.InterconnectAttachment{Name: "att-3", Interconnect: &ic})
		r, _ := w.c.InterconnectAttachmentsGetWithResponse(apiCtx, apiProject, "us-west2", "att-3", nil)
		if *r.JSON200.VlanTag8021q != 2 {
			t.Errorf("vlan = %d, want 2", *r.JSON200.VlanTag8021q)
		}
	})
	t.Run("an interconnect at an unknown location", func(t *testing.T) {
		r, _ := w.c.InterconnectsInsertWithResponse(apiCtx, apiProject, nil, gen.Interconnect{Name: "ic-x", Location: w.url("global/interconnectLocations/xyz-zone1-1"),
			LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"})
		wantGoogleError(t, r.StatusCode(), r.Body, 404, "notFound")
	})
	t.Run("an interconnect with attachments cannot be deleted", func(t *testing.T) {
		r, _ := w.c.InterconnectsDeleteWithResponse(apiCtx, apiProject, "ic-a", nil)
		wantGoogleError(t, r.StatusCode(), r.Body, 400, "resourceInUseByAnotherResource")
		list, _ := w.c.InterconnectsGetWithResponse(apiCtx, apiProject, "ic-a", nil)
		if len(list.JSON200.InterconnectAttachments) != 2 {
			t.Errorf("interconnectAttachments = %v", list.JSON200.InterconnectAttachments)
		}
	})
}

func TestGroupFailuresEndInsideTheOperation(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	urls := w.standard()
	w.insertGroup("g-held", "NO_SLA", urls["iad1"])
	failing := func(name string, wantCode string, wantHTTP int32, urls ...string) gen.Operation {
		t.Helper()
		op := w.insertGroup(name, "PRODUCTION_CRITICAL", urls...)
		if *op.Status != "DONE" || op.Error == nil || op.Error.Errors[0].Code != wantCode || *op.HttpErrorStatusCode != wantHTTP || *op.HttpErrorMessage == "" {
			t.Fatalf("%s: operation %+v, want DONE with %s (%d)", name, op, wantCode, wantHTTP)
		}
		if g, _ := w.group(name); g.StatusCode() != 404 {
			t.Errorf("%s was created: %s", name, g.Body)
		}
		return op
	}
	failing("g-missing", "RESOURCE_NOT_FOUND", 404, urls["iad2"], w.url("regions/us-east4/interconnectAttachments/nope"))
	failing("g-taken", "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE", 400, urls["iad1"], urls["iad2"])
	// The same free attachment under two keys: the group would hold it twice.
	if op := failing("g-twice", "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE", 400, urls["iad2"], urls["iad2"]); !strings.Contains(*op.Error.Errors[0].Message, "interconnectAttachmentGroups/g-twice") {
		t.Errorf("g-twice: %s", *op.Error.Errors[0].Message)
	}
	// Again with one of the two keys empty (a map of holders keyed by the user's key once
	// let that through).
	u := urls["iad2"]
	resp, err := w.c.InterconnectAttachmentGroupsInsertWithResponse(apiCtx, apiProject, nil, gen.InterconnectAttachmentGroup{
		Name: "g-twice-empty", Intent: gen.InterconnectAttachmentGroupIntent{AvailabilitySla: "PRODUCTION_CRITICAL"},
		Attachments: map[string]gen.InterconnectAttachmentGroupAttachment{"": {Attachment: &u}, "b": {Attachment: &u}}})
	if err != nil || resp.JSON200 == nil || resp.JSON200.Error == nil || resp.JSON200.Error.Errors[0].Code != "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE" {
		t.Errorf("g-twice-empty: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	many := make([]string, 17)
	for i := range many {
		many[i] = w.url(fmt.Sprintf("regions/us-east4/interconnectAttachments/att-%d", i))
	}
	op := failing("g-quota", "QUOTA_EXCEEDED", 403, many...)
	d := op.Error.Errors[0].ErrorDetails
	if len(d) != 2 || d[1].QuotaInfo == nil || *d[1].QuotaInfo.Limit != 16 || *d[1].QuotaInfo.MetricName == "" || d[0].ErrorInfo == nil || *d[0].ErrorInfo.Reason != "QUOTA_EXCEEDED" {
		t.Errorf("quota details: %+v", d)
	}
	// A failed group claimed nothing: att-iad-2 is still free.
	if op := w.insertGroup("g-ok", "NO_SLA", urls["iad2"]); op.Error != nil {
		t.Errorf("att-iad-2 was left claimed by a failed group: %+v", op.Error)
	}
}

func TestGroupFailureInManualMode(t *testing.T) {
	w := newWorld(t, operations.Mode{Manual: true})
	op := w.insertGroup("g-missing", "NO_SLA", w.url("regions/us-east4/interconnectAttachments/nope"))
	if *op.Status != "PENDING" || op.Error != nil {
		t.Fatalf("accepted: %+v", op)
	}
	var seen []string
	for i := 0; i < 2; i++ {
		o := apiGetOp(t, w.c, *op.Name)
		seen = append(seen, string(*o.Status))
		if *o.Status != "DONE" && o.Error != nil {
			t.Error("the error showed before DONE")
		}
		if *o.Status == "DONE" && (o.Error == nil || o.Error.Errors[0].Code != "RESOURCE_NOT_FOUND") {
			t.Errorf("done without the failure: %+v", o)
		}
	}
	if strings.Join(seen, ",") != "RUNNING,DONE" {
		t.Errorf("states %v", seen)
	}
}

func TestRacingGroupsClaimAnAttachmentOnce(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	urls := w.standard()
	ops := make([]gen.Operation, 12)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range ops {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			ops[i] = w.insertGroup(fmt.Sprintf("g-%d", i), "NO_SLA", urls["sjc1"])
		}(i)
	}
	close(start)
	wg.Wait()
	won := 0
	for _, op := range ops {
		if op.Error == nil {
			won++
		} else if op.Error.Errors[0].Code != "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE" {
			t.Errorf("unexpected failure %s", op.Error.Errors[0].Code)
		}
	}
	if won != 1 {
		t.Fatalf("%d groups hold att-sjc-1, want exactly 1", won)
	}
}

func TestPatchEtagAndRecompute(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	urls := w.standard()
	w.insertGroup("g", "PRODUCTION_CRITICAL", urls["iad1"], urls["iad2"])
	g, _ := w.group("g")
	before := g.JSON200
	if *before.Configured.AvailabilitySla.EffectiveSla != "PRODUCTION_NON_CRITICAL" || len(before.Configured.AvailabilitySla.IntendedSlaBlockers) != 2 {
		t.Fatalf("iad only: %s", g.Body)
	}
	patch := func(body gen.InterconnectAttachmentGroupPatch, mask string) *gen.InterconnectAttachmentGroupsPatchResponse {
		params := &gen.InterconnectAttachmentGroupsPatchParams{}
		if mask != "" {
			params.UpdateMask = &mask
		}
		r, err := w.c.InterconnectAttachmentGroupsPatchWithResponse(apiCtx, apiProject, "g", params, body)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Merge patch: add the sjc attachments.
	sjc1, sjc2 := urls["sjc1"], urls["sjc2"]
	r := patch(gen.InterconnectAttachmentGroupPatch{Etag: set(*before.Etag), Attachments: set(map[string]*gen.InterconnectAttachmentGroupAttachment{
		"s1": {Attachment: &sjc1}, "s2": {Attachment: &sjc2}})}, "")
	if r.StatusCode() != 200 || *r.JSON200.Status != "DONE" || *r.JSON200.OperationType != "patch" || r.JSON200.Error != nil {
		t.Fatalf("patch: %s", r.Body)
	}
	g, _ = w.group("g")
	after := g.JSON200
	if *after.Configured.AvailabilitySla.EffectiveSla != "PRODUCTION_CRITICAL" || len(after.Configured.AvailabilitySla.IntendedSlaBlockers) != 0 ||
		len(after.Attachments) != 4 || len(after.LogicalStructure.Regions) != 2 || *after.Etag == *before.Etag {
		t.Fatalf("after adding sjc: %s", g.Body)
	}
	t.Run("a stale etag", func(t *testing.T) {
		r := patch(gen.InterconnectAttachmentGroupPatch{Etag: set(*before.Etag), Description: set("x")}, "")
		wantGoogleError(t, r.StatusCode(), r.Body, 412, "conditionNotMet")
	})
	t.Run("updateMask clears what the body lacks", func(t *testing.T) {
		patch(gen.InterconnectAttachmentGroupPatch{Description: set("two metros")}, "")
		r := patch(gen.InterconnectAttachmentGroupPatch{}, "description")
		if r.StatusCode() != 200 {
			t.Fatal(string(r.Body))
		}
		if g, _ := w.group("g"); g.JSON200.Description != nil {
			t.Errorf("description = %v, want cleared", *g.JSON200.Description)
		}
		bad := patch(gen.InterconnectAttachmentGroupPatch{}, "name")
		wantGoogleError(t, bad.StatusCode(), bad.Body, 400, "invalid")
	})
	t.Run("addressed by number, the body may carry the group's own name", func(t *testing.T) {
		g := mustGroup(t, w, "g")
		id := *g.Id
		r, err := w.c.InterconnectAttachmentGroupsPatchWithResponse(apiCtx, apiProject, id, nil, gen.InterconnectAttachmentGroupPatch{Name: set("g"), Description: set("by number")})
		if err != nil || r.StatusCode() != 200 || r.JSON200.Error != nil {
			t.Fatalf("patch by number with the group's name: %v %s", err, r.Body)
		}
		if d := mustGroup(t, w, "g").Description; d == nil || *d != "by number" {
			t.Errorf("description = %v, want the patch's", d)
		}
		r, _ = w.c.InterconnectAttachmentGroupsPatchWithResponse(apiCtx, apiProject, id, nil, gen.InterconnectAttachmentGroupPatch{Name: set(id)})
		wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")
	})
	t.Run("updateMask ignores the members it does not list, valid or not", func(t *testing.T) {
		etag := *mustGroup(t, w, "g").Etag
		bad := "not a url"
		for _, body := range []gen.InterconnectAttachmentGroupPatch{
			{Intent: nullable.NewNullNullable[gen.InterconnectAttachmentGroupIntent](), Description: set("masked")},
			{Intent: set(gen.InterconnectAttachmentGroupIntent{AvailabilitySla: "AVAILABILITY_SLA_UNSPECIFIED"}), Description: set("masked")},
			{Attachments: set(map[string]*gen.InterconnectAttachmentGroupAttachment{"x": {Attachment: &bad}}), Description: set("masked")},
		} {
			if r := patch(body, "description"); r.StatusCode() != 200 || r.JSON200.Error != nil {
				t.Errorf("%+v under updateMask=description: %s", body, r.Body)
			}
		}
		if g := mustGroup(t, w, "g"); *g.Etag == etag || len(g.Attachments) != 4 || g.Intent.AvailabilitySla != "PRODUCTION_CRITICAL" {
			t.Errorf("after the masked patches: %+v, want only the description changed", g)
		}
	})
	t.Run("merge patch: {} leaves an entry as it is, a new one needs an attachment", func(t *testing.T) {
		r := patch(gen.InterconnectAttachmentGroupPatch{Attachments: set(map[string]*gen.InterconnectAttachmentGroupAttachment{"s2": {}})}, "")
		if r.StatusCode() != 200 || r.JSON200.Error != nil {
			t.Fatal(string(r.Body))
		}
		if g := mustGroup(t, w, "g"); len(g.Attachments) != 4 {
			t.Errorf("after merging {} into s2: %d attachments", len(g.Attachments))
		}
		for _, mask := range []string{"", "attachments"} {
			r = patch(gen.InterconnectAttachmentGroupPatch{Attachments: set(map[string]*gen.InterconnectAttachmentGroupAttachment{"new": {}})}, mask)
			if e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "required"); e.Errors[0].Location != "resource.attachments.new.attachment" {
				t.Errorf("mask %q: %+v", mask, e)
			}
		}
		// An empty attachment is no attachment, as insert says, even for a key the group has.
		r = patch(gen.InterconnectAttachmentGroupPatch{Attachments: set(map[string]*gen.InterconnectAttachmentGroupAttachment{"s2": {Attachment: ptr("")}})}, "")
		if e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "required"); e.Errors[0].Location != "resource.attachments.s2.attachment" {
			t.Errorf("empty attachment: %+v", e)
		}
	})
	t.Run("a bad value inside an entry is named, in plain words", func(t *testing.T) {
		for body, at := range map[string]string{
			`{"attachments":{"k1":{"attachment":null}}}`: "resource.attachments.k1.attachment",
			`{"attachments":{"k1":{"attachment":5}}}`:    "resource.attachments.k1.attachment",
			`{"attachments":{"k1":5}}`:                   "resource.attachments.k1",
			`{"attachments":{"k1":{"bogus":1}}}`:         "resource.attachments.k1.bogus",
		} {
			r, err := w.c.InterconnectAttachmentGroupsPatchWithBodyWithResponse(apiCtx, apiProject, "g", nil, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			e := wantGoogleError(t, r.StatusCode(), r.Body, 400, "invalid")
			if e.Errors[0].Location != at || strings.Contains(e.Message, "Schema:") || strings.Contains(e.Message, "nullable") {
				t.Errorf("%s: %q at %q, want it named at %s in plain words", body, e.Message, e.Errors[0].Location, at)
			}
		}
	})
	t.Run("merge patch removes an entry given as null, and frees it", func(t *testing.T) {
		r := patch(gen.InterconnectAttachmentGroupPatch{Attachments: set(map[string]*gen.InterconnectAttachmentGroupAttachment{"s2": nil})}, "")
		if r.StatusCode() != 200 {
			t.Fatal(string(r.Body))
		}
		g, _ := w.group("g")
		if len(g.JSON200.Attachments) != 3 || *g.JSON200.Configured.AvailabilitySla.EffectiveSla != "PRODUCTION_NON_CRITICAL" {
			t.Errorf("after removing s2: %s", g.Body)
		}
		if op := w.insertGroup("g-free", "NO_SLA", urls["sjc2"]); op.Error != nil {
			t.Errorf("att-sjc-2 was not released: %+v", op.Error)
		}
	})
	t.Run("a patch with a failing attachment changes nothing", func(t *testing.T) {
		etag := *mustGroup(t, w, "g").Etag
		bogus := w.url("regions/us-west1/interconnectAttachments/nope")
		r := patch(gen.InterconnectAttachmentGroupPatch{Attachments: set(map[string]*gen.InterconnectAttachmentGroupAttachment{"x": {Attachment: &bogus}})}, "")
		if r.StatusCode() != 200 || r.JSON200.Error == nil || r.JSON200.Error.Errors[0].Code != "RESOURCE_NOT_FOUND" {
			t.Fatalf("patch: %s", r.Body)
		}
		if now := *mustGroup(t, w, "g").Etag; now != etag {
			t.Error("a failed patch changed the group")
		}
	})
	t.Run("an attachment a group holds cannot be deleted; the group's delete frees it", func(t *testing.T) {
		r, _ := w.c.InterconnectAttachmentsDeleteWithResponse(apiCtx, apiProject, "us-east4", "att-iad-1", nil)
		wantGoogleError(t, r.StatusCode(), r.Body, 400, "resourceInUseByAnotherResource")
		d, _ := w.c.InterconnectAttachmentGroupsDeleteWithResponse(apiCtx, apiProject, "g", nil)
		if d.StatusCode() != 200 || *d.JSON200.Status != "DONE" {
			t.Fatal(string(d.Body))
		}
		r2, _ := w.c.InterconnectAttachmentsDeleteWithResponse(apiCtx, apiProject, "us-east4", "att-iad-1", nil)
		if r2.StatusCode() != 200 {
			t.Errorf("delete after the group went: %s", r2.Body)
		}
	})
}

func mustGroup(t *testing.T, w *world, name string) gen.InterconnectAttachmentGroup {
	t.Helper()
	g, err := w.group(name)
	if err != nil || g.StatusCode() != 200 {
		t.Fatalf("group %s: %v %s", name, err, g.Body)
	}
	return *g.JSON200
}

func TestOperationalStatus(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-1", "fra-zone1-4")
	w.interconnect("ic-2", "fra-zone2-4")
	up := w.attachment("europe-west3", "att-up", "ic-1", true)
	down := w.attachment("europe-west3", "att-down", "ic-2", false)
	w.insertGroup("g", "PRODUCTION_NON_CRITICAL", up, down)
	r, err := w.c.InterconnectAttachmentGroupsGetOperationalStatusWithResponse(apiCtx, apiProject, "g", nil)
	if err != nil || r.StatusCode() != 200 {
		t.Fatal(err, string(r.Body))
	}
	res := r.JSON200.Result
	if res.GroupStatus != "DEGRADED" || *res.Configured.AvailabilitySla.EffectiveSla != "PRODUCTION_NON_CRITICAL" ||
		*res.Operational.AvailabilitySla.EffectiveSla != "NO_SLA" || len(res.Operational.AvailabilitySla.IntendedSlaBlockers) == 0 {
		t.Fatalf("status: %s", r.Body)
	}
	statuses := map[string]string{}
	for _, s := range res.AttachmentStatuses {
		statuses[s.Attachment] = fmt.Sprintf("%t/%s/%s", s.AdminEnabled, s.IsActive, s.Status)
	}
	want := map[string]string{up: "true/ACTIVE/CONNECTION_UP", down: "false/INACTIVE/CONNECTION_DISABLED"}
	if fmt.Sprint(statuses) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if r.JSON200.Etag != *mustGroup(t, w, "g").Etag {
		t.Error("the status's etag is not the group's")
	}
}

func TestGroupRequestIDAndLists(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	urls := w.standard()
	rid := uuid.NewString()
	insert := func() gen.Operation {
		u := urls["iad1"]
		r, _ := w.c.InterconnectAttachmentGroupsInsertWithResponse(apiCtx, apiProject, &gen.InterconnectAttachmentGroupsInsertParams{RequestId: &rid},
			gen.InterconnectAttachmentGroup{Name: "g-rid", Intent: gen.InterconnectAttachmentGroupIntent{AvailabilitySla: "NO_SLA"},
				Attachments: map[string]gen.InterconnectAttachmentGroupAttachment{"a": {Attachment: &u}}})
		return *r.JSON200
	}
	first, again := insert(), insert()
	if *first.Name != *again.Name || again.Error != nil {
		t.Fatalf("retry: %+v vs %+v", first, again)
	}
	unspecified, _ := w.c.InterconnectAttachmentGroupsInsertWithResponse(apiCtx, apiProject, nil,
		gen.InterconnectAttachmentGroup{Name: "g-x", Intent: gen.InterconnectAttachmentGroupIntent{AvailabilitySla: "AVAILABILITY_SLA_UNSPECIFIED"}})
	wantGoogleError(t, unspecified.StatusCode(), unspecified.Body, 400, "invalid")
	w.insertGroup("g-b", "NO_SLA")
	w.insertGroup("g-a", "NO_SLA")
	l, _ := w.c.InterconnectAttachmentGroupsListWithResponse(apiCtx, apiProject, nil)
	var names []string
	for _, g := range l.JSON200.Items {
		names = append(names, g.Name)
	}
	if !sort.StringsAreSorted(names) || len(names) != 3 {
		t.Errorf("list: %v", names)
	}
}

// TestMethodsNotServedAreNotFound: a path one segment longer than a route (a method of the
// real API that this one does not have, or no method at all) is 404
// notFound for every collection, not an invalid name made of the last two segments.
func TestMethodsNotServedAreNotFound(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	w.interconnect("ic-a", "iad-zone1-1")
	for _, path := range []string{
		"global/interconnects/ic-a/foo",
		"global/interconnects/ic-a/getDiagnostics/foo",
		"global/interconnectGroups/g-a/foo/bar",
		"global/interconnectLocations/iad-zone1-1/foo",
		"global/interconnectRemoteLocations/aws-iad-1/foo",
		"regions/us-east4/interconnectAttachments/att-a/foo",
		"global/forwardingRules/fr-a/foo",
		"global/operations/op-a/foo",
		"global/interconnectAttachmentGroups/g-a/foo/bar",
	} {
		status, body := w.raw(http.MethodGet, path, "")
		e := wantGoogleError(t, status, body, 404, "notFound")
		if !strings.Contains(e.Message, "was not found on this server") {
			t.Errorf("%s: %q", path, e.Message)
		}
	}
}

// TestRelativeReferences: every reference field takes a path relative to the request's
// project (global/..., regions/...), as Compute Engine does, and answers with full URLs.
func TestRelativeReferences(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	for _, step := range []struct{ path, body string }{
		{"global/interconnects", `{"name":"ic-rel","location":"global/interconnectLocations/iad-zone1-1","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1,"interconnectType":"DEDICATED"}`},
		{"regions/us-east4/interconnectAttachments", `{"name":"att-rel","interconnect":"global/interconnects/ic-rel"}`},
		{"global/interconnectAttachmentGroups", `{"name":"g-rel","intent":{"availabilitySla":"NO_SLA"},"attachments":{"a":{"attachment":"regions/us-east4/interconnectAttachments/att-rel"}}}`},
	} {
		if status, body := w.raw(http.MethodPost, step.path, step.body); status != 200 || !strings.Contains(string(body), `"status":"DONE"`) || strings.Contains(string(body), `"error"`) {
			t.Fatalf("POST %s: %d %s", step.path, status, body)
		}
	}
	att, _ := w.c.InterconnectAttachmentsGetWithResponse(apiCtx, apiProject, "us-east4", "att-rel", nil)
	if att.StatusCode() != 200 || *att.JSON200.Interconnect != w.url("global/interconnects/ic-rel") {
		t.Errorf("attachment's interconnect: %s", att.Body)
	}
	g := mustGroup(t, w, "g-rel")
	if got := *g.Attachments["a"].Attachment; got != w.url("regions/us-east4/interconnectAttachments/att-rel") {
		t.Errorf("group's attachment = %q, want the full URL", got)
	}
	// A relative path names the request's project only: another project's attachment
	// must be spelled out, and a missing one ends the operation as any other.
	if status, body := w.raw(http.MethodPost, "global/interconnectAttachmentGroups", `{"name":"g-rel-2","intent":{"availabilitySla":"NO_SLA"},"attachments":{"a":{"attachment":"regions/us-east4/interconnectAttachments/nope"}}}`); status != 200 || !strings.Contains(string(body), "RESOURCE_NOT_FOUND") {
		t.Errorf("missing attachment: %d %s", status, body)
	}
}

// set is a patch member given a value.
func set[T any](v T) nullable.Nullable[T] { return nullable.NewNullableWithValue(v) }
