package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"time"
)

// cookieName is the console session's cookie.
const cookieName = "understudy_console"

// sessionLifetime is how long a session lasts once opened.
const sessionLifetime = 12 * time.Hour

// sessions issues and checks console sessions. A session is a signed cookie (its expiry and
// a random id, with an HMAC), so the server keeps nothing per session: with an admin token
// the key derives from it, so a session outlives a restart and is good on every server that
// shares the token (and the store); without one the key is random, per process.
type sessions struct {
	key   []byte
	token [sha256.Size]byte // the admin token's hash (none: hasToken false)
	// hasToken says the server has an admin token: the login page asks for it.
	hasToken bool
}

func newSessions(token string) (*sessions, error) {
	s := &sessions{hasToken: token != ""}
	if s.hasToken {
		s.token = sha256.Sum256([]byte(token))
		k := hmac.New(sha256.New, []byte(token))
		k.Write([]byte("understudy console sessions"))
		s.key = k.Sum(nil)
		return s, nil
	}
	s.key = make([]byte, 32)
	if _, err := rand.Read(s.key); err != nil {
		return nil, err
	}
	return s, nil
}

// session is a request's console session.
type session struct {
	valid bool
	// viaToken: the request carried the admin token itself (a script, not a browser).
	viaToken bool
	// csrf is the session's CSRF token, which its pages put in their forms.
	csrf string
}

func (s session) csrfMatches(token string) bool {
	return s.csrf != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.csrf)) == 1
}

// allowsToken says whether token is the admin token (compared in constant time, as the
// admin API compares it).
func (s *sessions) allowsToken(token string) bool {
	got := sha256.Sum256([]byte(token))
	return s.hasToken && subtle.ConstantTimeCompare(got[:], s.token[:]) == 1
}

// open returns a new session's cookie value.
func (s *sessions) open(now time.Time) string {
	payload := make([]byte, 8, 24)
	binary.BigEndian.PutUint64(payload, uint64(now.Add(sessionLifetime).Unix()))
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	payload = append(payload, id...)
	return b64(payload) + "." + b64(s.mac("session", payload))
}

// check reads a cookie value: the session it opens, if it is one of ours and still good.
func (s *sessions) check(value string, now time.Time) session {
	p, m, ok := strings.Cut(value, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	mac, err2 := base64.RawURLEncoding.DecodeString(m)
	if !ok || err1 != nil || err2 != nil || len(payload) != 24 || !hmac.Equal(mac, s.mac("session", payload)) {
		return session{}
	}
	if now.Unix() >= int64(binary.BigEndian.Uint64(payload)) {
		return session{}
	}
	return session{valid: true, csrf: b64(s.mac("csrf", payload))[:32]}
}

func (s *sessions) mac(purpose string, payload []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write(payload)
	return h.Sum(nil)
}

// sessionOf is the session a request carries: the admin token as a bearer token (when the
// server has one), else the session cookie.
func (c *Console) sessionOf(req *http.Request) session {
	if scheme, tok, ok := strings.Cut(req.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") && c.sessions.allowsToken(strings.TrimSpace(tok)) {
		return session{valid: true, viaToken: true}
	}
	ck, err := req.Cookie(cookieName)
	if err != nil {
		return session{}
	}
	return c.sessions.check(ck.Value, c.d.Now())
}

// cookie is the session cookie carrying value (an empty value clears it).
func cookie(value string, secure bool) string {
	ck := &http.Cookie{Name: cookieName, Value: value, Path: Base, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure,
		MaxAge: int(sessionLifetime / time.Second)}
	if value == "" {
		ck.MaxAge = -1
	}
	return ck.String()
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// randomToken is n random bytes, base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b64(b)
}
