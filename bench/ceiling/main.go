// Command ceiling is the Echo+kin server the benchmark harness (../) compares understudy
// with besides the bare Echo baseline: the ceiling of understudy's stack. Every operation of
// the authorization, accounts and compute specs has its route, which runs kin-openapi's
// openapi3filter.ValidateRequest on the request, as understudy validates it (the embedded
// specs as understudy loads them, validate.Load; the options it gives kin,
// validate.KinOptions: the route fixed per operation, the request only, no defaults filled
// in, the validated value kept, the specs' formats), then answers the baseline's constant
// reply for the method (../internal/answers). A request kin refuses gets a constant 400.
// It keeps no state and checks nothing else: no authentication, no handler, no store.
//
// ARM scopes span many path segments, which one Echo route parameter cannot: paths are
// rewritten before routing by understudy's own authorization.RewritePath, as understudy
// routes them.
//
// It logs one JSON line with "addr" on stderr once it listens (like understudy) and stops
// on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/understudy-dev/understudy/bench/internal/answers"
	accountsgen "github.com/understudy-dev/understudy/gen/accounts"
	authzgen "github.com/understudy-dev/understudy/gen/authorization"
	computegen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/validate"
)

// refused is the answer to a request kin refuses.
const refused = `{"error":{"code":"InvalidRequest","message":"the request does not match the spec"}}`

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on; a port of 0 picks a free one")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))

	e, err := newHandler()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ceiling:", err)
		os.Exit(2)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ceiling:", err)
		os.Exit(2)
	}
	// The same server timeouts as understudy's.
	hs := &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	log.Info("ceiling listening", "addr", ln.Addr().String())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "ceiling:", err)
		os.Exit(1)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdownCtx)
}

// newHandler is the ceiling's Echo instance: a route per operation of the three APIs.
func newHandler() (*echo.Echo, error) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Pre(authorization.RewritePath)
	// What the harness waits for before it starts (understudy's own is in the admin spec).
	e.GET("/_understudy/health", func(c echo.Context) error { return c.JSONBlob(http.StatusOK, []byte(`{"status":"ok"}`)) })
	// Each API with the options understudy validates it with (its server.go's Register).
	for _, api := range []struct {
		name string
		raw  func() ([]byte, error)
		opts validate.Options
	}{
		{"authorization", authzgen.GetSpecJSON, validate.Options{AllowReadOnly: true}},
		{"accounts", accountsgen.GetSpecJSON, validate.Options{}},
		{"compute", computegen.GetSpecJSON, validate.Options{AllowReadOnly: true}},
	} {
		doc, err := validate.Load(api.name, api.raw)
		if err != nil {
			return nil, err
		}
		opts := validate.KinOptions(api.opts)
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				kinOp := *op
				kinOp.Security = &openapi3.SecurityRequirements{} // understudy authenticates before kin
				rt := &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: &kinOp}
				status, body := answers.For(method)
				e.Add(method, echoPath(path), validated(rt, opts, status, []byte(body)))
			}
		}
	}
	return e, nil
}

// validated is the handler of the operation rt: kin's ValidateRequest, then the constant
// answer.
func validated(rt *routers.Route, opts *openapi3filter.Options, status int, body []byte) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		names, values := c.ParamNames(), c.ParamValues()
		params := make(map[string]string, len(names))
		for i, name := range names {
			v := values[i]
			if req.URL.RawPath != "" { // routed on the escaped path: its values are escaped
				if u, err := url.PathUnescape(v); err == nil {
					v = u
				}
			}
			params[name] = v
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, QueryParams: c.QueryParams(), Route: rt, Options: opts}
		if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
			return c.JSONBlob(http.StatusBadRequest, []byte(refused))
		}
		return c.JSONBlob(status, body)
	}
}

// echoPath is an OpenAPI path as Echo routes it: /a/{b} is /a/:b.
func echoPath(path string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '{')
		j := strings.IndexByte(path, '}')
		if i < 0 || j < i {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i] + ":" + path[i+1:j])
		path = path[j+1:]
	}
}
