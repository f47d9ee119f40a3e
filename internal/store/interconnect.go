package store

import "time"

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

// interconnectCodec, attachmentCodec and groupCodec keep their records' fields in the
// order of the structs.
var interconnectCodec = Codec[Interconnect]{
	Encode: func(e *Enc, i Interconnect) {
		e.String(i.Project)
		e.String(i.Name)
		e.String(i.ID)
		e.String(i.Description)
		e.String(i.Location)
		e.String(i.LinkType)
		e.Int(i.RequestedLinkCount)
		e.String(i.InterconnectType)
		e.String(i.CustomerName)
		e.String(i.NocContactEmail)
		e.Bool(i.AdminEnabled)
		e.StringMap(i.Labels)
		e.Time(i.Created)
		e.Bool(i.Pending)
		e.Bool(i.Deleting)
	},
	Decode: func(d *Dec) Interconnect {
		return Interconnect{Project: d.String(), Name: d.String(), ID: d.String(), Description: d.String(),
			Location: d.String(), LinkType: d.String(), RequestedLinkCount: d.Int(), InterconnectType: d.String(),
			CustomerName: d.String(), NocContactEmail: d.String(), AdminEnabled: d.Bool(), Labels: d.StringMap(),
			Created: d.Time(), Pending: d.Bool(), Deleting: d.Bool()}
	},
}

var attachmentCodec = Codec[InterconnectAttachment]{
	Encode: func(e *Enc, a InterconnectAttachment) {
		e.String(a.Project)
		e.String(a.Region)
		e.String(a.Name)
		e.String(a.ID)
		e.String(a.Description)
		e.String(a.Interconnect)
		e.String(a.Type)
		e.String(a.Router)
		e.Bool(a.AdminEnabled)
		e.Int(a.VlanTag)
		e.String(a.Bandwidth)
		e.Int(a.Mtu)
		e.String(a.StackType)
		e.StringMap(a.Labels)
		e.Time(a.Created)
		e.Bool(a.Pending)
		e.String(a.Group)
		e.Uint(a.Generation)
		e.Bool(a.Deleting)
	},
	Decode: func(d *Dec) InterconnectAttachment {
		return InterconnectAttachment{Project: d.String(), Region: d.String(), Name: d.String(), ID: d.String(),
			Description: d.String(), Interconnect: d.String(), Type: d.String(), Router: d.String(),
			AdminEnabled: d.Bool(), VlanTag: d.Int(), Bandwidth: d.String(), Mtu: d.Int(), StackType: d.String(),
			Labels: d.StringMap(), Created: d.Time(), Pending: d.Bool(), Group: d.String(), Generation: d.Uint(),
			Deleting: d.Bool()}
	},
}

var groupCodec = Codec[AttachmentGroup]{
	Encode: func(e *Enc, g AttachmentGroup) {
		e.String(g.Project)
		e.String(g.Name)
		e.String(g.ID)
		e.String(g.Description)
		e.String(g.Intent)
		e.StringMap(g.Attachments)
		e.StringMap(g.AttachmentURLs)
		e.String(g.InterconnectGroup)
		e.Uint(g.Generation)
		e.Time(g.Created)
		e.Bool(g.Pending)
		e.Bool(g.Deleting)
	},
	Decode: func(d *Dec) AttachmentGroup {
		return AttachmentGroup{Project: d.String(), Name: d.String(), ID: d.String(), Description: d.String(),
			Intent: d.String(), Attachments: d.StringMap(), AttachmentURLs: d.StringMap(),
			InterconnectGroup: d.String(), Generation: d.Uint(), Created: d.Time(), Pending: d.Bool(),
			Deleting: d.Bool()}
	},
}

// Interconnects holds the interconnect world's tables. They are keyed by their records' Key
// methods (AttachmentKey for attachments).
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
	ics := NewTable(db, "interconnects", interconnectCodec)
	atts := NewTable(db, "interconnectAttachments", attachmentCodec)
	groups := NewTable(db, "interconnectAttachmentGroups", groupCodec)
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
