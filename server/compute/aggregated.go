package compute

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// InterconnectAttachmentsAggregatedList lists a project's attachments of every region, by
// scope. Every region an attachment can be in (the catalog's) is a scope of the answer.
func (s *Server) InterconnectAttachmentsAggregatedList(ctx context.Context, req gen.InterconnectAttachmentsAggregatedListRequestObject) (gen.InterconnectAttachmentsAggregatedListResponseObject, error) {
	p := req.Params
	q, err := parseAggregatedQuery[gen.InterconnectAttachment](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := "projects/" + req.Project + "/aggregated/interconnectAttachments"
	out := gen.InterconnectAttachmentAggregatedList{Kind: gen.InterconnectAttachmentAggregatedListKindComputeInterconnectAttachmentAggregatedList, Id: path, SelfLink: s.link(ctx, path)}
	scopes := s.regionScopes()
	if deref(p.IncludeAllScopes) {
		// Attachments are regional: the global scope is listed, always empty.
		scopes = append(scopes, "global")
	}
	l := s.links(ctx)
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var all []gen.InterconnectAttachment
		var items []listItem
		scanPrefix(tx, s.tables.attachments, "projects/"+req.Project+"/regions/", func(r AttachmentRecord) bool {
			if it, ok := r.listed(); ok {
				it.scope = "regions/" + regionOf(*r.Attachment.Region)
				all, items, scopes = append(all, r.Attachment), append(items, it), append(scopes, it.scope)
			}
			return true
		})
		var next string
		out.Items, next, err = aggregate(items, q, scopes,
			func(i int) gen.InterconnectAttachment { return l.attachment(all[i]) },
			func(page []gen.InterconnectAttachment, w *gen.OperationWarning) gen.InterconnectAttachmentsScopedList {
				return gen.InterconnectAttachmentsScopedList{InterconnectAttachments: page, Warning: w}
			})
		if next != "" {
			out.NextPageToken = &next
		}
		return err
	}); err != nil {
		return nil, err
	}
	return gen.InterconnectAttachmentsAggregatedList200JSONResponse(out), nil
}

