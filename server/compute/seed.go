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
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store/compat"
	"github.com/understudy-dev/understudy/internal/timefmt"
	"github.com/understudy-dev/understudy/server/validate"
)

// SeedProject is what one project holds at start and again after every reset: the seed
// file's compute.projects.<project>. Its resources exist at once (their inserts are DONE,
// and no operation is kept). Each entry is the resource as the API's insert body takes it,
// checked by the same spec and rules as the insert (read-only members are refused), with
// these additions for convenience:
//   - an interconnect's location and an attachment's interconnect may be plain names;
//   - an attachment names its region in "region" (required);
//   - a group's "attachments" is a list of the project's attachments, each a name (when no
//     other region has one of that name) or region/name, each keyed by itself; or a
//     mapping of keys to such names.
//
// And these, which a state export writes so that the resource reads as it did:
//   - "id" (a string of digits) and "creationTimestamp" (RFC 3339), the read-only members
//     that are otherwise derived from the entry and the time of the start or reset;
//   - a rule's "labelGeneration" and an attachment's or group's "generation", the counts
//     of changes its labelFingerprint or etag is derived from (0 when absent); a rule's
//     "generation" (its fingerprint), an interconnect's "labelGeneration" and
//     "generation", an attachment's "labelGeneration";
//   - an interconnect's or attachment's "circuitDown" (the admin API's circuit control);
//   - a group's (of either kind) "iamPolicy": its IAM policy as setIamPolicy takes it, with
//     the "generation" its etag is derived from.
//
// Operations are finished operations of the project, as a state export records them.
type SeedProject struct {
	// Project is the project's id.
	Project         string           `yaml:"-"`
	Interconnects   []map[string]any `yaml:"interconnects,omitempty"`
	Attachments     []map[string]any `yaml:"interconnectAttachments,omitempty"`
	ForwardingRules []map[string]any `yaml:"forwardingRules,omitempty"`
	Groups          []map[string]any `yaml:"interconnectAttachmentGroups,omitempty"`
	// InterconnectGroups are interconnect groups; "interconnects" lists interconnect names
	// (or maps keys to them).
	InterconnectGroups []map[string]any `yaml:"interconnectGroups,omitempty"`
	Operations         []SeedOperation  `yaml:"operations,omitempty"`
}

