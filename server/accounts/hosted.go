package accounts

import (
	"context"
	"net/http"

	gen "github.com/understudy-dev/understudy/gen/accounts"
)

// OpenAccountLink serves the hosted flow (being built).
func (s *Server) OpenAccountLink(ctx context.Context, req gen.OpenAccountLinkRequestObject) (gen.OpenAccountLinkResponseObject, error) {
	return nil, &Error{Status: http.StatusNotImplemented, Type: "api_error", Code: "not_implemented", Message: "the hosted flow is not built yet"}
}

// SubmitAccountLink accepts the hosted form (being built).
func (s *Server) SubmitAccountLink(ctx context.Context, req gen.SubmitAccountLinkRequestObject) (gen.SubmitAccountLinkResponseObject, error) {
	return nil, &Error{Status: http.StatusNotImplemented, Type: "api_error", Code: "not_implemented", Message: "the hosted flow is not built yet"}
}
