package compute

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
	"github.com/understudy-dev/understudy/server/validate"
)

// SeedProject is what one project holds at start and again after every reset: the seed
// file's compute.projects.<project>. Its resources exist at once (their inserts are DONE,
// and no operation is kept). Each entry is the resource as the API's insert body takes it,
// checked by the same spec and rules as the insert, or as a read returns it (a state export
// writes each resource so). Of the members the server sets, an entry's own are taken: "id"
// (a string of digits), "creationTimestamp", "labelFingerprint", a rule's "fingerprint", a
// group's "etag" (its own version), an attachment's router addresses, and a partner
// attachment's "pairingKey" and "state" with what a PARTNER one was provisioned with
// (seededPartner); the others (links, statuses, what derives from other resources) are
// made again, and what an entry says of them is ignored, as an insert ignores them.
// Conveniences:
//   - an interconnect's location and remoteLocation and an attachment's interconnect may be
//     plain names;
//   - an attachment names its region in "region" (required), by name or as its path;
//   - a group's "attachments" may be a list of the project's attachments, each a name (when
//     no other region has one of that name) or region/name, each keyed by itself; or a
//     mapping of keys to such names; an interconnect group's "interconnects" likewise lists
//     interconnect names.
//
// And beside the resource, what a state export writes of what the API keeps:
//   - "sequence", the resource's place in the order of creation (which orders resources
//     created in the same millisecond); without it, the order of the file;
//   - an interconnect's or attachment's "circuitDown" (the admin API's circuit control);
//   - a group's (of either kind) "iamPolicy": its IAM policy as getIamPolicy returns it at
//     version 3, its etag included;
//   - an interconnect group's "deletedInterconnects": members deleted since they joined,
//     which the group still holds (and which read as down).
//
// Seed files of earlier versions gave counts of changes instead of fingerprints and etags:
// "labelGeneration" (a label fingerprint is derived from it), "generation" (ignored), and an
// iamPolicy's "generation" (its etag is derived from it).
//
// Operations are finished operations of the project, as a state export records them: the
// Operation as a read returns it, with its "sequence".
type SeedProject struct {
	// Project is the project's id.
	Project         string           `json:"-" yaml:"-"`
	Interconnects   []map[string]any `json:"interconnects,omitempty" yaml:"interconnects,omitempty"`
	Attachments     []map[string]any `json:"interconnectAttachments,omitempty" yaml:"interconnectAttachments,omitempty"`
	ForwardingRules []map[string]any `json:"forwardingRules,omitempty" yaml:"forwardingRules,omitempty"`
	Groups          []map[string]any `json:"interconnectAttachmentGroups,omitempty" yaml:"interconnectAttachmentGroups,omitempty"`
	// InterconnectGroups are interconnect groups; "interconnects" lists interconnect names
	// (or maps keys to them).
	InterconnectGroups []map[string]any `json:"interconnectGroups,omitempty" yaml:"interconnectGroups,omitempty"`
	Operations         []map[string]any `json:"operations,omitempty" yaml:"operations,omitempty"`
}

// The collections of a SeedProject, as SeedError names them (the YAML keys).
const (
	SeedInterconnects   = "interconnects"
	SeedAttachments     = "interconnectAttachments"
	SeedForwardingRules = "forwardingRules"
	SeedGroups          = "interconnectAttachmentGroups"
	SeedICGroups        = "interconnectGroups"
	SeedOperations      = "operations"
	// SeedLocations are the interconnect locations the seed adds to the catalog.
	SeedLocations = "interconnectLocations"
	// SeedRemoteLocations are the Cross-Cloud Interconnect remote locations the seed adds
	// to their catalog.
	SeedRemoteLocations = "interconnectRemoteLocations"
)

// SeedError is a seeded resource that breaks a rule of the API.
type SeedError struct {
	// ProjectIndex is the project's place in Config.Projects; Project is its id.
	ProjectIndex int
	Project      string
	// Collection is one of the Seed* collections and Index the entry's place in it; an
	// error about the project itself has no collection.
	Collection string
	Index      int
	// Field is the member at fault, dotted (labels.env, attachments.2); "" for the whole entry.
	Field string
	Err   error
}

