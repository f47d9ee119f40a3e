package accounts

import (
	"context"
	"net/http"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// Token kinds: their object types.
const (
	tokenAccount = string(gen.V2CoreAccountTokenObjectV2CoreAccountToken)
	tokenPerson  = string(gen.V2CoreAccountPersonTokenObjectV2CoreAccountPersonToken)
)

// tokenLifetime is how long an account or person token can be used. The vendor documents
// that tokens expire (expires_at) but not after how long; ten minutes is ours, as long as
// an account link lives.
const tokenLifetime = 10 * time.Minute

// CreateAccountToken tokenizes an account's details for one later create or update.
func (s *Server) CreateAccountToken(ctx context.Context, req gen.CreateAccountTokenRequestObject) (gen.CreateAccountTokenResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	body := gen.CreateAccountTokenRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	t, err := s.createToken(ctx, "createAccountToken", req.Params.IdempotencyKey, body, tokenAccount, "")
	if err != nil {
		return nil, err
	}
	return gen.CreateAccountToken200JSONResponse{Body: t.Object, Headers: gen.CreateAccountToken200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// RetrieveAccountToken reads an account token of the caller's platform and mode.
func (s *Server) RetrieveAccountToken(ctx context.Context, req gen.RetrieveAccountTokenRequestObject) (gen.RetrieveAccountTokenResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	t, err := s.token(ctx, req.Id, tokenAccount, "")
	if err != nil {
		return nil, err
	}
	return gen.RetrieveAccountToken200JSONResponse{Body: t.Object, Headers: gen.RetrieveAccountToken200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// CreatePersonToken tokenizes a person's details for one later create or update of a
// person of the account.
func (s *Server) CreatePersonToken(ctx context.Context, req gen.CreatePersonTokenRequestObject) (gen.CreatePersonTokenResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	if _, err := s.openAccount(ctx, req.Id); err != nil {
		return nil, err
	}
	body := gen.CreatePersonTokenRequest{}
	if req.Body != nil {
		body = *req.Body
	}
	t, err := s.createToken(ctx, "createPersonToken", req.Params.IdempotencyKey, onAccount{req.Id, body}, tokenPerson, req.Id)
	if err != nil {
		return nil, err
	}
	return gen.CreatePersonToken200JSONResponse{Body: renderPersonToken(t), Headers: gen.CreatePersonToken200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// RetrievePersonToken reads a person token of the account.
func (s *Server) RetrievePersonToken(ctx context.Context, req gen.RetrievePersonTokenRequestObject) (gen.RetrievePersonTokenResponseObject, error) {
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	if _, err := s.account(ctx, req.Id); err != nil {
		return nil, err
	}
	t, err := s.token(ctx, req.TokenId, tokenPerson, req.Id)
	if err != nil {
		return nil, err
	}
	return gen.RetrievePersonToken200JSONResponse{Body: renderPersonToken(t), Headers: gen.RetrievePersonToken200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// createToken stores a new token of the given kind holding the request's members. In live
// mode the real API takes tokens only from a live publishable key (details go from the
// browser to the vendor, not through the platform's servers); in test mode any key.
func (s *Server) createToken(ctx context.Context, op string, key *string, body any, kind, account string) (Token, error) {
	c := callerFrom(ctx)
	if c.livemode && !c.publishable {
		return Token{}, invalidRequest(http.StatusBadRequest, "", "In live mode, %s tokens must be created with a live publishable key (pk_live_...).", kind)
	}
	details := treeOf(body)
	if wrapped, ok := body.(onAccount); ok {
		details = treeOf(wrapped.Body)
	}
	// As docs.stripe.com's examples: accttok_ or perstok_ and 44 alphanumerics.
	prefix := "accttok_"
	if kind == tokenPerson {
		prefix = "perstok_"
	}
	id, err := s.idempotent(ctx, op, key, body, func() (string, error) {
		now := s.now()
		t := Token{Account: account, Platform: c.platform.id, Details: details, Object: gen.V2CoreAccountToken{
			Id: s.randomID(prefix, 44), Object: gen.V2CoreAccountTokenObject(kind), Livemode: c.livemode,
			Created: timestamp(now), ExpiresAt: timestamp(now.Add(tokenLifetime))}}
		return t.ID(), s.db.Update(ctx, func(tx *store.Tx) error { return s.tables.Tokens.Put(tx, t.ID(), t) })
	})
	if err != nil {
		return Token{}, err
	}
	return s.token(ctx, id, kind, account)
}

// token finds a token of the caller's platform and mode, of the kind (and, for a person
// token, the account) asked for; any other is not found.
func (s *Server) token(ctx context.Context, id, kind, account string) (Token, error) {
	var t Token
	found := false
	_ = s.db.View(ctx, func(tx *store.Tx) error {
		t, found = s.tables.Tokens.Get(tx, id)
		return nil
	})
	if !found || t.Scope() != callerFrom(ctx).scope() || string(t.Object.Object) != kind || t.Account != account || s.tokenGone(t) {
		return Token{}, errNotFound()
	}
	return t, nil
}

// useToken takes a token's details for a create or update, once: inside the transaction
// that writes them, so two requests racing with one token cannot both use it.
func (s *Server) useToken(tx *store.Tx, c caller, param string, id any, kind, account string) (map[string]any, error) {
	tid, _ := id.(string)
	t, found := s.tables.Tokens.Get(tx, tid)
	switch {
	case !found || t.Scope() != c.scope() || string(t.Object.Object) != kind || t.Account != account || s.tokenGone(t):
		return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "%s: no such token: %q", param, tid)
	case t.Object.Used:
		return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "%s: the token %s was already used; tokens can be used once", param, tid)
	case !s.now().Before(t.expiresAt()):
		return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "%s: the token %s expired at %s", param, tid, t.Object.ExpiresAt)
	}
	t.Object.Used = true
	if err := s.tables.Tokens.Put(tx, t.ID(), t); err != nil {
		return nil, err
	}
	return cloneTree(t.Details), nil
}

// applyAccountToken applies an account token's details to the account (nothing when the
// request names no token); the request's own members are applied after, over them.
func (s *Server) applyAccountToken(tx *store.Tx, c caller, id any, a *Account, obj map[string]any) error {
	if id == nil {
		return nil
	}
	details, err := s.useToken(tx, c, "account_token", id, tokenAccount, "")
	if err != nil {
		return err
	}
	return applyAccount(a, obj, details)
}

// renderPersonToken is a person token's object: a token's members, as a person token.
func renderPersonToken(t Token) gen.V2CoreAccountPersonToken {
	o, _ := objectOf[gen.V2CoreAccountPersonToken](t.Object)
	return o
}
