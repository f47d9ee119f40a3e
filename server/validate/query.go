package validate

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Query checks that a request's raw query string parses: every %-escape is a '%' and two hex
// digits, and no pair holds a ';'. url.ParseQuery, which Echo, the generated binders and
// kin-openapi all use through URL.Query, drops such a pair and reports an error that every
// one of them ignores: the parameter would silently go missing (an idempotency key, an
// api-version, a page size). The error names the parameter at fault; it is a query
// parameter's *Error, which each API renders in its own envelope.
//
// ParseQuery also drops the whole query when it has more parameters than its limit (10,000
// unless GODEBUG urlmaxqueryparams says otherwise); a query that long is checked with
// ParseQuery itself.
//
// A query without '%' or ';', shorter than the parameter limit, is accepted after one scan
// for them: the usual case costs no allocation.
func Query(raw string) error {
	long := len(raw) >= maxQueryParams
	if !long && strings.IndexByte(raw, '%') < 0 && strings.IndexByte(raw, ';') < 0 {
		return nil
	}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		switch {
		case strings.IndexByte(pair, ';') >= 0:
			return &Error{Status: http.StatusBadRequest, In: "query", Name: queryName(key),
				Reason: "the query string has a ';' in this parameter; separate parameters with '&' and escape a ';' in a value as %3B"}
		case !validEscapes(key):
			return &Error{Status: http.StatusBadRequest, In: "query", Name: queryName(key),
				Reason: "the query string has an invalid %-escape in this parameter's name (a '%' must be followed by two hex digits)"}
		case !validEscapes(value):
			return &Error{Status: http.StatusBadRequest, In: "query", Name: queryName(key),
				Reason: "the query string has an invalid %-escape in this parameter's value (a '%' must be followed by two hex digits)"}
		}
	}
	if long {
		if _, err := url.ParseQuery(raw); err != nil {
			return &Error{Status: http.StatusBadRequest, In: "query", Reason: "the query string could not be parsed: " + sanitize(err.Error()), Cause: err}
		}
	}
	return nil
}

// maxQueryParams is url.ParseQuery's default limit on the number of parameters: a query
// shorter than this cannot have more.
const maxQueryParams = 10000

// validEscapes reports whether every '%' in s starts an escape, as url.QueryUnescape reads them.
func validEscapes(s string) bool {
	_, err := url.QueryUnescape(s)
	return err == nil
}

// pathUnescape is url.PathUnescape (false where it fails), with the runs between escapes
// copied whole rather than built byte by byte, because every role-assignment request
// unescapes its scope. TestPathUnescapeMatchesURL holds the two together.
func pathUnescape(s string) (string, bool) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for ; i >= 0; i = strings.IndexByte(s, '%') {
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b.WriteString(s[:i])
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		s = s[i+3:]
	}
	b.WriteString(s)
	return b.String(), true
}

// unhex is the value of the hex digit c.
func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// maxQueryName is the longest parameter name an error repeats.
const maxQueryName = 64

// queryName is a parameter's name as an error message shows it: unescaped when it can be,
// else as sent; at most maxQueryName bytes, valid UTF-8, without control characters.
func queryName(key string) string {
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	if len(key) > maxQueryName {
		key = key[:maxQueryName] + "..."
	}
	key = strings.ToValidUTF8(key, string(utf8.RuneError))
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return utf8.RuneError
		}
		return r
	}, key)
}
