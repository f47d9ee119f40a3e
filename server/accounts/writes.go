package accounts

import (
	"context"
	"reflect"
)

// The API's requests write accounts and persons only through writeAccount and writePerson,
// in the transaction of the change. They compute what follows from the change (an account's
// requirements and capability statuses, which its persons decide too) and emit the
// change's events there (events.go): an account created, updated or closed, a section of it
// (identity, defaults, a configuration) or its requirements changed, a capability's status
// changed, a person created, updated or deleted, and what a person's change does to its
// account's requirements. Whatever changed the record (an update, an account or person
// token, the hosted form, a close) emits the same events. Seeding writes directly: a seed is
// the starting state, not a change.

// writeAccount computes and stores account a, created (before nil) or changed from before,
// whose object is the tree obj with the change applied, and emits the events of the change.
func (s *Server) writeAccount(ctx context.Context, w *write, before *Account, a *Account, obj map[string]any) error {
	if err := fillAccount(a, obj); err != nil {
		return err
	}
	if err := s.tables.Accounts.Put(w.Tx, a.ID(), *a); err != nil {
		return err
	}
	if before == nil {
		_, err := s.emit(ctx, w, accountEvent(*a, evAccountCreated, nil))
		return err
	}
	// Persons are not changed by an account's write: what they decide with the account
	// before and after is counted with the persons it has.
	persons := s.personsOf(w.Tx, a.ID())
	return s.emitAccountChanges(ctx, w, stateOf(*before, persons), stateOf(*a, persons), *a)
}

// writePerson stores a created or changed person, or deletes one (after nil), and emits the
// person's event, and those of what the change does to what the account's persons decide
// with it (its requirements, its capabilities' statuses).
func (s *Server) writePerson(ctx context.Context, w *write, before, after *Person) error {
	p, typ := after, evPersonUpdated
	switch {
	case before == nil:
		typ = evPersonCreated
	case after == nil:
		p, typ = before, evPersonDeleted
	}
	a, _ := s.getAccount(w.Tx, p.Object.Account)
	was := s.personsOf(w.Tx, a.ID())
	if after == nil {
		s.tables.Persons.Delete(w.Tx, before.ID())
	} else if err := s.tables.Persons.Put(w.Tx, after.ID(), *after); err != nil {
		return err
	}
	if _, err := s.emit(ctx, w, personEvent(a, p.ID(), typ)); err != nil {
		return err
	}
	if a.Closed() {
		return nil
	}
	now := s.personsOf(w.Tx, a.ID())
	obj := a.tree()
	if reflect.DeepEqual(requirementsOf(&a, obj, was), requirementsOf(&a, obj, now)) {
		return nil // nothing the persons decide changed
	}
	return s.emitAccountChanges(ctx, w, stateOf(a, was), stateOf(a, now), a)
}
