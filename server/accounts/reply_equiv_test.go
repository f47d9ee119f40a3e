package accounts

import (
	"net/http/httptest"
	"reflect"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/accounts"
)

func TestLinkReplyMatchesGenerated(t *testing.T) {
	var body gen.V2CoreAccountLink
	body.Account, body.Created, body.Url = "acct_1", "2026-05-27T09:14:03.512Z", "http://h/r/acct_1/alu_test_x?a=<b>&c"
	body.UseCase.Type = gen.AccountLinkUseCaseTypeAccountOnboarding
	body.UseCase.AccountUpdate.SetNull()
	body.UseCase.AccountOnboarding.Set(gen.AccountLinkFlow{Configurations: []gen.ConfigurationType{"recipient"}, RefreshUrl: "https://example.com/r"})
	for _, preset := range []string{"", "req_1", "req_other"} {
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		if preset != "" {
			got.Header().Set("Request-Id", preset)
			want.Header().Set("Request-Id", preset)
		}
		if err := (&linkCreated{body: body, requestID: "req_1"}).VisitCreateAccountLinkResponse(got); err != nil {
			t.Fatal(err)
		}
		r := gen.CreateAccountLink200JSONResponse{Body: body, Headers: gen.CreateAccountLink200ResponseHeaders{RequestId: "req_1"}}
		if err := r.VisitCreateAccountLinkResponse(want); err != nil {
			t.Fatal(err)
		}
		if got.Code != want.Code || got.Body.String() != want.Body.String() || !reflect.DeepEqual(got.Header(), want.Header()) {
			t.Fatalf("got %d %v %s, want %d %v %s", got.Code, got.Header(), got.Body, want.Code, want.Header(), want.Body)
		}
	}
}
