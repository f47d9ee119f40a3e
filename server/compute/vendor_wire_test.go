package compute_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"

	"github.com/understudy-dev/understudy/internal/operations"
)

// These tests hold what clients send on the wire, through Google's own Go client: list
// filters over any field, aggregatedList with its scopes and paging, partial responses
// (fields) and the system parameters of every Google method.

// wireWorld is a project with three labelled rules and attachments in two regions.
type wireWorld struct {
	svc  *compute.Service
	base string // the project's URL
}

func newWireWorld(t *testing.T) wireWorld {
	t.Helper()
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	w := wireWorld{svc: svc, base: srv.URL + "/compute/v1/projects/" + vendorProject}
	for _, r := range []*compute.ForwardingRule{
		{Name: "fr-prod-web", PortRange: "443-443", Labels: map[string]string{"env": "prod", "team": "web"}},
		{Name: "fr-prod-api", PortRange: "8080-8080", Description: "the api", Labels: map[string]string{"env": "prod"}},
		{Name: "fr-dev-web", PortRange: "80-80", Labels: map[string]string{"env": "dev", "team": "web"}},
	} {
		op, err := svc.GlobalForwardingRules.Insert(vendorProject, r).Context(ctx).Do()
		if err != nil {
			t.Fatalf("insert %s: %v", r.Name, err)
		}
		vicNoOpError(t, "insert "+r.Name, vendorWait(t, svc, op.Name))
	}
	for _, ic := range []struct{ name, location string }{{"ic-iad", "iad-zone1-1"}, {"ic-sjc", "sjc-zone1-6"}} {
		op, err := svc.Interconnects.Insert(vendorProject, &compute.Interconnect{
			Name: ic.name, Location: w.base + "/global/interconnectLocations/" + ic.location,
			LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED",
		}).Context(ctx).Do()
		if err != nil {
			t.Fatalf("insert %s: %v", ic.name, err)
		}
		vicNoOpError(t, "insert "+ic.name, vendorWait(t, svc, op.Name))
	}
	for _, a := range []struct{ name, region, ic string }{
		{"att-e1", "us-east4", "ic-iad"}, {"att-e2", "us-east4", "ic-iad"}, {"att-e3", "us-east4", "ic-iad"},
		{"att-w1", "us-west1", "ic-sjc"}, {"att-w2", "us-west1", "ic-sjc"},
	} {
		op, err := svc.InterconnectAttachments.Insert(vendorProject, a.region, &compute.InterconnectAttachment{
			Name: a.name, Interconnect: w.base + "/global/interconnects/" + a.ic, Type: "DEDICATED",
			Router: w.base + "/regions/" + a.region + "/routers/r", Labels: map[string]string{"side": a.region},
		}).Context(ctx).Do()
		if err != nil {
			t.Fatalf("insert %s: %v", a.name, err)
		}
		vicNoOpError(t, "insert "+a.name, vicWaitRegion(t, svc, a.region, op.Name))
	}
	return w
}

