package compute_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	compute "google.golang.org/api/compute/v1"

	"github.com/understudy-dev/understudy/internal/operations"
)

// Partner Interconnect with the vendor's own generated Go client, as a customer's code and
// its partner's use it: the customer creates a PARTNER attachment and hands its pairing key
// to the partner, whose PARTNER_PROVIDER attachment (in the partner's own project) provisions
// it; the customer waits for the state to move and activates it.

const vendorPartnerProject = "partner-proj"

// vendorUntil polls cond until it holds, for at most ten seconds.
func vendorUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10s", what)
		}
	}
}

// vendorPartnerWorld starts a server whose operations follow mode, with the partner's
// PARTNER interconnect ic-partner at location in its project, readable; it returns the
// vendor's client and the partner project's URL.
func vendorPartnerWorld(t *testing.T, mode operations.Mode, location string) (*compute.Service, string) {
	t.Helper()
	vendorIsolate(t)
	srv := vendorStart(t, mode)
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	partnerBase := srv.URL + "/compute/v1/projects/" + vendorPartnerProject
	if _, err := svc.Interconnects.Insert(vendorPartnerProject, &compute.Interconnect{Name: "ic-partner", Location: partnerBase + "/global/interconnectLocations/" + location,
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "PARTNER"}).Context(ctx).Do(); err != nil {
		t.Fatalf("Interconnects.Insert: %v", err)
	}
	vendorUntil(t, "interconnect ic-partner", func() bool {
		_, err := svc.Interconnects.Get(vendorPartnerProject, "ic-partner").Context(ctx).Do()
		return err == nil
	})
	return svc, partnerBase
}

// vendorProvider is the partner's attachment for key on its interconnect ic.
func vendorProvider(base, name, key, ic string) *compute.InterconnectAttachment {
	return &compute.InterconnectAttachment{Name: name, Type: "PARTNER_PROVIDER", PairingKey: key, Interconnect: base + "/global/interconnects/" + ic,
		Bandwidth: "BPS_500M", PartnerAsn: 64512, PartnerMetadata: &compute.InterconnectAttachmentPartnerMetadata{
			PartnerName: "Example Networks", InterconnectName: "Ashburn 1", PortalUrl: "https://portal.example.net/a/1"}}
}

