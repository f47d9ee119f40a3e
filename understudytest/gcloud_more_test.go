package understudytest_test

import (
	"slices"
	"strings"
	"testing"
)

// TestGoogleCloudCLIMore drives the rest of the compute API through the Google Cloud CLI,
// one command per distinct request where TestGoogleCloudCLI does not: describe and
// set-target of a global rule; interconnects' describe, list, update, labels (beta),
// diagnostics, MACsec keys and application awareness (alpha: the only track with it); the
// location and remote location catalogs; dedicated attachments and their aggregated list; attachment groups and
// interconnect groups through all their commands; operations described and listed by
// scope; and the refusals gcloud shows. The CLI's v1 messages are used unless a command is
// only in beta or alpha; with the endpoint override, every track calls the v1 API.
func TestGoogleCloudCLIMore(t *testing.T) {
	g := startGcloud(t)
	run, fail, object, list := g.run, g.fail, g.object, g.list
	str := func(m map[string]any, path string) string {
		t.Helper()
		var v any = m
		for _, k := range strings.Split(path, ".") {
			o, _ := v.(map[string]any)
			v = o[k]
		}
		s, _ := v.(string)
		return s
	}
	keys := func(m map[string]any, member string) []string {
		t.Helper()
		o, _ := m[member].(map[string]any)
		var out []string
		for k := range o {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}

	// Forwarding rules: describe (a rule without labels shows none, only the fingerprint)
	// and set-target, which takes a target of the rule's kind only.
	run("compute", "forwarding-rules", "create", "fr-a", "--global", "--target-http-proxy=web-proxy", "--ports=80")
	fr := object("compute", "forwarding-rules", "describe", "fr-a", "--global")
	if _, has := fr["labels"]; has || fr["labelFingerprint"] != "42WmSpB8rSM=" || fr["portRange"] != "80-80" || fr["networkTier"] != "PREMIUM" {
		t.Errorf("forwarding-rules describe: %v", fr)
	}
	// set-target prints the rule it reads back when the operation is done.
	if after := list("compute", "forwarding-rules", "set-target", "fr-a", "--global", "--target-http-proxy=other-proxy"); len(after) != 1 ||
		!strings.HasSuffix(str(after[0], "target"), "/global/targetHttpProxies/other-proxy") || after[0]["fingerprint"] == fr["fingerprint"] {
		t.Errorf("after set-target: %v (fingerprint was %v)", after, fr["fingerprint"])
	}
	if out := fail("compute", "forwarding-rules", "set-target", "fr-a", "--global", "--target-https-proxy=tls-proxy"); !strings.Contains(out, "same type as the current target") {
		t.Errorf("set-target to another kind: %s", out)
	}

	// Regional forwarding rules (in a region of their own here): create in a region (an internal rule with ports and global
	// access), describe with its region, labels through setLabels (GA update), global
	// access through patch, list (the aggregated list, global and regional), delete.
	run("compute", "forwarding-rules", "create", "fr-r", "--region=europe-west3", "--load-balancing-scheme=INTERNAL",
		"--backend-service=ilb-backend", "--ports=80,443", "--allow-global-access", "--service-label=web", "--network=default")
	rr := object("compute", "forwarding-rules", "describe", "fr-r", "--region=europe-west3")
	if !strings.HasSuffix(str(rr, "region"), "/regions/europe-west3") || !strings.HasSuffix(str(rr, "backendService"), "/regions/europe-west3/backendServices/ilb-backend") ||
		rr["allowGlobalAccess"] != true || rr["loadBalancingScheme"] != "INTERNAL" || !strings.HasPrefix(str(rr, "IPAddress"), "10.") ||
		str(rr, "serviceName") != "web.fr-r.il4.europe-west3.lb.my-project.internal" {
		t.Errorf("regional forwarding-rules describe: %v", rr)
	}
	run("compute", "forwarding-rules", "update", "fr-r", "--region=europe-west3", "--update-labels=env=prod,team=net")
	run("compute", "forwarding-rules", "update", "fr-r", "--region=europe-west3", "--remove-labels=team")
	run("compute", "forwarding-rules", "update", "fr-r", "--region=europe-west3", "--no-allow-global-access")
	rr = object("compute", "forwarding-rules", "describe", "fr-r", "--region=europe-west3")
	if got := keys(rr, "labels"); !slices.Equal(got, []string{"env"}) || rr["allowGlobalAccess"] != nil {
		t.Errorf("after the regional updates: labels %v, allowGlobalAccess %v", got, rr["allowGlobalAccess"])
	}
	var scopes []string
	for _, r := range list("compute", "forwarding-rules", "list") {
		scopes = append(scopes, r["name"].(string)+"@"+str(r, "region"))
	}
	if len(scopes) != 2 || !strings.HasPrefix(scopes[0], "fr-a@") || !strings.HasPrefix(scopes[1], "fr-r@") || !strings.HasSuffix(scopes[1], "/regions/europe-west3") {
		t.Errorf("forwarding-rules list: %v", scopes)
	}
	if out := fail("compute", "forwarding-rules", "create", "fr-bad", "--region=europe-west3", "--target-pool=p", "--target-pool-region=europe-west2"); !strings.Contains(out, "must be in its region") {
		t.Errorf("a target in another region: %s", out)
	}
	run("compute", "forwarding-rules", "delete", "fr-r", "--region=europe-west3", "--quiet")
	if got := list("compute", "forwarding-rules", "list", "--regions=europe-west3"); len(got) != 0 {
		t.Errorf("after delete --region: %v", got)
	}

	// Interconnects: update, labels through patch with the fingerprint (beta only), MACsec
	// keys (each command reads the interconnect and patches its macsec), then one describe.
	run("compute", "interconnects", "create", "ic-a", "--customer-name=Example", "--interconnect-type=DEDICATED", "--link-type=LINK_TYPE_ETHERNET_10G_LR",
		"--requested-link-count=1", "--location=iad-zone1-1", "--requested-features=MACSEC", "--description=first")
	run("compute", "interconnects", "create", "ic-b", "--customer-name=Example", "--interconnect-type=DEDICATED", "--link-type=LINK_TYPE_ETHERNET_10G_LR",
		"--requested-link-count=1", "--location=iad-zone2-1")
	run("compute", "interconnects", "update", "ic-a", "--description=second", "--no-admin-enabled", "--requested-link-count=2", "--noc-contact-email=ops@example.com")
	run("beta", "compute", "interconnects", "update", "ic-a", "--update-labels=env=prod,team=net")
	run("beta", "compute", "interconnects", "update", "ic-a", "--clear-labels")
	run("compute", "interconnects", "macsec", "add-key", "ic-a", "--key-name=k1", "--start-time=2025-01-01T00:00:00Z")
	run("compute", "interconnects", "macsec", "add-key", "ic-a", "--key-name=k2")
	run("compute", "interconnects", "macsec", "update", "ic-a", "--enabled", "--fail-open")
	run("compute", "interconnects", "macsec", "update-key", "ic-a", "--key-name=k2", "--start-time=2026-01-01T00:00:00Z")
	run("compute", "interconnects", "macsec", "remove-key", "ic-a", "--key-name=k1")
	ic := object("compute", "interconnects", "describe", "ic-a")
	if f, _ := ic["requestedFeatures"].([]any); len(f) != 1 || f[0] != "IF_MACSEC" || ic["description"] != "second" || ic["adminEnabled"] != false ||
		ic["requestedLinkCount"] != 2.0 || ic["nocContactEmail"] != "ops@example.com" || ic["labelFingerprint"] == "42WmSpB8rSM=" {
		t.Errorf("interconnect after update and labels: %v", ic)
	}
	if l, has := ic["labels"]; has {
		t.Errorf("labels after --clear-labels: %v", l)
	}
	if ic["macsecEnabled"] != true || !hasTrue(ic["macsec"], "failOpen") {
		t.Errorf("macsec after macsec update: %v %v", ic["macsecEnabled"], ic["macsec"])
	}
	cfg := object("compute", "interconnects", "macsec", "get-config", "ic-a")
	psks, _ := cfg["result"].(map[string]any)["preSharedKeys"].([]any)
	if len(psks) != 1 || str(psks[0].(map[string]any), "name") != "k2" || str(psks[0].(map[string]any), "startTime") != "2026-01-01T00:00:00Z" ||
		len(str(psks[0].(map[string]any), "cak")) != 32 || cfg["etag"] == nil {
		t.Errorf("macsec get-config: %v", cfg)
	}
	// Removing the last key sends "macsec": {} (an empty list is left out): macsec is
	// replaced by the value sent, not merged into, or the key would stay.
	run("compute", "interconnects", "macsec", "remove-key", "ic-a", "--key-name=k2")
	if m, _ := object("compute", "interconnects", "describe", "ic-a")["macsec"].(map[string]any); hasKey(m, "preSharedKeys") {
		t.Errorf("macsec after removing its last key: %v", m)
	}
	// Two links, both down: ic-a is drained.
	diag := object("compute", "interconnects", "get-diagnostics", "ic-a")
	links, _ := diag["result"].(map[string]any)["links"].([]any)
	if len(links) != 2 || links[0].(map[string]any)["operationalStatus"] != "LINK_OPERATIONAL_STATUS_DOWN" {
		t.Errorf("get-diagnostics of a drained interconnect with two links: %v", diag)
	}

	// Application awareness (alpha only). Its delete sends nulls inside
	// applicationAwareInterconnect, which were refused.
	run("alpha", "compute", "interconnects", "application-awareness", "configure-strict-priority-policy", "ic-b", "--enabled", "--profile-description=strict")
	run("alpha", "compute", "interconnects", "application-awareness", "delete", "ic-b")
	if aai := object("alpha", "compute", "interconnects", "application-awareness", "get-config", "ic-b"); aai["aai_enabled"] == true || hasKey(aai["aai_config"], "strictPriorityPolicy") {
		t.Errorf("application-awareness after delete: %v", aai)
	}

	// The location catalog.
	if l := list("compute", "interconnects", "locations", "list", "--filter=name~^iad-zone"); len(l) < 2 || l[0]["name"] != "iad-zone1-1" {
		t.Errorf("locations list: %v", l)
	}
	loc := object("compute", "interconnects", "locations", "describe", "iad-zone1-1")
	regions, _ := loc["regionInfos"].([]any)
	if loc["availabilityZone"] != "zone1" || len(regions) == 0 || !strings.HasSuffix(str(regions[0].(map[string]any), "region"), "/regions/us-east4") {
		t.Errorf("locations describe: %v", loc)
	}
	// The remote location catalog, of Cross-Cloud Interconnect.
	if l := list("compute", "interconnects", "remote-locations", "list", `--filter=remoteService="Microsoft Azure"`); len(l) != 2 || l[0]["name"] != "azure-iad-1" || l[1]["status"] != "CLOSED" {
		t.Errorf("remote-locations list: %v", l)
	}
	remote := object("compute", "interconnects", "remote-locations", "describe", "aws-iad-1")
	permitted, _ := remote["permittedConnections"].([]any)
	if remote["remoteService"] != "Amazon Web Services" || remote["maxLagSize10Gbps"] != 8.0 || str(remote, "constraints.portPairVlan") != "PORT_PAIR_UNCONSTRAINED_VLAN" ||
		len(permitted) == 0 || str(permitted[0].(map[string]any), "interconnectLocation") != "iad-zone1-1" { // gcloud shows the URL's last segment
		t.Errorf("remote-locations describe: %v", remote)
	}
	if out := fail("compute", "interconnects", "remote-locations", "describe", "aws-nowhere-1"); !strings.Contains(out, "The resource 'projects/my-project/global/interconnectRemoteLocations/aws-nowhere-1' was not found") {
		t.Errorf("remote-locations describe of an unknown one: %s", out)
	}
	// A Cross-Cloud Interconnect: create sends the remote location's URL, describe shows it;
	// one at a location the remote location does not permit is refused.
	run("compute", "interconnects", "create", "ic-cci", "--customer-name=Example", "--interconnect-type=DEDICATED", "--link-type=LINK_TYPE_ETHERNET_10G_LR",
		"--requested-link-count=2", "--location=iad-zone2-1", "--remote-location=aws-iad-1")
	if cci := object("compute", "interconnects", "describe", "ic-cci"); !strings.HasSuffix(str(cci, "remoteLocation"), "/compute/v1/projects/my-project/global/interconnectRemoteLocations/aws-iad-1") {
		t.Errorf("describe of a Cross-Cloud Interconnect: %v", cci)
	}
	if out := fail("compute", "interconnects", "create", "ic-far", "--customer-name=Example", "--interconnect-type=DEDICATED", "--link-type=LINK_TYPE_ETHERNET_10G_LR",
		"--requested-link-count=1", "--location=lax-zone1-8", "--remote-location=aws-iad-1"); !strings.Contains(out, "does not permit connections from interconnect location 'lax-zone1-8'") {
		t.Errorf("create at a location the remote location does not permit: %s", out)
	}
	run("compute", "interconnects", "delete", "ic-cci", "--quiet")

	// Dedicated attachments in us-east4, one on each interconnect.
	run("compute", "interconnects", "attachments", "dedicated", "create", "att-a", "--interconnect=ic-a", "--router=router-1", "--region=us-east4",
		"--vlan=100", "--candidate-subnets=169.254.10.0/29", "--bandwidth=1g", "--mtu=1500", "--description=first")
	run("compute", "interconnects", "attachments", "dedicated", "create", "att-b", "--interconnect=ic-b", "--router=router-1", "--region=us-east4",
		"--stack-type=IPV4_IPV6", "--subnet-length=30", "--candidate-subnets=169.254.20.0/29")
	// A dry run (alpha only) is answered an operation with only its kind, which the CLI
	// does not wait on; it creates nothing, as the list below shows.
	if out := run("alpha", "compute", "interconnects", "attachments", "dedicated", "create", "att-dry", "--interconnect=ic-a", "--router=router-1",
		"--region=us-east4", "--vlan=101", "--dry-run"); !strings.Contains(out, "Validation was successful.") {
		t.Errorf("dedicated create --dry-run: %s", out)
	}
	run("compute", "interconnects", "attachments", "dedicated", "update", "att-a", "--region=us-east4", "--description=second", "--no-enable-admin", "--bandwidth=2g", "--mtu=8896")
	run("beta", "compute", "interconnects", "attachments", "dedicated", "update", "att-a", "--region=us-east4", "--update-labels=env=prod")
	att := object("compute", "interconnects", "attachments", "describe", "att-a", "--region=us-east4")
	if att["cloudRouterIpAddress"] != "169.254.10.1/29" || att["customerRouterIpAddress"] != "169.254.10.2/29" || att["vlanTag8021q"] != 100.0 || att["type"] != "DEDICATED" ||
		att["description"] != "second" || att["adminEnabled"] != false || att["bandwidth"] != "BPS_2G" || att["mtu"] != 8896.0 || str(att, "labels.env") != "prod" {
		t.Errorf("attachments describe after dedicated update: %v", att)
	}
	// attachments list is the aggregated list.
	atts := list("compute", "interconnects", "attachments", "list")
	if len(atts) != 2 || atts[0]["name"] != "att-a" || atts[1]["name"] != "att-b" {
		t.Fatalf("attachments list: %v", atts)
	}
	if b := atts[1]; b["cloudRouterIpAddress"] != "169.254.20.1/30" || b["cloudRouterIpv6Address"] == nil {
		t.Errorf("a dual-stack /30 attachment: %v", b)
	}

	// Attachment groups.
	run("compute", "interconnects", "attachments", "groups", "create", "ag", "--intended-availability-sla=PRODUCTION_NON_CRITICAL", "--attachments=us-east4/att-a", "--description=pair")
	run("compute", "interconnects", "attachments", "groups", "add-members", "ag", "--attachments=us-east4/att-b")
	// update without --attachments sends "attachments": {}, which keeps them.
	run("compute", "interconnects", "attachments", "groups", "update", "ag", "--description=changed")
	if l := list("compute", "interconnects", "attachments", "groups", "list"); len(l) != 1 || !slices.Equal(keys(l[0], "attachments"), []string{"us-east4/att-a", "us-east4/att-b"}) ||
		l[0]["description"] != "changed" || str(l[0], "configured.availabilitySla.effectiveSla") != "PRODUCTION_NON_CRITICAL" {
		t.Errorf("attachment groups list after add-members and update: %v", l)
	}
	// att-a is drained: disabled, and the group degraded.
	status := object("compute", "interconnects", "attachments", "groups", "get-operational-status", "ag")
	if str(status, "result.groupStatus") != "DEGRADED" || !slices.Contains(statusesOf(status, "attachmentStatuses"), "CONNECTION_DISABLED") {
		t.Errorf("attachment group get-operational-status: %v", status)
	}
	run("compute", "interconnects", "attachments", "groups", "remove-members", "ag", "--attachments=us-east4/att-a")
	if out := fail("compute", "interconnects", "attachments", "delete", "att-b", "--region=us-east4"); !strings.Contains(out, "is already being used by 'projects/my-project/global/interconnectAttachmentGroups/ag'") {
		t.Errorf("deleting an attachment a group holds: %s", out)
	}
	run("compute", "interconnects", "attachments", "groups", "delete", "ag")

	// Interconnect groups: create-members makes two interconnects in facility iad-1, one in
	// each zone, so that REJECT is met; an entry's requested features are its own.
	run("compute", "interconnects", "groups", "create", "grp", "--intended-topology-capability=PRODUCTION_NON_CRITICAL", "--interconnects=ic-a", "--description=metro")
	run("compute", "interconnects", "groups", "create-members", "grp", "--facility=iad-1", "--interconnect-type=DEDICATED", "--link-type=LINK_TYPE_ETHERNET_10G_LR",
		"--requested-link-count=1", "--customer-name=Example", "--intent-mismatch-behavior=REJECT",
		"--interconnect=name=ic-c,requested-features=MACSEC", "--interconnect=name=ic-d,description=fourth")
	if c := object("compute", "interconnects", "describe", "ic-c"); !strings.HasSuffix(str(c, "location"), "/iad-zone1-1") || c["requestedFeatures"] == nil || c["customerName"] != "Example" {
		t.Errorf("ic-c made by create-members: %v", c)
	}
	// update without --interconnects sends "interconnects": {}, which keeps them.
	run("compute", "interconnects", "groups", "update", "grp", "--description=changed", "--intended-topology-capability=NO_SLA")
	run("compute", "interconnects", "groups", "remove-members", "grp", "--interconnects=ic-c")
	// ic-a is drained: inactive, and the group degraded.
	status = object("compute", "interconnects", "groups", "get-operational-status", "grp")
	if str(status, "result.groupStatus") != "DEGRADED" || !slices.Contains(statusesOf(status, "interconnectStatuses"), "INACTIVE") || len(statusesOf(status, "interconnectStatuses")) != 2 {
		t.Errorf("interconnect group get-operational-status: %v", status)
	}
	run("compute", "interconnects", "groups", "update", "grp", "--interconnects=ic-b,ic-d", "--update-mask=interconnects")
	if l := list("compute", "interconnects", "groups", "list"); len(l) != 1 || !slices.Equal(keys(l[0], "interconnects"), []string{"ic-b", "ic-d"}) ||
		l[0]["description"] != "changed" || str(l[0], "intent.topologyCapability") != "NO_SLA" {
		t.Errorf("interconnect groups list after update, remove-members and update --update-mask=interconnects: %v", l)
	}
	run("compute", "interconnects", "groups", "delete", "grp")

	// Operations, by scope.
	ops := list("compute", "operations", "list", "--global", "--filter=operationType=createMembers")
	if len(ops) != 1 {
		t.Fatalf("global createMembers operations: %v", ops)
	}
	if op := object("compute", "operations", "describe", str(ops[0], "name"), "--global"); op["status"] != "DONE" || !strings.HasSuffix(str(op, "targetLink"), "/global/interconnectGroups/grp") {
		t.Errorf("operations describe --global: %v", op)
	}
	ops = list("compute", "operations", "list", "--regions=us-east4", "--filter=operationType=insert")
	if len(ops) != 2 {
		t.Fatalf("us-east4 insert operations: %v", ops)
	}
	if op := object("compute", "operations", "describe", str(ops[0], "name"), "--region=us-east4"); !strings.HasSuffix(str(op, "region"), "/regions/us-east4") || !strings.Contains(str(op, "targetLink"), "/interconnectAttachments/att-") {
		t.Errorf("operations describe --region: %v", op)
	}

	// Deletes, several in one batch each, and what gcloud shows of a missing resource.
	run("compute", "interconnects", "attachments", "delete", "att-a", "att-b", "--region=us-east4")
	run("compute", "interconnects", "delete", "ic-a", "ic-b", "ic-c", "ic-d")
	if out := fail("compute", "interconnects", "describe", "ic-a"); !strings.Contains(out, "The resource 'projects/my-project/global/interconnects/ic-a' was not found") {
		t.Errorf("describe of a deleted interconnect: %s", out)
	}
}

// statusesOf are the isActive and status values of a get-operational-status answer's
// member (attachmentStatuses, interconnectStatuses).
func statusesOf(status map[string]any, member string) []string {
	result, _ := status["result"].(map[string]any)
	entries, _ := result[member].([]any)
	var out []string
	for _, e := range entries {
		m, _ := e.(map[string]any)
		for _, k := range []string{"isActive", "status"} {
			if s, ok := m[k].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// hasTrue says whether v is an object whose member k is true.
func hasTrue(v any, k string) bool {
	m, _ := v.(map[string]any)
	return m[k] == true
}

// hasKey says whether v is an object with a member k.
func hasKey(v any, k string) bool {
	m, _ := v.(map[string]any)
	_, ok := m[k]
	return ok
}