func (e *SeedError) Error() string {
	where := "compute.projects." + e.Project
	if e.Collection != "" {
		where += fmt.Sprintf(".%s[%d]", e.Collection, e.Index)
	}
	if e.Field != "" {
		where += "." + e.Field
	}
	return where + ": " + e.Err.Error()
}

func (e *SeedError) Unwrap() error { return e.Err }

// Seed loads the resources of seed's Projects into tx: per project its interconnects,
// then attachments, forwarding rules, attachment groups and interconnect groups, each checked
// as its insert would be and created DONE, then its finished operations.
func (s *Server) Seed(tx *store.Tx, seed Config) error {
	for pi, p := range seed.Projects {
		if err := s.checkSeedProject(p.Project); err != nil {
			return &SeedError{ProjectIndex: pi, Project: p.Project, Err: err}
		}
		steps := []struct {
			collection string
			entries    []map[string]any
			seed       func(tx *store.Tx, project string, entry map[string]any) (string, error)
		}{
			{SeedInterconnects, p.Interconnects, s.seedInterconnect},
			{SeedAttachments, p.Attachments, s.seedAttachment},
			{SeedForwardingRules, p.ForwardingRules, s.seedRule},
			{SeedGroups, p.Groups, s.seedGroup},
			{SeedICGroups, p.InterconnectGroups, s.seedICGroup},
			{SeedOperations, p.Operations, s.seedOperation},
		}
		for _, step := range steps {
			for i, entry := range step.entries {
				if field, err := step.seed(tx, p.Project, entry); err != nil {
					return &SeedError{ProjectIndex: pi, Project: p.Project, Collection: step.collection, Index: i, Field: field, Err: err}
				}
			}
		}
	}
	return nil
}

// recorded are the members of a seeded resource's entry that are taken out of it before
// the rest is checked as an insert body: its id and creation time (which an insert ignores),
// its place in the order of creation, and the counts of changes of earlier versions.
type recorded struct {
	id      string    // "" derives one
	created time.Time // zero: the time of the start or reset
	seq     uint64    // 0: the next
	counts  map[string]uint64
}

// seedDigits is the shape of a resource's id: a decimal uint64.
var seedDigits = regexp.MustCompile(`^[0-9]{1,20}$`)

// takeRecorded removes from body (a copy of the entry) the members recorded says, the
// counts of changes among them (0 when absent). On error it names the member at fault.
func takeRecorded(body map[string]any, counts ...string) (recorded, string, error) {
	r := recorded{counts: map[string]uint64{}}
	if v, given := body["id"]; given {
		delete(body, "id")
		id, ok := v.(string)
		if _, err := strconv.ParseUint(id, 10, 64); !ok || !seedDigits.MatchString(id) || err != nil {
			return r, "id", fmt.Errorf("want the resource's id as a string of digits (quoted, as an export writes it), got %v", v)
		}
		r.id = id
	}
	if v, given := body["creationTimestamp"]; given {
		delete(body, "creationTimestamp")
		text, _ := v.(string)
		t, err := timefmt.Parse(text)
		if err != nil {
			return r, "creationTimestamp", err
		}
		r.created = t
	}
	for _, member := range append([]string{"sequence"}, counts...) {
		n, field, err := takeCount(body, member)
		if err != nil {
			return r, field, err
		}
		r.counts[member] = n
	}
	r.seq = r.counts["sequence"]
	return r, "", nil
}

// takeCount removes the count member from body (0 when absent).
func takeCount(body map[string]any, member string) (uint64, string, error) {
	v, given := body[member]
	if !given {
		return 0, "", nil
	}
	delete(body, member)
	n, ok := count(v)
	if !ok {
		return 0, member, fmt.Errorf("want a count of changes (0 or more), got %v", v)
	}
	return n, "", nil
}

// count reads a count from a value a seed decoder gives for a number.
func count(v any) (uint64, bool) {
	switch n := v.(type) {
	case int64:
		return uint64(n), n >= 0
	case uint64:
		return n, true
	case float64:
		return uint64(n), n >= 0 && n == float64(uint64(n))
	}
	return 0, false
}

