package accounts

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// CreateAccountLink makes a single-use, expiring link into the hosted flow. Its checks run
// in the documented order: Accounts v2 enabled, the account exists (and is open), the
// configurations match, the account's concurrency limit.
func (s *Server) CreateAccountLink(ctx context.Context, req gen.CreateAccountLinkRequestObject) (gen.CreateAccountLinkResponseObject, error) {
	body := *req.Body
	flow, err := chosenFlow(body.UseCase)
	if err != nil {
		return nil, err
	}
	if err := requireV2(ctx); err != nil {
		return nil, err
	}
	c := callerFrom(ctx)
	var made AccountLink // the link this request makes, if it makes one
	create := func() (string, error) {
		a, err := s.openAccount(ctx, body.Account)
		if err != nil {
			return "", err
		}
		for _, cfg := range flow.Configurations {
			if !a.Applied(string(cfg)) {
				return "", invalidRequest(http.StatusBadRequest, "configs_must_match_to_use_account_links", "The configurations in the request must match the applied configurations on the account in order to use v2/core/account_links.")
			}
		}
		release, err := s.holdAccount(ctx, a, c.platform)
		if err != nil {
			return "", err
		}
		defer release()
		l, err := s.newLink(a, body, flow, s.randomID(linkTokenPrefix(a.Livemode()), 32), s.now())
		if err != nil {
			return "", err
		}
		if err := s.db.Update(ctx, func(tx *store.Tx) error { return s.tables.Links.Put(tx, l.Token, l) }); err != nil {
			return "", err
		}
		made = l
		return l.Token, nil
	}
	var token string
	if k := req.Params.IdempotencyKey; k == nil || *k == "" {
		token, err = create() // what idempotent does without a key, without boxing body
	} else {
		token, err = s.idempotent(ctx, "createAccountLink", k, body, create)
	}
	if err != nil {
		return nil, err
	}
	if made.Token != token { // a replay: the link the first request made
		found := false
		if err := s.db.View(ctx, func(tx *store.Tx) error {
			made, found = s.tables.Links.Get(tx, token)
			return nil
		}); err != nil {
			return nil, err
		}
		if !found {
			return nil, errNotFound() // not an empty link
		}
	}
	return gen.CreateAccountLink200JSONResponse{Body: s.renderLink(ctx, made), Headers: gen.CreateAccountLink200ResponseHeaders{RequestId: requestID(ctx)}}, nil
}

// holdAccount takes one of the account's update slots for the duration of an update, or
// answers 429 when its limit is reached. UpdateLatency simulates the work.
func (s *Server) holdAccount(ctx context.Context, a Account, p *platform) (release func(), err error) {
	account := a.ID()
	if s.cfg.Shared {
		key, ok, err := s.acquireShared(ctx, account, s.limitFor(a, p))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errTooManyUpdates()
		}
		sleep(ctx, s.cfg.UpdateLatency)
		return func() { s.releaseShared(key) }, nil
	}
	if !s.slots.acquire(account, s.limitFor(a, p)) {
		return nil, errTooManyUpdates()
	}
	sleep(ctx, s.cfg.UpdateLatency)
	return func() { s.slots.release(account) }, nil
}

// chosenFlow returns the options of the use case named by type; the other one must be absent.
func chosenFlow(uc gen.AccountLinkUseCaseParams) (*gen.AccountLinkFlowParams, error) {
	chosen, other := uc.AccountOnboarding, uc.AccountUpdate
	otherName := "account_update"
	if uc.Type == gen.AccountLinkUseCaseTypeAccountUpdate {
		chosen, other = uc.AccountUpdate, uc.AccountOnboarding
		otherName = "account_onboarding"
	}
	if chosen == nil {
		return nil, invalidRequest(http.StatusBadRequest, "parameter_missing", "use_case.%s: required request field missing", uc.Type)
	}
	if other != nil {
		return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "use_case.%s: must not be set when use_case.type is %s", otherName, uc.Type)
	}
	// The spec's pattern keeps them printable ASCII; what is left is what does not parse.
	if _, err := url.Parse(chosen.RefreshUrl); err != nil {
		return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "use_case.%s.refresh_url: not a valid URL", uc.Type)
	}
	if u := chosen.ReturnUrl; u != nil {
		if _, err := url.Parse(*u); err != nil {
			return nil, invalidRequest(http.StatusBadRequest, "parameter_invalid", "use_case.%s.return_url: not a valid URL", uc.Type)
		}
	}
	return chosen, nil
}

// linkTokenPrefix starts the token of a link of an account of that mode.
func linkTokenPrefix(livemode bool) string {
	if livemode {
		return "alu_"
	}
	return "alu_test_"
}

// newLink is the link a create request makes for account a, whose chosen flow (chosenFlow,
// which the caller has checked) is chosen, with its token, made at
// created: its object is the request's account and use case, the chosen flow's options
// copied by a JSON round trip from the request's type (so that an option the spec adds is
// kept without code of its own), with what follows from them (the use case not chosen null,
// each configuration once, the collection options' defaults) and the times it lives.
func (s *Server) newLink(a Account, body gen.CreateAccountLinkRequest, chosen *gen.AccountLinkFlowParams, token string, created time.Time) (AccountLink, error) {
	var f gen.AccountLinkFlow
	if err := convert(chosen, &f); err != nil {
		return AccountLink{}, err
	}
	f.Configurations = uniqueConfigurations(f.Configurations)
	if !f.ReturnUrl.IsSpecified() {
		f.ReturnUrl.SetNull()
	}
	if f.CollectionOptions.Fields == "" {
		f.CollectionOptions.Fields = gen.CollectionFieldsCurrentlyDue
	}
	if f.CollectionOptions.FutureRequirements == "" {
		f.CollectionOptions.FutureRequirements = gen.FutureRequirementsCollectionOmit
	}
	l := AccountLink{Token: token, Platform: a.Platform, Object: gen.V2CoreAccountLink{
		Object: gen.V2CoreAccountLinkObjectV2CoreAccountLink, Account: body.Account, Livemode: a.Livemode(),
		Created: timestamp(created), ExpiresAt: timestamp(created.Add(s.cfg.LinkLifetime)),
		UseCase: gen.AccountLinkUseCase{Type: body.UseCase.Type},
	}}
	flow, other := &l.Object.UseCase.AccountOnboarding, &l.Object.UseCase.AccountUpdate
	if body.UseCase.Type == gen.AccountLinkUseCaseTypeAccountUpdate {
		flow, other = other, flow
	}
	flow.Set(f)
	other.SetNull()
	return l, nil
}

// uniqueConfigurations is configs with each once, in the order first given.
func uniqueConfigurations(configs []gen.ConfigurationType) []gen.ConfigurationType {
	out := make([]gen.ConfigurationType, 0, len(configs))
	for _, c := range configs {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// linkURL is where the hosted flow of a link is served.
func (s *Server) linkURL(ctx context.Context, l AccountLink) string {
	return s.baseURL(ctx) + "/r/" + l.account() + "/" + l.Token
}

// renderLink is l as the API shows it: its object, with the URL of its hosted flow.
func (s *Server) renderLink(ctx context.Context, l AccountLink) gen.V2CoreAccountLink {
	out := l.Object
	out.Url = s.linkURL(ctx, l)
	return out
}
