package server

import (
	"crypto/tls"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestSchemeExtractorIsEchos: the scheme of a request is Echo's default answer (Context.Scheme
// with no extractor set) for peers trusted and not, over TLS and not, with each forwarding
// header Echo reads and with lookalikes it does not read, so that an Echo that starts
// reading one of those fails here.
func TestSchemeExtractorIsEchos(t *testing.T) {
	ours := schemeExtractor(echo.ExtractSchemeFromHeaders())
	peers := []string{"127.0.0.1:5000", "[::1]:5000", "10.0.0.1:1", "203.0.113.9:443", "[2001:db8::1]:80", "@", "", "not an address"}
	headers := [][2]string{{}, {"X-Forwarded-Proto", "https"}, {"X-Forwarded-Proto", "HTTPS"}, {"X-Forwarded-Proto", "http, https"},
		{"X-Forwarded-Proto", ""}, {"X-Forwarded-Proto", "gopher"}, {"X-Forwarded-Protocol", "https"}, {"X-Forwarded-Ssl", "on"},
		{"X-Url-Scheme", "wss"}, {"Forwarded", "proto=https"}, {"X-Forwarded-Scheme", "https"}, {"Front-End-Https", "on"},
		{"X-Forwarded-Host", "example.com"}}
	e := echo.New()
	checked, https := 0, 0
	for _, overTLS := range []bool{false, true} {
		for _, peer := range peers {
			for _, h := range headers {
				r := httptest.NewRequest("GET", "/", nil)
				r.RemoteAddr = peer
				r.TLS = nil
				if overTLS {
					r.TLS = &tls.ConnectionState{}
				}
				if h[0] != "" {
					r.Header.Set(h[0], h[1])
				}
				want := e.NewContext(r, nil).Scheme()
				if got := ours(r); got != want {
					t.Errorf("TLS %v, peer %q, %s: %q: scheme %q, Echo's %q", overTLS, peer, h[0], h[1], got, want)
				}
				if want != "http" {
					https++
				}
				checked++
			}
		}
	}
	if https == 0 || https == checked {
		t.Fatalf("%d of %d requests not http: the cases do not tell the schemes apart", https, checked)
	}
}
