package validate

import (
	"bytes"
	"encoding/json"
)

// WithoutNulls is data with the members whose value is JSON null removed from its objects,
// at any depth, for APIs that read a null member as an absent one; null array elements
// stay, for validation to refuse. It is nil when data has no such member or is not one JSON
// value.
func WithoutNulls(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers pass as written
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil
	}
	if !stripNulls(v) {
		return nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil
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
