package accounts

import (
	"fmt"
	"regexp"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// SeedPerson is a person of a seeded account that exists at start and again after every
// reset: an entry of the seed file's accounts.persons. Body holds the create request's
// members (given_name, relationship, ...), checked by the same spec as
// POST /v2/core/accounts/{id}/persons.
type SeedPerson struct {
	// ID is the person's id, person_ followed by letters and digits; when empty one is
	// derived from the entry, the same at every start and reset.
	ID string `yaml:"id,omitempty"`
	// Account is the seeded account the person belongs to.
	Account string `yaml:"account"`
	// Created and Updated are RFC 3339 times (empty: the start or reset).
	Created string `yaml:"created,omitempty"`
	Updated string `yaml:"updated,omitempty"`
	// Sequence is the person's place in its account's list (0: after the others, in the
	// order of the file).
	Sequence uint64 `yaml:"sequence,omitempty"`
	// Body is the create request.
	Body map[string]any `yaml:",inline"`
}

// SeedPersons is the list of the seed file's accounts section that holds persons.
const SeedPersons = "persons"

var seedPersonID = regexp.MustCompile(`^person_[A-Za-z0-9]{1,250}$`)

func (s *Server) seedPerson(tx *store.Tx, i int, sp SeedPerson, seq *numbering) error {
	fail := func(field, format string, args ...any) error {
		return &SeedError{Collection: SeedPersons, Index: i, Field: field, Err: fmt.Errorf(format, args...)}
	}
	a, ok := s.tables.Accounts.Get(tx, sp.Account)
	if !ok {
		return fail("account", "no account %q: declare it under accounts.accounts", sp.Account)
	}
	var body gen.CreatePersonRequest
	if field, err := s.checkSeedRequest("createPerson", "/v2/core/accounts/"+a.ID+"/persons", map[string]string{"id": a.ID}, sp.Body, &body); err != nil {
		return &SeedError{Collection: SeedPersons, Index: i, Field: field, Err: err}
	}
	tree := treeOf(body)
	if _, ok := tree["person_token"]; ok {
		return fail("person_token", "a seeded person cannot use a token: give the token's members instead")
	}
	p := Person{ID: sp.ID, Account: a.ID, Platform: a.Platform, Livemode: a.Livemode, Seq: sp.Sequence, Created: s.now(), Details: tree}
	if p.ID == "" {
		p.ID = "person_" + derivedAlphanumerics(fmt.Sprintf("seed-person|%d|%s", i, a.ID), 24)
	} else if !seedPersonID.MatchString(p.ID) {
		return fail("id", "%q is not a person id: want person_ followed by letters and digits", p.ID)
	}
	if _, dup := s.tables.Persons.Get(tx, p.ID); dup {
		return fail("id", "person %s is declared twice", p.ID)
	}
	p.Seq = seq.take(p.Seq)
	var err error
	if sp.Created != "" {
		if p.Created, err = timefmt.Parse(sp.Created); err != nil {
			return fail("created", "%v", err)
		}
	}
	p.Updated = p.Created
	if sp.Updated != "" {
		if p.Updated, err = timefmt.Parse(sp.Updated); err != nil {
			return fail("updated", "%v", err)
		}
	}
	return s.tables.Persons.Put(tx, p.ID, p)
}