// idOr is the recorded id, else derived.
func (r recorded) idOr(derived string) string {
	if r.id != "" {
		return r.id
	}
	return derived
}

// createdOr is the recorded creation time, else now.
func (r recorded) createdOr(now time.Time) time.Time {
	if !r.created.IsZero() {
		return r.created
	}
	return now
}

// lifecycle is a seeded resource's: in the order of creation at its recorded place, or the
// next; finished.
func (r recorded) lifecycle(tx *store.Tx) Lifecycle {
	if r.seq > 0 {
		return Lifecycle{Seq: r.seq}
	}
	return Lifecycle{Seq: tx.Next("compute")}
}

// labelFingerprintOf is a seeded resource's label fingerprint: the entry's, else derived
// from an earlier version's count of label changes, else the one made (made).
func (r recorded) labelFingerprintOf(given, made []byte, labels *gen.Labels) []byte {
	switch {
	case len(given) > 0:
		return given
	case r.counts["labelGeneration"] > 0:
		return labelFingerprint(labelsOf(labels), r.counts["labelGeneration"])
	}
	return made
}

// idTaken is the error of a seeded resource whose id another one of the project has (or,
// for a partner attachment, whose pairing key another one of its type has).
func idTaken(err error, id string) (string, error) {
	var ce *store.ConflictError
	switch {
	case errors.As(err, &ce) && ce.Index == "pairingKey":
		key, _, _ := strings.Cut(ce.Key, "|")
		return "pairingKey", fmt.Errorf("pairing key %s is another attachment's: %s", key, ce.Holder)
	case errors.Is(err, store.ErrConflict):
		return "id", fmt.Errorf("id %s is another resource's of the project", id)
	}
	return located(err)
}

// nameOrPath is the path of a reference a seed entry gives as a plain name: of the
// collection at prefix (a project's path with the collection and a slash).
func nameOrPath(body map[string]any, member, prefix string) {
	if v, ok := body[member].(string); ok && v != "" && !strings.Contains(v, "/") {
		body[member] = prefix + v
	}
}

func (s *Server) seedInterconnect(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	rec, field, err := takeRecorded(body, "labelGeneration", "generation")
	if err != nil {
		return field, err
	}
	down, field, err := takeCircuitDown(body)
	if err != nil {
		return field, err
	}
	nameOrPath(body, "location", globalScope(project)+"/interconnectLocations/")
	var b gen.Interconnect
	if field, err := s.checkSeedBody("interconnects.insert", project, "", body, &b); err != nil {
		return field, err
	}
	ic, err := s.newInterconnect(project, b, rec.idOr(seedID(SeedInterconnects, project, b.Name)), rec.createdOr(s.cfg.Now()))
	if err != nil {
		return located(err)
	}
	ic.LabelFingerprint = rec.labelFingerprintOf(b.LabelFingerprint, ic.LabelFingerprint, ic.Labels)
	if _, taken := s.tables.interconnects.Get(tx, *ic.SelfLink); taken {
		return "name", alreadyExists(*ic.SelfLink)
	}
	if err := s.tables.interconnects.Put(tx, *ic.SelfLink, InterconnectRecord{Interconnect: ic, Lifecycle: rec.lifecycle(tx), CircuitDown: down}); err != nil {
		return idTaken(err, *ic.Id)
	}
	return "", nil
}

