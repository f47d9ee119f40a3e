package compute

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/labstack/echo/v4"
)

// batchPath is where Google's clients send batched compute requests: the Google Cloud CLI
// sends one when a command names several resources (forwarding-rules delete A B).
const batchPath = "/batch/compute/v1"

// maxBatchParts is the most requests one batch may hold, as Google's batch endpoint allows.
const maxBatchParts = 1000

// batch serves Google's batch endpoint: a multipart/mixed body whose parts are each one
// HTTP request (Content-Type: application/http), answered multipart/mixed with each
// request's HTTP response, in order, in a part whose Content-ID is "response-" and the
// request part's. Each request is served by api, the compute API's own Echo instance, as
// if it had been sent alone (its authentication, validation and handler; the log, the
// journal and the metrics count it as a request of its own), and carries the batch
// request's headers but for its Content-* ones, unless it gives its own, as Google's batch
// endpoint has it.
func batch(api *echo.Echo) echo.HandlerFunc {
	return func(c echo.Context) error {
		outer := c.Request()
		mt, params, err := mime.ParseMediaType(outer.Header.Get(echo.HeaderContentType))
		if err != nil || mt != "multipart/mixed" || params["boundary"] == "" {
			return batchError("A batch request must be multipart/mixed, with a boundary, and hold one HTTP request in each part.")
		}
		// Every part is read before any is served: a batch that cannot be read is refused
		// whole.
		type call struct {
			id  string
			req *http.Request
		}
		var calls []call
		parts := multipart.NewReader(outer.Body, params["boundary"])
		for n := 0; ; n++ {
			part, err := parts.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return batchError("The batch request's body is not well-formed multipart/mixed: " + err.Error())
			}
			if n == maxBatchParts {
				return batchError(fmt.Sprintf("A batch request holds at most %d requests.", maxBatchParts))
			}
			if ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); ct != "application/http" {
				return batchError(fmt.Sprintf("Part %d of the batch request is not application/http.", n+1))
			}
			inner, err := innerRequest(outer, part)
			if err != nil {
				return batchError(fmt.Sprintf("Part %d of the batch request is not an HTTP request: %v", n+1, err))
			}
			if !strings.HasPrefix(inner.URL.Path, "/compute/") {
				return batchError(fmt.Sprintf("Part %d of the batch request is not a request of the compute API.", n+1))
			}
			calls = append(calls, call{part.Header.Get("Content-ID"), inner})
		}
		var out bytes.Buffer
		mw := multipart.NewWriter(&out)
		for _, call := range calls {
			rw := &bufferedWriter{header: http.Header{}}
			api.ServeHTTP(rw, call.req)
			if err := writeBatchPart(mw, call.id, rw); err != nil {
				return err
			}
		}
		if err := mw.Close(); err != nil {
			return err
		}
		return c.Blob(http.StatusOK, "multipart/mixed; boundary="+mw.Boundary(), out.Bytes())
	}
}

// innerRequest reads the HTTP request a batch part holds, body and all. Without a
// Content-Length (Google's clients give none) its body is what follows its headers. The batch request's headers apply
// where the part does not give its own, but for the Content-* ones, which are the part's
// alone.
func innerRequest(outer *http.Request, part io.Reader) (*http.Request, error) {
	br := bufio.NewReader(part)
	inner, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	// Read whole now: the part can no longer be read once the next one is.
	body := io.Reader(inner.Body)
	if inner.ContentLength <= 0 && len(inner.TransferEncoding) == 0 {
		body = br
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	inner.Body, inner.ContentLength = http.NoBody, 0
	if len(data) > 0 {
		inner.Body, inner.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		inner.TransferEncoding = nil
	}
	for name, values := range outer.Header {
		if _, own := inner.Header[name]; !own && !strings.HasPrefix(name, "Content-") {
			inner.Header[name] = values
		}
	}
	inner.Host, inner.RemoteAddr, inner.TLS = outer.Host, outer.RemoteAddr, outer.TLS
	inner.RequestURI = ""
	return inner.WithContext(outer.Context()), nil
}

// writeBatchPart writes one response of a batch, rw's, as a part of mw: the HTTP response
// as application/http, with the Content-ID of its request's part prefixed "response-".
func writeBatchPart(mw *multipart.Writer, contentID string, rw *bufferedWriter) error {
	h := textproto.MIMEHeader{"Content-Type": {"application/http"}}
	if id := strings.Trim(contentID, "<>"); id != "" {
		h.Set("Content-ID", "<response-"+id+">")
	}
	w, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	status := rw.status
	if !rw.wroteHeader {
		status = http.StatusOK
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	rw.header.Del("Content-Length")
	if err := rw.header.Write(&b); err != nil {
		return err
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", rw.body.Len())
	b.Write(rw.body.Bytes())
	_, err = w.Write(b.Bytes())
	return err
}

// batchError is a batch request the endpoint cannot read: 400, and nothing of it is served.
func batchError(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Reason: "badRequest", Message: msg}
}
