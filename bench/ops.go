package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// An operation is one seed workload: a setup run once against understudy, and a driver
// that generates its requests on the fly for one run against a base URL.
type operation struct {
	key   string // for -ops
	title string // table row of the main group
	how   string // printed under "How each operation is driven"
	// groups are the table rows, by the group name done returns; the first is the main row.
	// nil means one group, "".
	groups []group
	setup  func(ctx context.Context, w *world) error
	driver func(w *world, base string, target bool) *driver
}

type group struct{ name, title string }

// A driver feeds one vegeta attack. next must be safe for concurrent use (vegeta calls it
// from every worker); done and check are called from the single goroutine that reads the
// results, in order of arrival.
type driver struct {
	next func(t *vegeta.Target) error
	// done files a result under a group ("" when the operation has one) and may update
	// state (the setLabels chain learns fingerprints there). Nil: every result is "".
	done func(r *vegeta.Result) string
	// check judges a 2xx answer from understudy: "" if it is what the operation expects,
	// else a short kind ("200 instead of 201", "operation failed: X"). Nil: any 2xx is fine.
	check func(r *vegeta.Result) string
}

// world is the state the operations share: fixed names made at setup, counters for fresh
// names, and the plain client used for setup.
type world struct {
	hc       *http.Client
	target   string // understudy's base URL
	accounts int    // how many accounts to create for account links
	rules    int    // how many forwarding rules carry setLabels chains

	salt  [4]uint64 // random per harness run: fresh names never collide with an earlier run's
	count atomic.Uint64

	accountIDs []string // created at setup
	ruleNames  []string // created at setup (bench-project-2)
	attachURLs []string // created at setup (bench-project-3), held by group g-bench-held
}

func newWorld(hc *http.Client, target string, accounts, rules int) *world {
	w := &world{hc: hc, target: target, accounts: accounts, rules: rules}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	for i := range w.salt {
		w.salt[i] = binary.LittleEndian.Uint64(b[i*8:])
	}
	return w
}

// next is a fresh number, never the same twice in one harness run.
func (w *world) next() uint64 { return w.count.Add(1) }

// uuidOf is a version 4 shaped UUID, unique per (salt, n): cheaper than crypto randomness
// on the load generator's core, and as fresh for the server.
func uuidOf(salt, n uint64) string {
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", uint32(salt>>32), uint16(salt>>16), salt&0xfff,
		0x8000|(n>>48)&0x3fff, n&0xffffffffffff)
}

// nameOf is a fresh lowercase resource name (RFC 1035, under 63 characters).
func (w *world) nameOf(prefix string, n uint64) string {
	return prefix + strconv.FormatUint(w.salt[3]&0xffffffff, 36) + "-" + strconv.FormatUint(n, 36)
}

var (
	jsonHeaders = http.Header{"Authorization": {"Bearer bench-token"}, "Content-Type": {"application/json"}}
	acctHeaders = http.Header{"Authorization": {"Bearer sk_test_bench1"}, "Service-Version": {"2026-05-27.dahlia"},
		"Content-Type": {"application/json"}}
)

const (
	readerRole   = "acdd72a7-3385-48ef-bd42-f606fba81ae7" // built-in Reader
	insertProj   = "bench-project-1"                      // forwarding-rule inserts
	labelsProj   = "bench-project-2"                      // setLabels chains
	groupsProj   = "bench-project-3"                      // interconnects, attachments, groups
	perSub       = 1000                                   // role assignments per subscription (limit 4000)
	perRG        = 100                                    // role assignments per resource group
	opInUse      = "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE"
	linkBodyTmpl = `{"account":"%s","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh","return_url":"https://example.com/return"}}}`
)