func TestVendorListFilters(t *testing.T) {
	w := newWireWorld(t)
	ctx := context.Background()
	rules := func(t *testing.T, filter string) ([]string, error) {
		t.Helper()
		var names []string
		err := w.svc.GlobalForwardingRules.List(vendorProject).Filter(filter).MaxResults(1).Pages(ctx, func(l *compute.ForwardingRuleList) error {
			names = append(names, vendorRuleNames(l.Items)...)
			return nil
		})
		return names, err
	}
	for _, tt := range []struct{ filter, want string }{
		{`labels.env=prod`, "fr-prod-api,fr-prod-web"},
		{`labels.env = "prod" AND labels.team = web`, "fr-prod-web"},
		{`labels.env != prod`, "fr-dev-web"},
		{`labels.team:*`, "fr-dev-web,fr-prod-web"},
		{`labels:team`, "fr-dev-web,fr-prod-web"},
		{`(labels.env = dev) OR (portRange = "8080-8080")`, "fr-dev-web,fr-prod-api"},
		{`name eq "fr-prod-.*"`, "fr-prod-api,fr-prod-web"},
		{`name ne "fr-prod-.*"`, "fr-dev-web"},
		{`(name eq "fr-.*-web") (labels.env ne "dev")`, "fr-prod-web"},
		{`labels.env eq 'pr.d'`, "fr-prod-api,fr-prod-web"},
		{`description = "the api"`, "fr-prod-api"},
		{`description:api`, "fr-prod-api"},
		{`kind = "compute#forwardingRule" name > fr-prod-api`, "fr-prod-web"},
		{`name <= fr-prod-api`, "fr-dev-web,fr-prod-api"},
	} {
		t.Run(tt.filter, func(t *testing.T) {
			got, err := rules(t, tt.filter)
			if err != nil {
				t.Fatalf("List(filter %s): %v", tt.filter, err)
			}
			if g := strings.Join(got, ","); g != tt.want {
				t.Errorf("filter %s: got %q, want %q", tt.filter, g, tt.want)
			}
		})
	}
	for _, tt := range []struct{ filter, mention string }{
		{`colour = red`, "unknown field 'colour'"},
		{`labels = prod`, "not a single value"},
		{`(name eq a) (labels.env = prod)`, "eq and ne"},
		{`(name eq a) OR (name eq b)`, "OR"},
		{`name EQ a`, "Unsupported operator"},
		{`name = "a`, "Unbalanced quote"},
		{`NOT name = a`, "NOT"},
	} {
		t.Run("refused "+tt.filter, func(t *testing.T) {
			_, err := rules(t, tt.filter)
			ge := vendorAPIError(t, err, http.StatusBadRequest, "invalid")
			if !strings.Contains(ge.Message, "Invalid value for field 'filter'") || !strings.Contains(ge.Message, tt.mention) {
				t.Errorf("filter %s: message %q, want the field and %q", tt.filter, ge.Message, tt.mention)
			}
		})
	}

	// The other lists filter on their own members.
	atts, err := w.svc.InterconnectAttachments.List(vendorProject, "us-east4").Filter(`name != att-e2 type = DEDICATED`).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if got := attNames(atts.Items); got != "att-e1,att-e3" {
		t.Errorf("attachments: got %s", got)
	}
	ics, err := w.svc.Interconnects.List(vendorProject).Filter(`requestedLinkCount >= 1 location eq ".*/iad-zone1-1"`).Context(ctx).Do()
	if err == nil {
		t.Errorf("eq mixed with >=: listed %d, want 400", len(ics.Items))
	}
	ics, err = w.svc.Interconnects.List(vendorProject).Filter(`(location eq ".*/iad-zone1-1") (requestedLinkCount ne 2)`).Context(ctx).Do()
	if err != nil || len(ics.Items) != 1 || ics.Items[0].Name != "ic-iad" {
		t.Errorf("interconnects by location: %v %+v", err, ics)
	}
	ops, err := w.svc.GlobalOperations.List(vendorProject).Filter(`operationType = insert targetLink eq ".*/forwardingRules/.*" status = DONE`).Context(ctx).Do()
	if err == nil {
		t.Errorf("eq mixed with =: listed %d, want 400", len(ops.Items))
	}
	ops, err = w.svc.GlobalOperations.List(vendorProject).Filter(`operationType = insert progress = 100 targetLink:forwardingRules`).Context(ctx).Do()
	if err != nil || len(ops.Items) != 3 {
		t.Errorf("operations of rule inserts: %v, %d items, want 3", err, len(ops.Items))
	}
	locs, err := w.svc.InterconnectLocations.List(vendorProject).Filter(`availabilityZone = zone2 city = "San Jose"`).Context(ctx).Do()
	if err != nil || len(locs.Items) != 1 || locs.Items[0].Name != "sjc-zone2-6" {
		t.Errorf("locations: %v %+v", err, locs)
	}
}

func attNames(items []*compute.InterconnectAttachment) string {
	var names []string
	for _, a := range items {
		names = append(names, a.Name)
	}
	return strings.Join(names, ",")
}

