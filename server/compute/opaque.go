package compute

import "encoding/json"

// Some members of the discovery document configure things understudy does not model (a
// load balancer's xDS metadata filters, an interconnect's MACsec keys, ...). They are
// accepted as the real service accepts them, stored as the JSON the client sent and
// returned as they were given; nothing reads them.

// keepJSON is v as JSON text, or nil when v is absent (a nil pointer or an empty slice).
func keepJSON[T any](v T) []byte {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" || string(b) == "[]" {
		return nil
	}
	return b
}

// fromJSON is what keepJSON kept, as the wire type T (its zero value when nothing was kept).
func fromJSON[T any](b []byte) T {
	var out T
	if len(b) > 0 {
		_ = json.Unmarshal(b, &out) // written by keepJSON from a T: it reads back
	}
	return out
}

// exportJSON is what keepJSON kept, as a plain JSON value for the state export.
func exportJSON(b []byte) any {
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}
