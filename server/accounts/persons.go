package accounts

import (
	"context"
	"net/url"

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
		p, err := s.changePerson(ctx, req.Id, "", func(tx *store.Tx, obj map[string]any) (bool, error) {
			return true, s.applyPersonRequest(tx, callerFrom(ctx), req.Id, obj, token, tree)
		})
		return p.ID(), err
	})
	if err != nil {
		return nil, err
	}
	p, err := s.person(ctx, req.Id, id)
	if err != nil {
		return nil, err
	}
	return gen.CreatePerson200JSONResponse{Body: p.Object, Headers: gen.CreatePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
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
	return gen.RetrievePerson200JSONResponse{Body: p.Object, Headers: gen.RetrievePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
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
		p, err := s.changePerson(ctx, req.Id, req.PersonId, func(tx *store.Tx, obj map[string]any) (bool, error) {
			return true, s.applyPersonRequest(tx, callerFrom(ctx), req.Id, obj, token, tree)
		})
		return p.ID(), err
	})
	if err != nil {
		return nil, err
	}
	p, err := s.person(ctx, req.Id, req.PersonId)
	if err != nil {
		return nil, err
	}
	return gen.UpdatePerson200JSONResponse{Body: p.Object, Headers: gen.UpdatePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// DeletePerson removes a person from an open account of the caller.
func (s *Server) DeletePerson(ctx context.Context, req gen.DeletePersonRequestObject) (gen.DeletePersonResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	// A retry with the delete's Idempotency-Key answers as the delete did, not 404.
	_, err := s.idempotent(ctx, "deletePerson", req.Params.IdempotencyKey, onAccount{req.Id + "/" + req.PersonId, nil}, func() (string, error) {
		_, err := s.changePerson(ctx, req.Id, req.PersonId, func(*store.Tx, map[string]any) (bool, error) { return false, nil })
		return req.PersonId, err
	})
	if err != nil {
		return nil, err
	}
	return gen.DeletePerson200JSONResponse{Body: gen.V2DeletedObject{Id: req.PersonId, Object: personObject}, Headers: gen.DeletePerson200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// ListPersons lists the persons of an account of the caller, newest first, a page at a time.
func (s *Server) ListPersons(ctx context.Context, req gen.ListPersonsRequestObject) (gen.ListPersonsResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	if _, err := s.account(ctx, req.Id); err != nil {
		return nil, err
	}
	// Newest first, paged both ways as every v2 list is; a page token belongs to its
	// account's list.
	var out gen.V2CoreAccountPersonList
	account := req.Id
	err := s.listPage(ctx, "/v2/core/accounts/"+url.PathEscape(account)+"/persons", req.Params.Limit, req.Params.Page, struct {
		Account string `json:"account"`
	}{account}, nil,
		func(tx *store.Tx, _ string, after *store.Cursor, each func(store.Cursor) bool) {
			s.tables.PersonsOf.Scan(tx, account+"|", account+"}", after, func(c store.Cursor, p Person) bool {
				if !each(c) {
					return false
				}
				out.Data = append(out.Data, p.Object)
				return true
			})
		}, func(tx *store.Tx, _ string, at store.Cursor, each func(store.Cursor) bool) {
			s.tables.PersonsOf.ScanReverse(tx, account+"|", account+"}", atOrBefore(at), func(c store.Cursor, _ Person) bool { return each(c) })
		}, &out.NextPageUrl, &out.PreviousPageUrl)
	if err != nil {
		return nil, err
	}
	if out.Data == nil {
		out.Data = []gen.V2CoreAccountPerson{}
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
	if err := s.db.View(ctx, func(tx *store.Tx) error {
		p, found = s.tables.Persons.Get(tx, id)
		return nil
	}); err != nil {
		return Person{}, err
	}
	if !found || p.Object.Account != account {
		return Person{}, errNotFound()
	}
	return p, nil
}

// changePerson is the one place persons are written: it makes (id "") or finds the person
// of an open account of the caller, lets change decide on its object (as a tree), and
// stores the result (or deletes the person when change does not keep it), in one
// transaction.
func (s *Server) changePerson(ctx context.Context, account, id string, change func(tx *store.Tx, obj map[string]any) (keep bool, err error)) (Person, error) {
	c := callerFrom(ctx)
	var out Person
	err := s.update(ctx, func(w *write) error {
		tx := w.Tx
		a, found := s.getAccount(tx, account)
		switch {
		case !found || a.Scope() != c.scope():
			return errNotFound()
		case a.Closed():
			return errAccountClosed()
		}
		now := s.now()
		var before *Person
		var p Person
		var obj map[string]any
		if id == "" {
			p.Seq = s.next(tx, seqPersons)
			obj = map[string]any{"id": s.randomID("person_", 24), "created": timestamp(now)}
		} else {
			old, found := s.tables.Persons.Get(tx, id)
			if !found || old.Object.Account != account {
				return errNotFound()
			}
			before, p, obj = &old, old, treeOf(old.Object)
		}
		keep, err := change(tx, obj)
		if err != nil {
			return err
		}
		if !keep {
			out = *before
			return s.writePerson(ctx, w, before, nil)
		}
		obj["updated"] = timestamp(now)
		if err := fillPerson(&p, obj, a); err != nil {
			return err
		}
		out = p
		return s.writePerson(ctx, w, before, &p)
	})
	return out, err
}

// fillPerson sets p.Object from its tree obj, with what the server says of every person of
// account a.
func fillPerson(p *Person, obj map[string]any, a Account) error {
	obj["object"], obj["account"], obj["livemode"] = personObject, a.ID(), a.Livemode()
	if _, ok := obj["metadata"].(map[string]any); !ok {
		obj["metadata"] = map[string]any{}
	}
	o, err := objectOf[gen.V2CoreAccountPerson](obj)
	p.Object = o
	return err
}

// applyPersonRequest writes a create or update request into a person of account (its
// object as the tree obj): a person token's details first (used once), then the request's
// own members over them.
func (s *Server) applyPersonRequest(tx *store.Tx, c caller, account string, obj map[string]any, token any, tree map[string]any) error {
	if token != nil {
		details, err := s.useToken(tx, c, "person_token", token, tokenPerson, account)
		if err != nil {
			return err
		}
		mergeTree(obj, details)
	}
	mergeTree(obj, tree)
	return nil
}

// personsOf lists the persons of an account, oldest first.
func (s *Server) personsOf(tx *store.Tx, account string) []Person {
	var out []Person
	s.tables.PersonsOf.ScanReverse(tx, account+"|", account+"}", nil, func(_ store.Cursor, p Person) bool {
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
