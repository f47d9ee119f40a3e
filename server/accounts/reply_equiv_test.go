package accounts

import (
	"context"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	gen "github.com/understudy-dev/understudy/gen/accounts"
)

// TestLinkReplyMatchesGenerated: a created link is written (status, headers, body bytes)
// exactly as the generated gen.CreateAccountLink200JSONResponse writes the same link, for
// both use cases, with and without a return URL, and whatever Request-Id is already set.
func TestLinkReplyMatchesGenerated(t *testing.T) {
	s := &Server{cfg: Config{PublicURL: "http://h"}}
	at := time.Date(2026, 5, 27, 9, 14, 3, 512e6, time.UTC)
	links := []AccountLink{
		{Token: "alu_test_x", Account: "acct_1", UseCase: "account_onboarding", Configurations: []string{"recipient"},
			RefreshURL: "https://example.com/r?a=<b>&c", Created: at, ExpiresAt: at.Add(10 * time.Minute),
			CollectFields: "currently_due", FutureRequirements: "omit"},
		{Token: "alu_test_y", Account: "acct_2", UseCase: "account_update", Configurations: []string{"recipient", "merchant"},
			RefreshURL: "https://example.com/r", ReturnURL: "https://example.com/done\u2028", Created: at, ExpiresAt: at,
			CollectFields: "eventually_due", FutureRequirements: "include", Livemode: true},
		{Token: "alu_test_z", Account: "acct_3", UseCase: "account_onboarding", RefreshURL: "https://example.com/r", ReturnURL: "x"},
	}
	for _, l := range links {
		for _, preset := range []string{"", "req_1", "req_other"} {
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			if preset != "" {
				got.Header().Set("Request-Id", preset)
				want.Header().Set("Request-Id", preset)
			}
			reply := &linkCreated{requestID: "req_1"}
			s.renderLink(context.Background(), l, reply)
			if err := reply.VisitCreateAccountLinkResponse(got); err != nil {
				t.Fatal(err)
			}
			r := gen.CreateAccountLink200JSONResponse{Body: generatedLink(s, l), Headers: gen.CreateAccountLink200ResponseHeaders{RequestId: "req_1"}}
			if err := r.VisitCreateAccountLinkResponse(want); err != nil {
				t.Fatal(err)
			}
			if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
				t.Fatalf("got %d %v %s\nwant %d %v %s", got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
			}
		}
	}
}

// generatedLink is l as the generated type, filled member by member: the reference the
// wire type is held to.
func generatedLink(s *Server, l AccountLink) gen.V2CoreAccountLink {
	flow := gen.AccountLinkFlow{
		Configurations: []gen.ConfigurationType{}, RefreshUrl: l.RefreshURL,
		CollectionOptions: gen.CollectionOptions{Fields: gen.CollectionFields(l.CollectFields), FutureRequirements: gen.FutureRequirementsCollection(l.FutureRequirements)},
	}
	for _, c := range l.Configurations {
		flow.Configurations = append(flow.Configurations, gen.ConfigurationType(c))
	}
	flow.ReturnUrl.SetNull()
	if l.ReturnURL != "" {
		flow.ReturnUrl.Set(l.ReturnURL)
	}
	uc := gen.AccountLinkUseCase{Type: gen.AccountLinkUseCaseType(l.UseCase)}
	uc.AccountOnboarding.SetNull()
	uc.AccountUpdate.SetNull()
	if l.UseCase == "account_update" {
		uc.AccountUpdate.Set(flow)
	} else {
		uc.AccountOnboarding.Set(flow)
	}
	return gen.V2CoreAccountLink{
		Object: gen.V2CoreAccountLinkObjectV2CoreAccountLink, Account: l.Account,
		Created: timestamp(l.Created), ExpiresAt: timestamp(l.ExpiresAt), Livemode: l.Livemode,
		Url: "http://h/r/" + l.Account + "/" + l.Token, UseCase: uc,
	}
}
