package understudytest_test

import (
	"net/http"

	"github.com/stripe/stripe-go/v85"
)

// stripeClient is a stripe-go client of understudy's at baseURL.
func stripeClient(baseURL string) *stripe.Client {
	return stripe.NewClient("sk_test_123", stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:        stripe.String(baseURL),
		HTTPClient: &http.Client{Transport: serviceVersion{http.DefaultTransport}},
	})))
}

// serviceVersion sends the Service-Version header the accounts API requires.
type serviceVersion struct{ next http.RoundTripper }

func (t serviceVersion) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Service-Version", "2026-05-27.dahlia")
	return t.next.RoundTrip(req)
}
