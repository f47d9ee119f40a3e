package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// The accounts keys of the state tests: of the default and the Acme platform, test and live.
var stateKeys = []string{"sk_test_state123", "sk_live_state123", "sk_test_acme123", "sk_live_acme123"}

const (
	stateSub          = "subscriptions/a925f2f7-5c63-4b7b-8799-25a5f97bc3b2"
	stateProject      = "proj-state-456"
	stateSeedProject  = "my-project-123"
	stateAdminToken   = "state-admin-token"
	armVersion        = "?api-version=2022-04-01"
	stateRoleProvider = "/providers/Vendor.Authorization/"
)

// buildState makes a varied state through the public APIs of all three.
func buildState(t *testing.T, c *stateClient) {
	// Authorization: assignments at a subscription, a resource group and a management
	// group, one updated, one with a condition, one named in upper case, one deleted, one
	// of the seed's custom role.
	ra := func(scope, name, body string, want int) {
		c.must(want, http.MethodPut, "/"+scope+stateRoleProvider+"roleAssignments/"+name+armVersion, stateARM(), body)
	}
	reader := stateRoleProvider + "roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
	contributor := "/" + stateSub + stateRoleProvider + "roleDefinitions/b24988ac-6180-42a0-ab88-20f7382dd24c"
	ra(stateSub, "a1a1a1a1-0000-4000-8000-000000000001", `{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000001","roleDefinitionId":"`+reader+`","description":"readers"}}`, 201)
	ra(stateSub+"/resourceGroups/rg-state", "a1a1a1a1-0000-4000-8000-000000000002", `{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000002","roleDefinitionId":"`+contributor+`","principalType":"Group","condition":"@Resource[Vendor.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'","conditionVersion":"2.0"}}`, 201)
	ra("providers/Vendor.Management/managementGroups/mg-state", "a1a1a1a1-0000-4000-8000-000000000003", `{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000003","roleDefinitionId":"`+reader+`","principalType":"ServicePrincipal"}}`, 201)
	ra(stateSub, "a1a1a1a1-0000-4000-8000-000000000001", `{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000001","roleDefinitionId":"`+reader+`","description":"readers, updated"}}`, 200)
	ra(stateSub+"/resourceGroups/rg-state", "B0F43C54-E787-4862-89B1-A653FA9CF747", `{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000004","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/33333333-3333-4333-8333-333333333333"}}`, 201)
	ra(stateSub, "a1a1a1a1-0000-4000-8000-000000000005", `{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000005","roleDefinitionId":"`+reader+`"}}`, 201)
	c.must(200, http.MethodDelete, "/"+stateSub+stateRoleProvider+"roleAssignments/a1a1a1a1-0000-4000-8000-000000000005"+armVersion, stateARM(), "")
	// The directory: a group added through the admin API, holding the seed's alice and a
	// principal of an assignment above; an assignment to it at the root.
	c.must(201, http.MethodPut, "/_understudy/authorization/principals/c1c1c1c1-0000-4000-8000-000000000003", stateAdmin(), `{"type":"ManagedIdentity"}`)
	c.must(201, http.MethodPut, "/_understudy/authorization/principals/c1c1c1c1-0000-4000-8000-000000000006", stateAdmin(),
		`{"type":"Group","displayName":"state group","members":["22222222-2222-4222-8222-222222222222","c1c1c1c1-0000-4000-8000-000000000003"]}`)
	c.must(201, http.MethodPut, "/providers/Vendor.Authorization/roleAssignments/a1a1a1a1-0000-4000-8000-000000000006"+armVersion, stateARM(),
		`{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000006","roleDefinitionId":"`+reader+`"}}`)
	// Deny assignments made through the admin API (the seed has one too): one replaced, with
	// a condition and the directory's group; one removed.
	deny := "/_understudy/authorization/denyAssignments/d1d1d1d1-0000-4000-8000-00000000000"
	denyBody := func(description string) string {
		return `{"properties":{"scope":"/` + stateSub + `/resourceGroups/rg-state","denyAssignmentName":"State lock","description":"` + description + `",` +
			`"permissions":[{"actions":["Microsoft.Compute/*/delete"],"dataActions":["Microsoft.Storage/*/write"]}],"condition":"@Resource[Microsoft.Storage/storageAccounts:name] StringEquals 'logs'","conditionVersion":"2.0",` +
			`"principals":[{"id":"c1c1c1c1-0000-4000-8000-000000000006"}],"excludePrincipals":[{"id":"c1c1c1c1-0000-4000-8000-000000000003"}],"denyAssignmentEffect":"audit","doNotApplyToChildScopes":true}}`
	}
	c.must(201, http.MethodPut, deny+"1", stateAdmin(), denyBody("first"))
	c.must(200, http.MethodPut, deny+"1", stateAdmin(), denyBody("replaced"))
	c.must(201, http.MethodPut, deny+"2", stateAdmin(), `{"properties":{"scope":"/","denyAssignmentName":"gone","permissions":[{"actions":["*"]}],"principals":[{"id":"00000000-0000-0000-0000-000000000000"}]}}`)
	c.must(204, http.MethodDelete, deny+"2", stateAdmin(), "")
	// A custom role made by PUT, updated, and assigned: the export keeps it with its history.
	rd := "/" + stateSub + stateRoleProvider + "roleDefinitions/44444444-4444-4444-8444-444444444444" + armVersion
	c.must(201, http.MethodPut, rd, stateARM(), `{"properties":{"roleName":"State Operator","permissions":[{"actions":["Microsoft.Compute/*/read"],"dataActions":["Microsoft.Storage/*/read"]}],"assignableScopes":["/`+stateSub+`"]}}`)
	c.must(201, http.MethodPut, rd, stateARM(), `{"properties":{"roleName":"State Operator","description":"updated","permissions":[{"actions":["Microsoft.Compute/*/read"],"notActions":["Microsoft.Compute/secrets/read"]}],"assignableScopes":["/`+stateSub+`"]}}`)
	ra(stateSub, "a1a1a1a1-0000-4000-8000-000000000007", `{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000007","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/44444444-4444-4444-8444-444444444444"}}`, 201)

	// Compute, in manual mode: rules with label changes, one deleted; interconnects,
	// attachments in two regions, a group patched after its insert, a group whose insert
	// failed; a retried requestId.
	global := "/compute/v1/projects/" + stateProject + "/global"
	insert := func(path, body string) {
		c.finish(c.must(200, http.MethodPost, path, stateCompute(), body))
	}
	insert(global+"/forwardingRules?requestId=5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a01", `{"name":"fr-a","portRange":"80-80","labels":{"env":"dev"},"description":"the a rule"}`)
	insert(global+"/forwardingRules", `{"name":"fr-b","IPAddress":"34.64.1.2","IPProtocol":"UDP"}`)
	insert(global+"/forwardingRules", `{"name":"fr-c"}`)
	c.finish(c.must(200, http.MethodDelete, global+"/forwardingRules/fr-c", stateCompute(), ""))
	for _, labels := range []string{`{"env":"prod","tier":"web"}`, `{}`} {
		rule := c.must(200, http.MethodGet, global+"/forwardingRules/fr-a", stateCompute(), "")
		c.must(200, http.MethodPost, global+"/forwardingRules/fr-a/setLabels", stateCompute(), fmt.Sprintf(`{"labels":%s,"labelFingerprint":%q}`, labels, rule["labelFingerprint"]))
	}
	seeded := c.must(200, http.MethodGet, "/compute/v1/projects/"+stateSeedProject+"/global/forwardingRules/fr-web", stateCompute(), "")
	c.must(200, http.MethodPost, "/compute/v1/projects/"+stateSeedProject+"/global/forwardingRules/fr-web/setLabels", stateCompute(), fmt.Sprintf(`{"labels":{"env":"staging"},"labelFingerprint":%q}`, seeded["labelFingerprint"]))
	insert(global+"/interconnects", `{"name":"ic-1","location":"global/interconnectLocations/iad-zone1-1","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1,"interconnectType":"DEDICATED","customerName":"State Corp","labels":{"site":"one"}}`)
	insert(global+"/interconnects", `{"name":"ic-2","location":"projects/`+stateProject+`/global/interconnectLocations/iad-zone2-1","linkType":"LINK_TYPE_ETHERNET_100G_LR","requestedLinkCount":2,"interconnectType":"DEDICATED","adminEnabled":false,"nocContactEmail":"noc@example.com"}`)
	region := func(r string) string { return "/compute/v1/projects/" + stateProject + "/regions/" + r }
	insert(region("us-east4")+"/interconnectAttachments", `{"name":"att-1","interconnect":"global/interconnects/ic-1"}`)
	insert(region("us-east4")+"/interconnectAttachments?requestId=5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a02", `{"name":"att-2","interconnect":"global/interconnects/ic-2","vlanTag8021q":300,"mtu":1500,"description":"second","labels":{"b":"2"}}`)
	insert(region("us-east1")+"/interconnectAttachments", `{"name":"att-3","interconnect":"global/interconnects/ic-1","adminEnabled":false}`)
	// A regional rule, its labels and tier changed after its insert: kept with its region.
	insert(region("us-east4")+"/forwardingRules?requestId=5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a03", `{"name":"fr-a","loadBalancingScheme":"INTERNAL","ports":["80","443"],"backendService":"regions/us-east4/backendServices/be","serviceLabel":"web","allowGlobalAccess":true,"labels":{"env":"dev"}}`)
	regional := c.must(200, http.MethodGet, region("us-east4")+"/forwardingRules/fr-a", stateCompute(), "")
	c.must(200, http.MethodPost, region("us-east4")+"/forwardingRules/fr-a/setLabels", stateCompute(), fmt.Sprintf(`{"labels":{"env":"prod"},"labelFingerprint":%q}`, regional["labelFingerprint"]))
	c.must(200, http.MethodPatch, region("us-east4")+"/forwardingRules/fr-a", stateCompute(), `{"networkTier":"STANDARD"}`)
	insert(global+"/interconnectAttachmentGroups", `{"name":"g-1","intent":{"availabilitySla":"PRODUCTION_NON_CRITICAL"},"attachments":{"first":{"attachment":"`+c.base+`/compute/v1/projects/`+stateProject+`/regions/us-east4/interconnectAttachments/att-1"},"second":{"attachment":"regions/us-east4/interconnectAttachments/att-2"}}}`)
	c.finish(c.must(200, http.MethodPatch, global+"/interconnectAttachmentGroups/g-1", stateCompute(), `{"description":"patched","attachments":{"third":{"attachment":"regions/us-east1/interconnectAttachments/att-3"}}}`))
	failed := c.must(200, http.MethodPost, global+"/interconnectAttachmentGroups", stateCompute(), `{"name":"g-bad","intent":{"availabilitySla":"NO_SLA"},"attachments":{"x":{"attachment":"regions/us-east4/interconnectAttachments/nope"}}}`)
	if op := c.finish(failed); op["error"] == nil {
		t.Fatalf("g-bad's operation did not fail: %v", op)
	}
	// What changes resources after their insert: a drained interconnect, labels of an
	// interconnect and of an attachment, a rule's new target, a circuit set down, an
	// interconnect group with a member deleted since, IAM policies on both kinds of group.
	c.must(200, http.MethodPatch, global+"/interconnects/ic-1", stateCompute(), `{"adminEnabled":false,"description":"drained"}`)
	ic2 := c.must(200, http.MethodGet, global+"/interconnects/ic-2", stateCompute(), "")
	c.must(200, http.MethodPost, global+"/interconnects/ic-2/setLabels", stateCompute(), fmt.Sprintf(`{"labels":{"site":"two"},"labelFingerprint":%q}`, ic2["labelFingerprint"]))
	att1 := c.must(200, http.MethodGet, region("us-east4")+"/interconnectAttachments/att-1", stateCompute(), "")
	c.must(200, http.MethodPost, region("us-east4")+"/interconnectAttachments/att-1/setLabels", stateCompute(), fmt.Sprintf(`{"labels":{"vlan":"one"},"labelFingerprint":%q}`, att1["labelFingerprint"]))
	c.must(200, http.MethodPost, global+"/forwardingRules/fr-b/setTarget", stateCompute(), `{"target":"global/targetHttpProxies/proxy-b"}`)
	c.must(200, http.MethodPut, "/_understudy/compute/projects/"+stateProject+"/regions/us-east4/interconnectAttachments/att-2/circuit",
		map[string]string{"Authorization": "Bearer " + stateAdminToken, "Content-Type": "application/json"}, `{"state":"DOWN"}`)
	insert(global+"/interconnects", `{"name":"ic-3","location":"global/interconnectLocations/lax-zone1-8","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1,"interconnectType":"DEDICATED"}`)
	insert(global+"/interconnectGroups", `{"name":"icg-1","intent":{"topologyCapability":"PRODUCTION_NON_CRITICAL"},"interconnects":{"a":{"interconnect":"global/interconnects/ic-1"},"b":{"interconnect":"global/interconnects/ic-2"},"c":{"interconnect":"global/interconnects/ic-3"}}}`)
	c.finish(c.must(200, http.MethodDelete, global+"/interconnects/ic-3", stateCompute(), ""))
	for _, g := range []string{"interconnectAttachmentGroups/g-1", "interconnectGroups/icg-1"} {
		c.must(200, http.MethodPost, global+"/"+g+"/setIamPolicy", stateCompute(),
			`{"policy":{"version":3,"bindings":[{"role":"roles/compute.networkViewer","members":["user:ana@example.com"]},{"role":"roles/compute.networkAdmin","members":["group:ops@example.com"],"condition":{"title":"weekdays","expression":"request.time.getDayOfWeek() < 5"}}]}}`)
	}
	// Partner Interconnect across the two projects: the partner's interconnect and
	// attachments in the seed's project, the customer's in the other; one pair activated,
	// one PARTNER attachment still waiting for its partner, one whose partner's side was
	// deleted (DEFUNCT).
	partner := "/compute/v1/projects/" + stateSeedProject
	insert(partner+"/global/interconnects", `{"name":"ic-partner","location":"global/interconnectLocations/iad-zone1-1","linkType":"LINK_TYPE_ETHERNET_10G_LR","requestedLinkCount":1,"interconnectType":"PARTNER"}`)
	for _, name := range []string{"pa-1", "pa-2", "pa-3"} {
		insert(region("us-east4")+"/interconnectAttachments", `{"name":"`+name+`","type":"PARTNER","router":"regions/us-east4/routers/r1","edgeAvailabilityDomain":"AVAILABILITY_DOMAIN_1"}`)
	}
	for _, name := range []string{"pa-1", "pa-3"} {
		key := c.must(200, http.MethodGet, region("us-east4")+"/interconnectAttachments/"+name, stateCompute(), "")["pairingKey"].(string)
		insert(partner+"/regions/us-east4/interconnectAttachments", `{"name":"pp-`+name[3:]+`","type":"PARTNER_PROVIDER","pairingKey":"`+key+`","interconnect":"global/interconnects/ic-partner","bandwidth":"BPS_1G","partnerAsn":"64512",`+
			`"partnerMetadata":{"partnerName":"Example Networks","interconnectName":"Ashburn 1","portalUrl":"https://portal.example.net"}}`)
	}
	c.must(200, http.MethodPatch, region("us-east4")+"/interconnectAttachments/pa-1", stateCompute(), `{"adminEnabled":true}`)
	c.finish(c.must(200, http.MethodDelete, partner+"/regions/us-east4/interconnectAttachments/pp-3", stateCompute(), ""))
	// The same requestId again: the operation of the first insert.
	c.must(200, http.MethodPost, global+"/forwardingRules?requestId=5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a01", stateCompute(), `{"name":"fr-a","portRange":"80-80","labels":{"env":"dev"},"description":"the a rule"}`)

	// Accounts: in test and live mode and on two platforms; one updated, one closed; links,
	// one opened and submitted, one opened only, one never opened; idempotency keys.
	test := stateAccounts(stateKeys[0])
	alpha := c.must(200, http.MethodPost, "/v2/core/accounts", withKey(test, "Idempotency-Key", "create-alpha"),
		`{"display_name":"Alpha","contact_email":"alpha@example.com","identity":{"country":"US","entity_type":"individual"},"metadata":{"k":"v"},"configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}},"customer":{}}}`)["id"].(string)
	beta := c.must(200, http.MethodPost, "/v2/core/accounts", test, `{"display_name":"Beta","dashboard":"full","contact_phone":"+15555550100","defaults":{"currency":"eur","locales":["de-DE"]},"identity":{"country":"de","entity_type":"company","business_details":{"registered_name":"Beta GmbH"}},"configuration":{"merchant":{"mcc":"5734","branding":{"primary_color":"#00ff00"},"capabilities":{"card_payments":{"requested":true}}}}}`)["id"].(string)
	// Persons (with an Idempotency-Key), and a token, which the export leaves out.
	c.must(200, http.MethodPost, "/v2/core/accounts/"+beta+"/persons", withKey(test, "Idempotency-Key", "person-beta"),
		`{"given_name":"Bea","surname":"Ta","relationship":{"representative":true,"percent_ownership":"50"},"metadata":{"m":"1"}}`)
	c.must(200, http.MethodPost, "/v2/core/accounts/"+beta+"/persons", test, `{"given_name":"Owen","relationship":{"owner":true}}`)
	c.must(200, http.MethodPost, "/v2/core/account_tokens", withKey(test, "Idempotency-Key", "token-beta"), `{"display_name":"Tokenized"}`)
	// Event destinations: a webhook endpoint updated and disabled, an EventBridge one; the
	// events the accounts emit are not exported.
	hook := c.must(200, http.MethodPost, "/v2/core/event_destinations", test, `{"name":"hooks","description":"onboarding","type":"webhook_endpoint","event_payload":"thin","enabled_events":["v2.core.account.created","v2.core.account_person.created"],"webhook_endpoint":{"url":"https://platform.example/hooks"},"metadata":{"team":"ops"}}`)["id"].(string)
	c.must(200, http.MethodPost, "/v2/core/event_destinations/"+hook, test, `{"name":"hooks, renamed","metadata":{"x":"1"}}`)
	c.must(200, http.MethodPost, "/v2/core/event_destinations/"+hook+"/disable", test, ``)
	c.must(200, http.MethodPost, "/v2/core/event_destinations", test, `{"name":"bridge","type":"amazon_eventbridge","event_payload":"snapshot","snapshot_api_version":"2026-05-27.dahlia","enabled_events":["customer.created"],"events_from":["@self"],"amazon_eventbridge":{"aws_account_id":"123456789012","aws_region":"us-east-1"}}`)
	gamma := c.must(200, http.MethodPost, "/v2/core/accounts", test, `{"display_name":"Gamma"}`)["id"].(string)
	c.must(200, http.MethodPost, "/v2/core/accounts/"+beta, withKey(test, "Idempotency-Key", "update-beta"), `{"display_name":null,"metadata":{"x":"1"},"configuration":{"merchant":{"capabilities":{"card_payments":{"requested":false}}}}}`)
	c.must(200, http.MethodPost, "/v2/core/accounts/"+gamma+"/close", test, `{"applied_configurations":[]}`)
	link := func(account, config, key string) string {
		h := test
		if key != "" {
			h = withKey(test, "Idempotency-Key", key)
		}
		return c.must(200, http.MethodPost, "/v2/core/account_links", h, `{"account":"`+account+`","use_case":{"type":"account_onboarding","account_onboarding":{"configurations":["`+config+`"],"refresh_url":"https://platform.example/refresh","return_url":"https://platform.example/return","collection_options":{"fields":"eventually_due"}}}}`)["url"].(string)
	}
	submitted := link(alpha, "recipient", "link-alpha")
	code, _, page := c.do(http.MethodGet, submitted, nil, "")
	nonce := regexp.MustCompile(`name="nonce" value="([^"]+)"`).FindSubmatch(page)
	if code != 200 || nonce == nil {
		t.Fatalf("open %s: %d", submitted, code)
	}
	form := url.Values{"nonce": {string(nonce[1])}, "contact_email": {"alpha@example.com"}, "display_name": {"Alpha"}, "country": {"us"},
		"entity_type": {"individual"}, "given_name": {"Al"}, "surname": {"Pha"}, "date_of_birth": {"1990-01-31"}, "terms_of_service": {"accepted"}}
	if code, where, b := c.do(http.MethodPost, submitted, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, form.Encode()); code != http.StatusSeeOther {
		t.Fatalf("submit: %d %s %s", code, where, b)
	}
	opened := link(alpha, "customer", "")
	if code, _, _ := c.do(http.MethodGet, opened, nil, ""); code != 200 {
		t.Fatalf("open: %d", code)
	}
	link(beta, "merchant", "link-beta")
	c.must(200, http.MethodPost, "/v2/core/accounts", stateAccounts(stateKeys[1]), `{"display_name":"Live One","contact_email":"live@example.com"}`)
	c.must(200, http.MethodPost, "/v2/core/accounts", stateAccounts(stateKeys[2]), `{"display_name":"Acme Seller","configuration":{"recipient":{}}}`)
}

