package compute_test

import (
	"testing"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// TestAggregatedListsMatchSpec: both aggregatedLists through the generated client, whose
// transport checks every answer against the spec, with items, warnings and paging.
func TestAggregatedListsMatchSpec(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "dev@example.com")
	apiInsertReadable(t, c, clk, 0, "fr-a", "fr-b")

	one := uint32(1)
	p := &gen.GlobalOperationsAggregatedListParams{MaxResults: &one}
	var names []string
	for pages := 0; ; pages++ {
		resp, err := c.GlobalOperationsAggregatedListWithResponse(apiCtx, apiProject, p)
		if err != nil || resp.StatusCode() != 200 {
			t.Fatalf("aggregatedList: %v %s", err, resp.Body)
		}
		l := resp.JSON200
		if l.Kind != gen.OperationAggregatedListKindComputeOperationAggregatedList || l.Id != "projects/"+apiProject+"/aggregated/operations" {
			t.Errorf("kind %q id %q", l.Kind, l.Id)
		}
		for _, op := range l.Items["global"].Operations {
			names = append(names, deref(op.TargetLink))
		}
		if w := l.Items["regions/us-east4"].Warning; w == nil || *w.Code != gen.OperationWarningCodeNORESULTSONPAGE {
			t.Errorf("us-east4: warning %+v", w)
		}
		if l.NextPageToken == nil {
			break
		}
		if pages > 3 {
			t.Fatal("paging does not end")
		}
		p.PageToken = l.NextPageToken
	}
	if len(names) != 2 {
		t.Errorf("operations over the pages: %q", names)
	}

	all := true
	resp, err := c.InterconnectAttachmentsAggregatedListWithResponse(apiCtx, apiProject, &gen.InterconnectAttachmentsAggregatedListParams{IncludeAllScopes: &all})
	if err != nil || resp.StatusCode() != 200 {
		t.Fatalf("attachments aggregatedList: %v %s", err, resp.Body)
	}
	if _, ok := resp.JSON200.Items["global"]; !ok || len(resp.JSON200.Items) < 2 {
		t.Errorf("scopes: %v", resp.JSON200.Items)
	}
	bad, _ := c.InterconnectAttachmentsAggregatedListWithResponse(apiCtx, apiProject, &gen.InterconnectAttachmentsAggregatedListParams{Filter: ptr("colour = red")})
	wantGoogleError(t, bad.StatusCode(), bad.Body, 400, "invalid")
}
