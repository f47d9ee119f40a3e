package accounts

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

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
	id, err := s.idempotent(ctx, "createAccount", req.Params.IdempotencyKey, body, func() (string, error) {
		id, created := s.randomID("acct_", 16), s.now()
		return id, s.db.Update(ctx, func(tx *store.Tx) error {
			a := Account{ID: id, Platform: c.platform.id, Livemode: c.livemode, Seq: s.next(tx, seqAccounts), Created: created}
			if err := s.applyAccountToken(tx, c, token, &a); err != nil {
				return err
			}
			if err := applyAccountTree(&a, tree); err != nil {
				return err
			}
			return s.writeAccount(ctx, tx, nil, a)
		})
	})
	if err != nil {
		return nil, err
	}
	a, err := s.account(ctx, id)
	if err != nil {
		return nil, err
	}
	return gen.CreateAccount200JSONResponse{Body: s.renderAccountNow(ctx, a, body.Include), Headers: gen.CreateAccount200ResponseHeaders{RequestId: requestID(ctx)}}, nil
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
	return gen.RetrieveAccount200JSONResponse{Body: s.renderAccountNow(ctx, a, req.Params.Include), Headers: gen.RetrieveAccount200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// account finds an account of the caller's platform and mode; any other is not found.
func (s *Server) account(ctx context.Context, id string) (Account, error) {
	var a Account
	found := false
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		a, found = s.tables.Accounts.Get(tx, id)
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
	if a.Closed != f.closed {
		return false
	}
	for _, name := range f.configs {
		if _, ok := a.Configurations[name]; !ok {
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
		s.tables.Newest.Scan(tx, scope+"|", scope+"}", after, func(c store.Cursor, a Account) bool {
			if !filter.matches(a) {
				return true
			}
			if len(data) == limit {
				more = true
				return false
			}
			data = append(data, renderAccount(a, nil, nil))
			last = c
			return true
		})
		return nil
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
		if !filter.matches(a) {
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

// applyAccountTree writes a request's members into the account: a create or update
// request, a seed entry's body, or an account token's details. It is the one place the
// account's members are decided. Members sent replace the stored ones and members sent as
// null are removed; objects (identity, defaults, a configuration's settings) are merged
// member by member; a configuration sent is applied with the capabilities it requests or
// withdraws, and one sent with applied: false is removed from the account.
func applyAccountTree(a *Account, tree map[string]any) error {
	for key, dst := range map[string]*string{"display_name": &a.DisplayName, "contact_email": &a.ContactEmail,
		"contact_phone": &a.ContactPhone, "dashboard": &a.Dashboard} {
		if v, ok := tree[key]; ok {
			*dst, _ = v.(string)
		}
	}
	if md, ok := tree["metadata"].(map[string]any); ok && len(md) > 0 {
		if a.Metadata == nil {
			a.Metadata = map[string]string{}
		}
		for k, v := range md {
			if s, ok := v.(string); ok {
				a.Metadata[k] = s
			} else {
				delete(a.Metadata, k)
			}
		}
		if len(a.Metadata) > maxMetadataKeys {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "metadata: an account keeps at most %d keys; this update would leave %d", maxMetadataKeys, len(a.Metadata))
		}
	}
	if id, ok := tree["identity"].(map[string]any); ok {
		id = cloneTree(id)
		if v, ok := take(id, "country"); ok {
			// Either case is taken; ISO 3166-1 writes codes in capitals, and so do we.
			s, _ := v.(string)
			a.Country = strings.ToUpper(s)
		}
		if v, ok := take(id, "entity_type"); ok {
			a.EntityType, _ = v.(string)
		}
		a.Details = mergeTree(a.Details, map[string]any{"identity": id})
	}
	if d, ok := tree["defaults"].(map[string]any); ok {
		a.Details = mergeTree(a.Details, map[string]any{"defaults": d})
	}
	if cfg, ok := tree["configuration"].(map[string]any); ok {
		for name, v := range cfg {
			applyConfiguration(a, name, v)
		}
	}
	return nil
}

// applyConfiguration applies one configuration of a request to the account.
func applyConfiguration(a *Account, name string, v any) {
	c, _ := v.(map[string]any)
	if applied, ok := c["applied"].(bool); v == nil || (ok && !applied) {
		delete(a.Configurations, name)
		if cfgs, ok := a.Details["configuration"].(map[string]any); ok {
			delete(cfgs, name)
		}
		a.OnboardedConfigurations = slices.DeleteFunc(a.OnboardedConfigurations, func(n string) bool { return n == name })
		return
	}
	c = cloneTree(c)
	delete(c, "applied")
	caps, _ := take(c, "capabilities")
	if a.Configurations == nil {
		a.Configurations = map[string]map[string]bool{}
	}
	if a.Configurations[name] == nil {
		a.Configurations[name] = map[string]bool{}
	}
	for path, requested := range capabilityPaths(caps) {
		a.Configurations[name][path] = requested
	}
	if len(c) > 0 {
		a.Details = mergeTree(a.Details, map[string]any{"configuration": map[string]any{name: c}})
	}
}

// capabilityPaths flattens a request's capabilities tree into path -> requested, e.g.
// stripe_balance.stripe_transfers -> true.
func capabilityPaths(caps any) map[string]bool {
	out := map[string]bool{}
	tree, _ := caps.(map[string]any)
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			sub, ok := v.(map[string]any)
			if !ok {
				continue
			}
			if req, ok := sub["requested"].(bool); ok {
				out[prefix+k] = req
				continue
			}
			walk(prefix+k+".", sub)
		}
	}
	walk("", tree)
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
