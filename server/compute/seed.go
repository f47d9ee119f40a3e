package compute

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	gen "github.com/understudy-dev/understudy/gen/compute"
	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
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
//     other region has one of that name) or region/name; each is keyed by itself.
type SeedProject struct {
	// Project is the project's id.
	Project         string           `yaml:"-"`
	Interconnects   []map[string]any `yaml:"interconnects"`
	Attachments     []map[string]any `yaml:"interconnectAttachments"`
	ForwardingRules []map[string]any `yaml:"forwardingRules"`
	Groups          []map[string]any `yaml:"interconnectAttachmentGroups"`
}

// The collections of a SeedProject, as SeedError names them (the YAML keys).
const (
	SeedInterconnects   = "interconnects"
	SeedAttachments     = "interconnectAttachments"
	SeedForwardingRules = "forwardingRules"
	SeedGroups          = "interconnectAttachmentGroups"
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
// would be and created DONE.
func (s *Server) Seed(tx *store.Tx) error {
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

func (s *Server) seedInterconnect(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
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
	ic.ID, ic.Created = seedID(SeedInterconnects, project, b.Name), s.cfg.Now()
	if _, taken := s.tables.Interconnects.Get(tx, ic.Key()); taken {
		return "name", alreadyExists(interconnectPath(project, ic.Name))
	}
	return "", s.tables.Interconnects.Put(tx, ic.Key(), ic)
}

func (s *Server) seedAttachment(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	region, ok := body["region"].(string)
	if _, given := body["region"]; given && !ok {
		return "region", errors.New("want the region's name, such as us-east4")
	}
	if region == "" {
		return "region", errors.New("required: the region of the attachment, such as us-east4")
	}
	delete(body, "region")
	if ic, ok := body["interconnect"].(string); ok && ic != "" && !strings.Contains(ic, "/") {
		body["interconnect"] = interconnectPath(project, ic)
	}
	var b gen.InterconnectAttachment
	if field, err := checkSeedBody("interconnectAttachments.insert", project, region, body, &b); err != nil {
		return field, err
	}
	a, err := attachmentFromRequest(project, region, b)
	if err != nil {
		return located(err)
	}
	a.ID, a.Created = seedID(SeedAttachments, project+"|"+region, b.Name), s.cfg.Now()
	return located(s.placeAttachment(tx, &a, b.VlanTag8021q))
}

func (s *Server) seedRule(tx *store.Tx, project string, entry map[string]any) (string, error) {
	var b gen.ForwardingRule
	if field, err := checkSeedBody("globalForwardingRules.insert", project, "", entry, &b); err != nil {
		return field, err
	}
	rule, err := ruleFromRequest(project, b)
	if err != nil {
		return located(err)
	}
	rule.ID = seedID(SeedForwardingRules, project, rule.Name)
	rule.Created = s.cfg.Now()
	if rule.IPAddress == "" {
		rule.IPAddress = seedIP(rule.Key())
	}
	if _, taken := s.tables.ForwardingRules.Get(tx, rule.Key()); taken {
		return "name", &Error{Status: http.StatusConflict, Reason: "alreadyExists",
			Message: fmt.Sprintf("The resource '%s' already exists", rulePath(project, rule.Name))}
	}
	return "", s.tables.ForwardingRules.Put(tx, rule.Key(), rule)
}

func (s *Server) seedGroup(tx *store.Tx, project string, entry map[string]any) (string, error) {
	body := maps.Clone(entry)
	var names []string
	if list, given := body["attachments"]; given {
		items, ok := list.([]any)
		if !ok {
			return "attachments", errors.New("want a list of the project's attachments, each a name or region/name")
		}
		for i, it := range items {
			n, ok := it.(string)
			if !ok || n == "" {
				return fmt.Sprintf("attachments.%d", i), errors.New("want an attachment's name or region/name")
			}
			names = append(names, n)
		}
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
	g.ID, g.Created = seedID(SeedGroups, project, b.Name), s.cfg.Now()
	if _, taken := s.tables.Groups.Get(tx, g.Key()); taken {
		return "name", alreadyExists(groupPath(g.Project, g.Name))
	}
	// The insert's rules, in its order: the quota, then each attachment exists and is free.
	if len(names) > s.cfg.AttachmentsPerGroup {
		return "attachments", failureError(quotaExceeded(s.cfg.AttachmentsPerGroup, len(names)))
	}
	urls, index := map[string]string{}, map[string]int{}
	for i, n := range names {
		field := fmt.Sprintf("attachments.%d", i)
		if _, dup := urls[n]; dup {
			return field, fmt.Errorf("RESOURCE_IN_USE_BY_ANOTHER_RESOURCE: attachment %s is listed twice", n)
		}
		u, err := s.seedAttachmentURL(tx, project, n)
		if err != nil {
			return field, err
		}
		urls[n], index[n] = u, i
	}
	keys, failure := s.checkAttachments(tx, g, urls)
	if failure != nil {
		field := "attachments"
		for _, e := range failure.Errors {
			if i, ok := index[strings.TrimPrefix(e.Location, "resource.attachments.")]; ok {
				field = fmt.Sprintf("attachments.%d", i)
			}
		}
		return field, failureError(failure)
	}
	if len(keys) > 0 {
		g.Attachments, g.AttachmentURLs = keys, urls
	}
	if err := s.claim(tx, g, nil); err != nil {
		return "", err
	}
	return "", s.tables.Groups.Put(tx, g.Key(), g)
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