// The collections of a SeedProject, as SeedError names them (the YAML keys).
const (
	SeedInterconnects   = "interconnects"
	SeedAttachments     = "interconnectAttachments"
	SeedForwardingRules = "forwardingRules"
	SeedGroups          = "interconnectAttachmentGroups"
	SeedICGroups        = "interconnectGroups"
	SeedOperations      = "operations"
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

// Seed loads the configured projects' resources into tx: per project its interconnects,
// then attachments, forwarding rules and attachment groups, each checked as its insert
// would be and created DONE, then its finished operations.
func (s *Server) Seed(tx *store.Tx) error {
	var high uint64
	for _, p := range s.cfg.Projects {
		for _, op := range p.Operations {
			high = max(high, op.Sequence)
		}
	}
	s.ops.Numbered(high)
	for pi, p := range s.cfg.Projects {
		if err := checkSeedProject(p.Project); err != nil {
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
		}
		for _, step := range steps {
			for i, entry := range step.entries {
				if field, err := step.seed(tx, p.Project, entry); err != nil {
					return &SeedError{ProjectIndex: pi, Project: p.Project, Collection: step.collection, Index: i, Field: field, Err: err}
				}
			}
		}
		// Claiming an attachment for a group counts as a change of it: an attachment that
		// gives its generation has it once its group has claimed it.
		for i, entry := range p.Attachments {
			if err := s.restoreGeneration(tx, p.Project, entry); err != nil {
				return &SeedError{ProjectIndex: pi, Project: p.Project, Collection: SeedAttachments, Index: i, Field: "generation", Err: err}
			}
		}
		for i, op := range p.Operations {
			if field, err := s.seedOperation(tx, p.Project, op); err != nil {
				return &SeedError{ProjectIndex: pi, Project: p.Project, Collection: SeedOperations, Index: i, Field: field, Err: err}
			}
		}
	}
	return nil
}

// recorded are the members of a seeded resource that a state export writes and an insert
// body has no room for: its id and creation time (read-only members of the insert), and
// the count of changes a fingerprint or etag is derived from.
type recorded struct {
	id         string    // "" derives one
	created    time.Time // zero: the time of the start or reset
	generation uint64
}

// seedDigits is the shape of a resource's id: a decimal uint64.
var seedDigits = regexp.MustCompile(`^[0-9]{1,20}$`)

// takeRecorded removes from body (a copy of the entry) the members recorded says, reading
// the count of changes from the member generation names ("" when the kind has none). On
// error it names the member at fault.
func takeRecorded(body map[string]any, generation string) (recorded, string, error) {
	var r recorded
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
	if v, given := body[generation]; given && generation != "" {
		delete(body, generation)
		n, ok := v.(int64)
		if !ok || n < 0 {
			return r, generation, fmt.Errorf("want a count of changes (0 or more), got %v", v)
		}
		r.generation = uint64(n)
	}
	return r, "", nil
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

// idTaken is the error of a seeded resource whose id another one of the project has.
func idTaken(err error, id string) (string, error) {
	if errors.Is(err, store.ErrConflict) {
		return "id", fmt.Errorf("id %s is another resource's of the project", id)
	}
	return located(err)
}

// restoreGeneration gives an attachment entry's recorded generation to the attachment.
func (s *Server) restoreGeneration(tx *store.Tx, project string, entry map[string]any) error {
	v, given := entry["generation"]
	if !given {
		return nil
	}
	region, _ := entry["region"].(string)
	name, _ := entry["name"].(string)
	n, _ := v.(int64)
	key := AttachmentKey(project, region, name)
	a, ok := s.tables.Attachments.Get(tx, key)
	if !ok {
		return fmt.Errorf("attachment %s is not there", key)
	}
	a.Generation = uint64(n)
	return s.tables.Attachments.Put(tx, key, a)
}

func (s *Server) seedInterconnect(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	rec, field, err := takeRecorded(body, "generation")
	if err != nil {
		return field, err
	}
	labelGen, field, err := takeCount(body, "labelGeneration")
	if err != nil {
		return field, err
	}
	down, field, err := takeCircuitDown(body)
	if err != nil {
		return field, err
	}
	if loc, ok := body["location"].(string); ok && loc != "" && !strings.Contains(loc, "/") {
		body["location"] = locationPath(project, loc)
	}
	var b gen.Interconnect
	if field, err := checkSeedBody("interconnects.insert", project, "", body, &b); err != nil {
		return field, err
	}
	ic, err := s.interconnectFromRequest(project, b)
	if err != nil {
		return located(err)
	}
	ic.ID, ic.Created = rec.idOr(seedID(SeedInterconnects, project, b.Name)), rec.createdOr(s.cfg.Now())
	ic.Generation, ic.LabelGeneration, ic.CircuitDown = rec.generation, labelGen, down
	if _, taken := s.tables.Interconnects.Get(tx, ic.Key()); taken {
		return "name", alreadyExists(interconnectPath(project, ic.Name))
	}
	if err := s.tables.Interconnects.Put(tx, ic.Key(), ic); err != nil {
		return idTaken(err, ic.ID)
	}
	return "", nil
}

func (s *Server) seedAttachment(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	// The recorded generation is given once the groups have claimed their attachments
	// (restoreGeneration); taken here, it is checked with the rest.
	rec, field, err := takeRecorded(body, "generation")
	if err != nil {
		return field, err
	}
	labelGen, field, err := takeCount(body, "labelGeneration")
	if err != nil {
		return field, err
	}
	down, field, err := takeCircuitDown(body)
	if err != nil {
		return field, err
	}
	region, ok := body["region"].(string)
	if _, given := body["region"]; given && !ok {
		return "region", errors.New("want the region's name, such as us-east4")
	}
	if region == "" {
		return "region", errors.New("required: the region of the attachment, such as us-east4")
	}
	delete(body, "region")
	// The addresses the attachment was given (an export writes them), kept as they were
	// rather than picked again.
	assigned := map[string]string{}
	for _, k := range assignedAddresses {
		if v, given := body[k]; given {
			text, ok := v.(string)
			if _, err := netip.ParsePrefix(text); !ok || err != nil {
				return k, fmt.Errorf("want an address with its prefix length, such as 169.254.10.1/29, got %v", v)
			}
			assigned[k] = text
			delete(body, k)
		}
	}
	if ic, ok := body["interconnect"].(string); ok && ic != "" && !strings.Contains(ic, "/") {
		body["interconnect"] = interconnectPath(project, ic)
	}
	var b gen.InterconnectAttachment
	if field, err := checkSeedBody("interconnectAttachments.insert", project, region, body, &b); err != nil {
		return field, err
	}
	a, addrs, err := attachmentFromRequest(project, region, b)
	if err != nil {
		return located(err)
	}
	a.ID, a.Created = rec.idOr(seedID(SeedAttachments, project+"|"+region, b.Name)), rec.createdOr(s.cfg.Now())
	a.CloudRouterIP, a.CustomerRouterIP = assigned["cloudRouterIpAddress"], assigned["customerRouterIpAddress"]
	a.CloudRouterIPv6, a.CustomerRouterIPv6 = assigned["cloudRouterIpv6Address"], assigned["customerRouterIpv6Address"]
	a.LabelGeneration, a.CircuitDown = labelGen, down
	if err := s.placeAttachment(tx, &a, b.VlanTag8021q, addrs); err != nil {
		return idTaken(err, a.ID)
	}
	return "", nil
}

// assignedAddresses are the members of an attachment the server assigns that a seed entry
// may give, so that an exported attachment keeps its addresses when loaded back.
var assignedAddresses = []string{"cloudRouterIpAddress", "customerRouterIpAddress", "cloudRouterIpv6Address", "customerRouterIpv6Address"}

func (s *Server) seedRule(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	rec, field, err := takeRecorded(body, "labelGeneration")
	if err != nil {
		return field, err
	}
	generation, field, err := takeCount(body, "generation")
	if err != nil {
		return field, err
	}
	var b gen.ForwardingRule
	if field, err := checkSeedBody("globalForwardingRules.insert", project, "", body, &b); err != nil {
		return field, err
	}
	rule, err := ruleFromRequest(project, b)
	if err != nil {
		return located(err)
	}
	rule.ID = rec.idOr(seedID(SeedForwardingRules, project, rule.Name))
	rule.Created = rec.createdOr(s.cfg.Now())
	rule.LabelGeneration, rule.Generation = rec.generation, generation
	if rule.IPAddress == "" {
		rule.IPAddress = seedIP(rule.Key())
	}
	if _, taken := s.tables.ForwardingRules.Get(tx, rule.Key()); taken {
		return "name", &Error{Status: http.StatusConflict, Reason: "alreadyExists",
			Message: fmt.Sprintf("The resource '%s' already exists", rulePath(project, rule.Name))}
	}
	if err := s.tables.ForwardingRules.Put(tx, rule.Key(), rule); err != nil {
		return idTaken(err, rule.ID)
	}
	return "", nil
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
	// The group's attachments: names (each keyed by itself), or keys to names.
	var names, keys, fields []string
	switch list := body["attachments"].(type) {
	case nil:
	case []any:
		for i, it := range list {
			field := fmt.Sprintf("attachments.%d", i)
			n, ok := it.(string)
			if !ok || n == "" {
				return field, errors.New("want an attachment's name or region/name")
			}
			names, keys, fields = append(names, n), append(keys, n), append(fields, field)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(list)) {
			field := "attachments." + k
			n, ok := list[k].(string)
			if !ok || n == "" {
				return field, errors.New("want an attachment's name or region/name")
			}
			names, keys, fields = append(names, n), append(keys, k), append(fields, field)
		}
	default:
		return "attachments", errors.New("want a list of the project's attachments, each a name or region/name, or a mapping of keys to them")
	}
	delete(body, "attachments")
	var b gen.InterconnectAttachmentGroup
	if field, err := checkSeedBody("interconnectAttachmentGroups.insert", project, "", body, &b); err != nil {
		return field, err
	}
	g, err := groupFromRequest(project, b)
	if err != nil {
		return located(err)
	}
	g.ID, g.Created, g.Generation = rec.idOr(seedID(SeedGroups, project, b.Name)), rec.createdOr(s.cfg.Now()), rec.generation
	if _, taken := s.tables.Groups.Get(tx, g.Key()); taken {
		return "name", alreadyExists(groupPath(g.Project, g.Name))
	}
	// The insert's rules, in its order: the quota, then each attachment exists and is free.
	if len(names) > s.cfg.AttachmentsPerGroup {
		return "attachments", failureError(quotaExceeded(s.cfg.AttachmentsPerGroup, len(names)))
	}
	urls, fieldOf := map[string]string{}, map[string]string{}
	for i, n := range names {
		if _, dup := urls[keys[i]]; dup {
			return fields[i], fmt.Errorf("RESOURCE_IN_USE_BY_ANOTHER_RESOURCE: attachment %s is listed twice", n)
		}
		u, err := s.seedAttachmentURL(tx, project, n)
		if err != nil {
			return fields[i], err
		}
		urls[keys[i]], fieldOf[keys[i]] = u, fields[i]
	}
	held, failure := s.checkAttachments(tx, g, urls)
	if failure != nil {
		field := "attachments"
		for _, e := range failure.Errors {
			if f, ok := fieldOf[strings.TrimPrefix(e.Location, "resource.attachments.")]; ok {
				field = f
			}
		}
		return field, failureError(failure)
	}
	if len(held) > 0 {
		g.Attachments, g.AttachmentURLs = held, urls
	}
	if err := s.claim(tx, g, nil); err != nil {
		return "", err
	}
	if err := s.tables.Groups.Put(tx, g.Key(), g); err != nil {
		return idTaken(err, g.ID)
	}
	return "", policy.put(s, tx, policyKey(project, "interconnectAttachmentGroups", g.ID))
}

// seedAttachmentURL resolves a seeded group's attachment: region/name, or a name that only
// one region of the project has.
func (s *Server) seedAttachmentURL(tx *store.Tx, project, name string) (string, error) {
	if region, n, ok := strings.Cut(name, "/"); ok {
		a, found := s.tables.Attachments.Get(tx, AttachmentKey(project, region, n))
		if !found || a.Pending {
			return "", fmt.Errorf("RESOURCE_NOT_FOUND: The resource '%s' was not found", attachmentPath(project, region, n))
		}
		return attachmentPath(project, region, n), nil
	}
	var regions []string
	prefix := project + "|"
	s.tables.AttachmentsByName.Scan(tx, prefix, prefix+"\xff", nil, func(_ store.Cursor, a InterconnectAttachment) bool {
		if a.Name == name && !a.Pending {
			regions = append(regions, a.Region)
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
	return fmt.Errorf("%s: %s", f.Errors[0].Code, f.Errors[0].Message)
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
func seedIP(key string) string {
	b := sha256.Sum256([]byte("seed-ip|" + key))
	return fmt.Sprintf("34.%d.%d.%d", 64+b[0]%64, b[1], 1+b[2]%254)
}

// seedValidator checks seeded resources as the inserts that would create them, built once.
// Seeds are checked more strictly than requests: read-only members are refused, not ignored.
var seedValidator = sync.OnceValues(func() (*validate.Validator, error) {
	spec, err := Spec()
	if err != nil {
		return nil, err
	}
	return validate.New(spec, validate.Options{})
})

// checkSeedProject checks a project id as the API checks the path parameter.
func checkSeedProject(project string) error {
	_, err := runSeedCheck("globalForwardingRules.list", http.MethodGet, project, "", nil)
	return err
}

// checkSeedBody checks a seeded resource against the spec as the insert operation opID
// checks its request, and decodes it into out. On error it names the member at fault.
func checkSeedBody(opID, project, region string, body map[string]any, out any) (string, error) {
	if body == nil {
		body = map[string]any{}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	if field, err := runSeedCheck(opID, http.MethodPost, project, region, raw); err != nil {
		return field, err
	}
	return "", json.Unmarshal(raw, out)
}

func runSeedCheck(opID, method, project, region string, body []byte) (string, error) {
	v, err := seedValidator()
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
