package understudytest_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestGoogleCloudCLIPartner drives Partner Interconnect through the Google Cloud CLI: the
// customer's `attachments partner create`, which shows the pairing key; the partner's side
// with the CLI's (hidden) `attachments provider create` on a PARTNER interconnect and
// `provider update`; the customer's activation, `partner update --admin-enabled`; and
// `attachments describe` of what the customer then has. One project plays both parts.
func TestGoogleCloudCLIPartner(t *testing.T) {
	g := startGcloud(t)
	run, object := g.run, g.object

	run("compute", "interconnects", "create", "ic-partner", "--customer-name=Example Networks", "--interconnect-type=PARTNER",
		"--link-type=LINK_TYPE_ETHERNET_10G_LR", "--requested-link-count=1", "--location=iad-zone1-1")
	// create prints the attachment it reads back once its operation is done, with the
	// pairing key to hand to the partner.
	pa := object("compute", "interconnects", "attachments", "partner", "create", "pa-1", "--region=us-east4", "--router=r1",
		"--edge-availability-domain=availability-domain-1")
	key, _ := pa["pairingKey"].(string)
	router, _ := pa["router"].(string)
	if !regexp.MustCompile(`^[0-9a-f-]{36}/us-east4/1$`).MatchString(key) || pa["state"] != "PENDING_PARTNER" || pa["type"] != "PARTNER" || pa["adminEnabled"] != false ||
		pa["edgeAvailabilityDomain"] != "AVAILABILITY_DOMAIN_1" || !strings.HasSuffix(router, "/regions/us-east4/routers/r1") {
		t.Fatalf("partner create: %v", pa)
	}

	// The partner's dry run (alpha only) is answered an operation with only its kind, which
	// the CLI does not wait on; it provisions nothing, so the key still works below. (The
	// customer's `partner create --dry-run` validates as well, then the CLI itself fails:
	// it reads a pairingKey from the operation.)
	if out := run("alpha", "compute", "interconnects", "attachments", "provider", "create", "pp-dry", "--region=us-east4", "--interconnect=ic-partner",
		"--pairing-key="+key, "--bandwidth=50m", "--partner-asn=64512", "--partner-name=Example Networks",
		"--partner-interconnect-name=Ashburn 1", "--partner-portal-url=https://portal.example.net/a/1", "--dry-run"); !strings.Contains(out, "Validation was successful.") {
		t.Errorf("provider create --dry-run: %s", out)
	}

	run("compute", "interconnects", "attachments", "provider", "create", "pp-1", "--region=us-east4", "--interconnect=ic-partner",
		"--pairing-key="+key, "--bandwidth=50m", "--partner-asn=64512", "--partner-name=Example Networks",
		"--partner-interconnect-name=Ashburn 1", "--partner-portal-url=https://portal.example.net/a/1")
	run("compute", "interconnects", "attachments", "provider", "update", "pp-1", "--region=us-east4", "--bandwidth=100m")
	run("compute", "interconnects", "attachments", "partner", "update", "pa-1", "--region=us-east4", "--admin-enabled")
	pa = object("compute", "interconnects", "attachments", "describe", "pa-1", "--region=us-east4")
	metadata, _ := pa["partnerMetadata"].(map[string]any)
	if pa["state"] != "ACTIVE" || pa["operationalStatus"] != "OS_ACTIVE" || pa["adminEnabled"] != true || pa["bandwidth"] != "BPS_100M" ||
		pa["partnerAsn"] != "64512" || metadata["interconnectName"] != "Ashburn 1" || pa["vlanTag8021q"] == nil || pa["cloudRouterIpAddress"] == nil {
		t.Errorf("describe once provisioned and activated: %v", pa)
	}
}
