package authorization

import (
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"math/rand/v2"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/jsonout"
	"github.com/understudy-dev/understudy/internal/jsonout/jsonouttest"
)

// toWireReference is the conversion as first written (a fresh variable per field).
func toWireReference(r RoleAssignment) gen.RoleAssignment {
	id := "/" + r.Scope + providerSegment + "roleAssignments/" + r.Name
	scope := "/" + r.Scope
	rd := roleDefinitionsPrefix + r.RoleDefinitionGUID
	pt := gen.PrincipalType(r.PrincipalType)
	created, updated := r.CreatedOn, r.UpdatedOn
	createdByType, updatedByType := gen.CreatedByType(r.CreatedByType), gen.CreatedByType(r.UpdatedByType)
	typ := roleAssignmentType
	name := r.Name
	return gen.RoleAssignment{
		Id: &id, Name: &name, Type: &typ,
		Properties: gen.RoleAssignmentProperties{
			Scope: &scope, RoleDefinitionId: rd, PrincipalId: r.PrincipalID, PrincipalType: &pt,
			Description: optional(r.Description), Condition: optional(r.Condition), ConditionVersion: optional(r.ConditionVersion),
			DelegatedManagedIdentityResourceId: optional(r.DelegatedManagedIdentityResourceID),
			CreatedOn:                          &created, UpdatedOn: &updated, CreatedBy: optional(r.CreatedBy), UpdatedBy: optional(r.UpdatedBy),
		},
		SystemData: &gen.SystemData{
			CreatedAt: &created, CreatedBy: optional(r.CreatedBy), CreatedByType: &createdByType,
			LastModifiedAt: &updated, LastModifiedBy: optional(r.UpdatedBy), LastModifiedByType: &updatedByType,
		},
	}
}

func TestAssignmentRepliesMatchGenerated(t *testing.T) {
	now := time.Date(2026, 11, 21, 7, 0, 0, 123456789, time.UTC)
	for _, r := range []RoleAssignment{
		{Name: "b0f43c54-e787-4862-89b1-a653fa9cf747", Scope: "subscriptions/s/resourceGroups/rg", RoleDefinitionGUID: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
			PrincipalID: "ce2ce14e-85d7-4629-bdbc-454d0519d987", PrincipalType: "User", CreatedOn: now, UpdatedOn: now.Add(time.Second)},
		{Name: "n", Scope: "", RoleDefinitionGUID: "g", PrincipalID: "p", PrincipalType: "Group", Description: "<b>&", Condition: "c", ConditionVersion: "2.0",
			DelegatedManagedIdentityResourceID: "/x", CreatedBy: "a", UpdatedBy: "b", CreatedByType: "User", UpdatedByType: "Application", CreatedOn: now},
	} {
		if got, want := toWire(r), toWireReference(r); !reflect.DeepEqual(got, want) {
			t.Fatalf("toWire(%+v) =\n%+v, want\n%+v", r, got, want)
		}
		pairs := []struct {
			got, want func(*httptest.ResponseRecorder) error
		}{
			{func(w *httptest.ResponseRecorder) error {
				return (*assignmentCreated)(newWire(r)).VisitRoleAssignmentsCreateResponse(w)
			},
				func(w *httptest.ResponseRecorder) error {
					return gen.RoleAssignmentsCreate201JSONResponse(toWireReference(r)).VisitRoleAssignmentsCreateResponse(w)
				}},
			{func(w *httptest.ResponseRecorder) error {
				return (*assignmentUpdated)(newWire(r)).VisitRoleAssignmentsCreateResponse(w)
			},
				func(w *httptest.ResponseRecorder) error {
					return gen.RoleAssignmentsCreate200JSONResponse(toWireReference(r)).VisitRoleAssignmentsCreateResponse(w)
				}},
			{func(w *httptest.ResponseRecorder) error {
				return (*assignmentRead)(newWire(r)).VisitRoleAssignmentsGetResponse(w)
			},
				func(w *httptest.ResponseRecorder) error {
					return gen.RoleAssignmentsGet200JSONResponse(toWireReference(r)).VisitRoleAssignmentsGetResponse(w)
				}},
			{func(w *httptest.ResponseRecorder) error {
				return (*assignmentDeleted)(newWire(r)).VisitRoleAssignmentsDeleteResponse(w)
			},
				func(w *httptest.ResponseRecorder) error {
					return gen.RoleAssignmentsDelete200JSONResponse(toWireReference(r)).VisitRoleAssignmentsDeleteResponse(w)
				}},
		}
		for i, p := range pairs {
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			if err := p.got(got); err != nil {
				t.Fatal(err)
			}
			if err := p.want(want); err != nil {
				t.Fatal(err)
			}
			if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
				t.Fatalf("reply %d: got %d %v %s, want %d %v %s", i, got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
			}
		}
	}
}

// TestAssignmentPageMatchesGenerated: a list page written assignment by assignment, in
// pieces, is the generated response's status, headers and bytes, for pages of random
// assignments from empty to several pieces long; and where encoding/json cannot write a
// time, the page fails as the generated response does, before writing anything.
func TestAssignmentPageMatchesGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for i := range 300 {
		size := []int{0, 1, 2, 10, 100, 300}[i%6]
		page := newAssignmentPage()
		for range size {
			var r RoleAssignment
			for {
				jsonouttest.Fill(rng, reflect.ValueOf(&r).Elem())
				if jsonout.TimeOK(r.CreatedOn) && jsonout.TimeOK(r.UpdatedOn) {
					break
				}
			}
			page.items = append(page.items, r)
		}
		if size > 0 && i%5 == 0 {
			page.items[rng.IntN(size)].UpdatedOn = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		if i%2 == 0 {
			next := jsonouttest.Strings[rng.IntN(len(jsonouttest.Strings))]
			page.nextLink = &next
		}
		want := httptest.NewRecorder()
		wantErr := page.generated().VisitRoleAssignmentsListForScopeResponse(want)
		got := &countingRecorder{ResponseRecorder: httptest.NewRecorder()}
		gotErr := page.VisitRoleAssignmentsListForScopeResponse(got) // releases page
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("page %d (%d assignments): error %v, generated %v", i, size, gotErr, wantErr)
		}
		if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
			t.Fatalf("page %d (%d assignments): got %d %v %.300s, want %d %v %.300s", i, size, got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
		}
		if size == 300 && wantErr == nil && got.writes < 2 {
			t.Fatalf("page %d: %d bytes written at once, not in pieces of %d", i, got.Body.Len(), pageChunk)
		}
	}
}

// countingRecorder counts the writes of a body.
type countingRecorder struct {
	*httptest.ResponseRecorder
	writes int
}

func (r *countingRecorder) Write(b []byte) (int, error) {
	r.writes++
	return r.ResponseRecorder.Write(b)
}
