package compute_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	compute "google.golang.org/api/compute/v1"

	"github.com/understudy-dev/understudy/internal/operations"
)

// These tests send the members of the discovery document beyond the seeds' with the
// vendor's own Go client and read back what is stored and what the server computes.

// vmInsertRule inserts a rule and returns it as read back once its operation is DONE.
func vmInsertRule(t *testing.T, svc *compute.Service, r *compute.ForwardingRule) *compute.ForwardingRule {
	t.Helper()
	ctx := context.Background()
	op, err := svc.GlobalForwardingRules.Insert(vendorProject, r).Context(ctx).Do()
	if err != nil {
		t.Fatalf("GlobalForwardingRules.Insert(%s): %v", r.Name, err)
	}
	vicNoOpError(t, "insert "+r.Name, vendorWait(t, svc, op.Name))
	got, err := svc.GlobalForwardingRules.Get(vendorProject, r.Name).Context(ctx).Do()
	if err != nil {
		t.Fatalf("GlobalForwardingRules.Get(%s): %v", r.Name, err)
	}
	return got
}

func TestVendorForwardingRuleMembers(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	subnet := "https://www.googleapis.com/compute/v1/projects/vendor-proj/regions/us-east4/subnetworks/proxy-only"

	t.Run("stored and computed", func(t *testing.T) {
		got := vmInsertRule(t, svc, &compute.ForwardingRule{
			Name: "fr-members", PortRange: "443", Target: vendorTarget, NetworkTier: "PREMIUM",
			LoadBalancingScheme: "INTERNAL_MANAGED", Network: "global/networks/default", Subnetwork: subnet,
			ServiceDirectoryRegistrations: []*compute.ForwardingRuleServiceDirectoryRegistration{{Namespace: "ns", Service: "svc"}},
		})
		if got.NetworkTier != "PREMIUM" || got.Subnetwork != subnet || got.LoadBalancingScheme != "INTERNAL_MANAGED" {
			t.Errorf("networkTier %q subnetwork %q scheme %q: not what was sent", got.NetworkTier, got.Subnetwork, got.LoadBalancingScheme)
		}
		if got.PortRange != "443-443" {
			t.Errorf("portRange %q, want 443-443 (one port reads back as a range, as the real service returns it)", got.PortRange)
		}
		if len(got.ServiceDirectoryRegistrations) != 1 || got.ServiceDirectoryRegistrations[0].Namespace != "ns" || got.ServiceDirectoryRegistrations[0].Service != "svc" {
			t.Errorf("serviceDirectoryRegistrations %+v, want the one sent", got.ServiceDirectoryRegistrations)
		}
		if want := "/global/forwardingRules/" + strconvU(got.Id); !strings.HasSuffix(got.SelfLinkWithId, want) {
			t.Errorf("selfLinkWithId %q, want it to end with %s", got.SelfLinkWithId, want)
		}
		if got.Region != "" || got.PscConnectionStatus != "" || got.BaseForwardingRule != "" {
			t.Errorf("region %q pscConnectionStatus %q baseForwardingRule %q: a global rule has none", got.Region, got.PscConnectionStatus, got.BaseForwardingRule)
		}
	})

	t.Run("networkTier defaults to PREMIUM", func(t *testing.T) {
		got := vmInsertRule(t, svc, &compute.ForwardingRule{Name: "fr-default-tier", PortRange: "80-80", Target: vendorTarget})
		if got.NetworkTier != "PREMIUM" {
			t.Errorf("networkTier %q, want PREMIUM", got.NetworkTier)
		}
	})

	t.Run("metadataFilters on INTERNAL_SELF_MANAGED", func(t *testing.T) {
		got := vmInsertRule(t, svc, &compute.ForwardingRule{
			Name: "fr-xds", PortRange: "80", Target: vendorTarget, LoadBalancingScheme: "INTERNAL_SELF_MANAGED", IPAddress: "0.0.0.0",
			MetadataFilters: []*compute.MetadataFilter{{FilterMatchCriteria: "MATCH_ALL", FilterLabels: []*compute.MetadataFilterLabelMatch{{Name: "env", Value: "prod"}}}},
		})
		if len(got.MetadataFilters) != 1 || got.MetadataFilters[0].FilterMatchCriteria != "MATCH_ALL" || len(got.MetadataFilters[0].FilterLabels) != 1 ||
			got.MetadataFilters[0].FilterLabels[0].Value != "prod" {
			t.Errorf("metadataFilters %+v, want the one sent", got.MetadataFilters)
		}
	})

	t.Run("fingerprint changes with the contents", func(t *testing.T) {
		before := vmInsertRule(t, svc, &compute.ForwardingRule{Name: "fr-fp", PortRange: "80", Target: vendorTarget})
		again, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-fp").Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if before.Fingerprint == "" || again.Fingerprint != before.Fingerprint {
			t.Fatalf("fingerprint %q then %q: want one that reads the same while nothing changes", before.Fingerprint, again.Fingerprint)
		}
		if _, err := svc.GlobalForwardingRules.SetLabels(vendorProject, "fr-fp", &compute.GlobalSetLabelsRequest{
			Labels: map[string]string{"env": "prod"}, LabelFingerprint: before.LabelFingerprint}).Context(ctx).Do(); err != nil {
			t.Fatal(err)
		}
		after, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-fp").Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if after.Fingerprint == before.Fingerprint {
			t.Errorf("fingerprint %q unchanged after its labels changed", after.Fingerprint)
		}
	})

	refused := []struct {
		name     string
		rule     compute.ForwardingRule
		location string
	}{
		{"STANDARD tier", compute.ForwardingRule{NetworkTier: "STANDARD"}, "resource.networkTier"},
		{"ports", compute.ForwardingRule{Ports: []string{"80", "443"}}, "resource.ports"},
		{"allPorts", compute.ForwardingRule{AllPorts: true}, "resource.allPorts"},
		{"allowGlobalAccess", compute.ForwardingRule{AllowGlobalAccess: true}, "resource.allowGlobalAccess"},
		{"sourceIpRanges", compute.ForwardingRule{SourceIpRanges: []string{"10.0.0.0/8"}}, "resource.sourceIpRanges"},
		{"serviceLabel", compute.ForwardingRule{ServiceLabel: "web"}, "resource.serviceLabel"},
		{"isMirroringCollector", compute.ForwardingRule{IsMirroringCollector: true}, "resource.isMirroringCollector"},
		{"target and backendService", compute.ForwardingRule{Target: vendorTarget, BackendService: "global/backendServices/web"}, "resource.backendService"},
		{"metadataFilters on EXTERNAL", compute.ForwardingRule{MetadataFilters: []*compute.MetadataFilter{{FilterMatchCriteria: "MATCH_ANY",
			FilterLabels: []*compute.MetadataFilterLabelMatch{{Name: "a", Value: "b"}}}}}, "resource.metadataFilters"},
		{"port 0", compute.ForwardingRule{PortRange: "0"}, "resource.portRange"},
		{"range upside down", compute.ForwardingRule{PortRange: "90-80"}, "resource.portRange"},
		{"port past 65535", compute.ForwardingRule{PortRange: "80-65536"}, "resource.portRange"},
		{"not a port", compute.ForwardingRule{PortRange: "http"}, "resource.portRange"},
	}
	for _, tt := range refused {
		t.Run("refused: "+tt.name, func(t *testing.T) {
			r := tt.rule
			r.Name = "fr-refused"
			_, err := svc.GlobalForwardingRules.Insert(vendorProject, &r).Context(ctx).Do()
			ge := vendorAPIError(t, err, 400, "invalid")
			if strings.Contains(ge.Message, "Unknown name") {
				t.Errorf("message %q: a member the discovery document defines is refused for what it says, not as unknown", ge.Message)
			}
			if loc, _ := vendorErrorItem(t, ge); loc != tt.location {
				t.Errorf("location %q, want %q", loc, tt.location)
			}
		})
	}

	t.Run("defaults of regional members are accepted", func(t *testing.T) {
		// What a client that fills every member sends for a global rule: empty and false.
		r := &compute.ForwardingRule{Name: "fr-defaults", PortRange: "8080", Target: vendorTarget,
			ForceSendFields: []string{"AllPorts", "AllowGlobalAccess", "IsMirroringCollector", "ServiceLabel", "Ports", "SourceIpRanges"}}
		if got := vmInsertRule(t, svc, r); got.PortRange != "8080-8080" {
			t.Errorf("portRange %q, want 8080-8080", got.PortRange)
		}
	})
}

