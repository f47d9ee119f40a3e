package accounts

import "github.com/oapi-codegen/nullable"

// Helpers for the generated types' optional and nullable members, which every resource's
// handlers use.

// deref is what p points to, or T's zero value when p is nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// optionalString is s as a nullable member: null when empty.
func optionalString(s string) nullable.Nullable[string] {
	if s == "" {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(s)
}

// setNull makes n null, unless it is: each SetNull makes a map, which an answer made
// null already (Account.shown) does not need again.
func setNull[T any](n *nullable.Nullable[T]) {
	if !n.IsNull() {
		n.SetNull()
	}
}
