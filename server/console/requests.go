package console

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/console"
	"github.com/understudy-dev/understudy/server/control"
)

// filter is the requests page's filters.
type filter struct {
	API, Status, OperationID, Q string
}

func filterOf(api *string, status *gen.ConsoleStatus, op *gen.ConsoleOperation, q *gen.ConsoleText) filter {
	var f filter
	if api != nil {
		f.API = *api
	}
	if status != nil {
		f.Status = *status
	}
	if op != nil {
		f.OperationID = strings.TrimSpace(*op)
	}
	if q != nil {
		f.Q = strings.TrimSpace(*q)
	}
	return f
}

// query is the filters as a query string.
func (f filter) query() string {
	var parts []string
	for _, kv := range [][2]string{{"api", f.API}, {"status", f.Status}, {"operationId", f.OperationID}, {"q", f.Q}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+urlQueryEscape(kv[1]))
		}
	}
	return strings.Join(parts, "&")
}

// keeps says whether an entry passes the filters. A status class (4xx) takes its hundred.
func (f filter) keeps(e control.Entry) bool {
	if f.API != "" && e.API != f.API || f.OperationID != "" && e.OperationID != f.OperationID {
		return false
	}
	if f.Status != "" {
		s := strconv.Itoa(e.Status)
		if strings.HasSuffix(f.Status, "xx") {
			if e.Status < 100 || s[0] != f.Status[0] {
				return false
			}
		} else if s != f.Status {
			return false
		}
	}
	if f.Q == "" {
		return true
	}
	q := strings.ToLower(f.Q)
	hay := []string{e.Method, e.Path, e.OperationID, e.RequestID}
	if x := e.Exchange; x != nil {
		hay = append(hay, x.Query, string(x.RequestBody.Data), string(x.ResponseBody.Data))
	}
	if d := e.Delivery; d != nil {
		hay = append(hay, d.Destination, d.Error)
	}
	for _, h := range hay {
		if strings.Contains(strings.ToLower(h), q) {
			return true
		}
	}
	return false
}

type requestsData struct {
	Filter   filter
	Query    string
	Entries  []control.Entry
	Shown    int
	Journal  int // entries the journal holds
	APIs     []string
	Statuses []string
}

// maxRows is how many entries the requests page lists.
const maxRows = 300

