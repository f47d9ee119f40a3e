package compute

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
)

// checkGlobalRule refuses the members the real service does not take on a global
// forwarding rule: those of regional products only (ports, allPorts, allowGlobalAccess,
// sourceIpRanges, serviceLabel, isMirroringCollector), a network tier other than PREMIUM,
// and combinations its documentation rules out. Absent, empty and false values of them are
// what clients send by default and are accepted.
func checkGlobalRule(b gen.ForwardingRule) error {
	if t := deref(b.NetworkTier); t != "" && t != gen.ForwardingRuleNetworkTierPREMIUM {
		return invalidField("resource.networkTier", fmt.Sprintf("Invalid value for field 'resource.networkTier': '%s'. %s network tier is not supported for global forwarding rule.", t, t))
	}
	regionalOnly := []struct {
		member string
		set    bool
		value  string
		why    string
	}{
		{"ports", len(b.Ports) > 0, strings.Join(b.Ports, ","), "Ports can only be specified for regional forwarding rules; use portRange."},
		{"allPorts", deref(b.AllPorts), "true", "allPorts can only be specified for regional forwarding rules."},
		{"allowGlobalAccess", deref(b.AllowGlobalAccess), "true", "Global access is only supported for regional internal forwarding rules."},
		{"sourceIpRanges", len(b.SourceIpRanges) > 0, strings.Join(b.SourceIpRanges, ","), "Source IP ranges are only supported for regional forwarding rules with loadBalancingScheme EXTERNAL."},
		{"serviceLabel", deref(b.ServiceLabel) != "", deref(b.ServiceLabel), "Service labels are only supported for regional internal forwarding rules."},
		{"isMirroringCollector", deref(b.IsMirroringCollector), "true", "Only forwarding rules with loadBalancingScheme INTERNAL, which are regional, can be mirroring collectors."},
	}
	for _, m := range regionalOnly {
		if m.set {
			return invalidField("resource."+m.member, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. %s", m.member, m.value, m.why))
		}
	}
	if deref(b.Target) != "" && deref(b.BackendService) != "" {
		return invalidField("resource.backendService", fmt.Sprintf("Invalid value for field 'resource.backendService': '%s'. A forwarding rule cannot have both a target and a backend service.", *b.BackendService))
	}
	if len(b.MetadataFilters) > 0 && deref(b.LoadBalancingScheme) != gen.ForwardingRuleLoadBalancingSchemeINTERNALSELFMANAGED {
		return invalidField("resource.metadataFilters", "Invalid value for field 'resource.metadataFilters': metadataFilters are only supported for forwarding rules with loadBalancingScheme INTERNAL_SELF_MANAGED.")
	}
	if p := b.ExternalManagedBackendBucketMigrationTestingPercentage; p != nil && deref(b.ExternalManagedBackendBucketMigrationState) != gen.ForwardingRuleExternalManagedBackendBucketMigrationStateTESTBYPERCENTAGE {
		return invalidField("resource.externalManagedBackendBucketMigrationTestingPercentage", fmt.Sprintf("Invalid value for field 'resource.externalManagedBackendBucketMigrationTestingPercentage': '%v'. It can only be set when externalManagedBackendBucketMigrationState is TEST_BY_PERCENTAGE.", *p))
	}
	return nil
}

// ipVersionOf is the IP version of a rule with the IPAddress that gives none: IPv6 for an
// IPv6 address or range, else IPv4.
func ipVersionOf(ip string) gen.ForwardingRuleIpVersion {
	if !strings.Contains(ip, ":") {
		return gen.ForwardingRuleIpVersionIPV4
	}
	if a, err := netip.ParseAddr(ip); err == nil && a.Is6() {
		return gen.ForwardingRuleIpVersionIPV6
	}
	if p, err := netip.ParsePrefix(ip); err == nil && p.Addr().Is6() {
		return gen.ForwardingRuleIpVersionIPV6
	}
	return gen.ForwardingRuleIpVersionIPV4
}

// checkIPAddress refuses an IPAddress that is meant as an address and is none (999.1.1.1,
// 2600:::1), or one of the other family than the rule's ipVersion, in the words of the real
// service. An address resource's URL or name is kept as given: addresses are not modelled.
func checkIPAddress(ip string, version gen.ForwardingRuleIpVersion) error {
	if ip == "" {
		return nil
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		p, perr := netip.ParsePrefix(ip) // an IPv6 range, as in 2600:1234::/96
		addr, err = p.Addr(), perr
	}
	literal := strings.Trim(ip, "0123456789.") == "" || strings.Contains(ip, ":") && !strings.Contains(ip, "/addresses/")
	switch {
	case err != nil && literal,
		err == nil && version == gen.ForwardingRuleIpVersionIPV6 && !addr.Is6(),
		err == nil && version == gen.ForwardingRuleIpVersionIPV4 && !addr.Is4():
		return invalidField("resource.IPAddress", fmt.Sprintf("Invalid value for field 'resource.IPAddress': '%s'. Invalid IP address specified.", ip))
	}
	return nil
}

// normalizePortRange is a port range as the real service returns it: one port `80` reads
// back as `80-80`. Ports are 1-65535 and the low one comes first; "" stays "".
func normalizePortRange(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	low, high, isRange := strings.Cut(s, "-")
	if !isRange {
		high = low
	}
	lo, err1 := port(low)
	hi, err2 := port(high)
	if err1 != nil || err2 != nil || lo > hi {
		return "", invalidField("resource.portRange", fmt.Sprintf("Invalid value for field 'resource.portRange': '%s'. Invalid port range specification: want a port or a range <low>-<high> of ports 1-65535.", s))
	}
	return strconv.Itoa(lo) + "-" + strconv.Itoa(hi), nil
}

// portBounds are the first and last port of a normalized port range; none is all ports.
func portBounds(r string) (int, int) {
	low, high, ok := strings.Cut(r, "-")
	if !ok {
		return 1, 65535
	}
	lo, _ := strconv.Atoi(low)
	hi, _ := strconv.Atoi(high)
	return lo, hi
}

// addressKey is a rule's address with its protocol, within its project (and its network,
// for an internal scheme): the discovery document's portRange says rules with one such
// [IPAddress, IPProtocol] pair must have ports of their own.
func addressKey(r gen.ForwardingRule) (string, bool) {
	project, _, _ := strings.Cut(strings.TrimPrefix(deref(r.SelfLink), "projects/"), "/")
	network := ""
	if strings.HasPrefix(string(deref(r.LoadBalancingScheme)), "INTERNAL") {
		network = deref(r.Network)
	}
	ip := deref(r.IPAddress)
	if strings.Contains(ip, ":") { // an IPv4 address has one spelling
		if a, err := netip.ParseAddr(ip); err == nil {
			ip = a.String() // one address, however it is spelled (2001:DB8:0::7 is 2001:db8::7)
		}
	}
	key := project + "|" + network + "|" + ip + "|" + string(deref(r.IPProtocol))
	return key, !strings.ContainsRune(key, 0) // an index key holds no NUL; such a value is no address
}

func port(s string) (int, error) {
	if s == "" || len(s) > 5 || strings.Trim(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	n, _ := strconv.Atoi(s)
	if n < 1 || n > 65535 {
		return 0, strconv.ErrRange
	}
	return n, nil
}
