package accounts_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stripe/stripe-go/v85"

	"github.com/understudy-dev/understudy/understudytest"
)

// hostedBrowserPath finds a Chromium or Chrome to drive ("" when there is none).
func hostedBrowserPath() string {
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

// TestBrowserHostedFlow walks the hosted flow in a real, headless Chromium: open the link,
// fill the form in, submit, land on the platform's return_url; opening the link again lands
// on its refresh_url; the account's capability is then active.
func TestBrowserHostedFlow(t *testing.T) {
	exe := hostedBrowserPath()
	if exe == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no Chromium found (looked for /usr/bin/chromium, chromium, chromium-browser, google-chrome): install it with `apt-get install -y chromium` (.ci/run does)")
		}
		t.Skip("no Chromium found; install it with `apt-get install -y chromium` to run this test")
	}
	began := time.Now()

	// The platform's own pages, where the flow sends the browser back.
	platform := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/return":
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Returned</title></head><body><h1>Returned</h1></body></html>`)
		case "/refresh":
			fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Refresh</title></head><body><h1>Refresh</h1></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(platform.Close)

	// No PublicURL: the link points at the test server's own host.
	srv := understudytest.Start(t)
	e := &hostedEnv{t: t, url: srv.URL}
	// The platform's webhook endpoint, told of the flow's end by events.
	hook := newWebhookServer(t, nil)
	sdk := newSDKClient(t, srv, hostedKey)
	capability := "v2.core.account[configuration.recipient].capability_status_updated"
	dest := createWebhookDestination(t, sdk, hook.URL, "v2.core.account_link.returned", capability)
	acct := e.createAccount("")
	link := e.createLink(acct, hostedLinkOptions{returnURL: platform.URL + "/return", refresh: platform.URL + "/refresh"})
	if !strings.HasPrefix(link, srv.URL+"/r/"+acct+"/") {
		t.Fatalf("link %s is not served by the test server %s", link, srv.URL)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox, // root, in a container
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()

	err := chromedp.Do(bctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.ID("contact_email")),
		chromedp.SendKeys(chromedp.ID("contact_email"), "jenny.rosen@example.com"),
		chromedp.SendKeys(chromedp.ID("display_name"), "Jenny Rosen"),
		chromedp.SendKeys(chromedp.ID("country"), "US"),
		chromedp.SetValue(chromedp.ID("entity_type"), "individual"),
		chromedp.SendKeys(chromedp.ID("given_name"), "Jenny"),
		chromedp.SendKeys(chromedp.ID("surname"), "Rosen"),
		chromedp.SetValue(chromedp.ID("date_of_birth"), "1990-01-31"),
		chromedp.Click(chromedp.ID("terms_of_service")),
	)
	if err != nil {
		t.Fatalf("filling the form in: %v", err)
	}
	screenshot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	shot := filepath.Join(t.TempDir(), "hosted-form.png")
	if err := os.WriteFile(shot, screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the form: %s", shot)
	if dir := os.Getenv("UNDERSTUDY_SCREENSHOTS"); dir != "" { // to keep it after the test
		if err := os.WriteFile(filepath.Join(dir, "hosted-form.png"), screenshot, 0o644); err != nil {
			t.Error(err)
		}
	}
	if err := chromedp.Do(bctx, chromedp.Click(chromedp.ID("submit"))); err != nil {
		t.Fatalf("submitting: %v", err)
	}

	hostedWaitLocation(t, bctx, "/return")
	if heading, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("h1"))); err != nil || heading != "Returned" {
		t.Fatalf("after submitting: heading %q, %v", heading, err)
	}

	// The link is used up: opening it again goes to refresh_url.
	if err := chromedp.Do(bctx, chromedp.Navigate(link)); err != nil {
		t.Fatalf("opening the link again: %v", err)
	}
	hostedWaitLocation(t, bctx, "/refresh")
	if heading, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("h1"))); err != nil || heading != "Refresh" {
		t.Fatalf("after opening the link again: heading %q, %v", heading, err)
	}

	a := e.account(acct)
	if s := hostedDig(a, "configuration", "recipient", "capabilities", "stripe_balance", "stripe_transfers", "status"); s != "active" {
		t.Errorf("stripe_transfers status %v, want active", s)
	}
	if hostedDig(a, "identity", "country") != "US" || hostedDig(a, "identity", "entity_type") != "individual" || a["contact_email"] != "jenny.rosen@example.com" {
		t.Errorf("account not updated from the browser: %v", a)
	}
	waitFor(t, "the flow's events", func() bool { return len(hook.delivered()) >= 2 })
	types, ns := eventTypesOf(t, sdk, dest.WebhookEndpoint.SigningSecret, hook.delivered())
	if want := []string{capability, "v2.core.account_link.returned"}; !slices.Equal(types, want) {
		t.Errorf("events %q, want %q", types, want)
	}
	if ev, err := ns[len(ns)-1].(*stripe.V2CoreAccountLinkReturnedEventNotification).FetchEvent(ctx); err != nil || ev.Data.AccountID != acct {
		t.Errorf("account_link.returned: %v, %+v", err, ev)
	}
	t.Logf("browser flow took %s", time.Since(began).Round(time.Millisecond))
}

// hostedWaitLocation waits until the browser's location path ends with suffix.
func hostedWaitLocation(t *testing.T, ctx context.Context, suffix string) {
	t.Helper()
	var loc string
	for {
		got, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil {
			loc = got
			if strings.HasSuffix(strings.SplitN(loc, "?", 2)[0], suffix) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the browser did not reach %s (at %q): %v", suffix, loc, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
