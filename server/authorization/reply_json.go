package authorization

import (
	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/jsonout"
)

// appendRoleAssignment appends a as encoding/json writes it: member by member in the
// generated types' field order, with their omitempty rules, and times as time.Time's
// MarshalJSON writes them. encoding/json spent about 36,000 instructions of a
// role-assignment PUT on this body, most of them re-scanning the four times' MarshalJSON
// output. It reports false for a time encoding/json cannot write either (a year outside
// 0-9999), which is then left to encoding/json and its error.
// TestAppendRoleAssignmentMatchesEncodingJSON holds the two to the same bytes for any value.
func appendRoleAssignment(b []byte, a *gen.RoleAssignment) ([]byte, bool) {
	var times jsonout.Times // the four times are mostly one or two instants
	w := jsonout.Open(b)
	w.OptString("id", a.Id)
	w.OptString("name", a.Name)
	w.Key("properties")
	var ok bool
	if w.B, ok = appendAssignmentProperties(w.B, &a.Properties, &times); !ok {
		return b, false
	}
	if sd := a.SystemData; sd != nil {
		w.Key("systemData")
		s := jsonout.Open(w.B)
		createdOK := s.OptTime("createdAt", sd.CreatedAt, &times)
		s.OptString("createdBy", sd.CreatedBy)
		s.OptString("createdByType", (*string)(sd.CreatedByType))
		modifiedOK := s.OptTime("lastModifiedAt", sd.LastModifiedAt, &times)
		s.OptString("lastModifiedBy", sd.LastModifiedBy)
		s.OptString("lastModifiedByType", (*string)(sd.LastModifiedByType))
		if !createdOK || !modifiedOK {
			return b, false
		}
		w.B = s.Close()
	}
	w.OptString("type", a.Type)
	return w.Close(), true
}

func appendAssignmentProperties(b []byte, p *gen.RoleAssignmentProperties, times *jsonout.Times) ([]byte, bool) {
	w := jsonout.Open(b)
	w.OptString("condition", p.Condition)
	w.OptString("conditionVersion", p.ConditionVersion)
	w.OptString("createdBy", p.CreatedBy)
	ok := w.OptTime("createdOn", p.CreatedOn, times)
	w.OptString("delegatedManagedIdentityResourceId", p.DelegatedManagedIdentityResourceId)
	w.OptString("description", p.Description)
	w.String("principalId", p.PrincipalId)
	w.OptString("principalType", (*string)(p.PrincipalType))
	w.String("roleDefinitionId", p.RoleDefinitionId)
	w.OptString("scope", p.Scope)
	w.OptString("updatedBy", p.UpdatedBy)
	ok = w.OptTime("updatedOn", p.UpdatedOn, times) && ok
	return w.Close(), ok
}
