package compute

import (
	"time"

	"github.com/understudy-dev/understudy/internal/store/compat"
)

// The compute API's records, as the store keeps them (one table each, keyed by their Key
// methods), and the indexes it looks them up by. A member added to a record is stored with
// it: the store derives how to keep a record from its type.

// ForwardingRule is a stored global forwarding rule.
type ForwardingRule struct {
	Project             string
	Name                string
	ID                  string
	Description         string
	IPAddress           string
	IPProtocol          string
	PortRange           string
	Target              string
	LoadBalancingScheme string
	Network             string
	IPVersion           string
	NetworkTier         string
	Subnetwork          string
	BackendService      string
	IPCollection        string
	// The members of PSC consumer rules and of a backend bucket migration, as given.
	AllowPscGlobalAccess bool
	NoAutomateDNSZone    bool
	MigrationState       string   // externalManagedBackendBucketMigrationState
	MigrationPercentage  *float32 // externalManagedBackendBucketMigrationTestingPercentage
	// MetadataFilters and ServiceDirectoryRegistrations are kept as the JSON sent (see opaque.go).
	MetadataFilters               []byte
	ServiceDirectoryRegistrations []byte
	Labels                        map[string]string
	// LabelGeneration counts label changes; the label fingerprint is derived from it and the
	// labels, so it changes on every setLabels.
	LabelGeneration uint64
	// Generation counts other changes (patch, setTarget); the rule's fingerprint is derived
	// from it.
	Generation uint64
	Created    time.Time
	// Pending is set while the insert's operation runs: the name is taken, but the rule is
	// not readable yet.
	Pending bool
	// Deleting is set while an accepted delete's operation runs: the resource is still
	// readable, but nothing may change or use it (resourceNotReady).
	Deleting bool
}

// Key is the rule's primary key.
func (r ForwardingRule) Key() string { return r.Project + "|" + r.Name }

// Interconnect is a stored (dedicated) interconnect: a physical connection at a location.
type Interconnect struct {
	Project            string
	Name               string
	ID                 string
	Description        string
	Location           string // interconnect location name, e.g. iad-zone1-1
	LinkType           string
	RequestedLinkCount int
	InterconnectType   string
	CustomerName       string
	NocContactEmail    string
	AdminEnabled       bool
	RequestedFeatures  []string
	RemoteLocation     string
	Subzone            string
	MacsecEnabled      bool
	AAIEnabled         bool
	// Macsec and ApplicationAwareInterconnect are kept as the JSON sent (see opaque.go).
	Macsec                       []byte
	ApplicationAwareInterconnect []byte
	Labels                       map[string]string
	// LabelGeneration counts label changes (setLabels, a patch of labels), as a rule's does.
	LabelGeneration uint64
	// Generation counts every change, so that the etags of the groups holding it change.
	Generation uint64
	// CircuitDown is set through the admin API: the circuit is down although the
	// configuration says nothing of it (adminEnabled stays as it is).
	CircuitDown bool
	Created     time.Time
	Pending     bool // insert still running
	// Deleting is set while an accepted delete's operation runs: the resource is still
	// readable, but nothing may change or use it (resourceNotReady).
	Deleting bool
}

// Key is the interconnect's primary key.
func (i Interconnect) Key() string { return i.Project + "|" + i.Name }

