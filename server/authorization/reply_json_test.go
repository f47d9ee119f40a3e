package authorization

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/jsonout/jsonouttest"
)

// TestAppendRoleAssignmentMatchesEncodingJSON: for random values of gen.RoleAssignment
// (every member, times across and beyond years 0-9999), appendRoleAssignment writes what
// encoding/json writes, and declines exactly where encoding/json fails.
func TestAppendRoleAssignmentMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 20000 {
		var a gen.RoleAssignment
		jsonouttest.Fill(rng, reflect.ValueOf(&a).Elem())
		var want bytes.Buffer
		err := json.NewEncoder(&want).Encode(&a)
		got, ok := appendRoleAssignment(nil, &a)
		if ok != (err == nil) {
			t.Fatalf("value %d: appendRoleAssignment ok=%v, encoding/json error %v", i, ok, err)
		}
		if ok && !bytes.Equal(append(got, '\n'), want.Bytes()) {
			t.Fatalf("value %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
}

// TestAssignmentRepliesAreHandWritten: the assignments the handlers answer take
// appendRoleAssignment's path.
func TestAssignmentRepliesAreHandWritten(t *testing.T) {
	now := time.Now()
	w := newWire(RoleAssignment{Scope: "subscriptions/s", Name: "n", PrincipalID: "p", RoleDefinitionGUID: "g",
		Description: "d", CreatedBy: "c", UpdatedBy: "u", CreatedOn: now, UpdatedOn: now})
	if _, ok := appendRoleAssignment(nil, &w.RoleAssignment); !ok {
		t.Error("a role assignment is left to encoding/json")
	}
}
