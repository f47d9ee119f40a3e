package compute_test

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
)

// TestAPIMembersAgainstSpec sends bodies with the members beyond the seeds through the
// generated client, whose transport checks every response against the spec: the members
// the server computes have the types and enums the discovery document gives them.
func TestAPIMembersAgainstSpec(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "dev@example.com")
	global := "projects/" + apiProject + "/global/"
	post := func(t *testing.T, path, body string) (int, []byte) {
		t.Helper()
		var status int
		var got []byte
		switch {
		case strings.HasSuffix(path, "interconnects"):
			resp, err := c.InterconnectsInsertWithBodyWithResponse(apiCtx, apiProject, nil, "application/json", bytes.NewBufferString(body))
			if err != nil {
				t.Fatal(err)
			}
			status, got = resp.StatusCode(), resp.Body
		case strings.HasSuffix(path, "interconnectAttachments"):
			resp, err := c.InterconnectAttachmentsInsertWithBodyWithResponse(apiCtx, apiProject, "us-east4", nil, "application/json", bytes.NewBufferString(body))
			if err != nil {
				t.Fatal(err)
			}
			status, got = resp.StatusCode(), resp.Body
		default:
			resp, err := c.GlobalForwardingRulesInsertWithBodyWithResponse(apiCtx, apiProject, nil, "application/json", bytes.NewBufferString(body))
			if err != nil {
				t.Fatal(err)
			}
			status, got = resp.StatusCode(), resp.Body
		}
		return status, got
	}

	if status, body := post(t, "forwardingRules", `{"name":"fr-all","portRange":"8443","target":"global/targetHttpsProxies/p","networkTier":"PREMIUM",
		"loadBalancingScheme":"EXTERNAL_MANAGED","subnetwork":"regions/us-east4/subnetworks/s","ipCollection":"regions/us-east4/publicDelegatedPrefixes/p",
		"allowPscGlobalAccess":true,"noAutomateDnsZone":true,"externalManagedBackendBucketMigrationState":"TEST_BY_PERCENTAGE",
		"externalManagedBackendBucketMigrationTestingPercentage":12.5,"ports":[],"allPorts":false,"region":"ignored","pscConnectionStatus":"ACCEPTED"}`); status != 200 {
		t.Fatalf("insert rule: %d %s", status, body)
	}
	rule := apiGetRule(t, c, "fr-all")
	if rule.JSON200 == nil {
		t.Fatalf("get rule: %d %s", rule.StatusCode(), rule.Body)
	}
	r := *rule.JSON200
	if *r.PortRange != "8443-8443" || *r.NetworkTier != gen.ForwardingRuleNetworkTierPREMIUM || *r.IpCollection == "" || !*r.AllowPscGlobalAccess ||
		!*r.NoAutomateDnsZone || *r.ExternalManagedBackendBucketMigrationTestingPercentage != 12.5 || r.Region != nil || r.PscConnectionStatus != nil {
		t.Errorf("rule read back: %s", rule.Body)
	}

	if status, body := post(t, "interconnects", `{"name":"ic-all","location":"`+global+`interconnectLocations/iad-zone1-1","linkType":"LINK_TYPE_ETHERNET_10G_LR",
		"requestedLinkCount":1,"interconnectType":"DEDICATED","requestedFeatures":["IF_MACSEC"],"macsecEnabled":true,"subzone":"SUBZONE_A",
		"remoteLocation":"global/interconnectRemoteLocations/aws-iad-1","macsec":{"failOpen":false,"preSharedKeys":[{"name":"k1"}]},
		"params":{"resourceManagerTags":{"tagKeys/1":"tagValues/1"}}}`); status != 200 {
		t.Fatalf("insert interconnect: %d %s", status, body)
	}
	ic, err := c.InterconnectsGetWithResponse(apiCtx, apiProject, "ic-all", nil)
	if err != nil || ic.JSON200 == nil {
		t.Fatalf("get interconnect: %v %s", err, ic.Body)
	}
	if *ic.JSON200.Subzone != gen.InterconnectSubzoneSUBZONEA || deref(ic.JSON200.RemoteLocation) != srv.URL+"/compute/v1/"+global+"interconnectRemoteLocations/aws-iad-1" ||
		len(ic.JSON200.CircuitInfos) != 1 {
		t.Errorf("interconnect read back: %s", ic.Body)
	}

	if status, body := post(t, "interconnectAttachments", `{"name":"att-all","interconnect":"`+global+`interconnects/ic-all","encryption":"NONE",
		"stackType":"IPV4_IPV6","candidateSubnets":["169.254.100.0/24"],"candidateIpv6Subnets":["2001:db8::/64"],"cloudRouterIpv6InterfaceId":"::1",
		"customerRouterIpv6InterfaceId":"::2"}`); status != 200 {
		t.Fatalf("insert attachment: %d %s", status, body)
	}
	att, err := c.InterconnectAttachmentsGetWithResponse(apiCtx, apiProject, "us-east4", "att-all", nil)
	if err != nil || att.JSON200 == nil {
		t.Fatalf("get attachment: %v %s", err, att.Body)
	}
	a := *att.JSON200
	if *a.CloudRouterIpAddress != "169.254.100.1/29" || *a.CustomerRouterIpAddress != "169.254.100.2/29" ||
		*a.CloudRouterIpv6Address != "2001:db8::1/125" || *a.CustomerRouterIpv6Address != "2001:db8::2/125" || *a.CloudRouterIpv6InterfaceId != "::1" {
		t.Errorf("attachment read back: %s", att.Body)
	}

	// A name the discovery document does not define is still unknown, also inside a new member.
	for _, body := range []string{
		`{"name":"fr-bogus","bogus":1}`,
		`{"name":"fr-bogus","loadBalancingScheme":"INTERNAL_SELF_MANAGED","metadataFilters":[{"filterMatchCriteria":"MATCH_ANY","bogus":1}]}`,
	} {
		status, got := post(t, "forwardingRules", body)
		if e := wantGoogleError(t, status, got, 400, "invalid"); !strings.Contains(e.Message, "bogus") {
			t.Errorf("%s: message %q, want it to name the unknown member", body, e.Message)
		}
	}
}

