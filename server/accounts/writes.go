package accounts

import "github.com/understudy-dev/understudy/internal/store"

// The API's requests write accounts and persons only through writeAccount and writePerson,
// each given the record before the change (nil for a new one) and after it (nil for a
// deleted person), in the transaction of the change. What follows a change (an event
// saying an account was created, updated or closed, that its requirements or a
// capability's status changed, that a person was created, updated or deleted) belongs
// here, where every change passes with both versions. Seeding writes directly: a seed
// is the starting state, not a change.

// writeAccount stores a created or changed account.
func (s *Server) writeAccount(tx *store.Tx, before *Account, after Account) error {
	return s.tables.Accounts.Put(tx, after.ID, after)
}

// writePerson stores a created or changed person, or deletes one (after nil).
func (s *Server) writePerson(tx *store.Tx, before, after *Person) error {
	if after == nil {
		_, _, err := s.tables.Persons.Delete(tx, before.ID)
		return err
	}
	return s.tables.Persons.Put(tx, after.ID, *after)
}