// statePaths are the reads to compare: every list of every API (first pages and paged),
// and every resource, operation, account and link those lists and the state name. a is
// the server the state was made on: its lists name what there is.
func statePaths(t *testing.T, a *stateClient) []stateRead {
	var reads []stateRead
	add := func(path string, h map[string]string) { reads = append(reads, stateRead{path, h}) }

	// Authorization: lists at each scope (all, at the scope, by principal, a page at a
	// time), each assignment, role definitions.
	for _, scope := range []string{stateSub, stateSub + "/resourceGroups/rg-state", "providers/Vendor.Management/managementGroups/mg-state"} {
		base := "/" + scope + stateRoleProvider + "roleAssignments" + armVersion
		for _, q := range []string{"", "&$filter=atScope()", "&$top=1", "&$filter=assignedTo('c1c1c1c1-0000-4000-8000-000000000004')"} {
			add(base+q, stateARM())
		}
		list := a.must(200, http.MethodGet, base, stateARM(), "")
		for _, v := range list["value"].([]any) {
			add(v.(map[string]any)["id"].(string)+armVersion, stateARM())
		}
	}
	for _, p := range []string{"22222222-2222-4222-8222-222222222222", "c1c1c1c1-0000-4000-8000-000000000003"} {
		add("/"+stateSub+stateRoleProvider+"roleAssignments"+armVersion+"&$filter=assignedTo('"+p+"')", stateARM())
	}
	add(stateRoleProvider+"roleAssignments"+armVersion+"&$filter=atScope()", stateARM())
	add("/providers/Microsoft.Management/managementGroups/mg-example"+stateRoleProvider+"roleAssignments"+armVersion, stateARM())
	add("/"+stateSub+"/resourceGroups/rg-state"+stateRoleProvider+"permissions"+armVersion, stateARM())
	add("/_understudy/authorization/principals", stateAdmin())
	// Deny assignments: lists (all, by filters, a page at a time, in each api-version) and
	// each one by id.
	for _, q := range []string{"", "&$filter=atScope()", "&$top=1", "&$filter=assignedTo('22222222-2222-4222-8222-222222222222')",
		"&$filter=gdprExportPrincipalId%20eq%20'22222222-2222-4222-8222-222222222222'", "&$filter=principalId%20eq%20'c1c1c1c1-0000-4000-8000-000000000006'"} {
		for _, v := range []string{armVersion, "?api-version=2018-07-01-preview", "?api-version=2024-07-01-preview"} {
			add("/"+stateSub+stateRoleProvider+"denyAssignments"+v+q, stateARM())
		}
	}
	denies := a.must(200, http.MethodGet, "/"+stateSub+stateRoleProvider+"denyAssignments"+armVersion, stateARM(), "")
	if len(denies["value"].([]any)) != 2 {
		t.Fatalf("deny assignments: %v, want the seed's and the admin API's", denies)
	}
	for _, v := range denies["value"].([]any) {
		add(v.(map[string]any)["id"].(string)+"?api-version=2024-07-01-preview", stateARM())
	}
	add(stateRoleProvider+"roleDefinitions"+armVersion, stateARM())
	add("/"+stateSub+stateRoleProvider+"roleDefinitions"+armVersion+"&$filter=type%20eq%20'CustomRole'", stateARM())
	add("/"+stateSub+stateRoleProvider+"roleDefinitions/33333333-3333-4333-8333-333333333333"+armVersion, stateARM())
	add("/"+stateSub+stateRoleProvider+"roleDefinitions/44444444-4444-4444-8444-444444444444?api-version=2022-05-01-preview", stateARM())

	// Compute: every collection of both projects, a page at a time and newest first too,
	// and every item of each.
	for _, p := range []string{stateSeedProject, stateProject} {
		var lists []string
		for _, c := range []string{"forwardingRules", "interconnects", "interconnectAttachmentGroups", "interconnectGroups", "operations", "interconnectLocations", "interconnectRemoteLocations"} {
			lists = append(lists, "/compute/v1/projects/"+p+"/global/"+c)
		}
		for _, r := range []string{"us-east4", "us-east1", "us-west1", "europe-west4"} {
			for _, c := range []string{"interconnectAttachments", "forwardingRules", "operations"} {
				lists = append(lists, "/compute/v1/projects/"+p+"/regions/"+r+"/"+c)
			}
		}
		for _, l := range lists {
			for _, q := range []string{"", "?maxResults=1", "?maxResults=2&orderBy=creationTimestamp%20desc"} {
				add(l+q, stateCompute())
				page := a.must(200, http.MethodGet, l+q, stateCompute(), "")
				if next, ok := page["nextPageToken"].(string); ok {
					sep := "?"
					if q != "" {
						sep = "&"
					}
					add(l+q+sep+"pageToken="+url.QueryEscape(next), stateCompute())
				}
			}
			items, _ := a.must(200, http.MethodGet, l, stateCompute(), "")["items"].([]any)
			catalog := strings.HasSuffix(l, "Locations")
			if catalog {
				// Of the catalogs, the entries the seed adds, read by name only.
				items = slices.DeleteFunc(items, func(it any) bool { return !strings.Contains(it.(map[string]any)["name"].(string), "-ams-") })
			}
			for _, it := range items {
				self := strings.TrimPrefix(it.(map[string]any)["selfLink"].(string), a.base)
				add(self, stateCompute())
				if strings.Contains(self, "/interconnectAttachmentGroups/") || strings.Contains(self, "/interconnectGroups/") {
					add(self+"/getOperationalStatus", stateCompute())
					add(self+"/getIamPolicy", stateCompute())
					add(self+"/getIamPolicy?optionsRequestedPolicyVersion=3", stateCompute())
				}
				if strings.Contains(self, "/global/interconnects/") {
					add(self+"/getDiagnostics", stateCompute())
					add(self+"/getMacsecConfig", stateCompute())
				}
				if id, ok := it.(map[string]any)["id"].(string); ok && !strings.Contains(self, "/operations/") && !catalog {
					add(self[:strings.LastIndexByte(self, '/')+1]+id, stateCompute()) // by id
				}
			}
		}
	}

	// Accounts: each key's lists (a page at a time, closed ones) and each account with every
	// section included.
	for _, key := range stateKeys {
		h := stateAccounts(key)
		for _, q := range []string{"", "?limit=1", "?closed=true", "?applied_configurations=recipient"} {
			add("/v2/core/accounts"+q, h)
		}
		page := a.must(200, http.MethodGet, "/v2/core/accounts?limit=1", h, "")
		if next, ok := page["next_page_url"].(string); ok {
			add(next, h)
		}
		all := a.must(200, http.MethodGet, "/v2/core/accounts?limit=100", h, "")
		closed := a.must(200, http.MethodGet, "/v2/core/accounts?limit=100&closed=true", h, "")
		for _, v := range append(all["data"].([]any), closed["data"].([]any)...) {
			id := v.(map[string]any)["id"].(string)
			add("/v2/core/accounts/"+id+"?include=configuration.customer&include=configuration.merchant&include=configuration.recipient&include=identity&include=requirements&include=future_requirements&include=defaults", h)
			add("/v2/core/accounts/"+id+"/persons", h)
			add("/v2/core/accounts/"+id+"/persons?limit=1", h)
		}
		add("/v2/core/event_destinations", h)
		add("/v2/core/event_destinations?limit=1", h)
		dests := a.must(200, http.MethodGet, "/v2/core/event_destinations?limit=100", h, "")
		for _, v := range dests["data"].([]any) {
			id := v.(map[string]any)["id"].(string)
			add("/v2/core/event_destinations/"+id+"?include=webhook_endpoint.url", h) // the secrets: in the export, compared whole
		}
	}
	return reads
}

