package compute_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/internal/operations"
)

// batchPart is one request of a batch as the Google Cloud CLI (apitools) writes it: lines
// ending in a bare newline, no Content-Length, the body after a blank line.
type batchPart struct{ id, request string }

// sendBatch posts parts to /batch/compute/v1 with header and returns the status, the
// Content-Type and the body.
func sendBatch(t *testing.T, w *world, header http.Header, parts []batchPart) (int, string, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		pw, err := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/http"}, "Content-Transfer-Encoding": {"binary"}, "Content-ID": {"<" + p.id + ">"}})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(pw, p.request)
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, w.srv.URL+"/batch/compute/v1", &body)
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "multipart/mixed; boundary="+mw.Boundary())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// batchAnswer is one response of a batch's answer.
type batchAnswer struct {
	id     string
	status int
	body   []byte
}

// readBatch reads a batch's multipart/mixed answer.
func readBatch(t *testing.T, contentType string, body []byte) []batchAnswer {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("answer's Content-Type %q: %v", contentType, err)
	}
	var out []batchAnswer
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.Header.Get("Content-Type") != "application/http" {
			t.Errorf("part Content-Type %q", p.Header.Get("Content-Type"))
		}
		resp, err := http.ReadResponse(bufio.NewReader(p), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		out = append(out, batchAnswer{p.Header.Get("Content-ID"), resp.StatusCode, b})
	}
}

// TestBatch: /batch/compute/v1 serves each request of a multipart/mixed batch as if it had
// been sent alone (the batch's Authorization applying to each), and answers each, in order,
// in a part whose Content-ID is the request's prefixed "response-", as Google's batch
// endpoint does; a batch it cannot read is 400 in Google's envelope, and none of it is
// served.
func TestBatch(t *testing.T) {
	w := newWorld(t, operations.Mode{})
	for _, name := range []string{"fr-a", "fr-b"} {
		if status, b := w.raw("POST", "global/forwardingRules", `{"name":"`+name+`"}`); status != 200 {
			t.Fatalf("insert %s: %d %s", name, status, b)
		}
	}
	base := "/compute/v1/projects/" + apiProject + "/global/forwardingRules"
	auth := http.Header{"Authorization": {"Bearer t"}}
	status, ct, body := sendBatch(t, w, auth, []batchPart{
		{"abc+1", "DELETE " + base + "/fr-a?alt=json HTTP/1.1\nContent-Type: application/json\nMIME-Version: 1.0\nHost: example\n\n"},
		{"abc+2", "DELETE " + base + "/fr-b?alt=json HTTP/1.1\nContent-Type: application/json\n\n"},
		{"abc+3", "POST " + base + "?alt=json HTTP/1.1\nContent-Type: application/json\n\n{\"name\":\"fr-c\"}"},
		{"abc+4", "GET " + base + "/fr-none HTTP/1.1\n\n"},
		{"abc+5", "POST " + base + " HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"name\":\"1\"}\n"},
	})
	if status != 200 {
		t.Fatalf("batch: %d %s", status, body)
	}
	answers := readBatch(t, ct, body)
	want := []struct {
		id     string
		status int
		has    string
	}{
		{"<response-abc+1>", 200, `"operationType":"delete"`},
		{"<response-abc+2>", 200, `"operationType":"delete"`},
		{"<response-abc+3>", 200, `"operationType":"insert"`},
		{"<response-abc+4>", 404, `was not found`},
		{"<response-abc+5>", 400, `"code":400`},
	}
	if len(answers) != len(want) {
		t.Fatalf("%d answers, want %d: %s", len(answers), len(want), body)
	}
	for i, a := range answers {
		if a.id != want[i].id || a.status != want[i].status || !strings.Contains(string(a.body), want[i].has) || !json.Valid(a.body) {
			t.Errorf("answer %d: %s %d %s, want %s %d with %s", i+1, a.id, a.status, a.body, want[i].id, want[i].status, want[i].has)
		}
	}
	if status, b := w.raw("GET", "global/forwardingRules/fr-c", ""); status != 200 {
		t.Errorf("the rule the batch inserted: %d %s", status, b)
	}

	// Without the batch's Authorization, each request is refused as it would be alone.
	status, ct, body = sendBatch(t, w, nil, []batchPart{{"x", "GET " + base + "/fr-c HTTP/1.1\n\n"}})
	if answers := readBatch(t, ct, body); status != 200 || len(answers) != 1 || answers[0].status != 401 {
		t.Errorf("unauthenticated batch: %d %+v", status, answers)
	}

	for name, parts := range map[string][]batchPart{
		"a part that is no HTTP request": {{"1", "DELETE " + base + "/fr-c HTTP/1.1\n\n"}, {"2", "hello"}},
		"a batch inside a batch":         {{"1", "DELETE " + base + "/fr-c HTTP/1.1\n\n"}, {"2", "POST /batch/compute/v1 HTTP/1.1\n\n"}},
		"a request of another API":       {{"1", "DELETE " + base + "/fr-c HTTP/1.1\n\n"}, {"2", "GET /v2/core/accounts HTTP/1.1\n\n"}},
	} {
		status, _, b := sendBatch(t, w, auth, parts)
		if e := wantGoogleError(t, status, b, 400, "badRequest"); e.Message == "" {
			t.Errorf("%s: %d %s", name, status, b)
		}
	}
	if status, b := w.raw("GET", "global/forwardingRules/fr-c", ""); status != 200 {
		t.Errorf("a refused batch served some of its requests: fr-c is %d %s", status, b)
	}
	req, _ := http.NewRequest(http.MethodPost, w.srv.URL+"/batch/compute/v1", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantGoogleError(t, resp.StatusCode, b, 400, "badRequest")
}