func operations() []*operation {
	return []*operation{
		{
			key: "roleassign", title: "role-assignment PUT (create)",
			how: "PUT /subscriptions/{sid}/resourceGroups/rg-{n}/providers/Vendor.Authorization/roleAssignments/{fresh uuid}?api-version=2022-04-01 " +
				"with a fresh principalId and the built-in Reader role, so every request creates (201 expected; 200 would be an update). " +
				"A new subscription every 1000 requests, a new resource group every 100 (the per-subscription limit is 4000).",
			driver: roleAssignDriver,
		},
		{
			key: "accountcreate", title: "account create",
			how: "POST /v2/core/accounts with a fresh display name and the recipient configuration requesting stripe_transfers: " +
				"each creates an account with its requirements and its account.created event.",
			driver: accountCreateDriver,
		},
		{
			key: "accountlink", title: "account-link POST",
			how: "Setup creates N accounts with the recipient configuration (-accounts, default 2000, 8 at a time). " +
				"POST /v2/core/account_links (account_onboarding, configurations [recipient]) round-robin over them, no Idempotency-Key. " +
				"The per-account limit is 1 update in flight: with 64 connections over 2000 accounts collisions should be rare; " +
				"429s are listed under errors.",
			setup: setupAccounts, driver: accountLinkDriver,
		},
		{
			key: "frinsert", title: "forwarding-rule insert",
			how: "POST /compute/v1/projects/" + insertProj + "/global/forwardingRules?requestId={fresh uuid} with a fresh name and portRange 443-443; " +
				"operations are immediate, so each answer is a DONE Operation (checked: no error inside).",
			driver: ruleInsertDriver,
		},
		{
			key: "setlabels", title: "setLabels (GET→setLabels chain)",
			groups: []group{{"setLabels", "setLabels (GET→setLabels chain)"}, {"GET", "↳ GET rule (same chain)"}},
			how: "Setup inserts N rules in " + labelsProj + " (-rules, default 512). setLabels needs the current labelFingerprint, which only a GET returns " +
				"(setLabels answers an Operation), so each rule alternates GET (learn the fingerprint) and setLabels (new label value, that fingerprint); " +
				"a rule is used by one request at a time (a queue of free rules). Both halves run in one attack; the setLabels row counts only the " +
				"setLabels requests (its req/s is setLabels completed per second, about half the chain's total) and the GET row the GETs. " +
				"A 412 would mean the chain lost track of a fingerprint.",
			setup: setupRules, driver: setLabelsDriver,
		},
		{
			key: "groupinsert", title: "attachment-group insert (empty, NO_SLA)",
			how: "Setup builds 2 interconnects (iad-zone1-1, iad-zone2-1), 2 attachments in us-east4 and group g-bench-held holding both, in " + groupsProj + ". " +
				"Then POST .../global/interconnectAttachmentGroups?requestId={fresh uuid} with a fresh name, intent NO_SLA and no attachments: " +
				"measures accepting and creating a group (name check, requestId record, operation) without attachment checks; " +
				"SLA analysis runs only on reads, so it is not measured here.",
			setup: setupInterconnects, driver: groupInsertDriver(false),
		},
		{
			key: "groupheld", title: "attachment-group insert (held attachments)",
			how: "POST groups with a fresh name, intent PRODUCTION_CRITICAL and the 2 attachments already held by g-bench-held: " +
				"the accept path with attachment lookups and claim checks; every answer is a DONE Operation that failed with " +
				opInUse + " (expected, checked) and nothing is created.",
			setup: setupInterconnects, driver: groupInsertDriver(true),
		},
	}
}

func roleAssignDriver(w *world, base string, target bool) *driver {
	return &driver{
		next: func(t *vegeta.Target) error {
			n := w.next()
			sub := uuidOf(w.salt[0], n/perSub)
			t.Method = http.MethodPut
			t.URL = base + "/subscriptions/" + sub + "/resourceGroups/rg-" + strconv.FormatUint(n/perRG, 10) +
				"/providers/Vendor.Authorization/roleAssignments/" + uuidOf(w.salt[1], n) + "?api-version=2022-04-01"
			t.Body = []byte(`{"properties":{"principalId":"` + uuidOf(w.salt[2], n) + `","roleDefinitionId":"/subscriptions/` + sub +
				`/providers/Vendor.Authorization/roleDefinitions/` + readerRole + `"}}`)
			t.Header = jsonHeaders
			return nil
		},
		check: func(r *vegeta.Result) string {
			if r.Code != http.StatusCreated {
				return strconv.Itoa(int(r.Code)) + " instead of 201 (not a create)"
			}
			return ""
		},
	}
}

// accountBodyTmpl is an account with the recipient configuration requesting transfers, as
// the account-link setup makes them.
const accountBodyTmpl = `{"display_name":"Bench %d","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`

func accountCreateDriver(w *world, base string, target bool) *driver {
	return &driver{
		next: func(t *vegeta.Target) error {
			t.Method = http.MethodPost
			t.URL = base + "/v2/core/accounts"
			t.Body = fmt.Appendf(nil, accountBodyTmpl, w.next())
			t.Header = acctHeaders
			return nil
		},
		check: func(r *vegeta.Result) string {
			if !bytes.Contains(r.Body, []byte(`"id":"acct_`)) {
				return "no account id"
			}
			return ""
		},
	}
}