// InterconnectAttachment is a stored regional attachment (a VLAN) on an interconnect.
type InterconnectAttachment struct {
	Project      string
	Region       string
	Name         string
	ID           string
	Description  string
	Interconnect string // the interconnect's name (same project)
	Type         string
	Router       string
	AdminEnabled bool
	VlanTag      int
	Bandwidth    string
	Mtu          int
	StackType    string
	Encryption   string
	// IpsecInternalAddresses are URLs of addresses, as given (encryption IPSEC only).
	IpsecInternalAddresses []string
	// What the insert asked of the BGP addresses, as given, and the addresses assigned
	// (each an address with its prefix length, as the wire shows them).
	CandidateSubnets                    []string
	CandidateCloudRouterIP              string
	CandidateCustomerRouterIP           string
	CandidateIPv6Subnets                []string
	CandidateCloudRouterIPv6            string
	CandidateCustomerRouterIPv6         string
	CloudRouterIPv6InterfaceID          string
	CustomerRouterIPv6InterfaceID       string
	CloudRouterIP, CustomerRouterIP     string
	CloudRouterIPv6, CustomerRouterIPv6 string
	Labels                              map[string]string
	// LabelGeneration counts label changes (setLabels, a patch of labels).
	LabelGeneration uint64
	// CircuitDown is set through the admin API, as an interconnect's is.
	CircuitDown bool
	Created     time.Time
	Pending     bool
	// Group is the attachment group that holds it ("" for none): an attachment belongs to one
	// group at most. It is set when the group's change is accepted.
	Group string
	// Generation counts changes, so that a group's etag changes when its attachments do.
	Generation uint64
	// Deleting is set while an accepted delete's operation runs: the resource is still
	// readable, but nothing may change or use it (resourceNotReady).
	Deleting bool
}

// Key is the attachment's primary key.
func (a InterconnectAttachment) Key() string { return AttachmentKey(a.Project, a.Region, a.Name) }

// AttachmentKey is the primary key of an attachment.
func AttachmentKey(project, region, name string) string { return project + "|" + region + "|" + name }

// AttachmentGroup is a stored interconnect attachment group.
type AttachmentGroup struct {
	Project           string
	Name              string
	ID                string
	Description       string
	Intent            string            // availabilitySla
	Attachments       map[string]string // user key -> attachment key (AttachmentKey)
	AttachmentURLs    map[string]string // user key -> the URL as the client sent it
	InterconnectGroup string
	Generation        uint64 // counts changes; part of the etag
	Created           time.Time
	Pending           bool
	// Deleting is set while an accepted delete's operation runs: the resource is still
	// readable, but nothing may change or use it (resourceNotReady).
	Deleting bool
}

// Key is the group's primary key.
func (g AttachmentGroup) Key() string { return g.Project + "|" + g.Name }

// InterconnectGroup is a stored interconnect group.
type InterconnectGroup struct {
	Project     string
	Name        string
	ID          string
	Description string
	Intent      string // intent.topologyCapability
	// Interconnects maps the user's keys to interconnect names (same project); the name moves
	// with interconnects.setName. A member that is deleted stays here, and reads as down.
	Interconnects map[string]string
	Generation    uint64 // counts changes; part of the etag
	Created       time.Time
	Pending       bool
	Deleting      bool
}

// Key is the group's primary key.
func (g InterconnectGroup) Key() string { return g.Project + "|" + g.Name }

// IAMPolicy is the IAM policy stored on a resource (an attachment group or an interconnect
// group); a resource without one has the empty policy.
type IAMPolicy struct {
	// Resource is "project|collection|resource id": the id, so that a policy does not pass to
	// a later resource of the same name.
	Resource     string
	Version      int
	Bindings     []PolicyBinding
	AuditConfigs []PolicyAuditConfig
	// Generation counts setIamPolicy calls; the etag is derived from it.
	Generation uint64
}

// Key is the policy's primary key.
func (p IAMPolicy) Key() string { return p.Resource }

// PolicyBinding is one binding of a stored policy.
type PolicyBinding struct {
	Role    string
	Members []string
	// Condition is set for a conditional binding.
	Condition *PolicyCondition
}

// PolicyCondition is a binding's condition (a CEL expression).
type PolicyCondition struct {
	Title, Description, Expression, Location string
}

// PolicyAuditConfig is one auditConfigs entry of a stored policy.
type PolicyAuditConfig struct {
	Service string
	Logs    []PolicyAuditLog
}

// PolicyAuditLog is one auditLogConfigs entry.
type PolicyAuditLog struct {
	LogType         string
	ExemptedMembers []string
}

