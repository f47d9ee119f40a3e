package accounts

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// sessionCookie carries the browser session the first visit of a link opens.
const sessionCookie = "understudy_link_session"

// OpenAccountLink serves the hosted flow: the first visit of a live link consumes it, opens
// a browser session (cookie + form nonce) and answers the form; any later visit, and any
// visit after expires_at, goes to the link's refresh_url. Two racing first visits are
// decided inside one write transaction: exactly one gets the form.
func (s *Server) OpenAccountLink(ctx context.Context, req gen.OpenAccountLinkRequestObject) (gen.OpenAccountLinkResponseObject, error) {
	l, ok, err := s.hostedLink(req.Account, req.Token)
	if err != nil {
		return nil, err
	}
	if !ok {
		return s.openNotFound()
	}
	now := s.now()
	if l.Consumed || !now.Before(l.expiresAt()) {
		return gen.OpenAccountLink302Response{Headers: gen.OpenAccountLink302ResponseHeaders{Location: l.flow().RefreshUrl}}, nil
	}
	session := LinkSession{ID: s.random(32), Nonce: s.random(22), ExpiresAt: now.Add(s.cfg.SessionLifetime)}
	var a Account
	opened, gone := false, false
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		cur, found := s.tables.Links.Get(tx, req.Token)
		if !found {
			gone = true
			return nil
		}
		l = cur
		if cur.Consumed || !now.Before(cur.expiresAt()) {
			return nil // another visit got here first
		}
		if a, found = s.getAccount(tx, cur.account()); !found || a.Closed() {
			// A link to an account closed since is invalid: like a used or expired one, it
			// sends the browser to refresh_url (stripe-go's RefreshURL: "expired, has been
			// used, or is otherwise invalid"), where the platform learns it cannot onboard.
			return nil
		}
		cur.Consumed, cur.Session = true, session
		if err := s.tables.Links.Put(tx, cur.Token, cur); err != nil {
			return err
		}
		l, opened = cur, true
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case gone:
		return s.openNotFound()
	case !opened:
		return gen.OpenAccountLink302Response{Headers: gen.OpenAccountLink302ResponseHeaders{Location: l.flow().RefreshUrl}}, nil
	}
	body, n, err := renderPage("form.html", newFormPage(s.hostedPath(l), l, a, a.tree(), s.personsNow(ctx, a.ID()), session.Nonce, nil, nil))
	if err != nil {
		return nil, err
	}
	cookie := (&http.Cookie{
		Name: sessionCookie, Value: session.ID, Path: s.hostedPath(l),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.isHTTPS(ctx),
	}).String()
	noStore := "no-store"
	return gen.OpenAccountLink200TexthtmlResponse{
		Body: body, ContentLength: n,
		Headers: gen.OpenAccountLink200ResponseHeaders{SetCookie: &cookie, CacheControl: &noStore},
	}, nil
}

// formFromBody binds the hosted form from the request body alone. The generated binding asks
// Echo for FormParams, whose http.Request.ParseForm parses the URL's query as well and fails
// on a stray ';' or a bad %-escape there. The query means nothing to this operation (the
// session is a cookie, the nonce is in the form) and a visit to the same URL ignores it, so
// the submission does too. With Form and PostForm set, ParseForm has nothing left to do.
// The validator in front has already read the body (over the limit: 413; the wrong
// content type: 415), parsed it as a form (400 when it does not parse) and left an
// in-memory copy: the two errors below are guards that a request does not reach.
func formFromBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, "the form could not be parsed: "+err.Error())
		}
		r.PostForm, r.Form = form, form
		return next(c)
	}
}