// stateRead is a GET to compare.
type stateRead struct {
	path   string
	header map[string]string
}

// sameAnswers checks that b answers every read as a does, byte for byte once each
// server's own URL is replaced.
func sameAnswers(t *testing.T, a, b *stateClient, reads []stateRead) {
	t.Helper()
	for _, r := range reads {
		codeA, whereA, bodyA := a.do(http.MethodGet, r.path, r.header, "")
		codeB, whereB, bodyB := b.do(http.MethodGet, r.path, r.header, "")
		bodyA, bodyB = bytes.ReplaceAll(bodyA, []byte(a.base), []byte("BASE")), bytes.ReplaceAll(bodyB, []byte(b.base), []byte("BASE"))
		if codeA != codeB || whereA != whereB || !bytes.Equal(bodyA, bodyB) {
			t.Errorf("GET %s:\noriginal %d %s %s\nreplayed %d %s %s", r.path, codeA, whereA, bodyA, codeB, whereB, bodyB)
		}
		if codeA != 200 {
			t.Errorf("GET %s: %d %s, want a read that finds something", r.path, codeA, bodyA)
		}
	}
}

// exportState reads the state of srv through the generated admin client.
func exportState(t *testing.T, srv *understudytest.Server) []byte {
	t.Helper()
	resp, err := srv.Admin.GetStateWithResponse(context.Background())
	if err != nil || resp.StatusCode() != 200 || resp.HTTPResponse.Header.Get("Content-Type") != "application/yaml" || resp.YAML200 == nil {
		t.Fatalf("export: %v %d %s", err, resp.StatusCode(), resp.Body)
	}
	return resp.Body
}

