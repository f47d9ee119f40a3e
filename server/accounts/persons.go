package accounts

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// personObject is the object type of a person, in its responses and in what a delete answers.
const personObject = "v2.core.account_person"

// personTree is a person request's members as a tree, its metadata checked, with the
// person token taken out of it.
func personTree(body any) (tree map[string]any, token any, err error) {
	tree = treeOf(body)
	if md, ok := tree["metadata"].(map[string]any); ok {
		if err := checkMetadataKeys(md); err != nil {
			return nil, nil, err
		}
	}
	token, _ = take(tree, "person_token")
	return tree, token, nil
}

// CreatePerson adds a person to an open account of the caller.
func (s *Server) CreatePerson(ctx context.Context, req gen.CreatePersonRequestObject) (gen.CreatePersonResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := gen.CreatePersonRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	tree, token, err := personTree(body)
	if err != nil {
		return nil, err
	}
	id, err := s.idempotent(ctx, "createPerson", req.Params.IdempotencyKey, onAccount{req.Id, body}, func() (string, error) {
		p, err := s.changePerson(ctx, req.Id, "", func(tx *store.Tx, p *Person) (bool, error) {
			return true, s.applyPersonRequest(tx, callerFrom(ctx), p, token, tree)
		})
		return p.ID, err
	})
	if err != nil {
		return nil, err
	}
	p, err := s.person(ctx, req.Id, id)
	if err != nil {
		return nil, err
	}
	return gen.CreatePerson200JSONResponse{Body: renderPerson(p), Headers: gen.CreatePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// RetrievePerson reads a person of an account of the caller.
func (s *Server) RetrievePerson(ctx context.Context, req gen.RetrievePersonRequestObject) (gen.RetrievePersonResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	p, err := s.person(ctx, req.Id, req.PersonId)
	if err != nil {
		return nil, err
	}
	return gen.RetrievePerson200JSONResponse{Body: renderPerson(p), Headers: gen.RetrievePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// UpdatePerson changes a person: members sent replace the stored ones, objects are merged
// member by member, members sent as null are removed.
func (s *Server) UpdatePerson(ctx context.Context, req gen.UpdatePersonRequestObject) (gen.UpdatePersonResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := gen.UpdatePersonRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	tree, token, err := personTree(body)
	if err != nil {
		return nil, err
	}
	_, err = s.idempotent(ctx, "updatePerson", req.Params.IdempotencyKey, onAccount{req.Id + "/" + req.PersonId, body}, func() (string, error) {
		p, err := s.changePerson(ctx, req.Id, req.PersonId, func(tx *store.Tx, p *Person) (bool, error) {
			return true, s.applyPersonRequest(tx, callerFrom(ctx), p, token, tree)
		})
		return p.ID, err
	})
	if err != nil {
		return nil, err
	}
	p, err := s.person(ctx, req.Id, req.PersonId)
	if err != nil {
		return nil, err
	}
	return gen.UpdatePerson200JSONResponse{Body: renderPerson(p), Headers: gen.UpdatePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// DeletePerson removes a person from an open account of the caller.
func (s *Server) DeletePerson(ctx context.Context, req gen.DeletePersonRequestObject) (gen.DeletePersonResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	if _, err := s.changePerson(ctx, req.Id, req.PersonId, func(*store.Tx, *Person) (bool, error) { return false, nil }); err != nil {
		return nil, err
	}
	return gen.DeletePerson200JSONResponse{Body: gen.V2DeletedObject{Id: req.PersonId, Object: personObject}, Headers: gen.DeletePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// ListPersons lists the persons of an account of the caller, oldest first, a page at a time.
func (s *Server) ListPersons(ctx context.Context, req gen.ListPersonsRequestObject) (gen.ListPersonsResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	if _, err := s.account(ctx, req.Id); err != nil {
		return nil, err
	}
	limit := 10
	if req.Params.Limit != nil {
		limit = int(*req.Params.Limit)
	}
	var after *store.Cursor
	if req.Params.Page != nil && *req.Params.Page != "" {
		raw, err := base64.RawURLEncoding.DecodeString(*req.Params.Page)
		cur, ok := store.ParseCursor(string(raw))
		if err != nil || !ok {
			return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "page: not a page token this server issued; use next_page_url as it is")
		}
		after = &cur
	}
	data := make([]gen.V2CoreAccountPerson, 0, limit)
	var last store.Cursor
	more := false
	_ = s.db.View(ctx, func(tx *store.Tx) error {
		s.tables.PersonsOf.Scan(tx, req.Id+"|", req.Id+"}", after, func(c store.Cursor, p Person) bool {
			if len(data) == limit {
				more = true
				return false
			}
			data = append(data, renderPerson(p))
			last = c
			return true
		})
		return nil
	})
	out := gen.V2CoreAccountPersonList{Data: data}
	out.NextPageUrl.SetNull()
	out.PreviousPageUrl.SetNull()
	if more {
		q := url.Values{"limit": {strconv.Itoa(limit)}, "page": {base64.RawURLEncoding.EncodeToString([]byte(last.String()))}}
		out.NextPageUrl.Set("/v2/core/accounts/" + url.PathEscape(req.Id) + "/persons?" + q.Encode())
	}
	return gen.ListPersons200JSONResponse{Body: out, Headers: gen.ListPersons200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// person finds a person of an account of the caller's platform and mode.
func (s *Server) person(ctx context.Context, account, id string) (Person, error) {
	if _, err := s.account(ctx, account); err != nil {
		return Person{}, err
	}
	var p Person
	found := false
	_ = s.db.View(ctx, func(tx *store.Tx) error {
		p, found = s.tables.Persons.Get(tx, id)
		return nil
	})
	if !found || p.Account != account {
		return Person{}, errNotFound()
	}
	return p, nil
}

// changePerson is the one place persons are written: it makes (id "") or finds the person
// of an open account of the caller, lets change decide, and stores the result (or deletes
// the person when change does not keep it), in one transaction.
func (s *Server) changePerson(ctx context.Context, account, id string, change func(*store.Tx, *Person) (keep bool, err error)) (Person, error) {
	c := callerFrom(ctx)
	var out Person
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		a, found := s.tables.Accounts.Get(tx, account)
		switch {
		case !found || a.Scope() != c.scope():
			return errNotFound()
		case a.Closed:
			return errAccountClosed()
		}
		now := s.now()
		p := Person{ID: s.randomID("person_", 24), Account: account, Platform: a.Platform, Livemode: a.Livemode,
			Seq: s.next(tx, seqPersons), Created: now}
		var before *Person
		if id != "" {
			if p, found = s.tables.Persons.Get(tx, id); !found || p.Account != account {
				return errNotFound()
			}
			old, _ := s.tables.Persons.Get(tx, id) // a copy of its own, as every Get's
			before = &old
		}
		p.Updated = now
		keep, err := change(tx, &p)
		if err != nil {
			return err
		}
		out = p
		if !keep {
			return s.writePerson(ctx, tx, before, nil)
		}
		return s.writePerson(ctx, tx, before, &p)
	})
	return out, err
}

// applyPersonRequest writes a create or update request into the person: a person token's
// details first (used once), then the request's own members over them.
func (s *Server) applyPersonRequest(tx *store.Tx, c caller, p *Person, token any, tree map[string]any) error {
	if token != nil {
		details, err := s.useToken(tx, c, "person_token", token, tokenPerson, p.Account)
		if err != nil {
			return err
		}
		p.Details = mergeTree(p.Details, details)
	}
	p.Details = mergeTree(p.Details, tree)
	return nil
}

// renderPerson is the wire form of a person: its details as stored, and what the server keeps.
func renderPerson(p Person) gen.V2CoreAccountPerson {
	tree := cloneTree(p.Details)
	if tree == nil {
		tree = map[string]any{}
	}
	if _, ok := tree["metadata"]; !ok {
		tree["metadata"] = map[string]any{}
	}
	tree["id"], tree["object"], tree["account"], tree["livemode"] = p.ID, personObject, p.Account, p.Livemode
	tree["created"], tree["updated"] = timestamp(p.Created), timestamp(p.Updated)
	return fromTree[gen.V2CoreAccountPerson](tree)
}

// personsOf lists the persons of an account, oldest first.
func (s *Server) personsOf(tx *store.Tx, account string) []Person {
	var out []Person
	s.tables.PersonsOf.Scan(tx, account+"|", account+"}", nil, func(_ store.Cursor, p Person) bool {
		out = append(out, p)
		return true
	})
	return out
}

// personsNow lists the persons of an account as they are now.
func (s *Server) personsNow(ctx context.Context, account string) []Person {
	var persons []Person
	_ = s.db.View(ctx, func(tx *store.Tx) error {
		persons = s.personsOf(tx, account)
		return nil
	})
	return persons
}

// renderAccountNow renders an account with its persons as they are now.
func (s *Server) renderAccountNow(ctx context.Context, a Account, include []gen.AccountInclude) gen.V2CoreAccount {
	return renderAccount(a, s.personsNow(ctx, a.ID), include)
}
