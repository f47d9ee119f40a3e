package authorization

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/server/validate"
)

// dropNulls removes the members whose value is JSON null from a request body's objects
// before validation, because ARM reads a null member as an absent one ("description": null
// is no description), while the spec's schemas, like most, do not allow null. Null array
// elements stay, and are refused by validation as ARM refuses them. A body without the word
// null, not UTF-8, or not JSON passes untouched: validation reports what is wrong with it.
func dropNulls(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			// Validation reads the body next and reports the error (a body over the limit).
			req.Body = validate.FailedBody(data, err)
			return next(c)
		}
		if bytes.Contains(data, []byte("null")) && utf8.Valid(data) {
			data = withoutNulls(data)
		}
		req.Body, req.ContentLength = validate.Body(data), int64(len(data))
		return next(c)
	}
}

// withoutNulls is data with null object members removed, or data itself when it is not one
// JSON value.
func withoutNulls(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return data
	}
	if !stripNulls(v) {
		return data
	}
	out, err := json.Marshal(v)
	if err != nil {
		return data
	}
	return out
}

// stripNulls deletes null members from every object in v and reports whether it deleted any.
func stripNulls(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				changed = true
			} else if stripNulls(e) {
				changed = true
			}
		}
	case []any:
		for _, e := range t {
			if stripNulls(e) {
				changed = true
			}
		}
	}
	return changed
}
