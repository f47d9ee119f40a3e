// Package accounts implements the accounts API (gen/accounts): v2 accounts and account
// links under /v2/core, with the v2 error envelope.
//
// Every operation is routed and validated against specs/accounts.yaml, and every error is
// rendered in the v2 envelope. The operations themselves are not built yet (issue 3): they
// answer 501 not_implemented, never a fake success.
package accounts

import (
	"context"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/server/validate"
)

// Server implements the generated strict server interface.
type Server struct{}

var _ gen.StrictServerInterface = (*Server)(nil)

// New returns the accounts API.
func New() *Server { return &Server{} }

// Register adds the API's routes to e, each validated against the spec.
func (s *Server) Register(e *echo.Echo) error {
	spec, err := Spec()
	if err != nil {
		return err
	}
	v, err := validate.New(spec, validate.Options{})
	if err != nil {
		return err
	}
	gen.RegisterHandlersWithOptions(e, gen.NewStrictHandler(s, nil), gen.RegisterHandlersOptions{OperationMiddlewares: v.Middlewares()})
	return nil
}

// Spec returns the API's embedded OpenAPI document.
func Spec() (*openapi3.T, error) {
	spec, err := gen.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("accounts: embedded spec: %w", err)
	}
	return spec, nil
}

func notImplemented(op string) *Error {
	return &Error{Status: http.StatusNotImplemented, Type: "api_error", Code: "not_implemented",
		Message: fmt.Sprintf("%s is not implemented by this understudy build yet.", op)}
}

// CreateAccount is not built yet (issue 3).
func (s *Server) CreateAccount(context.Context, gen.CreateAccountRequestObject) (gen.CreateAccountResponseObject, error) {
	return nil, notImplemented("POST /v2/core/accounts")
}

// RetrieveAccount is not built yet (issue 3).
func (s *Server) RetrieveAccount(context.Context, gen.RetrieveAccountRequestObject) (gen.RetrieveAccountResponseObject, error) {
	return nil, notImplemented("GET /v2/core/accounts/{id}")
}

// ListAccounts is not built yet (issue 3).
func (s *Server) ListAccounts(context.Context, gen.ListAccountsRequestObject) (gen.ListAccountsResponseObject, error) {
	return nil, notImplemented("GET /v2/core/accounts")
}

// CreateAccountLink is not built yet (issue 3).
func (s *Server) CreateAccountLink(context.Context, gen.CreateAccountLinkRequestObject) (gen.CreateAccountLinkResponseObject, error) {
	return nil, notImplemented("POST /v2/core/account_links")
}
