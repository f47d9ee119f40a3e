package compute

import (
	"context"
	"strings"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/store"
)

// The compute API's records, as the store keeps them: each is the resource as get returns
// it, the generated wire type with its computed members filled in when it was written, and
// beside it what the API keeps that the resource does not say. The resource's own links
// (selfLink, and its references to other resources of this API) are kept as their paths
// under /compute/v1/ (projects/...): a read makes them URLs of the host it was asked on
// (links). What is derived from other resources when it is read (an attachment group's
// SLA analysis and etag, the attachments an interconnect carries) is filled in then, by the
// resource's render function. A record's primary key is its selfLink path.

// Lifecycle is what the API keeps beside every resource.
type Lifecycle struct {
	// Seq is the resource's place in the order of creation: it orders resources created in
	// the same millisecond newest first, which their creationTimestamp cannot.
	Seq uint64 `json:"sequence"`
	// Pending is set while the insert's operation runs: the name is taken, but the resource
	// is not readable yet.
	Pending bool `json:"pending,omitempty"`
	// Deleting is set while an accepted delete's operation runs: the resource is still
	// readable, but nothing may change or use it (resourceNotReady).
	Deleting bool `json:"deleting,omitempty"`
}

// RuleRecord is a stored global forwarding rule.
type RuleRecord struct {
	Rule gen.ForwardingRule `json:"rule"`
	Lifecycle
}

// InterconnectRecord is a stored (dedicated) interconnect: a physical connection at a
// location.
type InterconnectRecord struct {
	Interconnect gen.Interconnect `json:"interconnect"`
	Lifecycle
	// CircuitDown is set through the admin API: the circuit is down although the
	// configuration says nothing of it (adminEnabled stays as it is).
	CircuitDown bool `json:"circuitDown,omitempty"`
}

// AttachmentRecord is a stored regional attachment (a VLAN) on an interconnect.
type AttachmentRecord struct {
	Attachment gen.InterconnectAttachment `json:"attachment"`
	Lifecycle
	// CircuitDown is set through the admin API, as an interconnect's is.
	CircuitDown bool `json:"circuitDown,omitempty"`
}

// GroupRecord is a stored interconnect attachment group. Its etag is the group's own
// version, which changes with every change of the group; the etag it is read with also
// covers its attachments (groupEtag).
type GroupRecord struct {
	Group gen.InterconnectAttachmentGroup `json:"group"`
	Lifecycle
}

// InterconnectGroupRecord is a stored interconnect group; its etag is kept as a group's is.
// A member interconnect that is deleted stays in its interconnects, and reads as down.
type InterconnectGroupRecord struct {
	Group gen.InterconnectGroup `json:"group"`
	Lifecycle
}

// The IAM policy of a resource (an attachment group or an interconnect group) is stored as
// the gen.Policy setIamPolicy returns, under policyKey; a resource without one has the
// empty policy.

// tables are the compute API's tables and their indexes.
type tables struct {
	rules *store.Table[RuleRecord]
	// ruleByID finds a rule by its selfLinkWithId path.
	ruleByID *store.Index[RuleRecord]
	// ruleAddress finds the rules that use an address with a protocol (addressKey).
	ruleAddress *store.Index[RuleRecord]

	interconnects *store.Table[InterconnectRecord]
	// interconnectByID finds an interconnect by its selfLinkWithId path.
	interconnectByID *store.Index[InterconnectRecord]

	attachments *store.Table[AttachmentRecord]
	// attachmentByID finds an attachment by its path with the id for the name.
	attachmentByID *store.Index[AttachmentRecord]
	// attachmentsOn lists the attachments on an interconnect, by the interconnect's path.
	attachmentsOn *store.Index[AttachmentRecord]
	// pairing finds the sides of a partner pair by their pairing key (pairingIndexKey):
	// one PARTNER and one PARTNER_PROVIDER attachment a key.
	pairing *store.Index[AttachmentRecord]

	groups  *store.Table[GroupRecord]
	groupID *store.Index[GroupRecord]

	icGroups  *store.Table[InterconnectGroupRecord]
	icGroupID *store.Index[InterconnectGroupRecord]

	policies *store.Table[gen.Policy]
}