// SubmitAccountLink accepts the hosted form once, from the browser session the first visit
// opened (cookie and nonce), before the session expires. Invalid values answer the form
// again (400) with the session still usable; a valid form updates the account (counting
// toward its concurrency limit) and goes to return_url (303), or answers a completion page.
func (s *Server) SubmitAccountLink(ctx context.Context, req gen.SubmitAccountLinkRequestObject) (gen.SubmitAccountLinkResponseObject, error) {
	now := s.now()
	l, a, ok, err := s.hostedLinkAndAccount(req.Account, req.Token)
	if err != nil {
		return nil, err
	}
	if !ok {
		return s.submitPage(http.StatusNotFound, pageLinkNotValid)
	}
	cookie := ""
	if req.Params.UnderstudyLinkSession != nil {
		cookie = *req.Params.UnderstudyLinkSession
	}
	nonce := ""
	if req.Body != nil {
		nonce = req.Body.Nonce
	}
	if !sessionAccepts(l, cookie, nonce, now) {
		return s.submitPage(http.StatusForbidden, pageSessionOver)
	}
	in := formInputOf(req.Body)
	obj, persons := a.tree(), s.personsNow(ctx, a.ID())
	apply, problems := checkForm(a, obj, persons, in)
	if len(problems) > 0 {
		body, n, err := renderPage("form.html", newFormPage(s.hostedPath(l), l, a, obj, persons, l.Session.Nonce, &in, problems))
		if err != nil {
			return nil, err
		}
		return gen.SubmitAccountLink400TexthtmlResponse{HostedErrorTexthtmlResponse: gen.HostedErrorTexthtmlResponse{Body: body, ContentLength: n}}, nil
	}

	// Submissions of one session wait for each other, so that a double submit updates the
	// account once and the second one is told so (403) instead of meeting the first one's
	// hold on the account (429).
	defer s.submissions.lock(l.Token)()
	if l, ok, err = s.hostedLink(req.Account, req.Token); err != nil {
		return nil, err
	} else if !ok {
		return s.submitPage(http.StatusNotFound, pageLinkNotValid)
	}
	if !sessionAccepts(l, cookie, nonce, now) {
		return s.submitPage(http.StatusForbidden, pageSessionOver)
	}
	release, err := s.holdAccount(ctx, a, s.platforms[l.Platform])
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) && ae.Status == http.StatusTooManyRequests {
			return s.submitPage(http.StatusTooManyRequests, pageTooManyUpdates)
		}
		return nil, err
	}
	defer release()

	status := http.StatusOK
	err = s.update(ctx, func(w *write) error {
		tx := w.Tx
		cur, found := s.tables.Links.Get(tx, req.Token)
		if !found || cur.account() != req.Account {
			status = http.StatusNotFound
			return nil
		}
		if !sessionAccepts(cur, cookie, nonce, now) {
			status = http.StatusForbidden
			return nil
		}
		before, found := s.getAccount(tx, cur.account())
		if !found || before.Closed() {
			status = http.StatusNotFound
			return nil
		}
		acct := before
		acct.OnboardedConfigurations = slices.Clone(before.OnboardedConfigurations)
		obj := acct.tree()
		if rep := applyForm(&acct, obj, apply, cur.configurations()); rep != nil {
			rep["id"], rep["created"], rep["updated"] = s.randomID("person_", 24), timestamp(now), timestamp(now)
			p := Person{Seq: s.next(tx, seqPersons)}
			if err := fillPerson(&p, rep, acct); err != nil {
				return err
			}
			if err := s.writePerson(ctx, w, nil, &p); err != nil {
				return err
			}
		}
		if err := s.writeAccount(ctx, w, &before, &acct, obj); err != nil {
			return err
		}
		cur.Session.Submitted = true
		l = cur
		if err := s.tables.Links.Put(tx, cur.Token, cur); err != nil {
			return err
		}
		_, err := s.emit(ctx, w, linkReturned(acct, cur))
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case status == http.StatusNotFound:
		return s.submitPage(http.StatusNotFound, pageLinkNotValid)
	case status == http.StatusForbidden:
		return s.submitPage(http.StatusForbidden, pageSessionOver)
	case nullableValue(l.flow().ReturnUrl) != "":
		return gen.SubmitAccountLink303Response{Headers: gen.SubmitAccountLink303ResponseHeaders{Location: nullableValue(l.flow().ReturnUrl)}}, nil
	}
	return s.submitPage(http.StatusOK, pageComplete)
}

