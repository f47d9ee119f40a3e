package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/understudytest"
)

// More hostile input, per API: duplicate JSON keys, huge strings and maps under the body
// limit, numbers out of range, very long headers, path traversal in every path parameter,
// invalid UTF-8 in paths and queries. Whatever the answer, it is never a 5xx, and an error
// is always the API's envelope (an HTML page on the hosted flow).

const (
	hSub     = "a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	hRG      = "/subscriptions/" + hSub + "/resourceGroups/rg1"
	hReader  = "/subscriptions/" + hSub + "/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	hRA      = "/providers/Vendor.Authorization/roleAssignments/"
	hV       = "?api-version=2022-04-01"
	hProject = "/compute/v1/projects/my-project-123"
	hLoc     = "https://www.googleapis.com/compute/v1/projects/my-project-123/global/interconnectLocations/iad-zone1-1"
)

var (
	hARM      = map[string]string{"Authorization": "Bearer t"}
	hAccounts = map[string]string{"Authorization": "Bearer sk_test_fuzz123", "Service-Version": "2026-05-27.dahlia"}
	hCompute  = map[string]string{"Authorization": "Bearer t"}
)

type hostileCase struct {
	name, method, path string
	headers            map[string]string
	body               string
	envelope           func([]byte) (string, error)
	want               []int // acceptable statuses; nil = anything below 500
}

func withHeaders(base map[string]string, kv ...string) map[string]string {
	h := map[string]string{}
	for k, v := range base {
		h[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

func (tt hostileCase) run(t *testing.T, base string) (int, []byte) {
	t.Helper()
	headers := withHeaders(tt.headers)
	var body io.Reader
	if tt.body != "" {
		body = strings.NewReader(tt.body)
		if _, ok := headers["Content-Type"]; !ok {
			headers["Content-Type"] = "application/json"
		}
	}
	status, got := do(t, tt.method, base+tt.path, headers, body, 0)
	t.Logf("%s %.120s -> %d %.160s", tt.method, tt.path, status, got)
	checkHostile(t, tt.method, status, got, tt.envelope, tt.want)
	return status, got
}

func checkHostile(t *testing.T, method string, status int, body []byte, envelope func([]byte) (string, error), want []int) {
	t.Helper()
	if status >= 500 {
		t.Errorf("status %d: %.300s", status, body)
	}
	if want != nil {
		ok := false
		for _, w := range want {
			ok = ok || w == status
		}
		if !ok {
			t.Errorf("status %d, want one of %v: %.300s", status, want, body)
		}
	}
	if status >= 400 && method != http.MethodHead {
		if _, err := envelope(body); err != nil {
			t.Errorf("status %d: %v: %.300s", status, err, body)
		}
	}
}

func runHostile(t *testing.T, base string, cases []hostileCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, base) })
	}
}

// newAccount creates a recipient account and returns its id.
func newAccount(t *testing.T, base string) string {
	t.Helper()
	status, b := do(t, "POST", base+"/v2/core/accounts", withHeaders(hAccounts, "Content-Type", "application/json"),
		strings.NewReader(`{"configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}`), 0)
	var a struct{ ID string }
	if status != 200 || json.Unmarshal(b, &a) != nil || a.ID == "" {
		t.Fatalf("create account: %d %s", status, b)
	}
	return a.ID
}

// newRule inserts forwarding rule name (operations finish within the default 300ms).
func newRule(t *testing.T, base, name string) {
	t.Helper()
	insertAndWait(t, base, "forwardingRules", name, `{"name":"`+name+`","portRange":"443-443"}`)
}