// tables are the compute API's tables and their indexes.
type tables struct {
	ForwardingRules *store.Table[ForwardingRule]
	// RuleByID finds a rule by project and numeric id.
	RuleByID *store.Unique[ForwardingRule]
	// RulesByName lists a project's rules in name order.
	RulesByName *store.Ordered[ForwardingRule]

	Interconnects  *store.Table[Interconnect]
	InterconnectID *store.Unique[Interconnect]
	// InterconnectsByName lists a project's interconnects.
	InterconnectsByName *store.Ordered[Interconnect]

	Attachments  *store.Table[InterconnectAttachment]
	AttachmentID *store.Unique[InterconnectAttachment]
	// AttachmentsByName lists a project's attachments in a region.
	AttachmentsByName *store.Ordered[InterconnectAttachment]
	// AttachmentsByInterconnect finds the attachments on an interconnect ("project|name").
	AttachmentsByInterconnect *store.Ordered[InterconnectAttachment]

	Groups  *store.Table[AttachmentGroup]
	GroupID *store.Unique[AttachmentGroup]
	// GroupsByName lists a project's attachment groups.
	GroupsByName *store.Ordered[AttachmentGroup]

	InterconnectGroups  *store.Table[InterconnectGroup]
	InterconnectGroupID *store.Unique[InterconnectGroup]
	// InterconnectGroupsByName lists a project's interconnect groups.
	InterconnectGroupsByName *store.Ordered[InterconnectGroup]

	Policies *store.Table[IAMPolicy]
}

// newTables adds the compute tables to db.
func newTables(db *store.DB) *tables {
	rules := store.NewTable[ForwardingRule](db, "forwardingRules")
	ics := store.NewTable[Interconnect](db, "interconnects")
	atts := store.NewTable[InterconnectAttachment](db, "interconnectAttachments")
	groups := store.NewTable[AttachmentGroup](db, "interconnectAttachmentGroups")
	icGroups := store.NewTable[InterconnectGroup](db, "interconnectGroups")
	return &tables{
		ForwardingRules: rules,
		RuleByID:        rules.AddUnique("id", func(r ForwardingRule) (string, bool) { return r.Project + "|" + r.ID, true }),
		RulesByName:     rules.AddPKOrder(),

		Interconnects:       ics,
		InterconnectID:      ics.AddUnique("id", func(i Interconnect) (string, bool) { return i.Project + "|" + i.ID, true }),
		InterconnectsByName: ics.AddPKOrder(),

		Attachments: atts,
		AttachmentID: atts.AddUnique("id", func(a InterconnectAttachment) (string, bool) {
			return a.Project + "|" + a.Region + "|" + a.ID, true
		}),
		AttachmentsByName: atts.AddPKOrder(),
		AttachmentsByInterconnect: atts.AddOrdered(func(a InterconnectAttachment) (string, bool) {
			return a.Project + "|" + a.Interconnect, true
		}),

		Groups:       groups,
		GroupID:      groups.AddUnique("id", func(g AttachmentGroup) (string, bool) { return g.Project + "|" + g.ID, true }),
		GroupsByName: groups.AddPKOrder(),

		InterconnectGroups: icGroups,
		InterconnectGroupID: icGroups.AddUnique("id", func(g InterconnectGroup) (string, bool) {
			return g.Project + "|" + g.ID, true
		}),
		InterconnectGroupsByName: icGroups.AddPKOrder(),

		Policies: store.NewTable[IAMPolicy](db, "iamPolicies"),
	}
}

// listed is each resource's place in its project's list, and whether it is listed: not
// while its insert runs.
func (r ForwardingRule) listed() (listItem, bool) {
	return listItem{name: r.Name, created: r.Created}, !r.Pending
}

func (ic Interconnect) listed() (listItem, bool) {
	return listItem{name: ic.Name, created: ic.Created}, !ic.Pending
}

func (a InterconnectAttachment) listed() (listItem, bool) {
	return listItem{name: a.Name, created: a.Created}, !a.Pending
}

func (g AttachmentGroup) listed() (listItem, bool) {
	return listItem{name: g.Name, created: g.Created}, !g.Pending
}

func (g InterconnectGroup) listed() (listItem, bool) {
	return listItem{name: g.Name, created: g.Created}, !g.Pending
}
