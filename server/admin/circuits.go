package admin

import (
	"context"
	"errors"
	"net/http"

	gen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/internal/store"
)

// SetInterconnectCircuit sets a compute interconnect's circuit up or down.
func (s *Server) SetInterconnectCircuit(ctx context.Context, req gen.SetInterconnectCircuitRequestObject) (gen.SetInterconnectCircuitResponseObject, error) {
	report, err := s.setCircuit(req.Project, "", req.Interconnect, req.Body.State)
	if err != nil {
		return nil, err
	}
	return gen.SetInterconnectCircuit200JSONResponse(report), nil
}

// SetAttachmentCircuit sets a compute interconnect attachment's circuit up or down.
func (s *Server) SetAttachmentCircuit(ctx context.Context, req gen.SetAttachmentCircuitRequestObject) (gen.SetAttachmentCircuitResponseObject, error) {
	report, err := s.setCircuit(req.Project, req.Region, req.Attachment, req.Body.State)
	if err != nil {
		return nil, err
	}
	return gen.SetAttachmentCircuit200JSONResponse(report), nil
}

func (s *Server) setCircuit(project, region, name string, state gen.CircuitState) (gen.CircuitReport, error) {
	path, err := s.d.SetCircuit(project, region, name, state == gen.CircuitStateDOWN)
	if errors.Is(err, store.ErrNotFound) {
		return gen.CircuitReport{}, &Error{Status: http.StatusNotFound, Code: "NotFound", Message: "no such resource: " + path}
	}
	if err != nil {
		return gen.CircuitReport{}, err
	}
	return gen.CircuitReport{Resource: path, State: gen.CircuitReportState(state)}, nil
}
