package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/internal/clock"
	"github.com/understudy-dev/understudy/server/control"
	"github.com/understudy-dev/understudy/specs"
)

// ListRequests returns the journal's matching entries, newest first.
func (s *Server) ListRequests(ctx context.Context, req gen.ListRequestsRequestObject) (gen.ListRequestsResponseObject, error) {
	p := req.Params
	f := control.Filter{OperationID: deref(p.OperationId), Status: deref(p.Status), Limit: deref(p.Limit)}
	if p.Api != nil {
		f.API = string(*p.Api)
	}
	out := gen.RequestList{Requests: []gen.RequestRecord{}}
	for _, e := range s.d.Journal.List(f) {
		r := gen.RequestRecord{Time: e.Time.UTC(), Api: e.API, Method: e.Method, Path: e.Path, Status: e.Status,
			DurationMs: float64(e.Duration.Microseconds()) / 1000}
		if e.OperationID != "" {
			r.OperationId = ptr(e.OperationID)
		}
		if e.RequestID != "" {
			r.RequestId = ptr(e.RequestID)
		}
		if e.Replica != "" {
			r.Replica = ptr(e.Replica)
		}
		out.Requests = append(out.Requests, r)
	}
	return gen.ListRequests200JSONResponse(out), nil
}

// ClearRequests empties the journal.
func (s *Server) ClearRequests(context.Context, gen.ClearRequestsRequestObject) (gen.ClearRequestsResponseObject, error) {
	s.d.Journal.Clear()
	return gen.ClearRequests204Response{}, nil
}

// ListFaults returns the rules in force.
func (s *Server) ListFaults(context.Context, gen.ListFaultsRequestObject) (gen.ListFaultsResponseObject, error) {
	rules, err := s.d.Faults.List()
	if err != nil {
		return nil, err
	}
	out := gen.FaultList{Faults: []gen.Fault{}}
	for _, r := range rules {
		out.Faults = append(out.Faults, faultToWire(r))
	}
	return gen.ListFaults200JSONResponse(out), nil
}

// CreateFault installs a rule.
func (s *Server) CreateFault(ctx context.Context, req gen.CreateFaultRequestObject) (gen.CreateFaultResponseObject, error) {
	b := *req.Body
	r := control.Rule{OperationID: deref(b.OperationId), Method: deref(b.Method), Path: deref(b.Path),
		Remaining: deref(b.Count), Probability: 1, Status: deref(b.Status), Code: deref(b.Code),
		Message: deref(b.Message), RetryAfterSeconds: deref(b.RetryAfterSeconds), LatencyMs: deref(b.LatencyMs)}
	if b.Probability != nil { // omitted: always; 0: never
		r.Probability = *b.Probability
	}
	if b.Api != nil {
		r.API = string(*b.Api)
	}
	if r.Status != 0 && r.Status < 400 {
		return nil, &Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: "status: a fault's status is 400-599, or 0 for latency only"}
	}
	if r.Status == 0 && r.LatencyMs == 0 {
		return nil, &Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: "a fault needs a status (400-599) or a latencyMs"}
	}
	if r.Status != 0 && r.Code == "" {
		r.Code = defaultFaultCode(r.Status)
	}
	if err := s.checkMatchable(r); err != nil {
		return nil, err
	}
	added, err := s.d.Faults.Add(r)
	if err != nil {
		return nil, err
	}
	return gen.CreateFault201JSONResponse(faultToWire(added)), nil
}

// checkMatchable refuses a rule that could never match a request: one naming an
// operationId no API has (or not the named API), a path prefix without the leading slash
// every request path has, or one under /_understudy, which is never faulted. A typo in a test's fault
// would otherwise pass silently, the fault never injected.
func (s *Server) checkMatchable(r control.Rule) error {
	if r.OperationID != "" && s.d.Operations != nil {
		found := false
		for api, ids := range s.d.Operations {
			if (r.API == "" || r.API == api) && slices.Contains(ids, r.OperationID) {
				found = true
			}
		}
		if !found {
			where := "no API has"
			if r.API != "" {
				where = "the " + r.API + " API has no"
			}
			return &Error{Status: http.StatusBadRequest, Code: "InvalidRequest",
				Message: fmt.Sprintf("operationId: %s operation %s, so the rule could never match (operationIds are those of specs/<api>.yaml)", where, strconv.Quote(r.OperationID))}
		}
	}
	switch {
	case r.Path != "" && !strings.HasPrefix(r.Path, "/"):
		return &Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: "path: a path prefix starts with /, as every request path does"}
	case strings.HasPrefix(r.Path, "/_understudy"):
		return &Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: "path: /_understudy is never faulted, so the rule could never match"}
	}
	return nil
}

// defaultFaultCode is a plausible code for a status when the rule names none.
func defaultFaultCode(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "rateLimitExceeded"
	case http.StatusServiceUnavailable:
		return "backendError"
	}
	return "injectedFault"
}

