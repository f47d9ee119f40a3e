package store

import (
	"maps"
	"time"
)

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

func cloneForwardingRule(r ForwardingRule) ForwardingRule {
	r.Labels = maps.Clone(r.Labels)
	return r
}

// canonicalRule shares what rules repeat: the project, which comes as part of the request
// path (a copy of its own lets the request line go instead of living as long as the rule),
// and the protocol, scheme, version, port range, network and target, which many rules
// have in common. Fewer strings of their own mean less for the garbage collector to mark.
func canonicalRule(r ForwardingRule, s *sharer) ForwardingRule {
	r.Project = s.share(0, r.Project)
	r.IPProtocol, r.LoadBalancingScheme, r.IPVersion = s.share(1, r.IPProtocol), s.share(2, r.LoadBalancingScheme), s.share(3, r.IPVersion)
	r.PortRange, r.Network, r.Target = s.share(4, r.PortRange), s.share(5, r.Network), s.share(6, r.Target)
	return r
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
	rules := NewTable[ForwardingRule](db, "forwardingRules", cloneForwardingRule)
	rules.canonical = canonicalRule
	rules.madeKeys = true // keys are ForwardingRule.Key's, also as an operation's Target
	return &Compute{
		ForwardingRules: rules,
		RuleByID:        rules.AddUnique("id", func(b []byte, r ForwardingRule) ([]byte, bool) { return appendKey(b, r.Project, r.ID), true }),
		RulesByName:     rules.AddPKOrder(),
	}
}
