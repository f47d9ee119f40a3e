package compute

import (
	"cmp"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
)

// refusal is a member a rule may not have as given (set), with its value and why.
type refusal struct {
	member string
	set    bool
	value  string
	why    string
}

// firstRefused is the error of the first refusal that is set, in the real service's form.
func firstRefused(rs []refusal) error {
	for _, m := range rs {
		if m.set {
			return invalidField("resource."+m.member, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. %s", m.member, m.value, m.why))
		}
	}
	return nil
}

// checkRule holds a rule of region ("" for a global rule) to what an insert there takes.
func checkRule(region string, b gen.ForwardingRule) error {
	if region == "" {
		return checkGlobalRule(b)
	}
	return checkRegionalRule(region, b)
}

// checkGlobalRule refuses the members the real service does not take on a global
// forwarding rule: those of regional products only (ports, allPorts, allowGlobalAccess,
// sourceIpRanges, serviceLabel, isMirroringCollector), a network tier other than PREMIUM,
// and combinations its documentation rules out (checkRuleCombinations). Absent, empty and
// false values of them are what clients send by default and are accepted.
func checkGlobalRule(b gen.ForwardingRule) error {
	if t := deref(b.NetworkTier); t != "" && t != gen.ForwardingRuleNetworkTierPREMIUM {
		return invalidField("resource.networkTier", fmt.Sprintf("Invalid value for field 'resource.networkTier': '%s'. %s network tier is not supported for global forwarding rule.", t, t))
	}
	if err := firstRefused([]refusal{
		{"ports", len(b.Ports) > 0, strings.Join(b.Ports, ","), "Ports can only be specified for regional forwarding rules; use portRange."},
		{"allPorts", deref(b.AllPorts), "true", "allPorts can only be specified for regional forwarding rules."},
		{"allowGlobalAccess", deref(b.AllowGlobalAccess), "true", "Global access is only supported for regional internal forwarding rules."},
		{"sourceIpRanges", len(b.SourceIpRanges) > 0, strings.Join(b.SourceIpRanges, ","), "Source IP ranges are only supported for regional forwarding rules with loadBalancingScheme EXTERNAL."},
		{"serviceLabel", deref(b.ServiceLabel) != "", deref(b.ServiceLabel), "Service labels are only supported for regional internal forwarding rules."},
		{"isMirroringCollector", deref(b.IsMirroringCollector), "true", "Only forwarding rules with loadBalancingScheme INTERNAL, which are regional, can be mirroring collectors."},
	}); err != nil {
		return err
	}
	return checkRuleCombinations(b)
}

// checkRuleCombinations refuses what the discovery document rules out on every rule: a
// target with a backend service, metadataFilters on a scheme other than
// INTERNAL_SELF_MANAGED, a migration testing percentage outside TEST_BY_PERCENTAGE.
func checkRuleCombinations(b gen.ForwardingRule) error {
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

// checkRegionalRule refuses what the discovery document's ForwardingRule members rule out
// on a rule in region: a network tier other than PREMIUM and STANDARD; more than one of
// ports, portRange and allPorts, more than five ports, and a protocol they do not take
// (L3_DEFAULT needs allPorts); sourceIpRanges (at most 64 addresses or ranges) but on
// EXTERNAL; allowGlobalAccess and serviceLabel but on an internal scheme, a mirroring
// collector but on INTERNAL; a target in another region, or a global one; and what no rule
// takes (checkRuleCombinations). INTERNAL_SELF_MANAGED, Traffic Director's scheme, is
// global only.
func checkRegionalRule(region string, b gen.ForwardingRule) error {
	scheme := deref(b.LoadBalancingScheme)
	internal := scheme == gen.ForwardingRuleLoadBalancingSchemeINTERNAL || scheme == gen.ForwardingRuleLoadBalancingSchemeINTERNALMANAGED
	external := scheme == "" || scheme == gen.ForwardingRuleLoadBalancingSchemeEXTERNAL
	proto := deref(b.IPProtocol)
	if proto == "" {
		proto = gen.ForwardingRuleIPProtocolTCP
	}
	portProto := proto == "TCP" || proto == "UDP" || proto == "SCTP"
	allPorts := deref(b.AllPorts)
	given := 0
	for _, set := range []bool{len(b.Ports) > 0, deref(b.PortRange) != "", allPorts} {
		if set {
			given++
		}
	}
	badPort := ""
	for _, p := range b.Ports {
		if _, err := normalizePortRange(p); err != nil && badPort == "" {
			badPort = p
		}
	}
	badRange := ""
	for _, r := range b.SourceIpRanges {
		if _, err := netip.ParseAddr(r); err != nil && badRange == "" {
			if _, err := netip.ParsePrefix(r); err != nil {
				badRange = r
			}
		}
	}
	t := deref(b.NetworkTier)
	targetIn := targetRegion(deref(b.Target))
	return cmp.Or(firstRefused([]refusal{
		{"networkTier", t != "" && t != gen.ForwardingRuleNetworkTierPREMIUM && t != gen.ForwardingRuleNetworkTierSTANDARD, string(t), "Regional forwarding rules take the network tier PREMIUM or STANDARD."},
		{"loadBalancingScheme", scheme == gen.ForwardingRuleLoadBalancingSchemeINTERNALSELFMANAGED, string(scheme), "INTERNAL_SELF_MANAGED forwarding rules are global."},
		{"ports", given > 1, strings.Join(b.Ports, ","), "The ports, portRange and allPorts fields are mutually exclusive."},
		{"ports", len(b.Ports) > 5, strings.Join(b.Ports, ","), "At most five ports can be specified."},
		{"ports", badPort != "", badPort, "A port is a number 1-65535 or a range <low>-<high> of them."},
		{"IPProtocol", (len(b.Ports) > 0 || deref(b.PortRange) != "") && !portProto, string(proto), "ports and portRange require the IPProtocol TCP, UDP or SCTP."},
		{"IPProtocol", allPorts && !portProto && proto != "L3_DEFAULT", string(proto), "allPorts requires the IPProtocol TCP, UDP, SCTP or L3_DEFAULT."},
		{"IPProtocol", proto == "L3_DEFAULT" && !allPorts, string(proto), "The L3_DEFAULT protocol requires allPorts."},
		{"sourceIpRanges", len(b.SourceIpRanges) > 0 && !external, strings.Join(b.SourceIpRanges, ","), "Source IP ranges are only supported for regional forwarding rules with loadBalancingScheme EXTERNAL."},
		{"sourceIpRanges", len(b.SourceIpRanges) > 64, strconv.Itoa(len(b.SourceIpRanges)), "A forwarding rule can have at most 64 source IP ranges."},
		{"sourceIpRanges", badRange != "", badRange, "Each source IP range is an IP address or a CIDR range."},
		{"allowGlobalAccess", deref(b.AllowGlobalAccess) && !internal, "true", "Global access is only supported for regional internal forwarding rules."},
		{"serviceLabel", deref(b.ServiceLabel) != "" && !internal, deref(b.ServiceLabel), "Service labels are only supported for regional internal forwarding rules."},
		{"serviceLabel", deref(b.ServiceLabel) != "" && !validName(*b.ServiceLabel), deref(b.ServiceLabel), "Must be a match of regex '" + nameRegex + "'"},
		{"isMirroringCollector", deref(b.IsMirroringCollector) && scheme != gen.ForwardingRuleLoadBalancingSchemeINTERNAL, "true", "Only forwarding rules with loadBalancingScheme INTERNAL can be mirroring collectors."},
		{"target", targetIn != "" && targetIn != region, deref(b.Target), "The target of a regional forwarding rule must be in its region, '" + region + "'."},
	}), checkRuleCombinations(b))
}

// targetRegion is the region a target reference is in: its regions/<region> segment, the
// region of its zones/<zone> segment (us-east4 of us-east4-a), "global" for a global
// resource, and "" for a reference that names none (a name alone, a Google APIs bundle).
func targetRegion(u string) string {
	parts := strings.Split(refPath(u), "/")
	if len(parts) > 2 && parts[0] == "projects" {
		parts = parts[2:]
	}
	for i := 0; i+1 < len(parts); i++ {
		switch parts[i] {
		case "global":
			return "global"
		case "regions":
			return parts[i+1]
		case "zones":
			zone := parts[i+1]
			return zone[:max(strings.LastIndexByte(zone, '-'), 0)]
		}
	}
	return ""
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

// portsOverlap says whether two rules take a port in common: each takes its ports, else
// its portRange, else every port.
func portsOverlap(a, b gen.ForwardingRule) bool {
	if len(a.Ports) == 0 && len(b.Ports) == 0 { // every global rule: no list to make
		alo, ahi := portBounds(deref(a.PortRange))
		blo, bhi := portBounds(deref(b.PortRange))
		return alo <= bhi && blo <= ahi
	}
	for _, x := range portSpans(a) {
		for _, y := range portSpans(b) {
			if x[0] <= y[1] && y[0] <= x[1] {
				return true
			}
		}
	}
	return false
}

// portSpans are the ranges of ports a rule takes (portsOverlap).
func portSpans(r gen.ForwardingRule) [][2]int {
	if len(r.Ports) == 0 {
		lo, hi := portBounds(deref(r.PortRange))
		return [][2]int{{lo, hi}}
	}
	spans := make([][2]int, 0, len(r.Ports))
	for _, p := range r.Ports {
		if !strings.Contains(p, "-") {
			p += "-" + p
		}
		lo, hi := portBounds(p)
		spans = append(spans, [2]int{lo, hi})
	}
	return spans
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
