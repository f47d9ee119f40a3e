package compute_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"google.golang.org/api/googleapi"
)

// TestForwardingRulesOfEveryScope: forwardingRules.aggregatedList, which `gcloud compute
// forwarding-rules list` calls without --global, lists the global rules under "global" and
// every catalog region as empty (with the empty scope's warning); a region's list is empty
// and its get 404, as the real service answers for a region that holds no rule. Through
// Google's Go client.
func TestForwardingRulesOfEveryScope(t *testing.T) {
	w := newWireWorld(t)
	ctx := context.Background()
	agg, err := w.svc.ForwardingRules.AggregatedList(vendorProject).IncludeAllScopes(true).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range agg.Items["global"].ForwardingRules {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"fr-dev-web", "fr-prod-api", "fr-prod-web"}) || agg.Items["global"].Warning != nil {
		t.Errorf("global scope: %v %+v", names, agg.Items["global"].Warning)
	}
	east, ok := agg.Items["regions/us-east4"]
	if !ok || len(east.ForwardingRules) != 0 || east.Warning == nil || east.Warning.Code != "NO_RESULTS_ON_PAGE" {
		t.Errorf("regions/us-east4: %v %+v", ok, east)
	}
	if agg.Kind != "compute#forwardingRuleAggregatedList" || agg.Id != "projects/"+vendorProject+"/aggregated/forwardingRules" {
		t.Errorf("list: kind %q id %q", agg.Kind, agg.Id)
	}

	// Paged across scopes, filtered as a list is.
	page, err := w.svc.ForwardingRules.AggregatedList(vendorProject).Filter(`labels.team = web`).MaxResults(1).Context(ctx).Do()
	if err != nil || len(page.Items["global"].ForwardingRules) != 1 || page.NextPageToken == "" {
		t.Fatalf("first page: %v %+v", err, page)
	}
	second, err := w.svc.ForwardingRules.AggregatedList(vendorProject).Filter(`labels.team = web`).MaxResults(1).PageToken(page.NextPageToken).Context(ctx).Do()
	if err != nil || len(second.Items["global"].ForwardingRules) != 1 || second.NextPageToken != "" ||
		second.Items["global"].ForwardingRules[0].Name == page.Items["global"].ForwardingRules[0].Name {
		t.Errorf("second page: %v %+v", err, second)
	}

	regional, err := w.svc.ForwardingRules.List(vendorProject, "us-east4").Context(ctx).Do()
	if err != nil || len(regional.Items) != 0 || regional.Id != "projects/"+vendorProject+"/regions/us-east4/forwardingRules" {
		t.Errorf("regional list: %v %+v", err, regional)
	}
	_, err = w.svc.ForwardingRules.Get(vendorProject, "us-east4", "fr-prod-web").Context(ctx).Do()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != http.StatusNotFound {
		t.Errorf("regional get: %v, want 404", err)
	}
	if _, err := w.svc.ForwardingRules.List(vendorProject, "us-east4").Filter("colour = red").Context(ctx).Do(); !errors.As(err, &ge) || ge.Code != 400 {
		t.Errorf("regional list with a filter on an unknown field: %v, want 400", err)
	}
}
