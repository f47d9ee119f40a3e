package compute

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

func globalScope(project string) string         { return "projects/" + project + "/global" }
func regionScope(project, region string) string { return "projects/" + project + "/regions/" + region }

// targetCollections are, for the operations of each kind, the collection of the resource
// they act on: such an operation's targetLink is derived when it is read, from its scope and
// target key (the resource's name is the key's last part), so that it names the host the
// client used. Other operations (setLabels, patch) store theirs.
var targetCollections = map[string]string{
	kindRuleInsert: "/forwardingRules/", kindRuleDelete: "/forwardingRules/",
	kindGroupInsert: "/interconnectAttachmentGroups/", kindGroupDelete: "/interconnectAttachmentGroups/",
	kindInterconnectInsert: "/interconnects/", kindInterconnectDelete: "/interconnects/",
	kindAttachmentInsert: "/interconnectAttachments/", kindAttachmentDelete: "/interconnectAttachments/",
	kindICGroupInsert: "/interconnectGroups/", kindICGroupDelete: "/interconnectGroups/",
}

// targetLink is the targetLink of op: the one it stores, else its target's, derived (see
// targetCollections). A seeded operation stores its target's path (projects/...), shown
// as a URL of this server as a derived one is.
func (s *Server) targetLink(ctx context.Context, op operations.Operation) string {
	if strings.HasPrefix(op.TargetLink, "projects/") {
		return s.link(ctx, op.TargetLink)
	}
	if op.TargetLink != "" {
		return op.TargetLink
	}
	collection, ok := targetCollections[op.Kind]
	if !ok {
		return ""
	}
	return s.link(ctx, op.Scope+collection+op.Target[strings.LastIndexByte(op.Target, '|')+1:])
}

// GlobalOperationsGet reads a global operation (by name or id).
func (s *Server) GlobalOperationsGet(ctx context.Context, req gen.GlobalOperationsGetRequestObject) (gen.GlobalOperationsGetResponseObject, error) {
	op, err := s.getOperation(globalScope(req.Project), req.Operation)
	if err != nil {
		return nil, err
	}
	return gen.GlobalOperationsGet200JSONResponse(s.renderOperation(ctx, op)), nil
}

// RegionOperationsGet reads a regional operation.
func (s *Server) RegionOperationsGet(ctx context.Context, req gen.RegionOperationsGetRequestObject) (gen.RegionOperationsGetResponseObject, error) {
	op, err := s.getOperation(regionScope(req.Project, req.Region), req.Operation)
	if err != nil {
		return nil, err
	}
	return gen.RegionOperationsGet200JSONResponse(s.renderOperation(ctx, op)), nil
}

// GlobalOperationsWait waits for a global operation to be DONE (or for the deadline).
func (s *Server) GlobalOperationsWait(ctx context.Context, req gen.GlobalOperationsWaitRequestObject) (gen.GlobalOperationsWaitResponseObject, error) {
	op, err := s.waitOperation(ctx, globalScope(req.Project), req.Operation)
	if err != nil {
		return nil, err
	}
	return gen.GlobalOperationsWait200JSONResponse(s.renderOperation(ctx, op)), nil
}

// RegionOperationsWait waits for a regional operation.
func (s *Server) RegionOperationsWait(ctx context.Context, req gen.RegionOperationsWaitRequestObject) (gen.RegionOperationsWaitResponseObject, error) {
	op, err := s.waitOperation(ctx, regionScope(req.Project, req.Region), req.Operation)
	if err != nil {
		return nil, err
	}
	return gen.RegionOperationsWait200JSONResponse(s.renderOperation(ctx, op)), nil
}

// GlobalOperationsDelete forgets a global operation.
func (s *Server) GlobalOperationsDelete(ctx context.Context, req gen.GlobalOperationsDeleteRequestObject) (gen.GlobalOperationsDeleteResponseObject, error) {
	if err := s.deleteOperation(globalScope(req.Project), req.Operation); err != nil {
		return nil, err
	}
	return gen.GlobalOperationsDelete204Response{}, nil
}

// RegionOperationsDelete forgets a regional operation.
func (s *Server) RegionOperationsDelete(ctx context.Context, req gen.RegionOperationsDeleteRequestObject) (gen.RegionOperationsDeleteResponseObject, error) {
	if err := s.deleteOperation(regionScope(req.Project, req.Region), req.Operation); err != nil {
		return nil, err
	}
	return gen.RegionOperationsDelete204Response{}, nil
}

// GlobalOperationsList lists a project's global operations.
func (s *Server) GlobalOperationsList(ctx context.Context, req gen.GlobalOperationsListRequestObject) (gen.GlobalOperationsListResponseObject, error) {
	p := req.Params
	list, err := s.listOperations(ctx, globalScope(req.Project), deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), p.MaxResults)
	if err != nil {
		return nil, err
	}
	return gen.GlobalOperationsList200JSONResponse(list), nil
}

