package accounts

import (
	"context"
	"reflect"

	gen "github.com/understudy-dev/understudy/gen/accounts"
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
// It returns the account's object.
func (s *Server) writeAccount(ctx context.Context, w *write, before *Account, a *Account, obj map[string]any) (gen.V2CoreAccount, error) {
	var persons []Person
	if before != nil {
		// Persons are not changed by an account's write: the requirements before and after
		// are both counted with the persons the account has. A new account has none.
		persons = s.personsOf(w.Tx, a.ID())
	}
	o, err := fillAccount(a, obj, persons)
	if err != nil {
		return o, err
	}
	if err := s.tables.Accounts.Put(w.Tx, a.ID(), *a); err != nil {
		return o, err
	}
	if before == nil {
		_, err := s.emit(ctx, w, accountEvent(*a, evAccountCreated, nil))
		return o, err
	}
	return o, s.emitAccountChanges(ctx, w, stateOf(*before, persons), stateOf(*a, persons), *a)
}

// writePerson stores a created or changed person, or deletes one (after nil), and emits the
// person's event; what the change does to its account (requirements, capability statuses)
// is stored and emitted with it.
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
	return s.personsChanged(ctx, w, a, was, s.personsOf(w.Tx, a.ID()))
}

// personsChanged computes again what account a's persons decide of it, now that they are
// now rather than was, and stores and emits what changed.
func (s *Server) personsChanged(ctx context.Context, w *write, a Account, was, now []Person) error {
	if a.Closed() {
		return nil
	}
	obj := a.tree()
	if reflect.DeepEqual(requirementsOf(&a, obj, was), requirementsOf(&a, obj, now)) {
		return nil // nothing the persons decide changed
	}
	next := a
	if _, err := fillAccount(&next, obj, now); err != nil {
		return err
	}
	if err := s.tables.Accounts.Put(w.Tx, next.ID(), next); err != nil {
		return err
	}
	return s.emitAccountChanges(ctx, w, stateOf(a, was), stateOf(next, now), next)
}
