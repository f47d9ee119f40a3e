package store

import "time"

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
	Labels              map[string]string
	// LabelGeneration counts label changes; the label fingerprint is derived from it and the
	// labels, so it changes on every setLabels.
	LabelGeneration uint64
	Created         time.Time
	// Pending is set while the insert's operation runs: the name is taken, but the rule is
	// not readable yet.
	Pending bool
	// Deleting is set while an accepted delete's operation runs: the resource is still
	// readable, but nothing may change or use it (resourceNotReady).
	Deleting bool
}

// Key is the rule's primary key.
func (r ForwardingRule) Key() string { return r.Project + "|" + r.Name }

// ruleCodec keeps a rule's fields in the order of the struct.
var ruleCodec = Codec[ForwardingRule]{
	Encode: func(e *Enc, r ForwardingRule) {
		e.String(r.Project)
		e.String(r.Name)
		e.String(r.ID)
		e.String(r.Description)
		e.String(r.IPAddress)
		e.String(r.IPProtocol)
		e.String(r.PortRange)
		e.String(r.Target)
		e.String(r.LoadBalancingScheme)
		e.String(r.Network)
		e.String(r.IPVersion)
		e.StringMap(r.Labels)
		e.Uint(r.LabelGeneration)
		e.Time(r.Created)
		e.Bool(r.Pending)
		e.Bool(r.Deleting)
	},
	Decode: func(d *Dec) ForwardingRule {
		return ForwardingRule{Project: d.String(), Name: d.String(), ID: d.String(), Description: d.String(),
			IPAddress: d.String(), IPProtocol: d.String(), PortRange: d.String(), Target: d.String(),
			LoadBalancingScheme: d.String(), Network: d.String(), IPVersion: d.String(), Labels: d.StringMap(),
			LabelGeneration: d.Uint(), Created: d.Time(), Pending: d.Bool(), Deleting: d.Bool()}
	},
}

// Compute holds the compute API's resource tables.
type Compute struct {
	// ForwardingRules is keyed by ForwardingRule.Key. Put keeps the key it is given, so a
	// key must be a string of its own, never cut from a longer one that the rule does not
	// keep whole (compute's keyAndID cuts it from the string that also holds the rule's id
	// and address).
	ForwardingRules *Table[ForwardingRule]
	// RuleByID finds a rule by project and numeric id.
	RuleByID *Unique[ForwardingRule]
	// RulesByName lists a project's rules in name order.
	RulesByName *Ordered[ForwardingRule]
}

// NewCompute adds the compute tables to db.
func NewCompute(db *DB) *Compute {
	rules := NewTable(db, "forwardingRules", ruleCodec)
	return &Compute{
		ForwardingRules: rules,
		RuleByID:        rules.AddUnique("id", func(b []byte, r ForwardingRule) ([]byte, bool) { return appendKey(b, r.Project, r.ID), true }),
		RulesByName:     rules.AddPKOrder(),
	}
}