// ConsoleRequests is the journal, newest first, filtered.
func (c *Console) ConsoleRequests(ctx context.Context, req gen.ConsoleRequestsRequestObject) (gen.ConsoleRequestsResponseObject, error) {
	p := req.Params
	f := filterOf((*string)(p.Api), p.Status, p.OperationId, p.Q)
	all := c.d.Journal.List(control.Filter{Limit: control.DefaultJournalSize})
	d := requestsData{Filter: f, Query: f.query(), Journal: len(all), APIs: []string{"authorization", "accounts", "compute"},
		Statuses: []string{"2xx", "3xx", "4xx", "5xx"}}
	for _, e := range all {
		if f.keeps(e) && len(d.Entries) < maxRows {
			d.Entries = append(d.Entries, e)
		}
	}
	body, err := pageResponse(ctx, "requests", c.page("Requests", "requests", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleRequests200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

// page is a page of the console with the capture window filled in.
func (c *Console) page(title, nav string, data any) page {
	return page{Title: title, Nav: nav, Data: data, Capturing: c.d.Journal.CapturingUntil()}
}

// keepAlive is how often a live view says something when nothing happens, so that proxies
// keep the connection and the journal keeps capturing.
const keepAlive = 15 * time.Second

// ConsoleRequestEvents streams the entries journaled from now on that pass the filters,
// each as a `request` event holding its table row.
func (c *Console) ConsoleRequestEvents(ctx context.Context, req gen.ConsoleRequestEventsRequestObject) (gen.ConsoleRequestEventsResponseObject, error) {
	p := req.Params
	f := filterOf((*string)(p.Api), p.Status, p.OperationId, p.Q)
	entries, stop := c.d.Journal.Subscribe()
	s := &stream{ctx: ctx, c: c, f: f, entries: entries, stop: stop, tick: time.NewTicker(keepAlive)}
	s.buf.WriteString("retry: 2000\n: connected\n\n")
	// A browser reconnecting (the server's write timeout ends a stream) says which entry it
	// saw last: those journaled since come first, so that none is missed. Subscribed first,
	// listed second: an entry in both is sent once (s.last).
	if last := requestOf(ctx).lastEventID; last > 0 {
		missed := c.d.Journal.List(control.Filter{Limit: control.DefaultJournalSize})
		for i := len(missed) - 1; i >= 0; i-- {
			if e := missed[i]; e.Seq > last {
				if err := s.send(e); err != nil {
					s.end()
					return nil, err
				}
			}
		}
	}
	return gen.ConsoleRequestEvents200TexteventStreamResponse{Body: s}, nil
}

// stream is the live view's body: Read blocks until an entry passes the filters, the
// keep-alive is due, or the request or the server ends (io.EOF). The generated response
// flushes after each Read.
type stream struct {
	ctx     context.Context
	c       *Console
	f       filter
	entries <-chan control.Entry
	stop    func()
	tick    *time.Ticker
	buf     bytes.Buffer
	ended   bool
	// last is the number of the last entry sent.
	last uint64
}

// send writes e as a `request` event, its id its number, if it passes the filters and was
// not sent already.
func (s *stream) send(e control.Entry) error {
	if e.Seq <= s.last || !s.f.keeps(e) {
		return nil
	}
	row, err := renderPart("row", e)
	if err != nil {
		return err
	}
	s.last = e.Seq
	s.buf.WriteString("event: request\nid: " + strconv.FormatUint(e.Seq, 10) + "\n")
	for _, line := range strings.Split(strings.TrimSpace(string(row)), "\n") {
		s.buf.WriteString("data: " + line + "\n")
	}
	s.buf.WriteString("\n")
	return nil
}

func (s *stream) Read(p []byte) (int, error) {
	for s.buf.Len() == 0 {
		if s.ended {
			return 0, io.EOF
		}
		select {
		case e := <-s.entries:
			if err := s.send(e); err != nil {
				return 0, err
			}
		case <-s.tick.C:
			s.c.d.Journal.Capture(s.c.d.Now().Add(watchWindow))
			s.buf.WriteString(": keep-alive\n\n")
		case <-s.ctx.Done():
			s.end()
		case <-s.c.done:
			s.end()
		}
	}
	return s.buf.Read(p)
}

func (s *stream) end() {
	s.ended = true
	s.stop()
	s.tick.Stop()
}

// Close ends the subscription when the response is done with the body.
func (s *stream) Close() error {
	if !s.ended {
		s.end()
	}
	return nil
}

type requestData struct {
	Entry        control.Entry
	Curl         string
	CurlComplete bool
}

// ConsoleRequest is one journal entry, with a curl command that sends it again.
func (c *Console) ConsoleRequest(ctx context.Context, req gen.ConsoleRequestRequestObject) (gen.ConsoleRequestResponseObject, error) {
	e, ok := c.d.Journal.Get(uint64(req.Seq))
	if !ok {
		return nil, &pageError{Status: http.StatusNotFound, Message: "The journal no longer holds request " + strconv.FormatInt(req.Seq, 10) + " (it keeps the last " + strconv.Itoa(control.DefaultJournalSize) + ")."}
	}
	d := requestData{Entry: e}
	d.Curl, d.CurlComplete = curl(requestOf(ctx).base, e)
	body, err := pageResponse(ctx, "request", c.page(e.Method+" "+e.Path, "requests", d))
	if err != nil {
		return nil, err
	}
	return gen.ConsoleRequest200TexthtmlResponse{ConsolePageTexthtmlResponse: body}, nil
}

// curlSkip are the request headers a curl command leaves to curl.
var curlSkip = map[string]bool{"Content-Length": true, "Accept-Encoding": true, "Connection": true, "User-Agent": true, "Host": true}

// curl is a command that sends the request again, its credential as $TOKEN (never
// recorded), to the server at base (scheme://host, as the console was reached); complete
// says it carries all that was sent (the body whole, the headers and query captured).
func curl(base string, e control.Entry) (cmd string, complete bool) {
	if e.Delivery != nil {
		return "", false // an attempt understudy made, not a request it served
	}
	x := e.Exchange
	target := base + e.Path
	complete = x != nil
	if x != nil {
		if x.Host != "" {
			target = base[:strings.Index(base, "://")+3] + x.Host + e.Path
		}
		if x.Query != "" {
			target += "?" + x.Query
			complete = complete && !strings.Contains(x.Query, urlQueryEscape(control.Masked))
		}
	}
	var b strings.Builder
	b.WriteString("curl -X " + e.Method + " " + shellQuote(target))
	if !strings.HasPrefix(e.Path, "/r/") {
		b.WriteString(" \\\n  -H \"Authorization: Bearer $TOKEN\"")
	}
	if x != nil {
		hs := append([]control.Header{}, x.RequestHeaders...)
		sort.SliceStable(hs, func(i, j int) bool { return hs[i].Name < hs[j].Name })
		for _, h := range hs {
			if !curlSkip[h.Name] {
				b.WriteString(" \\\n  -H " + shellQuote(h.Name+": "+h.Value))
			}
		}
		if len(x.RequestBody.Data) > 0 {
			b.WriteString(" \\\n  --data-raw " + shellQuote(string(x.RequestBody.Data)))
			complete = complete && !x.RequestBody.Truncated && !bytes.Contains(x.RequestBody.Data, []byte(control.Masked))
		}
	}
	return b.String(), complete
}

// shellQuote quotes s for a POSIX shell: in single quotes, each ' closed, escaped and
// reopened.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
