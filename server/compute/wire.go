package compute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/fieldsel"
)

// shapesOf are the shapes of the operations' 200 bodies, by operationId (as the
// validator's middlewares are keyed).
func shapesOf(doc *openapi3.T) map[string]*fieldsel.Shape {
	shapes := map[string]*fieldsel.Shape{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if r := op.Responses.Status(http.StatusOK); r != nil && r.Value != nil {
				if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					shapes[op.OperationID] = fieldsel.ShapeOf(mt.Schema.Value)
				}
			}
		}
	}
	return shapes
}

// partialResponse is Google's partial response for an operation whose 200 body has the
// shape shape returns (nil: none): with a fields parameter, a successful JSON answer keeps
// only the selected members.
// A selection the body cannot have is 400 before the handler runs, so nothing changes.
// Errors are never trimmed, as Google's are not. Without fields, nothing is buffered.
func partialResponse(shape func() *fieldsel.Shape) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			fields := c.QueryParams()["fields"]
			if len(fields) == 0 {
				return next(c)
			}
			sh := shape()
			if sh == nil {
				return next(c)
			}
			raw := strings.Join(fields, ",")
			sel, err := fieldsel.Parse(raw)
			if err == nil {
				err = sel.Check(sh)
			}
			if err != nil {
				return &Error{Status: http.StatusBadRequest, Reason: "invalidParameter", Message: err.Error(), Location: "fields", LocationType: gen.GoogleErrorItemLocationTypeParameter}
			}
			res := c.Response()
			orig := res.Writer
			buf := &bufferedWriter{header: orig.Header()}
			res.Writer = buf
			err = next(c)
			res.Writer = orig
			if !buf.wroteHeader {
				return err // nothing written: the error handler writes to orig
			}
			body := buf.body.Bytes()
			if buf.status/100 == 2 && isJSON(orig.Header().Get(echo.HeaderContentType)) {
				if trimmed, ok := trim(body, sel); ok {
					body = trimmed
				}
			}
			orig.Header().Del(echo.HeaderContentLength)
			orig.WriteHeader(buf.status)
			if _, werr := orig.Write(body); err == nil {
				err = werr
			}
			return err
		}
	}
}

// trim applies sel to a JSON body; false if it is not JSON.
func trim(body []byte, sel fieldsel.Selection) ([]byte, bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber() // ids and sizes keep their digits
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, false
	}
	var out bytes.Buffer
	if err := json.NewEncoder(&out).Encode(sel.Apply(doc)); err != nil {
		return nil, false
	}
	return out.Bytes(), true
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// bufferedWriter holds a response until it is trimmed; headers go straight to the real
// writer's map.
type bufferedWriter struct {
	header      http.Header
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(status int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = status, true
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// systemEnums are the allowed values of the system parameters (the discovery document's
// top-level parameters, which every method takes) that are enums and that no operation
// declares itself: the validator lets system parameters through unchecked.
var systemEnums = map[string][]string{"$.xgafv": {"1", "2"}}

// checkSystemParameters refuses a system parameter with a value it cannot take, as the
// validator refuses a declared one.
func checkSystemParameters(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		q := c.QueryParams()
		for name, allowed := range systemEnums {
			for _, v := range q[name] {
				if !slices.Contains(allowed, v) {
					return &Error{Status: http.StatusBadRequest, Reason: "invalid", Location: name, LocationType: gen.GoogleErrorItemLocationTypeParameter,
						Message: fmt.Sprintf("Invalid value for query parameter '%s': value is not one of the allowed values [\"%s\"]", name, strings.Join(allowed, `","`))}
				}
			}
		}
		return next(c)
	}
}