// insertRuleBody sends a forwarding rule's insert with the raw body.
func insertRuleBody(t *testing.T, c *gen.ClientWithResponses, body string) (int, []byte) {
	t.Helper()
	resp, err := c.GlobalForwardingRulesInsertWithBodyWithResponse(apiCtx, apiProject, nil, "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode(), resp.Body
}

// TestRuleIPAddress: a rule's IPAddress is an address of its ipVersion's family, given or
// made (an IPv6 rule gets an IPv6 one); a value meant as an address that is none, or one of
// the other family, is refused in the real service's words; an address resource's URL or
// name is kept as given.
func TestRuleIPAddress(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "dev@example.com")
	v4, v6 := gen.ForwardingRuleIpVersionIPV4, gen.ForwardingRuleIpVersionIPV6
	for _, tt := range []struct {
		name, body, want string
		version          gen.ForwardingRuleIpVersion
	}{
		{"fr-v4", `{"name":"fr-v4"}`, "34.", v4},
		{"fr-v6", `{"name":"fr-v6","ipVersion":"IPV6"}`, "2600:1901:0:", v6},
		{"fr-given4", `{"name":"fr-given4","IPAddress":"203.0.113.7"}`, "203.0.113.7", v4},
		{"fr-given6", `{"name":"fr-given6","IPAddress":"2001:db8::7"}`, "2001:db8::7", v6},
		{"fr-range6", `{"name":"fr-range6","IPAddress":"2600:1234::/96","ipVersion":"IPV6"}`, "2600:1234::/96", v6},
		{"fr-named", `{"name":"fr-named","IPAddress":"global/addresses/my-ip"}`, "global/addresses/my-ip", v4},
	} {
		if status, body := insertRuleBody(t, c, tt.body); status != 200 {
			t.Fatalf("%s: %d %s", tt.body, status, body)
		}
		got := apiGetRule(t, c, tt.name)
		r := got.JSON200
		if r == nil || r.IPAddress == nil || !strings.HasPrefix(*r.IPAddress, tt.want) || *r.IpVersion != tt.version {
			t.Fatalf("%s: %s, want IPAddress %s... and ipVersion %s", tt.name, got.Body, tt.want, tt.version)
		}
		if a, err := netip.ParseAddr(*r.IPAddress); tt.name == "fr-v6" && (err != nil || !a.Is6()) {
			t.Errorf("IPv6 rule's address %q: %v", *r.IPAddress, err)
		}
	}
	for _, tt := range []struct{ body, ip string }{
		{`{"name":"fr-bad1","IPAddress":"999.1.1.1"}`, "999.1.1.1"},
		{`{"name":"fr-bad2","IPAddress":"10.0.0"}`, "10.0.0"},
		{`{"name":"fr-bad3","IPAddress":"2600:::1"}`, "2600:::1"},
		{`{"name":"fr-bad4","IPAddress":"203.0.113.7","ipVersion":"IPV6"}`, "203.0.113.7"},
		{`{"name":"fr-bad5","IPAddress":"2001:db8::7","ipVersion":"IPV4"}`, "2001:db8::7"},
	} {
		status, got := insertRuleBody(t, c, tt.body)
		e := wantGoogleError(t, status, got, 400, "invalid")
		if want := "Invalid value for field 'resource.IPAddress': '" + tt.ip + "'. Invalid IP address specified."; e.Message != want {
			t.Errorf("%s: message %q, want %q", tt.body, e.Message, want)
		}
	}
}