// RegionOperationsList lists a project's operations in a region.
func (s *Server) RegionOperationsList(ctx context.Context, req gen.RegionOperationsListRequestObject) (gen.RegionOperationsListResponseObject, error) {
	p := req.Params
	list, err := s.listOperations(ctx, regionScope(req.Project, req.Region), deref(p.Filter), deref(p.PageToken), deref(p.OrderBy), p.MaxResults)
	if err != nil {
		return nil, err
	}
	return gen.RegionOperationsList200JSONResponse(list), nil
}

func (s *Server) getOperation(scope, name string) (operations.Operation, error) {
	op, err := s.ops.Get(scope, name)
	if errors.Is(err, operations.ErrNotFound) {
		return op, notFound(scope + "/operations/" + name)
	}
	return op, err
}

func (s *Server) waitOperation(ctx context.Context, scope, name string) (operations.Operation, error) {
	op, err := s.ops.Wait(ctx, scope, name)
	if errors.Is(err, operations.ErrNotFound) {
		return op, notFound(scope + "/operations/" + name)
	}
	return op, err
}

func (s *Server) deleteOperation(scope, name string) error {
	if err := s.ops.Delete(scope, name); errors.Is(err, operations.ErrNotFound) {
		return notFound(scope + "/operations/" + name)
	} else if err != nil {
		return err
	}
	return nil
}

func (s *Server) listOperations(ctx context.Context, scope, filter, pageToken, orderBy string, maxResults *uint32) (gen.OperationList, error) {
	q, err := parseListQuery[gen.Operation](filter, pageToken, orderBy, maxResultsOf(maxResults))
	if err != nil {
		return gen.OperationList{}, err
	}
	all, err := s.ops.List(scope)
	if err != nil {
		return gen.OperationList{}, err
	}
	items := make([]listItem, len(all))
	for i, op := range all {
		items[i] = listItem{name: op.Name, created: op.InsertTime, seq: op.Seq}
	}
	out := gen.OperationList{Kind: gen.OperationListKindComputeOperationList, Id: scope + "/operations", SelfLink: s.link(ctx, scope+"/operations")}
	var next string
	out.Items, next, err = page(items, q, func(i int) gen.Operation { return s.renderOperation(ctx, all[i]) })
	if err != nil {
		return gen.OperationList{}, err
	}
	if next != "" {
		out.NextPageToken = &next
	}
	return out, nil
}

func maxResultsOf(p *uint32) *int {
	if p == nil {
		return nil
	}
	n := int(*p)
	return &n
}

// renderOperation is the wire form of an operation.
func (s *Server) renderOperation(ctx context.Context, op operations.Operation) gen.Operation {
	insert := timestamp(op.InsertTime)
	out := gen.Operation{
		Kind: ptr(gen.OperationKindComputeOperation), Id: &op.ID, Name: &op.Name, OperationType: &op.OperationType,
		TargetLink: s.targetLink(ctx, op), SelfLink: s.link(ctx, op.Scope+"/operations/"+op.Name),
		Status: ptr(gen.OperationStatus(op.Status)), Progress: ptr(int32(op.Progress)), User: &op.User,
		InsertTime: &insert, CreationTimestamp: &insert, TargetId: optional(op.TargetID),
		ClientOperationId: optional(op.ClientOperationID), Description: optional(op.Description),
	}
	if _, region, ok := cutRegion(op.Scope); ok {
		out.Region = ptr(s.link(ctx, "projects/"+op.Project+"/regions/"+region))
	}
	if !op.StartTime.IsZero() {
		out.StartTime = ptr(timestamp(op.StartTime))
	}
	if op.Done() {
		out.EndTime = ptr(timestamp(op.EndTime))
		if f := op.Failure; f != nil {
			out.HttpErrorStatusCode, out.HttpErrorMessage = ptr(int32(f.HTTPStatus)), &f.HTTPMessage
			out.Error = &gen.OperationError{Errors: renderOperationErrors(f.Errors)}
		}
	}
	return out
}

func renderOperationErrors(errs []operations.ErrorItem) []gen.OperationErrorItem {
	out := make([]gen.OperationErrorItem, 0, len(errs))
	for _, e := range errs {
		item := gen.OperationErrorItem{Code: e.Code, Message: optional(e.Message), Location: optional(e.Location)}
		for _, d := range e.Details {
			item.ErrorDetails = append(item.ErrorDetails, detailAs(d))
		}
		out = append(out, item)
	}
	return out
}

func cutRegion(scope string) (project, region string, ok bool) {
	rest, ok := strings.CutPrefix(scope, "projects/")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, "/regions/")
}

// detailAs turns a stored error detail into the generated type, through its JSON form.
func detailAs(d map[string]any) gen.OperationErrorDetail {
	var out gen.OperationErrorDetail
	raw, _ := json.Marshal(d)
	_ = json.Unmarshal(raw, &out)
	return out
}