func TestVendorAggregatedLists(t *testing.T) {
	w := newWireWorld(t)
	ctx := context.Background()

	t.Run("AttachmentsOnePage", func(t *testing.T) {
		l, err := w.svc.InterconnectAttachments.AggregatedList(vendorProject).Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if l.Kind != "compute#interconnectAttachmentAggregatedList" || l.Id != "projects/"+vendorProject+"/aggregated/interconnectAttachments" ||
			l.SelfLink != w.base+"/aggregated/interconnectAttachments" || l.NextPageToken != "" {
			t.Errorf("list: kind %q id %q selfLink %q next %q", l.Kind, l.Id, l.SelfLink, l.NextPageToken)
		}
		if got := attNames(l.Items["regions/us-east4"].InterconnectAttachments); got != "att-e1,att-e2,att-e3" {
			t.Errorf("regions/us-east4: %s", got)
		}
		if got := attNames(l.Items["regions/us-west1"].InterconnectAttachments); got != "att-w1,att-w2" {
			t.Errorf("regions/us-west1: %s", got)
		}
		empty, ok := l.Items["regions/europe-west3"]
		if !ok || empty.Warning == nil || empty.Warning.Code != "NO_RESULTS_ON_PAGE" || len(empty.InterconnectAttachments) != 0 ||
			empty.Warning.Message != "There are no results for scope 'regions/europe-west3' on this page." ||
			len(empty.Warning.Data) != 1 || empty.Warning.Data[0].Key != "scope" || empty.Warning.Data[0].Value != "regions/europe-west3" {
			t.Errorf("empty region: %+v %+v", ok, empty.Warning)
		}
		if _, ok := l.Items["global"]; ok {
			t.Error("global scope listed without includeAllScopes")
		}
		all, err := w.svc.InterconnectAttachments.AggregatedList(vendorProject).IncludeAllScopes(true).
			ServiceProjectNumber(123456789012).Context(ctx).Do(googleapi.QueryParameter("returnPartialSuccess", "true"))
		if err != nil {
			t.Fatal(err)
		}
		if g, ok := all.Items["global"]; !ok || g.Warning == nil || g.Warning.Code != "NO_RESULTS_ON_PAGE" {
			t.Errorf("includeAllScopes: global %+v", g)
		}
	})

	t.Run("AttachmentsPaged", func(t *testing.T) {
		for _, order := range []string{"", "creationTimestamp desc"} {
			var pages [][]string
			err := w.svc.InterconnectAttachments.AggregatedList(vendorProject).MaxResults(2).OrderBy(order).Pages(ctx, func(l *compute.InterconnectAttachmentAggregatedList) error {
				var page []string
				scopes := make([]string, 0, len(l.Items))
				for scope := range l.Items {
					scopes = append(scopes, scope)
				}
				sort.Strings(scopes)
				for _, scope := range scopes {
					sl := l.Items[scope]
					if (len(sl.InterconnectAttachments) == 0) != (sl.Warning != nil) {
						t.Errorf("scope %s: %d items and warning %+v", scope, len(sl.InterconnectAttachments), sl.Warning)
					}
					for _, a := range sl.InterconnectAttachments {
						page = append(page, scope+"/"+a.Name)
					}
				}
				pages = append(pages, page)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := [][]string{{"regions/us-east4/att-e1", "regions/us-east4/att-e2"}, {"regions/us-east4/att-e3", "regions/us-west1/att-w1"}, {"regions/us-west1/att-w2"}}
			if order != "" {
				want = [][]string{{"regions/us-east4/att-e3", "regions/us-east4/att-e2"}, {"regions/us-east4/att-e1", "regions/us-west1/att-w2"}, {"regions/us-west1/att-w1"}}
			}
			if !slices.EqualFunc(pages, want, slices.Equal) {
				t.Errorf("orderBy %q: pages %q, want %q", order, pages, want)
			}
		}
		// A list's token is not an aggregatedList's.
		l, err := w.svc.InterconnectAttachments.List(vendorProject, "us-east4").MaxResults(1).Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.InterconnectAttachments.AggregatedList(vendorProject).PageToken(l.NextPageToken).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusBadRequest, "invalid")
	})

	t.Run("AttachmentsFiltered", func(t *testing.T) {
		l, err := w.svc.InterconnectAttachments.AggregatedList(vendorProject).Filter(`labels.side = us-west1 name != att-w1`).Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if got := attNames(l.Items["regions/us-west1"].InterconnectAttachments); got != "att-w2" {
			t.Errorf("us-west1: %s", got)
		}
		if w := l.Items["regions/us-east4"].Warning; w == nil || w.Code != "NO_RESULTS_ON_PAGE" {
			t.Errorf("us-east4 filtered out, warning %+v", w)
		}
		_, err = w.svc.InterconnectAttachments.AggregatedList(vendorProject).Filter(`colour = red`).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusBadRequest, "invalid")
	})

	t.Run("Operations", func(t *testing.T) {
		count := map[string]int{}
		pages := 0
		err := w.svc.GlobalOperations.AggregatedList(vendorProject).MaxResults(3).Pages(ctx, func(l *compute.OperationAggregatedList) error {
			pages++
			if l.Kind != "compute#operationAggregatedList" {
				t.Errorf("kind %q", l.Kind)
			}
			for scope, sl := range l.Items {
				for _, op := range sl.Operations {
					count[scope]++
					if want := w.base + "/" + scope + "/operations/" + op.Name; op.SelfLink != want {
						t.Errorf("operation in %s: selfLink %s", scope, op.SelfLink)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// 3 rules and 2 interconnects are global; 3 attachments in us-east4, 2 in us-west1.
		if count["global"] != 5 || count["regions/us-east4"] != 3 || count["regions/us-west1"] != 2 || pages != 4 {
			t.Errorf("operations by scope %v in %d pages, want 5, 3, 2 in 4", count, pages)
		}
		l, err := w.svc.GlobalOperations.AggregatedList(vendorProject).Filter(`targetLink eq ".*/interconnectAttachments/att-w.*"`).Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if n := len(l.Items["regions/us-west1"].Operations); n != 2 || l.Items["global"].Warning == nil {
			t.Errorf("filtered: %d in us-west1, global %+v", n, l.Items["global"])
		}
	})
}

func TestVendorPartialResponse(t *testing.T) {
	w := newWireWorld(t)
	ctx := context.Background()

	l, err := w.svc.GlobalForwardingRules.List(vendorProject).Fields("items(name,labels)", "nextPageToken").MaxResults(2).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if l.Kind != "" || l.Id != "" || l.SelfLink != "" || l.NextPageToken == "" || len(l.Items) != 2 {
		t.Errorf("list trimmed to items(name,labels),nextPageToken: %+v", l)
	}
	for _, r := range l.Items {
		if r.Name == "" || len(r.Labels) == 0 || r.Kind != "" || r.SelfLink != "" || r.LabelFingerprint != "" || r.PortRange != "" {
			t.Errorf("item trimmed to name and labels: %+v", r)
		}
	}

	r, err := w.svc.GlobalForwardingRules.Get(vendorProject, "fr-prod-api").Fields("name", "labels/env").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "fr-prod-api" || r.Labels["env"] != "prod" || r.Description != "" || r.Id != 0 || r.Kind != "" {
		t.Errorf("get trimmed to name,labels/env: %+v", r)
	}

	agg, err := w.svc.InterconnectAttachments.AggregatedList(vendorProject).Fields("items/*/interconnectAttachments(name,region)").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	east := agg.Items["regions/us-east4"].InterconnectAttachments
	if agg.Kind != "" || len(east) != 3 || east[0].Name != "att-e1" || east[0].Region == "" || east[0].Interconnect != "" {
		t.Errorf("aggregated trimmed: kind %q, us-east4 %+v", agg.Kind, east)
	}
	if wn := agg.Items["regions/europe-west3"].Warning; wn != nil {
		t.Errorf("warning not selected, got %+v", wn)
	}

	// An operation (a mutation's answer) is trimmed too, after the change is made.
	op, err := w.svc.GlobalForwardingRules.SetLabels(vendorProject, "fr-dev-web", &compute.GlobalSetLabelsRequest{
		Labels: map[string]string{"env": "dev"}, LabelFingerprint: mustFingerprint(t, w.svc, "fr-dev-web"),
	}).Fields("status,operationType").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if op.Status != "DONE" || op.OperationType != "setLabels" || op.Name != "" || op.SelfLink != "" {
		t.Errorf("operation trimmed to status,operationType: %+v", op)
	}

	// A member the response cannot have, or a malformed selection, is 400 and changes nothing.
	for _, f := range []googleapi.Field{"colour", "items(name,colour)", "name/first", "items(name", "items()"} {
		_, err := w.svc.GlobalForwardingRules.List(vendorProject).Fields(f).Context(ctx).Do()
		ge := vendorAPIError(t, err, http.StatusBadRequest, "invalidParameter")
		if !strings.HasPrefix(ge.Message, "Invalid field selection ") {
			t.Errorf("fields %s: message %q", f, ge.Message)
		}
		if loc, lt := vendorErrorItem(t, ge); loc != "fields" || lt != "parameter" {
			t.Errorf("fields %s: location %s %s", f, loc, lt)
		}
	}
	fp := mustFingerprint(t, w.svc, "fr-prod-web")
	_, err = w.svc.GlobalForwardingRules.SetLabels(vendorProject, "fr-prod-web", &compute.GlobalSetLabelsRequest{Labels: map[string]string{}, LabelFingerprint: fp}).Fields("colour").Context(ctx).Do()
	vendorAPIError(t, err, http.StatusBadRequest, "invalidParameter")
	if mustFingerprint(t, w.svc, "fr-prod-web") != fp {
		t.Error("a setLabels refused for its fields changed the labels")
	}

	// Errors are not trimmed.
	_, err = w.svc.GlobalForwardingRules.Get(vendorProject, "nope").Fields("name").Context(ctx).Do()
	if ge := vendorAPIError(t, err, http.StatusNotFound, "notFound"); !strings.Contains(ge.Message, "was not found") {
		t.Errorf("404 trimmed: %s", ge.Body)
	}
}

func mustFingerprint(t *testing.T, svc *compute.Service, name string) string {
	t.Helper()
	r, err := svc.GlobalForwardingRules.Get(vendorProject, name).Context(context.Background()).Do()
	if err != nil {
		t.Fatal(err)
	}
	return r.LabelFingerprint
}

// systemParams are the discovery document's parameters that every method takes, as a
// client may send them (fields is held by TestVendorPartialResponse).
var systemParams = []googleapi.CallOption{
	googleapi.QueryParameter("$.xgafv", "2"), googleapi.QueryParameter("access_token", "tok"),
	googleapi.QueryParameter("alt", "json"), googleapi.QueryParameter("callback", "cb"),
	googleapi.QueryParameter("key", "api-key"), googleapi.QueryParameter("oauth_token", "tok"),
	googleapi.QueryParameter("prettyPrint", "true"), googleapi.QuotaUser("someone"),
	googleapi.QueryParameter("uploadType", "media"), googleapi.QueryParameter("upload_protocol", "raw"),
	googleapi.UserIP("192.0.2.1"),
}

func TestVendorSystemParameters(t *testing.T) {
	w := newWireWorld(t)
	ctx := context.Background()
	op, err := w.svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-sys", PortRange: "80-80"}).Context(ctx).Do(systemParams...)
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	if _, err := w.svc.GlobalOperations.Wait(vendorProject, op.Name).Context(ctx).Do(systemParams...); err != nil {
		t.Fatalf("wait: %v", err)
	}
	if _, err := w.svc.GlobalForwardingRules.Get(vendorProject, "fr-sys").View("FULL").Context(ctx).Do(systemParams...); err != nil {
		t.Fatalf("get, view FULL: %v", err)
	}
	if _, err := w.svc.GlobalForwardingRules.List(vendorProject).Context(ctx).Do(systemParams...); err != nil {
		t.Fatalf("list: %v", err)
	}
	if _, err := w.svc.GlobalOperations.AggregatedList(vendorProject).Context(ctx).Do(systemParams...); err != nil {
		t.Fatalf("aggregatedList: %v", err)
	}
	if _, err := w.svc.InterconnectAttachments.Get(vendorProject, "us-east4", "att-e1").Context(ctx).Do(systemParams...); err != nil {
		t.Fatalf("attachment get: %v", err)
	}
	if _, err := w.svc.GlobalForwardingRules.Delete(vendorProject, "fr-sys").Context(ctx).Do(systemParams...); err != nil {
		t.Fatalf("delete: %v", err)
	}
	// What a method does not declare is still refused, and a declared enum still holds.
	_, err = w.svc.GlobalForwardingRules.Get(vendorProject, "fr-prod-web").Context(ctx).Do(googleapi.QueryParameter("requestId", "x"))
	vendorAPIError(t, err, http.StatusBadRequest, "invalid")
	_, err = w.svc.GlobalForwardingRules.Get(vendorProject, "fr-prod-web").View("ALL").Context(ctx).Do()
	vendorAPIError(t, err, http.StatusBadRequest, "invalid")
	_, err = w.svc.GlobalForwardingRules.Get(vendorProject, "fr-prod-web").Context(ctx).Do(googleapi.QueryParameter("$.xgafv", "3"))
	if ge := vendorAPIError(t, err, http.StatusBadRequest, "invalid"); !strings.Contains(ge.Message, "'$.xgafv'") {
		t.Errorf("$.xgafv=3: %s", ge.Message)
	}
}

func TestVendorValidateOnly(t *testing.T) {
	w := newWireWorld(t)
	ctx := context.Background()
	att := func(name string) *compute.InterconnectAttachment {
		return &compute.InterconnectAttachment{Name: name, Interconnect: w.base + "/global/interconnects/ic-iad", Type: "DEDICATED", Router: w.base + "/regions/us-east4/routers/r"}
	}
	before, err := w.svc.RegionOperations.List(vendorProject, "us-east4").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	rid := vendorUUID(t)
	op, err := w.svc.InterconnectAttachments.Insert(vendorProject, "us-east4", att("att-dry")).ValidateOnly(true).RequestId(rid).Context(ctx).Do()
	if err != nil {
		t.Fatalf("validateOnly insert: %v", err)
	}
	// The answer is an operation with only its kind: what the Google Cloud CLI takes for
	// a dry run's, and does not wait on.
	if body, err := json.Marshal(op); err != nil || string(body) != `{"kind":"compute#operation"}` || op.Name != "" || op.SelfLink != "" {
		t.Errorf("validateOnly operation: %s (%v)", body, err)
	}
	if _, err := w.svc.InterconnectAttachments.Get(vendorProject, "us-east4", "att-dry").Context(ctx).Do(); err == nil {
		t.Error("validateOnly created the attachment")
	}
	after, err := w.svc.RegionOperations.List(vendorProject, "us-east4").Context(ctx).Do()
	if err != nil || len(after.Items) != len(before.Items) {
		t.Errorf("validateOnly left an operation: %d before, %d after (%v)", len(before.Items), len(after.Items), err)
	}
	// What would fail fails the same.
	_, err = w.svc.InterconnectAttachments.Insert(vendorProject, "us-east4", att("att-e1")).ValidateOnly(true).Context(ctx).Do()
	vendorAPIError(t, err, http.StatusConflict, "alreadyExists")
	// And without it, the same request, its requestId too, creates the attachment.
	op, err = w.svc.InterconnectAttachments.Insert(vendorProject, "us-east4", att("att-dry")).ValidateOnly(false).RequestId(rid).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	vicNoOpError(t, "insert att-dry", vicWaitRegion(t, w.svc, "us-east4", op.Name))
	if _, err := w.svc.InterconnectAttachments.Get(vendorProject, "us-east4", "att-dry").Context(ctx).Do(); err != nil {
		t.Errorf("insert after validateOnly: %v", err)
	}
}

// TestEmptyBodyOnBodylessPost: wait takes no body; the empty JSON values some clients send
// there anyway ({}, null, "", blanks) are taken as none, and anything else is still refused.
func TestEmptyBodyOnBodylessPost(t *testing.T) {
	w := newWireWorld(t)
	ops, err := w.svc.GlobalOperations.List(vendorProject).MaxResults(1).Context(context.Background()).Do()
	if err != nil || len(ops.Items) != 1 {
		t.Fatalf("list: %v", err)
	}
	url := w.base + "/global/operations/" + ops.Items[0].Name + "/wait"
	for _, tt := range []struct {
		body, ctype string
		want        int
	}{
		{"", "", 200},
		{"", "application/json", 200},
		{"{}", "application/json", 200},
		{"{ }\n", "application/json", 200},
		{"null", "application/json", 200},
		{"  ", "application/json", 200},
		{"{}", "", 200},
		{`""`, "application/json", 200}, // what @google-cloud/compute's REST transport sends
		{` "" ` + "\n", "application/json", 200},
		{`" "`, "application/json", 400},
		{`"x"`, "application/json", 400},
		{`"" ""`, "application/json", 400},
		{`{"a":1}`, "application/json", 400},
		{"[]", "application/json", 400},
		{"{", "application/json", 400},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(tt.body))
		req.Header.Set("Authorization", "Bearer t")
		if tt.ctype != "" {
			req.Header.Set("Content-Type", tt.ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("body %q (%s): got %d, want %d", tt.body, tt.ctype, resp.StatusCode, tt.want)
		}
	}
}
