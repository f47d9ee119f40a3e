package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/understudy-dev/understudy/gen/authorization"
)

// AuthorizationAPIVersion is the api-version the generated shapes are written for; pass it
// in every request's params (ApiVersion). The API also serves the older and preview versions
// the vendor's REST specification defines, each in its own shape (docs/authorization.md).
const AuthorizationAPIVersion = "2022-04-01"

// Authorization is a client of the authorization API (ARM-style role assignments and role
// definitions). Every generated method is available on it, e.g.
// RoleAssignmentsCreateWithResponse; wrap a call in CheckARM to get failures as *ARMError.
type Authorization struct {
	*authorization.ClientWithResponses
}

// NewAuthorization returns a client of the authorization API served at baseURL (the
// server's root, e.g. http://127.0.0.1:8080). It sends the WithBearerToken token, and sends
// scopes with raw slashes (/subscriptions/s/resourceGroups/rg/providers/...) as ARM's own
// clients do, where the generated client would escape them as %2F.
func NewAuthorization(baseURL string, opts ...Option) (*Authorization, error) {
	s := newSettings(opts)
	gopts := []authorization.ClientOption{authorization.WithRequestEditorFn(s.editor(rawScopes))}
	if s.httpClient != nil {
		gopts = append(gopts, authorization.WithHTTPClient(s.httpClient))
	}
	c, err := authorization.NewClientWithResponses(baseURL, gopts...)
	if err != nil {
		return nil, fmt.Errorf("client: authorization: %w", err)
	}
	return &Authorization{c}, nil
}

// rawScopes undoes the generated client's escaping of the slashes inside {scope} (and inside
// a full role definition id), so the path reads as ARM's clients write it.
func rawScopes(_ context.Context, req *http.Request) error {
	if req.URL.RawPath != "" {
		raw := strings.ReplaceAll(req.URL.RawPath, "%2F", "/")
		req.URL.RawPath = strings.ReplaceAll(raw, "%2f", "/")
	}
	return nil
}