func TestVendorInterconnectAndLocationMembers(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	base := srv.URL + "/compute/v1/projects/" + vendorProject
	loc := base + "/global/interconnectLocations/iad-zone1-1"

	t.Run("location", func(t *testing.T) {
		l, err := svc.InterconnectLocations.Get(vendorProject, "iad-zone1-1").Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(l.AvailableFeatures, "IF_MACSEC") || len(l.AvailableLinkTypes) != 3 {
			t.Errorf("availableFeatures %v availableLinkTypes %v: want MACsec and the three link types", l.AvailableFeatures, l.AvailableLinkTypes)
		}
		// The locations of the same metro in the other zone pair up for single-region 99.99%.
		if want := base + "/global/interconnectLocations/iad-zone2-1"; !slices.Contains(l.SingleRegionProductionCriticalPeerLocations, want) {
			t.Errorf("singleRegionProductionCriticalPeerLocations %v, want it to hold %s", l.SingleRegionProductionCriticalPeerLocations, want)
		}
		for _, p := range l.SingleRegionProductionCriticalPeerLocations {
			if strings.Contains(p, "zone1") || !strings.Contains(p, "/iad-") {
				t.Errorf("peer location %s: want only iad locations in zone2", p)
			}
		}
	})

	t.Run("stored and computed", func(t *testing.T) {
		op, err := svc.Interconnects.Insert(vendorProject, &compute.Interconnect{
			Name: "ic-macsec", Location: loc, LinkType: "LINK_TYPE_ETHERNET_100G_LR", RequestedLinkCount: 2, InterconnectType: "DEDICATED",
			RequestedFeatures: []string{"IF_MACSEC"}, MacsecEnabled: true,
			Macsec:     &compute.InterconnectMacsec{FailOpen: true, PreSharedKeys: []*compute.InterconnectMacsecPreSharedKey{{Name: "key-1", StartTime: "2026-01-01T00:00:00Z"}}},
			AaiEnabled: true, ApplicationAwareInterconnect: &compute.InterconnectApplicationAwareInterconnect{ProfileDescription: "gold"},
			Params: &compute.InterconnectParams{ResourceManagerTags: map[string]string{"tagKeys/1": "tagValues/2"}},
		}).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Interconnects.Insert: %v", err)
		}
		vicNoOpError(t, "insert ic-macsec", vendorWait(t, svc, op.Name))
		ic, err := svc.Interconnects.Get(vendorProject, "ic-macsec").Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if !ic.MacsecEnabled || ic.Macsec == nil || !ic.Macsec.FailOpen || len(ic.Macsec.PreSharedKeys) != 1 || ic.Macsec.PreSharedKeys[0].Name != "key-1" {
			t.Errorf("macsecEnabled %v macsec %+v: not what was sent", ic.MacsecEnabled, ic.Macsec)
		}
		if !ic.AaiEnabled || ic.ApplicationAwareInterconnect == nil || ic.ApplicationAwareInterconnect.ProfileDescription != "gold" {
			t.Errorf("aaiEnabled %v applicationAwareInterconnect %+v: not what was sent", ic.AaiEnabled, ic.ApplicationAwareInterconnect)
		}
		if !slices.Equal(ic.RequestedFeatures, []string{"IF_MACSEC"}) || !slices.Equal(ic.AvailableFeatures, []string{"IF_MACSEC"}) {
			t.Errorf("requestedFeatures %v availableFeatures %v, want IF_MACSEC in both", ic.RequestedFeatures, ic.AvailableFeatures)
		}
		if ic.Params != nil {
			t.Errorf("params %+v: input only, not returned", ic.Params)
		}
		if ic.EffectiveLocation != ic.Location {
			t.Errorf("effectiveLocation %q, want the location %q", ic.EffectiveLocation, ic.Location)
		}
		if len(ic.CircuitInfos) != 2 || ic.CircuitInfos[0].GoogleCircuitId == "" || ic.CircuitInfos[0].GoogleCircuitId == ic.CircuitInfos[1].GoogleCircuitId {
			t.Errorf("circuitInfos %+v, want one circuit per link, each with its own id", ic.CircuitInfos)
		}
		for _, a := range []string{ic.GoogleIpAddress, ic.PeerIpAddress} {
			if addr, err := netip.ParseAddr(a); err != nil || !netip.MustParsePrefix("169.254.0.0/16").Contains(addr) {
				t.Errorf("link address %q, want a link-local IPv4 address", a)
			}
		}
		if ic.GoogleReferenceId == "" || !strings.HasSuffix(ic.SelfLinkWithId, "/global/interconnects/"+strconvU(ic.Id)) {
			t.Errorf("googleReferenceId %q selfLinkWithId %q", ic.GoogleReferenceId, ic.SelfLinkWithId)
		}
	})

	for _, tt := range []struct {
		name, location string
		ic             compute.Interconnect
	}{
		{"macsecEnabled without macsec", "resource.macsecEnabled", compute.Interconnect{MacsecEnabled: true}},
		{"a feature the location lacks", "resource.requestedFeatures", compute.Interconnect{RequestedFeatures: []string{"IF_L2_FORWARDING"}}},
	} {
		t.Run("refused: "+tt.name, func(t *testing.T) {
			ic := tt.ic
			ic.Name, ic.Location, ic.LinkType, ic.RequestedLinkCount, ic.InterconnectType = "ic-refused", loc, "LINK_TYPE_ETHERNET_10G_LR", 1, "DEDICATED"
			_, err := svc.Interconnects.Insert(vendorProject, &ic).Context(ctx).Do()
			ge := vendorAPIError(t, err, 400, "invalid")
			if l, _ := vendorErrorItem(t, ge); l != tt.location {
				t.Errorf("location %q, want %q", l, tt.location)
			}
		})
	}
}

