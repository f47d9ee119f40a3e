package validate

import (
	"fmt"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/labstack/echo/v4"
)

// Operation is one operation an OpenAPI document declares: its method (upper case), its
// path template, its operationId and its tags.
type Operation struct {
	Method, Path, ID string
	Tags             []string
}

// Operations lists the operations of an OpenAPI document (its JSON, which raw returns, as
// the generated GetSpecJSON does) without parsing the document with kin-openapi: what
// routing, naming requests and registering middleware need at start, in a fraction of the
// time and memory a parsed document takes.
func Operations(raw func() ([]byte, error)) ([]Operation, error) {
	data, err := raw()
	if err != nil {
		return nil, err
	}
	var doc struct {
		Paths map[string]map[string]jsontext.Value `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("validate: the document's paths: %w", err)
	}
	var out []Operation
	for path, item := range doc.Paths {
		for method, v := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
			default:
				continue // parameters, summary, servers: not operations
			}
			var op struct {
				ID   string   `json:"operationId"`
				Tags []string `json:"tags"`
			}
			if err := json.Unmarshal(v, &op); err != nil {
				return nil, fmt.Errorf("validate: %s %s: %w", method, path, err)
			}
			if op.ID == "" {
				return nil, fmt.Errorf("validate: %s %s has no operationId", method, path)
			}
			out = append(out, Operation{Method: strings.ToUpper(method), Path: path, ID: op.ID, Tags: op.Tags})
		}
	}
	return out, nil
}

// Deferred is validation made on the first request that needs it: the API's spec is parsed
// then, not at start, so that starting costs milliseconds and an API nobody calls costs no
// memory. Its middleware is registered at start, for the operations the document declares
// (Operations).
type Deferred struct {
	ops  []Operation
	load func() (*Validator, error)
}

// Defer returns validation of ops made by load, called once, on the first request (its
// error, which an embedded spec's tests rule out, answers every request).
func Defer(ops []Operation, load func() (*Validator, error)) *Deferred {
	return &Deferred{ops: ops, load: sync.OnceValues(load)}
}

// Middlewares is Validator.Middlewares, for every operation of the document.
func (d *Deferred) Middlewares(extra ...echo.MiddlewareFunc) map[string][]echo.MiddlewareFunc {
	m := make(map[string][]echo.MiddlewareFunc, len(d.ops))
	for _, op := range d.ops {
		m[op.ID] = append(append([]echo.MiddlewareFunc(nil), extra...), d.middleware(op.ID))
	}
	return m
}

// middleware validates a request of operation id once the validation is made: the chain
// after it is built then, once.
func (d *Deferred) middleware(id string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		checked := sync.OnceValues(func() (echo.HandlerFunc, error) {
			v, err := d.load()
			if err != nil {
				return nil, err
			}
			route, ok := v.routes[id]
			if !ok {
				return nil, fmt.Errorf("validate: the parsed spec has no operation %q", id)
			}
			return v.middleware(route)(next), nil
		})
		return func(c echo.Context) error {
			h, err := checked()
			if err != nil {
				return err
			}
			return h(c)
		}
	}
}
