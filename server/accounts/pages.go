package accounts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// listToken is what a page URL of events or event destinations carries: where the page
// starts, and the filter of the list it belongs to (as JSON), which must come back with it.
type listToken struct {
	After  string          `json:"a"`
	Filter json.RawMessage `json:"f,omitempty"`
}

// scanFn walks a scope's items newest first from after (nil: the start), calling each with
// every item the filter keeps until each answers false; backFn walks from at towards the
// newest, the same way.
type (
	scanFn func(tx *store.Tx, scope string, after *store.Cursor, each func(store.Cursor) bool)
	backFn func(tx *store.Tx, scope string, at store.Cursor, each func(store.Cursor) bool)
)

// atOrBefore is the position just after the cursor's entry: a reverse scan from it starts
// at that entry.
func atOrBefore(c store.Cursor) *store.Cursor {
	return &store.Cursor{Key: c.Key, PK: c.PK + "\x00"}
}

// listPage runs one page of a newest-first list of the caller's scope, as ListAccounts
// pages: limit items (10 by default) after the page token's position, and the relative URLs
// of the next and previous pages (null at either end), which repeat the filter. A token
// sent with another filter than its list's is refused.
func (s *Server) listPage(ctx context.Context, path string, limitParam *gen.Limit, page *gen.Page, filter any, query url.Values,
	forward scanFn, backward backFn, next, prev *nullable.Nullable[string]) error {
	limit := 10
	if limitParam != nil {
		limit = int(*limitParam)
	}
	f, err := json.Marshal(filter)
	if err != nil {
		return err
	}
	var after *store.Cursor
	current := page != nil && *page != ""
	if current {
		var tok listToken
		raw, err := base64.RawURLEncoding.DecodeString(*page)
		if err == nil {
			err = json.Unmarshal(raw, &tok)
		}
		cur, ok := store.ParseCursor(tok.After)
		if err != nil || !ok {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "page: not a page token this server issued; use next_page_url or previous_page_url as they are")
		}
		if string(tok.Filter) != string(f) {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "page: the page token belongs to a list with other filters; use next_page_url or previous_page_url as they are")
		}
		after = &cur
	}
	token := func(c store.Cursor) string {
		raw, _ := json.Marshal(listToken{After: c.String(), Filter: f})
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	pageURL := func(tok string) string {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		q.Set("limit", strconv.Itoa(limit))
		if tok != "" {
			q.Set("page", tok)
		}
		return path + "?" + q.Encode()
	}
	scope := callerFrom(ctx).scope()
	n, more := 0, false
	var last store.Cursor
	prevToken := ""
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		if after != nil {
			seen := 0
			backward(tx, scope, *after, func(c store.Cursor) bool {
				if seen == limit {
					prevToken = token(c)
					return false
				}
				seen++
				return true
			})
		}
		forward(tx, scope, after, func(c store.Cursor) bool {
			if n == limit {
				more = true
				return false
			}
			n++
			last = c
			return true
		})
		return nil
	}); err != nil {
		return err
	}
	next.SetNull()
	prev.SetNull()
	if more {
		next.Set(pageURL(token(last)))
	}
	if current {
		prev.Set(pageURL(prevToken))
	}
	return nil
}