func accountLinkDriver(w *world, base string, target bool) *driver {
	ids := w.accountIDs
	if !target {
		// The baseline holds no state: the same request shape with made-up ids.
		ids = make([]string, w.accounts)
		for i := range ids {
			ids[i] = fmt.Sprintf("acct_bench%010d", i)
		}
	}
	var rr atomic.Uint64
	return &driver{
		next: func(t *vegeta.Target) error {
			if len(ids) == 0 {
				return errors.New("no accounts")
			}
			t.Method = http.MethodPost
			t.URL = base + "/v2/core/account_links"
			t.Body = fmt.Appendf(nil, linkBodyTmpl, ids[rr.Add(1)%uint64(len(ids))])
			t.Header = acctHeaders
			return nil
		},
	}
}

func ruleInsertDriver(w *world, base string, target bool) *driver {
	return &driver{
		next: func(t *vegeta.Target) error {
			n := w.next()
			t.Method = http.MethodPost
			t.URL = base + "/compute/v1/projects/" + insertProj + "/global/forwardingRules?requestId=" + uuidOf(w.salt[0], n)
			t.Body = []byte(`{"name":"` + w.nameOf("fr-", n) + `","portRange":"443-443"}`)
			t.Header = jsonHeaders
			return nil
		},
		check: checkDoneOperation(""),
	}
}

// rule is one setLabels chain: its state is touched only by the goroutine that holds it
// (taken from the free queue by next, put back by done).
type rule struct {
	name   string
	fp     string // the fingerprint last read; "" means GET next
	labels uint64
}

func setLabelsDriver(w *world, base string, target bool) *driver {
	free := make(chan *rule, len(w.ruleNames))
	byPath := make(map[string]*rule, len(w.ruleNames))
	prefix := base + "/compute/v1/projects/" + labelsProj + "/global/forwardingRules/"
	for _, name := range w.ruleNames {
		r := &rule{name: name}
		free <- r
		byPath[prefix+name] = r
	}
	return &driver{
		next: func(t *vegeta.Target) error {
			var r *rule
			select {
			case r = <-free:
			case <-time.After(10 * time.Second):
				return errors.New("setLabels chain: no free rule for 10s")
			}
			t.Header = jsonHeaders
			if r.fp == "" {
				t.Method, t.URL, t.Body = http.MethodGet, prefix+r.name, nil
				return nil
			}
			r.labels++
			t.Method, t.URL = http.MethodPost, prefix+r.name+"/setLabels"
			t.Body = []byte(`{"labels":{"bench":"v` + strconv.FormatUint(r.labels, 10) + `","team":"perf"},"labelFingerprint":"` + r.fp + `"}`)
			return nil
		},
		done: func(res *vegeta.Result) string {
			path, isSet := strings.CutSuffix(res.URL, "/setLabels")
			r := byPath[path]
			if r == nil { // cannot happen: every URL comes from next
				return "GET"
			}
			defer func() { free <- r }()
			if isSet {
				r.fp = "" // read the new fingerprint before the next setLabels
				return "setLabels"
			}
			var body struct{ LabelFingerprint string }
			if res.Code == http.StatusOK && json.Unmarshal(res.Body, &body) == nil {
				r.fp = body.LabelFingerprint
			}
			return "GET"
		},
		check: func(res *vegeta.Result) string {
			if strings.HasSuffix(res.URL, "/setLabels") {
				return checkDoneOperation("")(res)
			}
			if !bytes.Contains(res.Body, []byte(`"labelFingerprint"`)) {
				return "GET without labelFingerprint"
			}
			return ""
		},
	}
}

func groupInsertDriver(held bool) func(w *world, base string, target bool) *driver {
	return func(w *world, base string, target bool) *driver {
		var atts string
		if held {
			urls := w.attachURLs
			if !target || len(urls) < 2 {
				urls = []string{base + "/a0", base + "/a1"} // the baseline does not look
			}
			atts = `,"attachments":{"a0":{"attachment":"` + urls[0] + `"},"a1":{"attachment":"` + urls[1] + `"}}`
		}
		intent := "NO_SLA"
		want := ""
		if held {
			intent, want = "PRODUCTION_CRITICAL", opInUse
		}
		return &driver{
			next: func(t *vegeta.Target) error {
				n := w.next()
				t.Method = http.MethodPost
				t.URL = base + "/compute/v1/projects/" + groupsProj + "/global/interconnectAttachmentGroups?requestId=" + uuidOf(w.salt[0], n)
				t.Body = []byte(`{"name":"` + w.nameOf("g-", n) + `","intent":{"availabilitySla":"` + intent + `"}` + atts + `}`)
				t.Header = jsonHeaders
				return nil
			},
			check: checkDoneOperation(want),
		}
	}
}