// GlobalOperationsAggregatedList lists a project's operations of every scope: global, and
// each region.
func (s *Server) GlobalOperationsAggregatedList(ctx context.Context, req gen.GlobalOperationsAggregatedListRequestObject) (gen.GlobalOperationsAggregatedListResponseObject, error) {
	p := req.Params
	q, err := parseAggregatedQuery[gen.Operation](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := "projects/" + req.Project + "/aggregated/operations"
	out := gen.OperationAggregatedList{Kind: gen.OperationAggregatedListKindComputeOperationAggregatedList, Id: path, SelfLink: s.link(ctx, path)}
	scopes := append([]string{"global"}, s.regionScopes()...)
	all, err := s.ops.List(ctx, "projects/"+req.Project+"/")
	if err != nil {
		return nil, err
	}
	l := s.links(ctx)
	var items []listItem
	var ops []gen.Operation
	for _, op := range all {
		scope := strings.TrimPrefix(op.Scope(), "projects/"+req.Project+"/")
		if scope != "global" && !slices.Contains(scopes, scope) {
			continue // a region outside the catalog's: no list shows it
		}
		it := item(op.Name(), op.Op.InsertTime, op.Seq)
		it.scope = scope
		items, ops = append(items, it), append(ops, l.operation(op))
	}
	var next string
	out.Items, next, err = aggregate(items, q, scopes,
		func(i int) gen.Operation { return ops[i] },
		func(page []gen.Operation, w *gen.OperationWarning) gen.OperationsScopedList {
			return gen.OperationsScopedList{Operations: page, Warning: w}
		})
	if err != nil {
		return nil, err
	}
	if next != "" {
		out.NextPageToken = &next
	}
	return gen.GlobalOperationsAggregatedList200JSONResponse(out), nil
}

// regionScopes are the scopes ("regions/<region>") of every region the location catalog
// reaches: those where regional resources and their operations can be.
func (s *Server) regionScopes() []string {
	var scopes []string
	for _, name := range s.locations.names {
		for _, r := range s.locations.byName[name].Regions {
			scopes = append(scopes, "regions/"+r)
		}
	}
	sort.Strings(scopes)
	return slices.Compact(scopes)
}

// aggregate pages items (each with its scope) and groups the page by scope into lists made
// by scoped. Every scope named in scopes is a key of the answer; one with nothing on this
// page carries the warning the real service gives it instead of items.
func aggregate[W, L any](items []listItem, q listQuery, scopes []string, render func(i int) W, scoped func([]W, *gen.OperationWarning) L) (map[string]L, string, error) {
	idx, page, next, err := pageOf(items, q, render)
	if err != nil {
		return nil, "", err
	}
	byScope := map[string][]W{}
	for n, i := range idx {
		byScope[items[i].scope] = append(byScope[items[i].scope], page[n])
	}
	sort.Strings(scopes)
	out := make(map[string]L, len(scopes))
	for _, scope := range scopes {
		if _, done := out[scope]; done {
			continue
		}
		if ws := byScope[scope]; len(ws) > 0 {
			out[scope] = scoped(ws, nil)
			continue
		}
		out[scope] = scoped(nil, noResultsOnPage(scope))
	}
	return out, next, nil
}

// noResultsOnPage is the warning of a scope without items on a page of an aggregatedList.
func noResultsOnPage(scope string) *gen.OperationWarning {
	code, key := gen.OperationWarningCodeNORESULTSONPAGE, "scope"
	msg := fmt.Sprintf("There are no results for scope '%s' on this page.", scope)
	return &gen.OperationWarning{Code: &code, Message: &msg, Data: []gen.OperationWarningData{{Key: &key, Value: &scope}}}
}

// ForwardingRulesAggregatedList lists a project's forwarding rules of every scope: the
// global rules under "global", each region's under "regions/<region>", and every region of
// the catalog, with the warning of an empty scope where it has none on the page.
func (s *Server) ForwardingRulesAggregatedList(ctx context.Context, req gen.ForwardingRulesAggregatedListRequestObject) (gen.ForwardingRulesAggregatedListResponseObject, error) {
	p := req.Params
	q, err := parseAggregatedQuery[gen.ForwardingRule](deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), maxResultsOf(p.MaxResults))
	if err != nil {
		return nil, err
	}
	path := "projects/" + req.Project + "/aggregated/forwardingRules"
	out := gen.ForwardingRuleAggregatedList{Kind: gen.ForwardingRuleAggregatedListKindComputeForwardingRuleAggregatedList, Id: path, SelfLink: s.link(ctx, path)}
	scopes := append([]string{"global"}, s.regionScopes()...)
	l := s.links(ctx)
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		var all []gen.ForwardingRule
		var items []listItem
		// The rules table holds only rules: the project's prefix covers every scope.
		scanPrefix(tx, s.tables.rules, "projects/"+req.Project+"/", func(r RuleRecord) bool {
			if it, ok := r.listed(); ok {
				it.scope = "global"
				if r.Rule.Region != nil {
					it.scope = "regions/" + regionOf(*r.Rule.Region)
				}
				all, items, scopes = append(all, r.Rule), append(items, it), append(scopes, it.scope)
			}
			return true
		})
		var next string
		out.Items, next, err = aggregate(items, q, scopes,
			func(i int) gen.ForwardingRule { return l.rule(all[i]) },
			func(page []gen.ForwardingRule, w *gen.OperationWarning) gen.ForwardingRulesScopedList {
				return gen.ForwardingRulesScopedList{ForwardingRules: page, Warning: w}
			})
		if next != "" {
			out.NextPageToken = &next
		}
		return err
	}); err != nil {
		return nil, err
	}
	return gen.ForwardingRulesAggregatedList200JSONResponse(out), nil
}