// TestRuleAddressInUse: rules of a project that share an address and protocol must not
// share a port (the discovery document's portRange); GCE refuses such an insert in these
// words.
func TestRuleAddressInUse(t *testing.T) {
	srv, _ := apiServer(t, operations.Mode{})
	c := apiClient(t, srv, "dev@example.com")
	for _, body := range []string{
		`{"name":"fr-a","IPAddress":"203.0.113.9","portRange":"80"}`,
		`{"name":"fr-b","IPAddress":"203.0.113.9","portRange":"443-444"}`,               // other ports
		`{"name":"fr-c","IPAddress":"203.0.113.9","portRange":"80","IPProtocol":"UDP"}`, // other protocol
		`{"name":"fr-d","IPAddress":"203.0.113.10","portRange":"80"}`,                   // other address
		`{"name":"fr-e","IPAddress":"203.0.113.11"}`,                                    // every port
		`{"name":"fr-6","IPAddress":"2001:db8::7"}`,
	} {
		if status, got := insertRuleBody(t, c, body); status != 200 {
			t.Fatalf("%s: %d %s", body, status, got)
		}
	}
	for _, tt := range []struct{ body, ip string }{
		{`{"name":"fr-x1","IPAddress":"203.0.113.9","portRange":"80"}`, "203.0.113.9"},
		{`{"name":"fr-x2","IPAddress":"203.0.113.9","portRange":"444-500"}`, "203.0.113.9"},
		{`{"name":"fr-x3","IPAddress":"203.0.113.9"}`, "203.0.113.9"},
		{`{"name":"fr-x4","IPAddress":"203.0.113.11","portRange":"8080"}`, "203.0.113.11"},
		{`{"name":"fr-x5","IPAddress":"2001:DB8:0::7","ipVersion":"IPV6"}`, "2001:DB8:0::7"}, // fr-6's, spelled otherwise
	} {
		status, got := insertRuleBody(t, c, tt.body)
		e := wantGoogleError(t, status, got, 400, "invalid")
		if want := "Invalid value for field 'resource.IPAddress': '" + tt.ip + "'. Specified IP address is in-use and would result in a conflict."; e.Message != want {
			t.Errorf("%s: message %q", tt.body, e.Message)
		}
	}
	// The address is free again once its rule is deleted.
	if resp, err := c.GlobalForwardingRulesDeleteWithResponse(apiCtx, apiProject, "fr-e", nil); err != nil || resp.StatusCode() != 200 {
		t.Fatalf("delete: %v", err)
	}
	if status, got := insertRuleBody(t, c, `{"name":"fr-f","IPAddress":"203.0.113.11","portRange":"8080"}`); status != 200 {
		t.Errorf("after the delete: %d %s", status, got)
	}
}
