package store

// Setting is a named server-wide value that must outlive a restart, such as how far the
// clock has been advanced.
type Setting struct {
	Name  string
	Value string
}

// NewSettings adds the settings table to db; records are keyed by name.
func NewSettings(db *DB) *Table[Setting] { return NewTable[Setting](db, "settings", nil) }