// insertAndWait inserts body into the global compute collection and waits until the
// resource name can be read.
func insertAndWait(t *testing.T, base, collection, name, body string) {
	t.Helper()
	status, b := do(t, "POST", base+hProject+"/global/"+collection, withHeaders(hCompute, "Content-Type", "application/json"), strings.NewReader(body), 0)
	if status != 200 {
		t.Fatalf("insert into %s: %d %s", collection, status, b)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if status, _ := do(t, "GET", base+hProject+"/global/"+collection+"/"+name, hCompute, nil, 0); status == 200 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s %s never appeared", collection, name)
}

// TestDuplicateJSONKeys: a duplicated key is decided the same way by the validator and by
// the handler. Whoever wins (encoding/json keeps the last value), a body whose last value
// is invalid must be refused: else the validator checked one value and the handler used
// another.
func TestDuplicateJSONKeys(t *testing.T) {
	srv := understudytest.Start(t)
	acct := newAccount(t, srv.URL)
	newRule(t, srv.URL, "fr-dup")
	ic := func(name, counts string) string {
		return `{"name":"` + name + `","location":"` + hLoc + `","linkType":"LINK_TYPE_ETHERNET_10G_LR",` + counts + `,"interconnectType":"DEDICATED"}`
	}
	ra := func(principals string) string {
		return `{"properties":{` + principals + `,"roleDefinitionId":"` + hReader + `"}}`
	}
	const guid = `"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987"`
	cases := []struct {
		hostileCase
		lastInvalid bool
	}{
		{hostileCase{name: "ARM generic", method: "PUT", path: hRG + hRA + "11111111-1111-4111-8111-111111111111" + hV, headers: hARM,
			body: `{"a":1,"a":2,"properties":{` + guid + `,"roleDefinitionId":"` + hReader + `"}}`, envelope: armEnvelopeStrict}, false},
		{hostileCase{name: "ARM principalId last valid", method: "PUT", path: hRG + hRA + "22222222-2222-4222-8222-222222222222" + hV, headers: hARM,
			body: ra(`"principalId":"not-a-guid",` + guid), envelope: armEnvelopeStrict}, false},
		{hostileCase{name: "ARM principalId last invalid", method: "PUT", path: hRG + hRA + "33333333-3333-4333-8333-333333333333" + hV, headers: hARM,
			body: ra(guid + `,"principalId":"not-a-guid"`), envelope: armEnvelopeStrict}, true},
		{hostileCase{name: "ARM properties twice", method: "PUT", path: hRG + hRA + "44444444-4444-4444-8444-444444444444" + hV, headers: hARM,
			body: `{"properties":{"principalId":"x"},"properties":{` + guid + `,"roleDefinitionId":"` + hReader + `"}}`, envelope: armEnvelopeStrict}, false},
		{hostileCase{name: "accounts generic", method: "POST", path: "/v2/core/accounts", headers: hAccounts,
			body: `{"a":1,"a":2}`, envelope: v2Envelope}, false},
		{hostileCase{name: "accounts dashboard last valid", method: "POST", path: "/v2/core/accounts", headers: hAccounts,
			body: `{"dashboard":"bogus","dashboard":"express"}`, envelope: v2Envelope}, false},
		{hostileCase{name: "accounts dashboard last invalid", method: "POST", path: "/v2/core/accounts", headers: hAccounts,
			body: `{"dashboard":"express","dashboard":"bogus"}`, envelope: v2Envelope}, true},
		{hostileCase{name: "accounts link use_case type last invalid", method: "POST", path: "/v2/core/account_links", headers: hAccounts,
			body: `{"account":"` + acct + `","use_case":{"type":"account_onboarding","type":"bogus","account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/r"}}}`, envelope: v2Envelope}, true},
		{hostileCase{name: "compute generic", method: "POST", path: hProject + "/global/forwardingRules", headers: hCompute,
			body: `{"a":1,"a":2,"name":"fr-generic"}`, envelope: googleEnvelope}, false},
		{hostileCase{name: "compute requestedLinkCount last valid", method: "POST", path: hProject + "/global/interconnects", headers: hCompute,
			body: ic("ic-dup-1", `"requestedLinkCount":0,"requestedLinkCount":2`), envelope: googleEnvelope}, false},
		{hostileCase{name: "compute requestedLinkCount last invalid", method: "POST", path: hProject + "/global/interconnects", headers: hCompute,
			body: ic("ic-dup-2", `"requestedLinkCount":2,"requestedLinkCount":0`), envelope: googleEnvelope}, true},
		{hostileCase{name: "compute label key twice", method: "POST", path: hProject + "/global/forwardingRules/fr-dup/setLabels", headers: hCompute,
			body: `{"labels":{"a":"1","a":"2"},"labelFingerprint":"42WmSpB8rSM="}`, envelope: googleEnvelope}, false},
		{hostileCase{name: "compute label value last invalid", method: "POST", path: hProject + "/global/forwardingRules", headers: hCompute,
			body: `{"name":"fr-dup-2","labels":{"a":"ok","a":"NOT OK"}}`, envelope: googleEnvelope}, true},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			status, body := tt.run(t, srv.URL)
			if tt.lastInvalid && status < 400 {
				t.Errorf("the last value is invalid but the request was accepted (%d): the validator and the handler read different values: %.300s", status, body)
			}
			// Sent again: the same answer class (duplicates are decided deterministically).
			if !strings.Contains(tt.name, "generic") && !tt.lastInvalid {
				return
			}
			again, body2 := do(t, tt.method, srv.URL+tt.path, withHeaders(tt.headers, "Content-Type", "application/json"), strings.NewReader(tt.body), 0)
			if again >= 500 || (status < 400) != (again < 400 || again == 409) {
				t.Errorf("sent twice: %d then %d: %.300s", status, again, body2)
			}
		})
	}
}

