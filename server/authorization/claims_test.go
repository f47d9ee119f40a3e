package authorization_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server/authorization"
)

// createdBy, updatedBy and systemData take the oid claim of an unverified token only when
// it is a GUID; any other oid counts as no oid, so the default principal is recorded
// exactly as for a token without one (identity.go).
func TestCreatedByIgnoresImplausibleOIDClaims(t *testing.T) {
	const fallback = "00000000-0000-4000-8000-00000000fa11"
	const goodOID = "6f8bbbb4-9e2b-4b35-a3ad-0c0b0a5a8d27"
	e := newEnv(t, func(c *authorization.Config) { c.DefaultPrincipal = fallback })
	enc := base64.RawURLEncoding.EncodeToString
	tests := []struct {
		name, payload, want string
	}{
		{"GUID oid", `{"oid":"` + strings.ToUpper(goodOID) + `"}`, goodOID},
		{"no oid", `{"sub":"x"}`, fallback},
		{"oid not a GUID, with NUL, newline and markup", `{"oid":"not-a-guid\u0000\n<x>"}`, fallback},
		{"oid of 5000 characters", `{"oid":"` + strings.Repeat("a", 5000) + `"}`, fallback},
		{"oid of invalid UTF-8", "{\"oid\":\"\xff\"}", fallback},
		{"GUID oid with a newline", `{"oid":"` + goodOID + `\n"}`, fallback},
		{"oid not a string", `{"oid":42}`, fallback},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(tt.payload)) + ".sig"
			name := fmt.Sprintf("0a1b2c3d-0000-4000-8000-%012d", i)
			principal := fmt.Sprintf("0a1b2c3d-0000-4000-9000-%012d", i)
			body := `{"properties":{"principalId":"` + principal + `","roleDefinitionId":"` + readerID + `"}}`
			for _, want := range []int{http.StatusCreated, http.StatusOK} { // create, then update
				req, _ := http.NewRequest(http.MethodPut, e.srv.URL+"/"+rgScope+"/providers/Vendor.Authorization/roleAssignments/"+name+"?api-version=2022-04-01", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var got struct {
					Properties struct{ CreatedBy, UpdatedBy string }
					SystemData struct{ CreatedBy, LastModifiedBy string }
				}
				err = json.NewDecoder(resp.Body).Decode(&got)
				resp.Body.Close()
				if err != nil || resp.StatusCode != want {
					t.Fatalf("PUT: %d, want %d (%v)", resp.StatusCode, want, err)
				}
				for field, v := range map[string]string{"createdBy": got.Properties.CreatedBy, "updatedBy": got.Properties.UpdatedBy,
					"systemData.createdBy": got.SystemData.CreatedBy, "systemData.lastModifiedBy": got.SystemData.LastModifiedBy} {
					if v != tt.want {
						t.Errorf("%s = %q, want %q", field, v, tt.want)
					}
				}
			}
		})
	}
}