func (s *Server) seedAttachment(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	rec, field, err := takeRecorded(body, "labelGeneration", "generation")
	if err != nil {
		return field, err
	}
	down, field, err := takeCircuitDown(body)
	if err != nil {
		return field, err
	}
	region, err := takeRegion(body)
	if err != nil {
		return "region", err
	}
	if region == "" {
		return "region", errors.New("required: the region of the attachment, such as us-east4")
	}
	// The addresses the attachment was given (an export writes them), kept as they were
	// rather than picked again.
	for _, k := range assignedAddresses {
		if v, given := body[k]; given {
			text, ok := v.(string)
			if _, err := netip.ParsePrefix(text); !ok || err != nil {
				return k, fmt.Errorf("want an address with its prefix length, such as 169.254.10.1/29, got %v", v)
			}
		}
	}
	nameOrPath(body, "interconnect", globalScope(project)+"/interconnects/")
	var b gen.InterconnectAttachment
	if field, err := s.checkSeedBody("interconnectAttachments.insert", project, region, body, &b); err != nil {
		return field, err
	}
	a, addrs, err := newAttachment(project, region, partnerSeedBody(b), rec.idOr(seedID(SeedAttachments, project+"|"+region, b.Name)), rec.createdOr(s.cfg.Now()))
	if err == nil {
		err = seededPartner(&a, b)
	}
	if err != nil {
		return located(err)
	}
	a.CloudRouterIpAddress, a.CustomerRouterIpAddress = b.CloudRouterIpAddress, b.CustomerRouterIpAddress
	a.CloudRouterIpv6Address, a.CustomerRouterIpv6Address = b.CloudRouterIpv6Address, b.CustomerRouterIpv6Address
	a.LabelFingerprint = rec.labelFingerprintOf(b.LabelFingerprint, a.LabelFingerprint, a.Labels)
	r := AttachmentRecord{Attachment: a, Lifecycle: rec.lifecycle(tx), CircuitDown: down}
	if err := s.placeAttachment(tx, &r, b.VlanTag8021q, addrs); err != nil {
		return idTaken(err, *a.Id)
	}
	if err := s.seedPair(tx, r); err != nil {
		return idTaken(err, *a.Id)
	}
	return "", nil
}

// assignedAddresses are the members of an attachment the server assigns that a seed entry
// may give, so that an exported attachment keeps its addresses when loaded back.
var assignedAddresses = []string{"cloudRouterIpAddress", "customerRouterIpAddress", "cloudRouterIpv6Address", "customerRouterIpv6Address"}

// takeRegion takes a seeded resource's "region" out of its entry: the region's name, or
// its path or URL as a read returns it; "" when the entry gives none.
func takeRegion(body map[string]any) (string, error) {
	region, ok := body["region"].(string)
	if _, given := body["region"]; given && !ok {
		return "", errors.New("want the region's name, such as us-east4")
	}
	if strings.HasPrefix(region, "projects/") || strings.Contains(region, "://") {
		region = regionOf(region)
	}
	delete(body, "region")
	return region, nil
}

// seedRule seeds a forwarding rule: a regional one when the entry names its "region" (one
// of the catalog's, as on insert), else a global one.
func (s *Server) seedRule(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	rec, field, err := takeRecorded(body, "labelGeneration", "generation")
	if err != nil {
		return field, err
	}
	region, err := takeRegion(body)
	if err == nil {
		err = s.checkRuleRegion(region)
	}
	if err != nil {
		return "region", err
	}
	opID, scope := "globalForwardingRules.insert", project
	if region != "" {
		opID, scope = "forwardingRules.insert", project+"|"+region
	}
	var b gen.ForwardingRule
	if field, err := s.checkSeedBody(opID, project, region, body, &b); err != nil {
		return field, err
	}
	rule, err := newRule(project, region, b, rec.idOr(seedID(SeedForwardingRules, scope, b.Name)), rec.createdOr(s.cfg.Now()))
	if err != nil {
		return located(err)
	}
	rule.LabelFingerprint = rec.labelFingerprintOf(b.LabelFingerprint, rule.LabelFingerprint, rule.Labels)
	if len(b.Fingerprint) > 0 {
		rule.Fingerprint = b.Fingerprint
	}
	if _, taken := s.tables.rules.Get(tx, *rule.SelfLink); taken {
		return "name", alreadyExists(*rule.SelfLink)
	}
	var draw func(int) string // the same at every start and reset
	if rule.IPAddress == nil {
		internal := internalAddress(rule)
		draw = func(try int) string {
			key := scope + "|" + rule.Name
			if try > 0 {
				key += "|" + strconv.Itoa(try)
			}
			return seedIP(key, *rule.IpVersion, internal)
		}
	}
	if err := s.placeAddress(tx, &rule, draw); err != nil {
		return "IPAddress", err
	}
	if err := s.tables.rules.Put(tx, *rule.SelfLink, RuleRecord{Rule: rule, Lifecycle: rec.lifecycle(tx)}); err != nil {
		return idTaken(err, *rule.Id)
	}
	return "", nil
}