// TestStateRoundTrip: a state built through every API, exported, is what a fresh server
// seeded from the export serves: every list and get answers the same bytes (once the
// servers' URLs are replaced), links open as they did, retries with a remembered
// Idempotency-Key or requestId get what they got. Reset on the replayed server comes back
// to it, and its own export is the same file.
func TestStateRoundTrip(t *testing.T) {
	srvA := understudytest.Start(t, understudytest.WithSeedFile("../testdata/seed-example.yaml"), understudytest.WithOperationMode("manual"),
		understudytest.WithAdminToken(stateAdminToken))
	a := newStateClient(t, srvA.URL)
	buildState(t, a)
	exported := exportState(t, srvA)
	t.Logf("export, %d bytes:\n%s", len(exported), exported)
	for _, want := range []string{"fr-a", "region: projects/" + stateProject + "/regions/us-east4", "serviceName: web.fr-a.il4.us-east4", "networkTier: STANDARD", "labelFingerprint: ", "sequence: ", "att-3", "g-1", "patched", "icg-1", "deletedInterconnects", "circuitDown: true", "type: PARTNER_PROVIDER", "pairingKey: ", "state: DEFUNCT", "state: PENDING_PARTNER", "roles/compute.networkAdmin", "RESOURCE_NOT_FOUND", "clientOperationId: 5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a01",
		"a1a1a1a1-0000-4000-8000-000000000003", "B0F43C54-E787-4862-89B1-A653FA9CF747", "closed: true", "onboarded_configurations:", "consumed: true", "key: link-alpha", "operationMode: manual",
		"managementGroups:", "id: mg-example", "displayName: state group", "type: ManagedIdentity", "scope: /\n",
		"denyAssignments:", "denyAssignmentName: Managed application lock", "description: replaced", "type: SystemDefined", "denyAssignmentEffect: audit", "createdBy: understudy-admin",
		"given_name: Bea", "key: person-beta", "registered_name: Beta GmbH",
		"event_destinations:", "signing_secret: whsec_", "name: hooks, renamed", "aws_account_id: \"123456789012\""} {
		if !bytes.Contains(exported, []byte(want)) {
			t.Errorf("the export lacks %q", want)
		}
	}
	if bytes.Contains(exported, []byte(srvA.URL)) {
		t.Errorf("the export names the server's URL %s", srvA.URL)
	}

	file := filepath.Join(t.TempDir(), "state.yaml")
	if err := os.WriteFile(file, exported, 0o600); err != nil {
		t.Fatal(err)
	}
	srvB := understudytest.Start(t, understudytest.WithSeedFile(file), understudytest.WithAdminToken(stateAdminToken))
	b := newStateClient(t, srvB.URL)
	reads := statePaths(t, a)
	if len(reads) < 150 {
		t.Fatalf("only %d reads to compare", len(reads))
	}
	t.Logf("%d reads compared", len(reads))
	sameAnswers(t, a, b, reads)
	if again := exportState(t, srvB); !bytes.Equal(again, exported) {
		t.Errorf("the replayed server exports another file:\n%s", again)
	}

	// What a retry finds: the link an Idempotency-Key made, the operation a requestId
	// started, on both servers alike.
	for _, c := range []*stateClient{a, b} {
		code, _, body := c.do(http.MethodPost, "/compute/v1/projects/"+stateProject+"/regions/us-east4/interconnectAttachments?requestId=5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a02", stateCompute(),
			`{"name":"att-2","interconnect":"global/interconnects/ic-2","vlanTag8021q":300,"mtu":1500,"description":"second","labels":{"b":"2"}}`)
		if code != 200 || !bytes.Contains(body, []byte(`"clientOperationId":"5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a02"`)) {
			t.Errorf("requestId retry on %s: %d %s", c.base, code, body)
		}
		code, _, body = c.do(http.MethodPost, "/compute/v1/projects/"+stateProject+"/regions/us-east4/forwardingRules?requestId=5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a03", stateCompute(), `{"name":"fr-a"}`)
		if code != 200 || !bytes.Contains(body, []byte(`"clientOperationId":"5e1f3a3e-7a53-4c43-9cf5-3b9d6c2a1a03"`)) || !bytes.Contains(body, []byte(`/regions/us-east4/forwardingRules/fr-a"`)) {
			t.Errorf("regional rule's requestId retry on %s: %d %s", c.base, code, body)
		}
	}
	retry := func(c *stateClient) []byte {
		_, _, body := c.do(http.MethodPost, "/v2/core/accounts", withKey(stateAccounts(stateKeys[0]), "Idempotency-Key", "create-alpha"),
			`{"display_name":"Alpha","contact_email":"alpha@example.com","identity":{"country":"US","entity_type":"individual"},"metadata":{"k":"v"},"configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}},"customer":{}}}`)
		return body
	}
	if ra, rb := retry(a), retry(b); !bytes.Equal(ra, rb) || !bytes.Contains(ra, []byte(`"display_name":"Alpha"`)) {
		t.Errorf("Idempotency-Key retry:\noriginal %s\nreplayed %s", ra, rb)
	}
	if _, _, other := b.do(http.MethodPost, "/v2/core/accounts", withKey(stateAccounts(stateKeys[0]), "Idempotency-Key", "create-alpha"), `{"display_name":"Other"}`); !bytes.Contains(other, []byte("idempotency_error")) {
		t.Errorf("a remembered key with another body: %s", other)
	}
	// A remembered key is bound to its endpoint on both servers: the replayed one derives
	// each key's path from its operation and what it made.
	for key, first := range map[string]string{"create-alpha": "'/v2/core/accounts')", "person-beta": "/persons')", "update-beta": "')"} {
		var msgs []string
		for _, c := range []*stateClient{a, b} {
			_, _, body := c.do(http.MethodPost, "/v2/core/account_tokens", withKey(stateAccounts(stateKeys[0]), "Idempotency-Key", key), `{"display_name":"T"}`)
			var env struct {
				Error struct{ Type, Message string }
			}
			_ = json.Unmarshal(body, &env)
			if env.Error.Type != "idempotency_error" || !strings.HasSuffix(env.Error.Message, first+". Try using a key other than '"+key+"' if you meant to execute a different request.") ||
				!strings.Contains(env.Error.Message, "('/v2/core/account_tokens' vs '/v2/core/accounts") {
				t.Errorf("key %s on another endpoint of %s: %s", key, c.base, body)
			}
			msgs = append(msgs, env.Error.Message)
		}
		if msgs[0] != msgs[1] {
			t.Errorf("key %s on another endpoint: original %q, replayed %q", key, msgs[0], msgs[1])
		}
	}
	// Links: used ones send the browser to refresh_url on both; the unused one opens the
	// form on both (which uses it up).
	linksA := linkURLs(exported, a.base)
	if len(linksA) != 3 {
		t.Fatalf("links in the export: %v", linksA)
	}
	for _, path := range linksA {
		codeA, whereA, _ := a.do(http.MethodGet, path, nil, "")
		codeB, whereB, _ := b.do(http.MethodGet, path, nil, "")
		if codeA != codeB || whereA != whereB {
			t.Errorf("GET %s: original %d %s, replayed %d %s", path, codeA, whereA, codeB, whereB)
		}
	}

	// Reset on the replayed server goes back to the export, after changes.
	b.must(201, http.MethodPut, "/"+stateSub+stateRoleProvider+"roleAssignments/a1a1a1a1-0000-4000-8000-000000000009"+armVersion, stateARM(),
		`{"properties":{"principalId":"c1c1c1c1-0000-4000-8000-000000000009","roleDefinitionId":"/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"}}`)
	b.must(200, http.MethodDelete, "/"+stateSub+stateRoleProvider+"roleAssignments/a1a1a1a1-0000-4000-8000-000000000001"+armVersion, stateARM(), "")
	b.must(200, http.MethodPost, "/compute/v1/projects/"+stateProject+"/global/forwardingRules", stateCompute(), `{"name":"fr-new"}`)
	b.must(200, http.MethodPost, "/v2/core/accounts", stateAccounts(stateKeys[0]), `{"display_name":"New"}`)
	b.must(204, http.MethodDelete, "/_understudy/authorization/denyAssignments/66666666-6666-4666-8666-666666666666", stateAdmin(), "")
	if r, err := srvB.Admin.ResetWithResponse(context.Background()); err != nil || r.StatusCode() != 200 {
		t.Fatalf("reset: %v", err)
	}
	sameAnswers(t, a, b, reads)
	if again := exportState(t, srvB); !bytes.Equal(again, exported) {
		t.Errorf("after a reset, the replayed server exports another file:\n%s", again)
	}
}

