package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	admingen "github.com/understudy-dev/understudy/gen/admin"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	consolegen "github.com/understudy-dev/understudy/gen/console"
	"github.com/understudy-dev/understudy/understudytest"
)

// TestSpecsServed: GET /_understudy/specs/{api}.yaml answers each API's spec as written
// in specs/, as application/yaml, and it is the very document the server validates
// requests against (the generated package's embedded spec); another name is 404.
func TestSpecsServed(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithAdminToken("specs-token"))
	admin := srv.Admin
	ctx := context.Background()
	embedded := map[string]func() (*openapi3.T, error){
		"authorization": authzgen.GetSpec, "accounts": accountsgen.GetSpec, "compute": computegen.GetSpec, "admin": admingen.GetSpec,
	}
	for api, load := range embedded {
		t.Run(api, func(t *testing.T) {
			resp, err := admin.GetAPISpecWithResponse(ctx, api)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode() != 200 || resp.HTTPResponse.Header.Get("Content-Type") != "application/yaml" {
				t.Fatalf("%d %s: %.200s", resp.StatusCode(), resp.HTTPResponse.Header.Get("Content-Type"), resp.Body)
			}
			want, err := os.ReadFile(filepath.Join("..", "specs", api+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != string(want) {
				t.Errorf("served %d bytes, specs/%s.yaml has %d: not the file as written", len(resp.Body), api, len(want))
			}
			served, err := openapi3.NewLoader().LoadFromData(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := load()
			if err != nil {
				t.Fatal(err)
			}
			if api == "admin" {
				// The console's operations (tag Console) are generated into gen/console, the
				// rest into gen/admin: each embeds the whole file, its own operations only.
				con, err := consolegen.GetSpec()
				if err != nil {
					t.Fatal(err)
				}
				for path, item := range con.Paths.Map() {
					for method, op := range item.Operations() {
						doc.Paths.Value(path).SetOperation(method, op)
					}
				}
			}
			a, _ := json.Marshal(served)
			b, _ := json.Marshal(doc)
			if string(a) != string(b) {
				t.Errorf("the served spec is not the one the server validates against: run go generate ./...")
			}
		})
	}

	for _, name := range []string{"nope", "Compute", "compute.yaml", ".."} {
		resp, err := admin.GetAPISpecWithResponse(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode() != 404 || resp.JSONDefault == nil || resp.JSONDefault.Error.Code != "NotFound" {
			t.Errorf("%s: %d %s, want 404 NotFound in the admin envelope", name, resp.StatusCode(), resp.Body)
		}
	}
	// Not a .yaml: no such route.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/_understudy/specs/compute.json", nil)
	req.Header.Set("Authorization", "Bearer specs-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var e struct{ Error struct{ Code string } }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != 404 || e.Error.Code != "NotFound" {
		t.Errorf("compute.json: %d %q, want 404 NotFound", resp.StatusCode, e.Error.Code)
	}
	// HEAD answers as GET, without the body.
	req, _ = http.NewRequest(http.MethodHead, srv.URL+"/_understudy/specs/admin.yaml", nil)
	req.Header.Set("Authorization", "Bearer specs-token")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/yaml") {
		t.Errorf("HEAD: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
