package admin

import (
	"context"

	gen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/server/authorization"
)

// DenyAssignments are the authorization API's deny assignments, which ARM's API only reads
// (authorization.Server).
type DenyAssignments interface {
	PutDenyAssignment(name string, entry authorization.SeedDenyAssignment) (authorization.SeedDenyAssignment, bool, error)
	DeleteDenyAssignment(name string) error
}

// PutDenyAssignment makes (201) or replaces (200) a deny assignment, as the platform does.
func (s *Server) PutDenyAssignment(ctx context.Context, req gen.PutDenyAssignmentRequestObject) (gen.PutDenyAssignmentResponseObject, error) {
	out, created, err := s.d.Denies.PutDenyAssignment(req.Name, authorization.SeedDenyAssignment(*req.Body))
	if err != nil {
		return nil, denyError(err)
	}
	if created {
		return gen.PutDenyAssignment201JSONResponse(out), nil
	}
	return gen.PutDenyAssignment200JSONResponse(out), nil
}

// DeleteDenyAssignment removes a deny assignment: 404 when there is none.
func (s *Server) DeleteDenyAssignment(ctx context.Context, req gen.DeleteDenyAssignmentRequestObject) (gen.DeleteDenyAssignmentResponseObject, error) {
	if err := s.d.Denies.DeleteDenyAssignment(req.Name); err != nil {
		return nil, denyError(err)
	}
	return gen.DeleteDenyAssignment204Response{}, nil
}

// denyError is the admin error for the deny assignments' refusals.
func denyError(err error) error {
	return refusal(err, authorization.ErrInvalidDenyAssignment, authorization.ErrDenyAssignmentNotFound, "there is no deny assignment ")
}
