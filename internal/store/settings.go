package store

// Setting is a named server-wide value that must outlive a restart, such as how far the
// clock has been advanced.
type Setting struct {
	Name  string
	Value string
}

// NewSettings adds the settings table to db; records are keyed by name.
func NewSettings(db *DB) *Table[Setting] {
	return NewTable(db, "settings", Codec[Setting]{
		Encode: func(e *Enc, s Setting) { e.String(s.Name); e.String(s.Value) },
		Decode: func(d *Dec) Setting { return Setting{Name: d.String(), Value: d.String()} },
	})
}