// sessionAccepts says whether a submission with this cookie and nonce is the one the link's
// session still waits for. The secrets are compared in constant time; a link never opened
// has no session and accepts nothing.
func sessionAccepts(l AccountLink, cookie, nonce string, now time.Time) bool {
	sess := l.Session
	if !l.Consumed || sess.ID == "" || sess.Nonce == "" || sess.Submitted || !now.Before(sess.ExpiresAt) {
		return false
	}
	okCookie := subtle.ConstantTimeCompare([]byte(cookie), []byte(sess.ID))
	okNonce := subtle.ConstantTimeCompare([]byte(nonce), []byte(sess.Nonce))
	return okCookie&okNonce == 1
}

// hostedLink finds the link of a hosted URL; a link made for another account is not found.
// The error is the store's (one whose disk failed serves nothing it may have lost).
func (s *Server) hostedLink(account, token string) (AccountLink, bool, error) {
	var l AccountLink
	found := false
	err := s.db.View(context.Background(), func(tx *store.Tx) error {
		l, found = s.tables.Links.Get(tx, token)
		return nil
	})
	return l, found && l.account() == account && !s.linkGone(l), err
}

// linkGone says retention has removed the link, or is about to: it is answered as unknown.
func (s *Server) linkGone(l AccountLink) bool {
	return !s.now().Before(l.usableUntil().Add(s.cfg.LinkRetention))
}

func (s *Server) hostedLinkAndAccount(account, token string) (AccountLink, Account, bool, error) {
	var l AccountLink
	var a Account
	found := false
	err := s.db.View(context.Background(), func(tx *store.Tx) error {
		if l, found = s.tables.Links.Get(tx, token); found {
			a, found = s.getAccount(tx, l.account())
		}
		return nil
	})
	return l, a, found && l.account() == account && !s.linkGone(l), err
}

func (s *Server) openNotFound() (gen.OpenAccountLinkResponseObject, error) {
	e, err := hostedError(pageLinkNotValid)
	if err != nil {
		return nil, err
	}
	return gen.OpenAccountLink404TexthtmlResponse{HostedErrorTexthtmlResponse: e}, nil
}

// submitPage answers a message page with the status.
func (s *Server) submitPage(status int, p messagePage) (gen.SubmitAccountLinkResponseObject, error) {
	body, n, err := renderPage("message.html", p)
	if err != nil {
		return nil, err
	}
	switch status {
	case http.StatusOK:
		return gen.SubmitAccountLink200TexthtmlResponse{Body: body, ContentLength: n}, nil
	case http.StatusForbidden:
		return gen.SubmitAccountLink403TexthtmlResponse{Body: body, ContentLength: n}, nil
	case http.StatusNotFound:
		return gen.SubmitAccountLink404TexthtmlResponse{Body: body, ContentLength: n}, nil
	}
	return gen.SubmitAccountLinkdefaultTexthtmlResponse{Body: body, ContentLength: n, StatusCode: status}, nil
}

// hostedPath is the link's page as the browser addresses it: under the public URL's path,
// which a proxy in front of understudy serves it from.
func (s *Server) hostedPath(l AccountLink) string {
	return s.hostedBase + "/r/" + l.account() + "/" + l.Token
}

// isHTTPS says whether the browser reaches the page over https, for the cookie's Secure
// attribute: as the public URL says, else as the request came (directly or, as Echo reads
// it, through a proxy saying so).
func (s *Server) isHTTPS(ctx context.Context) bool {
	return strings.HasPrefix(s.baseURL(ctx), "https://")
}

// keyedMutex is a lock per key, for the submissions of each link while one runs.
type keyedMutex struct {
	mu sync.Mutex
	m  map[string]*keyedEntry
}

func newKeyedMutex() *keyedMutex { return &keyedMutex{m: map[string]*keyedEntry{}} }

type keyedEntry struct {
	mu      sync.Mutex
	waiters int
}

// lock takes the key's lock and returns its unlock; entries live only while in use.
func (k *keyedMutex) lock(key string) (unlock func()) {
	k.mu.Lock()
	e := k.m[key]
	if e == nil {
		e = &keyedEntry{}
		k.m[key] = e
	}
	e.waiters++
	k.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		if e.waiters--; e.waiters == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
}
