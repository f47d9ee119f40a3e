package compute

import (
	"fmt"
	"math/big"
	"net/netip"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// The BGP addresses of an attachment: its Cloud Router's and the customer router's ends of
// a small link-local subnet (a /29, or a /30 when subnetLength asks for it), and for
// dual-stack attachments an IPv6 /125. As the real service documents it, the subnet comes
// from the client's candidateSubnets, or is one the service picks from all of
// 169.254.0.0/16; the client can also give both addresses. A subnet is free when no other
// attachment on the same interconnect (what shares the edge router) overlaps it.

var (
	linkLocal = netip.MustParsePrefix("169.254.0.0/16")
	// ipv6Pool is where dual-stack attachments without candidates get their /125, a range
	// of the provider's that the real service draws such addresses from.
	ipv6Pool = netip.MustParsePrefix("2600:2d00:0:2::/64")
)

// addressRequest is what an insert asks about the attachment's addresses.
type addressRequest struct {
	subnetLength  int
	candidates    []netip.Prefix
	cloud, peer   netip.Prefix // both set, or neither
	candidates6   []netip.Prefix
	cloud6, peer6 netip.Prefix
	dualStack     bool
}

// checkAddressRequest checks the address members of an insert body.
func checkAddressRequest(b gen.InterconnectAttachment, dualStack bool) (addressRequest, error) {
	r := addressRequest{subnetLength: 29, dualStack: dualStack}
	if b.SubnetLength != nil {
		r.subnetLength = int(*b.SubnetLength)
		if r.subnetLength != 29 && r.subnetLength != 30 {
			return r, invalidField("resource.subnetLength", fmt.Sprintf("Invalid value for field 'resource.subnetLength': '%d'. Allowed values are 29 and 30.", r.subnetLength))
		}
	}
	if len(b.CandidateSubnets) > 16 {
		return r, invalidField("resource.candidateSubnets", fmt.Sprintf("Invalid value for field 'resource.candidateSubnets': %d candidate subnets given; at most 16 are allowed.", len(b.CandidateSubnets)))
	}
	for i, c := range b.CandidateSubnets {
		p, err := netip.ParsePrefix(c)
		if err != nil || !p.Addr().Is4() || p != p.Masked() || !linkLocal.Contains(p.Addr()) || p.Bits() < 16 || p.Bits() > r.subnetLength {
			return r, invalidField(fmt.Sprintf("resource.candidateSubnets[%d]", i), fmt.Sprintf("Invalid value for field 'resource.candidateSubnets[%d]': '%s'. Candidate subnets must be IPv4 prefixes within link-local address space (169.254.0.0/16) of length /%d or shorter.", i, c, r.subnetLength))
		}
		r.candidates = append(r.candidates, p)
	}
	var err error
	if r.cloud, r.peer, err = addressPair("candidateCloudRouterIpAddress", "candidateCustomerRouterIpAddress", deref(b.CandidateCloudRouterIpAddress), deref(b.CandidateCustomerRouterIpAddress), false); err != nil {
		return r, err
	}
	for i, c := range b.CandidateIpv6Subnets {
		p, err := netip.ParsePrefix(c)
		if err != nil || !p.Addr().Is6() || p.Addr().Is4In6() || p != p.Masked() || p.Bits() > 125 {
			return r, invalidField(fmt.Sprintf("resource.candidateIpv6Subnets[%d]", i), fmt.Sprintf("Invalid value for field 'resource.candidateIpv6Subnets[%d]': '%s'. Candidate IPv6 subnets must be IPv6 prefixes of length /125 or shorter.", i, c))
		}
		r.candidates6 = append(r.candidates6, p)
	}
	if r.cloud6, r.peer6, err = addressPair("candidateCloudRouterIpv6Address", "candidateCustomerRouterIpv6Address", deref(b.CandidateCloudRouterIpv6Address), deref(b.CandidateCustomerRouterIpv6Address), true); err != nil {
		return r, err
	}
	return r, nil
}

// addressPair checks a candidate pair of router addresses (with their prefix length): both
// or neither, the same prefix length (at most /31, or /126 for IPv6), in one subnet, not
// the same address.
func addressPair(cloudField, peerField, cloud, peer string, v6 bool) (netip.Prefix, netip.Prefix, error) {
	if cloud == "" && peer == "" {
		return netip.Prefix{}, netip.Prefix{}, nil
	}
	if cloud == "" || peer == "" {
		return netip.Prefix{}, netip.Prefix{}, invalidField("resource."+cloudField, fmt.Sprintf("Invalid value for field 'resource.%s': both %s and %s must be set, or neither.", cloudField, cloudField, peerField))
	}
	family, maxBits := "IPv4", 31
	if v6 {
		family, maxBits = "IPv6", 126
	}
	bad := func(field, value string) error {
		return invalidField("resource."+field, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. Want an %s address with a prefix length of at most %d.", field, value, family, maxBits))
	}
	c, err := netip.ParsePrefix(cloud)
	if err != nil || c.Addr().Is6() != v6 || c.Bits() > maxBits {
		return c, c, bad(cloudField, cloud)
	}
	p, err := netip.ParsePrefix(peer)
	if err != nil || p.Addr().Is6() != v6 || p.Bits() > maxBits {
		return c, p, bad(peerField, peer)
	}
	if c.Bits() != p.Bits() || c.Masked() != p.Masked() || c.Addr() == p.Addr() {
		return c, p, invalidField("resource."+peerField, fmt.Sprintf("Invalid value for field 'resource.%s': '%s'. It must be another address of the subnet of %s, with the same prefix length.", peerField, peer, cloud))
	}
	return c, p, nil
}

// assignAddresses gives a new attachment its router addresses (unless it has them, as a
// seeded one does), from what its insert asked, among the subnets free on its interconnect.
func (s *Server) assignAddresses(tx *store.Tx, ic gen.Interconnect, a *gen.InterconnectAttachment, r addressRequest) error {
	var used []netip.Prefix
	for _, other := range s.attachmentsOn(tx, *ic.SelfLink) {
		for _, addr := range []*string{other.Attachment.CloudRouterIpAddress, other.Attachment.CloudRouterIpv6Address} {
			if p, err := netip.ParsePrefix(deref(addr)); err == nil {
				used = append(used, p.Masked())
			}
		}
	}
	if a.CloudRouterIpAddress == nil {
		switch {
		case r.cloud.IsValid():
			if overlaps(r.cloud.Masked(), used) {
				return invalidField("resource.candidateCloudRouterIpAddress", fmt.Sprintf("Invalid value for field 'resource.candidateCloudRouterIpAddress': '%s'. The subnet is already used by another attachment on interconnect '%s'.", r.cloud, ic.Name))
			}
			a.CloudRouterIpAddress, a.CustomerRouterIpAddress = ptr(r.cloud.String()), ptr(r.peer.String())
		default:
			pool, start := r.candidates, uint64(0)
			if len(pool) == 0 {
				var b [2]byte
				s.read(b[:])
				pool, start = []netip.Prefix{linkLocal}, uint64(b[0])<<8|uint64(b[1])
			}
			subnet, ok := freeSubnet(pool, r.subnetLength, start, used)
			if !ok {
				return invalidField("resource.candidateSubnets", fmt.Sprintf("Invalid value for field 'resource.candidateSubnets': no /%d subnet of the candidates is free on interconnect '%s'.", r.subnetLength, ic.Name))
			}
			a.CloudRouterIpAddress, a.CustomerRouterIpAddress = ptr(hostOf(subnet, 1)), ptr(hostOf(subnet, 2))
		}
	}
	if !r.dualStack || a.CloudRouterIpv6Address != nil {
		return nil
	}
	if r.cloud6.IsValid() {
		if overlaps(r.cloud6.Masked(), used) {
			return invalidField("resource.candidateCloudRouterIpv6Address", fmt.Sprintf("Invalid value for field 'resource.candidateCloudRouterIpv6Address': '%s'. The subnet is already used by another attachment on interconnect '%s'.", r.cloud6, ic.Name))
		}
		a.CloudRouterIpv6Address, a.CustomerRouterIpv6Address = ptr(r.cloud6.String()), ptr(r.peer6.String())
		return nil
	}
	pool := r.candidates6
	if len(pool) == 0 {
		pool = []netip.Prefix{ipv6Pool}
	}
	subnet, ok := freeSubnet(pool, 125, 0, used)
	if !ok {
		return invalidField("resource.candidateIpv6Subnets", fmt.Sprintf("Invalid value for field 'resource.candidateIpv6Subnets': no /125 subnet of the candidates is free on interconnect '%s'.", ic.Name))
	}
	a.CloudRouterIpv6Address, a.CustomerRouterIpv6Address = ptr(hostOf(subnet, 1)), ptr(hostOf(subnet, 2))
	return nil
}

// freeSubnet is the first subnet of length bits, in the pool's order and from the start'th
// subnet of each prefix on (wrapping around), that overlaps nothing used. Only len(used)+1
// subnets of a prefix need a look: used cannot cover more.
func freeSubnet(pool []netip.Prefix, bits int, start uint64, used []netip.Prefix) (netip.Prefix, bool) {
	for _, p := range pool {
		count := new(big.Int).Lsh(big.NewInt(1), uint(bits-p.Bits()))
		first := new(big.Int).Mod(new(big.Int).SetUint64(start), count)
		base := new(big.Int).SetBytes(p.Addr().AsSlice())
		size := new(big.Int).Lsh(big.NewInt(1), uint(p.Addr().BitLen()-bits))
		for i := 0; i <= len(used) && big.NewInt(int64(i)).Cmp(count) < 0; i++ {
			k := new(big.Int).Mod(new(big.Int).Add(first, big.NewInt(int64(i))), count)
			raw := new(big.Int).Add(base, new(big.Int).Mul(k, size)).FillBytes(make([]byte, p.Addr().BitLen()/8))
			addr, _ := netip.AddrFromSlice(raw)
			if subnet := netip.PrefixFrom(addr, bits); !overlaps(subnet, used) {
				return subnet, true
			}
		}
	}
	return netip.Prefix{}, false
}

func overlaps(p netip.Prefix, used []netip.Prefix) bool {
	for _, u := range used {
		if u.Overlaps(p) {
			return true
		}
	}
	return false
}

// hostOf is the n'th address of subnet, with the subnet's prefix length.
func hostOf(subnet netip.Prefix, n int) string {
	a := subnet.Addr()
	for range n {
		a = a.Next()
	}
	return netip.PrefixFrom(a, subnet.Bits()).String()
}