// seedRefs reads the references of a seeded group (member, its attachments or its
// interconnects): a list of names (each keyed by itself), or a mapping of keys to names or
// to the group's own entries ({attachment: ...}, {interconnect: ...}, as a read returns
// them). It returns the references by key and, for each key, the member to name in errors.
func seedRefs(body map[string]any, member, entryMember, what string) (refs, fields map[string]string, order []string, field string, err error) {
	refs, fields = map[string]string{}, map[string]string{}
	add := func(key, field string, v any) error {
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			v = m[entryMember]
		}
		n, ok := v.(string)
		if !ok || n == "" {
			return fmt.Errorf("want %s", what)
		}
		if _, dup := refs[key]; dup {
			return fmt.Errorf("RESOURCE_IN_USE_BY_ANOTHER_RESOURCE: %s is listed twice", n)
		}
		refs[key], fields[key], order = n, field, append(order, key)
		return nil
	}
	switch list := body[member].(type) {
	case nil:
	case []any:
		for i, it := range list {
			n, _ := it.(string)
			if err := add(n, fmt.Sprintf("%s.%d", member, i), it); err != nil {
				return nil, nil, nil, fmt.Sprintf("%s.%d", member, i), err
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(list)) {
			if err := add(k, member+"."+k, list[k]); err != nil {
				return nil, nil, nil, member + "." + k, err
			}
		}
	default:
		return nil, nil, nil, member, fmt.Errorf("want a list of the project's %ss, each a name, or a mapping of keys to them", entryMember)
	}
	delete(body, member)
	return refs, fields, order, "", nil
}

func (s *Server) seedGroup(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	rec, field, err := takeRecorded(body, "generation")
	if err != nil {
		return field, err
	}
	policy, field, err := takePolicy(body)
	if err != nil {
		return field, err
	}
	refs, fields, order, field, err := seedRefs(body, "attachments", "attachment", "an attachment's name or region/name")
	if err != nil {
		return field, err
	}
	var b gen.InterconnectAttachmentGroup
	if field, err := s.checkSeedBody("interconnectAttachmentGroups.insert", project, "", body, &b); err != nil {
		return field, err
	}
	g, err := newGroup(project, b, rec.idOr(seedID(SeedGroups, project, b.Name)), rec.createdOr(s.cfg.Now()))
	if err != nil {
		return located(err)
	}
	if b.Etag != nil {
		g.Etag = b.Etag
	}
	path := *g.SelfLink
	if _, taken := s.tables.groups.Get(tx, path); taken {
		return "name", alreadyExists(path)
	}
	// The insert's rules, in its order: the quota, then each attachment exists and is free.
	if len(refs) > s.cfg.AttachmentsPerGroup {
		return "attachments", failureError(quotaExceeded(s.cfg.AttachmentsPerGroup, len(refs)))
	}
	urls := map[string]string{}
	for _, k := range order {
		u, err := s.seedAttachmentURL(tx, project, refs[k])
		if err != nil {
			return fields[k], err
		}
		urls[k] = u
	}
	held, failure := s.checkAttachments(tx, project, g.Name, urls)
	if failure != nil {
		field := "attachments"
		for _, e := range failure.Errors {
			if f, ok := fields[strings.TrimPrefix(deref(e.Location), "resource.attachments.")]; ok {
				field = f
			}
		}
		return field, failureError(failure)
	}
	g.Attachments = attachmentEntries(held)
	if err := s.claim(tx, path, held, nil); err != nil {
		return "", err
	}
	if err := s.tables.groups.Put(tx, path, GroupRecord{Group: g, Lifecycle: rec.lifecycle(tx)}); err != nil {
		return idTaken(err, *g.Id)
	}
	return policy.put(s, tx, project, "interconnectAttachmentGroups", *g.Id)
}