// DeleteFault removes a rule.
func (s *Server) DeleteFault(ctx context.Context, req gen.DeleteFaultRequestObject) (gen.DeleteFaultResponseObject, error) {
	found, err := s.d.Faults.Delete(req.Id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, &Error{Status: http.StatusNotFound, Code: "NotFound", Message: "no fault rule " + req.Id}
	}
	return gen.DeleteFault204Response{}, nil
}

// ClearFaults removes every rule.
func (s *Server) ClearFaults(context.Context, gen.ClearFaultsRequestObject) (gen.ClearFaultsResponseObject, error) {
	if err := s.d.Faults.Clear(); err != nil {
		return nil, err
	}
	return gen.ClearFaults204Response{}, nil
}

// GetClock reads the server's clock.
func (s *Server) GetClock(context.Context, gen.GetClockRequestObject) (gen.GetClockResponseObject, error) {
	return gen.GetClock200JSONResponse(s.clock()), nil
}

// AdvanceClock moves the server's clock forward. An advance that would take the clock past
// what it can hold (its offset wrapping around, which would send it back in time, or a time
// past clock.Latest) is refused and leaves the clock where it is.
func (s *Server) AdvanceClock(ctx context.Context, req gen.AdvanceClockRequestObject) (gen.AdvanceClockResponseObject, error) {
	ns := req.Body.Seconds * float64(time.Second)
	if !(ns < float64(clock.MaxOffset)) { // the spec's maximum keeps it far below; NaN too
		return nil, clockLimitError(clock.ErrOffsetLimit)
	}
	if s.d.AdvanceClock != nil {
		if err := s.d.AdvanceClock(time.Duration(ns)); err != nil {
			if errors.Is(err, clock.ErrOffsetLimit) || errors.Is(err, clock.ErrTimeLimit) {
				return nil, clockLimitError(err)
			}
			return nil, err
		}
		return gen.AdvanceClock200JSONResponse(s.clock()), nil
	}
	if _, err := s.d.Clock.Advance(time.Duration(ns)); err != nil {
		return nil, clockLimitError(err)
	}
	if s.d.ClockAdvanced != nil {
		if err := s.d.ClockAdvanced(); err != nil {
			return nil, err
		}
	}
	return gen.AdvanceClock200JSONResponse(s.clock()), nil
}

// clockLimitError is the answer to an advance the clock cannot take.
func clockLimitError(err error) *Error {
	msg := "seconds: the clock cannot be advanced that far: it would be more than " +
		strconv.FormatInt(int64(clock.MaxOffset/time.Second), 10) + " seconds (about 292 years) ahead of real time; it is left unchanged"
	if errors.Is(err, clock.ErrTimeLimit) {
		msg = "seconds: the clock cannot be advanced that far: it would be past " + clock.Latest.Format(time.RFC3339) + "; it is left unchanged"
	}
	return &Error{Status: http.StatusBadRequest, Code: "InvalidRequest", Message: msg}
}

func (s *Server) clock() gen.Clock {
	return gen.Clock{Now: s.d.Clock.Now().UTC(), OffsetSeconds: s.d.Clock.Offset().Seconds()}
}

// GetMetrics serves the Prometheus text exposition.
func (s *Server) GetMetrics(context.Context, gen.GetMetricsRequestObject) (gen.GetMetricsResponseObject, error) {
	return gen.GetMetrics200TextResponse(s.d.Metrics.Text()), nil
}

func faultToWire(r control.Rule) gen.Fault {
	f := gen.Fault{Id: r.ID, Status: r.Status, Code: optional(r.Code), Message: optional(r.Message), Api: optional(r.API),
		OperationId: optional(r.OperationID), Method: optional(r.Method), Path: optional(r.Path)}
	if r.Remaining > 0 {
		f.Remaining = ptr(r.Remaining)
	}
	f.Probability = ptr(r.Probability)
	if r.RetryAfterSeconds > 0 {
		f.RetryAfterSeconds = ptr(r.RetryAfterSeconds)
	}
	if r.LatencyMs > 0 {
		f.LatencyMs = ptr(r.LatencyMs)
	}
	return f
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// GetAPISpec serves an API's OpenAPI document as it is written (specs/<api>.yaml).
func (s *Server) GetAPISpec(_ context.Context, req gen.GetAPISpecRequestObject) (gen.GetAPISpecResponseObject, error) {
	doc, ok := specs.YAML(req.Api)
	if !ok {
		return nil, &Error{Status: http.StatusNotFound, Code: "NotFound",
			Message: "no API " + strconv.Quote(req.Api) + ": the specs are " + strings.Join(specs.APIs, ", ")}
	}
	return gen.GetAPISpec200ApplicationyamlResponse{Body: bytes.NewReader(doc), ContentLength: int64(len(doc))}, nil
}
