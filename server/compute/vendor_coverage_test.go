package compute_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	compute "google.golang.org/api/compute/v1"
)

// These tests close the gaps left by the other vendor tests: methods (or their success
// paths, or their paging) that no other test drives through Google's own Go client.
// Helpers: newVMWorld and its methods (vendor_methods_test.go), vendorAPIError,
// vendorWait, vendorUUID (vendor_client_test.go), vicWaitRegion, vicGroup,
// vicGroupRequest (vendor_interconnect_test.go).

// TestVendorRegionOperations: regionOperations.get, wait, list (paged by the client's
// Pages) and delete on the operations of attachment inserts. Delete forgets the record
// only: afterwards get, wait and delete of it are 404 notFound and list skips it, while
// the attachment it made stays.
func TestVendorRegionOperations(t *testing.T) {
	w := newVMWorld(t)
	w.interconnect("ic-a", "iad-zone1-1")
	const region = "us-east4"
	var ops []*compute.Operation
	for _, n := range []string{"att-1", "att-2", "att-3"} {
		op, err := w.svc.InterconnectAttachments.Insert(vendorProject, region, &compute.InterconnectAttachment{
			Name: n, Interconnect: w.url("global/interconnects/ic-a"), Type: "DEDICATED"}).Do()
		if err != nil {
			t.Fatalf("insert %s: %v", n, err)
		}
		ops = append(ops, op)
	}

	// get, by name and by number, answers the operation the insert returned.
	for i, op := range ops {
		got, err := w.svc.RegionOperations.Get(vendorProject, region, op.Name).Do()
		if err != nil {
			t.Fatalf("RegionOperations.Get(%s): %v", op.Name, err)
		}
		if got.Name != op.Name || got.Id != op.Id || got.Kind != "compute#operation" || got.OperationType != "insert" ||
			!strings.HasSuffix(got.Region, "/projects/"+vendorProject+"/regions/"+region) ||
			!strings.HasSuffix(got.SelfLink, "/regions/"+region+"/operations/"+op.Name) ||
			!strings.HasSuffix(got.TargetLink, "/regions/"+region+"/interconnectAttachments/att-"+strconv.Itoa(i+1)) ||
			got.Zone != "" || got.InsertTime == "" {
			t.Errorf("get %s: %+v", op.Name, got)
		}
		if got.Status != "PENDING" && got.Status != "RUNNING" && got.Status != "DONE" {
			t.Errorf("get %s: status %q", op.Name, got.Status)
		}
		byID, err := w.svc.RegionOperations.Get(vendorProject, region, strconv.FormatUint(op.Id, 10)).Do()
		if err != nil || byID.Name != op.Name {
			t.Errorf("get by id %d: %v %+v", op.Id, err, byID)
		}
	}
	// wait answers DONE (and at once for a DONE one); get then says the same.
	for _, op := range ops {
		done := vicWaitRegion(t, w.svc, region, op.Name)
		if done.Progress != 100 || done.EndTime == "" || done.Error != nil {
			t.Errorf("wait %s: progress %d endTime %q error %+v", op.Name, done.Progress, done.EndTime, done.Error)
		}
		again, err := w.svc.RegionOperations.Wait(vendorProject, region, op.Name).Do()
		if err != nil || again.Status != "DONE" || again.EndTime != done.EndTime {
			t.Errorf("wait on a DONE %s: %v %+v", op.Name, err, again)
		}
		got, err := w.svc.RegionOperations.Get(vendorProject, region, op.Name).Do()
		if err != nil || got.Status != "DONE" {
			t.Errorf("get after wait %s: %v %+v", op.Name, err, got)
		}
	}

	// list, one item a page through the client's Pages: every operation once, each page a
	// compute#operationList of the region.
	listed := func(region string) []string {
		t.Helper()
		var names []string
		pages := 0
		err := w.svc.RegionOperations.List(vendorProject, region).MaxResults(1).Pages(w.ctx, func(l *compute.OperationList) error {
			pages++
			if l.Kind != "compute#operationList" || !strings.HasSuffix(l.SelfLink, "/regions/"+region+"/operations") {
				t.Errorf("page %d of %s: kind %q selfLink %q", pages, region, l.Kind, l.SelfLink)
			}
			if len(l.Items) > 1 {
				t.Errorf("page %d of %s: %d items, want at most 1", pages, region, len(l.Items))
			}
			for _, op := range l.Items {
				names = append(names, op.Name)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("RegionOperations.List(%s): %v", region, err)
		}
		if len(names) > 1 && pages < len(names) {
			t.Errorf("%s: %d operations in %d pages, want one a page", region, len(names), pages)
		}
		return names
	}
	names := listed(region)
	for _, op := range ops {
		n := 0
		for _, name := range names {
			if name == op.Name {
				n++
			}
		}
		if n != 1 {
			t.Errorf("list: %s listed %d times in %v, want once", op.Name, n, names)
		}
	}
	if west := listed("us-west1"); len(west) != 0 {
		t.Errorf("us-west1 lists %v, want none of us-east4's", west)
	}

	// delete by name, and by number.
	if err := w.svc.RegionOperations.Delete(vendorProject, region, ops[0].Name).Do(); err != nil {
		t.Fatalf("RegionOperations.Delete(%s): %v", ops[0].Name, err)
	}
	if err := w.svc.RegionOperations.Delete(vendorProject, region, strconv.FormatUint(ops[1].Id, 10)).Do(); err != nil {
		t.Fatalf("RegionOperations.Delete(%d): %v", ops[1].Id, err)
	}
	for _, op := range ops[:2] {
		_, err := w.svc.RegionOperations.Get(vendorProject, region, op.Name).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.RegionOperations.Get(vendorProject, region, strconv.FormatUint(op.Id, 10)).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.RegionOperations.Wait(vendorProject, region, op.Name).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		err = w.svc.RegionOperations.Delete(vendorProject, region, op.Name).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
	}
	if names := listed(region); slices.Contains(names, ops[0].Name) || slices.Contains(names, ops[1].Name) || !slices.Contains(names, ops[2].Name) {
		t.Errorf("list after deleting two: %v", names)
	}
	// Only the record went: the attachments the operations made are still there.
	w.getAttachment(region, "att-1")
	w.getAttachment(region, "att-2")

	// An operation is deleted in its own region only, and a global one not here at all.
	err := w.svc.RegionOperations.Delete(vendorProject, "us-west1", ops[2].Name).Do()
	vendorAPIError(t, err, http.StatusNotFound, "notFound")
	if _, err := w.svc.RegionOperations.Get(vendorProject, region, ops[2].Name).Do(); err != nil {
		t.Errorf("%s after a delete in another region: %v", ops[2].Name, err)
	}
	global, err := w.svc.GlobalOperations.List(vendorProject).MaxResults(1).Do()
	if err != nil || len(global.Items) != 1 {
		t.Fatalf("GlobalOperations.List: %v %+v", err, global)
	}
	err = w.svc.RegionOperations.Delete(vendorProject, region, global.Items[0].Name).Do()
	vendorAPIError(t, err, http.StatusNotFound, "notFound")
	if _, err := w.svc.GlobalOperations.Get(vendorProject, global.Items[0].Name).Do(); err != nil {
		t.Errorf("global %s after a regional delete of its name: %v", global.Items[0].Name, err)
	}
}

// TestVendorDeletesAreGone: a successful delete of each kind of resource, through the
// client: the operation names the resource, and once DONE the resource is 404 notFound
// to get and to delete, and gone from its lists.
func TestVendorDeletesAreGone(t *testing.T) {
	w := newVMWorld(t)
	ic := w.interconnect("ic-a", "iad-zone1-1")
	att := w.attachment("us-east4", "att-1", "ic-a")
	w.attachment("us-east4", "att-2", "ic-a")

	t.Run("interconnectAttachments", func(t *testing.T) {
		reqID := vendorUUID(t)
		op, err := w.svc.InterconnectAttachments.Delete(vendorProject, "us-east4", "att-1").RequestId(reqID).Do()
		if err != nil {
			t.Fatalf("InterconnectAttachments.Delete: %v", err)
		}
		if op.OperationType != "delete" || op.TargetId != att.Id || op.ClientOperationId != reqID ||
			!strings.HasSuffix(op.TargetLink, "/regions/us-east4/interconnectAttachments/att-1") ||
			!strings.HasSuffix(op.Region, "/regions/us-east4") {
			t.Errorf("delete operation: %+v", op)
		}
		w.done("delete att-1", op, nil)
		_, err = w.svc.InterconnectAttachments.Get(vendorProject, "us-east4", "att-1").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.InterconnectAttachments.Delete(vendorProject, "us-east4", "att-1").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		l, err := w.svc.InterconnectAttachments.List(vendorProject, "us-east4").Do()
		if err != nil || len(l.Items) != 1 || l.Items[0].Name != "att-2" {
			t.Errorf("list after the delete: %v %+v", err, l)
		}
		agg, err := w.svc.InterconnectAttachments.AggregatedList(vendorProject).Do()
		if err != nil || len(agg.Items["regions/us-east4"].InterconnectAttachments) != 1 {
			t.Errorf("aggregated list after the delete: %v %+v", err, agg)
		}
	})

	t.Run("interconnects", func(t *testing.T) {
		// In use by att-2 until it goes.
		_, err := w.svc.Interconnects.Delete(vendorProject, "ic-a").Do()
		vendorAPIError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")
		op, err := w.svc.InterconnectAttachments.Delete(vendorProject, "us-east4", "att-2").Do()
		w.done("delete att-2", op, err)
		op, err = w.svc.Interconnects.Delete(vendorProject, "ic-a").Do()
		if err != nil {
			t.Fatalf("Interconnects.Delete: %v", err)
		}
		if op.OperationType != "delete" || op.TargetId != ic.Id || op.Region != "" || !strings.HasSuffix(op.TargetLink, "/global/interconnects/ic-a") {
			t.Errorf("delete operation: %+v", op)
		}
		w.done("delete ic-a", op, nil)
		_, err = w.svc.Interconnects.Get(vendorProject, "ic-a").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.Interconnects.Delete(vendorProject, "ic-a").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		if l, err := w.svc.Interconnects.List(vendorProject).Do(); err != nil || len(l.Items) != 0 {
			t.Errorf("list after the delete: %v %+v", err, l)
		}
	})

	t.Run("interconnectGroups", func(t *testing.T) {
		op, err := w.svc.InterconnectGroups.Insert(vendorProject, &compute.InterconnectGroup{Name: "icg",
			Intent: &compute.InterconnectGroupIntent{TopologyCapability: "NO_SLA"}}).Do()
		w.done("insert icg", op, err)
		g, err := w.svc.InterconnectGroups.Get(vendorProject, "icg").Do()
		if err != nil {
			t.Fatal(err)
		}
		op, err = w.svc.InterconnectGroups.Delete(vendorProject, "icg").Do()
		if err != nil {
			t.Fatalf("InterconnectGroups.Delete: %v", err)
		}
		if op.OperationType != "delete" || op.TargetId != g.Id || !strings.HasSuffix(op.TargetLink, "/global/interconnectGroups/icg") {
			t.Errorf("delete operation: %+v", op)
		}
		w.done("delete icg", op, nil)
		_, err = w.svc.InterconnectGroups.Get(vendorProject, "icg").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.InterconnectGroups.GetOperationalStatus(vendorProject, "icg").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.InterconnectGroups.Delete(vendorProject, "icg").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		if l, err := w.svc.InterconnectGroups.List(vendorProject).Do(); err != nil || len(l.Items) != 0 {
			t.Errorf("list after the delete: %v %+v", err, l)
		}
	})

	t.Run("interconnectAttachmentGroups", func(t *testing.T) {
		g := vicGroup(t, w.svc, vicGroupRequest("iag", "NO_SLA"))
		op, err := w.svc.InterconnectAttachmentGroups.Delete(vendorProject, "iag").Do()
		if err != nil {
			t.Fatalf("InterconnectAttachmentGroups.Delete: %v", err)
		}
		if op.OperationType != "delete" || op.TargetId != g.Id || !strings.HasSuffix(op.TargetLink, "/global/interconnectAttachmentGroups/iag") {
			t.Errorf("delete operation: %+v", op)
		}
		w.done("delete iag", op, nil)
		_, err = w.svc.InterconnectAttachmentGroups.Get(vendorProject, "iag").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.InterconnectAttachmentGroups.GetOperationalStatus(vendorProject, "iag").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = w.svc.InterconnectAttachmentGroups.Delete(vendorProject, "iag").Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		if l, err := w.svc.InterconnectAttachmentGroups.List(vendorProject).Do(); err != nil || len(l.Items) != 0 {
			t.Errorf("list after the delete: %v %+v", err, l)
		}
	})
}

// TestVendorListPages: the lists no other test pages with the client's Pages helper, one
// item a page: every item comes once, in name order, and the pages carry the list's kind.
func TestVendorListPages(t *testing.T) {
	w := newVMWorld(t)
	ics := []string{"ic-a", "ic-b", "ic-c"}
	for _, n := range ics {
		w.interconnect(n, "iad-zone1-1")
	}
	atts := []string{"att-a", "att-b", "att-c"}
	for _, n := range atts {
		w.attachment("us-east4", n, "ic-a")
	}
	groups := []string{"g-a", "g-b", "g-c"}
	for _, n := range groups {
		op, err := w.svc.InterconnectGroups.Insert(vendorProject, &compute.InterconnectGroup{Name: n,
			Intent: &compute.InterconnectGroupIntent{TopologyCapability: "NO_SLA"}}).Do()
		w.done("insert "+n, op, err)
		vicGroup(t, w.svc, vicGroupRequest(n, "NO_SLA"))
	}
	for _, n := range []string{"fr-a", "fr-b", "fr-c"} {
		op, err := w.svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: n, PortRange: "80-80"}).Do()
		w.done("insert "+n, op, err)
	}

	// check holds the names of one paged walk against want, and that it took a page each.
	check := func(what string, kinds []string, kind string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: paged through %v, want %v", what, got, want)
		}
		if len(kinds) != len(want) {
			t.Errorf("%s: %d pages, want %d (one item each)", what, len(kinds), len(want))
		}
		for _, k := range kinds {
			if k != kind {
				t.Errorf("%s: page kind %q, want %q", what, k, kind)
			}
		}
	}

	kinds, got := pagedNames(t, w.ctx, w.svc.Interconnects.List(vendorProject).MaxResults(1).Pages, func(l *compute.InterconnectList) (string, []string) {
		return l.Kind, namesOf(l.Items, func(i *compute.Interconnect) string { return i.Name })
	})
	check("interconnects", kinds, "compute#interconnectList", got, ics)
	kinds, got = pagedNames(t, w.ctx, w.svc.InterconnectAttachments.List(vendorProject, "us-east4").MaxResults(1).Pages, func(l *compute.InterconnectAttachmentList) (string, []string) {
		return l.Kind, namesOf(l.Items, func(a *compute.InterconnectAttachment) string { return a.Name })
	})
	check("interconnectAttachments", kinds, "compute#interconnectAttachmentList", got, atts)
	kinds, got = pagedNames(t, w.ctx, w.svc.InterconnectGroups.List(vendorProject).MaxResults(1).Pages, func(l *compute.InterconnectGroupsListResponse) (string, []string) {
		return l.Kind, namesOf(l.Items, func(g *compute.InterconnectGroup) string { return g.Name })
	})
	// The discovery document's kind for this list is the resource's, as for attachment
	// groups' lists.
	check("interconnectGroups", kinds, "compute#InterconnectGroup", got, groups)
	kinds, got = pagedNames(t, w.ctx, w.svc.InterconnectAttachmentGroups.List(vendorProject).MaxResults(1).Pages, func(l *compute.InterconnectAttachmentGroupsListResponse) (string, []string) {
		return l.Kind, namesOf(l.Items, func(g *compute.InterconnectAttachmentGroup) string { return g.Name })
	})
	check("interconnectAttachmentGroups", kinds, "compute#interconnectAttachmentGroup", got, groups)
	kinds, got = pagedNames(t, w.ctx, w.svc.ForwardingRules.AggregatedList(vendorProject).MaxResults(1).Pages, func(l *compute.ForwardingRuleAggregatedList) (string, []string) {
		var names []string
		for scope, sl := range l.Items {
			for _, r := range sl.ForwardingRules {
				if scope != "global" {
					t.Errorf("%s listed under %q, want global", r.Name, scope)
				}
				names = append(names, r.Name)
			}
		}
		return l.Kind, names
	})
	check("forwardingRules.aggregatedList", kinds, "compute#forwardingRuleAggregatedList", got, []string{"fr-a", "fr-b", "fr-c"})
}

// pagedNames walks a list through the client's Pages helper and returns each page's kind
// and, in order, the names page gives of its items.
func pagedNames[L any](t *testing.T, ctx context.Context, pages func(context.Context, func(L) error) error, page func(L) (string, []string)) (kinds, names []string) {
	t.Helper()
	err := pages(ctx, func(l L) error {
		kind, n := page(l)
		kinds, names = append(kinds, kind), append(names, n...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return kinds, names
}

// namesOf is the name of each item.
func namesOf[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = name(it)
	}
	return out
}
