package compute

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/gcefilter"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// listQuery is a list call's filter, page size, page token and order.
type listQuery struct {
	filter      *gcefilter.Filter // nil when not filtered
	maxResults  int
	after       string // the sort key of the last item of the previous page
	newestFirst bool   // orderBy creationTimestamp desc (else by name)
	aggregated  bool   // an aggregatedList: items are ordered by scope first
	kind        string // what is listed (the wire type's name), which page tokens carry
}

// parseListQuery reads the parameters of a list whose items are W (the generated wire
// type). The filter is held to W's members (see gcefilter); a malformed one, or one naming
// a field W does not have, is refused rather than silently ignored. Every list hooks in
// with it and page.
func parseListQuery[W any](filter, pageToken, orderBy string, maxResults *int) (listQuery, error) {
	return parseQuery[W](listQuery{}, filter, pageToken, orderBy, maxResults)
}

// parseAggregatedQuery reads the parameters of an aggregatedList whose items are W.
func parseAggregatedQuery[W any](filter, pageToken, orderBy string, maxResults *int) (listQuery, error) {
	return parseQuery[W](listQuery{aggregated: true}, filter, pageToken, orderBy, maxResults)
}

func parseQuery[W any](q listQuery, filter, pageToken, orderBy string, maxResults *int) (listQuery, error) {
	q.kind = reflect.TypeFor[W]().Name()
	q.maxResults = 500
	if maxResults != nil && *maxResults > 0 {
		q.maxResults = *maxResults
	}
	f, err := gcefilter.Parse(filter) // untrimmed, so that positions count in what was sent
	if err == nil {
		err = f.Check(reflect.TypeFor[W]())
	}
	if err != nil {
		return q, invalidField("filter", fmt.Sprintf("Invalid value for field 'filter': '%s'. %s", filter, err))
	}
	q.filter = f
	// GCE refuses the pair before it reads the order (kubeip issue 132 quotes an order
	// it would not take alone), so this comes first.
	if f != nil && strings.TrimSpace(orderBy) != "" {
		return q, invalidField("orderBy", fmt.Sprintf("Invalid value for field 'orderBy': '%s'. Specifying both a list filter and sort order is not currently supported.", orderBy))
	}
	switch strings.TrimSpace(orderBy) {
	case "", "name":
	case "creationTimestamp desc":
		q.newestFirst = true
	default:
		return q, invalidField("orderBy", fmt.Sprintf("Invalid value for field 'orderBy': '%s'. Supported values are 'name' and 'creationTimestamp desc'.", orderBy))
	}
	if pageToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(pageToken)
		after, ok := strings.CutPrefix(string(raw), q.tokenPrefix())
		if err != nil || !ok {
			return q, invalidField("pageToken", fmt.Sprintf("Invalid value for field 'pageToken': '%s'. Pass the nextPageToken of the previous page, with the same orderBy.", pageToken))
		}
		q.after = after
	}
	return q, nil
}

// tokenPrefix starts every page token's content: a version, the order the token continues
// and the kind of resource listed, so that a made-up token, or one from a list in the other
// order or of other resources, is refused rather than read as a position.
func (q listQuery) tokenPrefix() string {
	prefix := "2n|"
	if q.newestFirst {
		prefix = "2c|"
	}
	if q.aggregated {
		prefix = "a" + prefix
	}
	return prefix + q.kind + "|"
}

// listItem is what paging needs of a listed resource.
type listItem struct {
	name    string
	created time.Time
	seq     uint64 // tie-break for equal timestamps
	scope   string // of an aggregatedList's item: "global" or "regions/<region>"
}

// item is the listItem of a resource with the creationTimestamp created.
func item(name string, created *string, seq uint64) listItem {
	it := listItem{name: name, seq: seq}
	if created != nil {
		it.created, _ = timefmt.Parse(*created) // written by timestamp
	}
	return it
}

// sortKey orders items for the query: by name, or newest first.
func (q listQuery) sortKey(it listItem) string {
	key := it.name
	if q.newestFirst {
		key = fmt.Sprintf("%020d|%020d|%s", ^uint64(it.created.UnixNano()), ^it.seq, it.name)
	}
	if q.aggregated {
		return it.scope + "\x00" + key
	}
	return key
}

// page filters items on their wire form (render(i) is item i as the list returns it),
// orders and cuts them: it returns one page in wire form and the next page token ("" on
// the last page). Without a filter only the page is rendered.
func page[W any](items []listItem, q listQuery, render func(i int) W) (out []W, next string, err error) {
	_, out, next, err = pageOf(items, q, render)
	return out, next, err
}

// listPage is the page q asks for of the records of t whose path starts with prefix,
// rendered; records whose insert still runs are not listed. next is nil on the last page.
func listPage[R interface{ listed() (listItem, bool) }, W any](tx *store.Tx, t *store.Table[R], prefix string, q listQuery, render func(R) W) (out []W, next *string, err error) {
	var all []R
	var items []listItem
	scanPrefix(tx, t, prefix, func(r R) bool {
		if it, ok := r.listed(); ok {
			all, items = append(all, r), append(items, it)
		}
		return true
	})
	out, token, err := page(items, q, func(i int) W { return render(all[i]) })
	if err != nil || token == "" {
		return out, nil, err
	}
	return out, &token, nil
}

// pageOf is page that also returns the indexes of the items on the page.
func pageOf[W any](items []listItem, q listQuery, render func(i int) W) (idx []int, out []W, next string, err error) {
	order := make([]int, 0, len(items))
	var rendered map[int]W
	if q.filter != nil {
		rendered = make(map[int]W)
	}
	for i, it := range items {
		if q.after != "" && q.sortKey(it) <= q.after {
			continue
		}
		if q.filter != nil {
			w := render(i)
			ok, err := q.filter.MatchValue(w)
			if err != nil {
				return nil, nil, "", err
			}
			if !ok {
				continue
			}
			rendered[i] = w
		}
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool { return q.sortKey(items[order[a]]) < q.sortKey(items[order[b]]) })
	if len(order) > q.maxResults {
		last := items[order[q.maxResults-1]]
		next = base64.RawURLEncoding.EncodeToString([]byte(q.tokenPrefix() + q.sortKey(last)))
		order = order[:q.maxResults]
	}
	for _, i := range order {
		if w, ok := rendered[i]; ok {
			out = append(out, w)
		} else {
			out = append(out, render(i))
		}
	}
	return order, out, next, nil
}
