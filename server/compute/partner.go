package compute

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/google/uuid"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// Partner Interconnect. A customer makes a PARTNER attachment, which gets a pairing key and
// waits for its partner (PENDING_PARTNER); the partner makes a PARTNER_PROVIDER attachment on
// an interconnect of its own naming that key, which provisions both in one transaction: the
// customer's gets the partner's bandwidth, metadata, ASN, VLAN and BGP addresses and waits
// for the customer to activate it (PENDING_CUSTOMER), unless it was activated beforehand
// (ACTIVE). The two are a pair, found through the pairing key they share (the attachments'
// pairing index): what the partner sets shows on the customer's side, the customer's
// activation on both, and the delete of either leaves the other DEFUNCT. It lives apart
// from the dedicated attachments' code because the members and the state of these two
// types follow the pair, not one interconnect.

const (
	typePartner  = gen.InterconnectAttachmentTypePARTNER
	typeProvider = gen.InterconnectAttachmentTypePARTNERPROVIDER
)

// pairingIndexKey is a partner attachment's key in the pairing index: its pairing key and
// its side of the pair. Dedicated attachments have none.
func pairingIndexKey(a gen.InterconnectAttachment) (string, bool) {
	t := deref(a.Type)
	if a.PairingKey == nil || (t != typePartner && t != typeProvider) {
		return "", false
	}
	return *a.PairingKey + "|" + string(t), true
}

// keyDomains are the last part of a pairing key: the edge availability domain the customer
// asked for.
var keyDomains = map[gen.InterconnectAttachmentEdgeAvailabilityDomain]string{
	gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAIN1:   "1",
	gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAIN2:   "2",
	gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAINANY: "any",
}

// pairingKey is a PARTNER attachment's pairing key, of the documented form
// "XXXXX/region/domain": id, the attachment's region and its edge availability domain.
func pairingKey(id uuid.UUID, a gen.InterconnectAttachment) string {
	return id.String() + "/" + regionOf(*a.Region) + "/" + keyDomains[*a.EdgeAvailabilityDomain]
}

// newUUID is a random (version 4) UUID from the server's source of randomness.
func (s *Server) newUUID() uuid.UUID {
	id, err := uuid.NewRandomFromReader(s.cfg.Random)
	if err != nil {
		panic("compute: no randomness: " + err.Error()) // as read does
	}
	return id
}

// checkPartnerMembers refuses what a PARTNER attachment's insert may not give: what its
// partner sets (the interconnect, VLAN, bandwidth, partner metadata and ASN: "output only
// for PARTNER"), its pairing key (made here) and the members otherTypesMembers says; it
// needs a Cloud Router.
func checkPartnerMembers(b gen.InterconnectAttachment) error {
	byPartner := "A PARTNER attachment's %s is set by its partner when it provisions the attachment."
	err := refuse(append([]refused{
		{"interconnect", deref(b.Interconnect), deref(b.Interconnect) != "", fmt.Sprintf(byPartner, "interconnect")},
		{"vlanTag8021q", fmt.Sprint(deref(b.VlanTag8021q)), b.VlanTag8021q != nil, fmt.Sprintf(byPartner, "VLAN")},
		{"bandwidth", string(deref(b.Bandwidth)), b.Bandwidth != nil, fmt.Sprintf(byPartner, "bandwidth")},
		{"partnerAsn", deref(b.PartnerAsn), b.PartnerAsn != nil, fmt.Sprintf(byPartner, "partnerAsn")},
		{"partnerMetadata", "", b.PartnerMetadata != nil, fmt.Sprintf(byPartner, "partnerMetadata")},
		{"pairingKey", deref(b.PairingKey), b.PairingKey != nil, "A PARTNER attachment's pairing key is made when it is created; PARTNER_PROVIDER attachments take one."},
	}, otherTypesMembers(b)...)...)
	if err == nil && deref(b.Router) == "" {
		err = requiredField("resource.router")
	}
	return err
}

