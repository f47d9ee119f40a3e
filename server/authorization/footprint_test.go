package authorization_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/server/authorization"
)

// BenchmarkAssignmentFootprint stores b.N role assignments by PUT through the whole handler
// (bench/scale's shape: ten per resource group, a thousand per subscription, a principal
// each) and reports the live heap each one takes: its row, its index entries, and whatever
// of its request they keep.
//
//	go test -run XXX -bench AssignmentFootprint -benchtime 200000x ./server/authorization/
func BenchmarkAssignmentFootprint(b *testing.B) {
	srv, err := server.New(server.Config{
		Log:           slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Authorization: authorization.Config{MaxPerSubscription: 1000},
	})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	guid := func(kind, i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", kind, i) }
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sub := guid(1, i/1000)
		body := `{"properties":{"principalId":"` + guid(3, i) + `","roleDefinitionId":"/subscriptions/` + sub + `/providers/Vendor.Authorization/roleDefinitions/` + authorization.ReaderRoleID + `"}}`
		req := httptest.NewRequest(http.MethodPut, fmt.Sprintf("/subscriptions/%s/resourceGroups/rg-%d/providers/Vendor.Authorization/roleAssignments/%s?api-version=2022-04-01", sub, i/10, guid(2, i)), strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusCreated {
			b.Fatalf("PUT: %d %s", w.Code, w.Body)
		}
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "heap-B/assignment")
	runtime.KeepAlive(srv)
}
