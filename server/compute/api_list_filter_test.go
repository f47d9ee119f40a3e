package compute_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// TestListFilter: the filter parameter over HTTP. = and != compare the whole name with a
// literal; eq and ne match it with an RE2 expression that must cover the whole name; the
// value is quoted with " or ', or bare; terms combine with AND (or by sitting side by
// side) and OR; anything malformed is 400 invalid on location filter, saying what is wrong.
func TestListFilter(t *testing.T) {
	srv, clk := apiServer(t, operations.Mode{Delay: time.Second})
	c := apiClient(t, srv, "dev@example.com")
	apiInsertReadable(t, c, clk, time.Second, "fr-list-la", "fr-list-ny", "fr-other")

	// list follows nextPageToken to the end and returns the names, or the first error.
	list := func(t *testing.T, p gen.GlobalForwardingRulesListParams) (string, *gen.GlobalForwardingRulesListResponse) {
		t.Helper()
		var names []string
		for pages := 0; pages < 10; pages++ {
			resp, err := c.GlobalForwardingRulesListWithResponse(apiCtx, apiProject, &p)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode() != 200 {
				return "", resp
			}
			for _, r := range resp.JSON200.Items {
				names = append(names, r.Name)
			}
			if resp.JSON200.NextPageToken == nil {
				return strings.Join(names, ","), resp
			}
			p.PageToken = resp.JSON200.NextPageToken
		}
		t.Fatal("paging does not end")
		return "", nil
	}

	const all = "fr-list-la,fr-list-ny,fr-other"
	for _, tt := range []struct{ name, filter, want string }{
		{"equal, double quotes", `name = "fr-list-la"`, "fr-list-la"},
		{"equal, single quotes", `name = 'fr-list-la'`, "fr-list-la"},
		{"equal, bare", `name = fr-list-la`, "fr-list-la"},
		{"equal, no spaces", `name="fr-list-la"`, "fr-list-la"},
		{"equal is not a prefix match", `name = fr-list`, ""},
		{"equal takes no regular expression", `name = "fr-list-.*"`, ""},
		{"not equal", `name != fr-other`, "fr-list-la,fr-list-ny"},
		{"equal to the empty string", `name = ""`, ""},
		{"not equal to the empty string", `name != ''`, all},
		{"eq, bare regular expression", `name eq fr-list-.*`, "fr-list-la,fr-list-ny"},
		{"eq, quoted regular expression", `name eq "fr-.*-ny"`, "fr-list-ny"},
		{"eq, single-quoted regular expression", `name eq 'fr-list-(la|ny)'`, "fr-list-la,fr-list-ny"},
		{"eq matches the whole name", `name eq list`, ""},
		{"eq anchors every alternative", `name eq "fr-list-la|fr-oth"`, "fr-list-la"},
		{"eq, escaped quote in the expression", `name eq "fr-list-la\"?"`, "fr-list-la"},
		{"eq, escapes reach RE2", `name eq "fr-list-\w\w"`, "fr-list-la,fr-list-ny"},
		{"equal, escaped character", `name = "fr\-other"`, "fr-other"},
		{"eq with the empty expression", `name eq ""`, ""},
		{"ne everything", `name ne ".*"`, ""},
		{"ne, bare", `name ne fr-list-.*`, "fr-other"},
		{"ne with the empty expression", `name ne ''`, all},
		{"parenthesized", `(name = "fr-list-la")`, "fr-list-la"},
		{"parenthesized eq", `( name eq fr-list-.* )`, "fr-list-la,fr-list-ny"},
		{"terms side by side", `(name != "fr-other") (name != 'fr-list-ny')`, "fr-list-la"},
		{"terms without parentheses", `name != fr-other name != fr-list-ny`, "fr-list-la"},
		{"AND", `name != fr-other AND (name != fr-list-ny)`, "fr-list-la"},
		{"eq terms side by side", `(name eq fr-.*) (name ne .*-ny)`, "fr-list-la,fr-other"},
		{"eq terms with AND", `(name eq fr-.*) AND (name ne .*-ny)`, "fr-list-la,fr-other"},
		{"OR", `(name = fr-other) OR (name = "fr-list-ny")`, "fr-list-ny,fr-other"},
		{"OR binds tighter than AND", `name = fr-other OR name = fr-list-ny AND name != fr-other`, "fr-list-ny"},
		{"nested parentheses", `((name = fr-other) OR (name = fr-list-la)) name != fr-other`, "fr-list-la"},
		{"has, substring", `name:list`, "fr-list-la,fr-list-ny"},
		{"greater than", `name > fr-list-la`, "fr-list-ny,fr-other"},
		{"less or equal", `name <= fr-list-la`, "fr-list-la"},
		{"any scalar field", `kind = "compute#forwardingRule" name != fr-other`, "fr-list-la,fr-list-ny"},
		{"an unset field reads as empty", `description = ""`, all},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, resp := list(t, gen.GlobalForwardingRulesListParams{Filter: ptr(tt.filter)})
			if resp.StatusCode() != 200 {
				t.Fatalf("filter %s: %d %s", tt.filter, resp.StatusCode(), resp.Body)
			}
			if got != tt.want {
				t.Errorf("filter %s: got %q, want %q", tt.filter, got, tt.want)
			}
			// The same, a page at a time (a filter takes no orderBy).
			one := uint32(1)
			if paged, _ := list(t, gen.GlobalForwardingRulesListParams{Filter: ptr(tt.filter), MaxResults: &one}); paged != tt.want {
				t.Errorf("filter %s, pages of 1: got %q, want %q", tt.filter, paged, tt.want)
			}
		})
	}

	for _, tt := range []struct{ name, filter, mention string }{
		{"unbalanced double quote", `name = "fr-list-la`, "unbalanced quote"},
		{"unbalanced single quote", `name = 'fr-list-la`, "unbalanced quote"},
		{"quote closed by the other kind", `name = "fr-list-la'`, "unbalanced quote"},
		{"escaped closing quote", `name = "\"`, "unbalanced quote"},
		{"quote after a bare value", `name = fr-list-la")`, "unbalanced quote"},
		{"unclosed parenthesis", `(name = "fr-list-la"`, "unbalanced parenthesis"},
		{"unopened parenthesis", `name = "fr-list-la")`, "unbalanced parenthesis"},
		{"unopened parenthesis after a bare value", `name = fr-list-la)`, "unbalanced parenthesis"},
		{"empty parentheses", `()`, "empty parentheses"},
		{"unknown field", `colour = red`, "unknown field 'colour'"},
		{"unknown field in a later term", `(name = a) (status = DONE)`, "unknown field 'status'"},
		{"unknown nested field", `labels.env.x = prod`, "has no members"},
		{"field in quotes", `"name" = a`, "field"},
		{"labels compared whole", `labels = prod`, "not a single value"},
		{"upper-case EQ", `name EQ fr-list-la`, "unsupported operator"},
		{"tilde", `name ~ fr`, "unsupported operator"},
		{"no operator", `name`, "operator"},
		{"no value", `name =`, "value"},
		{"no value before a parenthesis", `(name =)`, "value"},
		{"invalid regular expression", `name eq "fr-("`, "invalid regular expression"},
		{"invalid repetition", `name ne *`, "invalid regular expression"},
		{"bare regular expression with a group", `name eq fr-(list|other)`, "quote it"},
		{"eq mixed with =", `(name eq fr-.*) (name = fr-other)`, "eq and ne"},
		{"eq with OR", `(name eq fr-other) OR (name eq fr-list-la)`, "OR"},
		{"eq terms without parentheses", `name eq fr-.* name ne .*-ny`, "parentheses"},
		{"dangling AND", `name = fr-other AND`, "AND"},
		{"leading OR", `OR name = fr-other`, "OR"},
		{"NOT", `NOT name = fr-other`, "NOT"},
		{"negation", `-name = fr-other`, "field"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, resp := list(t, gen.GlobalForwardingRulesListParams{Filter: ptr(tt.filter)})
			e := wantGoogleError(t, resp.StatusCode(), resp.Body, 400, "invalid")
			if e.Errors[0].Location != "filter" {
				t.Errorf("filter %s: location %q, want filter", tt.filter, e.Errors[0].Location)
			}
			if !strings.Contains(strings.ToLower(e.Message), strings.ToLower(tt.mention)) {
				t.Errorf("filter %s: message %q does not say %q", tt.filter, e.Message, tt.mention)
			}
		})
	}
}

