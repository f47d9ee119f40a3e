package authorization

// Helpers for the generated types' optional members, which every resource's handlers use.

// or is p, or else def when p is nil or empty.
func or[T comparable](p, def *T) *T {
	var zero T
	if p == nil || *p == zero {
		return def
	}
	return p
}

// ptr is a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// deref is what p points to, or T's zero value when p is nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// optional is s as an optional member: nil when it is empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
