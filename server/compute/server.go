// Package compute implements the compute API (gen/compute): forwarding-rule labels,
// interconnect attachment groups and the operations that track them, under /compute/v1,
// with the Google error envelope.
//
// Every operation is routed and validated against specs/compute.yaml, and every error is
// rendered in the Google envelope. The operations themselves are not built yet (issues 4
// and 5): they answer 501 notImplemented, never a fake success.
package compute

import (
	"context"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/server/validate"
)

// Server implements the generated strict server interface.
type Server struct{}

var _ gen.StrictServerInterface = (*Server)(nil)

// New returns the compute API.
func New() *Server { return &Server{} }

// Register adds the API's routes to e, each validated against the spec. Clients send back
// output-only fields they read; the handlers ignore them.
func (s *Server) Register(e *echo.Echo) error {
	spec, err := Spec()
	if err != nil {
		return err
	}
	v, err := validate.New(spec, validate.Options{AllowReadOnly: true})
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
		return nil, fmt.Errorf("compute: embedded spec: %w", err)
	}
	return spec, nil
}

func notImplemented(method string) *Error {
	return &Error{Status: http.StatusNotImplemented, Reason: "notImplemented",
		Message: fmt.Sprintf("Method %s is not implemented by this understudy build yet.", method)}
}

// GlobalForwardingRulesGet is not built yet (issue 4).
func (s *Server) GlobalForwardingRulesGet(context.Context, gen.GlobalForwardingRulesGetRequestObject) (gen.GlobalForwardingRulesGetResponseObject, error) {
	return nil, notImplemented("compute.globalForwardingRules.get")
}

// GlobalForwardingRulesSetLabels is not built yet (issue 4).
func (s *Server) GlobalForwardingRulesSetLabels(context.Context, gen.GlobalForwardingRulesSetLabelsRequestObject) (gen.GlobalForwardingRulesSetLabelsResponseObject, error) {
	return nil, notImplemented("compute.globalForwardingRules.setLabels")
}

// InterconnectAttachmentGroupsInsert is not built yet (issue 5).
func (s *Server) InterconnectAttachmentGroupsInsert(context.Context, gen.InterconnectAttachmentGroupsInsertRequestObject) (gen.InterconnectAttachmentGroupsInsertResponseObject, error) {
	return nil, notImplemented("compute.interconnectAttachmentGroups.insert")
}

// GlobalOperationsGet is not built yet (issue 4).
func (s *Server) GlobalOperationsGet(context.Context, gen.GlobalOperationsGetRequestObject) (gen.GlobalOperationsGetResponseObject, error) {
	return nil, notImplemented("compute.globalOperations.get")
}
