package accounts

import (
	"context"
	"net/http"
	"slices"
	"unicode/utf8"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// maxMetadataKeys is how many metadata keys an account keeps at most (the Metadata schema's
// maxProperties, which an update's merge must respect too).
const maxMetadataKeys = 50

// UpdateAccount changes an open account: members sent replace the stored ones, a metadata key
// sent as null is removed, and a configuration sent is applied with the capabilities it
// names. Its checks run in the order of account links': Accounts v2 enabled, the account
// exists, it is open, its concurrency limit.
func (s *Server) UpdateAccount(ctx context.Context, req gen.UpdateAccountRequestObject) (gen.UpdateAccountResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := gen.UpdateAccountRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	if err := checkMetadataKeys(deref(body.Metadata)); err != nil {
		return nil, err
	}
	tree := treeOf(body)
	delete(tree, "include")
	token, _ := take(tree, "account_token")
	id, err := s.idempotent(ctx, "updateAccount", req.Params.IdempotencyKey, onAccount{req.Id, body}, func() (string, error) {
		return req.Id, s.changeAccount(ctx, req.Id, func(tx *store.Tx, a *Account, obj map[string]any) error {
			if _, ok := tree["configuration"]; ok && a.Onboarded {
				// Onboarded covers every configuration, which from now on includes the new
				// ones: name the onboarded ones instead, so that a configuration added later
				// must be onboarded through a link of its own.
				a.OnboardedConfigurations, a.Onboarded = configurationNames(obj), false
			}
			if err := s.applyAccountToken(tx, callerFrom(ctx), token, a, obj); err != nil {
				return err
			}
			return applyAccount(a, obj, tree)
		})
	})
	if err != nil {
		return nil, err
	}
	a, err := s.account(ctx, id)
	if err != nil {
		return nil, err
	}
	out, err := s.answer(ctx, a, body.Include)
	if err != nil {
		return nil, err
	}
	return gen.UpdateAccount200JSONResponse{Body: out, Headers: gen.UpdateAccount200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// CloseAccount closes an open account whose configurations the request names, all of them
// and no other. A closed account stays readable, with its details withheld (renderAccount).
func (s *Server) CloseAccount(ctx context.Context, req gen.CloseAccountRequestObject) (gen.CloseAccountResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := gen.CloseAccountRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	id, err := s.idempotent(ctx, "closeAccount", req.Params.IdempotencyKey, onAccount{req.Id, body}, func() (string, error) {
		return req.Id, s.changeAccount(ctx, req.Id, func(_ *store.Tx, a *Account, obj map[string]any) error {
			applied := configurationNames(obj)
			if !sameConfigurations(applied, body.AppliedConfigurations) {
				return errConfigsMustMatchToClose(applied)
			}
			obj["closed"] = true
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	a, err := s.account(ctx, id)
	if err != nil {
		return nil, err
	}
	out, err := s.answer(ctx, a, nil)
	if err != nil {
		return nil, err
	}
	return gen.CloseAccount200JSONResponse{Body: out, Headers: gen.CloseAccount200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// onAccount is what an Idempotency-Key of an operation on one account is bound to: the
// same key and body sent for another account is another request (idempotency_error).
type onAccount struct {
	Account string `json:"account"`
	Body    any    `json:"body"`
}

// openAccount finds an open account of the caller's platform and mode.
func (s *Server) openAccount(ctx context.Context, id string) (Account, error) {
	a, err := s.account(ctx, id)
	if err == nil && a.Closed() {
		err = errAccountClosed()
	}
	return a, err
}

// changeAccount applies change to an open account of the caller (and to its object, as the
// tree obj) while holding one of the account's concurrency slots (429 beyond its limit).
// The account is read again inside the write, so that a change made meanwhile (another
// update, a submitted hosted form, a close) is kept, and an account closed meanwhile is
// refused.
func (s *Server) changeAccount(ctx context.Context, id string, change func(tx *store.Tx, a *Account, obj map[string]any) error) error {
	a, err := s.openAccount(ctx, id)
	if err != nil {
		return err
	}
	c := callerFrom(ctx)
	release, err := s.holdAccount(ctx, a, c.platform)
	if err != nil {
		return err
	}
	defer release()
	return s.update(ctx, func(w *write) error {
		before, found := s.getAccount(w.Tx, a.ID())
		switch {
		case !found || before.Scope() != c.scope():
			return errNotFound()
		case before.Closed():
			return errAccountClosed()
		}
		cur := before
		cur.OnboardedConfigurations = slices.Clone(before.OnboardedConfigurations)
		obj := before.tree()
		if err := change(w.Tx, &cur, obj); err != nil {
			return err
		}
		return s.writeAccount(ctx, w, &before, &cur, obj)
	})
}

// checkMetadataKeys enforces the key length the Metadata schema describes (at most 40
// characters), which a JSON Schema cannot say of map keys.
func checkMetadataKeys[V any](m map[string]V) error {
	for k := range m {
		if n := utf8.RuneCountInString(k); n > 40 {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "metadata: keys must be at most 40 characters (%q is %d)", k, n)
		}
	}
	return nil
}

// sameConfigurations says whether a close request names exactly the applied configurations
// (sorted), each at least once.
func sameConfigurations(applied []string, named []gen.ConfigurationType) bool {
	names := make([]string, 0, len(named))
	for _, n := range named {
		names = append(names, string(n))
	}
	slices.Sort(names)
	return slices.Equal(applied, slices.Compact(names))
}

func errAccountClosed() *Error {
	return invalidRequest(http.StatusBadRequest, "account_closed", "The account is closed: a closed account can be retrieved and listed, but not updated, closed again or linked to.")
}

func errConfigsMustMatchToClose(applied []string) *Error {
	e := invalidRequest(http.StatusBadRequest, "configs_must_match_to_close", "Account cannot be closed without specifying the right configurations: applied_configurations must name every configuration applied to the account.")
	e.AppliedConfigurations = applied
	return e
}