// checkProviderMembers refuses what a PARTNER_PROVIDER attachment's insert may not give
// (adminEnabled, "not present for PARTNER_PROVIDER": its customer activates the pair;
// encryption, which only PARTNER and DEDICATED attachments choose; the members
// otherTypesMembers says), and requires what the partner must say: the pairing key, the
// bandwidth and its metadata. Its interconnect is required as a dedicated one's is.
func checkProviderMembers(b gen.InterconnectAttachment) error {
	err := refuse(append([]refused{
		{"adminEnabled", fmt.Sprint(deref(b.AdminEnabled)), b.AdminEnabled != nil, "adminEnabled is not present for PARTNER_PROVIDER attachments: the customer activates its PARTNER attachment."},
		{"encryption", string(deref(b.Encryption)), b.Encryption != nil, "encryption can only be specified for PARTNER and DEDICATED attachments."},
	}, otherTypesMembers(b)...)...)
	if err != nil {
		return err
	}
	m := deref(b.PartnerMetadata)
	for _, f := range []struct {
		field   string
		missing bool
	}{
		{"pairingKey", deref(b.PairingKey) == ""}, {"bandwidth", b.Bandwidth == nil}, {"partnerMetadata", b.PartnerMetadata == nil},
		{"partnerMetadata.partnerName", deref(m.PartnerName) == ""}, {"partnerMetadata.interconnectName", deref(m.InterconnectName) == ""},
		{"partnerMetadata.portalUrl", deref(m.PortalUrl) == ""},
	} {
		if f.missing {
			return requiredField("resource." + f.field)
		}
	}
	if asn, err := strconv.ParseUint(deref(b.PartnerAsn), 10, 32); b.PartnerAsn != nil && (err != nil || asn == 0) {
		return invalidField("resource.partnerAsn", fmt.Sprintf("Invalid value for field 'resource.partnerAsn': '%s'. A BGP ASN is from 1 to 4294967295.", *b.PartnerAsn))
	}
	return nil
}

// newPartner sets a new PARTNER attachment's defaults: disabled (gcloud's "defaults to
// disabled"), unencrypted, in the edge availability domain it asks for (any by default),
// waiting for its partner.
func newPartner(a *gen.InterconnectAttachment, b gen.InterconnectAttachment) {
	a.AdminEnabled = orDefault(a.AdminEnabled, false)
	a.Encryption = orDefault(a.Encryption, gen.InterconnectAttachmentEncryptionNONE)
	a.EdgeAvailabilityDomain = orDefault(b.EdgeAvailabilityDomain, gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAINANY)
	setState(a, gen.InterconnectAttachmentStatePENDINGPARTNER)
}

// setState sets an attachment's state, and its operational status with it: only an ACTIVE
// attachment is turned up.
func setState(a *gen.InterconnectAttachment, state gen.InterconnectAttachmentState) {
	os := gen.InterconnectAttachmentOperationalStatusOSUNPROVISIONED
	if state == gen.InterconnectAttachmentStateACTIVE {
		os = gen.InterconnectAttachmentOperationalStatusOSACTIVE
	}
	a.State, a.OperationalStatus = &state, &os
}

