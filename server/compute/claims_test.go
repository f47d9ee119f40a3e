package compute_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/spectest"
	"github.com/understudy-dev/understudy/server"
)

// Operation.user records the email claim of an unverified token only when it is a
// plausible address; any other claim is ignored and the default user recorded, exactly as
// for a token without one (auth.go).
func TestOperationUserIgnoresImplausibleEmailClaims(t *testing.T) {
	const fallback = "fallback@understudy.test"
	srv, _ := apiServer(t, operations.Mode{}, func(c *server.Config) { c.Compute.DefaultUser = fallback })
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	tests := []struct {
		name, payload, want string
	}{
		{"plausible address", `{"email":"dev@example.com"}`, "dev@example.com"},
		{"address of 254 bytes", `{"email":"` + strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + `.com"}`, strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + ".com"},
		{"no email claim", `{"sub":"dev"}`, fallback},
		{"NUL and newline", `{"email":"a\u0000b\nc"}`, fallback},
		{"control characters in an address", `{"email":"dev\u0000@example.com"}`, fallback},
		{"newline in an address", `{"email":"dev@example.com\nX-Injected: 1"}`, fallback},
		{"invalid UTF-8", "{\"email\":\"dev\xff@example.com\"}", fallback},
		{"U+FFFD", `{"email":"dev\ufffd@example.com"}`, fallback},
		{"right-to-left override", `{"email":"dev\u202e@example.com"}`, fallback},
		{"too long", `{"email":"` + strings.Repeat("a", 64) + "@" + strings.Repeat("b", 186) + `.com"}`, fallback},
		{"5000 characters", `{"email":"` + strings.Repeat("a", 5000) + `@example.com"}`, fallback},
		{"not an address", `{"email":"not-an-email"}`, fallback},
		{"display name form", `{"email":"Dev <dev@example.com>"}`, fallback},
		{"angle brackets", `{"email":"<dev@example.com>"}`, fallback},
		{"two addresses", `{"email":"a@example.com, b@example.com"}`, fallback},
		{"not a string", `{"email":42}`, fallback},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := enc([]byte(`{"alg":"none"}`)) + "." + enc([]byte(tt.payload)) + ".sig"
			c, err := gen.NewClientWithResponses(srv.URL,
				gen.WithHTTPClient(&http.Client{Transport: spectest.Transport(t, spec, nil)}),
				gen.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
					r.Header.Set("Authorization", "Bearer "+token)
					return nil
				}))
			if err != nil {
				t.Fatal(err)
			}
			resp := apiInsert(t, c, fmt.Sprintf("fr-claim-%d", i), nil, nil)
			if resp.StatusCode() != 200 || resp.JSON200.User == nil {
				t.Fatalf("insert: %d %s", resp.StatusCode(), resp.Body)
			}
			if got := *resp.JSON200.User; got != tt.want {
				t.Errorf("Operation.user = %q, want %q", got, tt.want)
			}
			if got := apiGetOp(t, c, *resp.JSON200.Name).User; got == nil || *got != tt.want {
				t.Errorf("stored Operation.user = %v, want %q", got, tt.want)
			}
		})
	}
}