// seedAttachmentURL resolves a seeded group's attachment: a path (or URL), region/name, or
// a name that only one region of the project has.
func (s *Server) seedAttachmentURL(tx *store.Tx, project, name string) (string, error) {
	if r, ok := parseRef(name, "interconnectAttachments", project); ok {
		return attachmentPath(r.Project, r.Region, r.Name), nil
	}
	if region, n, ok := strings.Cut(name, "/"); ok {
		path := attachmentPath(project, region, n)
		if a, found := s.tables.attachments.Get(tx, path); !found || a.Pending {
			return "", fmt.Errorf("RESOURCE_NOT_FOUND: The resource '%s' was not found", path)
		}
		return path, nil
	}
	var regions []string
	scanPrefix(tx, s.tables.attachments, "projects/"+project+"/regions/", func(a AttachmentRecord) bool {
		if a.Attachment.Name == name && !a.Pending {
			regions = append(regions, regionOf(*a.Attachment.Region))
		}
		return true
	})
	switch len(regions) {
	case 0:
		return "", fmt.Errorf("RESOURCE_NOT_FOUND: project %s has no interconnect attachment named '%s' (declare it under interconnectAttachments)", project, name)
	case 1:
		return attachmentPath(project, regions[0], name), nil
	}
	sort.Strings(regions)
	return "", fmt.Errorf("attachment '%s' is in regions %s: name it as region/name", name, strings.Join(regions, ", "))
}

func failureError(f *operations.Failure) error {
	if len(f.Errors) == 0 {
		return errors.New(f.HTTPMessage)
	}
	return fmt.Errorf("%s: %s", f.Errors[0].Code, deref(f.Errors[0].Message))
}

// located returns the member an API error names (its location without "resource."), and
// the error.
func located(err error) (string, error) {
	var e *Error
	if errors.As(err, &e) {
		return strings.TrimPrefix(e.Location, "resource."), err
	}
	return "", err
}

// seedID is the id of a seeded resource: the same at every start and reset.
func seedID(collection, scope, name string) string {
	return stableID("seed|" + collection + "|" + scope + "|" + name)
}

// seedIP is the address of a seeded rule that gives none: the same at every start and reset.
func seedIP(key string, version gen.ForwardingRuleIpVersion, internal bool) string {
	b := sha256.Sum256([]byte("seed-ip|" + key))
	return addressFrom(version, internal, [3]byte(b[:3]))
}

// checkSeedProject checks a project id as the API checks the path parameter.
func (s *Server) checkSeedProject(project string) error {
	_, err := s.runSeedCheck("globalForwardingRules.list", http.MethodGet, project, "", nil)
	return err
}

// checkSeedBody checks a seeded resource against the spec as the insert operation opID
// checks its request, and decodes it into out. On error it names the member at fault.
func (s *Server) checkSeedBody(opID, project, region string, body map[string]any, out any) (string, error) {
	if body == nil {
		body = map[string]any{}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	if field, err := s.runSeedCheck(opID, http.MethodPost, project, region, raw); err != nil {
		return field, err
	}
	return "", json.Unmarshal(raw, out)
}

func (s *Server) runSeedCheck(opID, method, project, region string, body []byte) (string, error) {
	v, err := s.seedValidator()
	if err != nil {
		return "", err
	}
	path := "/compute/v1/projects/" + project
	params := map[string]string{"project": project}
	if region != "" {
		path += "/regions/" + region
		params["region"] = region
	}
	var req *http.Request
	if body == nil {
		req, err = http.NewRequest(method, path, nil)
	} else {
		req, err = http.NewRequest(method, path, bytes.NewReader(body))
	}
	if err != nil {
		return "", err
	}
	if body != nil {
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	}
	if err := v.CheckRequest(opID, req, params); err != nil {
		var ve *validate.Error
		if !errors.As(err, &ve) {
			return "", err
		}
		switch {
		case ve.In == "path" && ve.Name == "region":
			return "region", fmt.Errorf("%q: %s", region, ve.Reason)
		case ve.In == "path":
			return "", fmt.Errorf("project id %q: %s", project, ve.Reason)
		case ve.In == "body":
			return ve.Name, errors.New(ve.Reason)
		}
		return "", err
	}
	return "", nil
}
