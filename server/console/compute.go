package console

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"

	computegen "github.com/understudy-dev/understudy/gen/compute"
	gen "github.com/understudy-dev/understudy/gen/console"
)

type computeData struct {
	Projects      []string
	Project       string
	Rules         []map[string]any
	Interconnects []map[string]any
	Attachments   []map[string]any
	Operations    []map[string]any
	Pictures      []picture
}

// ConsoleCompute shows a project's resources, read through the compute API's own list and
// get operations (the first page of each, up to 500), with each group's SLA picture.
func (c *Console) ConsoleCompute(ctx context.Context, req gen.ConsoleComputeRequestObject) (gen.ConsoleComputeResponseObject, error) {
	cp := c.d.Compute
	projects, err := cp.ConsoleProjects(ctx)
	if err != nil {
		return nil, err
	}
	d := computeData{Projects: projects}
	switch {
	case req.Params.Project != nil:
		d.Project = *req.Params.Project
	case len(projects) > 0:
		d.Project = projects[0]
	}
	if d.Project != "" {
		if err := c.readProject(ctx, &d); err != nil {
			return nil, err
		}
	}
	body, err := pageResponse(ctx, "compute", c.page("Compute", "compute", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleCompute200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

func (c *Console) readProject(ctx context.Context, d *computeData) error {
	cp, project := c.d.Compute, d.Project
	rules, err := cp.ForwardingRulesAggregatedList(ctx, computegen.ForwardingRulesAggregatedListRequestObject{Project: project})
	if err != nil {
		return err
	}
	if r, ok := rules.(computegen.ForwardingRulesAggregatedList200JSONResponse); ok { // global first, then each region's
		for _, scope := range sortedKeys(r.Items) {
			d.Rules = append(d.Rules, wire(r.Items[scope].ForwardingRules)...)
		}
	}
	ics, err := cp.InterconnectsList(ctx, computegen.InterconnectsListRequestObject{Project: project})
	if err != nil {
		return err
	}
	if r, ok := ics.(computegen.InterconnectsList200JSONResponse); ok {
		d.Interconnects = wire(r.Items)
	}
	atts, err := cp.InterconnectAttachmentsAggregatedList(ctx, computegen.InterconnectAttachmentsAggregatedListRequestObject{Project: project})
	if err != nil {
		return err
	}
	if r, ok := atts.(computegen.InterconnectAttachmentsAggregatedList200JSONResponse); ok {
		for _, scope := range sortedKeys(r.Items) {
			d.Attachments = append(d.Attachments, wire(r.Items[scope].InterconnectAttachments)...)
		}
	}
	ops, err := cp.GlobalOperationsAggregatedList(ctx, computegen.GlobalOperationsAggregatedListRequestObject{Project: project})
	if err != nil {
		return err
	}
	if r, ok := ops.(computegen.GlobalOperationsAggregatedList200JSONResponse); ok {
		for _, scope := range sortedKeys(r.Items) {
			d.Operations = append(d.Operations, wire(r.Items[scope].Operations)...)
		}
		sort.SliceStable(d.Operations, func(i, j int) bool { // newest first
			a, _ := d.Operations[i]["insertTime"].(string)
			b, _ := d.Operations[j]["insertTime"].(string)
			return a > b
		})
	}
	groups, err := cp.InterconnectAttachmentGroupsList(ctx, computegen.InterconnectAttachmentGroupsListRequestObject{Project: project})
	if err != nil {
		return err
	}
	if r, ok := groups.(computegen.InterconnectAttachmentGroupsList200JSONResponse); ok {
		for _, g := range r.Items {
			got, err := cp.InterconnectAttachmentGroupsGet(ctx, computegen.InterconnectAttachmentGroupsGetRequestObject{Project: project, InterconnectAttachmentGroup: g.Name})
			if err != nil {
				return err
			}
			if full, ok := got.(computegen.InterconnectAttachmentGroupsGet200JSONResponse); ok {
				d.Pictures = append(d.Pictures, attachmentGroupPicture(computegen.InterconnectAttachmentGroup(full)))
			}
		}
	}
	icGroups, err := cp.InterconnectGroupsList(ctx, computegen.InterconnectGroupsListRequestObject{Project: project})
	if err != nil {
		return err
	}
	if r, ok := icGroups.(computegen.InterconnectGroupsList200JSONResponse); ok {
		for _, g := range r.Items {
			got, err := cp.InterconnectGroupsGet(ctx, computegen.InterconnectGroupsGetRequestObject{Project: project, InterconnectGroup: g.Name})
			if err != nil {
				return err
			}
			if full, ok := got.(computegen.InterconnectGroupsGet200JSONResponse); ok {
				d.Pictures = append(d.Pictures, interconnectGroupPicture(computegen.InterconnectGroup(full)))
			}
		}
	}
	if !slices.Contains(d.Projects, project) && len(d.Rules)+len(d.Interconnects)+len(d.Attachments)+len(d.Operations)+len(d.Pictures) == 0 {
		return &pageError{Status: http.StatusNotFound, Message: "Project " + project + " holds nothing."}
	}
	return nil
}

// wire is each item as its JSON members: what the API answered, for the page to read.
func wire[T any](items []T) []map[string]any {
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		raw, err := json.Marshal(it)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
