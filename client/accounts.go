package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/understudy-dev/understudy/gen/accounts"
)

// AccountsServiceVersion is the Service-Version the accounts client sends by default.
const AccountsServiceVersion = "2026-05-27.dahlia"

// Accounts is a client of the accounts API (v2 accounts and account links). Every generated
// method is available on it, e.g. CreateAccountWithResponse; wrap a call in CheckAccounts to
// get failures as *AccountsError.
type Accounts struct {
	*accounts.ClientWithResponses
}

// NewAccounts returns a client of the accounts API served at baseURL (the server's root,
// e.g. http://127.0.0.1:8080). It sends:
//
//   - the WithAPIKey secret key as a bearer token;
//   - Service-Version, AccountsServiceVersion or the WithServiceVersion value, whenever a
//     request's params leave it empty (the generated params structs require the field, so
//     callers may pass nil params or leave ServiceVersion "");
//   - an Idempotency-Key, a random UUID v4, on every POST that carries none
//     (WithoutAutoIdempotency turns this off). The key is set once per request, so an
//     http.Client that retries (WithHTTPClient) resends the same key; to make your own
//     retries of a call safe, pass the same IdempotencyKey in its params each time.
func NewAccounts(baseURL string, opts ...Option) (*Accounts, error) {
	s := newSettings(opts)
	gopts := []accounts.ClientOption{accounts.WithRequestEditorFn(s.editor(s.accountsHeaders))}
	if s.httpClient != nil {
		gopts = append(gopts, accounts.WithHTTPClient(s.httpClient))
	}
	c, err := accounts.NewClientWithResponses(baseURL, gopts...)
	if err != nil {
		return nil, fmt.Errorf("client: accounts: %w", err)
	}
	return &Accounts{c}, nil
}

func (s *settings) accountsHeaders(_ context.Context, req *http.Request) error {
	if req.Header.Get("Service-Version") == "" && s.serviceVersion != "" {
		req.Header.Set("Service-Version", s.serviceVersion)
	}
	if req.Method == http.MethodPost && !s.noIdempotencyID && req.Header.Get("Idempotency-Key") == "" {
		key, err := uuid.NewRandom()
		if err != nil {
			return fmt.Errorf("client: idempotency key: %w", err)
		}
		req.Header.Set("Idempotency-Key", key.String())
	}
	return nil
}