// TestHugeValuesUnderTheLimit: a 900 KiB string and a 50,000-entry map fit the 1 MiB limit;
// they are refused (or accepted) like any other value, never with a 5xx.
func TestHugeValuesUnderTheLimit(t *testing.T) {
	srv := understudytest.Start(t)
	newRule(t, srv.URL, "fr-huge")
	huge := strings.Repeat("a", 900<<10)
	bigMap := jsonMap(50000, `"v"`)
	runHostile(t, srv.URL, []hostileCase{
		{name: "ARM 900 KiB description", method: "PUT", path: hRG + hRA + "55555555-5555-4555-8555-555555555555" + hV, headers: hARM,
			body: `{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"` + hReader + `","description":"` + huge + `"}}`, envelope: armEnvelopeStrict, want: []int{400}},
		{name: "ARM 900 KiB condition", method: "PUT", path: hRG + hRA + "66666666-6666-4666-8666-666666666666" + hV, headers: hARM,
			body: `{"properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"` + hReader + `","condition":"` + huge + `"}}`, envelope: armEnvelopeStrict, want: []int{400}},
		{name: "ARM 900 KiB unknown member", method: "PUT", path: hRG + hRA + "77777777-7777-4777-8777-777777777777" + hV, headers: hARM,
			body: `{"x":"` + huge + `","properties":{"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"` + hReader + `"}}`, envelope: armEnvelopeStrict},
		{name: "ARM 50k unknown members", method: "PUT", path: hRG + hRA + "88888888-8888-4888-8888-888888888888" + hV, headers: hARM,
			body: `{"properties":` + strings.TrimSuffix(bigMap, "}") + `,"principalId":"ce2ce14e-85d7-4629-bdbc-454d0519d987","roleDefinitionId":"` + hReader + `"}}`, envelope: armEnvelopeStrict},
		{name: "accounts 900 KiB display_name", method: "POST", path: "/v2/core/accounts", headers: hAccounts,
			body: `{"display_name":"` + huge + `"}`, envelope: v2Envelope, want: []int{400}},
		{name: "accounts 50k metadata", method: "POST", path: "/v2/core/accounts", headers: hAccounts,
			body: `{"metadata":` + bigMap + `}`, envelope: v2Envelope, want: []int{400}},
		{name: "compute 900 KiB description", method: "POST", path: hProject + "/global/forwardingRules", headers: hCompute,
			body: `{"name":"fr-big","description":"` + huge + `"}`, envelope: googleEnvelope}, // no length limit in the spec: accepted
		{name: "compute 900 KiB label value", method: "POST", path: hProject + "/global/forwardingRules/fr-huge/setLabels", headers: hCompute,
			body: `{"labels":{"a":"` + huge + `"},"labelFingerprint":"42WmSpB8rSM="}`, envelope: googleEnvelope, want: []int{400}},
		{name: "compute 50k labels on setLabels", method: "POST", path: hProject + "/global/forwardingRules/fr-huge/setLabels", headers: hCompute,
			body: `{"labels":` + bigMap + `,"labelFingerprint":"42WmSpB8rSM="}`, envelope: googleEnvelope, want: []int{400}},
		{name: "compute 50k labels on insert", method: "POST", path: hProject + "/global/forwardingRules", headers: hCompute,
			body: `{"name":"fr-labels","labels":` + bigMap + `}`, envelope: googleEnvelope, want: []int{400}},
		{name: "compute 50k attachments in a group", method: "POST", path: hProject + "/global/interconnectAttachmentGroups", headers: hCompute,
			body: `{"name":"g-big","intent":{"availabilitySla":"NO_SLA"},"attachments":` + jsonMap(20000, `{"attachment":"x"}`) + `}`, envelope: googleEnvelope},
	})
}

// jsonMap is a JSON object of n members k00000... all with the value v.
func jsonMap(n int, v string) string {
	var m strings.Builder
	m.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			m.WriteString(",")
		}
		fmt.Fprintf(&m, `"k%05d":%s`, i, v)
	}
	m.WriteString("}")
	return m.String()
}

