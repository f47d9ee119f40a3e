package store

import (
	"maps"
	"time"
)

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
	Labels             map[string]string
	Created            time.Time
	Pending            bool // insert still running
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
	Labels       map[string]string
	Created      time.Time
	Pending      bool
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

func cloneInterconnect(i Interconnect) Interconnect {
	i.Labels = maps.Clone(i.Labels)
	return i
}

func cloneAttachment(a InterconnectAttachment) InterconnectAttachment {
	a.Labels = maps.Clone(a.Labels)
	return a
}

func cloneGroup(g AttachmentGroup) AttachmentGroup {
	g.Attachments = maps.Clone(g.Attachments)
	g.AttachmentURLs = maps.Clone(g.AttachmentURLs)
	return g
}

// canonicalInterconnect, canonicalAttachment and canonicalGroup share what their records
// repeat (as canonicalRule does for rules): the project and region, which come as parts of
// the request path, and the enumerations and references many records have in common.
func canonicalInterconnect(i Interconnect, s *sharer) Interconnect {
	i.Project, i.Location = s.share(0, i.Project), s.share(1, i.Location)
	i.LinkType, i.InterconnectType = s.share(2, i.LinkType), s.share(3, i.InterconnectType)
	i.CustomerName, i.NocContactEmail = s.share(4, i.CustomerName), s.share(5, i.NocContactEmail)
	return i
}

func canonicalAttachment(a InterconnectAttachment, s *sharer) InterconnectAttachment {
	a.Project, a.Region, a.Interconnect = s.share(0, a.Project), s.share(1, a.Region), s.share(2, a.Interconnect)
	a.Type, a.Router = s.share(3, a.Type), s.share(4, a.Router)
	a.Bandwidth, a.StackType = s.share(5, a.Bandwidth), s.share(6, a.StackType)
	return a
}

func canonicalGroup(g AttachmentGroup, s *sharer) AttachmentGroup {
	g.Project, g.Intent, g.InterconnectGroup = s.share(0, g.Project), s.share(1, g.Intent), s.share(2, g.InterconnectGroup)
	return g
}

// Interconnects holds the interconnect world's tables. They are keyed by their records' Key
// methods (AttachmentKey for attachments); Put keeps the key it is given, so a key must be
// a string of its own, never cut from a longer one that the record does not keep whole (a
// group's key is followed by its id in one string, see compute's keyAndID).
type Interconnects struct {
	Interconnects  *Table[Interconnect]
	InterconnectID *Unique[Interconnect]
	// InterconnectsByName lists a project's interconnects.
	InterconnectsByName *Ordered[Interconnect]

	Attachments  *Table[InterconnectAttachment]
	AttachmentID *Unique[InterconnectAttachment]
	// AttachmentsByName lists a project's attachments in a region.
	AttachmentsByName *Ordered[InterconnectAttachment]
	// AttachmentsByInterconnect finds the attachments on an interconnect ("project|name").
	AttachmentsByInterconnect *Ordered[InterconnectAttachment]

	Groups  *Table[AttachmentGroup]
	GroupID *Unique[AttachmentGroup]
	// GroupsByName lists a project's groups.
	GroupsByName *Ordered[AttachmentGroup]
}

// NewInterconnects adds the interconnect tables to db.
func NewInterconnects(db *DB) *Interconnects {
	ics := NewTable[Interconnect](db, "interconnects", cloneInterconnect)
	atts := NewTable[InterconnectAttachment](db, "interconnectAttachments", cloneAttachment)
	groups := NewTable[AttachmentGroup](db, "interconnectAttachmentGroups", cloneGroup)
	// Keys are the Key methods' (and AttachmentKey's), also as an operation's Target or a
	// group's attachment.
	ics.madeKeys, atts.madeKeys, groups.madeKeys = true, true, true
	ics.canonical, atts.canonical, groups.canonical = canonicalInterconnect, canonicalAttachment, canonicalGroup
	return &Interconnects{
		Interconnects:       ics,
		InterconnectID:      ics.AddUnique("id", func(b []byte, i Interconnect) ([]byte, bool) { return appendKey(b, i.Project, i.ID), true }),
		InterconnectsByName: ics.AddPKOrder(),

		Attachments: atts,
		AttachmentID: atts.AddUnique("id", func(b []byte, a InterconnectAttachment) ([]byte, bool) {
			return appendKey(b, a.Project, a.Region, a.ID), true
		}),
		AttachmentsByName: atts.AddPKOrder(),
		AttachmentsByInterconnect: atts.AddOrdered(func(a InterconnectAttachment) (string, bool) {
			return a.Project + "|" + a.Interconnect, true
		}),

		Groups:       groups,
		GroupID:      groups.AddUnique("id", func(b []byte, g AttachmentGroup) ([]byte, bool) { return appendKey(b, g.Project, g.ID), true }),
		GroupsByName: groups.AddPKOrder(),
	}
}