// linkURLs are the hosted pages of the links an export holds, as paths.
func linkURLs(export []byte, _ string) []string {
	var out []string
	re := regexp.MustCompile(`(?m)^    - token: (\S+)\n(?:      .*\n)*?      account: (\S+)`)
	for _, m := range re.FindAllSubmatch(export, -1) {
		out = append(out, "/r/"+string(m[2])+"/"+string(m[1]))
	}
	slices.Sort(out)
	return out
}

// TestEmptyStateExportIsASeed: the export of a server with nothing in it (the built-in
// defaults, as the binary starts) is a seed that starts a server, which exports it again.
func TestEmptyStateExportIsASeed(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  func(*server.Config)
	}{
		{"understudytest's defaults", func(*server.Config) {}},
		{"the binary's defaults", func(c *server.Config) {
			if err := server.DefaultSeed().Apply(c, nil); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := understudytest.Start(t, understudytest.WithConfig(tt.cfg))
			exported := exportState(t, srv)
			seed, err := server.ParseSeed("export.yaml", exported)
			if err != nil {
				t.Fatal(err)
			}
			cfg := server.Config{}
			tt.cfg(&cfg)
			if err := seed.Apply(&cfg, nil); err != nil {
				t.Fatalf("%v\n%s", err, exported)
			}
			file := filepath.Join(t.TempDir(), "empty.yaml")
			if err := os.WriteFile(file, exported, 0o600); err != nil {
				t.Fatal(err)
			}
			again := exportState(t, understudytest.Start(t, understudytest.WithConfig(tt.cfg), understudytest.WithSeedFile(file)))
			if !bytes.Equal(again, exported) {
				t.Errorf("exported:\n%s\nreplayed and exported again:\n%s", exported, again)
			}
			t.Logf("%s", exported)
		})
	}
}

// TestExportLeavesOutWorkInFlight: a rule whose insert runs is not exported, nor is its
// operation; a rule whose delete runs is, as it still reads, without that operation.
func TestExportLeavesOutWorkInFlight(t *testing.T) {
	srv := understudytest.Start(t, understudytest.WithOperationMode("manual"))
	c := newStateClient(t, srv.URL)
	global := seedProjectPath + "/global/forwardingRules"
	c.finish(c.must(200, http.MethodPost, global, stateCompute(), `{"name":"fr-kept"}`))
	running := c.must(200, http.MethodPost, global, stateCompute(), `{"name":"fr-running"}`)
	deleting := c.must(200, http.MethodDelete, global+"/fr-kept", stateCompute(), "")
	exported := exportState(t, srv)
	for _, gone := range []string{"fr-running", running["name"].(string), deleting["name"].(string)} {
		if bytes.Contains(exported, []byte(gone)) {
			t.Errorf("the export holds %s, which is in flight:\n%s", gone, exported)
		}
	}
	if !bytes.Contains(exported, []byte("name: fr-kept")) {
		t.Errorf("the export lacks fr-kept, which still reads:\n%s", exported)
	}
}