func TestVendorAttachmentMembers(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	base := srv.URL + "/compute/v1/projects/" + vendorProject
	const region = "us-east4"
	op, err := svc.Interconnects.Insert(vendorProject, &compute.Interconnect{Name: "ic-1", Location: base + "/global/interconnectLocations/iad-zone1-1",
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"}).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	vicNoOpError(t, "insert ic-1", vendorWait(t, svc, op.Name))

	insert := func(t *testing.T, a *compute.InterconnectAttachment) (*compute.InterconnectAttachment, error) {
		t.Helper()
		a.Interconnect = base + "/global/interconnects/ic-1"
		a.Router = base + "/regions/" + region + "/routers/r1"
		op, err := svc.InterconnectAttachments.Insert(vendorProject, region, a).Context(ctx).Do()
		if err != nil {
			return nil, err
		}
		vicNoOpError(t, "insert "+a.Name, vicWaitRegion(t, svc, region, op.Name))
		return svc.InterconnectAttachments.Get(vendorProject, region, a.Name).Context(ctx).Do()
	}
	mustInsert := func(t *testing.T, a *compute.InterconnectAttachment) *compute.InterconnectAttachment {
		t.Helper()
		got, err := insert(t, a)
		if err != nil {
			t.Fatalf("insert %s: %v", a.Name, err)
		}
		return got
	}
	checkPair := func(t *testing.T, got *compute.InterconnectAttachment, cloud, customer string) {
		t.Helper()
		if got.CloudRouterIpAddress != cloud || got.CustomerRouterIpAddress != customer {
			t.Errorf("cloudRouterIpAddress %q customerRouterIpAddress %q, want %q and %q", got.CloudRouterIpAddress, got.CustomerRouterIpAddress, cloud, customer)
		}
	}

	t.Run("encryption NONE, as Terraform sends it", func(t *testing.T) {
		got := mustInsert(t, &compute.InterconnectAttachment{Name: "att-none", Type: "DEDICATED", Encryption: "NONE"})
		if got.Encryption != "NONE" {
			t.Errorf("encryption %q, want NONE", got.Encryption)
		}
		if got.PrivateInterconnectInfo == nil || int64(got.PrivateInterconnectInfo.Tag8021q) != got.VlanTag8021q {
			t.Errorf("privateInterconnectInfo %+v, want the VLAN tag %d", got.PrivateInterconnectInfo, got.VlanTag8021q)
		}
		if got.DataplaneVersion != 2 || got.ConfigurationConstraints == nil || got.ConfigurationConstraints.BgpMd5 != "MD5_OPTIONAL" {
			t.Errorf("dataplaneVersion %d configurationConstraints %+v", got.DataplaneVersion, got.ConfigurationConstraints)
		}
		// Picked from all of link-local space: a /29, the Cloud Router on its first host.
		cloud, err1 := netip.ParsePrefix(got.CloudRouterIpAddress)
		customer, err2 := netip.ParsePrefix(got.CustomerRouterIpAddress)
		if err1 != nil || err2 != nil || cloud.Bits() != 29 || customer.Bits() != 29 || !netip.MustParsePrefix("169.254.0.0/16").Contains(cloud.Addr()) ||
			cloud.Addr() != cloud.Masked().Addr().Next() || customer.Addr() != cloud.Addr().Next() {
			t.Errorf("cloudRouterIpAddress %q customerRouterIpAddress %q: want the first two hosts of a link-local /29", got.CloudRouterIpAddress, got.CustomerRouterIpAddress)
		}
	})
	t.Run("encryption defaults to NONE", func(t *testing.T) {
		if got := mustInsert(t, &compute.InterconnectAttachment{Name: "att-default"}); got.Encryption != "NONE" {
			t.Errorf("encryption %q, want NONE", got.Encryption)
		}
	})
	t.Run("IPSEC with internal addresses", func(t *testing.T) {
		addr := base + "/regions/" + region + "/addresses/vpn-range"
		got := mustInsert(t, &compute.InterconnectAttachment{Name: "att-ipsec", Encryption: "IPSEC", IpsecInternalAddresses: []string{addr}})
		if got.Encryption != "IPSEC" || !slices.Equal(got.IpsecInternalAddresses, []string{addr}) {
			t.Errorf("encryption %q ipsecInternalAddresses %v", got.Encryption, got.IpsecInternalAddresses)
		}
	})
	t.Run("candidate subnets", func(t *testing.T) {
		got := mustInsert(t, &compute.InterconnectAttachment{Name: "att-cand-1", CandidateSubnets: []string{"169.254.10.0/29"}})
		checkPair(t, got, "169.254.10.1/29", "169.254.10.2/29")
		if !slices.Equal(got.CandidateSubnets, []string{"169.254.10.0/29"}) {
			t.Errorf("candidateSubnets %v, want what was sent", got.CandidateSubnets)
		}
		// The first /29 of the /28 is taken on this interconnect: the second one is given.
		checkPair(t, mustInsert(t, &compute.InterconnectAttachment{Name: "att-cand-2", CandidateSubnets: []string{"169.254.10.0/28"}}),
			"169.254.10.9/29", "169.254.10.10/29")
		_, err := insert(t, &compute.InterconnectAttachment{Name: "att-cand-3", CandidateSubnets: []string{"169.254.10.0/28"}})
		vendorAPIError(t, err, 400, "invalid")
	})
	t.Run("subnetLength 30", func(t *testing.T) {
		checkPair(t, mustInsert(t, &compute.InterconnectAttachment{Name: "att-30", SubnetLength: 30, CandidateSubnets: []string{"169.254.30.0/29"}}),
			"169.254.30.1/30", "169.254.30.2/30")
	})
	t.Run("candidate addresses", func(t *testing.T) {
		checkPair(t, mustInsert(t, &compute.InterconnectAttachment{Name: "att-pair", CandidateCloudRouterIpAddress: "169.254.40.5/30",
			CandidateCustomerRouterIpAddress: "169.254.40.6/30"}), "169.254.40.5/30", "169.254.40.6/30")
	})
	t.Run("dual stack", func(t *testing.T) {
		got := mustInsert(t, &compute.InterconnectAttachment{Name: "att-v6", StackType: "IPV4_IPV6"})
		cloud, err := netip.ParsePrefix(got.CloudRouterIpv6Address)
		if err != nil || cloud.Bits() != 125 || !cloud.Addr().Is6() || got.CustomerRouterIpv6Address != netip.PrefixFrom(cloud.Addr().Next(), 125).String() {
			t.Errorf("cloudRouterIpv6Address %q customerRouterIpv6Address %q: want two hosts of an IPv6 /125", got.CloudRouterIpv6Address, got.CustomerRouterIpv6Address)
		}
	})

	for _, tt := range []struct {
		name, location string
		a              compute.InterconnectAttachment
	}{
		{"a candidate outside link-local", "resource.candidateSubnets[0]", compute.InterconnectAttachment{CandidateSubnets: []string{"10.0.0.0/29"}}},
		{"a candidate longer than /29", "resource.candidateSubnets[0]", compute.InterconnectAttachment{CandidateSubnets: []string{"169.254.1.0/30"}}},
		{"subnetLength 28", "resource.subnetLength", compute.InterconnectAttachment{SubnetLength: 28}},
		{"one candidate address", "resource.candidateCloudRouterIpAddress", compute.InterconnectAttachment{CandidateCloudRouterIpAddress: "169.254.50.1/29"}},
		{"candidate addresses in two subnets", "resource.candidateCustomerRouterIpAddress", compute.InterconnectAttachment{
			CandidateCloudRouterIpAddress: "169.254.50.1/29", CandidateCustomerRouterIpAddress: "169.254.51.2/29"}},
		{"IPsec addresses without IPSEC", "resource.ipsecInternalAddresses", compute.InterconnectAttachment{IpsecInternalAddresses: []string{"regions/us-east4/addresses/a"}}},
		{"pairingKey", "resource.pairingKey", compute.InterconnectAttachment{PairingKey: "abc/us-east4/1"}},
		{"partnerAsn", "resource.partnerAsn", compute.InterconnectAttachment{PartnerAsn: 64512}},
		{"l2Forwarding", "resource.l2Forwarding", compute.InterconnectAttachment{L2Forwarding: &compute.InterconnectAttachmentL2Forwarding{Network: "global/networks/n"}}},
	} {
		t.Run("refused: "+tt.name, func(t *testing.T) {
			a := tt.a
			a.Name = "att-refused"
			_, err := insert(t, &a)
			ge := vendorAPIError(t, err, 400, "invalid")
			if l, _ := vendorErrorItem(t, ge); l != tt.location {
				t.Errorf("location %q, want %q (%s)", l, tt.location, ge.Message)
			}
		})
	}
}

func strconvU(id uint64) string { return strconv.FormatUint(id, 10) }

// TestVendorAttachmentAddressesRace: inserts racing for the subnets of the same candidates
// on one interconnect each get a subnet of their own, or are refused; never two the same.
func TestVendorAttachmentAddressesRace(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	base := srv.URL + "/compute/v1/projects/" + vendorProject
	op, err := svc.Interconnects.Insert(vendorProject, &compute.Interconnect{Name: "ic-race", Location: base + "/global/interconnectLocations/iad-zone1-1",
		LinkType: "LINK_TYPE_ETHERNET_10G_LR", RequestedLinkCount: 1, InterconnectType: "DEDICATED"}).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	vicNoOpError(t, "insert ic-race", vendorWait(t, svc, op.Name))

	const racers = 8 // for the two /29s of a /28
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			_, errs[i] = svc.InterconnectAttachments.Insert(vendorProject, "us-east4", &compute.InterconnectAttachment{
				Name: fmt.Sprintf("att-race-%d", i), Interconnect: base + "/global/interconnects/ic-race", CandidateSubnets: []string{"169.254.60.0/28"},
			}).Context(ctx).Do()
		})
	}
	wg.Wait()
	var won []string
	for i, err := range errs {
		if err != nil {
			vendorAPIError(t, err, 400, "invalid")
			continue
		}
		a, err := svc.InterconnectAttachments.Get(vendorProject, "us-east4", fmt.Sprintf("att-race-%d", i)).Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		won = append(won, a.CloudRouterIpAddress)
	}
	slices.Sort(won)
	if want := []string{"169.254.60.1/29", "169.254.60.9/29"}; !slices.Equal(won, want) {
		t.Errorf("the inserts that won have cloudRouterIpAddress %v, want each /29 of the candidate once: %v", won, want)
	}
}