// checkDoneOperation accepts a DONE Operation that failed with wantCode ("" = did not fail).
func checkDoneOperation(wantCode string) func(r *vegeta.Result) string {
	return func(r *vegeta.Result) string {
		if !bytes.Contains(r.Body, []byte(`"status":"DONE"`)) {
			return "operation not DONE"
		}
		failed := bytes.Contains(r.Body, []byte(`"error":`))
		if !failed {
			if wantCode != "" {
				return "operation did not fail with " + wantCode
			}
			return ""
		}
		var op struct {
			Error struct{ Errors []struct{ Code string } }
		}
		_ = json.Unmarshal(r.Body, &op)
		code := "?"
		if len(op.Error.Errors) > 0 {
			code = op.Error.Errors[0].Code
		}
		if code == wantCode {
			return ""
		}
		return "operation failed: " + code
	}
}

// --- setup (against understudy only, with a plain client) ---

// call sends one setup request and returns the body of a 2xx answer.
func (w *world) call(ctx context.Context, method, path string, hdr http.Header, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, w.target+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return b, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, truncate(string(b), 400))
	}
	return b, nil
}

// reset puts understudy back to its seed and forgets what earlier setups made there.
func (w *world) reset(ctx context.Context) error {
	if _, err := w.call(ctx, http.MethodPost, "/_understudy/reset", nil, ""); err != nil {
		return err
	}
	w.accountIDs, w.ruleNames, w.attachURLs = nil, nil, nil
	return nil
}

// computeOp posts a compute mutation and insists on a DONE operation without error.
func (w *world) computeOp(ctx context.Context, path, body string) error {
	b, err := w.call(ctx, http.MethodPost, path, jsonHeaders, body)
	if err != nil {
		return err
	}
	if k := checkDoneOperation("")(&vegeta.Result{Body: b}); k != "" {
		return fmt.Errorf("POST %s: %s: %s", path, k, truncate(string(b), 400))
	}
	return nil
}

// parallel runs f(0..n-1) on 8 goroutines and returns the first error.
func parallel(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next  atomic.Int64
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := f(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

func setupAccounts(ctx context.Context, w *world) error {
	ids := make([]string, w.accounts)
	err := parallel(ctx, len(ids), func(ctx context.Context, i int) error {
		b, err := w.call(ctx, http.MethodPost, "/v2/core/accounts", acctHeaders, fmt.Sprintf(accountBodyTmpl, i))
		if err != nil {
			return err
		}
		var a struct{ ID string }
		if err := json.Unmarshal(b, &a); err != nil || !strings.HasPrefix(a.ID, "acct_") {
			return fmt.Errorf("create account: no id in %s", truncate(string(b), 200))
		}
		ids[i] = a.ID
		return nil
	})
	w.accountIDs = ids
	return err
}

func setupRules(ctx context.Context, w *world) error {
	names := make([]string, w.rules)
	for i := range names {
		names[i] = w.nameOf("lbl-", uint64(i))
	}
	w.ruleNames = names
	return parallel(ctx, len(names), func(ctx context.Context, i int) error {
		return w.computeOp(ctx, "/compute/v1/projects/"+labelsProj+"/global/forwardingRules",
			`{"name":"`+names[i]+`","portRange":"443-443"}`)
	})
}

func setupInterconnects(ctx context.Context, w *world) error {
	if len(w.attachURLs) > 0 {
		return nil // the other group operation built it
	}
	proj := "/compute/v1/projects/" + groupsProj
	var urls []string
	for i, loc := range []string{"iad-zone1-1", "iad-zone2-1"} {
		ic := fmt.Sprintf("ic-bench-%d", i+1)
		if err := w.computeOp(ctx, proj+"/global/interconnects", `{"name":"`+ic+`","location":"`+w.target+proj+
			`/global/interconnectLocations/`+loc+`","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1,"interconnectType":"DEDICATED"}`); err != nil {
			return err
		}
		att := fmt.Sprintf("att-bench-%d", i+1)
		if err := w.computeOp(ctx, proj+"/regions/us-east4/interconnectAttachments", `{"name":"`+att+`","interconnect":"`+
			w.target+proj+`/global/interconnects/`+ic+`","adminEnabled":true}`); err != nil {
			return err
		}
		urls = append(urls, w.target+proj+"/regions/us-east4/interconnectAttachments/"+att)
	}
	if err := w.computeOp(ctx, proj+"/global/interconnectAttachmentGroups", `{"name":"g-bench-held","intent":{"availabilitySla":"NO_SLA"},`+
		`"attachments":{"a0":{"attachment":"`+urls[0]+`"},"a1":{"attachment":"`+urls[1]+`"}}}`); err != nil {
		return err
	}
	w.attachURLs = urls
	return nil
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