// TestNumbersOutOfRange: integers beyond their format are 400s in the envelope.
func TestNumbersOutOfRange(t *testing.T) {
	srv := understudytest.Start(t)
	ic := func(n string) string {
		return `{"name":"ic-n","location":"` + hLoc + `","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":` + n + `,"interconnectType":"DEDICATED"}`
	}
	var cases []hostileCase
	for _, n := range []string{"1e20", "2147483648", "-1", "0", "1.5", "9223372036854775808", "1e400", "-0"} {
		cases = append(cases, hostileCase{name: "requestedLinkCount " + n, method: "POST", path: hProject + "/global/interconnects",
			headers: hCompute, body: ic(n), envelope: googleEnvelope, want: []int{400}})
	}
	att := `{"name":"att-n","interconnect":"https://www.googleapis.com/compute/v1/projects/my-project-123/global/interconnects/nope","type":"DEDICATED","router":"https://www.googleapis.com/compute/v1/projects/my-project-123/regions/us-east4/routers/r","vlanTag8021q":1e20}`
	cases = append(cases,
		hostileCase{name: "vlanTag8021q 1e20", method: "POST", path: hProject + "/regions/us-east4/interconnectAttachments", headers: hCompute, body: att, envelope: googleEnvelope, want: []int{400}},
		hostileCase{name: "compute maxResults 1e20", method: "GET", path: hProject + "/global/forwardingRules?maxResults=1e20", headers: hCompute, envelope: googleEnvelope, want: []int{400}},
		hostileCase{name: "compute maxResults 2^63", method: "GET", path: hProject + "/global/forwardingRules?maxResults=9223372036854775808", headers: hCompute, envelope: googleEnvelope, want: []int{400}},
		hostileCase{name: "ARM $top 1e20", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&$top=1e20", headers: hARM, envelope: armEnvelopeStrict, want: []int{400}},
		hostileCase{name: "ARM $top 2^63", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&$top=9223372036854775808", headers: hARM, envelope: armEnvelopeStrict, want: []int{400}},
		hostileCase{name: "accounts limit 1e20", method: "GET", path: "/v2/core/accounts?limit=1e20", headers: hAccounts, envelope: v2Envelope, want: []int{400}},
		hostileCase{name: "accounts limit -1", method: "GET", path: "/v2/core/accounts?limit=-1", headers: hAccounts, envelope: v2Envelope, want: []int{400}},
	)
	runHostile(t, srv.URL, cases)
}

// TestVeryLongHeaders: 8 KiB header values (well under the server's 64 KiB) are answered
// like any other bad or odd value.
func TestVeryLongHeaders(t *testing.T) {
	srv := understudytest.Start(t)
	long := strings.Repeat("x", 8<<10)
	jwtish := "e30." + strings.Repeat("A", 8<<10) + ".sig"
	runHostile(t, srv.URL, []hostileCase{
		{name: "ARM 8 KiB bearer", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV, headers: map[string]string{"Authorization": "Bearer " + long}, envelope: armEnvelopeStrict, want: []int{200, 400, 401}},
		{name: "ARM 8 KiB JWT-shaped bearer", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV, headers: map[string]string{"Authorization": "Bearer " + jwtish}, envelope: armEnvelopeStrict, want: []int{200, 400, 401}},
		{name: "ARM 8 KiB scheme", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV, headers: map[string]string{"Authorization": long}, envelope: armEnvelopeStrict, want: []int{400, 401}},
		{name: "accounts 8 KiB key", method: "GET", path: "/v2/core/accounts", headers: withHeaders(hAccounts, "Authorization", "Bearer sk_test_"+long), envelope: v2Envelope, want: []int{200, 400, 401}}, // any sk_test_ key is the default platform's
		{name: "accounts 8 KiB unknown key", method: "GET", path: "/v2/core/accounts", headers: withHeaders(hAccounts, "Authorization", "Bearer "+long), envelope: v2Envelope, want: []int{400, 401}},
		{name: "accounts 8 KiB Service-Version", method: "GET", path: "/v2/core/accounts", headers: withHeaders(hAccounts, "Service-Version", long), envelope: v2Envelope, want: []int{400}},
		{name: "accounts 8 KiB Idempotency-Key", method: "POST", path: "/v2/core/accounts", headers: withHeaders(hAccounts, "Idempotency-Key", long), body: `{}`, envelope: v2Envelope, want: []int{400}},
		{name: "compute 8 KiB bearer", method: "GET", path: hProject + "/global/forwardingRules", headers: map[string]string{"Authorization": "Bearer " + long}, envelope: googleEnvelope, want: []int{200, 400, 401}},
		{name: "compute 8 KiB JWT-shaped bearer", method: "GET", path: hProject + "/global/forwardingRules", headers: map[string]string{"Authorization": "Bearer " + jwtish}, envelope: googleEnvelope, want: []int{200, 400, 401}},
		{name: "compute 8 KiB scheme", method: "GET", path: hProject + "/global/forwardingRules", headers: map[string]string{"Authorization": long}, envelope: googleEnvelope, want: []int{400, 401}},
		{name: "hosted 8 KiB cookie", method: "POST", path: "/r/acct_1Nv0FGQ9RKHgCVdK/alu_test_61SGhyomRuz7xsw5216SGhyj0ASQdCLwM",
			headers: map[string]string{"Cookie": "understudy_link_session=" + long, "Content-Type": "application/x-www-form-urlencoded"}, body: "nonce=x", envelope: htmlPage, want: []int{400, 403, 404}},
	})
}

// traversals are ways of sending "../../etc" inside one path parameter. The first three
// decode to ".." segments and must be refused; the last two decode to opaque names
// (`..\..\etc`, "..%2F..%2Fetc") that an API may accept as ids.
var traversals = []string{"..%2F..%2Fetc", "%2E%2E%2F%2E%2E%2Fetc", "%2E%2E", "..%5C..%5Cetc", "..%252F..%252Fetc"}

func decodesToDotDot(tr string) bool {
	return !strings.Contains(tr, "%5C") && !strings.Contains(tr, "%25")
}

// TestPathTraversalInEveryPathParameter: every path parameter of every API, sent a
// traversal, is a 4xx in the envelope.
func TestPathTraversalInEveryPathParameter(t *testing.T) {
	srv := understudytest.Start(t)
	templates := []struct {
		name, method, path string
		headers            map[string]string
		envelope           func([]byte) (string, error)
	}{
		{"ARM scope", "GET", "/subscriptions/{}/providers/Vendor.Authorization/roleAssignments" + hV, hARM, armEnvelopeStrict},
		{"ARM scope (resource group)", "GET", "/subscriptions/" + hSub + "/resourceGroups/{}/providers/Vendor.Authorization/roleAssignments" + hV, hARM, armEnvelopeStrict},
		{"ARM roleAssignmentName", "GET", hRG + hRA + "{}" + hV, hARM, armEnvelopeStrict},
		{"ARM roleAssignmentName PUT", "PUT", hRG + hRA + "{}" + hV, hARM, armEnvelopeStrict},
		{"ARM roleDefinitionId", "GET", hRG + "/providers/Vendor.Authorization/roleDefinitions/{}" + hV, hARM, armEnvelopeStrict},
		{"ARM tenant roleDefinitionId", "GET", "/providers/Vendor.Authorization/roleDefinitions/{}" + hV, hARM, armEnvelopeStrict},
		{"accounts id", "GET", "/v2/core/accounts/{}", hAccounts, v2Envelope},
		{"hosted account", "GET", "/r/{}/alu_test_61SGhyomRuz7xsw5216SGhyj0ASQdCLwM", nil, htmlPage},
		{"hosted token", "GET", "/r/acct_1Nv0FGQ9RKHgCVdK/{}", nil, htmlPage},
		{"hosted token POST", "POST", "/r/acct_1Nv0FGQ9RKHgCVdK/{}", nil, htmlPage},
		{"compute project", "GET", "/compute/v1/projects/{}/global/forwardingRules", hCompute, googleEnvelope},
		{"compute forwardingRule", "GET", hProject + "/global/forwardingRules/{}", hCompute, googleEnvelope},
		{"compute forwardingRule DELETE", "DELETE", hProject + "/global/forwardingRules/{}", hCompute, googleEnvelope},
		{"compute setLabels resource", "POST", hProject + "/global/forwardingRules/{}/setLabels", hCompute, googleEnvelope},
		{"compute operation", "GET", hProject + "/global/operations/{}", hCompute, googleEnvelope},
		{"compute operation wait", "POST", hProject + "/global/operations/{}/wait", hCompute, googleEnvelope},
		{"compute region", "GET", hProject + "/regions/{}/operations", hCompute, googleEnvelope},
		{"compute regional operation", "GET", hProject + "/regions/us-east4/operations/{}", hCompute, googleEnvelope},
		{"compute interconnectLocation", "GET", hProject + "/global/interconnectLocations/{}", hCompute, googleEnvelope},
		{"compute interconnectRemoteLocation", "GET", hProject + "/global/interconnectRemoteLocations/{}", hCompute, googleEnvelope},
		{"compute interconnect", "GET", hProject + "/global/interconnects/{}", hCompute, googleEnvelope},
		{"compute interconnectAttachment", "GET", hProject + "/regions/us-east4/interconnectAttachments/{}", hCompute, googleEnvelope},
		{"compute interconnectAttachmentGroup", "GET", hProject + "/global/interconnectAttachmentGroups/{}", hCompute, googleEnvelope},
		{"compute group getOperationalStatus", "GET", hProject + "/global/interconnectAttachmentGroups/{}/getOperationalStatus", hCompute, googleEnvelope},
	}
	for _, tp := range templates {
		for _, tr := range traversals {
			t.Run(tp.name+"/"+tr, func(t *testing.T) {
				tt := hostileCase{method: tp.method, path: strings.Replace(tp.path, "{}", tr, 1), headers: tp.headers, envelope: tp.envelope}
				if tp.method == "PUT" || tp.method == "POST" {
					tt.body = "{}"
					if strings.HasPrefix(tp.path, "/r/") {
						tt.body, tt.headers = "nonce=x", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
					}
				}
				status, body := tt.run(t, srv.URL)
				if status < 400 && decodesToDotDot(tr) {
					t.Errorf("status %d for a traversal: %.300s", status, body)
				}
			})
		}
	}
}

// TestInvalidUTF8InPathAndQuery: %FF%FE (escaped) in path parameters and query values.
func TestInvalidUTF8InPathAndQuery(t *testing.T) {
	srv := understudytest.Start(t)
	const bad = "%FF%FE%C0%AF"
	runHostile(t, srv.URL, []hostileCase{
		{name: "ARM scope", method: "GET", path: "/subscriptions/" + bad + "/providers/Vendor.Authorization/roleAssignments" + hV, headers: hARM, envelope: armEnvelopeStrict},
		{name: "ARM roleAssignmentName", method: "GET", path: hRG + hRA + bad + hV, headers: hARM, envelope: armEnvelopeStrict, want: []int{400, 404}},
		{name: "ARM $filter", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&$filter=principalId%20eq%20'" + bad + "'", headers: hARM, envelope: armEnvelopeStrict},
		{name: "ARM api-version", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments?api-version=" + bad, headers: hARM, envelope: armEnvelopeStrict, want: []int{400}},
		{name: "ARM $skipToken", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&$skipToken=" + bad, headers: hARM, envelope: armEnvelopeStrict, want: []int{400}},
		{name: "accounts id", method: "GET", path: "/v2/core/accounts/" + bad, headers: hAccounts, envelope: v2Envelope, want: []int{400, 404}},
		{name: "accounts page", method: "GET", path: "/v2/core/accounts?page=" + bad, headers: hAccounts, envelope: v2Envelope, want: []int{400}},
		{name: "accounts include", method: "GET", path: "/v2/core/accounts/acct_1Nv0FGQ9RKHgCVdK?include=" + bad, headers: hAccounts, envelope: v2Envelope, want: []int{400}},
		{name: "hosted account", method: "GET", path: "/r/" + bad + "/alu_test_61SGhyomRuz7xsw5216SGhyj0ASQdCLwM", envelope: htmlPage, want: []int{400, 404}},
		{name: "hosted query", method: "GET", path: "/r/acct_1Nv0FGQ9RKHgCVdK/alu_test_61SGhyomRuz7xsw5216SGhyj0ASQdCLwM?x=" + bad, envelope: htmlPage, want: []int{400, 404}},
		{name: "compute project", method: "GET", path: "/compute/v1/projects/" + bad + "/global/forwardingRules", headers: hCompute, envelope: googleEnvelope, want: []int{400, 404}},
		{name: "compute forwardingRule", method: "GET", path: hProject + "/global/forwardingRules/" + bad, headers: hCompute, envelope: googleEnvelope, want: []int{400, 404}},
		{name: "compute filter", method: "GET", path: hProject + "/global/forwardingRules?filter=name%3D" + bad, headers: hCompute, envelope: googleEnvelope},
		{name: "compute pageToken", method: "GET", path: hProject + "/global/forwardingRules?pageToken=" + bad, headers: hCompute, envelope: googleEnvelope, want: []int{400}},
		{name: "compute requestId", method: "POST", path: hProject + "/global/forwardingRules?requestId=" + bad, headers: hCompute, body: `{"name":"fr-utf8"}`, envelope: googleEnvelope, want: []int{400}},
		{name: "compute region", method: "GET", path: hProject + "/regions/" + bad + "/operations", headers: hCompute, envelope: googleEnvelope, want: []int{400, 404}},
	})
}

// TestRawBytesInRequestTarget sends what a Go client never would: raw bytes >= 0x80 and
// unescaped invalid UTF-8 in the request line, over a plain TCP connection.
func TestRawBytesInRequestTarget(t *testing.T) {
	srv := understudytest.Start(t)
	addr := strings.TrimPrefix(srv.URL, "http://")
	cases := []struct {
		name, target, auth string
		envelope           func([]byte) (string, error)
	}{
		{"ARM", "/subscriptions/\xff\xfe/providers/Vendor.Authorization/roleAssignments?api-version=2022-04-01&$filter=\xff", "Authorization: Bearer t\r\n", armEnvelopeStrict},
		{"accounts", "/v2/core/accounts/\xff\xfe?limit=\xff", "Authorization: Bearer sk_test_fuzz123\r\nService-Version: 2026-05-27.dahlia\r\n", v2Envelope},
		{"hosted", "/r/acct_\xff\xfe/alu_\xff", "", htmlPage},
		{"compute", "/compute/v1/projects/my-project-123/global/forwardingRules/\xff\xfe?filter=\xff", "Authorization: Bearer t\r\n", googleEnvelope},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n", tt.target, tt.auth)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			checkHostile(t, "GET", resp.StatusCode, body, tt.envelope, nil)
			if resp.StatusCode < 400 {
				t.Errorf("status %d for invalid UTF-8 in the path: %.300s", resp.StatusCode, body)
			}
		})
	}
}

// TestBinderErrorsInPlainWords: what the spec allows but a handler's Go type cannot hold
// (an integer written as 1.0 or 1e3, a number beyond any float64, "-0" for an unsigned
// parameter) is a 400 naming the member or parameter, in each API's words, never in the
// binders' Go terms.
func TestBinderErrorsInPlainWords(t *testing.T) {
	srv := understudytest.Start(t)
	interconnect := func(count string) string {
		return `{"name":"ic-words","location":"` + hLoc + `","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":` + count + `,"interconnectType":"DEDICATED"}`
	}
	cases := []struct {
		hostileCase
		says string // the member or parameter the message names
	}{
		{hostileCase{name: "compute integer as 1.0", method: "POST", path: hProject + "/global/interconnects", headers: hCompute, body: interconnect("1.0"), envelope: googleEnvelope, want: []int{400}}, "requestedLinkCount"},
		{hostileCase{name: "compute integer as 1e0", method: "POST", path: hProject + "/global/interconnects", headers: hCompute, body: interconnect("1e0"), envelope: googleEnvelope, want: []int{400}}, "requestedLinkCount"},
		{hostileCase{name: "compute 1e400", method: "POST", path: hProject + "/global/interconnects", headers: hCompute, body: interconnect("1e400"), envelope: googleEnvelope, want: []int{400}}, "requestedLinkCount"},
		{hostileCase{name: "compute maxResults -0", method: "GET", path: hProject + "/global/forwardingRules?maxResults=-0", headers: hCompute, envelope: googleEnvelope, want: []int{400}}, "maxResults"},
		{hostileCase{name: "accounts limit 1.0", method: "GET", path: "/v2/core/accounts?limit=1.0", headers: hAccounts, envelope: v2Envelope, want: []int{400}}, "limit"},
		{hostileCase{name: "admin count 1.0", method: "POST", path: "/_understudy/faults", body: `{"status":503,"count":1.0}`, envelope: adminEnvelope, want: []int{400}}, "count"},
		{hostileCase{name: "ARM $top abc", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&$top=abc", headers: hARM, envelope: armEnvelopeStrict, want: []int{400}}, "whole number"},
		{hostileCase{name: "ARM $top 1e20", method: "GET", path: hRG + "/providers/Vendor.Authorization/roleAssignments" + hV + "&$top=99999999999999999999", headers: hARM, envelope: armEnvelopeStrict, want: []int{400}}, "out of range"},
		{hostileCase{name: "accounts limit 1e2", method: "GET", path: "/v2/core/accounts?limit=1e2", headers: hAccounts, envelope: v2Envelope, want: []int{400}}, "whole number"},
		{hostileCase{name: "compute maxResults 1e3", method: "GET", path: hProject + "/global/forwardingRules?maxResults=1e3", headers: hCompute, envelope: googleEnvelope, want: []int{400}}, "whole number"},
		{hostileCase{name: "accounts closed yes", method: "GET", path: "/v2/core/accounts?closed=yes", headers: hAccounts, envelope: v2Envelope, want: []int{400}}, "true or false"},
		{hostileCase{name: "accounts limit empty", method: "GET", path: "/v2/core/accounts?limit=", headers: hAccounts, envelope: v2Envelope, want: []int{400}}, "empty value is not allowed"},
		{hostileCase{name: "compute maxResults empty", method: "GET", path: hProject + "/global/forwardingRules?maxResults=", headers: hCompute, envelope: googleEnvelope, want: []int{400}}, "empty value is not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, body := tc.run(t, srv.URL)
			msg, _ := tc.envelope(body)
			if !strings.Contains(msg, tc.says) {
				t.Errorf("message %q does not name %s", msg, tc.says)
			}
			for _, leak := range []string{"Unmarshal type error", "strconv", "json.Number", "Go int", "Go value", "offset=", "cannot unmarshal", "error binding", "invalid syntax", "value out of range"} {
				if strings.Contains(string(body), leak) {
					t.Errorf("message in Go's terms (%q): %s", leak, body)
				}
			}
		})
	}
}

// TestMalformedJSONInPlainWords: a body that is not JSON is refused in each API's envelope
// with what is wrong and where, not in encoding/json's terms ("invalid character 'h'
// looking for beginning of value", "unexpected EOF").
func TestMalformedJSONInPlainWords(t *testing.T) {
	srv := understudytest.Start(t)
	bodies := map[string]string{
		"hello":          "expected a JSON value, found 'h'",
		`{"a":1,}`:       "expected a member name in double quotes",
		`{"a":[1,2`:      "ends before its JSON value does",
		"\xef\xbb\xbf{}": "byte order mark",
		" ":              "empty or white space only",
	}
	for _, target := range bodyTargets {
		for body, says := range bodies {
			t.Run(target.api+" "+body, func(t *testing.T) {
				h := map[string]string{"Content-Type": "application/json"}
				for k, v := range target.headers {
					h[k] = v
				}
				status, out := do(t, target.method, srv.URL+target.path, h, strings.NewReader(body), int64(len(body)))
				msg, err := target.envelope(out)
				if status != 400 || err != nil {
					t.Fatalf("%d %v %s", status, err, out)
				}
				if !strings.Contains(msg, says) {
					t.Errorf("message %q does not say %q", msg, says)
				}
				for _, leak := range []string{"invalid character", "looking for", "EOF"} {
					if strings.Contains(msg, leak) {
						t.Errorf("message in encoding/json's terms (%q): %s", leak, msg)
					}
				}
			})
		}
	}
}

// TestCharsetsOtherThanUTF8: a body said to be in another charset is refused with 415 in
// each API's envelope (it was read as UTF-8 whatever it said); UTF-8, however spelled, is
// taken.
func TestCharsetsOtherThanUTF8(t *testing.T) {
	srv := understudytest.Start(t)
	for _, target := range bodyTargets {
		for contentType, refused := range map[string]bool{
			"application/json; charset=latin1":    true,
			"application/json; charset=utf-16":    true,
			"application/json;charset=ISO-8859-1": true,
			"application/json; charset=utf-8":     false,
			"application/json; charset=UTF8":      false,
			`application/json; charset="UTF-8"`:   false,
			"application/json; charset=us-ascii":  false,
		} {
			t.Run(target.api+" "+contentType, func(t *testing.T) {
				h := map[string]string{"Content-Type": contentType}
				for k, v := range target.headers {
					h[k] = v
				}
				status, out := do(t, target.method, srv.URL+target.path, h, strings.NewReader(`{}`), 2)
				if refused {
					msg, err := target.envelope(out)
					if status != 415 || err != nil || !strings.Contains(msg, "send the body in UTF-8") {
						t.Errorf("%d %v %s", status, err, out)
					}
				} else if status == 415 {
					t.Errorf("UTF-8 refused: %s", out)
				}
			})
		}
	}
}
