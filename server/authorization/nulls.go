package authorization

import (
	"bytes"
	"context"
	"encoding/json"
)

// dropNulls is the body validation judges (validate.Options.Rewrite): data with the members
// whose value is JSON null removed from its objects, because ARM reads a null member as an
// absent one ("description": null is no description), while the spec's schemas, like most,
// do not allow null. Null array elements stay, and are refused by validation as ARM refuses
// them. A body without the word null, or not JSON, passes untouched (nil): validation
// reports what is wrong with it.
func dropNulls(ctx context.Context, _ string, data []byte) (context.Context, []byte) {
	if !bytes.Contains(data, []byte("null")) {
		return ctx, nil
	}
	return ctx, withoutNulls(data)
}

// withoutNulls is data with null object members removed, or nil when it has none or is
// not one JSON value.
func withoutNulls(data []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
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
