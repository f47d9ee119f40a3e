package accounts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// CreateAccount creates an account of the caller's platform and mode.
func (s *Server) CreateAccount(ctx context.Context, req gen.CreateAccountRequestObject) (gen.CreateAccountResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := gen.CreateAccountRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	if err := checkMetadataKeys(deref(body.Metadata)); err != nil {
		return nil, err
	}
	c := callerFrom(ctx)
	tree := treeOf(body)
	delete(tree, "include")
	token, _ := take(tree, "account_token")
	var made Account // the account this request makes, if it makes one
	var madeObj map[string]any
	id, err := s.idempotent(ctx, "createAccount", req.Params.IdempotencyKey, body, func() (string, error) {
		id, now := s.randomID("acct_", 16), s.now()
		return id, s.update(ctx, func(w *write) error {
			a := Account{Platform: c.platform.id, Seq: s.next(w.Tx, seqAccounts)}
			obj := newAccountTree(id, now, c.livemode)
			if err := s.applyAccountToken(w.Tx, c, token, &a, obj); err != nil {
				return err
			}
			if err := applyAccount(&a, obj, tree); err != nil {
				return err
			}
			if err := s.writeAccount(ctx, w, nil, &a, obj); err != nil {
				return err
			}
			made, madeObj = a, obj
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	var out gen.V2CoreAccount
	if made.ID() == id {
		out, err = answerAccount(made, madeObj, nil, body.Include) // new: no persons
	} else { // a replay: the account the first request made, as it is now
		if made, err = s.account(ctx, id); err == nil {
			out, err = s.answer(ctx, made, body.Include)
		}
	}
	if err != nil {
		return nil, err
	}
	return gen.CreateAccount200JSONResponse{Body: out, Headers: gen.CreateAccount200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// RetrieveAccount reads an account of the caller's platform and mode.
func (s *Server) RetrieveAccount(ctx context.Context, req gen.RetrieveAccountRequestObject) (gen.RetrieveAccountResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	a, err := s.account(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := s.answer(ctx, a, req.Params.Include)
	if err != nil {
		return nil, err
	}
	return gen.RetrieveAccount200JSONResponse{Body: out, Headers: gen.RetrieveAccount200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// account finds an account of the caller's platform and mode; any other is not found.
func (s *Server) account(ctx context.Context, id string) (Account, error) {
	var a Account
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		a, found = s.getAccount(tx, id)
		return nil
	}); err != nil {
		return Account{}, err
	}
	if !found || a.Scope() != callerFrom(ctx).scope() {
		return a, errNotFound()
	}
	return a, nil
}

// pageToken is what a page URL carries: where the page starts, and the filters of the list
// it belongs to (the previous page is worked out from the start: previousPage).
type pageToken struct {
	After string `json:"a"`
	// Configs and Closed are the list's filter (listFilter).
	Configs []string `json:"c,omitempty"`
	Closed  bool     `json:"x,omitempty"`
}

// listFilter is what a list of accounts is narrowed by.
type listFilter struct {
	configs []string // applied_configurations: sorted, each once
	closed  bool
}

func listFilterOf(p gen.ListAccountsParams) listFilter {
	f := listFilter{closed: p.Closed != nil && *p.Closed}
	for _, c := range p.AppliedConfigurations {
		f.configs = append(f.configs, string(c))
	}
	slices.Sort(f.configs)
	f.configs = slices.Compact(f.configs)
	return f
}

// matches says whether an account is listed: it is closed or open as asked, and has every
// configuration asked for.
func (f listFilter) matches(a Account) bool {
	if a.Closed() != f.closed {
		return false
	}
	for _, name := range f.configs {
		if !a.Applied(name) {
			return false
		}
	}
	return true
}

// token is the page token of the page of this filtered list that starts after the cursor.
func (f listFilter) token(after store.Cursor) string {
	return encodeToken(pageToken{After: after.String(), Configs: f.configs, Closed: f.closed})
}

// madeFor says whether a page token was made for a list with this filter.
func (f listFilter) madeFor(t pageToken) bool {
	return f.closed == t.Closed && slices.Equal(f.configs, t.Configs)
}

// ListAccounts lists the caller's accounts, newest first, a page at a time, narrowed by
// applied_configurations and closed. Page URLs repeat the filter, and their token records
// it: a token sent with another filter is refused rather than used for a list it was not
// made for.
func (s *Server) ListAccounts(ctx context.Context, req gen.ListAccountsRequestObject) (gen.ListAccountsResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	limit := 10
	if req.Params.Limit != nil {
		limit = int(*req.Params.Limit)
	}
	filter := listFilterOf(req.Params)
	var after *store.Cursor
	var tok pageToken
	current := ""
	if req.Params.Page != nil && *req.Params.Page != "" {
		current = *req.Params.Page
		raw, err := base64.RawURLEncoding.DecodeString(current)
		if err == nil {
			err = json.Unmarshal(raw, &tok)
		}
		cur, ok := store.ParseCursor(tok.After)
		if err != nil || !ok {
			return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "page: not a page token this server issued; use next_page_url or previous_page_url as they are")
		}
		if !filter.madeFor(tok) {
			return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "page: the page token belongs to a list with other filters (applied_configurations, closed); use next_page_url or previous_page_url as they are")
		}
		after = &cur
	}
	scope := callerFrom(ctx).scope()
	data := make([]gen.V2CoreAccount, 0, limit)
	var last store.Cursor
	more := false
	prev := "" // the previous page's token; "" for the first page
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		if after != nil {
			prev = s.previousPage(tx, scope, *after, filter, limit)
		}
		var err error
		s.tables.Newest.Scan(tx, scope+"|", scope+"}", after, func(c store.Cursor, a Account) bool {
			if a = withHead(a); !filter.matches(a) {
				return true
			}
			if len(data) == limit {
				more = true
				return false
			}
			var o gen.V2CoreAccount
			if o, err = answerAccount(a, nil, nil, nil); err != nil {
				return false
			}
			data = append(data, o)
			last = c
			return true
		})
		return err
	}); err != nil {
		return nil, err
	}
	out := gen.V2CoreAccountList{Data: data}
	out.NextPageUrl.SetNull()
	out.PreviousPageUrl.SetNull()
	if more {
		out.NextPageUrl.Set(pageURL(limit, filter, filter.token(last)))
	}
	if current != "" {
		out.PreviousPageUrl.Set(pageURL(limit, filter, prev))
	}
	return gen.ListAccounts200JSONResponse{Body: out, Headers: gen.ListAccounts200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// previousPage is the token of the page before the one that starts after the cursor: the
// limit accounts the filter lists just before it start after the listed account that
// precedes them, or at the list's start ("") when none does. Worked out when asked, so a
// token holds one position, whatever page it is for, rather than the previous page's token,
// which would hold its own and grow with every page.
func (s *Server) previousPage(tx *store.Tx, scope string, after store.Cursor, filter listFilter, limit int) string {
	prev, n := "", 0
	s.tables.Newest.ScanReverse(tx, scope+"|", scope+"}", atOrBefore(after), func(c store.Cursor, a Account) bool {
		if !filter.matches(withHead(a)) {
			return true
		}
		if n == limit {
			prev = filter.token(c)
			return false
		}
		n++
		return true
	})
	return prev
}

func encodeToken(t pageToken) string {
	raw, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(raw)
}

// pageURL is a relative list URL, as the v2 API returns, with the list's filter.
func pageURL(limit int, f listFilter, token string) string {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if len(f.configs) > 0 {
		q["applied_configurations"] = f.configs
	}
	if f.closed {
		q.Set("closed", "true")
	}
	if token != "" {
		q.Set("page", token)
	}
	return "/v2/core/accounts?" + q.Encode()
}

func errNotFound() *Error {
	return invalidRequest(http.StatusNotFound, "not_found", "The resource wasn't found.")
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
