package admin

import (
	"context"
	"errors"
	"net/http"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/server/authorization"
)

// Directory is the authorization API's directory of principals (authorization.Server).
type Directory interface {
	PutPrincipal(e authorization.DirectoryEntry) (authorization.DirectoryEntry, bool, error)
	DeletePrincipal(id string) error
	Principals() ([]authorization.DirectoryEntry, error)
}

// ListPrincipals answers the directory.
func (s *Server) ListPrincipals(ctx context.Context, _ gen.ListPrincipalsRequestObject) (gen.ListPrincipalsResponseObject, error) {
	all, err := s.d.Directory.Principals()
	if err != nil {
		return nil, err
	}
	out := gen.ListPrincipals200JSONResponse{Value: make([]gen.Principal, 0, len(all))}
	for _, e := range all {
		out.Value = append(out.Value, principalToWire(e))
	}
	return out, nil
}

// PutPrincipal adds (201) or replaces (200) a principal.
func (s *Server) PutPrincipal(ctx context.Context, req gen.PutPrincipalRequestObject) (gen.PutPrincipalResponseObject, error) {
	e := authorization.DirectoryEntry{ID: req.Id, Type: string(req.Body.Type), Members: req.Body.Members}
	if req.Body.DisplayName != nil {
		e.DisplayName = *req.Body.DisplayName
	}
	out, created, err := s.d.Directory.PutPrincipal(e)
	if err != nil {
		return nil, directoryError(err)
	}
	if created {
		return gen.PutPrincipal201JSONResponse(principalToWire(out)), nil
	}
	return gen.PutPrincipal200JSONResponse(principalToWire(out)), nil
}

// DeletePrincipal removes a principal: 404 when the directory does not know it.
func (s *Server) DeletePrincipal(ctx context.Context, req gen.DeletePrincipalRequestObject) (gen.DeletePrincipalResponseObject, error) {
	if err := s.d.Directory.DeletePrincipal(req.Id); err != nil {
		return nil, directoryError(err)
	}
	return gen.DeletePrincipal204Response{}, nil
}

func principalToWire(e authorization.DirectoryEntry) gen.Principal {
	p := gen.Principal{Id: &e.ID, Type: gen.PrincipalType(e.Type), Members: e.Members}
	if e.DisplayName != "" {
		p.DisplayName = &e.DisplayName
	}
	return p
}

// directoryError is the admin error for the directory's refusals.
func directoryError(err error) error {
	return refusal(err, authorization.ErrInvalidPrincipal, authorization.ErrPrincipalNotFound, "the directory has no principal ")
}

// refusal is the admin error for an authorization API refusal: 400 InvalidRequest for one
// that wraps invalid, 404 NotFound (its message after notFound's) for one that wraps
// notFound, err itself otherwise. The wrapped error's words are dropped from the message.
func refusal(err, invalid, notFound error, notFoundPrefix string) error {
	switch {
	case errors.Is(err, invalid):
		return &Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: strings.TrimPrefix(err.Error(), invalid.Error()+": ")}
	case errors.Is(err, notFound):
		return &Error{Status: http.StatusNotFound, Code: "NotFound", Message: notFoundPrefix + strings.TrimPrefix(err.Error(), notFound.Error()+": ")}
	}
	return err
}
