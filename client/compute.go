package client

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/understudy-dev/understudy/gen/compute"
)

// Compute is a client of the compute API (forwarding rules, labels, operations). Every
// generated method is available on it, e.g. GlobalForwardingRulesInsertWithResponse; wrap a
// call in CheckCompute to get failures as *ComputeError, and pass the Operation a mutation
// returns to WaitOperation.
type Compute struct {
	*compute.ClientWithResponses
}

// NewCompute returns a client of the compute API served at baseURL (the server's root, e.g.
// http://127.0.0.1:8080; the generated paths start with /compute/v1). It sends the
// WithBearerToken token; the API requires one but accepts any.
func NewCompute(baseURL string, opts ...Option) (*Compute, error) {
	s := newSettings(opts)
	gopts := []compute.ClientOption{compute.WithRequestEditorFn(s.editor())}
	if s.httpClient != nil {
		gopts = append(gopts, compute.WithHTTPClient(s.httpClient))
	}
	c, err := compute.NewClientWithResponses(baseURL, gopts...)
	if err != nil {
		return nil, fmt.Errorf("client: compute: %w", err)
	}
	return &Compute{c}, nil
}

// The pause between two wait calls starts at waitBackoffStart and doubles up to
// waitBackoffMax. The server's wait endpoint itself blocks until the operation is DONE or
// its own timeout passes, so the pause mostly matters against a server that answers at once.
const (
	waitBackoffStart = 50 * time.Millisecond
	waitBackoffMax   = 2 * time.Second
)

// WaitOperation waits until op, an operation of project, is DONE and returns it as it is
// then. It calls the operation's wait endpoint (the regional one when op.Region is set, else
// the global one) until the operation is DONE, pausing between calls with exponential
// backoff (50ms, doubling, at most 2s), and gives up when ctx ends, returning the last
// operation seen with an error that wraps ctx.Err().
//
// A DONE operation that failed comes back with an *OperationError. An op that is already
// DONE (setLabels returns one) costs no request: WaitOperation only reports its error.
// A failed wait call is returned as *ComputeError or as the transport error, wrapped.
func (c *Compute) WaitOperation(ctx context.Context, project string, op compute.Operation) (compute.Operation, error) {
	if isDone(op) {
		return op, operationError(op)
	}
	name := deref(op.Name)
	if name == "" {
		return op, fmt.Errorf("client: wait for operation: the operation has no name")
	}
	// Decided once: an operation stays where it was made.
	region := regionName(op)
	for backoff := waitBackoffStart; ; backoff = min(2*backoff, waitBackoffMax) {
		next, err := c.waitOnce(ctx, project, region, name)
		if err != nil {
			return op, fmt.Errorf("client: wait for operation %s: %w", name, err)
		}
		op = *next
		if isDone(op) {
			return op, operationError(op)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return op, fmt.Errorf("client: wait for operation %s: %w", name, ctx.Err())
		case <-t.C:
		}
	}
}

// waitOnce makes one call of the operation's wait endpoint.
func (c *Compute) waitOnce(ctx context.Context, project, region, name string) (*compute.Operation, error) {
	var (
		status int
		body   []byte
		got    *compute.Operation
	)
	if region != "" {
		resp, err := CheckCompute(c.RegionOperationsWaitWithResponse(ctx, project, region, name, nil))
		if err != nil {
			return nil, err
		}
		status, body, got = resp.StatusCode(), resp.Body, resp.JSON200
	} else {
		resp, err := CheckCompute(c.GlobalOperationsWaitWithResponse(ctx, project, name, nil))
		if err != nil {
			return nil, err
		}
		status, body, got = resp.StatusCode(), resp.Body, resp.JSON200
	}
	if got == nil {
		return nil, fmt.Errorf("unexpected response %d: %s", status, fallbackMessage(status, body))
	}
	return got, nil
}

func isDone(op compute.Operation) bool {
	return op.Status != nil && *op.Status == compute.OperationStatusDONE
}

// regionName is the last segment of op.Region, a region URL
// (https://.../projects/p/regions/us-central1), or "" for a global operation.
func regionName(op compute.Operation) string {
	r := strings.TrimRight(deref(op.Region), "/")
	if r == "" {
		return ""
	}
	return path.Base(r)
}

// OperationError is the error of a compute operation that finished DONE but failed: the
// operation's httpErrorStatusCode, httpErrorMessage and error.errors.
type OperationError struct {
	// Operation is the operation's name.
	Operation string
	// StatusCode is the operation's httpErrorStatusCode, e.g. 404; 0 when absent.
	StatusCode int
	// Message is the operation's httpErrorMessage, e.g. NOT FOUND.
	Message string
	// Errors are the operation's error.errors.
	Errors []OperationErrorItem
}

// OperationErrorItem is one entry of a failed operation's error.errors.
type OperationErrorItem struct {
	// Code is the error type, e.g. RESOURCE_NOT_FOUND or QUOTA_EXCEEDED.
	Code    string
	Message string
	// Location is the request field at fault, when there is one.
	Location string
}

func (e *OperationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compute: operation %s failed", e.Operation)
	var status []string
	if e.StatusCode != 0 {
		status = append(status, strconv.Itoa(e.StatusCode))
	}
	if e.Message != "" {
		status = append(status, e.Message)
	}
	if len(status) > 0 {
		b.WriteString(": " + strings.Join(status, " "))
	}
	for i, item := range e.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(item.Code)
		if item.Message != "" {
			b.WriteString(": " + item.Message)
		}
		if item.Location != "" {
			b.WriteString(" (" + item.Location + ")")
		}
	}
	return b.String()
}

// operationError is the *OperationError of a failed operation, or nil.
func operationError(op compute.Operation) error {
	if op.Error == nil || len(op.Error.Errors) == 0 {
		return nil
	}
	e := &OperationError{Operation: deref(op.Name), StatusCode: int(deref(op.HttpErrorStatusCode)), Message: deref(op.HttpErrorMessage)}
	for _, item := range op.Error.Errors {
		e.Errors = append(e.Errors, OperationErrorItem{Code: item.Code, Message: deref(item.Message), Location: deref(item.Location)})
	}
	return e
}
