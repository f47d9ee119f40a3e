package authorization_test

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/server/authorization"
)

// newGUID returns a random version 4 GUID in lower case.
func newGUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// outcome is what one concurrent request got back.
type outcome struct {
	status int
	code   string // the ARM error code, if any
	body   []byte
	err    error
}

func outcomeOf(status int, body []byte, err error) outcome {
	o := outcome{status: status, body: body, err: err}
	if status >= 400 {
		var env gen.ErrorResponse
		if json.Unmarshal(body, &env) == nil {
			o.code = env.Error.Code
		}
	}
	return o
}

// stampede runs f(0..n-1) in n goroutines released at the same instant: each goroutine
// prepares, reports ready, and waits on a channel that is closed once all are ready.
func stampede(n int, prepare func(i int) func() outcome) []outcome {
	out := make([]outcome, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			run := prepare(i)
			ready.Done()
			<-start
			out[i] = run()
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return out
}

// tally counts outcomes by "status code", e.g. "201" or "409 RoleAssignmentExists", and
// reports transport errors.
func tally(t *testing.T, results []outcome) map[string]int {
	t.Helper()
	m := map[string]int{}
	for i, r := range results {
		if r.err != nil {
			t.Errorf("request %d: %v", i, r.err)
			continue
		}
		k := fmt.Sprint(r.status)
		if r.code != "" {
			k += " " + r.code
		}
		m[k]++
	}
	return m
}

func createParams() *gen.RoleAssignmentsCreateParams {
	return &gen.RoleAssignmentsCreateParams{ApiVersion: apiVersion}
}

func TestRaceSameTripleNewNames(t *testing.T) {
	const n = 64
	e := newEnv(t)
	c := e.client("token", true)
	names := make([]string, n)
	results := stampede(n, func(i int) func() outcome {
		names[i] = newGUID()
		body := gen.RoleAssignmentCreateParameters{Properties: props(principal1, readerID)}
		return func() outcome {
			r, err := c.RoleAssignmentsCreateWithResponse(ctx, rgScope, names[i], createParams(), body)
			if err != nil {
				return outcome{err: err}
			}
			return outcomeOf(r.StatusCode(), r.Body, nil)
		}
	})
	got := tally(t, results)
	want := map[string]int{"201": 1, "409 RoleAssignmentExists": n - 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	winner := ""
	for i, r := range results {
		if r.status == http.StatusCreated {
			winner = names[i]
		}
	}

	filter := "principalId eq '" + principal1 + "'"
	resp, err := c.RoleAssignmentsListForScopeWithResponse(ctx, rgScope, &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Filter: &filter})
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("list: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	if len(resp.JSON200.Value) != 1 || *resp.JSON200.Value[0].Name != winner {
		var listed []string
		for _, a := range resp.JSON200.Value {
			listed = append(listed, *a.Name)
		}
		t.Errorf("listed %v, want exactly the winner [%s]", listed, winner)
	}
}

func TestRaceSameNameDifferentDescriptions(t *testing.T) {
	const n = 64
	e := newEnv(t)
	c := e.client("token", true)
	sent := map[string]bool{}
	descriptions := make([]string, n)
	for i := range n {
		descriptions[i] = fmt.Sprintf("description %d", i)
		sent[descriptions[i]] = true
	}
	returned := make([]*gen.RoleAssignment, n)
	results := stampede(n, func(i int) func() outcome {
		p := props(principal1, readerID)
		p.Description = &descriptions[i]
		body := gen.RoleAssignmentCreateParameters{Properties: p}
		return func() outcome {
			r, err := c.RoleAssignmentsCreateWithResponse(ctx, rgScope, name1, createParams(), body)
			if err != nil {
				return outcome{err: err}
			}
			if r.JSON201 != nil {
				returned[i] = r.JSON201
			} else if r.JSON200 != nil {
				returned[i] = r.JSON200
			}
			return outcomeOf(r.StatusCode(), r.Body, nil)
		}
	})
	got := tally(t, results)
	want := map[string]int{"200": n - 1, "201": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}

	// Every response shows what its own request set; all share the creation time.
	var createdOn time.Time
	for i, r := range results {
		if r.status == http.StatusCreated {
			createdOn = *returned[i].Properties.CreatedOn
		}
	}
	for i, a := range returned {
		if a == nil {
			continue
		}
		if d := a.Properties.Description; d == nil || *d != descriptions[i] {
			t.Errorf("response %d: description %v, want %q", i, d, descriptions[i])
		}
		if !a.Properties.CreatedOn.Equal(createdOn) {
			t.Errorf("response %d: createdOn %v, want %v (of the create)", i, a.Properties.CreatedOn, createdOn)
		}
	}

	resp, err := c.RoleAssignmentsGetWithResponse(ctx, rgScope, name1, &gen.RoleAssignmentsGetParams{ApiVersion: apiVersion})
	if err != nil || resp.StatusCode() != http.StatusOK {
		t.Fatalf("get: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	if d := resp.JSON200.Properties.Description; d == nil || !sent[*d] {
		t.Errorf("final description %v is none of those sent", d)
	}
	if n := len(listNames(t, c, subScope, "")); n != 1 {
		t.Errorf("%d assignments stored, want 1", n)
	}
}

func TestRaceLimitPerSubscription(t *testing.T) {
	const (
		n     = 48
		limit = 10
	)
	e := newEnv(t, func(c *authorization.Config) { c.MaxPerSubscription = limit })
	c := e.client("token", true)
	// Spread over the subscription, its resource groups and a resource: all count.
	scopes := []string{subScope, rgScope, rgScope + "/providers/Vendor.Storage/storageAccounts/acct1", subScope + "/resourceGroups/rg2"}
	results := stampede(n, func(i int) func() outcome {
		scope, name := scopes[i%len(scopes)], newGUID()
		body := gen.RoleAssignmentCreateParameters{Properties: props(newGUID(), readerID)}
		return func() outcome {
			r, err := c.RoleAssignmentsCreateWithResponse(ctx, scope, name, createParams(), body)
			if err != nil {
				return outcome{err: err}
			}
			return outcomeOf(r.StatusCode(), r.Body, nil)
		}
	})
	got := tally(t, results)
	want := map[string]int{"201": limit, "400 RoleAssignmentLimitExceeded": n - limit}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if stored := len(listNames(t, c, subScope, "")); stored != limit {
		t.Errorf("%d assignments stored, want %d", stored, limit)
	}
	// Another subscription is not affected.
	mustPut(t, c, "subscriptions/0b1f6471-1bf0-4dda-aec3-0000000000e1", newGUID(), props(principal1, readerID), http.StatusCreated)
}

// walk lists scope page by page ($top per page) through the skip tokens of the nextLinks.
// It returns the names in the order seen, or the first failure.
func walk(c *gen.ClientWithResponses, scope string, top int32) ([]string, error) {
	params := &gen.RoleAssignmentsListForScopeParams{ApiVersion: apiVersion, Top: &top}
	var names []string
	for pages := 0; ; pages++ {
		if pages > 1000 {
			return names, fmt.Errorf("more than 1000 pages")
		}
		resp, err := c.RoleAssignmentsListForScopeWithResponse(ctx, scope, params)
		if err != nil {
			return names, err
		}
		if resp.StatusCode() != http.StatusOK {
			return names, fmt.Errorf("page %d: status %d: %s", pages, resp.StatusCode(), resp.Body)
		}
		if len(resp.JSON200.Value) > int(top) {
			return names, fmt.Errorf("page %d has %d entries, want at most %d", pages, len(resp.JSON200.Value), top)
		}
		for _, a := range resp.JSON200.Value {
			names = append(names, *a.Name)
		}
		if resp.JSON200.NextLink == nil {
			return names, nil
		}
		next, err := url.Parse(*resp.JSON200.NextLink)
		if err != nil {
			return names, err
		}
		tok := next.Query().Get("$skipToken")
		if tok == "" {
			return names, fmt.Errorf("nextLink %q has no $skipToken", *resp.JSON200.NextLink)
		}
		params.SkipToken = &tok
	}
}

func TestRaceCreateDeleteWhileListing(t *testing.T) {
	e := newEnv(t)
	c := e.client("token", true)
	scopes := []string{
		subScope,
		rgScope,
		rgScope + "/providers/Vendor.Storage/storageAccounts/acct1",
		subScope + "/resourceGroups/rg2",
		subScope + "/resourceGroups/rg2/providers/Vendor.Network/virtualNetworks/v/subnets/s",
	}
	type fixture struct{ scope, name string }
	var doomed, stable []fixture
	for i := range 40 {
		f := fixture{scopes[i%len(scopes)], newGUID()}
		mustPut(t, c, f.scope, f.name, props(newGUID(), readerID), http.StatusCreated)
		if i%2 == 0 {
			doomed = append(doomed, f)
		} else {
			stable = append(stable, f)
		}
	}
	var fresh []fixture
	for i := range 40 {
		fresh = append(fresh, fixture{scopes[i%len(scopes)], newGUID()})
	}

	// Listers page through the subscription and a resource group until the writers are
	// done. A walk never sees an entry twice, and always sees every assignment that exists
	// for the whole walk.
	listAt := []string{subScope, rgScope}
	stopListing := make(chan struct{})
	var listers sync.WaitGroup
	walks := make([]int, len(listAt))
	for li, scope := range listAt {
		listers.Add(1)
		go func() {
			defer listers.Done()
			for {
				if walks[li] > 0 { // at least one walk, however fast the writers are
					select {
					case <-stopListing:
						return
					default:
					}
				}
				names, err := walk(c, scope, 3)
				if err != nil {
					t.Errorf("list %s: %v", scope, err)
					return
				}
				walks[li]++
				seen := map[string]bool{}
				for _, n := range names {
					if seen[n] {
						t.Errorf("list %s: %s listed twice in one walk", scope, n)
					}
					seen[n] = true
				}
				for _, f := range stable {
					related := authorization.Covers(strings.ToLower(f.scope), strings.ToLower(scope)) ||
						authorization.Covers(strings.ToLower(scope), strings.ToLower(f.scope))
					if related != seen[f.name] {
						t.Errorf("list %s: %s at %s listed = %v, want %v", scope, f.name, f.scope, seen[f.name], related)
					}
				}
			}
		}()
	}

	// Writers: creates and deletes, all at once.
	results := stampede(len(fresh)+len(doomed), func(i int) func() outcome {
		if i < len(fresh) {
			f := fresh[i]
			body := gen.RoleAssignmentCreateParameters{Properties: props(newGUID(), readerID)}
			return func() outcome {
				r, err := c.RoleAssignmentsCreateWithResponse(ctx, f.scope, f.name, createParams(), body)
				if err != nil {
					return outcome{err: err}
				}
				return outcomeOf(r.StatusCode(), r.Body, nil)
			}
		}
		f := doomed[i-len(fresh)]
		return func() outcome {
			r, err := c.RoleAssignmentsDeleteWithResponse(ctx, f.scope, f.name, &gen.RoleAssignmentsDeleteParams{ApiVersion: apiVersion})
			if err != nil {
				return outcome{err: err}
			}
			return outcomeOf(r.StatusCode(), r.Body, nil)
		}
	})
	close(stopListing)
	listers.Wait()

	for i, r := range results {
		if r.status >= 500 {
			t.Errorf("request %d: %d %s", i, r.status, r.body)
		}
	}
	got := tally(t, results)
	want := map[string]int{"201": len(fresh), "200": len(doomed)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("writers got %v, want %v", got, want)
	}
	for li, n := range walks {
		if n == 0 {
			t.Errorf("list %s: no walk completed", listAt[li])
		}
	}

	var wantNames []string
	for _, f := range append(stable, fresh...) {
		wantNames = append(wantNames, f.name)
	}
	sort.Strings(wantNames)
	gotNames, err := walk(c, subScope, 3)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(gotNames)
	if strings.Join(gotNames, " ") != strings.Join(wantNames, " ") {
		t.Errorf("final list (%d):\n%v\nwant (%d):\n%v", len(gotNames), gotNames, len(wantNames), wantNames)
	}
	if unpaged := listNames(t, c, subScope, ""); len(unpaged) != len(wantNames) {
		t.Errorf("unpaged list has %d, want %d", len(unpaged), len(wantNames))
	}
}
