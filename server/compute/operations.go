package compute

import (
	"context"
	"errors"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

func globalScope(project string) string         { return "projects/" + project + "/global" }
func regionScope(project, region string) string { return "projects/" + project + "/regions/" + region }

// GlobalOperationsGet reads a global operation (by name or id).
func (s *Server) GlobalOperationsGet(ctx context.Context, req gen.GlobalOperationsGetRequestObject) (gen.GlobalOperationsGetResponseObject, error) {
	op, err := s.getOperation(ctx, globalScope(req.Project), req.Operation)
	if err != nil {
		return nil, err
	}
	return gen.GlobalOperationsGet200JSONResponse(s.renderOperation(ctx, op)), nil
}

// RegionOperationsGet reads a regional operation.
func (s *Server) RegionOperationsGet(ctx context.Context, req gen.RegionOperationsGetRequestObject) (gen.RegionOperationsGetResponseObject, error) {
	op, err := s.getOperation(ctx, regionScope(req.Project, req.Region), req.Operation)
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
	if err := s.deleteOperation(ctx, globalScope(req.Project), req.Operation); err != nil {
		return nil, err
	}
	return gen.GlobalOperationsDelete204Response{}, nil
}

// RegionOperationsDelete forgets a regional operation.
func (s *Server) RegionOperationsDelete(ctx context.Context, req gen.RegionOperationsDeleteRequestObject) (gen.RegionOperationsDeleteResponseObject, error) {
	if err := s.deleteOperation(ctx, regionScope(req.Project, req.Region), req.Operation); err != nil {
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

func (s *Server) getOperation(ctx context.Context, scope, name string) (operations.Record, error) {
	op, err := s.ops.Get(ctx, scope, name)
	if errors.Is(err, operations.ErrNotFound) {
		return op, notFound(scope + "/operations/" + name)
	}
	return op, err
}

func (s *Server) waitOperation(ctx context.Context, scope, name string) (operations.Record, error) {
	op, err := s.ops.Wait(ctx, scope, name)
	if errors.Is(err, operations.ErrNotFound) {
		return op, notFound(scope + "/operations/" + name)
	}
	return op, err
}

func (s *Server) deleteOperation(ctx context.Context, scope, name string) error {
	if err := s.ops.Delete(ctx, scope, name); errors.Is(err, operations.ErrNotFound) {
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
	all, err := s.ops.List(ctx, scope+"/operations/")
	if err != nil {
		return gen.OperationList{}, err
	}
	items := make([]listItem, len(all))
	for i, op := range all {
		items[i] = item(op.Name(), op.Op.InsertTime, op.Seq)
	}
	l := s.links(ctx)
	out := gen.OperationList{Kind: gen.OperationListKindComputeOperationList, Id: scope + "/operations", SelfLink: l.url(scope + "/operations")}
	var next string
	out.Items, next, err = page(items, q, func(i int) gen.Operation { return l.operation(all[i]) })
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

// renderOperation is an operation as a request on ctx reads it.
func (s *Server) renderOperation(ctx context.Context, op operations.Record) gen.Operation {
	return s.links(ctx).operation(op)
}

// operation is an operation as a read returns it: its links URLs. A targetLink that is
// not a path of this API (none is, today) is shown as it is.
func (l links) operation(r operations.Record) gen.Operation {
	op := r.Op
	l.set(&op.SelfLink)
	if strings.HasPrefix(deref(op.TargetLink), "projects/") {
		l.set(&op.TargetLink)
	}
	l.set(&op.Region)
	return op
}
