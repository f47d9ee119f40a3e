package console

import (
	"bytes"
	"context"

	gen "github.com/understudy-dev/understudy/gen/console"
)

type loginData struct {
	Next   string
	Failed bool
}

// ConsoleLoginPage asks for the admin token; a server without one, or a browser with a
// session already, goes straight on.
func (c *Console) ConsoleLoginPage(ctx context.Context, req gen.ConsoleLoginPageRequestObject) (gen.ConsoleLoginPageResponseObject, error) {
	r := requestOf(ctx)
	next := safeNext(req.Params.Next)
	if r.session.valid || !c.sessions.hasToken {
		return gen.ConsoleLoginPage303Response(c.opened(r, next)), nil
	}
	body, err := render(ctx, "login", page{Title: "Log in", Data: loginData{Next: next}})
	if err != nil {
		return nil, err
	}
	return gen.ConsoleLoginPage200TexthtmlResponse{ConsolePageTexthtmlResponse: html(body)}, nil
}

// ConsoleLogin opens a session when the token is the admin token.
func (c *Console) ConsoleLogin(ctx context.Context, req gen.ConsoleLoginRequestObject) (gen.ConsoleLoginResponseObject, error) {
	r := requestOf(ctx)
	next := safeNext(req.Body.Next)
	if !c.sessions.hasToken || c.sessions.allowsToken(req.Body.Token) {
		return gen.ConsoleLogin303Response(c.opened(r, next)), nil
	}
	body, err := render(ctx, "login", page{Title: "Log in", Data: loginData{Next: next, Failed: true}})
	if err != nil {
		return nil, err
	}
	return gen.ConsoleLogin401TexthtmlResponse{ConsoleErrorTexthtmlResponse: gen.ConsoleErrorTexthtmlResponse{Body: bytes.NewReader(body), ContentLength: int64(len(body))}}, nil
}

// opened is the redirect to next that sets a new session's cookie.
func (c *Console) opened(r *request, next string) gen.ConsoleSessionRedirectResponse {
	return gen.ConsoleSessionRedirectResponse{Headers: gen.ConsoleSessionRedirectResponseHeaders{
		Location: next, SetCookie: cookie(c.sessions.open(c.d.Now()), r.secure)}}
}

// ConsoleLogout clears the session cookie.
func (c *Console) ConsoleLogout(ctx context.Context, req gen.ConsoleLogoutRequestObject) (gen.ConsoleLogoutResponseObject, error) {
	if err := checkCSRF(ctx, req.Body.Csrf); err != nil {
		return nil, err
	}
	return gen.ConsoleLogout303Response{Headers: gen.ConsoleSessionRedirectResponseHeaders{
		Location: Base + "/login", SetCookie: cookie("", requestOf(ctx).secure)}}, nil
}

// html is a page's body as the generated responses take it.
func html(body []byte) gen.ConsolePageTexthtmlResponse {
	return gen.ConsolePageTexthtmlResponse{Body: bytes.NewReader(body), ContentLength: int64(len(body))}
}

// pageResponse renders a page, for the handlers' 200 answers.
func pageResponse(ctx context.Context, name string, p page) (gen.ConsolePageTexthtmlResponse, error) {
	body, err := render(ctx, name, p)
	if err != nil {
		return gen.ConsolePageTexthtmlResponse{}, err
	}
	return html(body), nil
}
