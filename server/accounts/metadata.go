package accounts

import (
	"net/http"
	"unicode/utf8"
)

// checkMetadataKeys enforces the key length the Metadata schema describes (at most 40
// characters), which a JSON Schema cannot say of map keys.
func checkMetadataKeys[V any](m map[string]V) error {
	for k := range m {
		if n := utf8.RuneCountInString(k); n > 40 {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "metadata: keys must be at most 40 characters (%q is %d)", k, n)
		}
	}
	return nil
}
