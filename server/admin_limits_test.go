package server_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admingen "github.com/understudy-dev/understudy/gen/admin"
	"github.com/understudy-dev/understudy/understudytest"
)

// adminErr is the admin API's error envelope.
type adminErr struct {
	Error struct{ Code, Message string }
}

func postAdmin(url, body string) (int, []byte, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func decodeAdminError(t *testing.T, body []byte) adminErr {
	t.Helper()
	var e adminErr
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not the admin envelope: %v %s", err, body)
	}
	return e
}

const maxAdvance = 31622400 // the spec's maximum for one advance

// maxAdvances is how many maximal advances the clock's offset (int64 nanoseconds) holds.
var maxAdvances = int(math.MaxInt64 / (maxAdvance * int64(time.Second)))

func TestClockAdvanceNeverWrapsAround(t *testing.T) {
	base := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC) // far enough back for the offset to reach its limit before clock.Latest
	srv := understudytest.Start(t, understudytest.WithClock(func() time.Time { return base }))
	admin := adminClient(t, srv)
	ctx := context.Background()
	url := srv.URL + "/_understudy/clock/advance"
	body := `{"seconds":31622400}`
	for i := 1; i <= maxAdvances; i++ {
		status, b, err := postAdmin(url, body)
		if err != nil || status != 200 {
			t.Fatalf("advance %d: %d %v %s", i, status, err, b)
		}
	}
	before, _ := admin.GetClockWithResponse(ctx)
	status, b, err := postAdmin(url, body)
	if err != nil || status != 400 {
		t.Fatalf("the advance past the limit: %d %v %s", status, err, b)
	}
	if e := decodeAdminError(t, b); e.Error.Code != "InvalidRequest" || !strings.HasPrefix(e.Error.Message, "seconds: the clock cannot be advanced that far") {
		t.Errorf("refusal: %s", b)
	}
	after, _ := admin.GetClockWithResponse(ctx)
	if after.StatusCode() != 200 || after.JSON200.OffsetSeconds != before.JSON200.OffsetSeconds || !after.JSON200.Now.Equal(before.JSON200.Now) {
		t.Errorf("a refused advance moved the clock: %s -> %s", before.Body, after.Body)
	}
	if after.JSON200.OffsetSeconds < float64(maxAdvances)*maxAdvance || after.JSON200.Now.Before(base) {
		t.Errorf("the clock went back: %s", after.Body)
	}
	// A smaller advance that still fits is taken.
	if status, b, _ := postAdmin(url, `{"seconds":1}`); status != 200 {
		t.Errorf("a small advance near the limit: %d %s", status, b)
	}
}

func TestClockAdvanceRefusesYearsPast2261(t *testing.T) {
	base := time.Date(2261, 6, 1, 0, 0, 0, 0, time.UTC)
	srv := understudytest.Start(t, understudytest.WithClock(func() time.Time { return base }))
	status, b, err := postAdmin(srv.URL+"/_understudy/clock/advance", `{"seconds":31622400}`)
	if err != nil || status != 400 {
		t.Fatalf("%d %v %s", status, err, b)
	}
	if e := decodeAdminError(t, b); e.Error.Code != "InvalidRequest" || !strings.Contains(e.Error.Message, "2261-12-31T23:59:59Z") {
		t.Errorf("refusal: %s", b)
	}
	// One advance is at most a year, said in digits (kin wrote 3.16224e+07).
	if status, b, _ := postAdmin(srv.URL+"/_understudy/clock/advance", `{"seconds":1e20}`); status != 400 || !strings.Contains(string(b), "at most 31622400") {
		t.Errorf("an advance of 1e20 seconds: %d %s", status, b)
	}
	got, _ := adminClient(t, srv).GetClockWithResponse(context.Background())
	if got.StatusCode() != 200 || got.JSON200.OffsetSeconds != 0 {
		t.Errorf("after the refusal: %s", got.Body)
	}
}

