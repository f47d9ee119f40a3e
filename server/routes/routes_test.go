package routes

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestParameterWithSuffix: /specs/:api.yaml routes the whole segment and hands the handler
// the parameter without the text after it; a segment without that text is not the route's.
func TestParameterWithSuffix(t *testing.T) {
	e := echo.New()
	var got []string
	New(e, nil).GET("/specs/:api.yaml/:part", func(c echo.Context) error {
		got = append(got, c.Param("api")+"|"+c.Param("part"))
		return c.NoContent(http.StatusNoContent)
	})
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/specs/compute.yaml/x", http.StatusNoContent, "compute|x"},
		{"/specs/a.b.yaml/y", http.StatusNoContent, "a.b|y"},
		{"/specs/compute.json/x", http.StatusNotFound, ""},
		{"/specs/.yaml/x", http.StatusNotFound, ""},
		{"/specs/compute/x", http.StatusNotFound, ""},
	} {
		got = nil
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
		if rec.Code != tt.status || (tt.want != "" && (len(got) != 1 || got[0] != tt.want)) {
			t.Errorf("%s: %d %v, want %d %q", tt.path, rec.Code, got, tt.status, tt.want)
		}
	}
}