// TestLocationListFilter: the catalog's list filters as the other lists do.
func TestLocationListFilter(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	for _, tt := range []struct{ name, filter, want string }{
		{"eq prefix", `name eq iad-.*`, "iad-zone1-1,iad-zone1-2,iad-zone2-1"},
		{"eq with a class", `name eq '[a-z]+-zone2-4'`, "fra-zone2-4"},
		{"equal, single quotes", `name = 'lax-zone1-8'`, "lax-zone1-8"},
		{"ne all", `name ne ".*"`, ""},
		{"equal to the empty string", `name = ""`, ""},
		{"OR", `name = lax-zone1-8 OR name = sjc-zone2-6`, "lax-zone1-8,sjc-zone2-6"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := w.c.InterconnectLocationsListWithResponse(apiCtx, apiProject, &gen.InterconnectLocationsListParams{Filter: ptr(tt.filter)})
			if err != nil || resp.StatusCode() != 200 {
				t.Fatalf("filter %s: %v %s", tt.filter, err, resp.Body)
			}
			var names []string
			for _, l := range resp.JSON200.Items {
				names = append(names, *l.Name)
			}
			if got := strings.Join(names, ","); got != tt.want {
				t.Errorf("filter %s: got %q, want %q", tt.filter, got, tt.want)
			}
		})
	}
	bad, _ := w.c.InterconnectLocationsListWithResponse(apiCtx, apiProject, &gen.InterconnectLocationsListParams{Filter: ptr(`(name eq iad-.*`)})
	if e := wantGoogleError(t, bad.StatusCode(), bad.Body, 400, "invalid"); !strings.Contains(e.Message, "nbalanced parenthesis") {
		t.Errorf("unbalanced parenthesis: %q", e.Message)
	}
}