// TestConcurrentClockAdvancesNeverWrapAround races more maximal advances than the clock
// holds (run it with -race): exactly as many as fit are taken, the rest are refused, and the
// clock never shows a time before its base.
func TestConcurrentClockAdvancesNeverWrapAround(t *testing.T) {
	base := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC) // far enough back for the offset to reach its limit before clock.Latest
	srv := understudytest.Start(t, understudytest.WithClock(func() time.Time { return base }))
	url := srv.URL + "/_understudy/clock/advance"
	total := maxAdvances + 20
	var wg sync.WaitGroup
	statuses := make([]int, total)
	errs := make([]error, total)
	for i := range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], _, errs[i] = postAdmin(url, `{"seconds":31622400}`)
		}()
	}
	wg.Wait()
	ok := 0
	for i, s := range statuses {
		switch {
		case errs[i] != nil:
			t.Fatal(errs[i])
		case s == 200:
			ok++
		case s != 400:
			t.Errorf("advance: %d", s)
		}
	}
	got, _ := adminClient(t, srv).GetClockWithResponse(context.Background())
	if ok != maxAdvances || got.JSON200.OffsetSeconds != float64(maxAdvances)*maxAdvance || got.JSON200.Now.Before(base) {
		t.Errorf("%d of %d advances taken (want %d); clock %s", ok, total, maxAdvances, got.Body)
	}
}

// TestFaultProbability: 0 means never, an omitted probability means always, and the reply
// says what the rule was given (at full precision).
func TestFaultProbability(t *testing.T) {
	srv := understudytest.Start(t)
	admin := adminClient(t, srv)
	ctx := context.Background()
	auth := map[string]string{"Authorization": "Bearer t"}

	path, st, count := "/compute/v1/projects/prob-zero-1", 503, 1
	never, _ := admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Status: &st, Probability: ptr(0.0), Path: &path, Count: &count})
	if never.StatusCode() != 201 || never.JSON201.Probability == nil || *never.JSON201.Probability != 0 {
		t.Fatalf("create with probability 0: %s", never.Body)
	}
	for i := 0; i < 20; i++ {
		if got, body := do(t, http.MethodGet, srv.URL+path+"/global/operations", auth, nil, 0); got == 503 {
			t.Fatalf("request %d faulted by a rule with probability 0: %s", i, body)
		}
	}
	list, _ := admin.ListFaultsWithResponse(ctx)
	if len(list.JSON200.Faults) != 1 || *list.JSON200.Faults[0].Probability != 0 || *list.JSON200.Faults[0].Remaining != 1 {
		t.Errorf("a rule that never applies was counted or lost: %s", list.Body)
	}
	admin.ClearFaultsWithResponse(ctx)

	always, _ := admin.CreateFaultWithResponse(ctx, admingen.FaultRule{Status: &st, Path: &path})
	if always.StatusCode() != 201 || always.JSON201.Probability == nil || *always.JSON201.Probability != 1 {
		t.Fatalf("create without a probability: %s", always.Body)
	}
	for i := 0; i < 5; i++ {
		if got, body := do(t, http.MethodGet, srv.URL+path+"/global/operations", auth, nil, 0); got != 503 {
			t.Fatalf("request %d not faulted by a rule without a probability: %d %s", i, got, body)
		}
	}
	admin.ClearFaultsWithResponse(ctx)

	// Given values come back as given, even those too small for a float32.
	for _, p := range []float64{1e-50, 1e-7, 0.1, 0.5, 1} {
		status, b, err := postAdmin(srv.URL+"/_understudy/faults", `{"status":503,"path":"/nowhere","probability":`+strconv.FormatFloat(p, 'g', -1, 64)+`}`)
		var f admingen.Fault
		if err != nil || status != 201 || json.Unmarshal(b, &f) != nil || f.Probability == nil || *f.Probability != p {
			t.Errorf("probability %g: %d %v %s", p, status, err, b)
		}
	}
	admin.ClearFaultsWithResponse(ctx)
}

