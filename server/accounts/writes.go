package accounts

import (
	"context"

	"github.com/understudy-dev/understudy/internal/store"
)

// The API's requests write accounts and persons only through writeAccount and writePerson,
// each given the record before the change (nil for a new one) and after it (nil for a
// deleted person), in the transaction of the change. They emit the change's events there
// (events.go): an account created, updated or closed, a section of it (identity, defaults,
// a configuration) or its requirements changed, a capability's status changed, a person
// created, updated or deleted, and what a person's change does to its account's
// requirements. Whatever changed the record (an update, an account or person token, the
// hosted form, a close) emits the same events. Seeding writes directly: a seed is the
// starting state, not a change.

// writeAccount stores a created or changed account and emits the events of the change.
func (s *Server) writeAccount(ctx context.Context, tx *store.Tx, before *Account, after Account) error {
	if err := s.tables.Accounts.Put(tx, after.ID, after); err != nil {
		return err
	}
	// Persons are not changed by an account's write: the requirements before and after are
	// both counted with the persons the account has.
	persons := s.personsOf(tx, after.ID)
	was := accountState{}
	if before != nil {
		was = stateOf(*before, persons)
	}
	return s.emitAccountChanges(ctx, tx, was, after, persons)
}

// writePerson stores a created or changed person, or deletes one (after nil), and emits the
// person's event and those of its account's requirements and capabilities it changed.
func (s *Server) writePerson(ctx context.Context, tx *store.Tx, before, after *Person) error {
	p, typ := after, evPersonUpdated
	switch {
	case before == nil:
		typ = evPersonCreated
	case after == nil:
		p, typ = before, evPersonDeleted
	}
	a, _ := s.tables.Accounts.Get(tx, p.Account)
	was := stateOf(a, s.personsOf(tx, a.ID))
	if after == nil {
		s.tables.Persons.Delete(tx, before.ID)
	} else if err := s.tables.Persons.Put(tx, after.ID, *after); err != nil {
		return err
	}
	if _, err := s.emit(ctx, tx, personEvent(a, p.ID, typ)); err != nil {
		return err
	}
	return s.emitAccountChanges(ctx, tx, was, a, s.personsOf(tx, a.ID))
}
