package compute

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/internal/gcefilter"
)

// listQuery is a list call's filter, page size, page token and order.
type listQuery struct {
	filter      *gcefilter.Filter // nil when not filtered
	maxResults  int
	after       string // the sort key of the last item of the previous page
	newestFirst bool   // orderBy creationTimestamp desc (else by name)
}

// parseListQuery reads the parameters of a list whose items are W (the generated wire
// type). The filter is held to W's members (see gcefilter); a malformed one, or one naming
// a field W does not have, is refused rather than silently ignored. Every list hooks in
// with it and page.
func parseListQuery[W any](filter, pageToken, orderBy string, maxResults *int) (listQuery, error) {
	q := listQuery{maxResults: 500}
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

// tokenPrefix starts every page token's content: a version and the order the token
// continues, so that a made-up token, or one from a list in the other order, is refused
// rather than read as a position.
func (q listQuery) tokenPrefix() string {
	if q.newestFirst {
		return "1c|"
	}
	return "1n|"
}

// listItem is what paging needs of a listed resource.
type listItem struct {
	name    string
	created time.Time
	seq     uint64 // tie-break for equal timestamps
}

// sortKey orders items for the query: by name, or newest first.
func (q listQuery) sortKey(it listItem) string {
	if q.newestFirst {
		return fmt.Sprintf("%020d|%020d|%s", ^uint64(it.created.UnixNano()), ^it.seq, it.name)
	}
	return it.name
}

// page filters items on their wire form (render(i) is item i as the list returns it),
// orders and cuts them: it returns one page in wire form and the next page token ("" on
// the last page). Without a filter only the page is rendered.
func page[W any](items []listItem, q listQuery, render func(i int) W) (out []W, next string, err error) {
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
				return nil, "", err
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
	return out, next, nil
}