// TestAdminBindingErrorsArePlain: what the validator lets through but the handlers' Go
// types cannot hold, on every admin route that reads a body or parameters, is answered as
// any other invalid request: 400 InvalidRequest, naming the member or parameter, in plain
// words (no Go types, offsets or binder wording).
func TestAdminBindingErrorsArePlain(t *testing.T) {
	srv := understudytest.Start(t)
	const integer = "value must be an integer written without a fraction or exponent"
	for _, tt := range []struct {
		name, method, path, body string
		want                     string // the message's start
	}{
		{"count too large", "POST", "/_understudy/faults", `{"status":503,"count":99999999999999999999}`, "count: number out of range"},
		{"count 1.0", "POST", "/_understudy/faults", `{"status":503,"count":1.0}`, "count: " + integer},
		{"count 1e2", "POST", "/_understudy/faults", `{"status":503,"count":1e2}`, "count: " + integer},
		{"count too large for a float64", "POST", "/_understudy/faults", `{"status":503,"count":1e400}`, "count: number out of range"},
		{"status 503.0", "POST", "/_understudy/faults", `{"status":503.0}`, "status: " + integer},
		{"retryAfterSeconds 2E0", "POST", "/_understudy/faults", `{"status":503,"retryAfterSeconds":2E0}`, "retryAfterSeconds: " + integer},
		{"latencyMs 10.0", "POST", "/_understudy/faults", `{"latencyMs":10.0}`, "latencyMs: " + integer},
		{"probability too large for a float64", "POST", "/_understudy/faults", `{"status":503,"probability":1e400}`, "probability: number out of range"},
		{"seconds too large for a float64", "POST", "/_understudy/clock/advance", `{"seconds":1e400}`, "seconds: number out of range"},
		{"limit twice", "GET", "/_understudy/requests?limit=5&limit=6", "", `query parameter "limit": must be given only once`},
		{"status twice", "GET", "/_understudy/requests?status=200&status=404", "", `query parameter "status": must be given only once`},
		{"api twice", "GET", "/_understudy/requests?api=compute&api=accounts", "", `query parameter "api": must be given only once`},
		{"operationId twice", "GET", "/_understudy/requests?operationId=a&operationId=b", "", `query parameter "operationId": must be given only once`},
		{"limit 1.0", "GET", "/_understudy/requests?limit=1.0", "", `query parameter "limit": `},
		{"limit too large", "GET", "/_understudy/requests?limit=99999999999999999999", "", `query parameter "limit": `},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			headers := map[string]string{}
			if tt.body != "" {
				body, headers["Content-Type"] = strings.NewReader(tt.body), "application/json"
			}
			status, b := do(t, tt.method, srv.URL+tt.path, headers, body, 0)
			if status != 400 {
				t.Fatalf("%d %s", status, b)
			}
			e := decodeAdminError(t, b)
			if e.Error.Code != "InvalidRequest" || !strings.HasPrefix(e.Error.Message, tt.want) {
				t.Errorf("got %s, want InvalidRequest %q...", b, tt.want)
			}
			for _, leak := range []string{"Go ", "json:", "json.", "Unmarshal", "offset", "unmarshal", "int64", "float64", "expected=", "Invalid format"} {
				if strings.Contains(e.Error.Message, leak) {
					t.Errorf("the message has %q: %s", leak, e.Error.Message)
				}
			}
		})
	}
	// Nothing was created or moved by the refused requests.
	if list, _ := adminClient(t, srv).ListFaultsWithResponse(context.Background()); len(list.JSON200.Faults) != 0 {
		t.Errorf("faults after refusals: %s", list.Body)
	}
}

// TestFaultRulesThatCouldNeverMatch: a rule naming an operationId its API does not have, a
// path prefix without its leading slash, or /_understudy (never faulted) is refused: a typo
// in a test's fault would otherwise pass silently and the fault never happen.
func TestFaultRulesThatCouldNeverMatch(t *testing.T) {
	srv := understudytest.Start(t)
	url := srv.URL + "/_understudy/faults"
	for body, says := range map[string]string{
		`{"status":503,"operationId":"globalForwardingRules.insrt"}`:                   "no API has operation",
		`{"status":503,"api":"accounts","operationId":"globalForwardingRules.insert"}`: "the accounts API has no operation",
		`{"status":503,"path":"compute/v1/projects"}`:                                  "starts with /",
		`{"status":503,"path":"/_understudy/health"}`:                                  "never faulted",
	} {
		status, b, err := postAdmin(url, body)
		if err != nil || status != 400 {
			t.Errorf("%s: %d %v %s", body, status, err, b)
			continue
		}
		if e := decodeAdminError(t, b); e.Error.Code != "InvalidRequest" || !strings.Contains(e.Error.Message, says) {
			t.Errorf("%s: %s", body, b)
		}
	}
	for _, body := range []string{
		`{"status":503,"operationId":"globalForwardingRules.insert"}`,
		`{"status":503,"api":"compute","operationId":"globalForwardingRules.insert","path":"/compute/v1/"}`,
	} {
		if status, b, _ := postAdmin(url, body); status != 201 {
			t.Errorf("%s: %d %s", body, status, b)
		}
	}
}