// placeProvider stores a new PARTNER_PROVIDER attachment and provisions the PARTNER
// attachment of its pairing key, in tx: that one must wait for its partner, in the same
// region; the provider's interconnect must be a PARTNER one in the domain the customer
// asked for. The pair's addresses are what the provider asks, else what the customer's
// insert asked (pairAddresses).
func (s *Server) placeProvider(tx *store.Tx, rec *AttachmentRecord, vlan *int32, addrs addressRequest) error {
	a := &rec.Attachment
	key := *a.PairingKey
	customer, found := s.pairOf(tx, *a)
	if !found || customer.Pending {
		return invalidField("resource.pairingKey", fmt.Sprintf("Invalid value for field 'resource.pairingKey': '%s'. No PARTNER attachment has this pairing key.", key))
	}
	c := customer.Attachment
	switch {
	case customer.Deleting:
		e := notReady(*c.SelfLink)
		e.Location = "resource.pairingKey"
		return e
	case deref(c.State) != gen.InterconnectAttachmentStatePENDINGPARTNER:
		return invalidField("resource.pairingKey", fmt.Sprintf("Invalid value for field 'resource.pairingKey': '%s'. The PARTNER attachment of this pairing key is %s, not waiting for its partner (PENDING_PARTNER).", key, deref(c.State)))
	case regionOf(*c.Region) != regionOf(*a.Region):
		return invalidField("resource.pairingKey", fmt.Sprintf("Invalid value for field 'resource.pairingKey': '%s'. The pairing key is for region '%s', not '%s'.", key, regionOf(*c.Region), regionOf(*a.Region)))
	}
	if err := s.placeAttachment(tx, rec, vlan, pairAddresses(addrs, c)); err != nil {
		return err
	}
	ic, _ := s.tables.interconnects.Get(tx, *a.Interconnect) // placed on it just now
	if ic.Interconnect.InterconnectType != gen.InterconnectInterconnectTypePARTNER {
		return invalidField("resource.interconnect", fmt.Sprintf("Invalid value for field 'resource.interconnect': '%s'. A PARTNER_PROVIDER attachment is on a PARTNER interconnect, not a %s one.", *a.Interconnect, ic.Interconnect.InterconnectType))
	}
	if want := *c.EdgeAvailabilityDomain; want != gen.InterconnectAttachmentEdgeAvailabilityDomainAVAILABILITYDOMAINANY && a.EdgeAvailabilityDomain != nil && *a.EdgeAvailabilityDomain != want {
		return invalidField("resource.interconnect", fmt.Sprintf("Invalid value for field 'resource.interconnect': '%s'. The pairing key asks for %s; the interconnect is in %s.", *a.Interconnect, want, *a.EdgeAvailabilityDomain))
	}
	return s.putPair(tx, customer, *rec)
}

// pairAddresses is what a pair's addresses are picked by: the provider's insert's request,
// with the customer's candidates where the provider gives none, dual stack when the
// customer's attachment is (its insert's candidates were checked then).
func pairAddresses(provider addressRequest, customer gen.InterconnectAttachment) addressRequest {
	c, _ := checkAddressRequest(customer, *customer.StackType == gen.InterconnectAttachmentStackTypeIPV4IPV6)
	if len(provider.candidates) == 0 {
		provider.candidates = c.candidates
	}
	if !provider.cloud.IsValid() {
		provider.cloud, provider.peer = c.cloud, c.peer
	}
	if len(provider.candidates6) == 0 {
		provider.candidates6 = c.candidates6
	}
	if !provider.cloud6.IsValid() {
		provider.cloud6, provider.peer6 = c.cloud6, c.peer6
	}
	provider.dualStack = c.dualStack
	return provider
}

// pairOf is the other side of a partner attachment's pair, if there is one: the
// PARTNER_PROVIDER attachment of a PARTNER one's pairing key, or the PARTNER attachment a
// PARTNER_PROVIDER one names.
func (s *Server) pairOf(tx *store.Tx, a gen.InterconnectAttachment) (AttachmentRecord, bool) {
	other := a
	switch deref(a.Type) {
	case typePartner:
		other.Type = ptr(typeProvider)
	case typeProvider:
		other.Type = ptr(typePartner)
	}
	key, ok := pairingIndexKey(other)
	if !ok {
		return AttachmentRecord{}, false
	}
	_, r, ok := s.tables.pairing.Get(tx, key)
	return r, ok
}

