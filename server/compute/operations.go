package compute

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
)

func globalScope(project string) string         { return "projects/" + project + "/global" }
func regionScope(project, region string) string { return "projects/" + project + "/regions/" + region }

// targetCollections are, for the operations of each kind, the collection of the resource
// they act on. Such an operation does not store its targetLink: it is derived when the
// operation is read, from the operation's scope and target key (the resource's name is the
// key's last part), so a stored operation does not keep a URL of its own (about 130 bytes,
// a tenth of what a rule insert keeps). Other operations (setLabels, patch) store theirs.
var targetCollections = map[string]string{
	kindRuleInsert: "/forwardingRules/", kindRuleDelete: "/forwardingRules/",
	kindGroupInsert: "/interconnectAttachmentGroups/", kindGroupDelete: "/interconnectAttachmentGroups/",
	kindInterconnectInsert: "/interconnects/", kindInterconnectDelete: "/interconnects/",
	kindAttachmentInsert: "/interconnectAttachments/", kindAttachmentDelete: "/interconnectAttachments/",
}

// targetLink is the targetLink of op: the one it stores (operations stored before links
// were derived keep theirs), else its target's, derived (see targetCollections).
func (s *Server) targetLink(ctx context.Context, op store.Operation) string {
	if op.TargetLink != "" {
		return op.TargetLink
	}
	collection, ok := targetCollections[op.Kind]
	if !ok {
		return ""
	}
	return s.link3(ctx, op.Scope, collection, op.Target[strings.LastIndexByte(op.Target, '|')+1:])
}

// GlobalOperationsGet reads a global operation (by name or id).
func (s *Server) GlobalOperationsGet(ctx context.Context, req gen.GlobalOperationsGetRequestObject) (gen.GlobalOperationsGetResponseObject, error) {
	op, err := s.getOperation(globalScope(req.Project), req.Operation)
	if err != nil {
		return nil, err
	}
	return s.replyOperation(ctx, op), nil
}

// RegionOperationsGet reads a regional operation.
func (s *Server) RegionOperationsGet(ctx context.Context, req gen.RegionOperationsGetRequestObject) (gen.RegionOperationsGetResponseObject, error) {
	op, err := s.getOperation(regionScope(req.Project, req.Region), req.Operation)
	if err != nil {
		return nil, err
	}
	return s.replyOperation(ctx, op), nil
}

// GlobalOperationsWait waits for a global operation to be DONE (or for the deadline).
func (s *Server) GlobalOperationsWait(ctx context.Context, req gen.GlobalOperationsWaitRequestObject) (gen.GlobalOperationsWaitResponseObject, error) {
	op, err := s.waitOperation(ctx, globalScope(req.Project), req.Operation)
	if err != nil {
		return nil, err
	}
	return s.replyOperation(ctx, op), nil
}

// RegionOperationsWait waits for a regional operation.
func (s *Server) RegionOperationsWait(ctx context.Context, req gen.RegionOperationsWaitRequestObject) (gen.RegionOperationsWaitResponseObject, error) {
	op, err := s.waitOperation(ctx, regionScope(req.Project, req.Region), req.Operation)
	if err != nil {
		return nil, err
	}
	return s.replyOperation(ctx, op), nil
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

func (s *Server) getOperation(scope, name string) (store.Operation, error) {
	op, err := s.ops.Get(scope, name)
	if errors.Is(err, operations.ErrNotFound) {
		return op, notFound(scope + "/operations/" + name)
	}
	return op, err
}

func (s *Server) waitOperation(ctx context.Context, scope, name string) (store.Operation, error) {
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
	q, err := parseListQuery(filter, pageToken, orderBy, maxResultsOf(maxResults))
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
	idx, next := page(items, q)
	out := gen.OperationList{Kind: gen.OperationListKindComputeOperationList, Id: scope + "/operations", SelfLink: s.link(ctx, scope+"/operations")}
	for _, i := range idx {
		out.Items = append(out.Items, s.renderOperation(ctx, all[i]))
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
func (s *Server) renderOperation(ctx context.Context, op store.Operation) gen.Operation {
	return s.wireOperation(ctx, op).Operation
}

// operationWire is an operation in its wire form together with every value its pointers
// point to, so that rendering one allocates once rather than once per field.
type operationWire struct {
	gen.Operation
	op                         store.Operation
	kind                       gen.OperationKind
	status                     gen.OperationStatus
	progress, code             int32
	insert, start, end, region string
	message                    string
	error                      gen.OperationError
}

func (s *Server) wireOperation(ctx context.Context, op store.Operation) *operationWire {
	return s.wireOperationInto(new(operationWire), ctx, op)
}

// wireOperationInto renders op into w, which must be zero.
func (s *Server) wireOperationInto(w *operationWire, ctx context.Context, op store.Operation) *operationWire {
	w.op, w.kind, w.status = op, gen.OperationKindComputeOperation, gen.OperationStatus(op.Status)
	w.progress, w.insert = int32(op.Progress), timestamp(op.InsertTime)
	o := &w.op
	w.Operation = gen.Operation{
		Kind: &w.kind, Id: &o.ID, Name: &o.Name, OperationType: &o.OperationType,
		TargetLink: s.targetLink(ctx, *o), SelfLink: s.link3(ctx, o.Scope, "/operations/", o.Name),
		Status: &w.status, Progress: &w.progress, User: &o.User,
		InsertTime: &w.insert, CreationTimestamp: &w.insert,
	}
	out := &w.Operation
	if o.TargetID != "" {
		out.TargetId = &o.TargetID
	}
	if o.ClientOperationID != "" {
		out.ClientOperationId = &o.ClientOperationID
	}
	if o.Description != "" {
		out.Description = &o.Description
	}
	if _, region, ok := cutRegion(o.Scope); ok {
		w.region = s.link(ctx, "projects/"+o.Project+"/regions/"+region)
		out.Region = &w.region
	}
	if !o.StartTime.IsZero() {
		w.start = timestampLike(o.StartTime, o.InsertTime, w.insert)
		out.StartTime = &w.start
	}
	if o.Done() {
		w.end = timestampLike(o.EndTime, o.StartTime, w.start)
		out.EndTime = &w.end
		if f := o.Failure; f != nil {
			w.code, w.message = int32(f.HTTPStatus), f.HTTPMessage
			out.HttpErrorStatusCode, out.HttpErrorMessage = &w.code, &w.message
			w.error = gen.OperationError{Errors: renderOperationErrors(f.Errors)}
			out.Error = &w.error
		}
	}
	return w
}

// timestampLike is timestamp(t), or s, already formatted from u, when t falls in u's
// millisecond: an operation finished at accept starts and ends when it is inserted.
func timestampLike(t, u time.Time, s string) string {
	if s != "" && t.UnixMilli() == u.UnixMilli() {
		return s
	}
	return timestamp(t)
}

func renderOperationErrors(errs []store.OperationError) []gen.OperationErrorItem {
	out := make([]gen.OperationErrorItem, 0, len(errs))
	for _, e := range errs {
		item := gen.OperationErrorItem{Code: e.Code}
		if e.Message != "" {
			m := e.Message
			item.Message = &m
		}
		if e.Location != "" {
			l := e.Location
			item.Location = &l
		}
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
