package compute

// ptr is a pointer to a copy of v, for the generated types' optional members.
func ptr[T any](v T) *T { return &v }

// optional is s as an optional member: nil when it is empty (absent, as the APIs show an
// empty text member). It allocates only for a text it keeps.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return ptr(s)
}

// unsetEmpty leaves out the text members given as "", as the real service shows them.
func unsetEmpty(members ...**string) {
	for _, m := range members {
		if *m != nil && **m == "" {
			*m = nil
		}
	}
}

// deref is what p points to, or T's zero value when p is nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// orDefault is p, or a pointer to def when p is nil.
func orDefault[T any](p *T, def T) *T {
	if p == nil {
		return &def
	}
	return p
}