// putPair stores a pair as it is: the customer's attachment shows what its partner set, the
// partner's has the customer's stack type, and both take the state the customer's
// activation gives (pairState).
func (s *Server) putPair(tx *store.Tx, customer, provider AttachmentRecord) error {
	c, p := &customer.Attachment, &provider.Attachment
	p.StackType = c.StackType
	c.Bandwidth, c.PartnerMetadata, c.PartnerAsn, c.VlanTag8021q = p.Bandwidth, p.PartnerMetadata, p.PartnerAsn, p.VlanTag8021q
	c.CloudRouterIpAddress, c.CustomerRouterIpAddress = p.CloudRouterIpAddress, p.CustomerRouterIpAddress
	c.CloudRouterIpv6Address, c.CustomerRouterIpv6Address = p.CloudRouterIpv6Address, p.CustomerRouterIpv6Address
	setState(c, pairState(*c, provider.Pending))
	setState(p, pairState(*c, false))
	if err := s.tables.attachments.Put(tx, *c.SelfLink, customer); err != nil {
		return err
	}
	return s.tables.attachments.Put(tx, *p.SelfLink, provider)
}

// pairState is the state of a provisioned pair's side, from the customer's attachment c:
// the customer's is PARTNER_REQUEST_RECEIVED while its partner's insert runs; then both wait
// for the customer (PENDING_CUSTOMER) until it enables its attachment, which makes them
// ACTIVE. An ACTIVE pair stays ACTIVE: disabling it afterwards drains it, as a dedicated
// attachment's adminEnabled does.
func pairState(c gen.InterconnectAttachment, providerPending bool) gen.InterconnectAttachmentState {
	switch {
	case deref(c.State) == gen.InterconnectAttachmentStateACTIVE:
		return gen.InterconnectAttachmentStateACTIVE
	case providerPending:
		return gen.InterconnectAttachmentStatePARTNERREQUESTRECEIVED
	case deref(c.AdminEnabled):
		return gen.InterconnectAttachmentStateACTIVE
	}
	return gen.InterconnectAttachmentStatePENDINGCUSTOMER
}

// providerReady settles the pair of the attachment at path once its insert is DONE: a
// PARTNER_PROVIDER attachment's customer leaves PARTNER_REQUEST_RECEIVED.
func (s *Server) providerReady(tx *store.Tx, path string) error {
	rec, ok := s.tables.attachments.Get(tx, path)
	if !ok || deref(rec.Attachment.Type) != typeProvider {
		return nil
	}
	customer, ok := s.pairOf(tx, rec.Attachment)
	if !ok {
		return nil // deleted while the insert ran: rec is DEFUNCT
	}
	return s.putPair(tx, customer, rec)
}

// putAttachment stores a changed attachment; one of a pair stores the pair as it then is
// (putPair): what the partner changed shows on its customer's side, and the customer's
// activation, stack type and the IPv6 addresses it took on both.
func (s *Server) putAttachment(tx *store.Tx, rec AttachmentRecord) error {
	other, paired := s.pairOf(tx, rec.Attachment)
	switch {
	case !paired:
		return s.tables.attachments.Put(tx, *rec.Attachment.SelfLink, rec)
	case *rec.Attachment.Type == typeProvider:
		return s.putPair(tx, other, rec)
	}
	c, p := rec.Attachment, &other.Attachment
	p.CloudRouterIpv6Address, p.CustomerRouterIpv6Address = c.CloudRouterIpv6Address, c.CustomerRouterIpv6Address
	return s.putPair(tx, rec, other)
}

// defunctPair leaves the other side of a deleted partner attachment DEFUNCT: "the other
// side of a Partner attachment was deleted". It keeps what it was provisioned with.
func (s *Server) defunctPair(tx *store.Tx, a gen.InterconnectAttachment) error {
	other, ok := s.pairOf(tx, a)
	if !ok {
		return nil
	}
	setState(&other.Attachment, gen.InterconnectAttachmentStateDEFUNCT)
	return s.tables.attachments.Put(tx, *other.Attachment.SelfLink, other)
}

// port is the interconnect an attachment's traffic goes through: its own, or a PARTNER
// attachment's partner's, once the partner has provisioned it.
func (s *Server) port(tx *store.Tx, a gen.InterconnectAttachment) (InterconnectRecord, bool) {
	if deref(a.Type) == typePartner {
		provider, ok := s.pairOf(tx, a)
		if !ok {
			return InterconnectRecord{}, false
		}
		a = provider.Attachment
	}
	if a.Interconnect == nil {
		return InterconnectRecord{}, false
	}
	return s.tables.interconnects.Get(tx, *a.Interconnect)
}

