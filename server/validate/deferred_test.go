package validate

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	admingen "github.com/understudy-dev/understudy/gen/admin"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	consolegen "github.com/understudy-dev/understudy/gen/console"
)

// TestOperationsMatchKin: Operations, which reads a spec without parsing it, lists exactly
// the operations kin-openapi finds in it, for every embedded spec.
func TestOperationsMatchKin(t *testing.T) {
	for name, raw := range map[string]func() ([]byte, error){"authorization": authzgen.GetSpecJSON, "accounts": accountsgen.GetSpecJSON,
		"compute": computegen.GetSpecJSON, "admin": admingen.GetSpecJSON, "console": consolegen.GetSpecJSON} {
		ops, err := Operations(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, err := Load(name, raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want, got []string
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				want = append(want, method+" "+path+" "+op.OperationID+" "+strings.Join(op.Tags, ","))
			}
		}
		for _, op := range ops {
			got = append(got, op.Method+" "+op.Path+" "+op.ID+" "+strings.Join(op.Tags, ","))
		}
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: Operations found %d operations, kin %d:\n%v\n%v", name, len(got), len(want), got, want)
		}
	}
	if _, err := Operations(func() ([]byte, error) { return []byte(`{"paths":{"/a":{"get":{}}}}`), nil }); err == nil {
		t.Error("an operation without an operationId was listed")
	}
}

// TestDeferredParsesOnce: deferred validation parses the spec on the first request, once
// however many requests race to be first, and validates every one of them; a spec that
// cannot be parsed fails each request, not the registration.
func TestDeferredParsesOnce(t *testing.T) {
	ops, err := Operations(computegen.GetSpecJSON)
	if err != nil {
		t.Fatal(err)
	}
	var loads atomic.Int32
	d := Defer(ops, func() (*Validator, error) {
		loads.Add(1)
		doc, err := computegen.GetSpec()
		if err != nil {
			return nil, err
		}
		return New(doc, Options{})
	})
	e := echo.New()
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		status := http.StatusInternalServerError
		if ve, ok := err.(*Error); ok {
			status = ve.Status
		}
		_ = c.String(status, err.Error())
	}
	mws := d.Middlewares()
	e.POST("/compute/v1/projects/:project/global/forwardingRules", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) },
		mws["globalForwardingRules.insert"]...)
	if loads.Load() != 0 {
		t.Fatal("the spec was parsed before any request")
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			body := `{"name":"fr-1","portRange":"443-443"}`
			if i%2 == 1 {
				body = `{"name":7}`
			}
			req := httptest.NewRequest(http.MethodPost, "/compute/v1/projects/my-project-1/global/forwardingRules", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			e.ServeHTTP(w, req)
			if want := []int{http.StatusNoContent, http.StatusBadRequest}[i%2]; w.Code != want {
				t.Errorf("request %d: %d %s", i, w.Code, w.Body)
			}
		})
	}
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("the spec was parsed %d times", n)
	}

	failing := Defer([]Operation{{Method: http.MethodGet, Path: "/x", ID: "x"}}, func() (*Validator, error) { return nil, errors.New("no spec") })
	var got error
	h := failing.Middlewares()["x"][0](func(echo.Context) error { t.Error("the handler ran"); return nil })
	for range 2 {
		got = h(e.NewContext(httptest.NewRequest(http.MethodGet, "/x", nil), httptest.NewRecorder()))
		if got == nil || got.Error() != "no spec" {
			t.Errorf("a request with no spec: %v", got)
		}
	}
	missing := Defer([]Operation{{Method: http.MethodGet, Path: "/x", ID: "x"}}, func() (*Validator, error) { return New(&openapi3.T{Paths: openapi3.NewPaths()}, Options{}) })
	if err := missing.Middlewares()["x"][0](func(echo.Context) error { return nil })(e.NewContext(httptest.NewRequest(http.MethodGet, "/x", nil), httptest.NewRecorder())); err == nil {
		t.Error("an operation the parsed spec lacks was let through")
	}
}
