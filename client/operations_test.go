package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/client"
	"github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

const project = "my-project-123"

// fakeCompute answers every request with the next of replies (the last one repeated) and
// records the paths it was asked for.
type fakeCompute struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

type reply struct {
	status int
	body   any
}

func newFakeCompute(t *testing.T, replies ...reply) *fakeCompute {
	t.Helper()
	f := &fakeCompute{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		i := min(len(f.paths), len(replies)-1)
		f.paths = append(f.paths, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(replies[i].status)
		_ = json.NewEncoder(w).Encode(replies[i].body)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeCompute) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

func (f *fakeCompute) client(t *testing.T) *client.Compute {
	t.Helper()
	c, err := client.NewCompute(f.URL, client.WithBearerToken("tok"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// op is an operation named operation-1 in status.
func op(status compute.OperationStatus) compute.Operation {
	return compute.Operation{Name: ptr("operation-1"), Status: &status, SelfLink: ptr("x"), TargetLink: ptr("y")}
}

func failed() compute.Operation {
	o := op(compute.OperationStatusDONE)
	o.HttpErrorStatusCode, o.HttpErrorMessage = ptr(int32(404)), ptr("NOT FOUND")
	o.Error = &compute.OperationError{Errors: []compute.OperationErrorItem{
		{Code: "RESOURCE_NOT_FOUND", Message: ptr("The resource 'projects/my-project-123/global/networks/nope' was not found"), Location: ptr("resource.network")},
		{Code: "QUOTA_EXCEEDED"},
	}}
	return o
}

func TestWaitOperationReportsAFailedOperation(t *testing.T) {
	f := newFakeCompute(t, reply{200, failed()})
	got, err := f.client(t).WaitOperation(ctx, project, op(compute.OperationStatusRUNNING))
	var e *client.OperationError
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *client.OperationError", err, err)
	}
	if got.Status == nil || *got.Status != compute.OperationStatusDONE {
		t.Errorf("the DONE operation is not returned with the error: %+v", got)
	}
	want := client.OperationError{Operation: "operation-1", StatusCode: 404, Message: "NOT FOUND", Errors: []client.OperationErrorItem{
		{Code: "RESOURCE_NOT_FOUND", Message: "The resource 'projects/my-project-123/global/networks/nope' was not found", Location: "resource.network"},
		{Code: "QUOTA_EXCEEDED"},
	}}
	if e.Operation != want.Operation || e.StatusCode != want.StatusCode || e.Message != want.Message || len(e.Errors) != 2 || e.Errors[0] != want.Errors[0] || e.Errors[1] != want.Errors[1] {
		t.Errorf("error\n got %+v\nwant %+v", *e, want)
	}
	if got, want := err.Error(), "compute: operation operation-1 failed: 404 NOT FOUND: RESOURCE_NOT_FOUND: The resource 'projects/my-project-123/global/networks/nope' was not found (resource.network); QUOTA_EXCEEDED"; got != want {
		t.Errorf("Error()\n got %s\nwant %s", got, want)
	}
	if got, want := f.seen(), []string{"POST /compute/v1/projects/my-project-123/global/operations/operation-1/wait"}; !equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
}

func TestWaitOperationOnADoneOperationMakesNoRequest(t *testing.T) {
	f := newFakeCompute(t, reply{500, nil})
	c := f.client(t)
	if _, err := c.WaitOperation(ctx, project, op(compute.OperationStatusDONE)); err != nil {
		t.Errorf("a successful DONE operation: %v", err)
	}
	var e *client.OperationError
	if _, err := c.WaitOperation(ctx, project, failed()); !errors.As(err, &e) {
		t.Errorf("a failed DONE operation: %v", err)
	}
	if n := len(f.seen()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestWaitOperationRegional(t *testing.T) {
	f := newFakeCompute(t, reply{200, op(compute.OperationStatusRUNNING)}, reply{200, op(compute.OperationStatusDONE)})
	running := op(compute.OperationStatusPENDING)
	running.Region = ptr("https://compute.example/compute/v1/projects/my-project-123/regions/us-central1")
	got, err := f.client(t).WaitOperation(ctx, project, running)
	if err != nil || *got.Status != compute.OperationStatusDONE {
		t.Fatalf("got %v, %v", got.Status, err)
	}
	path := "POST /compute/v1/projects/my-project-123/regions/us-central1/operations/operation-1/wait"
	if got, want := f.seen(), []string{path, path}; !equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
}

func TestWaitOperationHonoursTheContext(t *testing.T) {
	f := newFakeCompute(t, reply{200, op(compute.OperationStatusRUNNING)}) // never DONE
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	got, err := f.client(t).WaitOperation(ctx, project, op(compute.OperationStatusPENDING))
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's error", err)
	}
	if *got.Status != compute.OperationStatusRUNNING {
		t.Errorf("the last operation seen is not returned: %s", *got.Status)
	}
	if elapsed > time.Second {
		t.Errorf("returned after %v, want soon after the 200ms deadline", elapsed)
	}
	// Backoff: calls at about 0, 50 and 150ms, the next one due at 350ms.
	if n := len(f.seen()); n < 2 || n > 6 {
		t.Errorf("%d wait calls in 200ms, want about 3", n)
	}
}

func TestWaitOperationReturnsAFailedWait(t *testing.T) {
	notFound := map[string]any{"error": map[string]any{"code": 404, "message": "The resource 'operation-1' was not found",
		"errors": []map[string]any{{"message": "The resource 'operation-1' was not found", "domain": "global", "reason": "notFound"}}}}
	f := newFakeCompute(t, reply{404, notFound})
	_, err := f.client(t).WaitOperation(ctx, project, op(compute.OperationStatusRUNNING))
	var e *client.ComputeError
	if !errors.As(err, &e) || e.StatusCode != 404 || e.Reason != "notFound" {
		t.Errorf("err = %v, want a 404 notFound *client.ComputeError", err)
	}
}

func TestWaitOperationWithoutName(t *testing.T) {
	f := newFakeCompute(t, reply{500, nil})
	o := op(compute.OperationStatusRUNNING)
	o.Name = nil
	if _, err := f.client(t).WaitOperation(ctx, project, o); err == nil {
		t.Error("no error for an operation without a name")
	}
}

func TestWaitOperationAgainstTheServer(t *testing.T) {
	// In manual mode each wait moves the operation one step: PENDING, RUNNING, DONE.
	srv := understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Compute.Operations.Mode = operations.Mode{Manual: true}
	}))
	c, err := client.NewCompute(srv.URL, client.WithBearerToken("tok"), specChecked(t, compute.GetSpec))
	if err != nil {
		t.Fatal(err)
	}
	insert, err := client.CheckCompute(c.GlobalForwardingRulesInsertWithResponse(ctx, project, nil, compute.ForwardingRule{Name: "fr-web"}))
	if err != nil {
		t.Fatal(err)
	}
	if s := *insert.JSON200.Status; s == compute.OperationStatusDONE {
		t.Fatalf("the insert is already %s", s)
	}
	done, err := c.WaitOperation(ctx, project, *insert.JSON200)
	if err != nil || *done.Status != compute.OperationStatusDONE || *done.Name != *insert.JSON200.Name {
		t.Fatalf("WaitOperation: %+v, %v", done, err)
	}
	if _, err := client.CheckCompute(c.GlobalForwardingRulesGetWithResponse(ctx, project, "fr-web", nil)); err != nil {
		t.Errorf("the rule is not readable after its operation is DONE: %v", err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
