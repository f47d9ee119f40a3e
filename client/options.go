package client

import (
	"context"
	"net/http"
)

// Option configures a client made by NewAuthorization, NewAccounts or NewCompute. Options
// that only one API uses (WithServiceVersion, WithoutAutoIdempotency) are ignored by the
// others.
type Option func(*settings)

// settings is what the options say.
type settings struct {
	token           string
	httpClient      *http.Client
	userAgent       string
	editors         []editor
	serviceVersion  string
	noIdempotencyID bool
}

// editor has the shape of every generated package's RequestEditorFn.
type editor = func(ctx context.Context, req *http.Request) error

func newSettings(opts []Option) *settings {
	s := &settings{serviceVersion: AccountsServiceVersion}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// WithBearerToken sends "Authorization: Bearer <token>" on every request. The
// authorization and compute APIs accept any token unless the server enforces permissions.
func WithBearerToken(token string) Option {
	return func(s *settings) { s.token = token }
}

// WithAPIKey sends "Authorization: Bearer <key>" on every request: the accounts API's secret
// key (sk_test_... or sk_live_...). It is WithBearerToken under the accounts API's name; when
// both are given, the last one wins.
func WithAPIKey(key string) Option {
	return func(s *settings) { s.token = key }
}

// WithHTTPClient sends requests through hc instead of http.DefaultClient: for timeouts,
// proxies, retries or test transports. A nil hc keeps the default.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *settings) { s.httpClient = hc }
}

// WithRequestEditor runs fn on every request just before it is sent, after the client has
// set its own headers, so fn has the last word. Several editors run in the order given.
func WithRequestEditor(fn func(ctx context.Context, req *http.Request) error) Option {
	return func(s *settings) {
		if fn != nil {
			s.editors = append(s.editors, fn)
		}
	}
}

// WithUserAgent sends ua as the User-Agent header instead of Go's default.
func WithUserAgent(ua string) Option {
	return func(s *settings) { s.userAgent = ua }
}

// WithServiceVersion changes the Service-Version header the accounts client sends when a
// request's params leave it empty (default AccountsServiceVersion).
func WithServiceVersion(v string) Option {
	return func(s *settings) { s.serviceVersion = v }
}

// WithoutAutoIdempotency stops the accounts client from adding an Idempotency-Key to POST
// requests that have none.
func WithoutAutoIdempotency() Option {
	return func(s *settings) { s.noIdempotencyID = true }
}

// editor returns one editor that sets the credentials and the user agent, then runs the
// API's own editors, then the caller's.
func (s *settings) editor(own ...editor) editor {
	all := make([]editor, 0, 1+len(own)+len(s.editors))
	all = append(all, s.common)
	all = append(all, own...)
	all = append(all, s.editors...)
	return func(ctx context.Context, req *http.Request) error {
		for _, e := range all {
			if err := e(ctx, req); err != nil {
				return err
			}
		}
		return nil
	}
}

func (s *settings) common(_ context.Context, req *http.Request) error {
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	if s.userAgent != "" {
		req.Header.Set("User-Agent", s.userAgent)
	}
	return nil
}