func TestVendorPartnerLifecycle(t *testing.T) {
	svc, partnerBase := vendorPartnerWorld(t, operations.Mode{Delay: 100 * time.Millisecond}, "iad-zone2-1")
	ctx := context.Background()

	// The customer's attachment, and its pairing key once its insert is DONE.
	op, err := svc.InterconnectAttachments.Insert(vendorProject, "us-east4", &compute.InterconnectAttachment{Name: "pa-1", Type: "PARTNER",
		Router: "regions/us-east4/routers/r1", EdgeAvailabilityDomain: "AVAILABILITY_DOMAIN_2", Mtu: 1500}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("insert PARTNER: %v", err)
	}
	vicNoOpError(t, "insert pa-1", vicWaitRegion(t, svc, "us-east4", op.Name))
	get := func(project, name string) *compute.InterconnectAttachment {
		t.Helper()
		a, err := svc.InterconnectAttachments.Get(project, "us-east4", name).Context(ctx).Do()
		if err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
		return a
	}
	c := get(vendorProject, "pa-1")
	if !regexp.MustCompile(`^[0-9a-f-]{36}/us-east4/2$`).MatchString(c.PairingKey) || c.State != "PENDING_PARTNER" || c.OperationalStatus != "OS_UNPROVISIONED" ||
		c.AdminEnabled || c.Bandwidth != "" || c.Interconnect != "" || c.Mtu != 1500 {
		t.Fatalf("PARTNER attachment: %+v", c)
	}

	// The partner provisions it from its own project; the customer sees the request, then
	// its attachment waiting for it.
	op, err = svc.InterconnectAttachments.Insert(vendorPartnerProject, "us-east4", vendorProvider(partnerBase, "pp-1", c.PairingKey, "ic-partner")).Context(ctx).Do()
	if err != nil {
		t.Fatalf("insert PARTNER_PROVIDER: %v", err)
	}
	// (Read before the operation: if the operation still runs, the state was read while it ran.)
	if state := get(vendorProject, "pa-1").State; state != "PARTNER_REQUEST_RECEIVED" {
		if o, err := svc.RegionOperations.Get(vendorPartnerProject, "us-east4", op.Name).Context(ctx).Do(); err != nil || o.Status != "DONE" {
			t.Errorf("while the partner's insert runs: %s (%v)", state, err)
		}
	}
	vendorUntil(t, "PENDING_CUSTOMER", func() bool { return get(vendorProject, "pa-1").State == "PENDING_CUSTOMER" })
	c, p := get(vendorProject, "pa-1"), get(vendorPartnerProject, "pp-1")
	if c.Bandwidth != "BPS_500M" || c.PartnerAsn != 64512 || c.PartnerMetadata == nil || c.PartnerMetadata.PartnerName != "Example Networks" ||
		c.VlanTag8021q == 0 || c.VlanTag8021q != p.VlanTag8021q || c.CloudRouterIpAddress == "" || c.CloudRouterIpAddress != p.CloudRouterIpAddress ||
		c.CustomerRouterIpAddress != p.CustomerRouterIpAddress || !strings.HasSuffix(c.CloudRouterIpAddress, "/29") {
		t.Errorf("provisioned: %+v\nthe partner's: %+v", c, p)
	}
	if p.State != "PENDING_CUSTOMER" || p.PairingKey != "" || p.EdgeAvailabilityDomain != "AVAILABILITY_DOMAIN_2" {
		t.Errorf("the partner's attachment: %+v", p)
	}

	// The customer activates it (what gcloud's partner update --admin-enabled sends).
	op, err = svc.InterconnectAttachments.Patch(vendorProject, "us-east4", "pa-1", &compute.InterconnectAttachment{AdminEnabled: true}).Context(ctx).Do()
	if err != nil || op.Status != "DONE" {
		t.Fatalf("activate: %v %+v", err, op)
	}
	if c, p := get(vendorProject, "pa-1"), get(vendorPartnerProject, "pp-1"); c.State != "ACTIVE" || c.OperationalStatus != "OS_ACTIVE" || p.State != "ACTIVE" {
		t.Errorf("activated: %s %s, the partner's %s", c.State, c.OperationalStatus, p.State)
	}

	// The customer deletes it: gone, and the partner's side is DEFUNCT.
	op, err = svc.InterconnectAttachments.Delete(vendorProject, "us-east4", "pa-1").Context(ctx).Do()
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	vicNoOpError(t, "delete pa-1", vicWaitRegion(t, svc, "us-east4", op.Name))
	if _, err := svc.InterconnectAttachments.Get(vendorProject, "us-east4", "pa-1").Context(ctx).Do(); err == nil {
		t.Error("pa-1 is still there")
	}
	if p := get(vendorPartnerProject, "pp-1"); p.State != "DEFUNCT" || p.OperationalStatus != "OS_UNPROVISIONED" {
		t.Errorf("the partner's once the customer's is deleted: %s %s", p.State, p.OperationalStatus)
	}
}

// TestVendorPartnerPairingRace: partners' inserts racing for one pairing key: exactly one
// provisions the customer's attachment, the others are refused, and nothing of theirs is
// stored.
func TestVendorPartnerPairingRace(t *testing.T) {
	svc, partnerBase := vendorPartnerWorld(t, operations.Mode{}, "iad-zone1-1")
	ctx := context.Background()
	if _, err := svc.InterconnectAttachments.Insert(vendorProject, "us-east4", &compute.InterconnectAttachment{Name: "pa-1", Type: "PARTNER",
		Router: "regions/us-east4/routers/r1"}).Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	c, err := svc.InterconnectAttachments.Get(vendorProject, "us-east4", "pa-1").Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}

	const racers = 8
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			_, errs[i] = svc.InterconnectAttachments.Insert(vendorPartnerProject, "us-east4",
				vendorProvider(partnerBase, fmt.Sprintf("pp-%d", i), c.PairingKey, "ic-partner")).Context(ctx).Do()
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err != nil {
			vendorAPIError(t, err, 400, "invalid")
			continue
		}
		if winner >= 0 {
			t.Errorf("pp-%d and pp-%d both won", winner, i)
		}
		winner = i
	}
	if winner < 0 {
		t.Fatal("no insert won")
	}
	list, err := svc.InterconnectAttachments.List(vendorPartnerProject, "us-east4").Context(ctx).Do()
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != fmt.Sprintf("pp-%d", winner) {
		t.Fatalf("the partner's attachments: %v %+v", err, list)
	}
	c, err = svc.InterconnectAttachments.Get(vendorProject, "us-east4", "pa-1").Context(ctx).Do()
	if err != nil || c.State != "PENDING_CUSTOMER" || c.VlanTag8021q != list.Items[0].VlanTag8021q || c.CloudRouterIpAddress != list.Items[0].CloudRouterIpAddress {
		t.Errorf("the customer's attachment: %v %+v", err, c)
	}
}
