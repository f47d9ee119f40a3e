package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stripe/stripe-go/v85"

	"github.com/understudy-dev/understudy/client"
	admingen "github.com/understudy-dev/understudy/gen/admin"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/understudytest"
)

const (
	adminToken = "console-test-admin-token"
	// hostile is a name a page must show as text, never run.
	hostile = `<script>window.pwned=1</script><img src=x onerror="window.pwned=1">`
	project = "my-project-123"
	alice   = "22222222-2222-4222-8222-222222222222"
)

// browserPath finds a Chromium or Chrome to drive ("" when there is none).
func browserPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile (no cookie) and returns its
// context.
func newBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	exe := browserPath()
	if exe == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Chromium found (looked for /usr/bin/chromium, chromium, chromium-browser, google-chrome): install it with `apt-get install -y chromium`")
		}
		t.Skip("no Chromium found; install it with `apt-get install -y chromium` to run this test")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox, // root, in a container
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.WindowSize(1360, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	return bctx
}

// hook is a test webhook endpoint counting what it receives.
type hook struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	// failing makes it answer 500.
	failing atomic.Bool
}

func newHook(t *testing.T) *hook {
	h := &hook{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		if h.failing.Load() {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hook) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

// versionTransport sends the Service-Version the accounts API speaks.
type versionTransport struct{}

func (versionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Service-Version", "2026-05-27.dahlia")
	return http.DefaultTransport.RoundTrip(r)
}

// stripeClient is stripe-go pointed at srv.
func stripeClient(srv *understudytest.Server, key string) *stripe.Client {
	cfg := &stripe.BackendConfig{URL: stripe.String(srv.URL), HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: versionTransport{}},
		MaxNetworkRetries: stripe.Int64(0), EnableTelemetry: stripe.Bool(false), LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}}
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg)))
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shot keeps a screenshot of the page in $UNDERSTUDY_SCREENSHOTS (make console-shots).
func shot(t *testing.T, bctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("UNDERSTUDY_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "console-"+name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// eval runs a JavaScript expression in the page.
func eval[T any](t *testing.T, bctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(bctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// poll waits until expr is truthy in the page (the page may be navigating meanwhile).
func poll(t *testing.T, bctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		if ok, err = chromedp.Run(bctx, chromedp.Evaluate[bool]("!!("+expr+")")); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	page, _ := chromedp.Run(bctx, chromedp.Evaluate[string]("location.href + '\\n' + document.body.innerText.slice(0, 2000)"))
	t.Fatalf("waiting for %s (%s): %v\npage: %s", what, expr, err, page)
}

// submit clicks a form's button and waits for the page the form leads to.
func submit(t *testing.T, bctx context.Context, css string) {
	t.Helper()
	eval[bool](t, bctx, "window.leaving = true")
	if err := chromedp.Do(bctx, chromedp.Click(chromedp.CSS(css))); err != nil {
		t.Fatalf("clicking %s: %v", css, err)
	}
	poll(t, bctx, "the page after "+css, `window.leaving === undefined && document.readyState === 'complete' && !!document.querySelector('main')`)
}

func open(t *testing.T, bctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(bctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("main"))); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
}

func notPwned(t *testing.T, bctx context.Context, page string) {
	t.Helper()
	if eval[bool](t, bctx, "window.pwned === 1") {
		t.Fatalf("%s: the hostile name ran as script", page)
	}
}

// showsHostile: the page shows the hostile name as text, and it did not run.
func showsHostile(t *testing.T, bctx context.Context, page string) {
	t.Helper()
	notPwned(t, bctx, page)
	if !eval[bool](t, bctx, "document.body.innerText.includes("+jsString(hostile)+")") {
		t.Fatalf("%s: the hostile name is not shown as text", page)
	}
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// TestBrowserConsole walks every page of the console in headless Chromium, as a user of a
// sandbox driven by the vendors' SDKs: logging in with the admin token, a request made
// with stripe-go appearing live on the requests page, the request opened with its bodies
// and curl command, the accounts pages showing a hostile name as text, a resend reaching a
// test webhook, the authorization page answering what a principal may do, the SLA picture
// drawing its blockers, and the controls.
func TestBrowserConsole(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	srv := understudytest.Start(t, understudytest.WithSeedFile("../../testdata/seed-example.yaml"), understudytest.WithAdminToken(adminToken))
	bctx := newBrowser(t, ctx)
	base := srv.URL + "/_understudy/console"

	// A page asks for the token first, then goes where it was asked for.
	open(t, bctx, base+"/requests")
	if err := chromedp.Do(bctx, chromedp.WaitVisible(chromedp.ID("token"))); err != nil {
		t.Fatalf("no login page: %v", err)
	}
	shot(t, bctx, "login")
	if err := chromedp.Do(bctx, chromedp.SendKeys(chromedp.ID("token"), adminToken)); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#login`)
	poll(t, bctx, "the requests page after logging in", `location.pathname.endsWith('/requests') && !!document.getElementById('requests')`)
	poll(t, bctx, "the live view to connect", `document.getElementById('live').textContent.endsWith('live')`)

	// A request through stripe-go appears without a reload.
	sdk := stripeClient(srv, "sk_test_consoleBrowser1")
	h := newHook(t)
	dest, err := sdk.V2CoreEventDestinations.Create(ctx, &stripe.V2CoreEventDestinationCreateParams{
		Name: stripe.String("console test hook"), Type: stripe.String("webhook_endpoint"), EventPayload: stripe.String("thin"),
		EnabledEvents:   stripe.StringSlice([]string{"v2.core.account.created"}),
		WebhookEndpoint: &stripe.V2CoreEventDestinationCreateWebhookEndpointParams{URL: stripe.String(h.URL)},
	})
	if err != nil {
		t.Fatal(err)
	}
	acct, err := sdk.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{DisplayName: stripe.String(hostile), ContactEmail: stripe.String("hostile@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, bctx, "the account's creation in the live view", `[...document.querySelectorAll('#requests tbody tr')].some(r => r.textContent.includes('createAccount') && r.textContent.includes('200'))`)
	notPwned(t, bctx, "requests")
	waitFor(t, "the account.created event at the hook", func() bool { return h.count() >= 1 })
	shot(t, bctx, "requests")

	// The entry opens to its bodies and a curl command without the key.
	href := eval[string](t, bctx, `[...document.querySelectorAll('#requests tbody tr')].find(r => r.textContent.includes('POST') && r.textContent.includes('/v2/core/accounts')).querySelector('a').href`)
	open(t, bctx, href)
	reqBody := eval[string](t, bctx, `document.getElementById('request-body').textContent`)
	if !strings.Contains(reqBody, "hostile@example.com") {
		t.Errorf("request body %q lacks the contact email", reqBody)
	}
	if resp := eval[string](t, bctx, `document.getElementById('response-body').textContent`); !strings.Contains(resp, acct.ID) {
		t.Errorf("response body %q lacks the account id %s", resp, acct.ID)
	}
	curl := eval[string](t, bctx, `document.getElementById('curl').textContent`)
	if !strings.HasPrefix(curl, "curl -X POST '"+srv.URL+"/v2/core/accounts'") || strings.Contains(curl, "sk_test_consoleBrowser1") || !strings.Contains(curl, "$TOKEN") {
		t.Errorf("curl command %q", curl)
	}
	if strings.Contains(eval[string](t, bctx, `document.body.innerText`), "sk_test_consoleBrowser1") {
		t.Error("the API key is shown on the request page")
	}
	notPwned(t, bctx, "request")
	shot(t, bctx, "request")

	// Accounts: the hostile name stays text, on the list and the account's page.
	open(t, bctx, base+"/accounts")
	showsHostile(t, bctx, "accounts")
	shot(t, bctx, "accounts")
	open(t, bctx, base+"/accounts/"+acct.ID)
	showsHostile(t, bctx, "account")

	// The destination lists the attempt; resend reaches the hook again.
	open(t, bctx, base+"/destinations/"+dest.ID)
	poll(t, bctx, "the delivery attempt", `document.querySelectorAll('#attempts tbody tr td.s2').length >= 1`)
	before := h.count()
	submit(t, bctx, `#resend button[data-event]`)
	waitFor(t, "the resent event at the hook", func() bool { return h.count() > before })
	open(t, bctx, base+"/destinations/"+dest.ID)
	poll(t, bctx, "two attempts", `document.querySelectorAll('#attempts tbody tr td.s2').length >= 2`)

	// A resend the endpoint fails waits for its retry (a minute away); "Retry now" makes it
	// due, and it is delivered.
	h.failing.Store(true)
	before = h.count()
	submit(t, bctx, `#resend button[data-event]`)
	waitFor(t, "the failing attempt", func() bool { return h.count() > before })
	open(t, bctx, base+"/destinations/"+dest.ID)
	poll(t, bctx, "the waiting delivery", `document.querySelectorAll('#waiting tbody tr form').length === 1`)
	if s := eval[string](t, bctx, `document.querySelector('#waiting tbody tr').innerText`); !strings.Contains(s, "500") {
		t.Errorf("waiting delivery %q does not show its last status 500", s)
	}
	shot(t, bctx, "destination")
	h.failing.Store(false)
	before = h.count()
	submit(t, bctx, `#waiting tbody tr form button`)
	waitFor(t, "the retried delivery", func() bool { return h.count() > before })
	open(t, bctx, base+"/destinations/"+dest.ID)
	poll(t, bctx, "nothing waiting", `document.querySelectorAll('#waiting tbody tr form').length === 0`)

	// Authorization: the tree, the assignment at the subscription, and what alice may do; a
	// principal with a hostile display name stays text.
	if r, err := srv.Admin.PutPrincipalWithResponse(ctx, "66666666-6666-4666-8666-666666666666", admingen.Principal{Type: admingen.PrincipalTypeUser, DisplayName: ptr(hostile)}); err != nil || r.StatusCode()/100 != 2 {
		t.Fatalf("putting a principal: %v %v", err, r)
	}
	// A deny assignment at the subscription, inherited by rg1 (the seed's, at managed-rg, is not).
	if r, err := srv.Admin.PutDenyAssignmentWithResponse(ctx, "77777777-7777-4777-8777-777777777777", admingen.DenyAssignment{"properties": map[string]any{
		"scope": "/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2", "denyAssignmentName": "No deletes", "description": "Nobody deletes in the subscription.",
		"permissions": []any{map[string]any{"actions": []any{"*/delete"}}}, "principals": []any{map[string]any{"id": "00000000-0000-0000-0000-000000000000"}},
		"excludePrincipals": []any{map[string]any{"id": "66666666-6666-4666-8666-666666666666"}},
	}}); err != nil || r.StatusCode()/100 != 2 {
		t.Fatalf("putting a deny assignment: %v %v", err, r)
	}
	open(t, bctx, base+"/authorization?scope="+"/subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2/resourceGroups/rg1&principal="+alice+"&action=Vendor.Authorization/roleAssignments/write")
	if v := eval[string](t, bctx, `document.getElementById('verdict').innerText`); !strings.HasPrefix(v, "Allowed") {
		t.Errorf("verdict %q, want Allowed", v)
	}
	if tree := eval[string](t, bctx, `document.getElementById('scope-tree').innerText`); !strings.Contains(tree, "mg-example") || !strings.Contains(tree, "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2") {
		t.Errorf("scope tree %q lacks the management group or the subscription", tree)
	}
	if n := eval[int](t, bctx, `[...document.querySelectorAll('#assignments tbody tr')].filter(r => r.textContent.includes('inherited')).length`); n != 1 {
		t.Errorf("%d inherited assignments at the resource group, want 1", n)
	}
	if d := eval[string](t, bctx, `document.getElementById('denies').innerText`); !strings.Contains(d, "No deletes") || !strings.Contains(d, "inherited") || !strings.Contains(d, "All Principals") || strings.Contains(d, "Managed application lock") {
		t.Errorf("deny assignments at the resource group %q: want the subscription's, inherited, and not managed-rg's", d)
	}
	if eval[string](t, bctx, `document.getElementById('deny-note')?.innerText ?? ''`) == "" {
		t.Error("no note that the access check leaves deny assignments out")
	}
	showsHostile(t, bctx, "authorization")
	shot(t, bctx, "authorization")
	open(t, bctx, base+"/authorization?principal="+alice+"&action=Microsoft.Compute/virtualMachines/delete")
	if v := eval[string](t, bctx, `document.getElementById('verdict').innerText`); !strings.HasPrefix(v, "Denied") {
		t.Errorf("verdict %q, want Denied", v)
	}

	// Compute: an attachment group short of its intent draws its blockers: one attachment
	// in metro ams's zone1, none in its zone2.
	_, err = client.CheckCompute(srv.Compute.InterconnectAttachmentsInsertWithResponse(ctx, project, "europe-west4", nil, computegen.InterconnectAttachment{
		Name: "att-ams-z1", Interconnect: ptr("global/interconnects/ic-ams-z1")}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.CheckCompute(srv.Compute.InterconnectAttachmentGroupsInsertWithResponse(ctx, project, nil, computegen.InterconnectAttachmentGroup{
		Name: "half", Intent: computegen.InterconnectAttachmentGroupIntent{AvailabilitySla: computegen.InterconnectAttachmentGroupIntentAvailabilitySlaPRODUCTIONNONCRITICAL},
		Attachments: map[string]computegen.InterconnectAttachmentGroupAttachment{"a": {Attachment: ptr("regions/europe-west4/interconnectAttachments/att-ams-z1")}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	// An interconnect group meant for 99.99% with one metro's two zones only.
	cap := computegen.InterconnectGroupIntentTopologyCapabilityPRODUCTIONCRITICAL
	_, err = client.CheckCompute(srv.Compute.InterconnectGroupsInsertWithResponse(ctx, project, nil, computegen.InterconnectGroup{
		Name: "ics", Intent: &computegen.InterconnectGroupIntent{TopologyCapability: &cap},
		Interconnects: map[string]computegen.InterconnectGroupInterconnect{"a": {Interconnect: ptr("global/interconnects/ic-sjc-z1")}, "b": {Interconnect: ptr("global/interconnects/ic-sjc-z2")}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	open(t, bctx, base+"/compute?project="+project)
	if n := eval[int](t, bctx, `document.querySelectorAll('figure[data-group="ics"] svg g.member').length`); n != 2 {
		t.Errorf("the interconnect group draws %d members, want 2", n)
	}
	if n := eval[int](t, bctx, `document.querySelectorAll('figure[data-group="ics"] .blockers li').length`); n == 0 {
		t.Error("the interconnect group short of 99.99% shows no blocker")
	}
	if n := eval[int](t, bctx, `[...document.querySelectorAll('figure[data-group="half"] .blockers li')].filter(li => li.textContent.includes('NO_ATTACHMENTS_IN_METRO_AND_ZONE')).length`); n != 1 {
		t.Error("the group short of its SLA shows no blocker")
	}
	if n := eval[int](t, bctx, `[...document.querySelectorAll('figure[data-group="half"] svg g.zone.missing')].filter(g => g.textContent.includes('zone2')).length`); n != 1 {
		t.Error("the picture draws no missing zone")
	}
	if n := eval[int](t, bctx, `document.querySelectorAll('figure[data-group="prod-critical"] svg g.member').length`); n != 4 {
		t.Errorf("the complete group draws %d members, want 4", n)
	}
	if ok := eval[bool](t, bctx, `document.querySelector('figure[data-group="half"] svg').getBBox().width > 0`); !ok {
		t.Error("the SLA picture is not rendered")
	}
	shot(t, bctx, "compute")

	// Controls: advance the clock, add a fault rule and remove it.
	open(t, bctx, base+"/controls")
	clockBefore := eval[string](t, bctx, `document.getElementById('clock-now').textContent`)
	if err := chromedp.Do(bctx, chromedp.SetValue(chromedp.ID("advance-seconds"), "3600")); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#advance button`)
	poll(t, bctx, "the clock to move", `!!document.getElementById('done') && document.getElementById('done').textContent.includes('3600')`)
	if after := eval[string](t, bctx, `document.getElementById('clock-now').textContent`); after <= clockBefore {
		t.Errorf("clock %s after advancing, was %s", after, clockBefore)
	}
	if err := chromedp.Do(bctx, chromedp.SetValue(chromedp.ID("fault-api"), "compute"), chromedp.SendKeys(chromedp.ID("fault-op"), "globalForwardingRules.insert"),
		chromedp.SendKeys(chromedp.ID("fault-status"), "503")); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#fault-add`)
	poll(t, bctx, "the fault rule", `document.querySelectorAll('#faults tbody tr form').length === 1`)
	shot(t, bctx, "controls")
	submit(t, bctx, `#faults tbody tr form button`)
	poll(t, bctx, "the fault rule removed", `!!document.getElementById('done') && document.getElementById('done').textContent.includes('removed') && document.querySelectorAll('#faults tbody tr form').length === 0`)

	// A circuit down; the state downloaded as a seed file; a reset, once confirmed.
	if err := chromedp.Do(bctx, chromedp.SendKeys(chromedp.ID("circuit-project"), project), chromedp.SendKeys(chromedp.ID("circuit-name"), "ic-iad-z1")); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#circuit button`)
	if done := eval[string](t, bctx, `document.getElementById('done').textContent`); !strings.Contains(done, "ic-iad-z1") || !strings.Contains(done, "DOWN") {
		t.Errorf("after taking the circuit down: %q", done)
	}
	diag, err := client.CheckCompute(srv.Compute.InterconnectsGetDiagnosticsWithResponse(ctx, project, "ic-iad-z1", nil))
	if err != nil || diag.JSON200.Result == nil || diag.JSON200.Result.BundleOperationalStatus == nil || *diag.JSON200.Result.BundleOperationalStatus != "BUNDLE_OPERATIONAL_STATUS_DOWN" {
		t.Errorf("the interconnect's diagnostics after its circuit went down: %v", err)
	}
	if state := eval[string](t, bctx, `fetch('/_understudy/console/state.yaml').then(r => r.status + ' ' + r.headers.get('Content-Disposition') + ' ' + r.headers.get('Content-Type'))`); !strings.HasPrefix(state, "200 attachment; filename=\"understudy-state-") {
		t.Errorf("downloading the state: %s", state)
	}
	saved := filepath.Join(t.TempDir(), "understudy-state.yaml")
	if err := os.WriteFile(saved, []byte(eval[string](t, bctx, `fetch('/_understudy/console/state.yaml').then(r => r.text())`)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.SendKeys(chromedp.ID("reset-confirm"), "yes")); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#reset button`)
	if msg := eval[string](t, bctx, `document.getElementById('error').textContent`); !strings.Contains(msg, "Type reset") {
		t.Errorf("an unconfirmed reset: %q", msg)
	}
	open(t, bctx, base+"/controls")
	if err := chromedp.Do(bctx, chromedp.SendKeys(chromedp.ID("reset-confirm"), "reset")); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#reset button`)
	if done := eval[string](t, bctx, `document.getElementById('done').textContent`); !strings.Contains(done, "seeded state") {
		t.Errorf("after the reset: %q", done)
	}
	if _, err := sdk.V2CoreAccounts.Retrieve(ctx, acct.ID, nil); err == nil {
		t.Error("the account made before the reset is still there")
	}

	// The downloaded state loaded back: the account is there again, and one made since is
	// not. A file that is not a seed file changes nothing.
	later, err := sdk.V2CoreAccounts.Create(ctx, &stripe.V2CoreAccountCreateParams{DisplayName: stripe.String("made after the download")})
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("accounts:\n  accounts: [{id: 7, surprise: true}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open(t, bctx, base+"/controls")
	if err := chromedp.Do(bctx, chromedp.SetUploadFiles(`#seed-file`, []string{bad})); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#load button`)
	if msg := eval[string](t, bctx, `document.getElementById('error').textContent`); !strings.Contains(msg, "Nothing was loaded") || !strings.Contains(msg, "bad.yaml") {
		t.Errorf("loading a file that is not a seed file: %q", msg)
	}
	if _, err := sdk.V2CoreAccounts.Retrieve(ctx, later.ID, nil); err != nil {
		t.Errorf("after a refused load: %v", err)
	}
	open(t, bctx, base+"/controls")
	if err := chromedp.Do(bctx, chromedp.SetUploadFiles(`#seed-file`, []string{saved})); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#load button`)
	if done := eval[string](t, bctx, `document.getElementById('done').textContent`); !strings.Contains(done, "Loaded understudy-state.yaml") {
		t.Errorf("after loading the downloaded state: %q", done)
	}
	if got, err := sdk.V2CoreAccounts.Retrieve(ctx, acct.ID, nil); err != nil || got.DisplayName != hostile {
		t.Errorf("the account from the loaded state: %v, %v", got, err)
	}
	if _, err := sdk.V2CoreAccounts.Retrieve(ctx, later.ID, nil); err == nil {
		t.Error("an account made after the download survived loading it")
	}

	// The overview, last.
	open(t, bctx, base)
	notPwned(t, bctx, "overview")
	shot(t, bctx, "overview")
}

// TestBrowserConsoleRefusesChanges: from a page of the console, a change without the
// session's CSRF token is refused (403), and so is one from a browser with no session
// (401); neither changes the clock.
func TestBrowserConsoleRefusesChanges(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := understudytest.Start(t, understudytest.WithAdminToken(adminToken))
	base := srv.URL + "/_understudy/console"
	bctx := newBrowser(t, ctx)
	open(t, bctx, base+"/login")
	if err := chromedp.Do(bctx, chromedp.SendKeys(chromedp.ID("token"), adminToken)); err != nil {
		t.Fatal(err)
	}
	submit(t, bctx, `#login`)
	poll(t, bctx, "the overview", `!!document.getElementById('overview')`)
	post := func(bctx context.Context, body string) int {
		return eval[int](t, bctx, `fetch('/_understudy/console/controls/clock', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: `+jsString(body)+`}).then(r => r.status)`)
	}
	csrf := eval[string](t, bctx, `document.querySelector('#logout').form.csrf.value`)
	if s := post(bctx, "seconds=60&csrf=not-the-token"); s != http.StatusForbidden {
		t.Errorf("a wrong CSRF token: %d, want 403", s)
	}
	if s := post(bctx, "seconds=60"); s != http.StatusBadRequest && s != http.StatusForbidden {
		t.Errorf("no CSRF token: %d, want 400 or 403", s)
	}

	// Another browser, without the session: the page asks for the token, a change is refused.
	other := newBrowser(t, ctx)
	open(t, other, base+"/controls")
	if !eval[bool](t, other, `!!document.getElementById('token')`) {
		t.Fatal("a browser without a session was not asked for the token")
	}
	if s := post(other, "seconds=60&csrf="+csrf); s != http.StatusUnauthorized {
		t.Errorf("no session: %d, want 401", s)
	}

	clk, err := srv.Admin.GetClockWithResponse(ctx)
	if err != nil || clk.JSON200 == nil {
		t.Fatal(err)
	}
	if clk.JSON200.OffsetSeconds != 0 {
		t.Errorf("the clock moved %v seconds: a refused change went through", clk.JSON200.OffsetSeconds)
	}
	// The right token goes through.
	if s := post(bctx, "seconds=60&csrf="+csrf); s != http.StatusOK {
		t.Errorf("with the CSRF token: %d, want 200 (after the redirect)", s)
	}
}

func ptr[T any](v T) *T { return &v }
