package accounts

import (
	"fmt"
	"slices"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// SeedPerson is a person of a seeded account that exists at start and again after every
// reset: an entry of the seed file's accounts.persons. Its Body is either the create
// request's members (given_name, relationship, ...), checked by the same spec as
// POST /v2/core/accounts/{id}/persons, with account (the seeded account it belongs to), id,
// created and updated; or the person's object as a retrieve returns it ("object":
// "v2.core.account_person"), which a state export writes.
type SeedPerson struct {
	// Sequence is the person's place in its account's list (0: after the others, in the
	// order of the file).
	Sequence uint64 `yaml:"sequence,omitempty" json:"sequence,omitempty"`
	// Body is the create request, with account, id (person_ followed by letters and digits;
	// when absent one is derived from the entry, the same at every start and reset), created
	// and updated (RFC 3339 times; absent: the start or reset); or the person's object.
	Body map[string]any `yaml:",inline" json:"-"`
}

// UnmarshalJSON reads an entry whose body's members sit beside the named ones.
func (e *SeedPerson) UnmarshalJSON(data []byte) error {
	type named SeedPerson
	return entryJSON(data, (*named)(e), &e.Body)
}

// MarshalJSON writes the entry as UnmarshalJSON reads it.
func (e SeedPerson) MarshalJSON() ([]byte, error) {
	type named SeedPerson
	return entryMarshalJSON(named(e), e.Body)
}

// SeedPersons is the list of the seed file's accounts section that holds persons.
const SeedPersons = "persons"

// seedPerson loads a seeded person.
func (s *Server) seedPerson(tx *store.Tx, i int, sp SeedPerson, seq *numbering) error {
	fail := func(field, format string, args ...any) error {
		return &SeedError{Collection: SeedPersons, Index: i, Field: field, Err: fmt.Errorf(format, args...)}
	}
	body := cloneTree(sp.Body)
	if body == nil {
		body = map[string]any{}
	}
	account, err := takeString(body, "account")
	if err != nil {
		return fail("account", "%v", err)
	}
	a, ok := s.getAccount(tx, account)
	if !ok {
		return fail("account", "no account %q: declare it under accounts.accounts", account)
	}
	var obj map[string]any
	if isObjectEntry(body, personObject) {
		body["account"] = account
		var o gen.V2CoreAccountPerson
		if field, err := s.checkObject("V2CoreAccountPerson", body, &o); err != nil {
			return &SeedError{Collection: SeedPersons, Index: i, Field: field, Err: err}
		}
		if o.Livemode != a.Livemode() {
			return fail("livemode", "%t, but account %s is of %s mode", o.Livemode, a.ID(), modeName(a.Livemode()))
		}
		obj = body
	} else {
		id, err := takeString(body, "id")
		if err != nil {
			return fail("id", "%v", err)
		}
		var req gen.CreatePersonRequest
		if field, err := s.checkSeedRequest("createPerson", "/v2/core/accounts/"+a.ID()+"/persons", map[string]string{"id": a.ID()}, withoutMembers(body, "created", "updated"), &req); err != nil {
			return &SeedError{Collection: SeedPersons, Index: i, Field: field, Err: err}
		}
		tree := treeOf(req)
		if _, ok := tree["person_token"]; ok {
			return fail("person_token", "a seeded person cannot use a token: give the token's members instead")
		}
		if id == "" {
			id = "person_" + derivedAlphanumerics(fmt.Sprintf("seed-person|%d|%s", i, a.ID()), 24)
		}
		tree["id"], tree["created"], tree["updated"] = id, body["created"], body["updated"]
		obj = tree
	}
	created, err := takeTime(obj, "created")
	if err != nil {
		return fail("created", "%v", err)
	}
	if created == "" {
		created = timestamp(s.now())
	}
	updated, err := takeTime(obj, "updated")
	if err != nil {
		return fail("updated", "%v", err)
	}
	if updated == "" {
		updated = created
	}
	obj["created"], obj["updated"] = created, updated
	p := Person{Seq: seq.take(sp.Sequence)}
	if err := fillPerson(&p, obj, a); err != nil {
		return fail("", "%v", err)
	}
	if !seedID(p.ID(), "person_") {
		return fail("id", "%q is not a person id: want person_ followed by letters and digits", p.ID())
	}
	if _, dup := s.tables.Persons.Get(tx, p.ID()); dup {
		return fail("id", "person %s is declared twice", p.ID())
	}
	return s.tables.Persons.Put(tx, p.ID(), p)
}

// withoutMembers is a copy of body without the named members.
func withoutMembers(body map[string]any, names ...string) map[string]any {
	out := make(map[string]any, len(body))
	for k, v := range body {
		if !slices.Contains(names, k) {
			out[k] = v
		}
	}
	return out
}
