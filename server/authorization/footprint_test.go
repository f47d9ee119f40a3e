package authorization

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// BenchmarkAssignmentFootprint stores b.N role assignments through apply (as PUTs do, shaped
// as bench/scale's: ten per resource group, a principal each) in the memory engine and
// reports the live heap each one takes, rows and indexes included.
func BenchmarkAssignmentFootprint(b *testing.B) {
	db := store.New(store.NewMemory())
	s, err := New(Config{MaxPerSubscription: 1 << 30}, db)
	if err != nil {
		b.Fatal(err)
	}
	caller := Caller{PrincipalID: "00000000-0000-0000-0000-00000000c0de", Type: "User"}
	guid := func(kind, i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", kind, i) }
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sub := guid(1, i/1000)
		scope, serr := parseScope(fmt.Sprintf("subscriptions/%s/resourceGroups/rg-%d", sub, i/10))
		if serr != nil {
			b.Fatal(serr)
		}
		want, err := propertiesFromRequest(gen.RoleAssignmentProperties{PrincipalId: guid(3, i),
			RoleDefinitionId: "/subscriptions/" + sub + roleDefinitionsPrefix + ReaderRoleID})
		if err != nil {
			b.Fatal(err)
		}
		err = db.Update(context.Background(), func(tx *store.Tx) error {
			_, _, err := s.apply(tx, scope, guid(2, i), want, caller, nil)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "heap-B/assignment")
	runtime.KeepAlive(db)
}
