package accounts_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server"
)

// TestHostedFlowBehindAProxyPath: with --public-url naming a path (a proxy serving
// understudy under /base), the page's form and its session cookie must name that path too,
// or the browser posts outside the proxy's path without the cookie. They named /r/...
func TestHostedFlowBehindAProxyPath(t *testing.T) {
	var target *url.URL
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/base/")
		if !ok {
			http.NotFound(w, r) // only /base is served through the proxy
			return
		}
		rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.Path, pr.Out.URL.RawPath = "/"+rest, ""
		}}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	e := newHostedEnv(t, func(c *server.Config) { c.Accounts.PublicURL = proxy.URL + "/base/" })
	target, _ = url.Parse(e.url)

	acct := e.createAccount("")
	link := e.createLink(acct, hostedLinkOptions{})
	if !strings.HasPrefix(link, proxy.URL+"/base/r/"+acct+"/") {
		t.Fatalf("link %s is not under the public URL", link)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := hostedReadPage(t, hostedGet(t, browser, link), http.StatusOK)
	action := hostedAttr(page.byID("hosted_form"), "action")
	if action != hostedPath(t, link) {
		t.Errorf("form action %q, want the link's path %q", action, hostedPath(t, link))
	}
	if c := page.header.Get("Set-Cookie"); !strings.Contains(c, "Path="+hostedPath(t, link)+";") {
		t.Errorf("cookie %q does not name the link's path", c)
	}
	// As a browser does: the action resolved against the page, the jar's cookies for it.
	base, _ := url.Parse(link)
	post, _ := base.Parse(action)
	hostedRedirect(t, hostedPost(t, browser, post.String(), hostedValidForm(page)), http.StatusSeeOther, hostedReturn)
}