// newTables adds the compute tables to db.
func newTables(db *store.DB) *tables {
	t := &tables{
		ruleByID:         store.UniqueIndex("id", func(r RuleRecord) (string, bool) { return deref(r.Rule.SelfLinkWithId), true }),
		ruleAddress:      store.OrderedIndex("address", func(r RuleRecord) (string, bool) { return addressKey(r.Rule) }),
		interconnectByID: store.UniqueIndex("id", func(r InterconnectRecord) (string, bool) { return deref(r.Interconnect.SelfLinkWithId), true }),
		attachmentByID: store.UniqueIndex("id", func(r AttachmentRecord) (string, bool) {
			return withID(deref(r.Attachment.SelfLink), deref(r.Attachment.Id)), true
		}),
		attachmentsOn: store.OrderedIndex("interconnect", func(r AttachmentRecord) (string, bool) {
			return deref(r.Attachment.Interconnect), r.Attachment.Interconnect != nil
		}),
		pairing: store.UniqueIndex("pairingKey", func(r AttachmentRecord) (string, bool) { return pairingIndexKey(r.Attachment) }),
		groupID: store.UniqueIndex("id", func(r GroupRecord) (string, bool) {
			return withID(deref(r.Group.SelfLink), deref(r.Group.Id)), true
		}),
		icGroupID: store.UniqueIndex("id", func(r InterconnectGroupRecord) (string, bool) {
			return withID(deref(r.Group.SelfLink), deref(r.Group.Id)), true
		}),
	}
	t.rules = store.NewTable(db, "forwardingRules", t.ruleByID, t.ruleAddress)
	t.interconnects = store.NewTable(db, "interconnects", t.interconnectByID)
	t.attachments = store.NewTable(db, "interconnectAttachments", t.attachmentByID, t.attachmentsOn, t.pairing)
	t.groups = store.NewTable(db, "interconnectAttachmentGroups", t.groupID)
	t.icGroups = store.NewTable(db, "interconnectGroups", t.icGroupID)
	t.policies = store.NewTable[gen.Policy](db, "iamPolicies")
	return t
}

// withID is a resource's path with its id in place of its name: where the real service
// also finds it.
func withID(path, id string) string { return path[:strings.LastIndexByte(path, '/')+1] + id }

// readable finds a resource of t under path (its collection's path and a name or id): by
// its name, else by its id through the index byID. One whose insert is still running is
// not there yet. changeable also refuses one a running delete holds (resourceNotReady).
func readable[R any, P record[R]](tx *store.Tx, t *store.Table[R], byID *store.Index[R], path string) (R, error) {
	r, _, err := find[R, P](tx, t, byID, path)
	return r, err
}

func changeable[R any, P record[R]](tx *store.Tx, t *store.Table[R], byID *store.Index[R], path string) (R, error) {
	r, pk, err := find[R, P](tx, t, byID, path)
	if err == nil && P(&r).life().Deleting {
		err = notReady(pk)
	}
	return r, err
}

func find[R any, P record[R]](tx *store.Tx, t *store.Table[R], byID *store.Index[R], path string) (R, string, error) {
	pk := path
	r, ok := t.Get(tx, path)
	if !ok {
		pk, r, ok = byID.Get(tx, path)
	}
	if !ok || P(&r).life().Pending {
		return r, pk, notFound(path)
	}
	return r, pk, nil
}

// record is what the functions common to every resource need of its stored record: its
// lifecycle (every record's, from the Lifecycle it embeds).
type record[R any] interface {
	*R
	life() *Lifecycle
}

func (l *Lifecycle) life() *Lifecycle { return l }

// scanPrefix calls fn for the records of t whose path starts with prefix, in path order.
func scanPrefix[R any](tx *store.Tx, t *store.Table[R], prefix string, fn func(R) bool) {
	t.Scan(tx, prefix, prefix+"\xff", nil, func(_ store.Cursor, r R) bool { return fn(r) })
}

// links makes the paths records keep URLs of the server as the request names it (or of the
// configured public URL).
type links struct{ base string }

func (s *Server) links(ctx context.Context) links {
	return links{base: strings.TrimRight(s.baseURL(ctx), "/") + "/compute/v1/"}
}

// url is the absolute URL of a resource path under /compute/v1/.
func (l links) url(path string) string { return l.base + path }

// set makes the path *p points to (if any) a URL, in a string of its own: the record it
// was read from keeps its path.
func (l links) set(p **string) {
	if *p != nil {
		*p = ptr(l.url(**p))
	}
}

// urls are the paths URLs, in a list of their own (nil for none).
func (l links) urls(paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = l.url(p)
	}
	return out
}

// listed is each resource's place in its project's list, and whether it is listed: not
// while its insert runs.
func (r RuleRecord) listed() (listItem, bool) {
	return item(r.Rule.Name, r.Rule.CreationTimestamp, r.Seq), !r.Pending
}

func (r InterconnectRecord) listed() (listItem, bool) {
	return item(r.Interconnect.Name, r.Interconnect.CreationTimestamp, r.Seq), !r.Pending
}

func (r AttachmentRecord) listed() (listItem, bool) {
	return item(r.Attachment.Name, r.Attachment.CreationTimestamp, r.Seq), !r.Pending
}

func (r GroupRecord) listed() (listItem, bool) {
	return item(r.Group.Name, r.Group.CreationTimestamp, r.Seq), !r.Pending
}

func (r InterconnectGroupRecord) listed() (listItem, bool) {
	return item(r.Group.Name, r.Group.CreationTimestamp, r.Seq), !r.Pending
}
