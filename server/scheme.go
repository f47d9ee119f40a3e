package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// forwardedSchemeHeaders are the headers Echo's scheme extractor reads the scheme from when
// the peer is trusted (echo.ExtractSchemeFromHeaders).
var forwardedSchemeHeaders = [...]string{echo.HeaderXForwardedProto, echo.HeaderXForwardedProtocol,
	echo.HeaderXForwardedSsl, echo.HeaderXUrlScheme}

// schemeExtractor answers as full (Echo's default extractor) does, at once when no
// forwarding header can change the answer. Each API asks for the scheme of every request it
// authenticates (its links use it when there is no public URL), and full first parses the
// peer's address to learn whether it may trust those headers: about 1% of a rule insert's
// instructions, for requests that have none.
func schemeExtractor(full echo.SchemeExtractor) echo.SchemeExtractor {
	return func(r *http.Request) string {
		if r.TLS == nil && !hasAny(r.Header, forwardedSchemeHeaders[:]) {
			return "http"
		}
		return full(r)
	}
}

// hasAny reports whether h has any of names (in canonical form, as net/http stores them).
func hasAny(h http.Header, names []string) bool {
	for _, name := range names {
		if _, ok := h[name]; ok {
			return true
		}
	}
	return false
}