// listPaths are the list and aggregatedList methods, by path under the project.
var listPaths = []string{
	"global/forwardingRules", "regions/us-east4/forwardingRules", "aggregated/forwardingRules",
	"global/interconnectLocations", "global/interconnectRemoteLocations", "global/interconnects",
	"regions/us-east4/interconnectAttachments", "aggregated/interconnectAttachments",
	"global/interconnectAttachmentGroups", "global/interconnectGroups",
	"global/operations", "regions/us-east4/operations", "aggregated/operations",
}

// TestListRefusesFilterWithOrderBy: every list takes a filter or an order, not both, as
// GCE answers (doitintl/kubeip issue 132, addresses.list with a filter and
// orderBy=creationTimestamp): 400 invalid, quoting the orderBy as sent, also where the
// order alone would be refused.
func TestListRefusesFilterWithOrderBy(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	for _, path := range listPaths {
		for _, order := range []string{"name", "creationTimestamp desc", "creationTimestamp"} {
			q := "?filter=" + url.QueryEscape(`name != "x"`) + "&orderBy=" + url.QueryEscape(order)
			status, body := w.raw("GET", path+q, "")
			e := wantGoogleError(t, status, body, 400, "invalid")
			want := "Invalid value for field 'orderBy': '" + order + "'. Specifying both a list filter and sort order is not currently supported."
			if e.Message != want || e.Errors[0].Message != want || e.Errors[0].Location != "orderBy" {
				t.Errorf("%s%s: %q at %q, want %q at orderBy", path, q, e.Message, e.Errors[0].Location, want)
			}
		}
		for _, q := range []string{"?filter=" + url.QueryEscape(`name != "x"`), "?orderBy=" + url.QueryEscape("creationTimestamp desc"), "?filter=&orderBy=name"} {
			if status, body := w.raw("GET", path+q, ""); status != 200 {
				t.Errorf("%s%s: %d %s", path, q, status, body)
			}
		}
	}
}

// TestPageTokenOfAnotherKindOfList: a nextPageToken continues the kind of list that gave
// it; sent to a list of another kind (where it would read as a position among other
// resources) it is refused as any token that does not fit is.
func TestPageTokenOfAnotherKindOfList(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	apiInsert(t, w.c, "fr-a", nil, nil)
	apiInsert(t, w.c, "fr-b", nil, nil)
	token := func(path string) string {
		t.Helper()
		status, body := w.raw("GET", path+"?maxResults=1", "")
		var l struct{ NextPageToken string }
		if err := json.Unmarshal(body, &l); status != 200 || err != nil || l.NextPageToken == "" {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		return l.NextPageToken
	}
	tokens := map[string]string{ // the list that gave each token: its kind's paths
		"global/operations":            "global/operations regions/us-east4/operations",
		"global/forwardingRules":       "global/forwardingRules regions/us-east4/forwardingRules",
		"global/interconnectLocations": "global/interconnectLocations",
		"aggregated/operations":        "aggregated/operations",
	}
	for from, same := range tokens {
		tok := token(from)
		for _, path := range listPaths {
			status, body := w.raw("GET", path+"?pageToken="+url.QueryEscape(tok), "")
			if strings.Contains(" "+same+" ", " "+path+" ") {
				if status != 200 {
					t.Errorf("token of %s sent to %s: %d %s", from, path, status, body)
				}
				continue
			}
			e := wantGoogleError(t, status, body, 400, "invalid")
			want := "Invalid value for field 'pageToken': '" + tok + "'. Pass the nextPageToken of the previous page, with the same orderBy."
			if e.Message != want || e.Errors[0].Location != "pageToken" {
				t.Errorf("token of %s sent to %s: %q at %q, want %q at pageToken", from, path, e.Message, e.Errors[0].Location, want)
			}
		}
	}
}