// carries reports whether an attachment is configured to carry traffic: ACTIVE (a
// dedicated one always is; a partner one once provisioned and activated) and enabled (a
// PARTNER_PROVIDER attachment has no adminEnabled of its own).
func carries(a gen.InterconnectAttachment) bool {
	return deref(a.State) == gen.InterconnectAttachmentStateACTIVE && deref(orDefault(a.AdminEnabled, true))
}

// partnerSeedBody is a seed entry's attachment as its insert takes it: a PARTNER
// attachment's entry may record what its pair gave it (pairing key, bandwidth, partner
// metadata and ASN, VLAN), which its insert refuses; seededPartner puts them back.
func partnerSeedBody(b gen.InterconnectAttachment) gen.InterconnectAttachment {
	if deref(b.Type) == typePartner {
		b.PairingKey, b.Bandwidth, b.PartnerAsn, b.PartnerMetadata, b.VlanTag8021q = nil, nil, nil, nil, nil
	}
	return b
}

// seededPartner makes a seeded partner attachment a what its entry b records: a PARTNER
// attachment's pairing key (else one derived from its id, the same at every start), its
// state (else PENDING_PARTNER) and, once provisioned, what its partner gave it; a
// PARTNER_PROVIDER attachment's state (else PENDING_CUSTOMER, until its pair is seeded too:
// seedPair). A PARTNER attachment recorded PARTNER_REQUEST_RECEIVED is PENDING_PARTNER
// again: the insert of its partner was running, which an export leaves out.
func seededPartner(a *gen.InterconnectAttachment, b gen.InterconnectAttachment) error {
	const (
		pendingPartner  = gen.InterconnectAttachmentStatePENDINGPARTNER
		pendingCustomer = gen.InterconnectAttachmentStatePENDINGCUSTOMER
	)
	states := []gen.InterconnectAttachmentState{pendingCustomer, gen.InterconnectAttachmentStateACTIVE, gen.InterconnectAttachmentStateDEFUNCT}
	state := deref(b.State)
	switch *a.Type {
	case typePartner:
		a.PairingKey = b.PairingKey
		if a.PairingKey == nil {
			a.PairingKey = ptr(pairingKey(uuid.NewSHA1(uuid.Nil, []byte("seed-pairing|"+*a.Id)), *a))
		}
		states = append(states, pendingPartner)
		switch state {
		case "", gen.InterconnectAttachmentStatePARTNERREQUESTRECEIVED:
			state = pendingPartner
		case pendingCustomer, gen.InterconnectAttachmentStateACTIVE, gen.InterconnectAttachmentStateDEFUNCT:
			a.Bandwidth, a.PartnerMetadata, a.PartnerAsn, a.VlanTag8021q = b.Bandwidth, b.PartnerMetadata, b.PartnerAsn, b.VlanTag8021q
		}
	case typeProvider:
		if state == "" {
			state = pendingCustomer
		}
	default:
		return nil
	}
	if !slices.Contains(states, state) {
		return invalidField("resource.state", fmt.Sprintf("Invalid value for field 'resource.state': '%s'. A %s attachment is one of %v.", state, *a.Type, states))
	}
	setState(a, state)
	return nil
}

// seedPair provisions a seeded pair whose PARTNER attachment waits for its partner, as the
// partner's insert would, once both sides are seeded (in either order: they may be in two
// projects); a pair recorded provisioned is kept as it is recorded.
func (s *Server) seedPair(tx *store.Tx, rec AttachmentRecord) error {
	other, ok := s.pairOf(tx, rec.Attachment)
	if !ok {
		return nil
	}
	customer, provider := rec, other
	if *rec.Attachment.Type == typeProvider {
		customer, provider = other, rec
	}
	if deref(customer.Attachment.State) != gen.InterconnectAttachmentStatePENDINGPARTNER {
		return nil
	}
	return s.putPair(tx, customer, provider)
}
